package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"
	"github.com/openshift/library-go/pkg/operator/resource/resourcemerge"
)

// ReasonValidationFailed is the reason of a CR whose spec breaks its kind's Validate.
const ReasonValidationFailed = "ValidationFailed"

// EventSink builds the recorder of one CR, so that events land on the object they are about
// (`kubectl describe`).
type EventSink func(gvk schema.GroupVersionKind, cr metav1.Object) events.Recorder

// KubeEventSink records events with the API through the core client. library-go's plain
// recorder creates each event synchronously and starts no goroutine, so one per sync is cheap;
// the engine emits events on transitions only.
func KubeEventSink(client corev1client.EventsGetter, clk clock.PassiveClock) EventSink {
	return func(gvk schema.GroupVersionKind, m metav1.Object) events.Recorder {
		return events.NewRecorder(client.Events(m.GetNamespace()), "llm-infra-operator", &corev1.ObjectReference{
			APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind,
			Namespace: m.GetNamespace(), Name: m.GetName(), UID: m.GetUID(),
		}, clk)
	}
}

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

// Namespaced is the controller of a namespaced kind: one queue key per CR.
type Namespaced[T Object, S any] struct {
	kind       *Kind[T, S]
	steps      []Step[*Run[T, S]]
	assets     map[string]Asset
	clients    *CachedClients
	optional   *OptionalAPIs
	events     EventSink
	cache      resourceapply.ResourceCache
	references map[schema.GroupResource]*ReferenceWatches
	syncCtx    factory.SyncContext
	controller factory.Controller
	// crs reads the CRs: the informer's cache, or the CR as this controller last wrote it
	// when the informer has not delivered that write yet. A sync that starts in that gap
	// (an event of a Deployment, say) would otherwise write status over the older
	// resourceVersion and fail with a conflict.
	crs cache.MutationCache

	// generations remembers the generation of each Deployment the controller applied, for a
	// kind whose status does not record them (Kind.Generations nil).
	mu          sync.Mutex
	generations map[string]map[string]int64
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
		assets:      map[string]Asset{},
		clients:     deps.Clients,
		optional:    deps.Optional,
		events:      deps.Events,
		cache:       resourceapply.NewResourceCache(),
		references:  map[schema.GroupResource]*ReferenceWatches{},
		syncCtx:     factory.NewSyncContext(kind.ControllerName, recorder),
		generations: map[string]map[string]int64{},
	}
	for _, a := range kind.Assets {
		c.assets[a.Path] = a
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

// sync reconciles one CR: validate, walk the table, write the status.
func (c *Namespaced[T, S]) sync(ctx context.Context, _ factory.SyncContext, key string) error {
	obj, exists, err := c.crs.GetByKey(key)
	if err != nil {
		return err
	}
	cr, ok := obj.(T)
	if ok && exists && cr.GetDeletionTimestamp() != nil && c.kind.Finalizer != "" && c.kind.hasFinalizer(cr) {
		return c.finalize(ctx, cr, key)
	}
	if !exists || !ok || cr.GetDeletionTimestamp() != nil {
		// Garbage collection deletes what the CR owns; only its watches are left to release.
		c.forget(key)
		return nil
	}
	if c.kind.Finalizer != "" && !c.kind.hasFinalizer(cr) {
		// The update's event brings the sync that walks the table.
		return c.setFinalizer(ctx, cr, true)
	}
	run := c.newRun(cr.DeepCopyObject().(T), key)
	result := c.reconcile(ctx, run)
	if result.Postponed() {
		// The status would say what a watch that has not listed yet cannot tell.
		return result.RetryError()
	}
	if err := c.writeStatus(ctx, run, result); err != nil {
		return err
	}
	c.requeue(run)
	return result.RetryError()
}

// forget releases what a CR that is gone referenced.
func (c *Namespaced[T, S]) forget(key string) {
	for _, w := range c.references {
		w.Forget(key)
	}
	c.mu.Lock()
	delete(c.generations, key)
	c.mu.Unlock()
}

// reconcile validates the CR and walks the table. An invalid spec (stored before the CRD's
// rules existed, or a rule CEL cannot express) changes nothing: what runs keeps running.
func (c *Namespaced[T, S]) reconcile(ctx context.Context, run *Run[T, S]) *Outcome {
	result := &Outcome{}
	if c.kind.Validate != nil {
		if errs := c.kind.Validate(run.CR); len(errs) > 0 {
			reason := ReasonValidationFailed
			if c.kind.InvalidReason != nil {
				reason = c.kind.InvalidReason(errs)
			}
			run.Invalid = MissingDependency(reason, "the spec is invalid, nothing was changed: %v", errs.ToAggregate())
			result.Add(run.Invalid)
			return result
		}
	}
	if c.kind.Precondition != nil {
		if se := c.kind.Precondition(run); se != nil {
			result.Add(se)
			return result
		}
	}
	return Walk(ctx, c.steps, run)
}

// writeStatus writes the status once per sync, and only when it changed; the transitions of
// its conditions become events on the CR.
func (c *Namespaced[T, S]) writeStatus(ctx context.Context, run *Run[T, S], result *Outcome) error {
	updated := run.CR.DeepCopyObject().(T)
	c.kind.Status(run, result, updated)
	if equality.Semantic.DeepEqual(updated, run.CR) {
		return nil
	}
	policy := c.kind.Events
	if policy == nil {
		policy = AvailabilityEvents
	}
	ReportTransitions(run.Recorder, policy, c.kind.Conditions(run.CR), c.kind.Conditions(updated))
	written, err := c.kind.Client(run.CR.GetNamespace()).UpdateStatus(ctx, updated, metav1.UpdateOptions{})
	if err != nil {
		return fmt.Errorf("update status of %s %s: %w", c.kind.GVK.Kind, run.Key, err)
	}
	c.wrote(written)
	return nil
}

// crWriteMemory is how long the controller remembers a CR it wrote, for the informer to
// deliver the write (normally milliseconds).
const crWriteMemory = time.Minute

// wrote remembers a CR as this controller wrote it (see crs).
func (c *Namespaced[T, S]) wrote(cr T) {
	if c.crs == nil || any(cr) == nil {
		return
	}
	m, err := meta.Accessor(cr)
	if err != nil || m.GetResourceVersion() == "" {
		return
	}
	m.SetManagedFields(nil)
	c.crs.Mutation(cr)
}

// newRun prepares the sync of one CR (a copy the sync may change).
func (c *Namespaced[T, S]) newRun(cr T, key string) *Run[T, S] {
	recorder := c.events(c.kind.GVK, cr)
	run := &Run[T, S]{
		CR:       cr,
		Key:      key,
		Recorder: recorder,
		Applier: Applier{
			Clients:  c.clients,
			Cache:    c.cache,
			Recorder: recorder,
			Adopt:    ControlledBy(cr),
			// Annotations rendered from a CR's spec: one taken out of the spec is removed.
			TrackAnnotations: true,
		},
		Stamp:    c.kind.stamp(cr),
		Rendered: map[string]Rendered{},
		Applied:  map[string]*appsv1.Deployment{},
		ctl:      c,
	}
	run.State = c.kind.NewState(cr)
	return run
}

// Run is the sync of one namespaced CR: what the engine hands the operand's steps, its render
// and its status writer.
type Run[T Object, S any] struct {
	// CR is a copy of the CR as the informer held it when the sync started.
	CR T
	// Key is the CR's queue key, "namespace/name".
	Key string
	// State is the operand's own state of this sync.
	State S
	// Recorder records events on the CR.
	Recorder events.Recorder
	// Applier applies the CR's objects: reads from the kind's caches, takes over only objects
	// this CR controls or the operator labelled, removes annotations a CR no longer renders.
	Applier Applier
	// Stamp sets the operator's labels and the controller owner reference to the CR.
	Stamp Renderer
	// Rendered holds every asset rendered for the CR, by path, once the render step ran.
	Rendered map[string]Rendered
	// Applied are the Deployments this sync applied, by name: only their generations may be
	// recorded in status (recording one someone else edited would keep the edit forever).
	Applied map[string]*appsv1.Deployment
	// Invalid says why the spec is invalid (the kind's Validate); nothing was applied then.
	Invalid *StepError
	// RequeueAfter is when to sync the CR again though no event comes (After sets it).
	RequeueAfter time.Duration

	ctl *Namespaced[T, S]
}

// References watches the referenced objects of one resource the kind declares: Set the ones
// the CR references, Get them from their watch. A run without a cluster (Render) watches
// nothing: every Get fails.
func (run *Run[T, S]) References(gr schema.GroupResource) *ReferenceWatches {
	if run.ctl != nil {
		if w, ok := run.ctl.references[gr]; ok {
			return w
		}
	}
	return unwatched(gr)
}

// Caches are the kind's caches (empty in a run without a cluster).
func (run *Run[T, S]) Caches() *Caches { return run.Applier.Clients.Caches }

// Optional are the optional APIs (nil in a run without a cluster).
func (run *Run[T, S]) Optional() *OptionalAPIs {
	if run.ctl == nil {
		return nil
	}
	return run.ctl.optional
}

// CachedDeployment is the cached Deployment of that name that the CR controls, or nil: a CR
// of another kind and the same name may have a Deployment of the same name.
func (run *Run[T, S]) CachedDeployment(name string) *appsv1.Deployment {
	obj, err := run.Caches().Get(Deployments, run.CR.GetNamespace(), name)
	if err != nil {
		return nil
	}
	d, _ := obj.(*appsv1.Deployment)
	if d == nil || !ControlledBy(run.CR)(d) {
		return nil
	}
	return d
}

// RecordGenerations records the generations of the Deployments this sync applied in a status's
// GenerationStatus list (for a kind whose status has one: Kind.Generations).
func (run *Run[T, S]) RecordGenerations(generations *[]operatorv1.GenerationStatus) {
	for _, d := range run.Applied {
		resourcemerge.SetDeploymentGeneration(generations, d)
	}
}

// ApplyAsset applies one rendered object, or, when the CR does not ask for it, deletes the
// object of that name if this CR's operator made it. An object of an optional API needs its
// CRD: asking for one without it is reported, naming the CRD and the field (or noted, for a
// best-effort asset).
func (run *Run[T, S]) ApplyAsset(ctx context.Context, asset string) error {
	ro, ok := run.Rendered[asset]
	if !ok {
		return fmt.Errorf("%s was not rendered", asset)
	}
	if u, isCustom := ro.Object.(*unstructured.Unstructured); isCustom {
		gvr, err := ResourceFor(u.GroupVersionKind())
		if err != nil {
			return err
		}
		if err := run.Optional().Installed(gvr); err != nil {
			if !ro.Wanted {
				return nil // without the CRD, nothing of that kind exists
			}
			a := run.ctl.assets[asset]
			feature := a.Feature
			if feature == "" {
				feature = "the spec"
			}
			if run.bestEffort(asset) {
				return Note("no %s for %s: its CustomResourceDefinition %s is not installed (%s)", u.GetKind(), feature, CRDName(gvr), a.SkippedWithoutCRD)
			}
			return Problem(ReasonCRDMissing,
				"%s asks for a %s, whose CustomResourceDefinition %s is not installed: install it and the operator creates the object without a restart, or turn %s off",
				feature, u.GetKind(), CRDName(gvr), feature)
		}
	}
	if !ro.Wanted {
		return run.Applier.DeleteObject(ctx, ro.Object, ControlledBy(run.CR), FromCache)
	}
	m, err := meta.Accessor(ro.Object)
	if err != nil {
		return err
	}
	run.Stamp.Stamp(m)
	if d, isDeployment := ro.Object.(*appsv1.Deployment); isDeployment {
		if err := run.prepareDeployment(d); err != nil {
			return err
		}
		actual, err := run.Applier.applyDeployment(ctx, d, run.expectedGeneration(d))
		if err != nil {
			return err
		}
		run.Applied[d.Name] = actual
		run.ctl.remember(run.Key, actual)
		return nil
	}
	err = run.Applier.Apply(ctx, ro.Object)
	var se *StepError
	if errors.As(err, &se) && se.Reason == ReasonObjectNotOwned && run.bestEffort(asset) {
		// Someone else's object of the name, where the CR did not ask for ours: theirs stays,
		// and it is no problem of the CR's.
		return Note("%s: the operator creates none while it is there", se.Message)
	}
	return err
}

// bestEffort says whether an asset is best effort for the run's CR: declared so
// (Asset.SkippedWithoutCRD), and not asked for by name (Kind.Required).
func (run *Run[T, S]) bestEffort(asset string) bool {
	if run.ctl.assets[asset].SkippedWithoutCRD == "" {
		return false
	}
	return run.kind().Required == nil || !run.kind().Required(run.CR, asset)
}

// prepareDeployment is what every Deployment goes through before it is applied: the kind's
// PrepareDeployment, then its PodHooks.
func (run *Run[T, S]) prepareDeployment(d *appsv1.Deployment) error {
	var hooks []DeploymentHook
	if run.kind().PrepareDeployment != nil {
		hooks = append(hooks, func(d *appsv1.Deployment) error { return run.kind().PrepareDeployment(run, d) })
	}
	return RunHooks(d, append(hooks, run.kind().PodHooks...)...)
}

func (run *Run[T, S]) kind() *Kind[T, S] { return run.ctl.kind }

// expectedGeneration is the generation the operator last wrote of a Deployment: from the CR's
// status, or, for a kind without Generations, from memory, else the live one.
func (run *Run[T, S]) expectedGeneration(d *appsv1.Deployment) int64 {
	if run.kind().Generations != nil {
		return resourcemerge.ExpectedDeploymentGeneration(d, run.kind().Generations(run.CR))
	}
	run.ctl.mu.Lock()
	generation, ok := run.ctl.generations[run.Key][d.Name]
	run.ctl.mu.Unlock()
	if ok {
		return generation
	}
	if live := run.CachedDeployment(d.Name); live != nil {
		return live.Generation
	}
	return -1
}

// remember records the generation of a Deployment the controller applied, for a kind whose
// status does not.
func (c *Namespaced[T, S]) remember(key string, d *appsv1.Deployment) {
	if c.kind.Generations != nil || d == nil {
		return
	}
	c.mu.Lock()
	if c.generations[key] == nil {
		c.generations[key] = map[string]int64{}
	}
	c.generations[key][d.Name] = d.Generation
	c.mu.Unlock()
}

// stamp is the Renderer that sets the operator's labels and a controller owner reference to cr
// (blockOwnerDeletion: garbage collection deletes the objects with the CR).
func (k *Kind[T, S]) stamp(cr T) Renderer {
	return Renderer{
		Manifests: k.Manifests,
		Labels:    map[string]string{PartOfLabel: k.PartOf},
		Owner: &metav1.OwnerReference{
			APIVersion:         k.GVK.GroupVersion().String(),
			Kind:               k.GVK.Kind,
			Name:               cr.GetName(),
			UID:                cr.GetUID(),
			Controller:         ptr.To(true),
			BlockOwnerDeletion: ptr.To(true),
		},
	}
}

// table is the kind's whole reconcile table: the operand's steps, the render, then one step per
// kind of asset in the order of the asset table.
func (k *Kind[T, S]) table() ([]Step[*Run[T, S]], error) {
	steps := append([]Step[*Run[T, S]]{}, k.Steps...)
	steps = append(steps, Step[*Run[T, S]]{Name: "render", Apply: func(_ context.Context, run *Run[T, S], _ []string) error {
		return run.render()
	}})
	index := map[string]int{}
	for _, a := range k.Assets {
		kind, err := ManifestKind(k.Manifests, a.Path)
		if err != nil {
			return nil, err
		}
		name := kind.Kind
		if n, ok := k.StepNames[kind.Kind]; ok {
			name = n
		}
		i, ok := index[name]
		if !ok {
			i = len(steps)
			index[name] = i
			steps = append(steps, Step[*Run[T, S]]{Name: name})
		}
		steps[i].Assets = append(steps[i].Assets, a.Path)
	}
	return steps, nil
}

// render renders every asset for the CR into run.Rendered. A spec the operand cannot run with
// (the CRD's rules normally stop it earlier) stops the sync: nothing is applied, and what runs
// keeps running.
func (run *Run[T, S]) render() error {
	objs, err := run.kind().Render(run)
	if err != nil {
		if run.kind().RenderFailed != nil {
			return run.kind().RenderFailed(err)
		}
		return MissingDependency(ReasonApplyFailed, "the spec cannot be rendered: %v", err)
	}
	run.Rendered = make(map[string]Rendered, len(objs))
	for _, ro := range objs {
		run.Rendered[ro.Asset] = ro
	}
	return nil
}

// RenderCR returns the objects a sync applies for cr (those the spec asks for), in the order it
// applies them, as it applies them (labels, owner reference, every Deployment prepared as the
// sync prepares it), from a run without a cluster: referenced objects are missing, steps before
// the render do not run. Unit, golden and fuzz tests and the dry-run suite use it.
func (k *Kind[T, S]) RenderCR(cr T) ([]runtime.Object, error) {
	ctl := &Namespaced[T, S]{kind: k, assets: map[string]Asset{}, generations: map[string]map[string]int64{}}
	run := &Run[T, S]{
		CR:       cr,
		Key:      cr.GetNamespace() + "/" + cr.GetName(),
		Applier:  Applier{Clients: &CachedClients{Caches: NewCaches()}},
		Stamp:    k.stamp(cr),
		Rendered: map[string]Rendered{},
		Applied:  map[string]*appsv1.Deployment{},
		ctl:      ctl,
	}
	run.State = k.NewState(cr)
	objs, err := k.Render(run)
	if err != nil {
		return nil, err
	}
	var out []runtime.Object
	for _, ro := range objs {
		if !ro.Wanted {
			continue
		}
		m, err := meta.Accessor(ro.Object)
		if err != nil {
			return nil, err
		}
		run.Stamp.Stamp(m)
		if d, ok := ro.Object.(*appsv1.Deployment); ok {
			if err := run.prepareDeployment(d); err != nil {
				return nil, err
			}
		}
		out = append(out, ro.Object)
	}
	return out, nil
}

// Sync reconciles the CR of one queue key, as a worker does: for tests that drive the
// controller one sync at a time.
func (c *Namespaced[T, S]) Sync(ctx context.Context, key string) error {
	return c.sync(WithOperand(ctx, c.kind.Operand), nil, key)
}

// NewRun prepares the sync of cr without running it: for tests of single steps.
func (c *Namespaced[T, S]) NewRun(cr T) *Run[T, S] {
	key, _ := cache.MetaNamespaceKeyFunc(cr)
	return c.newRun(cr, key)
}

// References are the controller's watches of the referenced objects of one resource (nil for
// a resource the kind does not declare).
func (c *Namespaced[T, S]) References(gr schema.GroupResource) *ReferenceWatches {
	return c.references[gr]
}
