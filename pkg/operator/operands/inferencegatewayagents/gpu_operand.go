package inferencegatewayagents

import (
	"context"
	"fmt"
	"net/http"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/llm-infra/llm-infra-operator/bindata"
	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/operands/inferencegateway"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/operands/inferencegatewayagents/gpuprovider"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/registry"
)

// The GPU kind on the engine: its table is one step, "allocation" (syncGPU: one step of the
// allocation's life against the provider), then the connection Secret. The engine keeps the
// finalizer core.inference-gateway.com/gpu-cleanup on every GPU and, once one is deleted, calls
// release until the allocation is gone; the run asks to be synced again when the allocation's
// life needs it (provisioning, the readiness probe, maxRuntime), since no event says so.

// gpuState is what the allocation step produced for the render and the status.
type gpuState struct {
	// result is the step's outcome; nil before it ran (a render without a cluster).
	result *gpuResult
}

type gpuRun = engine.Run[*v1alpha1.GPU, *gpuState]

// gpuOperand holds what the GPU kind's syncs share: the providers' addresses, the readiness
// probe's client and the clock.
type gpuOperand struct {
	endpoints gpuprovider.Endpoints
	probe     func(ctx context.Context, url, token string) error
	now       func() time.Time
}

func (o *gpuOperand) kind(deps *registry.Deps) *engine.Kind[*v1alpha1.GPU, *gpuState] {
	if o.probe == nil {
		o.probe = ProbeReadiness(&http.Client{Timeout: gpuProbeTimeout})
	}
	if o.now == nil {
		o.now = time.Now
	}
	k := &engine.Kind[*v1alpha1.GPU, *gpuState]{
		Operand:        GPUOperandName,
		ControllerName: GPUControllerName,
		GVK:            gpuGVK,
		Resource:       "gpus",
		PartOf:         inferencegateway.PartOfValue,
		// Each sync may wait on the provider's API: two at once keep one slow GPU from holding
		// up the others.
		Workers:    2,
		Conditions: func(g *v1alpha1.GPU) []metav1.Condition { return g.Status.Conditions },
		// The status holds the allocation (its id, URL and lease times): the sync after the one
		// that recorded it acts on it.
		StatusIsState: true,
		Manifests:     bindata.FS,
		Assets:        engine.AssetTable(bindata.GPUAssets, nil),
		References:    []schema.GroupResource{engine.Secrets},
		Validate:      func(g *v1alpha1.GPU) field.ErrorList { return g.ValidateSpec() },
		NewState:      func(*v1alpha1.GPU) *gpuState { return &gpuState{} },
		Steps: []engine.Step[*gpuRun]{
			{Name: "allocation", Apply: func(ctx context.Context, run *gpuRun, _ []string) error {
				r := syncGPU(ctx, run.CR, o.env(ctx, run))
				run.State.result = &r
				run.After(r.requeueAfter)
				return nil
			}},
		},
		Render: o.render,
		Status: gpuStatus,
		Events: readyEvents(v1alpha1.ReasonGPUEndpointReady,
			[]string{v1alpha1.ReasonGPUPending, v1alpha1.ReasonGPUProvisioning, v1alpha1.ReasonGPUInfrastructureStarting, v1alpha1.ReasonGPUEndpointPending, v1alpha1.ReasonGPUEndpointNotReady},
			[]string{v1alpha1.ReasonGPUExpired}, engine.AvailabilityEvents),
		Finalizer: v1alpha1.GPUFinalizer,
		Finalize: func(ctx context.Context, run *gpuRun) (bool, error) {
			r := syncGPU(ctx, run.CR, o.env(ctx, run))
			run.State.result = &r
			run.After(r.requeueAfter)
			if r.abandoned != "" {
				run.Recorder.Warning(v1alpha1.ReasonGPUAllocationAbandoned, r.abandoned)
			}
			return r.removeFinalizer, nil
		},
	}
	if deps.CRInformers != nil {
		k.Client = func(namespace string) engine.StatusClient[*v1alpha1.GPU] {
			return deps.CR.CoreV1alpha1().GPUs(namespace)
		}
		k.Update = func(namespace string) engine.Updater[*v1alpha1.GPU] {
			return deps.CR.CoreV1alpha1().GPUs(namespace)
		}
		k.Informer = deps.CRInformers.Core().V1alpha1().GPUs().Informer()
	}
	return k
}

