package engine

import (
	"context"
	"fmt"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextfake "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/fake"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
)

// An optional API's informer follows its CRD: it stops when the CRD goes away, and a new one
// lists the objects when the CRD is back (the old one would wait out its list back-off, and
// a feature turned off meanwhile would leave its objects behind).
func TestOptionalAPIInformerFollowsItsCRD(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	gvr := schema.GroupVersionResource{Group: "monitoring.coreos.com", Version: "v1", Resource: "servicemonitors"}
	crdName := CRDName(gvr)
	established := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: crdName},
		Status: apiextensionsv1.CustomResourceDefinitionStatus{Conditions: []apiextensionsv1.CustomResourceDefinitionCondition{
			{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue},
		}},
	}
	apiext := apiextfake.NewSimpleClientset(established)
	monitor := func(name string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("monitoring.coreos.com/v1")
		u.SetKind("ServiceMonitor")
		u.SetNamespace("ns")
		u.SetName(name)
		u.SetLabels(map[string]string{ManagedByLabel: ManagedByValue})
		return u
	}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{gvr: "ServiceMonitorList"}, monitor("before"))
	caches := NewCaches()
	o := NewOptionalAPIs(ctx, dyn, apiext, 0, caches, OptionalAPI{GVR: gvr})
	crd := o.CRDWatches()[0]
	go crd.Informer.Run(ctx.Done())
	waitUntil(t, "the CRD watch to see the CRD", crd.Established)

	if objs, err := o.List(gvr, "ns"); err != nil || len(objs) != 1 {
		t.Fatalf("List with the CRD established = %d objects, %v; want 1", len(objs), err)
	}
	if _, err := caches.Get(gvr.GroupResource(), "ns", "before"); err != nil {
		t.Errorf("the caches do not answer from the informer: %v", err)
	}

	// The CRD goes away: the informer stops, reads say NotFound, Installed names the CRD.
	if err := apiext.ApiextensionsV1().CustomResourceDefinitions().Delete(ctx, crdName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the CRD watch to see the deletion", func() bool { return !crd.Established() })
	if err := o.Installed(gvr); err == nil {
		t.Fatal("Installed without the CRD = nil, want the missing CRD")
	}
	api := o.apis[gvr]
	api.mu.Lock()
	stopped := api.informer == nil
	api.mu.Unlock()
	if !stopped {
		t.Error("the informer still runs after its CRD went away")
	}
	if _, err := caches.Get(gvr.GroupResource(), "ns", "before"); err == nil {
		t.Error("the caches still answer for an API whose CRD is gone")
	}

	// The CRD is back, with other objects: a new informer lists them.
	if err := dyn.Resource(gvr).Namespace("ns").Delete(ctx, "before", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := dyn.Resource(gvr).Namespace("ns").Create(ctx, monitor("after"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	established.ResourceVersion = ""
	if _, err := apiext.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, established, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the CRD watch to see the CRD again", crd.Established)
	objs, err := o.List(gvr, "ns")
	if err != nil || len(objs) != 1 {
		t.Fatalf("List after the CRD came back = %d objects, %v; want 1", len(objs), err)
	}
	if name := objs[0].(*unstructured.Unstructured).GetName(); name != "after" {
		t.Errorf("List after the CRD came back = %s, want the new object", name)
	}
	if _, err := caches.Get(gvr.GroupResource(), "ns", "after"); err != nil {
		t.Errorf("the caches do not answer from the new informer: %v", err)
	}
}

// A controller is triggered by, and waits for, the CRD watches of its own optional APIs only:
// another kind's may not be started.
func TestCRDWatchesOfAreTheGivenAPIs(t *testing.T) {
	gvr := func(resource string) schema.GroupVersionResource {
		return schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: resource}
	}
	o := NewOptionalAPIs(context.Background(), nil, apiextfake.NewSimpleClientset(), 0, NewCaches(),
		OptionalAPI{GVR: gvr("as")}, OptionalAPI{GVR: gvr("bs")}, OptionalAPI{GVR: gvr("cs")})
	for _, tc := range []struct {
		name string
		apis []OptionalAPI
		want []string
	}{
		{"none", nil, nil},
		{"one of three", []OptionalAPI{{GVR: gvr("bs")}}, []string{"bs.example.com"}},
		{"twice and an unregistered one", []OptionalAPI{{GVR: gvr("cs")}, {GVR: gvr("as")}, {GVR: gvr("cs"), Namespace: "ns"}, {GVR: gvr("zs")}},
			[]string{"as.example.com", "cs.example.com"}},
	} {
		var got []string
		for _, w := range o.CRDWatchesOf(tc.apis) {
			got = append(got, w.Name)
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: CRDWatchesOf = %v, want %v", tc.name, got, tc.want)
		}
	}
}
