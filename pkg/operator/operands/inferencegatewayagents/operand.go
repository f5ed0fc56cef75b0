package inferencegatewayagents

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/llm-infra/llm-infra-operator/bindata"
	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1/testcases"
	igwlisters "github.com/llm-infra/llm-infra-operator/pkg/generated/listers/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/operands/inferencegateway"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/operands/inferencegatewayagents/gpuprovider"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/registry"
)

// Controller names (logs, events) and the kinds' metric labels.
const (
	AgentOperandName           = "agent"
	OrchestratorOperandName    = "orchestrator"
	GPUOperandName             = "gpu"
	AgentControllerName        = "AgentController"
	OrchestratorControllerName = "OrchestratorController"
	GPUControllerName          = "GPUController"
)

var (
	agentGVK        = v1alpha1.GroupVersion.WithKind("Agent")
	orchestratorGVK = v1alpha1.GroupVersion.WithKind("Orchestrator")
	gpuGVK          = v1alpha1.GroupVersion.WithKind("GPU")
	// mcpGVK: an Orchestrator discovers MCPs, which the inference gateway operand serves.
	mcpGVK = v1alpha1.GroupVersion.WithKind("MCP")
)

// Registrations are the inference gateway's Agent, Orchestrator and GPU kinds. Each CR syncs in
// its own namespace, one queue key per CR, on the engine's namespaced controller; its objects
// get a controller owner reference to it, so deleting the CR deletes them through garbage
// collection (a GPU's allocation is released first, by its finalizer).
func Registrations() []registry.Registration {
	const api, operand = "pkg/apis/inferencegateway/v1alpha1", "pkg/operator/operands/inferencegatewayagents"
	agents := &agentOperand{}
	agent := registry.Namespaced(registry.Registration{
		APIPackage: api, OperandPackage: operand,
		Admission: registry.Admission{Base: testcases.BaseAgent, Golden: "inference-gateway-agents", GoldenRefused: testcases.AgentsGoldenRefused,
			Rejected: testcases.AgentRejected, Accepted: testcases.AgentAccepted},
		Example: "agent_google_calendar.yaml",
	}, agents.kind)
	// The card fetcher runs beside the controller and queues an Agent when its card changed.
	agent.Start = func(ctx context.Context, deps *registry.Deps) (*registry.Started, error) {
		k := agents.kind(deps)
		c, err := engine.NewNamespaced(ctx, k, deps.NamespacedDeps)
		if err != nil {
			return nil, err
		}
		agents.fetcher = NewCardFetcher(CardFetcherConfig{Exists: func(key string) bool {
			_, exists, err := k.Informer.GetStore().GetByKey(key)
			return err != nil || exists
		}}, c.Queue)
		go agents.fetcher.Run(ctx)
		return &registry.Started{Controllers: []registry.Controller{{Controller: c.Controller(), Workers: c.Workers()}}, Degraded: c.Degraded()}, nil
	}
	gpus := &gpuOperand{endpoints: gpuEndpoints(), giveUp: gpuGiveUpFromEnv()}
	return []registry.Registration{
		agent,
		registry.Namespaced(registry.Registration{
			APIPackage: api, OperandPackage: operand,
			Admission: registry.Admission{Base: testcases.BaseOrchestrator, Golden: "inference-gateway-agents", GoldenRefused: testcases.AgentsGoldenRefused,
				Rejected: testcases.OrchestratorRejected, Accepted: testcases.OrchestratorAccepted},
			Example: "orchestrator_telegram.yaml",
		}, OrchestratorKind),
		registry.Namespaced(registry.Registration{
			APIPackage: api, OperandPackage: operand,
			Admission: registry.Admission{Base: testcases.BaseGPU, Rejected: testcases.GPURejected, Accepted: testcases.GPUAccepted,
				Updates: testcases.GPUUpdates, Status: testcases.GPUAllocatedStatus, UpdatesWithStatus: testcases.GPUUpdatesWithAllocation},
			Example: "gpu_ornith.yaml",
		}, gpus.kind),
	}
}

