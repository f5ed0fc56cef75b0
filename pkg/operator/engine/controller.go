package engine

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"
)

// NamespacedDeps is what the starter hands the controller of a namespaced kind.
type NamespacedDeps struct {
	// Clients read through the kind's own layer of the caches; the controller registers the
	// informers of its objects' kinds there.
	Clients *CachedClients
	// Managed is the informer factory of built-in kinds in every namespace, selecting the
	// operator's managed-by label.
	Managed informers.SharedInformerFactory
	// Optional holds every kind's optional APIs.
	Optional *OptionalAPIs
	// Platform says which platform the cluster is (one probe for every kind); nil: Kubernetes.
	Platform *PlatformProbe
	// ReferenceSources are where referenced objects come from, by resource: one source of
	// each, shared by every controller (NewClusterReferenceSources).
	ReferenceSources map[schema.GroupResource]*ReferenceSource
	// ReferenceSyncTimeout bounds how long a sync waits for a reference source's first list
	// (0: 10 s); tests of a source that has not listed shorten it.
	ReferenceSyncTimeout time.Duration
	Events               EventSink
	Recorder             events.Recorder
	Resync               time.Duration
	// Listeners give every informer one listener for all controllers' handlers (nil: one
	// listener per handler, as client-go does).
	Listeners *Listeners
}

// Namespaced is the controller of a namespaced kind: one queue key per CR. This file wires it
// to its informers and queue; sync.go is what it does with a key, run.go what a sync hands the
// operand, table.go the table it walks.
type Namespaced[T Object, S any] struct {
	kind       *Kind[T, S]
	steps      []Step[*Run[T, S]]
	assets     map[string]Asset
	clients    *CachedClients
	optional   *OptionalAPIs
	platform   *PlatformProbe
	events     EventSink
	cache      resourceapply.ResourceCache
	references map[schema.GroupResource]*ReferenceWatches
	syncCtx    factory.SyncContext
	controller factory.Controller
	// crs reads the CRs: the informer's cache, or the CR as this controller last wrote it
	// when the informer has not delivered that write yet (client-go's MutationCache). A sync
	// that starts in that gap (an event of a Deployment, say) would otherwise write status over
	// the older resourceVersion and fail with a conflict.
	crs cache.MutationCache
	// generations remembers the generation of each Deployment the controller applied, for a
	// kind whose status does not record them (Kind.Generations nil).
	generations *deploymentGenerations
}

