package batchgateway

import (
	"context"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"

	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"

	batchv1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/batch/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/generated/clientset/versioned"
	batchlisters "github.com/llm-infra/llm-infra-operator/pkg/generated/listers/batch/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// ControllerName names the controller (in logs and events).
const ControllerName = "LLMBatchGatewayController"

// OperandName labels the operand's metrics.
const OperandName = "batch-gateway"

// groupKind is the kind of the CR; objects it controls map back to its queue key.
var groupKind = schema.GroupKind{Group: batchv1alpha1.GroupName, Kind: "LLMBatchGateway"}

// Operand reconciles every LLMBatchGateway in the cluster, each in its own namespace: one queue
// key per CR ("namespace/name"). Objects are applied by the engine with a controller owner
// reference to their CR, so deleting the CR deletes them through garbage collection; the
// operator needs no finalizer.
type Operand struct {
	images   Images
	client   versioned.Interface
	lister   batchlisters.LLMBatchGatewayLister
	clients  *engine.CachedClients
	cache    resourceapply.ResourceCache
	optional *engine.OptionalAPIs
	// secrets watches exactly the Secrets the CRs reference (credentials, TLS), in whatever
	// namespace, so the operator never caches every Secret of the cluster.
	secrets  *engine.ReferenceWatches
	events   EventSink
	recorder events.Recorder
	clock    clock.PassiveClock
	steps    []engine.Step[*syncRun]
	// platform says whether the cluster is OpenShift (withFSGroup).
	platform *platformProbe
}

// EventSink builds the recorder of one CR, so that events land on the LLMBatchGateway they
// are about (`kubectl describe lbg`).
type EventSink func(cr *batchv1alpha1.LLMBatchGateway) events.Recorder

// KubeEventSink records events with the API through the core client. library-go's plain
// recorder creates each event synchronously and starts no goroutine, so one per sync is cheap;
// the operand emits events on transitions only.
func KubeEventSink(client corev1client.EventsGetter, clk clock.PassiveClock) EventSink {
	return func(cr *batchv1alpha1.LLMBatchGateway) events.Recorder {
		return events.NewRecorder(client.Events(cr.Namespace), "llm-infra-operator", &corev1.ObjectReference{
			APIVersion: batchv1alpha1.GroupVersion.String(),
			Kind:       groupKind.Kind,
			Namespace:  cr.Namespace,
			Name:       cr.Name,
			UID:        cr.UID,
		}, clk)
	}
}

// Config holds what New needs.
type Config struct {
	Images Images
	// Client writes the CRs' status; Informer is the CRs' informer (every namespace).
	Client   versioned.Interface
	Informer cache.SharedIndexInformer
	// Clients read through the engine's caches; the caller registers Informers in them.
	Clients *engine.CachedClients
	// Informers are the informers of the built-in kinds the operand creates, selecting the
	// operator's managed-by label in every namespace. Their events trigger the sync of the CR
	// that controls the object.
	Informers []factory.Informer
	// Optional holds the optional APIs of OptionalAPIs.
	Optional *engine.OptionalAPIs
	// SecretInformer builds the informer of one Secret, for the Secrets a CR references.
	SecretInformer func(namespace, name string) cache.SharedIndexInformer
	Events         EventSink
	Recorder       events.Recorder
	Clock          clock.PassiveClock
	Resync         time.Duration
}

// New builds the operand and the controller that runs it.
func New(ctx context.Context, cfg Config) (*Operand, factory.Controller) {
	recorder := cfg.Recorder.WithComponentSuffix("llm-batch-gateway")
	o := &Operand{
		images:   cfg.Images,
		client:   cfg.Client,
		lister:   batchlisters.NewLLMBatchGatewayLister(cfg.Informer.GetIndexer()),
		clients:  cfg.Clients,
		cache:    resourceapply.NewResourceCache(),
		optional: cfg.Optional,
		events:   cfg.Events,
		recorder: recorder,
		clock:    cfg.Clock,
		steps:    reconcileSteps(),
		platform: &platformProbe{discovery: cfg.Clients.Kube.Discovery()},
	}
	syncCtx := factory.NewSyncContext(ControllerName, recorder)
	queue := func(key string) { syncCtx.Queue().Add(key) }
	o.secrets = engine.NewReferenceWatches(ctx, engine.Secrets, cfg.SecretInformer, queue)

	ownerKey := engine.ControllerKey(groupKind)
	cfg.Optional.AddEventHandler(engine.QueueingHandler(func(obj any) []string {
		ro, _ := obj.(runtime.Object)
		if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			ro, _ = tombstone.Obj.(runtime.Object)
		}
		if ro == nil {
			return nil
		}
		if grant, ok := referenceGrantNamespace(ro); ok {
			return o.keysReferencingNamespace(grant)
		}
		return ownerKey(ro)
	}, queue))

	crKey := func(obj runtime.Object) []string {
		m, ok := obj.(metav1.Object)
		if !ok {
			return nil
		}
		return []string{engine.ObjectKey(m)}
	}
	allKeys := func(runtime.Object) []string { keys, _ := o.keys(); return keys }
	var crdInformers []factory.Informer
	for _, w := range cfg.Optional.CRDWatches() {
		crdInformers = append(crdInformers, w.Informer)
	}

	controller := factory.New().
		WithSyncContext(syncCtx).
		WithSync(engine.KeyedSync(OperandName, o.keys, o.syncKey)).
		WithInformersQueueKeysFunc(crKey, cfg.Informer).
		WithInformersQueueKeysFunc(ownerKey, cfg.Informers...).
		WithInformersQueueKeysFunc(allKeys, crdInformers...).
		ResyncEvery(cfg.Resync).
		ToController(ControllerName, recorder)
	return o, controller
}