// RunPodAPIURLEnv is the operator's environment variable that points the GPU kind's RunPod
// driver at another address than RunPod's public API: a mirror, or the e2e suite's fake.
// RunPodProxyURLEnv does the same for the proxy in front of the pods (Endpoints.RunPodProxy).
const (
	RunPodAPIURLEnv   = "GPU_RUNPOD_API_URL"
	RunPodProxyURLEnv = "GPU_RUNPOD_PROXY_URL"
)

// GiveUpEnv is the operator's environment variable that sets how long a deleted GPU waits for
// its provider to release the allocation before it lets go of it (a Go duration, "10m" by
// default): longer for a provider often slow, shorter for a test.
const GiveUpEnv = "GPU_RELEASE_GIVE_UP"

// gpuGiveUpFromEnv reads GiveUpEnv once, at the start; a value it cannot use is logged and
// the default applies, so that a typo never leaves namespaces blocked or allocations dropped early.
func gpuGiveUpFromEnv() time.Duration {
	d, err := ReleaseGiveUp(os.Getenv(GiveUpEnv))
	if err != nil {
		klog.ErrorS(err, "Ignoring the operator's environment variable, using the default", "name", GiveUpEnv, "default", gpuCleanupGiveUp)
	}
	return d
}

// ReleaseGiveUp is the give-up bound that value (GiveUpEnv's) sets: 10 minutes when empty,
// or, with an error saying why, when it is not a positive Go duration.
func ReleaseGiveUp(value string) (time.Duration, error) {
	if value == "" {
		return gpuCleanupGiveUp, nil
	}
	d, err := time.ParseDuration(value)
	if err != nil {
		return gpuCleanupGiveUp, fmt.Errorf("%s=%q is not a Go duration (like 10m or 45s): %w", GiveUpEnv, value, err)
	}
	if d <= 0 {
		return gpuCleanupGiveUp, fmt.Errorf("%s=%q is not positive", GiveUpEnv, value)
	}
	return d, nil
}

func gpuEndpoints() gpuprovider.Endpoints {
	e := gpuprovider.PublicEndpoints
	if u := os.Getenv(RunPodAPIURLEnv); u != "" {
		e.RunPod = u
	}
	if u := os.Getenv(RunPodProxyURLEnv); u != "" {
		e.RunPodProxy = u
	}
	return e
}

// --- what both workload kinds' pods read ---

// inputs are the Secrets and ConfigMaps a pod reads when it starts (env valueFrom): watched one
// by one, and hashed into the pod template, so a change rolls the pods.
type inputs struct {
	secrets, configMaps []types.NamespacedName
	// optionalSecrets are the Secrets every reference names as optional: the pods start without
	// them, so their absence is no problem.
	optionalSecrets sets.Set[types.NamespacedName]
}

// envInputs lists the Secrets and ConfigMaps of env entries and of more Secret keys, in the
// CR's namespace: sorted, each once.
func envInputs(namespace string, env []corev1.EnvVar, secretRefs ...*corev1.SecretKeySelector) inputs {
	secrets, configMaps := engine.NeededNames{}, engine.NeededNames{}
	for _, e := range env {
		if e.ValueFrom == nil {
			continue
		}
		if ref := e.ValueFrom.SecretKeyRef; ref != nil {
			secrets.Add(ref.Name, ref.Optional)
		}
		if ref := e.ValueFrom.ConfigMapKeyRef; ref != nil {
			configMaps.Add(ref.Name, nil)
		}
	}
	for _, ref := range secretRefs {
		if ref != nil {
			secrets.Add(ref.Name, ref.Optional)
		}
	}
	in := inputs{secrets: secrets.In(namespace), configMaps: configMaps.In(namespace), optionalSecrets: sets.New[types.NamespacedName]()}
	for name := range secrets.Optional() {
		in.optionalSecrets.Insert(types.NamespacedName{Namespace: namespace, Name: name})
	}
	return in
}

