package v1alpha1

import (
	"encoding/json"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	networkpolicyv1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/networkpolicy/v1alpha1"
)

// Agent runs one A2A (Agent-to-Agent protocol) server built on the inference-gateway ADK in its
// namespace: a Deployment and a Service named after the object, selecting pods by the label
// app: <name>. The agent is configured through environment variables the operator derives from
// this spec (upstream's contract, listed on each field). Once a replica is available the
// operator reads the agent's card (/.well-known/agent-card.json, else the legacy
// /.well-known/agent.json) from its Service and copies it into status.card; Orchestrators find
// Agents by label.
//
// Validation: every rule below is checked at admission. Kubernetes 1.30+ ratchets CRD
// validation: an object stored before a rule existed (by upstream's operator, say) stays
// updatable while the update leaves the offending field unchanged; the operator then reports
// the problem (Degraded, reason ValidationFailed) instead of deploying it (Agent.ValidateSpec).
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=agents,scope=Namespaced,singular=agent,categories=inference-gateway
// +kubebuilder:storageversion
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="VERSION",type=string,JSONPath=`.status.card.version`,description="Version of the Agent resource"
// +kubebuilder:printcolumn:name="URL",type=string,JSONPath=`.status.card.url`,description="URL of the Agent resource"
// +kubebuilder:printcolumn:name="STREAMING",type=string,JSONPath=`.status.card.capabilities.streaming`,description="Streaming Capability of the Agent resource"
// +kubebuilder:printcolumn:name="PUSH NOTIFICATIONS",type=string,JSONPath=`.status.card.capabilities.pushNotifications`,description="Push Notifications Capability of the Agent resource"
// +kubebuilder:printcolumn:name="STATE TRANSITION HISTORY",type=string,JSONPath=`.status.card.capabilities.stateTransitionHistory`,description="State Transition History Capability of the Agent resource"
// +kubebuilder:printcolumn:name="AGE",type=date,JSONPath=`.metadata.creationTimestamp`,description="Age of the resource"
// +kubebuilder:validation:XValidation:rule="size(self.metadata.name) <= 63 && !self.metadata.name.contains('.')",message="metadata.name must be a DNS label (at most 63 characters, no dots): it names the agent's Service and is the app.kubernetes.io/instance label of its objects"
type Agent struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the agent to run. Only image is required.
	// +optional
	Spec AgentSpec `json:"spec,omitempty"`

	// status is written by the operator: conditions and the agent's card.
	// +optional
	Status AgentStatus `json:"status,omitempty"`
}

