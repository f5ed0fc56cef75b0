package main

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
)

// TestPublisherSync: a namespace without the ConfigMap gets it (annotated, empty bundle); one
// whose annotations changed gets them reset and keeps the injected bundle; one in order is left.
func TestPublisherSync(t *testing.T) {
	injected := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: "changed", Name: publishedName,
			Annotations: map[string]string{"service.beta.openshift.io/inject-cabundle": "true", "openshift.io/owning-component": "service-ca"}},
		Data: map[string]string{publishedKey: "CA"},
	}
	fine := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: "fine", Name: publishedName, Annotations: map[string]string{"service.beta.openshift.io/inject-cabundle": "true"}},
		Data:       map[string]string{publishedKey: "CA"},
	}
	client := fake.NewClientset(injected, fine)
	factory := informers.NewSharedInformerFactory(client, 0)
	p, err := newPublisher(client, factory)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	for _, ns := range []string{"new", "changed", "fine"} {
		if err := p.sync(ctx, ns); err != nil {
			t.Fatalf("sync %s: %v", ns, err)
		}
	}
	writes := 0
	for _, a := range client.Actions() {
		if a.GetVerb() == "create" || a.GetVerb() == "update" {
			writes++
		}
	}
	if writes != 2 {
		t.Errorf("%d writes, want 2 (create in new, update in changed): %v", writes, client.Actions())
	}
	for ns, want := range map[string]string{"new": "", "changed": "CA", "fine": "CA"} {
		cm, err := client.CoreV1().ConfigMaps(ns).Get(ctx, publishedName, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("%s: %v", ns, err)
		}
		if len(cm.Annotations) != 1 || cm.Annotations["service.beta.openshift.io/inject-cabundle"] != "true" {
			t.Errorf("%s: annotations %v, want only the injection annotation", ns, cm.Annotations)
		}
		if got, ok := cm.Data[publishedKey]; !ok || got != want {
			t.Errorf("%s: %s = %q (present %v), want %q", ns, publishedKey, got, ok, want)
		}
	}
}
