package lws

import (
	"context"
	"fmt"
	"sync"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apiextinformers "k8s.io/apiextensions-apiserver/pkg/client/informers/externalversions"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
)

// crdWatch watches one CustomResourceDefinition by name. A field selector keeps each watch to
// its one object, so the operator's memory does not grow with the cluster's other CRDs.
type crdWatch struct {
	name     string
	informer cache.SharedIndexInformer
}

func newCRDWatch(client apiextclient.Interface, name string, resync time.Duration) crdWatch {
	factory := apiextinformers.NewSharedInformerFactoryWithOptions(client, resync,
		apiextinformers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.FieldSelector = "metadata.name=" + name
		}))
	return crdWatch{name: name, informer: factory.Apiextensions().V1().CustomResourceDefinitions().Informer()}
}

// get returns the watched CRD from the cache, or nil.
func (w crdWatch) get() *apiextensionsv1.CustomResourceDefinition {
	obj, exists, err := w.informer.GetStore().GetByKey(w.name)
	if err != nil || !exists {
		return nil
	}
	crd, _ := obj.(*apiextensionsv1.CustomResourceDefinition)
	return crd
}

// established says whether the CRD exists and its API is served.
func (w crdWatch) established() bool {
	crd := w.get()
	if crd == nil {
		return false
	}
	for _, c := range crd.Status.Conditions {
		if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
			return true
		}
	}
	return false
}

// optionalAPI is an API the operand uses only when it is installed (cert-manager, the Prometheus
// operator's ServiceMonitor). Its CRD is watched all the time; once the CRD is established an
// informer on its objects in the operand namespace starts, so drift is repaired as quickly as
// for built-in kinds, without a restart.
type optionalAPI struct {
	gvr schema.GroupVersionResource
	crd crdWatch

	mu       sync.Mutex
	informer cache.SharedIndexInformer
}

// optionalAPIs starts informers for optional APIs as their CRDs appear.
type optionalAPIs struct {
	ctx     context.Context
	factory dynamicinformer.DynamicSharedInformerFactory
	// onEvent is called for every event of a late informer: it queues a sync.
	onEvent func()
	apis    map[schema.GroupVersionResource]*optionalAPI
}

func newOptionalAPIs(ctx context.Context, dynamicClient dynamic.Interface, apiextClient apiextclient.Interface, namespace string, resync time.Duration, gvrs ...schema.GroupVersionResource) *optionalAPIs {
	o := &optionalAPIs{
		ctx:     ctx,
		factory: dynamicinformer.NewFilteredDynamicSharedInformerFactory(dynamicClient, resync, namespace, nil),
		onEvent: func() {},
		apis:    map[schema.GroupVersionResource]*optionalAPI{},
	}
	for _, gvr := range gvrs {
		o.apis[gvr] = &optionalAPI{gvr: gvr, crd: newCRDWatch(apiextClient, crdName(gvr), resync)}
	}
	return o
}

// crdInformers are the informers of the optional APIs' CRDs, for the controller to watch.
func (o *optionalAPIs) crdInformers() []cache.SharedIndexInformer {
	var ret []cache.SharedIndexInformer
	for _, api := range o.apis {
		ret = append(ret, api.crd.informer)
	}
	return ret
}

// installed says whether every given API is served, and starts the informers of APIs that have
// just appeared. Applying does not wait for those informers to sync: they only bring events.
// The error names the missing CRDs.
func (o *optionalAPIs) installed(gvrs ...schema.GroupVersionResource) error {
	var missing []string
	for _, gvr := range gvrs {
		api, ok := o.apis[gvr]
		if !ok {
			return fmt.Errorf("optional API %s is not registered", gvr)
		}
		if !api.crd.established() {
			missing = append(missing, api.crd.name)
			continue
		}
		o.ensureInformer(api)
	}
	if len(missing) > 0 {
		return fmt.Errorf("CustomResourceDefinitions %v are not established", missing)
	}
	return nil
}

// ensureInformer starts the informer of an installed optional API once.
func (o *optionalAPIs) ensureInformer(api *optionalAPI) {
	api.mu.Lock()
	defer api.mu.Unlock()
	if api.informer != nil {
		return
	}
	informer := o.factory.ForResource(api.gvr).Informer()
	_, _ = informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { o.onEvent() },
		UpdateFunc: func(any, any) { o.onEvent() },
		DeleteFunc: func(any) { o.onEvent() },
	})
	o.factory.Start(o.ctx.Done())
	api.informer = informer
}