// AgentSpec is the desired state of one A2A agent.
//
// Nested defaults apply only when their block is present (spec.logging.level is info only when
// spec.logging is set; without it LOG_LEVEL is empty and the agent uses its own default), as
// upstream.
//
// +kubebuilder:validation:XValidation:rule="!has(self.env) || self.env.all(e, e.name != 'PORT')",fieldPath=".env",message="spec.env must not set PORT: the container port, the Service and the card's URL follow spec.port; set spec.port instead"
// +kubebuilder:validation:XValidation:rule=`!has(self.env) || self.env.all(e, !has(e.valueFrom) || !has(e.valueFrom.fieldRef) || ((!has(e.valueFrom.fieldRef.apiVersion) || e.valueFrom.fieldRef.apiVersion == 'v1') && (e.valueFrom.fieldRef.fieldPath.matches('^(metadata[.](name|namespace|uid)|spec[.](nodeName|serviceAccountName)|status[.](hostIPs?|podIPs?))$') || (e.valueFrom.fieldRef.fieldPath.matches('^metadata[.](labels|annotations)[[]\x27([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?\x27[]]$') && e.valueFrom.fieldRef.fieldPath.matches('^metadata[.][a-z]+[[]\x27([^/]{1,253}/)?[^/]{1,63}\x27[]]$')))))`,fieldPath=".env",message="env[].valueFrom.fieldRef must be what the downward API gives a container's environment: apiVersion v1 (or unset) and fieldPath one of metadata.name, metadata.namespace, metadata.uid, metadata.labels['<key>'], metadata.annotations['<key>'] (the key a qualified name: an optional DNS subdomain of at most 253 characters and '/', then at most 63 letters, digits, '-', '_' or '.'), spec.nodeName, spec.serviceAccountName, status.hostIP, status.hostIPs, status.podIP or status.podIPs"
type AgentSpec struct {
	// image is the agent's container image.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	Image string `json:"image"`

	// card is what the agent reports about itself in its agent card.
	// +optional
	Card CardSpec `json:"card,omitempty"`

	// timezone of the agent process (TIMEZONE), an IANA name such as Europe/London. Default UTC.
	// +optional
	// +kubebuilder:default="UTC"
	// +kubebuilder:validation:MaxLength=64
	Timezone string `json:"timezone,omitempty"`

	// port the agent listens on (PORT): the container port, the Service's port and the port of
	// the card's URL. Default 8080.
	// +optional
	// +kubebuilder:default=8080
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port int32 `json:"port,omitempty"`

	// host is the address the agent binds to (HOST). Default 0.0.0.0, every interface: the
	// Service reaches the pod on its own address.
	// +optional
	// +kubebuilder:default="0.0.0.0"
	// +kubebuilder:validation:MaxLength=253
	Host string `json:"host,omitempty"`

	// readTimeout of the agent's HTTP server (READ_TIMEOUT), a duration such as 30s. Default 30s.
	// +optional
	// +kubebuilder:default="30s"
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`
	ReadTimeout string `json:"readTimeout,omitempty"`

	// writeTimeout of the agent's HTTP server (WRITE_TIMEOUT). Default 30s.
	// +optional
	// +kubebuilder:default="30s"
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`
	WriteTimeout string `json:"writeTimeout,omitempty"`

	// idleTimeout of the agent's HTTP server (IDLE_TIMEOUT). Default 60s.
	// +optional
	// +kubebuilder:default="60s"
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`
	IdleTimeout string `json:"idleTimeout,omitempty"`

	// logging is the agent's log level and format.
	// +optional
	Logging LoggingSpec `json:"logging,omitempty"`

	// telemetry is the agent's OpenTelemetry traces and metrics (A2A_TELEMETRY_ENABLED,
	// A2A_OTEL_*).
	// +optional
	Telemetry AgentTelemetrySpec `json:"telemetry,omitempty"`

	// queue is the agent's task queue (QUEUE_*).
	// +optional
	Queue QueueSpec `json:"queue,omitempty"`

	// mcp configures the agent's MCP client: the MCP servers whose tools the agent offers to its
	// LLM (A2A_MCP_*). It is the client side, unlike the MCP kind, which runs a server.
	// +optional
	MCP MCPClientSpec `json:"mcp,omitempty"`

	// tls is HTTPS for the agent's own server. Upstream passed only TLS_ENABLED and the Secret's
	// name, so the agent had no certificate to serve: only enabled: false is accepted; terminate
	// TLS in front of the agent (Gateway API, Ingress, service mesh) instead.
	// +optional
	TLS AgentTLSSpec `json:"tls,omitempty"`

	// agent is the agent loop: its LLM, retries and history.
	// +optional
	Agent AgentConfigSpec `json:"agent,omitempty"`

	// env are more environment variables of the agent's container. An entry named like one the
	// operator derives from the spec replaces the operator's (upstream silently kept its own),
	// except PORT, which is spec.port's.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=128
	Env *[]corev1.EnvVar `json:"env,omitempty"`

	// resources are the agent container's compute requests and limits.
	// +optional
	// +kubebuilder:validation:XValidation:rule="!has(self.claims) || size(self.claims) == 0",fieldPath=".claims",reason="FieldValueForbidden",message="resources.claims is not supported: a claim must name one of the pod's resourceClaims, and the operator's pods have none; remove claims"
	Resources corev1.ResourceRequirements `json:"resources,omitempty"`

	// networkPolicy isolates the agent's pods for ingress: its A2A port (spec.port) from the
	// peers named (any address by default) and from the operator's namespace, whose operator
	// reads the agent's card there; nothing else. The Orchestrators that call the agent connect
	// to that port, so a from that is set must select them. Unset, none is made, as upstream
	// makes none.
	// +optional
	NetworkPolicy *networkpolicyv1alpha1.ServingNetworkPolicy `json:"networkPolicy,omitempty"`
}

// LoggingSpec is the agent's logging.
type LoggingSpec struct {
	// level is the log verbosity (LOG_LEVEL), for example debug or info. Default info.
	// +optional
	// +kubebuilder:default="info"
	// +kubebuilder:validation:MaxLength=32
	Level string `json:"level,omitempty"`

	// format is the log output format (LOG_FORMAT), for example json or text. Default json.
	// +optional
	// +kubebuilder:default="json"
	// +kubebuilder:validation:MaxLength=32
	Format string `json:"format,omitempty"`
}

// QueueSpec is the agent's task queue. The three values are passed whether or not enabled is
// true (QUEUE_ENABLED, QUEUE_MAX_SIZE, QUEUE_CLEANUP_INTERVAL); the agent reads the other two
// only while the queue is on.
type QueueSpec struct {
	// enabled turns the task queue on (QUEUE_ENABLED).
	// +optional
	Enabled bool `json:"enabled,omitempty"`

	// maxSize is the most tasks the queue holds (QUEUE_MAX_SIZE).
	// +optional
	// +kubebuilder:validation:Minimum=0
	MaxSize int32 `json:"maxSize,omitempty"`

	// cleanupInterval is how often finished tasks are purged (QUEUE_CLEANUP_INTERVAL), a
	// duration such as 5m.
	// +optional
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`
	CleanupInterval string `json:"cleanupInterval,omitempty"`
}

