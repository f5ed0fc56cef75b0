package v1alpha1

import (
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The messages of the CEL rules of the Agent, Orchestrator and GPU CRDs, one per rule, word for
// word as in the markers on the types (the package's tests fail when the two differ).
const (
	MessageAgentName        = "metadata.name must be a DNS label (at most 63 characters, no dots): it names the agent's Service and is the app.kubernetes.io/instance label of its objects"
	MessageOrchestratorName = "metadata.name must have at most 54 characters and no dots: it names the orchestrator's receiver Service, <name>-receiver, a DNS label of at most 63"
	MessageGPUName          = "metadata.name must have at most 63 characters: it is the app.kubernetes.io/instance label of the GPU's connection Secret"

	// Fields that shape objects as well as the program: only the spec field may set them.
	MessageAgentEnvPort             = "spec.env must not set PORT: the container port, the Service and the card's URL follow spec.port; set spec.port instead"
	MessageOrchestratorEnvReceiver  = "spec.env must not set INFER_TELEMETRY_RECEIVER_ADDRESS: the container port and the receiver Service follow spec.telemetry.receiver; set its port there"
	MessageOrchestratorPollTimeout  = "spec.channels.telegram.pollTimeout must be at least 1s: the CLI takes it in whole seconds"
	MessageOrchestratorSelector     = "serviceDiscovery.selector.matchExpressions: operator In and NotIn need values, Exists and DoesNotExist take none"
	MessageGPUMaxRuntime            = "spec.maxRuntime must be longer than 0s"
	MessageGPUCredentialsOptional   = "spec.credentialsRef.optional cannot be true: the operator cannot lease or release an allocation without the provider's key"
	MessageGPUImmutable             = "spec.provider, image, command, gpuTypes and endpoint cannot change: the allocation runs what it was leased with; create another GPU (only maxRuntime and credentialsRef may change)"
	MessageGPUCredentialsHeld       = "spec.credentialsRef cannot change while the GPU holds an allocation (status.instanceID): only the key that leased it can release it; rotate the key by changing the value in the Secret, or change credentialsRef once the allocation is released"
	MessageEnvFieldRef              = "env[].valueFrom.fieldRef must be what the downward API gives a container's environment: apiVersion v1 (or unset) and fieldPath one of metadata.name, metadata.namespace, metadata.uid, metadata.labels['<key>'], metadata.annotations['<key>'] (the key a qualified name: an optional DNS subdomain of at most 253 characters and '/', then at most 63 letters, digits, '-', '_' or '.'), spec.nodeName, spec.serviceAccountName, status.hostIP, status.hostIPs, status.podIP or status.podIPs"
	MessageResourceClaims           = "resources.claims is not supported: a claim must name one of the pod's resourceClaims, and the operator's pods have none; remove claims"
	MessageMetricsExporterExclusive = "spec.telemetry.metrics.exporter must set one of otlp and prometheus, not both: metrics have one exporter"

	// Fields upstream accepted and never passed on.
	MessageAgentTLS              = "spec.tls.enabled is not supported: upstream passed only TLS_ENABLED and the Secret's name, so the agent had no certificate to serve and its card could not be read; terminate TLS in front of the agent (Gateway API, Ingress or a service mesh) and set spec.card.url to the https URL"
	MessageAgentLoopTLS          = "spec.agent.tls.enabled is not supported: upstream never passed it to the agent; calls to other agents use the scheme of their URL"
	MessageAgentAPIKey           = "spec.agent.apiKey is not supported: it names a Secret without a key, and upstream never passed it on; use spec.agent.llm.apiKeySecretRef {name, key}"
	MessageAgentOTLPEndpoint     = "spec.telemetry.metrics.exporter.otlp must have the endpoint and protocol of spec.telemetry.traces.exporter.otlp: the agent has one OTLP endpoint (A2A_OTEL_EXPORTER_OTLP_ENDPOINT and _PROTOCOL) for every signal"
	MessageAgentReceiver         = "spec.telemetry.receiver is not supported for an Agent: the OTLP receiver is the Orchestrator's; remove it or set enabled: false"
	MessageWorkloadMetricsOn     = "spec.telemetry.metrics.enabled is not supported for an Agent or an Orchestrator: their metrics go where metrics.exporter says (and an Agent's Prometheus port is metrics.exporter.prometheus.port); remove enabled"
	MessageWorkloadMetricsPort   = "spec.telemetry.metrics.port is not supported for an Agent or an Orchestrator: it is the Inference Gateway's metrics port; set an Agent's Prometheus port with metrics.exporter.prometheus.port"
	MessageOrchestratorOTLP      = "spec.telemetry.metrics.exporter.otlp.endpoint must be the endpoint of spec.telemetry.traces.exporter.otlp: the orchestrator has one OTLP endpoint (INFER_TELEMETRY_OTLP_ENDPOINT) for traces and metrics"
	MessageOrchestratorProm      = "spec.telemetry.metrics.exporter.prometheus is not supported for an Orchestrator: it serves no Prometheus endpoint; use metrics.exporter.otlp"
	MessageOrchestratorTraceGRPC = "spec.telemetry.traces.exporter.otlp.protocol grpc is not supported for an Orchestrator: it exports over OTLP/HTTP only; use http/protobuf or leave it unset"
	MessageOrchestratorMetrGRPC  = "spec.telemetry.metrics.exporter.otlp.protocol grpc is not supported for an Orchestrator: it exports over OTLP/HTTP only; use http/protobuf or leave it unset"
)

// Defaults of the API that the operator also needs when a block is absent.
const (
	DefaultAgentPort    int32 = 8080
	DefaultReceiverPort int32 = 4318
	DefaultMetricsPort  int32 = 9464
	DefaultGPUPort      int32 = 8080
)

// ValidateSpec checks the CEL rules of the Agent CRD and returns the errors the API server
// returns for them (same paths, types and messages), as Gateway.ValidateSpec does: the operator
// runs it on every Agent it reconciles, since the API server ratchets rules for objects stored
// before them.
func (in *Agent) ValidateSpec() field.ErrorList {
	spec := &in.Spec
	path := field.NewPath("spec")
	var errs field.ErrorList
	if !isDNSLabelName(in.Name, 63) {
		errs = append(errs, field.Invalid(nil, field.OmitValueType{}, MessageAgentName))
	}
	if spec.Env != nil {
		for _, e := range *spec.Env {
			if e.Name == "PORT" {
				errs = append(errs, field.Invalid(path.Child("env"), field.OmitValueType{}, MessageAgentEnvPort))
				break
			}
		}
	}
	errs = append(errs, validateEnvFieldRefs(path.Child("env"), spec.Env)...)
	if len(spec.Resources.Claims) > 0 {
		errs = append(errs, field.Forbidden(path.Child("resources", "claims"), MessageResourceClaims))
	}
	if spec.TLS.Enabled {
		errs = append(errs, field.Forbidden(path.Child("tls", "enabled"), MessageAgentTLS))
	}
	if spec.Agent.TLS.Enabled {
		errs = append(errs, field.Forbidden(path.Child("agent", "tls", "enabled"), MessageAgentLoopTLS))
	}
	if spec.Agent.APIKey.SecretRef != "" {
		errs = append(errs, field.Forbidden(path.Child("agent", "apiKey", "secretRef"), MessageAgentAPIKey))
	}
	tel := &spec.Telemetry
	telPath := path.Child("telemetry")
	if traces, metrics := tracesOTLP(tel.Traces), metricsOTLP(tel.Metrics); traces != nil && metrics != nil &&
		(traces.Endpoint != metrics.Endpoint || traces.Protocol != metrics.Protocol) {
		errs = append(errs, field.Invalid(telPath.Child("metrics", "exporter", "otlp"), field.OmitValueType{}, MessageAgentOTLPEndpoint))
	}
	if tel.Receiver != nil && tel.Receiver.Enabled {
		errs = append(errs, field.Forbidden(telPath.Child("receiver", "enabled"), MessageAgentReceiver))
	}
	errs = append(errs, tel.Metrics.validate(telPath.Child("metrics"))...)
	errs = append(errs, spec.NetworkPolicy.Validate(path.Child("networkPolicy"))...)
	return errs
}

// ValidateSpec checks the CEL rules of the Orchestrator CRD, as Agent.ValidateSpec does.
func (in *Orchestrator) ValidateSpec() field.ErrorList {
	spec := &in.Spec
	path := field.NewPath("spec")
	var errs field.ErrorList
	if !isDNSLabelName(in.Name, 54) {
		errs = append(errs, field.Invalid(nil, field.OmitValueType{}, MessageOrchestratorName))
	}
	if spec.Env != nil {
		for _, e := range *spec.Env {
			if e.Name == "INFER_TELEMETRY_RECEIVER_ADDRESS" {
				errs = append(errs, field.Invalid(path.Child("env"), field.OmitValueType{}, MessageOrchestratorEnvReceiver))
				break
			}
		}
	}
	errs = append(errs, validateEnvFieldRefs(path.Child("env"), spec.Env)...)
	if len(spec.Resources.Claims) > 0 {
		errs = append(errs, field.Forbidden(path.Child("resources", "claims"), MessageResourceClaims))
	}
	if pt := spec.Channels.Telegram.PollTimeout; pt != nil && pt.Duration < time.Second {
		errs = append(errs, field.Invalid(path.Child("channels", "telegram", "pollTimeout"), field.OmitValueType{}, MessageOrchestratorPollTimeout))
	}
	errs = append(errs, spec.A2A.ServiceDiscovery.validate(path.Child("a2a", "serviceDiscovery"))...)
	errs = append(errs, spec.MCP.ServiceDiscovery.validate(path.Child("mcp", "serviceDiscovery"))...)
	if tel := spec.Telemetry; tel != nil {
		telPath := path.Child("telemetry")
		traces, metrics := tracesOTLP(tel.Traces), metricsOTLP(tel.Metrics)
		if traces != nil && metrics != nil && traces.Endpoint != metrics.Endpoint {
			errs = append(errs, field.Invalid(telPath.Child("metrics", "exporter", "otlp", "endpoint"), field.OmitValueType{}, MessageOrchestratorOTLP))
		}
		if tel.Metrics != nil && tel.Metrics.Exporter != nil && tel.Metrics.Exporter.Prometheus != nil {
			errs = append(errs, field.Forbidden(telPath.Child("metrics", "exporter", "prometheus"), MessageOrchestratorProm))
		}
		if traces != nil && traces.Protocol == OTLPProtocolGRPC {
			errs = append(errs, field.Invalid(telPath.Child("traces", "exporter", "otlp", "protocol"), field.OmitValueType{}, MessageOrchestratorTraceGRPC))
		}
		if metrics != nil && metrics.Protocol == OTLPProtocolGRPC {
			errs = append(errs, field.Invalid(telPath.Child("metrics", "exporter", "otlp", "protocol"), field.OmitValueType{}, MessageOrchestratorMetrGRPC))
		}
		errs = append(errs, tel.Metrics.validate(telPath.Child("metrics"))...)
	}
	errs = append(errs, spec.NetworkPolicy.Validate(path.Child("networkPolicy"))...)
	return errs
}

// ValidateSpec checks the CEL rules of the GPU CRD that hold for one object, as
// Agent.ValidateSpec does. (The rule that what the allocation runs cannot change compares an
// update with the stored object; it has nothing to check on its own.)
func (in *GPU) ValidateSpec() field.ErrorList {
	path := field.NewPath("spec")
	var errs field.ErrorList
	if len(in.Name) > 63 {
		errs = append(errs, field.Invalid(nil, field.OmitValueType{}, MessageGPUName))
	}
	if o := in.Spec.CredentialsRef.Optional; o != nil && *o {
		errs = append(errs, field.Forbidden(path.Child("credentialsRef", "optional"), MessageGPUCredentialsOptional))
	}
	if in.Spec.MaxRuntime.Duration <= 0 {
		errs = append(errs, field.Invalid(path.Child("maxRuntime"), field.OmitValueType{}, MessageGPUMaxRuntime))
	}
	return errs
}

func (in *WorkloadMetricsSpec) validate(path *field.Path) field.ErrorList {
	if in == nil {
		return nil
	}
	var errs field.ErrorList
	if in.Enabled {
		errs = append(errs, field.Forbidden(path.Child("enabled"), MessageWorkloadMetricsOn))
	}
	if in.Port != 0 && in.Port != DefaultMetricsPort {
		errs = append(errs, field.Invalid(path.Child("port"), field.OmitValueType{}, MessageWorkloadMetricsPort))
	}
	if e := in.Exporter; e != nil && e.OTLP != nil && e.Prometheus != nil {
		errs = append(errs, field.Invalid(path.Child("exporter"), field.OmitValueType{}, MessageMetricsExporterExclusive))
	}
	return errs
}

func (in *OrchestratorServiceDiscoverySpec) validate(path *field.Path) field.ErrorList {
	if !selectorExpressionsValid(in.Selector) {
		return field.ErrorList{field.Invalid(path.Child("selector"), field.OmitValueType{}, MessageOrchestratorSelector)}
	}
	return nil
}

// tracesOTLP is a traces signal's OTLP exporter, or nil.
func tracesOTLP(t *WorkloadTracesSpec) *WorkloadOTLPExporterSpec {
	if t == nil || t.Exporter == nil {
		return nil
	}
	return t.Exporter.OTLP
}

// metricsOTLP is a metrics signal's OTLP exporter, or nil.
func metricsOTLP(m *WorkloadMetricsSpec) *WorkloadOTLPExporterSpec {
	if m == nil || m.Exporter == nil {
		return nil
	}
	return m.Exporter.OTLP
}

// downwardEnvFieldPaths are the fields the downward API gives a container's environment without
// a subscript; metadata.labels['<key>'] and metadata.annotations['<key>'] are the others.
var downwardEnvFieldPaths = []string{"metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName",
	"spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"}

// validateEnvFieldRefs is the rule of MessageEnvFieldRef on the env list at path: the pod would
// refuse any other fieldRef.
func validateEnvFieldRefs(path *field.Path, env *[]corev1.EnvVar) field.ErrorList {
	if env == nil {
		return nil
	}
	for _, e := range *env {
		if e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && !downwardEnvFieldRef(e.ValueFrom.FieldRef) {
			return field.ErrorList{field.Invalid(path, field.OmitValueType{}, MessageEnvFieldRef)}
		}
	}
	return nil
}

func downwardEnvFieldRef(ref *corev1.ObjectFieldSelector) bool {
	if ref.APIVersion != "" && ref.APIVersion != "v1" {
		return false
	}
	if slices.Contains(downwardEnvFieldPaths, ref.FieldPath) {
		return true
	}
	for _, prefix := range []string{"metadata.labels['", "metadata.annotations['"} {
		if key, ok := strings.CutPrefix(ref.FieldPath, prefix); ok {
			key, ok = strings.CutSuffix(key, "']")
			return ok && len(validation.IsQualifiedName(key)) == 0
		}
	}
	return false
}
