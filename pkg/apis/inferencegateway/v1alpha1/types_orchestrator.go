package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	networkpolicyv1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/networkpolicy/v1alpha1"
)

// Orchestrator runs the Inference Gateway CLI's channels-manager daemon (infer channels-manager)
// in its namespace: an LLM-driven loop that takes messages from a chat channel (Telegram), calls
// A2A agents and tools (MCP servers among them) through an Inference Gateway, and replies. The
// operator creates one Deployment named after the object (one replica, strategy Recreate:
// Telegram allows one consumer per bot token), the ConfigMaps <name>-agents and <name>-mcps of
// the A2A agents and MCP servers it lists and discovers (Agent and MCP objects found by label),
// and with the telemetry receiver a Service <name>-receiver.
//
// Validation: every rule below is checked at admission, and ratcheted for objects stored before
// it (see Agent); the operator reports a stored object that breaks one instead of deploying it.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=orchestrators,scope=Namespaced,singular=orchestrator,shortName=orch,categories=inference-gateway
// +kubebuilder:storageversion
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="READY",type=boolean,JSONPath=`.status.ready`,description="Whether the Orchestrator Deployment is available"
// +kubebuilder:printcolumn:name="AGENTS",type=integer,JSONPath=`.status.discoveredAgentCount`,description="Number of discovered agents"
// +kubebuilder:printcolumn:name="MCPS",type=integer,JSONPath=`.status.discoveredMCPCount`,description="Number of discovered MCP servers"
// +kubebuilder:printcolumn:name="AGE",type=date,JSONPath=`.metadata.creationTimestamp`,description="Age of the resource"
// +kubebuilder:validation:XValidation:rule="size(self.metadata.name) <= 54 && !self.metadata.name.contains('.')",message="metadata.name must have at most 54 characters and no dots: it names the orchestrator's receiver Service, <name>-receiver, a DNS label of at most 63"
type Orchestrator struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the orchestrator to run.
	// +optional
	Spec OrchestratorSpec `json:"spec,omitempty"`

	// status is written by the operator: conditions and what discovery found.
	// +optional
	Status OrchestratorStatus `json:"status,omitempty"`
}