// MCPClientSpec is the agent's MCP client: it connects to the listed servers, discovers their
// tools and offers them to its LLM. Only A2A_MCP_ENABLED is passed while enabled is false; the
// other settings (A2A_MCP_SERVERS, A2A_MCP_ENDPOINT, ...) only while it is true, and each only
// when set, so the agent's own default applies otherwise.
type MCPClientSpec struct {
	// enabled turns the MCP client on (A2A_MCP_ENABLED).
	// +optional
	Enabled bool `json:"enabled,omitempty"`

	// servers are the MCP servers' base URLs, for example http://mcp:8080 (A2A_MCP_SERVERS,
	// comma-separated).
	// +optional
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=2048
	// +kubebuilder:validation:items:Pattern=`^https?://[^\s,]+$`
	Servers []string `json:"servers,omitempty"`

	// endpoint is the MCP path appended to each server's URL (A2A_MCP_ENDPOINT). Default /mcp.
	// +optional
	// +kubebuilder:default="/mcp"
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:Pattern=`^/.*`
	Endpoint string `json:"endpoint,omitempty"`

	// refreshInterval is how often the agent lists the servers' tools again
	// (A2A_MCP_REFRESH_INTERVAL). Default 5m.
	// +optional
	// +kubebuilder:default="5m"
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`
	RefreshInterval string `json:"refreshInterval,omitempty"`

	// dialTimeout bounds connecting to a server (A2A_MCP_DIAL_TIMEOUT). Default 30s.
	// +optional
	// +kubebuilder:default="30s"
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`
	DialTimeout string `json:"dialTimeout,omitempty"`

	// callTimeout bounds one tool call (A2A_MCP_CALL_TIMEOUT). Default 30s.
	// +optional
	// +kubebuilder:default="30s"
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`
	CallTimeout string `json:"callTimeout,omitempty"`

	// maxRetries is the most connection retries, 0 for no limit (A2A_MCP_MAX_RETRIES). Default
	// 0.
	// +optional
	// +kubebuilder:default=0
	// +kubebuilder:validation:Minimum=0
	MaxRetries int32 `json:"maxRetries,omitempty"`

	// retryInterval is the first wait between connection retries (A2A_MCP_RETRY_INTERVAL).
	// Default 2s.
	// +optional
	// +kubebuilder:default="2s"
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`
	RetryInterval string `json:"retryInterval,omitempty"`

	// retryMaxInterval caps the wait between connection retries
	// (A2A_MCP_RETRY_MAX_INTERVAL). Default 30s.
	// +optional
	// +kubebuilder:default="30s"
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`
	RetryMaxInterval string `json:"retryMaxInterval,omitempty"`
}

// AgentTLSSpec is upstream's TLS block of an Agent, which never gave the agent a certificate.
//
// +kubebuilder:validation:XValidation:rule="!has(self.enabled) || !self.enabled",fieldPath=".enabled",reason="FieldValueForbidden",message="spec.tls.enabled is not supported: upstream passed only TLS_ENABLED and the Secret's name, so the agent had no certificate to serve and its card could not be read; terminate TLS in front of the agent (Gateway API, Ingress or a service mesh) and set spec.card.url to the https URL"
type AgentTLSSpec struct {
	// enabled must be false.
	// +optional
	Enabled bool `json:"enabled,omitempty"`

	// secretRef is the name of a Secret, passed as TLS_SECRET_REF (the agent cannot read a Secret
	// by name; it has no effect).
	// +optional
	// +kubebuilder:validation:MaxLength=253
	SecretRef string `json:"secretRef,omitempty"`
}

// AgentConfigSpec is the agent loop.
type AgentConfigSpec struct {
	// enabled turns the agent loop on (AGENT_ENABLED).
	// +optional
	Enabled bool `json:"enabled,omitempty"`

	// tls is upstream's agent-to-agent TLS block; only enabled: false is accepted.
	// +optional
	TLS AgentTLSClientSpec `json:"tls,omitempty"`

	// maxConversationHistory is the number of messages kept in context
	// (AGENT_MAX_CONVERSATION_HISTORY). Default 10.
	// +optional
	// +kubebuilder:default=10
	// +kubebuilder:validation:Minimum=0
	MaxConversationHistory int32 `json:"maxConversationHistory,omitempty"`

	// maxChatCompletionIterations is the most LLM calls per request
	// (A2A_AGENT_CLIENT_MAX_CHAT_COMPLETION_ITERATIONS). Default 5.
	// +optional
	// +kubebuilder:default=5
	// +kubebuilder:validation:Minimum=0
	MaxChatCompletionIterations int32 `json:"maxChatCompletionIterations,omitempty"`

	// maxRetries is the most retries of a failed LLM call (A2A_AGENT_CLIENT_MAX_RETRIES).
	// Default 3.
	// +optional
	// +kubebuilder:default=3
	// +kubebuilder:validation:Minimum=0
	MaxRetries int32 `json:"maxRetries,omitempty"`

	// apiKey is upstream's deprecated reference to the LLM API key: a Secret name without a key,
	// which upstream never used. Rejected when set; use llm.apiKeySecretRef.
	// +optional
	APIKey APIKeySpec `json:"apiKey,omitempty"`

	// llm is the agent's language model.
	// +optional
	LLM LLMSpec `json:"llm,omitempty"`
}

// AgentTLSClientSpec is upstream's TLS block of the agent loop, which it never passed on.
//
// +kubebuilder:validation:XValidation:rule="!has(self.enabled) || !self.enabled",fieldPath=".enabled",reason="FieldValueForbidden",message="spec.agent.tls.enabled is not supported: upstream never passed it to the agent; calls to other agents use the scheme of their URL"
type AgentTLSClientSpec struct {
	// enabled must be false.
	// +optional
	Enabled bool `json:"enabled,omitempty"`

	// secretRef has no effect.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	SecretRef string `json:"secretRef,omitempty"`
}

// APIKeySpec is upstream's deprecated LLM API key reference.
//
// +kubebuilder:validation:XValidation:rule="!has(self.secretRef) || size(self.secretRef) == 0",fieldPath=".secretRef",reason="FieldValueForbidden",message="spec.agent.apiKey is not supported: it names a Secret without a key, and upstream never passed it on; use spec.agent.llm.apiKeySecretRef {name, key}"
type APIKeySpec struct {
	// secretRef must be empty: use spec.agent.llm.apiKeySecretRef.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	SecretRef string `json:"secretRef,omitempty"`
}

// LLMSpec is the agent's language model. Each setting is passed only when set (a block without
// maxTokens and temperature gets their defaults).
type LLMSpec struct {
	// baseURL is the LLM API's base URL, for example an Inference Gateway's
	// http://<gateway>.<namespace>.svc.cluster.local:8080/v1 (A2A_AGENT_CLIENT_BASE_URL).
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:Pattern=`^https?://.+$`
	BaseURL string `json:"baseURL,omitempty"`

	// model is "<provider>/<model>", for example openai/gpt-4o: the provider is passed as
	// A2A_AGENT_CLIENT_PROVIDER and the rest as A2A_AGENT_CLIENT_MODEL. Without a slash the
	// whole value is the model.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Model string `json:"model,omitempty"`

	// maxTokens is the most tokens one completion generates (A2A_AGENT_CLIENT_MAX_TOKENS).
	// Default 4096.
	// +optional
	// +kubebuilder:default=4096
	// +kubebuilder:validation:Minimum=1
	MaxTokens *int32 `json:"maxTokens,omitempty"`

	// temperature is the sampling temperature, a decimal number such as 0.7
	// (A2A_AGENT_CLIENT_TEMPERATURE). Default "0.7".
	// +optional
	// +kubebuilder:default="0.7"
	// +kubebuilder:validation:MaxLength=16
	// +kubebuilder:validation:Pattern=`^[0-9]+(\.[0-9]+)?$`
	Temperature *string `json:"temperature,omitempty"`

	// customHeaders are HTTP headers sent with every LLM request
	// (A2A_AGENT_CLIENT_CUSTOM_HEADER_<i>_NAME and _VALUE, in order).
	// +optional
	// +kubebuilder:validation:MaxItems=32
	CustomHeaders *[]HeaderSpec `json:"customHeaders,omitempty"`

	// systemPrompt is the LLM's system prompt (A2A_AGENT_CLIENT_SYSTEM_PROMPT). Upstream accepted
	// it and never passed it on.
	// +optional
	// +kubebuilder:validation:MaxLength=32768
	SystemPrompt string `json:"systemPrompt,omitempty"`

	// apiKeySecretRef is the Secret key holding the LLM API key (A2A_AGENT_CLIENT_API_KEY, read
	// by the kubelet; the operator never reads it).
	// +optional
	APIKeySecretRef *corev1.SecretKeySelector `json:"apiKeySecretRef,omitempty"`
}