// keys lists the queue keys of every CR.
func (o *Operand) keys() ([]string, error) {
	crs, err := o.lister.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(crs))
	for _, cr := range crs {
		keys = append(keys, engine.ObjectKey(cr))
	}
	return keys, nil
}

// keysReferencingNamespace lists the CRs whose credentials Secret is in namespace: a
// ReferenceGrant there may allow or forbid their reference.
func (o *Operand) keysReferencingNamespace(namespace string) []string {
	crs, err := o.lister.List(labels.Everything())
	if err != nil {
		return nil
	}
	var keys []string
	for _, cr := range crs {
		if cr.Spec.SecretRef.Namespace == namespace && namespace != cr.Namespace {
			keys = append(keys, engine.ObjectKey(cr))
		}
	}
	return keys
}

// syncKey reconciles one CR.
func (o *Operand) syncKey(ctx context.Context, _ factory.SyncContext, key string) error {
	namespace, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil // not a key of ours; nothing to retry
	}
	cr, err := o.lister.LLMBatchGateways(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		o.secrets.Forget(key)
		return nil
	}
	if err != nil {
		return err
	}
	if cr.DeletionTimestamp != nil {
		// Garbage collection deletes what the CR owns; nothing is left to do.
		o.secrets.Forget(key)
		return nil
	}
	run := o.newRun(cr.DeepCopy())
	result := o.reconcile(ctx, run)
	if err := o.writeStatus(ctx, run, result); err != nil {
		return err
	}
	return result.RetryError()
}

// newRun prepares the sync of one CR.
func (o *Operand) newRun(cr *batchv1alpha1.LLMBatchGateway) *syncRun {
	recorder := o.events(cr)
	return &syncRun{
		Operand:  o,
		cr:       cr,
		key:      engine.ObjectKey(cr),
		names:    NamesFor(cr.Name),
		applied:  map[string]*appsv1.Deployment{},
		recorder: recorder,
		applier: engine.Applier{
			Clients:  o.clients,
			Cache:    o.cache,
			Recorder: recorder,
			Adopt:    engine.ControlledBy(cr),
			// spec.httpRoute.annotations: one taken out of the spec is removed.
			TrackAnnotations: true,
		},
		stamp: ownerStamp(cr),
	}
}

// ownerStamp is the Renderer that stamps the operator's labels and a controller owner reference
// to the CR.
func ownerStamp(cr *batchv1alpha1.LLMBatchGateway) engine.Renderer {
	return engine.Renderer{
		Labels: map[string]string{PartOfLabel: PartOfValue},
		Owner: &metav1.OwnerReference{
			APIVersion:         batchv1alpha1.GroupVersion.String(),
			Kind:               groupKind.Kind,
			Name:               cr.Name,
			UID:                cr.UID,
			Controller:         ptr.To(true),
			BlockOwnerDeletion: ptr.To(true),
		},
	}
}

// referenceGrantNamespace returns the namespace of a ReferenceGrant event's object.
func referenceGrantNamespace(obj runtime.Object) (string, bool) {
	if engine.KindOf(obj).Kind != "ReferenceGrant" {
		return "", false
	}
	m, ok := obj.(metav1.Object)
	if !ok {
		return "", false
	}
	return m.GetNamespace(), true
}

// reconcile validates the CR and walks the table. An invalid spec (one stored before the
// CRD's rules existed) changes nothing: the objects already running keep running.
func (o *Operand) reconcile(ctx context.Context, run *syncRun) *engine.Outcome {
	if errs := run.cr.ValidateSpec(); len(errs) > 0 {
		run.invalid = errs.ToAggregate()
		return &engine.Outcome{}
	}
	if missing := o.images.missingEnv(&run.cr.Spec); len(missing) > 0 {
		result := &engine.Outcome{}
		result.Add(readyProblem(engine.ReasonImageMissing, true,
			"the operator has no image for %v: set the environment variables %v on the operator's Deployment (the CSV's relatedImages)", missing.components(), missing.envVars()))
		return result
	}
	return engine.Walk(ctx, o.steps, run, engine.Forward)
}
