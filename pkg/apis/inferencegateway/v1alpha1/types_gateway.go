package v1alpha1

import (
	operatorv1 "github.com/openshift/api/operator/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	networkpolicyv1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/networkpolicy/v1alpha1"
)

// Gateway runs one Inference Gateway in its namespace: an OpenAI-compatible API
// (/v1/chat/completions, /v1/models, ...) in front of the LLM providers it lists, optionally
// with OIDC authentication, MCP tools, model routing, guardrails and telemetry. The operator
// creates a Deployment and a Service named after the object, a ServiceAccount, and on request a
// routing ConfigMap, a HorizontalPodAutoscaler, an Ingress and Gateway API objects. The gateway
// is configured through environment variables the operator derives from this spec.
//
// The kind shares its name with gateway.networking.k8s.io's Gateway: use the short name igw, the
// category inference-gateway, or the full name gateways.core.inference-gateway.com with kubectl.
//
// Validation: every rule below is checked at admission. Kubernetes 1.30+ ratchets CRD
// validation (GA in 1.33): an object stored before a rule existed stays updatable as long as
// the update leaves the offending field unchanged; the operator then reports the problem as
// Degraded with reason ValidationFailed instead of deploying it (Gateway.ValidateSpec). The rule
// on spec.hpa.config.scaleTargetRef sits at the root, where ratcheting does not reach, so it
// ratchets itself: it passes when scaleTargetRef is unchanged.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=gateways,scope=Namespaced,singular=gateway,shortName=igw,categories=inference-gateway
// +kubebuilder:storageversion
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="URL",type=string,JSONPath=`.status.url`,description="Kubernetes service DNS address"
// +kubebuilder:printcolumn:name="Port",type=integer,JSONPath=`.spec.server.port`,description="Gateway port"
// +kubebuilder:printcolumn:name="Providers",type=string,JSONPath=`.status.providerSummary`,description="Configured providers"
// +kubebuilder:printcolumn:name="MCPS",type=integer,JSONPath=`.status.mcpServerCount`,description="Number of MCP servers connected (static + discovered)"
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Available")].status`,description="Whether the gateway serves requests"
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`,description="Pending, Running, Failed or Unknown"
// +kubebuilder:printcolumn:name="AGE",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="size(self.metadata.name) <= 63 && !self.metadata.name.contains('.')",message="metadata.name must be a DNS label (at most 63 characters, no dots): it names the gateway's Service and is the app.kubernetes.io/instance label of its objects"
// +kubebuilder:validation:XValidation:rule="!has(self.spec) || !has(self.spec.hpa) || !has(self.spec.hpa.config) || !has(self.spec.hpa.config.scaleTargetRef) || (self.spec.hpa.config.scaleTargetRef.kind == 'Deployment' && self.spec.hpa.config.scaleTargetRef.name == self.metadata.name && (!has(self.spec.hpa.config.scaleTargetRef.apiVersion) || self.spec.hpa.config.scaleTargetRef.apiVersion == 'apps/v1')) || (oldSelf.hasValue() && has(oldSelf.value().spec) && has(oldSelf.value().spec.hpa) && has(oldSelf.value().spec.hpa.config) && has(oldSelf.value().spec.hpa.config.scaleTargetRef) && oldSelf.value().spec.hpa.config.scaleTargetRef == self.spec.hpa.config.scaleTargetRef)",optionalOldSelf=true,fieldPath=".spec.hpa.config.scaleTargetRef",message="spec.hpa.config.scaleTargetRef can only name this Gateway's own Deployment (apps/v1 Deployment named like the Gateway), which is what the HorizontalPodAutoscaler always scales: remove scaleTargetRef"
type Gateway struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the gateway the user asks for. Every field is optional: an empty spec runs the
	// default image with no provider configured.
	// +optional
	Spec GatewaySpec `json:"spec,omitempty"`

	// status is written by the operator: conditions, replica counts, the URL and what the
	// gateway was configured with.
	// +optional
	Status GatewayStatus `json:"status,omitempty"`
}

// Environments of spec.environment.
const (
	EnvironmentDevelopment = "development"
	EnvironmentStaging     = "staging"
	EnvironmentProduction  = "production"
)

// GatewaySpec is the desired state of one Inference Gateway.
//
// Nested defaults apply only when their block is present (for example spec.server.port is 8080
// only when spec.server is set), as upstream.
type GatewaySpec struct {
	// replicas is the number of gateway pods, 1 to 100. Default 1. While spec.hpa.enabled is
	// true the HorizontalPodAutoscaler sets the number instead, between its minReplicas and
	// maxReplicas.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	Replicas *int32 `json:"replicas,omitempty"`

	// image is the gateway's container image. Default
	// ghcr.io/inference-gateway/inference-gateway:latest.
	// +optional
	// +kubebuilder:default="ghcr.io/inference-gateway/inference-gateway:latest"
	// +kubebuilder:validation:MaxLength=1024
	Image string `json:"image,omitempty"`

	// environment is the gateway's ENVIRONMENT: development, staging or production (the
	// default). Anything but development runs the HTTP server in release mode.
	// +optional
	// +kubebuilder:default="production"
	// +kubebuilder:validation:Enum=development;staging;production
	Environment string `json:"environment,omitempty"`

	// telemetry turns on Prometheus metrics and OpenTelemetry traces.
	// +optional
	Telemetry *TelemetrySpec `json:"telemetry,omitempty"`

	// server is the gateway's HTTP server: listen address and port, timeouts and TLS.
	// +optional
	Server *ServerSpec `json:"server,omitempty"`

	// auth makes the gateway require an OIDC bearer token on every API request.
	// +optional
	Auth *AuthSpec `json:"auth,omitempty"`

	// providers are the LLM providers the gateway calls, each with the environment variables
	// that configure it (for example OPENAI_API_KEY from a Secret).
	// +optional
	// +kubebuilder:validation:MaxItems=64
	Providers []ProviderSpec `json:"providers,omitempty"`

	// mcp lets the gateway call tools of MCP (Model Context Protocol) servers on the model's
	// behalf: servers listed here and MCP objects found by label.
	// +optional
	MCP *MCPServersSpec `json:"mcp,omitempty"`

	// resources are the gateway container's CPU and memory requests and limits. Each value unset
	// keeps the operator's default: requests cpu 100m, memory 256Mi; limits cpu 2, memory 1Gi.
	// +optional
	Resources *ResourceRequirements `json:"resources,omitempty"`

	// service is the gateway's Service: type, port and annotations.
	// +optional
	Service *ServiceSpec `json:"service,omitempty"`

	// ingress exposes the gateway through a networking.k8s.io/v1 Ingress. Upstream removed this
	// field in its 0.16.0 in favour of gatewayAPI; it is kept because YAML written for earlier
	// versions (and upstream's complete example) still uses it.
	// +optional
	Ingress *IngressSpec `json:"ingress,omitempty"`

	// gatewayAPI exposes the gateway through the Kubernetes Gateway API
	// (gateway.networking.k8s.io): an HTTPRoute, attached to a Gateway API Gateway the operator
	// creates or to parents you name. Needs the Gateway API CRDs.
	// +optional
	GatewayAPI *RoutingSpec `json:"gatewayAPI,omitempty"`

	// routing is the gateway's own model routing: model aliases served round-robin by several
	// provider/model deployments (ROUTING_ENABLED, ROUTING_CONFIG_PATH). Before upstream's 0.21.0
	// this field held what gatewayAPI holds now.
	// +optional
	Routing *ModelRoutingSpec `json:"routing,omitempty"`

	// hpa scales the gateway's Deployment with a HorizontalPodAutoscaler.
	// +optional
	HPA *HPASpec `json:"hpa,omitempty"`

	// serviceAccount is the ServiceAccount the gateway's pods run as.
	// +optional
	ServiceAccount *ServiceAccountSpec `json:"serviceAccount,omitempty"`

	// guardrails makes the gateway check requests against policies (Rego files, an external
	// policy service, or both) before they reach a provider.
	// +optional
	Guardrails *GuardrailsSpec `json:"guardrails,omitempty"`

	// networkPolicy isolates the gateway's pods for ingress: its HTTP port from the peers named
	// (any namespace by default), its metrics from the monitoring namespace. Unset, none is
	// made, as upstream makes none.
	// +optional
	NetworkPolicy *networkpolicyv1alpha1.ServingNetworkPolicy `json:"networkPolicy,omitempty"`
}

// Phases of status.phase, derived from the conditions (see PhaseOf).
const (
	PhasePending = "Pending"
	PhaseRunning = "Running"
	PhaseFailed  = "Failed"
	PhaseUnknown = "Unknown"
)

// GatewayStatus is what the operator observed and did. Upstream declared every field but wrote
// only providerSummary, url, serviceAccountName, mcpServers and mcpServerCount; the operator
// writes all of them.
type GatewayStatus struct {
	// readyReplicas is the gateway Deployment's status.readyReplicas: its pods that pass their
	// readiness probe.
	// +optional
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`

	// availableReplicas is the gateway Deployment's status.availableReplicas: its pods ready for
	// at least minReadySeconds.
	// +optional
	AvailableReplicas int32 `json:"availableReplicas,omitempty"`

	// conditions: Available (the gateway serves requests), Progressing (a rollout is under way)
	// and Degraded (the operator could not apply the spec, or the spec breaks a rule; the reason
	// says which).
	//
	// Upstream's schema had a GatewayCondition type here (type enum Available, Progressing,
	// ReplicaFailure; no observedGeneration) that its controller never wrote. It is replaced by
	// metav1.Condition, keyed by type, so that the standard tools (kubectl wait
	// --for=condition=Available, meta.SetStatusCondition, server-side apply merges) work; since
	// upstream never wrote a condition, no stored object holds the old shape.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// phase summarises the conditions: Running when Available, Failed when Degraded and not
	// Available, Pending otherwise, Unknown before the first sync.
	// +optional
	// +kubebuilder:validation:Enum=Pending;Running;Failed;Unknown
	Phase string `json:"phase,omitempty"`

	// message is the message of the condition that decided the phase, for a person.
	// +optional
	// +kubebuilder:validation:MaxLength=32768
	Message string `json:"message,omitempty"`

	// observedGeneration is the metadata.generation the operator last acted on.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// providerSummary is the comma-separated names of the enabled providers that have
	// credentials (or, like Ollama, need none).
	// +optional
	ProviderSummary string `json:"providerSummary,omitempty"`

	// url is where clients reach the gateway: the first Ingress or HTTPRoute host when one
	// exposes it, otherwise the Service's cluster DNS name; with the scheme and, for the Service,
	// the port (for example http://gw.llm.svc.cluster.local:8080).
	// +optional
	URL string `json:"url,omitempty"`

	// serviceAccountName is the ServiceAccount the gateway's pods run as.
	// +optional
	ServiceAccountName string `json:"serviceAccountName,omitempty"`

	// mcpServers are the URLs of the MCP servers the gateway is configured with (listed in
	// spec.mcp.servers and discovered), sorted and without duplicates: the gateway's MCP_SERVERS.
	// +optional
	MCPServers []string `json:"mcpServers,omitempty"`

	// mcpServerCount is the number of mcpServers; 0 when MCP is off. Always written, so the MCPS
	// column shows a number.
	MCPServerCount int32 `json:"mcpServerCount"`

	// generations holds the generation of each Deployment the operator last applied. A
	// Deployment whose generation differs was edited by someone else, and the operator applies
	// it again to revert the edit.
	// +optional
	// +listType=map
	// +listMapKey=group
	// +listMapKey=resource
	// +listMapKey=namespace
	// +listMapKey=name
	Generations []operatorv1.GenerationStatus `json:"generations,omitempty"`
}

// GatewayList is a list of Gateway.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type GatewayList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the Gateways.
	Items []Gateway `json:"items"`
}