// HeaderSpec is one HTTP header.
type HeaderSpec struct {
	// name of the header.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:Pattern=`^[!#$%&'*+.^_|~0-9A-Za-z-]+$`
	Name string `json:"name"`

	// value of the header.
	// +required
	// +kubebuilder:validation:MaxLength=4096
	Value string `json:"value"`
}

// CardSpec is what the operator tells the agent to report in its card.
type CardSpec struct {
	// url is the URL the agent advertises in its card (A2A_AGENT_URL). Unset, the Service's
	// http://<name>.<namespace>.svc.cluster.local:<port>; set it when the agent is reached
	// through an Ingress or a Gateway API route.
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:Pattern=`^https?://.+$`
	URL string `json:"url,omitempty"`
}

// AgentStatus is what the operator observed and did.
type AgentStatus struct {
	// observedGeneration is the metadata.generation the operator last acted on.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions: Ready (upstream's: True once the agent's card was read, reason CardFetched;
	// False with CardFetchFailed, CardPending or InvalidSpec), Available (the Deployment has an
	// available replica), Progressing (a rollout is under way) and Degraded (the operator could
	// not apply the spec).
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// ready is true when the Ready condition is.
	// +optional
	Ready bool `json:"ready,omitempty"`

	// card is the agent's card as last read from it. A failed read keeps the card read before.
	// +optional
	Card Card `json:"card,omitempty"`
}