// watchInputs is the step that watches what the pods read; a missing Secret or ConfigMap is
// reported by name (never by content), without stopping the later steps: the Deployment waits
// for a missing Secret (withInputHashes), and its watch brings the sync that applies it. An
// optional reference may be missing.
func watchInputs[T engine.Object, S any](ctx context.Context, run *engine.Run[T, S], in inputs, what string) error {
	secrets, configMaps := run.References(engine.Secrets), run.References(engine.ConfigMaps)
	secrets.Set(ctx, run.Key, in.secrets...)
	configMaps.Set(ctx, run.Key, in.configMaps...)
	var missing []string
	for _, ref := range in.secrets {
		if _, err := secrets.Get(ref); engine.IsNotSynced(err) {
			return err
		} else if err != nil && !in.optionalSecrets.Has(ref) {
			missing = append(missing, "Secret "+ref.String())
		}
	}
	for _, ref := range in.configMaps {
		if _, err := configMaps.Get(ref); engine.IsNotSynced(err) {
			return err
		} else if err != nil {
			missing = append(missing, "ConfigMap "+ref.String())
		}
	}
	if len(missing) > 0 {
		return engine.Problem(engine.ReasonSecretMissing, "%s %v, which do not exist: create them (the pods start once they do)", what, missing)
	}
	return nil
}

// withInputHashes puts the hash of the data of every watched input on the pod template, so a
// change rolls the pods. While a Secret the pods need does not exist the Deployment waits for it
// (engine.MountedSecrets): applied without its hash, the Secret's arrival would roll it a second
// time (issue 34).
func withInputHashes[T engine.Object, S any](run *engine.Run[T, S], in inputs, d *appsv1.Deployment) error {
	secrets, err := engine.MountedSecrets(run.References(engine.Secrets), d, in.secrets)
	if err != nil {
		return err
	}
	var configMaps []*corev1.ConfigMap
	for _, ref := range in.configMaps {
		obj, err := run.References(engine.ConfigMaps).Find(ref)
		if err != nil {
			return err
		}
		if obj != nil {
			configMaps = append(configMaps, obj.(*corev1.ConfigMap))
		}
	}
	hashes, err := engine.ConfigHashAnnotations(configMaps, secrets)
	if err != nil {
		return err
	}
	return engine.WithPodTemplateAnnotations(hashes)(d)
}

// upstreamOrOwned is the adoption test of a kind whose upstream objects carried no owner
// reference (upstream created an Agent's Service without one): an object this CR controls, or
// one with no controller at all that carries upstream's app label of this CR.
func upstreamOrOwned(cr metav1.Object) func(metav1.Object) bool {
	owned := engine.ControlledBy(cr)
	return func(obj metav1.Object) bool {
		return owned(obj) || (metav1.GetControllerOfNoCopy(obj) == nil && obj.GetLabels()["app"] == cr.GetName())
	}
}

// --- Agent ---

// agentState is what the steps of one Agent's sync produce.
type agentState struct {
	inputs inputs
}

type agentRun = engine.Run[*v1alpha1.Agent, *agentState]

// agentOperand holds what the Agent kind's syncs share beyond the engine: the card fetcher
// (nil in a render without a cluster).
type agentOperand struct {
	fetcher *CardFetcher
}

