package inferencegatewayagents

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/openshift/library-go/pkg/operator/events"

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
	// providerKey is spec.credentialsRef's key as the step read it, for the GPU's copy; empty
	// when it could not be read. Never logged, never in status.
	providerKey string
}

// providerKeyDataKey is the data key of the GPU's copy of the provider's key (<gpu>-provider-key,
// bindata.GPUProviderKeySecret).
const providerKeyDataKey = "providerKey"

// ProviderKeyFinalizer keeps a GPU's copy of the provider's key readable while the allocation
// may need releasing (the manifest sets it; releaseProviderKey takes it off).
const ProviderKeyFinalizer = "core.inference-gateway.com/gpu-provider-key"

// providerKeyWanted says whether a GPU keeps its copy of the provider's key: while it may hold
// an allocation, that is unless it has expired with nothing leased. A namespace being deleted
// deletes spec.credentialsRef's Secret and the GPU together; the copy's finalizer keeps the key
// until the GPU's release (upstream kept the GPU's finalizer forever then; without the copy the
// operator would give up after gpuCleanupGiveUp and the allocation would stay billed).
func providerKeyWanted(status v1alpha1.GPUStatus) bool {
	return status.InstanceID != "" || status.Phase != v1alpha1.GPUPhaseExpired
}

type gpuRun = engine.Run[*v1alpha1.GPU, *gpuState]

// gpuOperand holds what the GPU kind's syncs share: the providers' addresses, the give-up
// bound of a deleted GPU's release, the readiness probe's client and the clock.
type gpuOperand struct {
	endpoints gpuprovider.Endpoints
	giveUp    time.Duration
	probe     func(ctx context.Context, url, token string) error
	now       func() time.Time
	// operatorEvents records in the operator's namespace (registry.Deps' Recorder): the copy
	// of AllocationAbandoned that survives the GPU's namespace.
	operatorEvents events.Recorder
	// abandoned are the GPUs (by UID) whose AllocationAbandoned was recorded: a second sync
	// from a cache that has not seen the finalizer go yet gives up again (seen in e2e GP5, 13
	// ms apart), and one allocation is one event. Only abandoned GPUs are kept: few.
	abandoned sync.Map
}

func (o *gpuOperand) kind(deps *registry.Deps) *engine.Kind[*v1alpha1.GPU, *gpuState] {
	if o.probe == nil {
		o.probe = ProbeReadiness(&http.Client{Timeout: gpuProbeTimeout})
	}
	if o.now == nil {
		o.now = time.Now
	}
	o.operatorEvents = deps.Recorder
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
				env := o.env(ctx, run)
				if key, err := env.credentials(); err == nil {
					run.State.providerKey = key
				}
				r := syncGPU(ctx, run.CR, env)
				run.State.result = &r
				run.After(r.requeueAfter)
				if !providerKeyWanted(r.status) {
					// The render deletes the copy: its finalizer first, or it would stay.
					return releaseProviderKey(ctx, run)
				}
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
				o.reportAbandoned(run, r.abandoned)
			}
			if !r.removeFinalizer {
				return false, nil
			}
			if r.abandoned == "" && run.CR.Status.InstanceID != "" {
				// Released by this call: the status written after it records that first, so
				// the next call (soon) needs no key; only then may the copy of the key go.
				run.After(time.Second)
				return false, nil
			}
			// Released and recorded (or given up): the copy of the key may go with the GPU.
			if err := releaseProviderKey(ctx, run); err != nil {
				return false, err
			}
			return true, nil
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

// reportAbandoned records the Warning event AllocationAbandoned on the GPU and, naming the
// GPU, in the operator's namespace: a GPU gives up mostly while its namespace is being deleted,
// and the API refuses new events in a terminating namespace (NamespaceLifecycle), so the
// GPU's own event is then lost; the operator's copy tells the administrator which allocation
// may still run and bill.
func (o *gpuOperand) reportAbandoned(run *gpuRun, message string) {
	if _, reported := o.abandoned.LoadOrStore(run.CR.UID, true); reported {
		return
	}
	run.Recorder.Warning(v1alpha1.ReasonGPUAllocationAbandoned, message)
	if o.operatorEvents != nil {
		o.operatorEvents.Warningf(v1alpha1.ReasonGPUAllocationAbandoned, "GPU %s/%s: %s", run.CR.Namespace, run.CR.Name, message)
	}
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
			return providerKeyIn(credentials, ref.Key, obj, err)
		},
		provider: func(name, apiKey string) (gpuprovider.Provider, error) {
			return gpuprovider.New(name, apiKey, o.endpoints)
		},
		probe:  o.probe,
		now:    o.now,
		giveUp: o.giveUp,
	}
	if kept := providerKeyCopy(run); kept != nil {
		env.keptCredentials = func() (string, error) {
			key := kept.Data[providerKeyDataKey]
			if len(key) == 0 {
				return "", fmt.Errorf("the provider's key: Secret %s/%s has no key %q", kept.Namespace, kept.Name, providerKeyDataKey)
			}
			return string(key), nil
		}
	}
	if obj, err := run.Caches().Get(engine.Secrets, run.CR.Namespace, ConnectionSecretName(run.CR.Name)); err == nil {
		if s, ok := obj.(*corev1.Secret); ok && engine.ControlledBy(run.CR)(s) {
			env.connection = s
		}
	}
	return env
}

