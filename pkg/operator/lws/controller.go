package lws

import (
	"context"
	"fmt"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	appslisters "k8s.io/client-go/listers/apps/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"
	"github.com/openshift/library-go/pkg/operator/v1helpers"

	lwsoperatorv1 "github.com/llm-infra/llm-infra-operator/pkg/apis/operator/v1"
)

// TargetConfigReconciler keeps the LeaderWorkerSet controller in the state the
// LeaderWorkerSetOperator named "cluster" asks for. It runs the reconcile table (steps.go) on
// every event of the CR or of any object it manages, and writes status once per sync.
type TargetConfigReconciler struct {
	namespace string
	image     string

	operatorClient v1helpers.OperatorClientWithFinalizers
	kubeClient     kubernetes.Interface
	apiextClient   apiextclient.Interface
	dynamicClient  dynamic.Interface
	clients        *resourceapply.ClientHolder

	deployments appslisters.DeploymentLister
	secrets     corelisters.SecretLister
	crd         crdWatch
	optional    *optionalAPIs

	// cache remembers what was applied, so a resync with nothing changed writes nothing.
	cache    resourceapply.ResourceCache
	recorder events.Recorder
	steps    []step
	// currentCR returns the LeaderWorkerSetOperator as the informer last saw it.
	currentCR func() (*lwsoperatorv1.LeaderWorkerSetOperator, error)
}

// Informers are the shared informers the reconciler reads from and is triggered by. The caller
// starts them.
type Informers struct {
	// Namespaced watches the operand namespace.
	Namespaced informers.SharedInformerFactory
	// ClusterScoped watches cluster-scoped kinds, filtered by the operator's managed-by label.
	ClusterScoped informers.SharedInformerFactory
}

// Config holds what NewTargetConfigReconciler needs.
type Config struct {
	Namespace      string
	Image          string
	OperatorClient v1helpers.OperatorClientWithFinalizers
	KubeClient     kubernetes.Interface
	APIExtClient   apiextclient.Interface
	DynamicClient  dynamic.Interface
	Informers      Informers
	Recorder       events.Recorder
	// Resync is how often every informer resyncs and the controller syncs without an event.
	Resync time.Duration
	// CurrentCR overrides where the CR is read from; nil reads the operator client's informer.
	// Unit tests set it, since library-go's fake operator client has no informer store.
	CurrentCR func() (*lwsoperatorv1.LeaderWorkerSetOperator, error)
}

// NewTargetConfigReconciler builds the reconciler and the controller that runs it.
func NewTargetConfigReconciler(ctx context.Context, cfg Config) (*TargetConfigReconciler, factory.Controller) {
	ns := cfg.Informers.Namespaced
	cluster := cfg.Informers.ClusterScoped
	r := &TargetConfigReconciler{
		namespace:      cfg.Namespace,
		image:          cfg.Image,
		operatorClient: cfg.OperatorClient,
		kubeClient:     cfg.KubeClient,
		apiextClient:   cfg.APIExtClient,
		dynamicClient:  cfg.DynamicClient,
		clients: resourceapply.NewKubeClientHolder(cfg.KubeClient).
			WithAPIExtensionsClient(cfg.APIExtClient).
			WithDynamicClient(cfg.DynamicClient),
		deployments: ns.Apps().V1().Deployments().Lister(),
		secrets:     ns.Core().V1().Secrets().Lister(),
		crd:         newCRDWatch(cfg.APIExtClient, lwsCRDName, cfg.Resync),
		optional:    newOptionalAPIs(ctx, cfg.DynamicClient, cfg.APIExtClient, cfg.Namespace, cfg.Resync, issuerGVR, certificateGVR, serviceMonitorGVR),
		cache:       resourceapply.NewResourceCache(),
		recorder:    cfg.Recorder.WithComponentSuffix("lws-target-config"),
		steps:       reconcileSteps(),
		currentCR:   cfg.CurrentCR,
	}
	if r.currentCR == nil {
		r.currentCR = func() (*lwsoperatorv1.LeaderWorkerSetOperator, error) { return crFromInformer(cfg.OperatorClient) }
	}

	syncCtx := factory.NewSyncContext(ControllerName, r.recorder)
	r.optional.onEvent = func() { syncCtx.Queue().Add(factory.DefaultQueueKey) }

	watched := []factory.Informer{
		cfg.OperatorClient.Informer(),
		ns.Apps().V1().Deployments().Informer(),
		ns.Core().V1().Services().Informer(),
		ns.Core().V1().ServiceAccounts().Informer(),
		ns.Core().V1().ConfigMaps().Informer(),
		ns.Core().V1().Secrets().Informer(),
		ns.Rbac().V1().Roles().Informer(),
		ns.Rbac().V1().RoleBindings().Informer(),
		cluster.Rbac().V1().ClusterRoles().Informer(),
		cluster.Rbac().V1().ClusterRoleBindings().Informer(),
		cluster.Admissionregistration().V1().MutatingWebhookConfigurations().Informer(),
		cluster.Admissionregistration().V1().ValidatingWebhookConfigurations().Informer(),
		r.crd.informer,
	}
	for _, inf := range r.optional.crdInformers() {
		watched = append(watched, inf)
	}

	controller := factory.New().
		WithSyncContext(syncCtx).
		WithSync(r.sync).
		WithInformers(watched...).
		ResyncEvery(cfg.Resync).
		WithSyncDegradedOnError(cfg.OperatorClient).
		ToController(ControllerName, r.recorder)
	return r, controller
}