// Card is an A2A agent card, as far as the operator keeps it (fields of the card it has no
// place for, such as protocolVersion, are left out).
type Card struct {
	// name of the agent.
	Name string `json:"name"`
	// version of the agent.
	Version string `json:"version"`
	// description of the agent.
	Description string `json:"description"`
	// url the agent says it is reached at.
	// +optional
	URL string `json:"url,omitempty"`
	// defaultInputModes are the media types the agent accepts.
	// +optional
	DefaultInputModes []string `json:"defaultInputModes,omitempty"`
	// defaultOutputModes are the media types the agent answers with.
	// +optional
	DefaultOutputModes []string `json:"defaultOutputModes,omitempty"`
	// documentationUrl is where the agent is documented.
	// +optional
	DocumentationURL string `json:"documentationUrl,omitempty"`
	// capabilities of the agent.
	// +optional
	Capabilities CapabilitiesSpec `json:"capabilities,omitempty"`
	// skills of the agent (a card may give one skill as an object instead of a list).
	// +optional
	Skills SkillsList `json:"skills,omitempty"`
	// skillsNames are the skills' names, comma-separated, computed by the operator.
	// +optional
	SkillsNames string `json:"skillsNames,omitempty"`
}

// CapabilitiesSpec are an agent's A2A capabilities.
type CapabilitiesSpec struct {
	// streaming: the agent streams responses.
	// +optional
	Streaming bool `json:"streaming"`
	// pushNotifications: the agent sends push notifications.
	// +optional
	PushNotifications bool `json:"pushNotifications"`
	// stateTransitionHistory: the agent keeps the history of a task's states.
	// +optional
	StateTransitionHistory bool `json:"stateTransitionHistory"`
}