func (o *agentOperand) kind(deps *registry.Deps) *engine.Kind[*v1alpha1.Agent, *agentState] {
	k := &engine.Kind[*v1alpha1.Agent, *agentState]{
		Operand:        AgentOperandName,
		ControllerName: AgentControllerName,
		GVK:            agentGVK,
		Resource:       "agents",
		PartOf:         inferencegateway.PartOfValue,
		Workers:        4,
		Conditions:     func(a *v1alpha1.Agent) []metav1.Condition { return a.Status.Conditions },
		Manifests:      bindata.FS,
		Assets:         engine.AssetTable(bindata.AgentAssets, nil),
		References:     []schema.GroupResource{engine.Secrets, engine.ConfigMaps},
		Validate:       func(a *v1alpha1.Agent) field.ErrorList { return a.ValidateSpec() },
		InvalidReason:  func(field.ErrorList) string { return v1alpha1.ReasonInvalidSpec },
		NewState: func(a *v1alpha1.Agent) *agentState {
			var env []corev1.EnvVar
			if a.Spec.Env != nil {
				env = *a.Spec.Env
			}
			return &agentState{inputs: envInputs(a.Namespace, env, a.Spec.Agent.LLM.APIKeySecretRef)}
		},
		Steps: []engine.Step[*agentRun]{
			{Name: "referenced Secrets and ConfigMaps", Apply: func(ctx context.Context, run *agentRun, _ []string) error {
				// Upstream's Service had no owner reference: it is taken over, not reported.
				run.Applier.Adopt = upstreamOrOwned(run.CR)
				return watchInputs(ctx, run, run.State.inputs, "the agent's pods read")
			}},
		},
		Render: func(run *agentRun) ([]engine.Rendered, error) {
			objs, err := renderAgent(run.CR)
			if err != nil {
				return nil, err
			}
			np, npWanted, err := agentNetworkPolicy(run.CR, objs.deployment, deps.Namespace)
			if err != nil {
				return nil, err
			}
			return []engine.Rendered{
				{Asset: bindata.AgentService, Object: objs.service, Wanted: true},
				{Asset: bindata.AgentDeployment, Object: objs.deployment, Wanted: true},
				{Asset: bindata.AgentNetworkPolicy, Object: np, Wanted: npWanted},
			}, nil
		},
		PrepareDeployment: func(run *agentRun, d *appsv1.Deployment) error { return withInputHashes(run, run.State.inputs, d) },
		PodSecurity:       engine.PodSecurityRestrictedNonRoot,
		Status:            o.status,
		Events:            readyEvents(v1alpha1.ReasonCardFetched, []string{v1alpha1.ReasonCardPending}, nil, engine.AvailabilityEvents),
	}
	if deps.CRInformers != nil {
		k.Client = func(namespace string) engine.StatusClient[*v1alpha1.Agent] {
			return deps.CR.CoreV1alpha1().Agents(namespace)
		}
		k.Informer = deps.CRInformers.Core().V1alpha1().Agents().Informer()
	}
	return k
}

// status is an Agent's status after a sync: Available, Progressing and Degraded from its
// Deployment and the steps, and upstream's Ready from its card, which the fetcher reads once a
// replica is available.
func (o *agentOperand) status(run *agentRun, result *engine.Outcome, a *v1alpha1.Agent) {
	status := &a.Status
	set := func(c engine.Condition) { meta.SetStatusCondition(&status.Conditions, c.MetaCondition(a.Generation)) }
	available, progressing, degraded, d := engine.DeploymentConditions(run.Applied[a.Name], run.CachedDeployment(a.Name), result, run.Invalid, "agent")
	set(available)
	set(progressing)
	set(degraded)
	obs := agentCardObservation{available: available.Status}
	switch {
	case run.Invalid != nil:
		obs.invalid = errors.New(run.Invalid.Message)
	case o.fetcher == nil:
	case !available.Status:
		o.fetcher.Forget(run.Key)
	default:
		if target, ok := cardTarget(run, d); ok {
			if r, ok := o.fetcher.Want(run.Key, target); ok {
				obs.result = &r
			}
		} else {
			obs.noAddress = true
		}
	}
	ready, card := agentReady(obs, status.Card, a.Generation)
	meta.SetStatusCondition(&status.Conditions, ready)
	status.Card = card
	status.Ready = ready.Status == metav1.ConditionTrue
	status.ObservedGeneration = a.Generation
}