// StartInformers starts the informers the reconciler owns: the watches of single CRDs, which
// belong to no shared factory. Call it with the factories' Start, before the controller runs: the
// controller waits for every informer it watches to sync.
func (r *TargetConfigReconciler) StartInformers(stopCh <-chan struct{}) {
	go r.crd.informer.Run(stopCh)
	for _, inf := range r.optional.crdInformers() {
		go inf.Run(stopCh)
	}
}

// syncRun is the state of one sync: the CR as read at its start and what the steps produced
// for the steps after them.
type syncRun struct {
	*TargetConfigReconciler
	cr     *lwsoperatorv1.LeaderWorkerSetOperator
	render renderer
	// step is the row being run.
	step step

	mountedSecrets    []*corev1.Secret
	mountedConfigMaps []*corev1.ConfigMap
	// deployment is the Deployment as last seen, for conditions and readyReplicas.
	deployment *appsv1.Deployment
	// appliedDeployment is set only when this sync applied the Deployment. Only its generation
	// may be recorded in status: recording the generation of a Deployment someone else edited
	// (while Unmanaged, or after a failed apply) would make that edit look like the operator's
	// and it would never be reverted.
	appliedDeployment *appsv1.Deployment
}

func (r *TargetConfigReconciler) sync(ctx context.Context, _ factory.SyncContext) error {
	cr, err := r.currentCR()
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	run := &syncRun{
		TargetConfigReconciler: r,
		cr:                     cr,
		render: renderer{namespace: r.namespace, image: r.image, owner: &metav1.OwnerReference{
			APIVersion: lwsoperatorv1.GroupVersion.String(),
			Kind:       "LeaderWorkerSetOperator",
			Name:       cr.Name,
			UID:        cr.UID,
			Controller: ptr.To(true),
		}},
	}

	if cr.DeletionTimestamp != nil {
		return r.finalize(ctx, run)
	}
	if err := r.operatorClient.EnsureFinalizer(ctx, Finalizer); err != nil {
		return fmt.Errorf("add finalizer %s: %w", Finalizer, err)
	}

	switch cr.Spec.ManagementState {
	case operatorv1.Managed, operatorv1.Force:
		result := r.reconcile(ctx, run)
		if err := r.writeStatus(ctx, run, managedConditions(run, result)); err != nil {
			return err
		}
		return result.retryError()
	case operatorv1.Removed:
		result := r.remove(ctx, run)
		if err := r.writeStatus(ctx, run, removedConditions(result)); err != nil {
			return err
		}
		return result.retryError()
	case operatorv1.Unmanaged:
		run.deployment, _ = r.deployments.Deployments(r.namespace).Get(deploymentName)
		return r.writeStatus(ctx, run, unmanagedConditions(run))
	default:
		// Admission rejects other values; an older CRD might not.
		klog.Warningf("LeaderWorkerSetOperator %s has unknown managementState %q; nothing done", cr.Name, cr.Spec.ManagementState)
		return nil
	}
}

// reconcile runs the table. A failing step is reported and the next ones still run, unless it
// blocks them (cert-manager missing, certificates not yet issued).
func (r *TargetConfigReconciler) reconcile(ctx context.Context, run *syncRun) *outcome {
	result := &outcome{}
	for _, s := range r.steps {
		run.step = s
		var err error
		if s.apply != nil {
			err = s.apply(ctx, run)
		} else {
			err = applyAssets(ctx, run, s.assets)
		}
		if err == nil {
			continue
		}
		se := asStepError(s.name, err)
		result.add(se)
		if se.blocking {
			break
		}
	}
	if run.deployment == nil {
		run.deployment, _ = r.deployments.Deployments(r.namespace).Get(deploymentName)
	}
	return result
}

// remove walks the table backwards and deletes what the operator created.
func (r *TargetConfigReconciler) remove(ctx context.Context, run *syncRun) *outcome {
	result := &outcome{}
	for i := len(r.steps) - 1; i >= 0; i-- {
		s := r.steps[i]
		run.step = s
		var err error
		if s.remove != nil {
			err = s.remove(ctx, run)
		} else {
			err = removeAssets(ctx, run, s.assets)
		}
		if err != nil {
			result.add(&stepError{
				condition: operatorv1.OperatorStatusTypeDegraded,
				reason:    "RemovalFailed",
				message:   fmt.Sprintf("remove %s: %v", s.name, err),
				retry:     fmt.Errorf("remove %s: %w", s.name, err),
			})
		}
	}
	return result
}

// finalize cleans up when the CR is being deleted, then lets it go.
func (r *TargetConfigReconciler) finalize(ctx context.Context, run *syncRun) error {
	if err := r.remove(ctx, run).retryError(); err != nil {
		return err
	}
	if err := r.operatorClient.RemoveFinalizer(ctx, Finalizer); err != nil {
		return fmt.Errorf("remove finalizer %s: %w", Finalizer, err)
	}
	r.recorder.Eventf("OperandRemoved", "LeaderWorkerSetOperator %s is being deleted: removed the LeaderWorkerSet controller; the CRD and users' LeaderWorkerSets stay", run.cr.Name)
	return nil
}

// crFromInformer reads the CR from the operator client's informer, typed, so that the fields
// beyond OperatorSpec (nodePlacement) are available.
func crFromInformer(client v1helpers.OperatorClient) (*lwsoperatorv1.LeaderWorkerSetOperator, error) {
	obj, exists, err := client.Informer().GetStore().GetByKey(lwsoperatorv1.SingletonName)
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
	return fromUnstructured[lwsoperatorv1.LeaderWorkerSetOperator](u)
}