// Skill is one skill of an agent card.
type Skill struct {
	// id of the skill.
	ID string `json:"id"`
	// name of the skill.
	Name string `json:"name"`
	// description of the skill.
	Description string `json:"description"`
	// examples of requests the skill serves.
	// +optional
	Examples []string `json:"examples,omitempty"`
	// inputModes are the media types the skill accepts.
	// +optional
	InputModes []string `json:"inputModes,omitempty"`
	// outputModes are the media types the skill answers with.
	// +optional
	OutputModes []string `json:"outputModes,omitempty"`
	// tags of the skill.
	// +optional
	Tags []string `json:"tags,omitempty"`
}

// SkillsList is a card's skills. It reads one skill object as a list of one, as upstream.
type SkillsList []Skill

// UnmarshalJSON reads a list of skills or a single skill.
func (s *SkillsList) UnmarshalJSON(data []byte) error {
	var list []Skill
	if err := json.Unmarshal(data, &list); err == nil {
		*s = list
		return nil
	}
	var single Skill
	if err := json.Unmarshal(data, &single); err != nil {
		return fmt.Errorf("skills must be a skill or a list of skills: %w", err)
	}
	*s = SkillsList{single}
	return nil
}

// Names is status.card.skillsNames: the skills' names joined by ", ".
func (s SkillsList) Names() string {
	names := make([]string, 0, len(s))
	for _, skill := range s {
		names = append(names, skill.Name)
	}
	return strings.Join(names, ", ")
}

// AgentList is a list of Agent.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type AgentList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the Agents.
	Items []Agent `json:"items"`
}