// OrchestratorSpec is the desired state of one orchestrator. The CLI is configured through
// environment variables (INFER_*) the operator derives from it, and through the mounted files
// ~/.infer/agents.yaml and ~/.infer/mcp.yaml.
//
// +kubebuilder:validation:XValidation:rule="!has(self.env) || self.env.all(e, e.name != 'INFER_TELEMETRY_RECEIVER_ADDRESS')",fieldPath=".env",message="spec.env must not set INFER_TELEMETRY_RECEIVER_ADDRESS: the container port and the receiver Service follow spec.telemetry.receiver; set its port there"
// +kubebuilder:validation:XValidation:rule=`!has(self.env) || self.env.all(e, !has(e.valueFrom) || !has(e.valueFrom.fieldRef) || ((!has(e.valueFrom.fieldRef.apiVersion) || e.valueFrom.fieldRef.apiVersion == 'v1') && (e.valueFrom.fieldRef.fieldPath.matches('^(metadata[.](name|namespace|uid)|spec[.](nodeName|serviceAccountName)|status[.](hostIPs?|podIPs?))$') || (e.valueFrom.fieldRef.fieldPath.matches('^metadata[.](labels|annotations)[[]\x27([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?\x27[]]$') && e.valueFrom.fieldRef.fieldPath.matches('^metadata[.][a-z]+[[]\x27([^/]{1,253}/)?[^/]{1,63}\x27[]]$')))))`,fieldPath=".env",message="env[].valueFrom.fieldRef must be what the downward API gives a container's environment: apiVersion v1 (or unset) and fieldPath one of metadata.name, metadata.namespace, metadata.uid, metadata.labels['<key>'], metadata.annotations['<key>'] (the key a qualified name: an optional DNS subdomain of at most 253 characters and '/', then at most 63 letters, digits, '-', '_' or '.'), spec.nodeName, spec.serviceAccountName, status.hostIP, status.hostIPs, status.podIP or status.podIPs"
type OrchestratorSpec struct {
	// image is the container image with the infer CLI; the operator runs its command infer with
	// the argument channels-manager.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	Image string `json:"image"`

	// channels are the chat channels the orchestrator listens on (INFER_CHANNELS_*;
	// INFER_CHANNELS_ENABLED is always true).
	// +required
	Channels ChannelsSpec `json:"channels"`

	// gateway is the Inference Gateway the orchestrator's LLM calls go through.
	// +required
	Gateway OrchestratorGatewaySpec `json:"gateway"`

	// agent is the orchestrating LLM.
	// +required
	Agent OrchestratorAgentSpec `json:"agent"`

	// tools turns the CLI's built-in tools on.
	// +optional
	Tools OrchestratorToolsSpec `json:"tools,omitempty"`

	// a2a lets the orchestrator call A2A agents: listed URLs, and Agent objects found by label.
	// +optional
	A2A OrchestratorA2ASpec `json:"a2a,omitempty"`

	// mcp lets the orchestrator call tools of MCP servers: listed URLs, and MCP objects found by
	// label.
	// +optional
	MCP OrchestratorMCPSpec `json:"mcp,omitempty"`

	// resources are the orchestrator container's compute requests and limits.
	// +optional
	// +kubebuilder:validation:XValidation:rule="!has(self.claims) || size(self.claims) == 0",fieldPath=".claims",reason="FieldValueForbidden",message="resources.claims is not supported: a claim must name one of the pod's resourceClaims, and the operator's pods have none; remove claims"
	Resources corev1.ResourceRequirements `json:"resources,omitempty"`

	// env are more environment variables of the orchestrator's container. An entry named like
	// one the operator derives from the spec replaces the operator's (upstream silently kept its
	// own), except INFER_TELEMETRY_RECEIVER_ADDRESS, which follows spec.telemetry.receiver.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=128
	Env *[]corev1.EnvVar `json:"env,omitempty"`

	// telemetry is the orchestrator's traces, metrics and OTLP receiver (INFER_TELEMETRY_*).
	// Unset, INFER_TELEMETRY_ENABLED is false.
	// +optional
	Telemetry *OrchestratorTelemetrySpec `json:"telemetry,omitempty"`

	// networkPolicy isolates the orchestrator's pod for ingress. It serves nothing but its OTLP
	// receiver (spec.telemetry.receiver), whose port is allowed from the peers named (any
	// address by default) while the receiver is on; without the receiver every connection to
	// the pod is refused. It exposes no metrics port (metrics are pushed over OTLP), so
	// monitoringNamespace opens nothing. Unset, none is made, as upstream makes none.
	// +optional
	NetworkPolicy *networkpolicyv1alpha1.ServingNetworkPolicy `json:"networkPolicy,omitempty"`
}

// ChannelsSpec are the orchestrator's chat channels and what they share.
type ChannelsSpec struct {
	// maxWorkers is the most messages handled at once (INFER_CHANNELS_MAX_WORKERS). Unset, the
	// CLI's default.
	// +optional
	// +kubebuilder:validation:Minimum=1
	MaxWorkers *int32 `json:"maxWorkers,omitempty"`

	// imageRetention is how many received images are kept (INFER_CHANNELS_IMAGE_RETENTION).
	// Unset, the CLI's default.
	// +optional
	// +kubebuilder:validation:Minimum=0
	ImageRetention *int32 `json:"imageRetention,omitempty"`

	// requireApproval makes the orchestrator ask before it runs a tool
	// (INFER_CHANNELS_REQUIRE_APPROVAL). Unset, the CLI's default.
	// +optional
	RequireApproval *bool `json:"requireApproval,omitempty"`

	// telegram is the Telegram bot channel.
	// +required
	Telegram TelegramChannelSpec `json:"telegram"`
}