// cardTarget is where the agent's card is read: its Service's cluster IP and port, with the
// Deployment's observed generation as the revision (a rollout reads it again).
func cardTarget(run *agentRun, d *appsv1.Deployment) (CardTarget, bool) {
	obj, err := run.Caches().Get(engine.Services, run.CR.Namespace, run.CR.Name)
	if err != nil {
		return CardTarget{}, false
	}
	svc, _ := obj.(*corev1.Service)
	if svc == nil || svc.Spec.ClusterIP == "" || svc.Spec.ClusterIP == corev1.ClusterIPNone {
		return CardTarget{}, false
	}
	return CardTarget{
		BaseURL:  AgentURL(run.CR),
		Address:  fmt.Sprintf("%s:%d", svc.Spec.ClusterIP, agentPort(&run.CR.Spec)),
		Revision: fmt.Sprint(d.Status.ObservedGeneration),
	}, true
}

// readyEvents announces upstream's Ready condition: Normal with readyReason when it becomes
// True, nothing for a reason of progress (quiet: waiting for a replica, a card, the provider),
// Normal for an expected end (normal: a GPU's Expired), a Warning with the reason otherwise (a
// card that cannot be read, a failed allocation); other conditions as next says.
func readyEvents(readyReason string, quiet, normal []string, next engine.EventPolicy) engine.EventPolicy {
	return func(t engine.Transition) (engine.Event, bool) {
		if t.After.Type != v1alpha1.ConditionReady {
			return next(t)
		}
		switch {
		case t.After.Status == metav1.ConditionTrue:
			return engine.Event{Reason: readyReason}, true
		case slices.Contains(quiet, t.After.Reason):
			return engine.Event{}, false
		case slices.Contains(normal, t.After.Reason):
			return engine.Event{Reason: t.After.Reason}, true
		}
		return engine.Event{Warning: true, Reason: t.After.Reason}, true
	}
}

// --- Orchestrator ---

// orchestratorState is what the steps of one Orchestrator's sync produce.
type orchestratorState struct {
	inputs inputs
	// agents and mcps list the Agents and MCPs discovery selects from (nil without a
	// cluster).
	agents igwlisters.AgentLister
	mcps   igwlisters.MCPLister
	// input is what the render renders; agentsErr and mcpsErr say why a discovery failed.
	input              orchestratorInput
	agentsErr, mcpsErr error
	// objects are the rendered objects, for the status (the discovered URLs).
	objects orchestratorObjects
}

type orchestratorRun = engine.Run[*v1alpha1.Orchestrator, *orchestratorState]

