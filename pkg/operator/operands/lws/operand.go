package lws

import (
	"context"
	"fmt"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"
	"github.com/openshift/library-go/pkg/operator/v1helpers"

	"github.com/llm-infra/llm-infra-operator/bindata"
	lwsoperatorv1 "github.com/llm-infra/llm-infra-operator/pkg/apis/operator/v1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// Operand keeps the LeaderWorkerSet controller in the state the LeaderWorkerSetOperator named
// "cluster" asks for. It walks its reconcile table (steps.go) on every event of the CR or of any
// object it manages, and writes status once per sync. Its one queue key is library-go's default.
type Operand struct {
	namespace      string
	image          string
	operatorClient v1helpers.OperatorClientWithFinalizers
	clients        *engine.CachedClients
	applier        engine.Applier
	crd            *engine.CRDWatch
	optional       *engine.OptionalAPIs
	recorder       events.Recorder
	steps          []engine.Step[*syncRun]
	// secretLister and configMapLister read the operand namespace for library-go's certrotation.
	secretLister    corev1listers.SecretLister
	configMapLister corev1listers.ConfigMapLister
	// installedRBACReleased: releaseInstalledRBAC has run to the end in this process.
	installedRBACReleased bool
}

// Config holds what New needs.
type Config struct {
	// Namespace is where the operand runs (the operator's namespace).
	Namespace string
	// Image is the LeaderWorkerSet controller's image.
	Image          string
	OperatorClient v1helpers.OperatorClientWithFinalizers
	// Clients read through the engine's caches; the caller registers every informer below in
	// them.
	Clients *engine.CachedClients
	// CRD watches the LeaderWorkerSet CRD (CRDName).
	CRD *engine.CRDWatch
	// Optional holds the optional APIs of OptionalAPIs.
	Optional *engine.OptionalAPIs
	// Informers are the informers of every kind the operand manages: their events trigger a
	// sync, which repairs drift. The caller starts them.
	Informers []factory.Informer
	// Secrets and ConfigMaps list the operand namespace (the same informers as Informers'), for
	// the operator's own CA (library-go's certrotation reads through listers).
	Secrets    corev1listers.SecretLister
	ConfigMaps corev1listers.ConfigMapLister
	Recorder   events.Recorder
	// Resync is how often the controller syncs without an event.
	Resync time.Duration
	// Listeners give the informers one listener each, shared with the other operands.
	Listeners *engine.Listeners
}

// New builds the operand and the controller that runs it.
func New(cfg Config) (*Operand, factory.Controller) {
	recorder := cfg.Recorder.WithComponentSuffix("lws-target-config")
	o := &Operand{
		namespace:       cfg.Namespace,
		image:           cfg.Image,
		operatorClient:  cfg.OperatorClient,
		clients:         cfg.Clients,
		applier:         engine.Applier{Clients: cfg.Clients, Cache: resourceapply.NewResourceCache(), Recorder: recorder},
		crd:             cfg.CRD,
		optional:        cfg.Optional,
		recorder:        recorder,
		steps:           reconcileSteps(),
		secretLister:    cfg.Secrets,
		configMapLister: cfg.ConfigMaps,
	}

	syncCtx := factory.NewSyncContext(ControllerName, recorder)
	requeue := func() { syncCtx.Queue().Add(factory.DefaultQueueKey) }
	cfg.Optional.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { requeue() },
		UpdateFunc: func(any, any) { requeue() },
		DeleteFunc: func(any) { requeue() },
	})

	watched := append([]factory.Informer{cfg.OperatorClient.Informer(), cfg.CRD.Informer}, cfg.Informers...)
	for _, w := range cfg.Optional.CRDWatchesOf(OptionalAPIs(cfg.Namespace)) {
		watched = append(watched, w.Informer)
	}
	controller := factory.New().
		WithSyncContext(syncCtx).
		WithSync(engine.MeasuredSync(OperandName, o.sync)).
		WithInformers(cfg.Listeners.ForAll(watched...)...).
		ResyncEvery(cfg.Resync).
		WithSyncDegradedOnError(cfg.OperatorClient).
		ToController(ControllerName, recorder)
	return o, controller
}

// syncRun is one sync: the CR as read at its start, how its objects are rendered, and what the
// steps produced for the steps after them.
type syncRun struct {
	*Operand
	cr     *lwsoperatorv1.LeaderWorkerSetOperator
	render engine.Renderer

	mountedSecrets    []*corev1.Secret
	mountedConfigMaps []*corev1.ConfigMap
	// deployment is the Deployment as last seen, for conditions and readyReplicas.
	deployment *appsv1.Deployment
	// certs is what the certificate steps found and decided.
	certs certificates
	// servingSource is the certificate source the pods serve with at the end of this sync, for
	// the ServingCertificates condition; empty when the steps did not get that far.
	servingSource lwsoperatorv1.CertificateSource
	// appliedDeployment is set only when this sync applied the Deployment. Only its generation
	// may be recorded in status: recording the generation of a Deployment someone else edited
	// (while Unmanaged, or after a failed apply) would make that edit look like the operator's
	// and it would never be reverted.
	appliedDeployment *appsv1.Deployment
}