// NewNamespaced builds the controller of a namespaced kind. Call it before the informers start:
// it registers the informers of the kinds its CRs' objects are.
func NewNamespaced[T Object, S any](ctx context.Context, kind *Kind[T, S], deps NamespacedDeps) (*Namespaced[T, S], error) {
	steps, err := kind.table()
	if err != nil {
		return nil, err
	}
	recorder := deps.Recorder.WithComponentSuffix(kind.Operand)
	c := &Namespaced[T, S]{
		kind:        kind,
		steps:       steps,
		assets:      kind.assetsByPath(),
		clients:     deps.Clients,
		optional:    deps.Optional,
		platform:    deps.Platform,
		events:      deps.Events,
		cache:       resourceapply.NewResourceCache(),
		references:  map[schema.GroupResource]*ReferenceWatches{},
		syncCtx:     factory.NewSyncContext(kind.ControllerName, recorder),
		generations: newDeploymentGenerations(),
	}
	_ = kind.Informer.SetTransform(DropManagedFields)
	c.crs = cache.NewIntegerResourceVersionMutationCache(klog.FromContext(ctx), kind.Informer.GetStore(), kind.Informer.GetIndexer(), crWriteMemory, false)
	for _, gr := range kind.References {
		source, ok := deps.ReferenceSources[gr]
		if !ok {
			return nil, fmt.Errorf("%s: %s cannot be referenced (no reference source)", kind.Operand, gr)
		}
		w := NewReferenceWatches(ctx, source, deps.Listeners, c.Queue)
		if deps.ReferenceSyncTimeout > 0 {
			w.syncTimeout = deps.ReferenceSyncTimeout
		}
		c.references[gr] = w
	}

	resources, err := kind.ObjectResources()
	if err != nil {
		return nil, err
	}
	var watched []Informed
	for _, gvr := range resources {
		generic, err := deps.Managed.ForResource(gvr)
		if err != nil {
			return nil, fmt.Errorf("%s: no informer of %s: %w", kind.Operand, gvr, err)
		}
		watched = append(watched, Informed{GroupResource: gvr.GroupResource(), Informer: generic.Informer(), Transform: managedTransform(gvr.GroupResource())})
	}
	owned := RegisterInformers(deps.Clients.Caches, deps.Listeners, watched...)

	ownerKey := ControllerKey(kind.GVK.GroupKind())
	deps.Optional.AddEventHandler(QueueingHandler(func(obj any) []string {
		ro, _, ok := ObjectOf(obj)
		if !ok {
			return nil
		}
		if kind.Related != nil {
			if keys, ok := kind.Related(ro, c.List); ok {
				return keys
			}
		}
		return ownerKey(ro)
	}, c.Queue))
	for _, informer := range kind.RelatedInformers {
		_, _ = deps.Listeners.For(informer).AddEventHandler(QueueingHandler(func(obj any) []string {
			ro, _, ok := ObjectOf(obj)
			if !ok || kind.Related == nil {
				return nil
			}
			keys, _ := kind.Related(ro, c.List)
			return keys
		}, c.Queue))
	}

	crEvents := QueueingHandler(func(obj any) []string {
		key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
		if err != nil {
			return nil
		}
		return []string{key}
	}, c.Queue)
	if !kind.StatusIsState {
		crEvents = SkippingStatusUpdates(crEvents)
	}
	crInformer := deps.Listeners.For(kind.Informer)
	if _, err := crInformer.AddEventHandler(crEvents); err != nil {
		return nil, err
	}
	allKeys := func(runtime.Object) []string { return c.keys() }
	var crdInformers []factory.Informer
	for _, w := range deps.Optional.CRDWatchesOf(kind.OptionalAPIs) {
		crdInformers = append(crdInformers, w.Informer)
	}
	c.controller = factory.New().
		WithSyncContext(c.syncCtx).
		WithSync(KeyedSync(kind.Operand, func() ([]string, error) { return c.keys(), nil }, c.sync)).
		WithBareInformers(crInformer).
		WithInformersQueueKeysFunc(ownerKey, owned...).
		WithInformersQueueKeysFunc(allKeys, deps.Listeners.ForAll(crdInformers...)...).
		ResyncEvery(deps.Resync).
		ToController(kind.ControllerName, recorder)
	return c, nil
}

// Controller is the library-go controller to run with Workers().
func (c *Namespaced[T, S]) Controller() factory.Controller { return c.controller }

// Workers is how many CRs the controller syncs at once.
func (c *Namespaced[T, S]) Workers() int { return max(c.kind.Workers, 1) }

// Queue queues a CR's key.
func (c *Namespaced[T, S]) Queue(key string) { c.syncCtx.Queue().Add(key) }

// List returns every CR in the informer's cache (the cache's own objects: do not modify them).
func (c *Namespaced[T, S]) List() []T {
	objs := c.kind.Informer.GetStore().List()
	out := make([]T, 0, len(objs))
	for _, obj := range objs {
		if cr, ok := obj.(T); ok {
			out = append(out, cr)
		}
	}
	return out
}

// Degraded is the kind's source of llm_infra_operator_degraded.
func (c *Namespaced[T, S]) Degraded() DegradedSource {
	return DegradedFromStore(c.kind.Informer.GetStore(), c.kind.Conditions)
}

func (c *Namespaced[T, S]) keys() []string { return c.kind.Informer.GetStore().ListKeys() }

// References are the controller's watches of the referenced objects of one resource (nil for
// a resource the kind does not declare).
func (c *Namespaced[T, S]) References(gr schema.GroupResource) *ReferenceWatches {
	return c.references[gr]
}