// TelegramChannelSpec is a Telegram bot. Its token and allowed users come from Secrets, read by
// the kubelet (the operator never reads them).
//
// +kubebuilder:validation:XValidation:rule="!has(self.pollTimeout) || !self.pollTimeout.matches('^([0-9]+([.][0-9]+)?(ms|s|m|h))+$') || duration(self.pollTimeout) >= duration('1s')",fieldPath=".pollTimeout",message="spec.channels.telegram.pollTimeout must be at least 1s: the CLI takes it in whole seconds"
type TelegramChannelSpec struct {
	// enabled turns the channel on (INFER_CHANNELS_TELEGRAM_ENABLED). The token is passed either
	// way, so its Secret must exist for the pod to start.
	// +required
	Enabled bool `json:"enabled"`

	// tokenSecretRef is the Secret key holding the bot token
	// (INFER_CHANNELS_TELEGRAM_BOT_TOKEN).
	// +required
	TokenSecretRef corev1.SecretKeySelector `json:"tokenSecretRef"`

	// allowedUsersSecretRef is the Secret key holding the Telegram users allowed to talk to the
	// bot (INFER_CHANNELS_TELEGRAM_ALLOWED_USERS).
	// +optional
	AllowedUsersSecretRef *corev1.SecretKeySelector `json:"allowedUsersSecretRef,omitempty"`

	// pollTimeout is the long-poll timeout of Telegram's getUpdates, a duration of at least 1s
	// passed in whole seconds (INFER_CHANNELS_TELEGRAM_POLL_TIMEOUT; 1m30s is 90). Unset, the
	// CLI's default.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`
	PollTimeout *metav1.Duration `json:"pollTimeout,omitempty"`
}

// OrchestratorGatewaySpec is how the orchestrator reaches the Inference Gateway.
type OrchestratorGatewaySpec struct {
	// url of the gateway's API, for example http://<gateway>.<namespace>.svc.cluster.local:8080
	// (INFER_GATEWAY_URL). The CLI never runs a gateway of its own here (INFER_GATEWAY_RUN is
	// false).
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:Pattern=`^https?://.+$`
	URL string `json:"url"`

	// apiKeySecretRef is the Secret key holding the gateway's API key (INFER_GATEWAY_API_KEY).
	// +optional
	APIKeySecretRef *corev1.SecretKeySelector `json:"apiKeySecretRef,omitempty"`
}

// OrchestratorAgentSpec is the orchestrating LLM.
type OrchestratorAgentSpec struct {
	// model is the gateway's model name, for example deepseek/deepseek-chat (INFER_AGENT_MODEL).
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Model string `json:"model"`

	// systemPrompt is the LLM's system prompt (INFER_AGENT_SYSTEM_PROMPT; empty when unset).
	// +optional
	// +kubebuilder:validation:MaxLength=32768
	SystemPrompt string `json:"systemPrompt,omitempty"`
}

// OrchestratorToolsSpec are the CLI's built-in tools.
type OrchestratorToolsSpec struct {
	// enabled turns the built-in tools on (INFER_TOOLS_ENABLED).
	// +required
	Enabled bool `json:"enabled"`

	// schedule turns the scheduling tool on (INFER_TOOLS_SCHEDULE_ENABLED).
	// +optional
	Schedule bool `json:"schedule,omitempty"`
}

// OrchestratorServiceDiscoverySpec finds Agent or MCP objects by label.
//
// +kubebuilder:validation:XValidation:rule="!has(self.selector) || !has(self.selector.matchExpressions) || self.selector.matchExpressions.all(e, e.operator in ['In', 'NotIn'] ? (has(e.values) && size(e.values) > 0) : (e.operator in ['Exists', 'DoesNotExist'] && (!has(e.values) || size(e.values) == 0)))",fieldPath=".selector",message="serviceDiscovery.selector.matchExpressions: operator In and NotIn need values, Exists and DoesNotExist take none"
type OrchestratorServiceDiscoverySpec struct {
	// enabled turns discovery on.
	// +required
	Enabled bool `json:"enabled"`

	// namespace the objects are in. Unset, the Orchestrator's namespace. Another namespace
	// must consent: its objects are used only while a Gateway API ReferenceGrant there allows
	// Orchestrators of this namespace to reference them (from group
	// core.inference-gateway.com, kind Orchestrator, this namespace; to the same group, kind
	// Agent or MCP); the others are skipped and named in the Degraded condition. Without the
	// ReferenceGrant CRD, discovery in another namespace is off.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Namespace string `json:"namespace,omitempty"`

	// selector matches the objects' labels. Unset or empty, every object of the namespace.
	// +optional
	Selector *metav1.LabelSelector `json:"selector,omitempty"`
}

