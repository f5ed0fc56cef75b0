package main

import (
	"context"
	"fmt"
	"maps"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
)

const (
	// publishedName is the ConfigMap OpenShift keeps in every namespace for the service CA bundle.
	publishedName = "openshift-service-ca.crt"
	// publishedKey is where the service CA's injector puts the bundle (api.InjectionDataKey).
	publishedKey = "service-ca.crt"
)

// publishedAnnotations are the annotations the ConfigMap carries, and only these: the injector's
// (service.beta.openshift.io/inject-cabundle), as OpenShift's publisher sets them.
var publishedAnnotations = map[string]string{"service.beta.openshift.io/inject-cabundle": "true"}

// publisher keeps ConfigMap openshift-service-ca.crt in every active namespace, with exactly
// publishedAnnotations, as OpenShift's kube-controller-manager does: created with an empty
// service-ca.crt (so a pod that mounts it can start before the injector filled it), recreated
// when deleted, its annotations reset when changed. Its data is the injector's.
type publisher struct {
	client     kubernetes.Interface
	configMaps corelisters.ConfigMapLister
	queue      workqueue.TypedRateLimitingInterface[string]
}

func newPublisher(client kubernetes.Interface, factory informers.SharedInformerFactory) (*publisher, error) {
	p := &publisher{
		client:     client,
		configMaps: factory.Core().V1().ConfigMaps().Lister(),
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "service_ca_cert_publisher"}),
	}
	ns := func(obj any) {
		if n, ok := obj.(*corev1.Namespace); ok && n.Status.Phase != corev1.NamespaceTerminating {
			p.queue.Add(n.Name)
		}
	}
	cm := func(obj any) {
		if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = tombstone.Obj
		}
		if c, ok := obj.(*corev1.ConfigMap); ok && c.Name == publishedName {
			p.queue.Add(c.Namespace)
		}
	}
	if _, err := factory.Core().V1().Namespaces().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    ns,
		UpdateFunc: func(_, obj any) { ns(obj) },
	}); err != nil {
		return nil, err
	}
	if _, err := factory.Core().V1().ConfigMaps().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(_, obj any) { cm(obj) },
		DeleteFunc: cm,
	}); err != nil {
		return nil, err
	}
	return p, nil
}

// sync makes namespace ns hold the published ConfigMap.
func (p *publisher) sync(ctx context.Context, ns string) error {
	existing, err := p.configMaps.ConfigMaps(ns).Get(publishedName)
	switch {
	case apierrors.IsNotFound(err):
		_, err = p.client.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: publishedName, Annotations: maps.Clone(publishedAnnotations)},
			Data:       map[string]string{publishedKey: ""},
		}, metav1.CreateOptions{})
		// A namespace that is gone or terminating needs nothing.
		if apierrors.IsNotFound(err) || apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
			return nil
		}
		return err
	case err != nil:
		return err
	case maps.Equal(existing.Annotations, publishedAnnotations):
		return nil
	}
	updated := existing.DeepCopy()
	updated.Annotations = maps.Clone(publishedAnnotations)
	_, err = p.client.CoreV1().ConfigMaps(ns).Update(ctx, updated, metav1.UpdateOptions{})
	return err
}

func (p *publisher) run(ctx context.Context, workers int) {
	defer p.queue.ShutDown()
	for range workers {
		go wait.UntilWithContext(ctx, func(ctx context.Context) {
			for p.next(ctx) {
			}
		}, time.Second)
	}
	<-ctx.Done()
}

func (p *publisher) next(ctx context.Context) bool {
	ns, quit := p.queue.Get()
	if quit {
		return false
	}
	defer p.queue.Done(ns)
	if err := p.sync(ctx, ns); err != nil {
		utilruntime.HandleError(fmt.Errorf("publish %s in namespace %s: %w", publishedName, ns, err))
		p.queue.AddRateLimited(ns)
		return true
	}
	p.queue.Forget(ns)
	return true
}

func publish(ctx context.Context, kubeconfig string) error {
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		return err
	}
	factory := informers.NewSharedInformerFactory(client, 20*time.Minute)
	p, err := newPublisher(client, factory)
	if err != nil {
		return err
	}
	factory.Start(ctx.Done())
	// A namespace's sync reads the ConfigMap cache: before it is synced, every ConfigMap looks
	// missing and its create would fail with AlreadyExists.
	for informer, synced := range factory.WaitForCacheSync(ctx.Done()) {
		if !synced {
			return fmt.Errorf("cache of %v did not sync", informer)
		}
	}
	klog.Infof("publishing ConfigMap %s in every namespace", publishedName)
	p.run(ctx, 2)
	return nil
}