// env is what syncGPU needs, from the run: the credentials Secret (watched, so a new key brings
// the next sync), the provider's driver, the probe, the clock and the connection Secret as
// cached.
func (o *gpuOperand) env(ctx context.Context, run *gpuRun) gpuEnv {
	ref := run.CR.Spec.CredentialsRef
	credentials := types.NamespacedName{Namespace: run.CR.Namespace, Name: ref.Name}
	secrets := run.References(engine.Secrets)
	secrets.Set(ctx, run.Key, credentials)
	env := gpuEnv{
		credentials: func() (string, error) {
			obj, err := secrets.Get(credentials)
			if err != nil {
				return "", fmt.Errorf("the provider's key: Secret %s: %w", credentials, err)
			}
			key := obj.(*corev1.Secret).Data[ref.Key]
			if len(key) == 0 {
				return "", fmt.Errorf("the provider's key: Secret %s has no key %q", credentials, ref.Key)
			}
			return string(key), nil
		},
		provider: func(name, apiKey string) (gpuprovider.Provider, error) {
			return gpuprovider.New(name, apiKey, o.endpoints)
		},
		probe: o.probe,
		now:   o.now,
	}
	if obj, err := run.Caches().Get(engine.Secrets, run.CR.Namespace, ConnectionSecretName(run.CR.Name)); err == nil {
		if s, ok := obj.(*corev1.Secret); ok && engine.ControlledBy(run.CR)(s) {
			env.connection = s
		}
	}
	return env
}

// render is the connection Secret: as the allocation step wrote it, else as it exists (kept as
// it is), else none yet.
func (o *gpuOperand) render(run *gpuRun) ([]engine.Rendered, error) {
	var secret *corev1.Secret
	if r := run.State.result; r != nil && r.connection != nil {
		secret = r.connection
	} else if obj, err := run.Caches().Get(engine.Secrets, run.CR.Namespace, ConnectionSecretName(run.CR.Name)); err == nil {
		if s, ok := obj.(*corev1.Secret); ok && engine.ControlledBy(run.CR)(s) {
			rendered, err := renderConnectionSecret(run.CR, string(s.Data[connectionURLKey]), string(s.Data[connectionTokenKey]))
			if err != nil {
				return nil, err
			}
			secret = rendered
		}
	}
	if secret != nil {
		return []engine.Rendered{{Asset: bindata.GPUConnectionSecret, Object: secret, Wanted: true}}, nil
	}
	// Nothing to write yet; the name alone, so an object of that name is left alone (it is
	// deleted only if this GPU made it, which it did not).
	empty, err := renderConnectionSecret(run.CR, "", "")
	if err != nil {
		return nil, err
	}
	return []engine.Rendered{{Asset: bindata.GPUConnectionSecret, Object: empty, Wanted: false}}, nil
}

// gpuStatus is a GPU's status after a sync: the allocation step's (upstream's phase and Ready),
// and the operator's Degraded from the steps (the connection Secret not applied, an object of
// its name that is someone else's).
func gpuStatus(run *gpuRun, result *engine.Outcome, g *v1alpha1.GPU) {
	if r := run.State.result; r != nil {
		// syncGPU started from the CR's status, so each condition keeps its transition time.
		g.Status = *r.status.DeepCopy()
	}
	if run.Invalid != nil {
		meta.SetStatusCondition(&g.Status.Conditions, readyCondition(v1alpha1.ConditionReady, false, v1alpha1.ReasonGPUPending, run.Invalid.Message, g.Generation))
		if g.Status.Phase == "" {
			g.Status.Phase = v1alpha1.GPUPhasePending
		}
	}
	degraded, _ := engine.FromOutcome(result, engine.ConditionDegraded, engine.ReasonAsExpected, result.Notes())
	if run.Invalid != nil {
		degraded = engine.Condition{Type: engine.ConditionDegraded, Status: true, Reason: run.Invalid.Reason, Message: run.Invalid.Message}
	}
	meta.SetStatusCondition(&g.Status.Conditions, degraded.MetaCondition(g.Generation))
	g.Status.ObservedGeneration = g.Generation
}