// OrchestratorKind is the Orchestrator kind on the engine. deps without clients (a render
// without a cluster) builds a kind that only renders.
func OrchestratorKind(deps *registry.Deps) *engine.Kind[*v1alpha1.Orchestrator, *orchestratorState] {
	k := &engine.Kind[*v1alpha1.Orchestrator, *orchestratorState]{
		Operand:        OrchestratorOperandName,
		ControllerName: OrchestratorControllerName,
		GVK:            orchestratorGVK,
		Resource:       "orchestrators",
		PartOf:         inferencegateway.PartOfValue,
		Workers:        2,
		Conditions:     func(o *v1alpha1.Orchestrator) []metav1.Condition { return o.Status.Conditions },
		Manifests:      bindata.FS,
		Assets:         engine.AssetTable(bindata.OrchestratorAssets, nil),
		References:     []schema.GroupResource{engine.Secrets, engine.ConfigMaps},
		// Users' ReferenceGrants allow the discovery of Agents and MCPs of another namespace.
		OptionalAPIs: []engine.OptionalAPI{engine.ReferenceGrantAPI},
		Validate:     func(o *v1alpha1.Orchestrator) field.ErrorList { return o.ValidateSpec() },
		Steps: []engine.Step[*orchestratorRun]{
			{Name: "referenced Secrets and ConfigMaps", Apply: func(ctx context.Context, run *orchestratorRun, _ []string) error {
				return watchInputs(ctx, run, run.State.inputs, "the orchestrator's pod reads")
			}},
			{Name: "Agent and MCP discovery", Apply: discoverAgentsAndMCPs},
		},
		Render: func(run *orchestratorRun) ([]engine.Rendered, error) {
			objs, err := renderOrchestrator(run.State.input)
			if err != nil {
				return nil, err
			}
			run.State.objects = objs
			out := make([]engine.Rendered, 0, len(bindata.OrchestratorAssets))
			for _, asset := range bindata.OrchestratorAssets {
				out = append(out, engine.Rendered{Asset: asset, Object: objs.object(asset), Wanted: objs.want[asset]})
			}
			return out, nil
		},
		PrepareDeployment: func(run *orchestratorRun, d *appsv1.Deployment) error {
			return withInputHashes(run, run.State.inputs, d)
		},
		PodSecurity: engine.PodSecurityRestrictedNonRoot,
		Status:      orchestratorStatus,
		Events:      readyEvents(v1alpha1.ReasonDeploymentAvailable, []string{v1alpha1.ReasonDeploymentNotAvailable}, nil, engine.AvailabilityEvents),
	}
	var agents igwlisters.AgentLister
	var mcps igwlisters.MCPLister
	if deps.CRInformers != nil {
		orchestrators := deps.CRInformers.Core().V1alpha1().Orchestrators()
		agentInformer, mcpInformer := deps.CRInformers.Core().V1alpha1().Agents(), deps.CRInformers.Core().V1alpha1().MCPs()
		k.Client = func(namespace string) engine.StatusClient[*v1alpha1.Orchestrator] {
			return deps.CR.CoreV1alpha1().Orchestrators(namespace)
		}
		k.Informer = orchestrators.Informer()
		agents, mcps = agentInformer.Lister(), mcpInformer.Lister()
		// An Agent's or MCP's event reaches the Orchestrators whose discovery selects it before
		// or after the change: one relabelled out of a selector leaves their lists at once.
		k.RelatedInformers = []cache.SharedIndexInformer{agentInformer.Informer(), mcpInformer.Informer()}
		// A ReferenceGrant's event reaches the Orchestrators that discover in its namespace from
		// another: it may allow or forbid their Agents and MCPs there.
		k.Related = func(obj runtime.Object, crs func() []*v1alpha1.Orchestrator) ([]string, bool) {
			if namespace, ok := engine.IsReferenceGrant(obj); ok {
				return engine.CrossNamespaceKeys(crs(), discoverySelections, namespace), true
			}
			list := func() ([]*v1alpha1.Orchestrator, error) { return crs(), nil }
			switch obj.(type) {
			case *v1alpha1.Agent:
				return engine.SelectingKeys(list, agentSelections)(obj), true
			case *v1alpha1.MCP:
				return engine.SelectingKeys(list, mcpSelections)(obj), true
			}
			return nil, false
		}
	}
	k.NewState = func(o *v1alpha1.Orchestrator) *orchestratorState {
		var env []corev1.EnvVar
		if o.Spec.Env != nil {
			env = *o.Spec.Env
		}
		tg := &o.Spec.Channels.Telegram
		return &orchestratorState{
			inputs: envInputs(o.Namespace, env, &tg.TokenSecretRef, tg.AllowedUsersSecretRef, o.Spec.Gateway.APIKeySecretRef),
			agents: agents, mcps: mcps,
			input: orchestratorInput{cr: o},
		}
	}
	return k
}