// providerKeyIn is the provider's key at key of the Secret credentials, from obj (and err) as
// the cache answered; the error names the Secret and the key, never a value.
func providerKeyIn(credentials types.NamespacedName, key string, obj runtime.Object, err error) (string, error) {
	if err != nil {
		return "", fmt.Errorf("the provider's key: Secret %s: %w", credentials, err)
	}
	value := obj.(*corev1.Secret).Data[key]
	if len(value) == 0 {
		return "", fmt.Errorf("the provider's key: Secret %s has no key %q", credentials, key)
	}
	return string(value), nil
}

// providerKeyCopy is the GPU's copy of the provider's key as cached, nil when there is none
// this GPU made.
func providerKeyCopy(run *gpuRun) *corev1.Secret {
	obj, err := run.Caches().Get(engine.Secrets, run.CR.Namespace, ProviderKeySecretName(run.CR.Name))
	if err != nil {
		return nil
	}
	if s, ok := obj.(*corev1.Secret); ok && engine.ControlledBy(run.CR)(s) {
		return s
	}
	return nil
}

// releaseProviderKey takes the finalizer off the GPU's copy of the provider's key, so that it
// goes (deleted by the render, by garbage collection with the GPU, or with its namespace).
func releaseProviderKey(ctx context.Context, run *gpuRun) error {
	kept := providerKeyCopy(run)
	if kept == nil || !slices.Contains(kept.Finalizers, ProviderKeyFinalizer) {
		return nil
	}
	updated := kept.DeepCopy()
	updated.Finalizers = slices.DeleteFunc(updated.Finalizers, func(f string) bool { return f == ProviderKeyFinalizer })
	_, err := run.Applier.Clients.Kube.CoreV1().Secrets(updated.Namespace).Update(ctx, updated, metav1.UpdateOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("remove the finalizer %s of Secret %s/%s: %w", ProviderKeyFinalizer, updated.Namespace, updated.Name, err)
	}
	return nil
}

// renderProviderKey is the GPU's copy of the provider's key: wanted while providerKeyWanted,
// with the key the step read, else as it exists (kept as it is); not wanted otherwise (the
// name alone, so an object of that name is deleted only if this GPU made it).
func renderProviderKey(run *gpuRun) (engine.Rendered, error) {
	status := run.CR.Status
	if r := run.State.result; r != nil {
		status = r.status
	}
	key := run.State.providerKey
	if kept := providerKeyCopy(run); key == "" && kept != nil {
		key = string(kept.Data[providerKeyDataKey])
	}
	secret, wanted, err := providerKeySecret(run.CR, status, key)
	if err != nil {
		return engine.Rendered{}, err
	}
	return engine.Rendered{Asset: bindata.GPUProviderKeySecret, Object: secret, Wanted: wanted}, nil
}

// providerKeySecret is a GPU's copy of the provider's key, and whether it is wanted: while
// providerKeyWanted(status), when the key is known; unwanted, the name alone.
func providerKeySecret(g *v1alpha1.GPU, status v1alpha1.GPUStatus, key string) (*corev1.Secret, bool, error) {
	secret, err := manifest[corev1.Secret](bindata.GPUProviderKeySecret, instancePlaceholders(g.Namespace, g.Name, g.Spec.Image))
	if err != nil {
		return nil, false, err
	}
	wanted := providerKeyWanted(status) && key != ""
	if wanted {
		secret.Data = map[string][]byte{providerKeyDataKey: []byte(key)}
	}
	return secret, wanted, nil
}

// render is the connection Secret and the copy of the provider's key.
func (o *gpuOperand) render(run *gpuRun) ([]engine.Rendered, error) {
	connection, err := renderConnection(run)
	if err != nil {
		return nil, err
	}
	key, err := renderProviderKey(run)
	if err != nil {
		return nil, err
	}
	return []engine.Rendered{connection, key}, nil
}

// renderConnection is the connection Secret: as the allocation step wrote it, else as it exists
// (kept as it is), else none yet.
func renderConnection(run *gpuRun) (engine.Rendered, error) {
	var secret *corev1.Secret
	if r := run.State.result; r != nil && r.connection != nil {
		secret = r.connection
	} else if obj, err := run.Caches().Get(engine.Secrets, run.CR.Namespace, ConnectionSecretName(run.CR.Name)); err == nil {
		if s, ok := obj.(*corev1.Secret); ok && engine.ControlledBy(run.CR)(s) {
			rendered, err := renderConnectionSecret(run.CR, string(s.Data[connectionURLKey]), string(s.Data[connectionTokenKey]))
			if err != nil {
				return engine.Rendered{}, err
			}
			secret = rendered
		}
	}
	if secret != nil {
		return engine.Rendered{Asset: bindata.GPUConnectionSecret, Object: secret, Wanted: true}, nil
	}
	// Nothing to write yet; the name alone, so an object of that name is left alone (it is
	// deleted only if this GPU made it, which it did not).
	empty, err := renderConnectionSecret(run.CR, "", "")
	if err != nil {
		return engine.Rendered{}, err
	}
	return engine.Rendered{Asset: bindata.GPUConnectionSecret, Object: empty, Wanted: false}, nil
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
