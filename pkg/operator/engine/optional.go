package engine

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apiextinformers "k8s.io/apiextensions-apiserver/pkg/client/informers/externalversions"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"

	"github.com/openshift/library-go/pkg/controller/factory"
)

// CRDWatch watches one CustomResourceDefinition by name. A field selector keeps each watch to
// its one object, so the operator's memory does not grow with the cluster's other CRDs.
type CRDWatch struct {
	Name     string
	Informer cache.SharedIndexInformer
}

// NewCRDWatch builds (but does not start) the watch of one CRD, with the informer transform
// given (DropManagedFields for a CRD the operator applies, DropCRDSchemas for one it only
// waits for).
func NewCRDWatch(client apiextclient.Interface, name string, resync time.Duration, transform cache.TransformFunc) *CRDWatch {
	factory := apiextinformers.NewSharedInformerFactoryWithOptions(client, resync,
		apiextinformers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.FieldSelector = "metadata.name=" + name
		}))
	informer := factory.Apiextensions().V1().CustomResourceDefinitions().Informer()
	_ = informer.SetTransform(transform)
	return &CRDWatch{Name: name, Informer: informer}
}

// Get returns the watched CRD from the cache, or nil.
func (w *CRDWatch) Get() *apiextensionsv1.CustomResourceDefinition {
	obj, exists, err := w.Informer.GetStore().GetByKey(w.Name)
	if err != nil || !exists {
		return nil
	}
	crd, _ := obj.(*apiextensionsv1.CustomResourceDefinition)
	return crd
}