// OrchestratorA2ASpec are the A2A agents the orchestrator may call.
type OrchestratorA2ASpec struct {
	// enabled lets the orchestrator call agents (INFER_A2A_ENABLED).
	// +required
	Enabled bool `json:"enabled"`

	// agents are agent URLs (INFER_A2A_AGENTS, comma-separated; with discovery also in
	// agents.yaml, as static-agent-<i>).
	// +optional
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=2048
	// +kubebuilder:validation:items:Pattern=`^https?://[^\s,]+$`
	Agents []string `json:"agents,omitempty"`

	// serviceDiscovery finds Agent objects by label. While a2a.enabled is true, the agents it
	// finds and the listed ones are written to the ConfigMap <name>-agents, mounted as
	// ~/.infer/agents.yaml; a change of the set rolls the pod (a file mounted by subPath is not
	// updated in place).
	// +optional
	ServiceDiscovery OrchestratorServiceDiscoverySpec `json:"serviceDiscovery,omitempty"`
}

// OrchestratorMCPSpec are the MCP servers the orchestrator may call tools of.
type OrchestratorMCPSpec struct {
	// enabled lets the orchestrator call MCP servers: the listed and discovered ones are written
	// to the ConfigMap <name>-mcps, mounted as ~/.infer/mcp.yaml.
	// +required
	Enabled bool `json:"enabled"`

	// servers are MCP server URLs, for servers without an MCP object in the cluster (in mcp.yaml
	// as static-mcp-<i>).
	// +optional
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=2048
	// +kubebuilder:validation:items:Pattern=`^https?://[^\s,]+$`
	Servers []string `json:"servers,omitempty"`

	// serviceDiscovery finds MCP objects by label; each one's URL is its status.url (else the URL
	// its spec gives). A change of the set rolls the pod.
	// +optional
	ServiceDiscovery OrchestratorServiceDiscoverySpec `json:"serviceDiscovery,omitempty"`
}

// OrchestratorStatus is what the operator observed and did.
type OrchestratorStatus struct {
	// observedGeneration is the metadata.generation the operator last acted on.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions: Ready (upstream's: the Deployment has an available replica, reasons
	// DeploymentAvailable and DeploymentNotAvailable), Discovered and MCPsDiscovered (while
	// discovery of Agents or MCPs is on), ReceiverPortContention (the receiver and channels both
	// on), Progressing (a rollout is under way) and Degraded (the operator could not apply the
	// spec).
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// ready is true when the Ready condition is.
	// +optional
	Ready bool `json:"ready,omitempty"`

	// discoveredAgents are the URLs of the Agent objects discovery found, sorted.
	// +optional
	DiscoveredAgents []string `json:"discoveredAgents,omitempty"`

	// discoveredAgentCount is the number of discoveredAgents.
	// +optional
	DiscoveredAgentCount int32 `json:"discoveredAgentCount,omitempty"`

	// discoveredMCPs are the URLs of the MCP objects discovery found, sorted.
	// +optional
	DiscoveredMCPs []string `json:"discoveredMCPs,omitempty"`

	// discoveredMCPCount is the number of discoveredMCPs.
	// +optional
	DiscoveredMCPCount int32 `json:"discoveredMCPCount,omitempty"`
}

// OrchestratorList is a list of Orchestrator.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type OrchestratorList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the Orchestrators.
	Items []Orchestrator `json:"items"`
}