// ApplyAsset renders one manifest and applies it.
func (run *syncRun) ApplyAsset(ctx context.Context, asset string) error {
	obj, err := run.render.Object(asset)
	if err != nil {
		return err
	}
	return run.applier.Apply(ctx, obj)
}

// RemoveAsset deletes one manifest's object, if the operator made it. Removal reads from the
// API, not the caches, so that an object of the same name someone else made is found and
// reported.
func (run *syncRun) RemoveAsset(ctx context.Context, asset string) error {
	obj, err := run.render.Object(asset)
	if err != nil {
		return err
	}
	return run.applier.DeleteObject(ctx, obj, engine.ManagedByOperator, engine.FromAPI)
}

func (o *Operand) newRun(cr *lwsoperatorv1.LeaderWorkerSetOperator) *syncRun {
	return &syncRun{
		Operand: o,
		cr:      cr,
		render: engine.Renderer{
			Manifests:    bindata.FS,
			Placeholders: map[string]string{bindata.NamespacePlaceholder: o.namespace, bindata.OperandImagePlaceholder: o.image},
			Labels:       map[string]string{engine.PartOfLabel: PartOfValue},
			Owner: &metav1.OwnerReference{
				APIVersion: lwsoperatorv1.GroupVersion.String(),
				Kind:       "LeaderWorkerSetOperator",
				Name:       cr.Name,
				UID:        cr.UID,
				Controller: ptr.To(true),
			},
			// The CRDs never get an owner reference: garbage collection of a CRD after the
			// CR is deleted would delete every user's LeaderWorkerSet or DisaggregatedSet with it.
			Unowned: func(obj metav1.Object) bool { return keptCRDs[obj.GetName()] },
		},
	}
}

func (o *Operand) sync(ctx context.Context, _ factory.SyncContext) error {
	cr, err := o.load()
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	run := o.newRun(cr)

	if cr.DeletionTimestamp != nil {
		return o.finalize(ctx, run)
	}
	if err := o.operatorClient.EnsureFinalizer(ctx, Finalizer); err != nil {
		return fmt.Errorf("add finalizer %s: %w", Finalizer, err)
	}

	switch cr.Spec.ManagementState {
	case operatorv1.Managed, operatorv1.Force:
		result := engine.Walk(ctx, o.steps, run)
		if run.deployment == nil {
			run.deployment = o.cachedDeployment()
		}
		if err := o.writeStatus(ctx, run, managedConditions(run, result)); err != nil {
			return err
		}
		return result.RetryError()
	case operatorv1.Removed:
		result := engine.WalkBackward(ctx, o.steps, run)
		if err := o.writeStatus(ctx, run, removedConditions(result)); err != nil {
			return err
		}
		return result.RetryError()
	case operatorv1.Unmanaged:
		run.deployment = o.cachedDeployment()
		return o.writeStatus(ctx, run, unmanagedConditions(run))
	default:
		// Admission rejects other values; an older CRD might not.
		klog.Warningf("LeaderWorkerSetOperator %s has unknown managementState %q; nothing done", cr.Name, cr.Spec.ManagementState)
		return nil
	}
}

// cachedDeployment is the operand Deployment as the cache holds it, or nil.
func (o *Operand) cachedDeployment() *appsv1.Deployment {
	obj, err := o.clients.Caches.Get(engine.Deployments, o.namespace, deploymentName)
	if err != nil {
		return nil
	}
	d, _ := obj.(*appsv1.Deployment)
	return d
}

// finalize cleans up when the CR is being deleted, then lets it go.
func (o *Operand) finalize(ctx context.Context, run *syncRun) error {
	if err := engine.WalkBackward(ctx, o.steps, run).RetryError(); err != nil {
		return err
	}
	if err := o.operatorClient.RemoveFinalizer(ctx, Finalizer); err != nil {
		return fmt.Errorf("remove finalizer %s: %w", Finalizer, err)
	}
	o.recorder.Eventf("OperandRemoved", "LeaderWorkerSetOperator %s is being deleted: removed the LeaderWorkerSet controller; the CRD and users' LeaderWorkerSets stay", run.cr.Name)
	return nil
}

// load reads the CR from the operator client's informer, typed, so that the fields beyond
// OperatorSpec (nodePlacement) are available.
func (o *Operand) load() (*lwsoperatorv1.LeaderWorkerSetOperator, error) {
	obj, exists, err := o.operatorClient.Informer().GetStore().GetByKey(lwsoperatorv1.SingletonName)
	if err != nil {
		return nil, err
	}
	if !exists {
		return nil, apierrors.NewNotFound(lwsoperatorv1.Resource("leaderworkersetoperators"), lwsoperatorv1.SingletonName)
	}
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil, fmt.Errorf("unexpected %T in the operator informer", obj)
	}
	return engine.FromUnstructured[lwsoperatorv1.LeaderWorkerSetOperator](u)
}