// Established says whether the CRD exists and its API is served.
func (w *CRDWatch) Established() bool {
	crd := w.Get()
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

// CRDName is the name of the CustomResourceDefinition that serves gvr.
func CRDName(gvr schema.GroupVersionResource) string {
	return gvr.Resource + "." + gvr.Group
}

// OptionalAPI is an API an operand uses only when it is installed (cert-manager, the Prometheus
// operator's monitors, Gateway API). Namespace limits its informer to one namespace; empty
// watches every namespace. The informer holds only objects carrying the operator's managed-by
// label, unless AllObjects: objects the operator reads but never makes (a user's
// ReferenceGrant) carry no label of ours. Name limits it to the one object of that name, for an
// API of which the operator uses one object (its Issuer, OpenShift's APIServer "cluster"): the
// API server then authorizes the list and watch by that name, so RBAC can grant them with
// resourceNames instead of for every object (issue 33).
type OptionalAPI struct {
	GVR        schema.GroupVersionResource
	Namespace  string
	Name       string
	AllObjects bool
}

type optionalAPI struct {
	OptionalAPI
	crd *CRDWatch

	mu sync.Mutex
	// informer watches the API's objects while its CRD is established; nil otherwise.
	// listener is its one listener for every operand's handler.
	informer cache.SharedIndexInformer
	listener factory.Informer
	stop     context.CancelFunc
	// cached says whether the API's lookup is registered in the caches (once).
	cached bool
}

// lookup reads an object from the API's current informer: NotFound while there is none.
func (api *optionalAPI) lookup(namespace, name string) (runtime.Object, error) {
	api.mu.Lock()
	informer := api.informer
	api.mu.Unlock()
	if informer == nil {
		return nil, apierrors.NewNotFound(api.GVR.GroupResource(), name)
	}
	return IndexerLookup(api.GVR.GroupResource(), informer.GetStore())(namespace, name)
}

// OptionalAPIs watches the CRDs of optional APIs all the time, and starts an informer on an
// API's objects (only those carrying the operator's managed-by label) once its CRD is
// established: drift of those objects is then repaired as quickly as for built-in kinds, and an
// API installed after the operator is picked up without a restart. An informer stops when its
// CRD goes away, and a new one starts when the CRD is back: the old one would retry its list
// with growing back-off (up to 30 s) and miss the reinstalled API's objects meanwhile. The
// informers answer the engine's reads through the Caches.
type OptionalAPIs struct {
	ctx     context.Context
	dynamic dynamic.Interface
	resync  time.Duration
	caches  *Caches

	mu       sync.Mutex
	handlers []cache.ResourceEventHandler
	apis     map[schema.GroupVersionResource]*optionalAPI
}

// NewOptionalAPIs registers the optional APIs; their CRD watches are built, not started.
func NewOptionalAPIs(ctx context.Context, dynamicClient dynamic.Interface, apiextClient apiextclient.Interface, resync time.Duration, caches *Caches, apis ...OptionalAPI) *OptionalAPIs {
	o := &OptionalAPIs{
		ctx:     ctx,
		dynamic: dynamicClient,
		resync:  resync,
		caches:  caches,
		apis:    map[schema.GroupVersionResource]*optionalAPI{},
	}
	for _, api := range mergeOptionalAPIs(apis) {
		o.apis[api.GVR] = &optionalAPI{OptionalAPI: api, crd: NewCRDWatch(apiextClient, CRDName(api.GVR), resync, DropCRDSchemas)}
	}
	return o
}

// mergeOptionalAPIs keeps one entry per API: operands that use an API in different namespaces,
// or different objects of it, share one informer over all namespaces or objects.
func mergeOptionalAPIs(apis []OptionalAPI) []OptionalAPI {
	var out []OptionalAPI
	index := map[schema.GroupVersionResource]int{}
	for _, api := range apis {
		i, seen := index[api.GVR]
		if !seen {
			index[api.GVR] = len(out)
			out = append(out, api)
			continue
		}
		if out[i].Namespace != api.Namespace {
			out[i].Namespace = metav1.NamespaceAll
		}
		if out[i].Name != api.Name {
			out[i].Name = ""
		}
		out[i].AllObjects = out[i].AllObjects || api.AllObjects
	}
	return out
}

// AddEventHandler makes every event of the optional APIs' objects reach handler: an operand
// maps them to its queue keys. Every informer has one listener for all the handlers
// (Listeners says why); a handler added after an informer started gets its objects first.
func (o *OptionalAPIs) AddEventHandler(handler cache.ResourceEventHandler) {
	o.mu.Lock()
	o.handlers = append(o.handlers, handler)
	o.mu.Unlock()
	for _, api := range o.apis {
		api.mu.Lock()
		if api.informer != nil {
			_, _ = api.listener.AddEventHandler(handler)
		}
		api.mu.Unlock()
	}
}

// CRDWatches are the watches of every optional API's CRD, in a stable order, for a caller
// that starts them all (the tests' harnesses).
func (o *OptionalAPIs) CRDWatches() []*CRDWatch {
	all := make([]OptionalAPI, 0, len(o.apis))
	for _, api := range o.apis {
		all = append(all, api.OptionalAPI)
	}
	return o.CRDWatchesOf(all)
}

// CRDWatchesOf are the watches of the given APIs' CRDs (those registered here), in a stable
// order: a controller is triggered by those of its own APIs only, and waits for them to sync,
// so a kind that has not started (its first CR does not exist yet) leaves its watches unstarted
// without holding another kind's controller back.
func (o *OptionalAPIs) CRDWatchesOf(apis []OptionalAPI) []*CRDWatch {
	var out []*CRDWatch
	for _, api := range mergeOptionalAPIs(apis) {
		if registered, ok := o.apis[api.GVR]; ok {
			out = append(out, registered.crd)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Installed says whether every given API is served, and starts the informers of APIs that have
// just appeared. Applying does not wait for those informers to sync: until they do, reads fall
// back to the API. The error names the missing CRDs.
func (o *OptionalAPIs) Installed(gvrs ...schema.GroupVersionResource) error {
	var missing []string
	for _, gvr := range gvrs {
		api, ok := o.apis[gvr]
		if !ok {
			return fmt.Errorf("optional API %s is not registered", gvr)
		}
		if !api.crd.Established() {
			missing = append(missing, api.crd.Name)
			o.stopInformer(api)
			continue
		}
		o.ensureInformer(api)
	}
	if len(missing) > 0 {
		return &MissingCRDsError{CRDs: missing}
	}
	return nil
}

// MissingCRDsError names the CRDs of optional APIs that are not established.
type MissingCRDsError struct {
	CRDs []string
}

func (e *MissingCRDsError) Error() string {
	return fmt.Sprintf("CustomResourceDefinitions %v are not established", e.CRDs)
}

// ensureInformer starts the informer of an installed optional API, unless it runs.
func (o *OptionalAPIs) ensureInformer(api *optionalAPI) {
	api.mu.Lock()
	defer api.mu.Unlock()
	if api.informer != nil {
		return
	}
	informer := dynamicinformer.NewFilteredDynamicInformer(o.dynamic, api.GVR, api.Namespace, o.resync,
		cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}, api.selectObjects).Informer()
	_ = informer.SetTransform(DropManagedFields)
	listener := &fanOut{informer: informer}
	o.mu.Lock()
	for _, h := range o.handlers {
		_, _ = listener.AddEventHandler(h)
	}
	o.mu.Unlock()
	if !api.cached {
		o.caches.Add(api.GVR.GroupResource(), api.lookup)
		api.cached = true
	}
	ctx, stop := context.WithCancel(o.ctx)
	go informer.Run(ctx.Done())
	api.informer, api.listener, api.stop = informer, listener, stop
}

// selectObjects limits the informer's list and watch to the objects the operator uses: those
// carrying its managed-by label (unless AllObjects), and the one named Name, if set.
func (api OptionalAPI) selectObjects(lo *metav1.ListOptions) {
	if !api.AllObjects {
		lo.LabelSelector = ManagedBySelector()
	}
	if api.Name != "" {
		lo.FieldSelector = fields.OneTermEqualSelector("metadata.name", api.Name).String()
	}
}

// stopInformer stops the informer of an optional API whose CRD is gone (its objects went with
// it).
func (o *OptionalAPIs) stopInformer(api *optionalAPI) {
	api.mu.Lock()
	defer api.mu.Unlock()
	if api.informer == nil {
		return
	}
	api.stop()
	api.informer, api.listener, api.stop = nil, nil, nil
}

// List returns the cached objects of an installed optional API in a namespace. It fails when
// the API is not installed. An informer that has just started is waited for (within a bound),
// so that a first sync does not mistake "not listed yet" for "none".
func (o *OptionalAPIs) List(gvr schema.GroupVersionResource, namespace string) ([]runtime.Object, error) {
	if err := o.Installed(gvr); err != nil {
		return nil, err
	}
	api := o.apis[gvr]
	api.mu.Lock()
	informer := api.informer
	api.mu.Unlock()
	if informer == nil { // the CRD went away since Installed
		return nil, &MissingCRDsError{CRDs: []string{api.crd.Name}}
	}
	if !informer.HasSynced() {
		ctx, cancel := context.WithTimeout(o.ctx, listSyncTimeout)
		defer cancel()
		if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
			return nil, fmt.Errorf("the informer of %s has not synced yet", gvr.GroupResource())
		}
	}
	return cache.NewGenericLister(informer.GetIndexer(), gvr.GroupResource()).ByNamespace(namespace).List(labels.Everything())
}

// listSyncTimeout bounds how long List waits for a new informer's first list.
const listSyncTimeout = 10 * time.Second