// discoverAgentsAndMCPs lists the Agents and MCPs the Orchestrator's discovery selects, from
// the informers. Those of another namespace count only while a ReferenceGrant there allows the
// Orchestrator's namespace to use them (engine.GrantedObjects): the others are skipped and named
// in Degraded, with the grant to create. A selector that does not parse (admission rejects one;
// an older stored one) is reported, and the listed agents and servers are still configured.
func discoverAgentsAndMCPs(_ context.Context, run *orchestratorRun, _ []string) error {
	st := run.State
	var problems []*engine.StepError
	if s, on, err := agentSelection(run.CR); err != nil {
		st.agentsErr = err
		problems = append(problems, engine.Problem(engine.ReasonApplyFailed, "discovery: %v", err))
	} else if on && st.agents != nil {
		agents, err := st.agents.Agents(s.Namespace).List(s.Selector)
		if err != nil {
			return err
		}
		agents, problem, err := engine.GrantedObjects(run.Optional(), run.CR, orchestratorGVK.GroupKind(), agentGVK.GroupKind(), s.Namespace, "spec.a2a.serviceDiscovery", agents)
		if err != nil {
			return err
		}
		if problem != nil {
			problems = append(problems, problem)
		}
		for _, a := range agents {
			st.input.agents = append(st.input.agents, *a)
		}
	}
	if s, on, err := mcpSelection(run.CR); err != nil {
		st.mcpsErr = err
		problems = append(problems, engine.Problem(engine.ReasonApplyFailed, "discovery: %v", err))
	} else if on && st.mcps != nil {
		mcps, err := st.mcps.MCPs(s.Namespace).List(s.Selector)
		if err != nil {
			return err
		}
		mcps, problem, err := engine.GrantedObjects(run.Optional(), run.CR, orchestratorGVK.GroupKind(), mcpGVK.GroupKind(), s.Namespace, "spec.mcp.serviceDiscovery", mcps)
		if err != nil {
			return err
		}
		if problem != nil {
			problems = append(problems, problem)
		}
		for _, m := range mcps {
			st.input.mcps = append(st.input.mcps, *m)
		}
	}
	return joinedProblems(problems)
}

// joinedProblems is one step's problems as one: the first's reason, every message.
func joinedProblems(problems []*engine.StepError) error {
	if len(problems) == 0 {
		return nil
	}
	messages := make([]string, len(problems))
	for i, p := range problems {
		messages[i] = p.Message
	}
	return engine.Problem(problems[0].Reason, "%s", strings.Join(messages, "; "))
}

// orchestratorStatus is an Orchestrator's status after a sync: upstream's Ready (its
// Deployment), Discovered, MCPsDiscovered and ReceiverPortContention, with the operator's
// Progressing and Degraded. While the spec is invalid only the conditions and
// observedGeneration move.
func orchestratorStatus(run *orchestratorRun, result *engine.Outcome, o *v1alpha1.Orchestrator) {
	status := &o.Status
	name := OrchestratorNamesFor(o.Name).Deployment
	available, progressing, degraded, _ := engine.DeploymentConditions(run.Applied[name], run.CachedDeployment(name), result, run.Invalid, "orchestrator")
	meta.SetStatusCondition(&status.Conditions, progressing.MetaCondition(o.Generation))
	meta.SetStatusCondition(&status.Conditions, degraded.MetaCondition(o.Generation))
	if run.Invalid != nil {
		reason := v1alpha1.ReasonDeploymentNotAvailable
		if available.Status {
			reason = v1alpha1.ReasonDeploymentAvailable
		}
		meta.SetStatusCondition(&status.Conditions, readyCondition(v1alpha1.ConditionReady, available.Status, reason, available.Message, o.Generation))
		status.ObservedGeneration = o.Generation
		return
	}
	for _, c := range orchestratorConditions(&o.Spec, run.State.objects, available.Status, run.State.agentsErr, run.State.mcpsErr, o.Generation) {
		meta.SetStatusCondition(&status.Conditions, c)
	}
	// A discovery turned off no longer reports.
	if !agentsDiscoveryOn(&o.Spec) {
		meta.RemoveStatusCondition(&status.Conditions, v1alpha1.ConditionDiscovered)
	}
	if !mcpsDiscoveryOn(&o.Spec) {
		meta.RemoveStatusCondition(&status.Conditions, v1alpha1.ConditionMCPsDiscovered)
	}
	status.Ready = available.Status
	status.DiscoveredAgents, status.DiscoveredAgentCount = run.State.objects.discoveredAgents, int32(len(run.State.objects.discoveredAgents))
	status.DiscoveredMCPs, status.DiscoveredMCPCount = run.State.objects.discoveredMCPs, int32(len(run.State.objects.discoveredMCPs))
	status.ObservedGeneration = o.Generation
}
