package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TelemetrySpec is the gateway's observability. The same type (traces and metrics exporters, an
// OTLP receiver) serves upstream's Agent and Orchestrator; the parts the gateway cannot do are
// rejected here.
type TelemetrySpec struct {
	// enabled turns telemetry on (TELEMETRY_ENABLED): the gateway then serves Prometheus
	// metrics on metrics.port and, with traces set, exports traces. Default false.
	// +optional
	// +kubebuilder:default=false
	Enabled bool `json:"enabled,omitempty"`

	// traces exports OpenTelemetry traces (TELEMETRY_TRACING_ENABLED) while enabled is true.
	// Unset, no traces.
	// +optional
	Traces *TracesSpec `json:"traces,omitempty"`

	// metrics is the Prometheus metrics endpoint. Default {enabled: false, port: 9464}.
	// +optional
	// +kubebuilder:default={enabled: false, port: 9464}
	Metrics *MetricsSpec `json:"metrics,omitempty"`

	// receiver is upstream's OTLP receiver of the Orchestrator. The gateway has none: only
	// enabled: false is accepted.
	// +optional
	Receiver *ReceiverSpec `json:"receiver,omitempty"`
}

// MetricsSpec is the gateway's Prometheus endpoint (/metrics on its own port).
//
// +kubebuilder:validation:XValidation:rule="!has(self.exporter)",fieldPath=".exporter",reason="FieldValueForbidden",message="spec.telemetry.metrics.exporter is not supported: the gateway serves Prometheus metrics on spec.telemetry.metrics.port and exports no metrics (exporters are for upstream's Agent); remove it"
type MetricsSpec struct {
	// enabled declares the metrics port on the gateway's container and Service, so that
	// Prometheus can scrape it. (The gateway serves metrics whenever telemetry.enabled is true.)
	// Default false.
	// +optional
	// +kubebuilder:default=false
	Enabled bool `json:"enabled,omitempty"`

	// port the gateway serves /metrics on (TELEMETRY_METRICS_PORT), 1024 to 65535. Default 9464.
	// +optional
	// +kubebuilder:default=9464
	// +kubebuilder:validation:Minimum=1024
	// +kubebuilder:validation:Maximum=65535
	Port int32 `json:"port,omitempty"`

	// exporter is accepted by upstream's schema for Agents only. The gateway exports no
	// metrics: setting it is rejected.
	// +optional
	Exporter *MetricsExporterSpec `json:"exporter,omitempty"`

	// serviceMonitor is the Prometheus operator's ServiceMonitor for the metrics port, named
	// like the Gateway. Upstream creates none; this operator creates one when metrics are
	// enabled, unless told not to. Unset, it is created where the ServiceMonitor CRD exists and
	// no ServiceMonitor of that name is someone else's (either is only noted on Degraded=False:
	// yours is left alone and nothing scrapes the pods twice through the operator).
	// +optional
	ServiceMonitor *ServiceMonitorSpec `json:"serviceMonitor,omitempty"`
}

// ServiceMonitorSpec turns the gateway's ServiceMonitor on or off.
type ServiceMonitorSpec struct {
	// enabled: true requires the ServiceMonitor (without its CRD, or with a ServiceMonitor of
	// the Gateway's name that the operator did not create, the Gateway is Degraded); false
	// creates none and deletes the one the operator created (use it when you scrape the gateway
	// with a ServiceMonitor or PodMonitor of your own). Unset, see serviceMonitor.
	// +optional
	Enabled *bool `json:"enabled,omitempty"`
}

// TracesSpec is the tracing signal.
type TracesSpec struct {
	// exporter is where spans go. Unset, no traces.
	// +optional
	Exporter *TracesExporterSpec `json:"exporter,omitempty"`
}

// TracesExporterSpec selects the traces exporter; OTLP is the only one.
//
// +kubebuilder:validation:XValidation:rule="!has(self.otlp) || !has(self.otlp.protocol) || self.otlp.protocol != 'grpc'",fieldPath=".otlp.protocol",message="spec.telemetry.traces.exporter.otlp.protocol grpc is not supported: the gateway exports traces over OTLP/HTTP only; use http/protobuf or leave it unset"
type TracesExporterSpec struct {
	// otlp pushes spans to an OpenTelemetry collector over OTLP/HTTP.
	// +optional
	OTLP *OTLPExporterSpec `json:"otlp,omitempty"`
}

// OTLP wire protocols of OTLPExporterSpec.Protocol.
const (
	OTLPProtocolGRPC         = "grpc"
	OTLPProtocolHTTPProtobuf = "http/protobuf"
)

// OTLPExporterSpec is an OTLP push exporter.
type OTLPExporterSpec struct {
	// endpoint is the collector's base URL, for example http://otel-collector:4318
	// (TELEMETRY_TRACING_OTLP_ENDPOINT; the gateway appends /v1/traces). Unset, the gateway's
	// default http://localhost:4318.
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:Pattern=`^https?://.+$`
	Endpoint string `json:"endpoint,omitempty"`

	// protocol is the OTLP wire protocol. The gateway speaks http/protobuf only; grpc is in the
	// enum for upstream's Agent and is rejected for traces.
	// +optional
	// +kubebuilder:validation:Enum=grpc;http/protobuf
	Protocol string `json:"protocol,omitempty"`
}

// MetricsExporterSpec is upstream's metrics exporter of the Agent; the gateway rejects it.
type MetricsExporterSpec struct {
	// otlp would push metrics over OTLP.
	// +optional
	OTLP *OTLPExporterSpec `json:"otlp,omitempty"`

	// prometheus would serve a scrape endpoint.
	// +optional
	Prometheus *PrometheusExporterSpec `json:"prometheus,omitempty"`
}

// PrometheusExporterSpec is a Prometheus scrape endpoint of upstream's Agent.
type PrometheusExporterSpec struct {
	// host the endpoint binds to.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Host string `json:"host,omitempty"`

	// port the endpoint listens on, 1024 to 65535.
	// +optional
	// +kubebuilder:validation:Minimum=1024
	// +kubebuilder:validation:Maximum=65535
	Port int32 `json:"port,omitempty"`
}

// ReceiverSpec is upstream's OTLP receiver of the Orchestrator; the gateway has none.
//
// +kubebuilder:validation:XValidation:rule="!self.enabled",fieldPath=".enabled",reason="FieldValueForbidden",message="spec.telemetry.receiver is not supported: the gateway has no OTLP receiver (it is upstream's Orchestrator's); remove it or set enabled: false"
type ReceiverSpec struct {
	// enabled must be false: the gateway has no OTLP receiver. Default false.
	// +optional
	// +kubebuilder:default=false
	Enabled bool `json:"enabled,omitempty"`

	// port has no effect. Default 4318.
	// +optional
	// +kubebuilder:default=4318
	// +kubebuilder:validation:Minimum=1024
	// +kubebuilder:validation:Maximum=65535
	Port int32 `json:"port,omitempty"`
}

// ServerSpec is the gateway's HTTP server.
//
// +kubebuilder:validation:XValidation:rule="!has(self.tls) || !self.tls.enabled || !has(self.host) || self.host in ['0.0.0.0', '::']",fieldPath=".host",message="spec.server.tls.enabled needs spec.server.host 0.0.0.0 or :: (every interface): with TLS the gateway calls itself at its Service's name, <gateway>.<namespace>.svc, which its pod resolves to host"
type ServerSpec struct {
	// host is the address the gateway listens on (SERVER_HOST). Default 0.0.0.0 (all
	// interfaces); a loopback address would make the gateway unreachable from its Service. With
	// tls it must be 0.0.0.0 or ::, and SERVER_HOST is the Service's name instead (see tls).
	// +optional
	// +kubebuilder:default="0.0.0.0"
	// +kubebuilder:validation:MaxLength=253
	Host string `json:"host,omitempty"`

	// port the gateway listens on (SERVER_PORT, the container port named http and the probes'
	// port), 1024 to 65535. Default 8080.
	// +optional
	// +kubebuilder:default=8080
	// +kubebuilder:validation:Minimum=1024
	// +kubebuilder:validation:Maximum=65535
	Port int32 `json:"port,omitempty"`

	// timeouts of the HTTP server.
	// +optional
	Timeouts *ServerTimeouts `json:"timeouts,omitempty"`

	// tls makes the gateway serve HTTPS on port with the certificate and key of two Secrets.
	// +optional
	TLS *TLSConfig `json:"tls,omitempty"`
}

// ServerTimeouts are the HTTP server's timeouts, each a duration such as 500ms, 60s or 5m.
type ServerTimeouts struct {
	// read is the longest time to read a request, body included (SERVER_READ_TIMEOUT). Default
	// 60s.
	// +optional
	// +kubebuilder:default="60s"
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`
	Read string `json:"read,omitempty"`

	// write is the longest time to write a response (SERVER_WRITE_TIMEOUT); a streamed
	// completion that takes longer is cut off. Default 60s.
	// +optional
	// +kubebuilder:default="60s"
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`
	Write string `json:"write,omitempty"`

	// idle is how long an idle keep-alive connection stays open (SERVER_IDLE_TIMEOUT). Default
	// 300s.
	// +optional
	// +kubebuilder:default="300s"
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`
	Idle string `json:"idle,omitempty"`
}

// TLSConfig is HTTPS for the gateway's own server.
//
// +kubebuilder:validation:XValidation:rule="!self.enabled || (has(self.certificateRef) && has(self.keyRef))",message="spec.server.tls.enabled needs certificateRef and keyRef: the gateway serves HTTPS only with both a certificate and a key"
// +kubebuilder:validation:XValidation:rule="(!has(self.certificateRef) || size(self.certificateRef.name) > 0) && (!has(self.keyRef) || size(self.keyRef.name) > 0)",message="spec.server.tls.certificateRef and keyRef must each name a Secret in the Gateway's namespace"
type TLSConfig struct {
	// enabled makes the gateway serve HTTPS on server.port: the operator mounts certificateRef
	// and keyRef and sets SERVER_TLS_CERT_PATH and SERVER_TLS_KEY_PATH, and the probes use
	// HTTPS. The gateway calls itself over HTTPS for every provider request, at
	// <gateway>.<namespace>.svc (SERVER_HOST, resolved to server.host inside the pod) and
	// trusting the mounted certificate (SSL_CERT_DIR): the certificate must be valid for that
	// name, or the Gateway is Degraded (ServerCertificateInvalid). The Service's port gets
	// appProtocol https, an Ingress the annotations that make common controllers speak HTTPS to
	// it, and a Gateway API route a BackendTLSPolicy. Default false.
	// +optional
	// +kubebuilder:default=false
	Enabled bool `json:"enabled,omitempty"`

	// certificateRef is the key of a Secret in the Gateway's namespace holding the PEM
	// certificate chain (for example tls.crt of a kubernetes.io/tls Secret).
	// +optional
	CertificateRef *corev1.SecretKeySelector `json:"certificateRef,omitempty"`

	// keyRef is the key of a Secret in the Gateway's namespace holding the PEM private key (for
	// example tls.key).
	// +optional
	KeyRef *corev1.SecretKeySelector `json:"keyRef,omitempty"`
}

// Authentication providers of AuthSpec.Provider.
const (
	AuthProviderOIDC  = "oidc"
	AuthProviderJWT   = "jwt"
	AuthProviderBasic = "basic"
)

// AuthSpec is the gateway's authentication of API requests.
//
// +kubebuilder:validation:XValidation:rule="self.provider == 'oidc'",fieldPath=".provider",message="spec.auth.provider must be oidc: the gateway verifies OIDC tokens only and has no jwt or basic authentication"
// +kubebuilder:validation:XValidation:rule="!self.enabled || has(self.oidc)",fieldPath=".oidc",reason="FieldValueRequired",message="spec.auth.enabled needs spec.auth.oidc: the gateway checks bearer tokens against an OIDC issuer (issuerUrl, clientId)"
type AuthSpec struct {
	// enabled makes the gateway reject API requests without a valid OIDC bearer token
	// (AUTH_ENABLED). /health stays open. Default false.
	// +optional
	// +kubebuilder:default=false
	Enabled bool `json:"enabled,omitempty"`

	// provider must be oidc, the only authentication the gateway has. jwt and basic, in
	// upstream's enum, are rejected. Default oidc.
	// +optional
	// +kubebuilder:default="oidc"
	// +kubebuilder:validation:Enum=oidc;jwt;basic
	Provider string `json:"provider,omitempty"`

	// oidc is the issuer that signs the tokens.
	// +optional
	OIDC *OIDCSpec `json:"oidc,omitempty"`
}

// OIDCSpec is the OIDC issuer the gateway checks tokens against.
//
// +kubebuilder:validation:XValidation:rule="(!has(self.clientSecretRef) || size(self.clientSecretRef.name) > 0) && (!has(self.caCertRef) || size(self.caCertRef.name) > 0)",message="spec.auth.oidc.clientSecretRef and caCertRef must each name an object in the Gateway's namespace"
type OIDCSpec struct {
	// issuerUrl is the issuer's URL (AUTH_OIDC_ISSUER); the gateway reads its discovery document
	// at start-up and exits if it cannot. Default
	// http://keycloak:8080/realms/inference-gateway-realm.
	// +optional
	// +kubebuilder:default="http://keycloak:8080/realms/inference-gateway-realm"
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:Pattern=`^https?://.+$`
	IssuerURL string `json:"issuerUrl,omitempty"`

	// clientId is the OIDC client whose ID tokens are accepted (AUTH_OIDC_CLIENT_ID). Default
	// inference-gateway-client.
	// +optional
	// +kubebuilder:default="inference-gateway-client"
	// +kubebuilder:validation:MaxLength=253
	ClientID string `json:"clientId,omitempty"`

	// clientSecretRef is the key of a Secret in the Gateway's namespace holding the client
	// secret (AUTH_OIDC_CLIENT_SECRET).
	// +optional
	ClientSecretRef *corev1.SecretKeySelector `json:"clientSecretRef,omitempty"`

	// caCertRef is the key of a ConfigMap in the Gateway's namespace holding the PEM CA
	// certificate of the issuer's TLS endpoint, for an issuer with a private CA; the operator
	// mounts it and points SSL_CERT_FILE at it.
	// +optional
	CACertRef *corev1.ConfigMapKeySelector `json:"caCertRef,omitempty"`
}

// ProviderSpec is one LLM provider.
//
// +kubebuilder:validation:XValidation:rule="!has(self.env) || self.env.all(e, !(e.name in ['ENVIRONMENT', 'SSL_CERT_FILE', 'SSL_CERT_DIR', 'SERVER_HOST', 'SERVER_PORT', 'SERVER_READ_TIMEOUT', 'SERVER_WRITE_TIMEOUT', 'SERVER_IDLE_TIMEOUT', 'SERVER_TLS_CERT_PATH', 'SERVER_TLS_KEY_PATH', 'TELEMETRY_ENABLED', 'TELEMETRY_METRICS_PORT', 'TELEMETRY_TRACING_ENABLED', 'TELEMETRY_TRACING_OTLP_ENDPOINT', 'AUTH_ENABLED', 'AUTH_OIDC_ISSUER', 'AUTH_OIDC_CLIENT_ID', 'AUTH_OIDC_CLIENT_SECRET', 'MCP_ENABLED', 'MCP_EXPOSE', 'MCP_TOOL_MODE', 'MCP_SERVERS', 'MCP_CLIENT_TIMEOUT', 'MCP_DIAL_TIMEOUT', 'MCP_TLS_HANDSHAKE_TIMEOUT', 'MCP_RESPONSE_HEADER_TIMEOUT', 'MCP_REQUEST_TIMEOUT', 'ROUTING_ENABLED', 'ROUTING_CONFIG_PATH', 'GUARDRAILS_ENABLED', 'GUARDRAILS_POLICY_DIR', 'GUARDRAILS_FAIL_MODE', 'GUARDRAILS_EXTERNAL_URL', 'GUARDRAILS_EXTERNAL_TIMEOUT']))",fieldPath=".env",message="spec.providers[].env must not set a variable the operator derives from the spec (see ManagedEnv: ENVIRONMENT, SSL_CERT_FILE, SSL_CERT_DIR and the SERVER_, TELEMETRY_, AUTH_, MCP_, ROUTING_ and GUARDRAILS_ settings the spec has fields for): set the spec field instead"
type ProviderSpec struct {
	// name of the provider, for example openai, anthropic or ollama (case does not matter). It
	// is only reported in status.providerSummary: what configures the provider is env.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// enabled adds env to the gateway's container. Default true.
	// +optional
	// +kubebuilder:default=true
	Enabled bool `json:"enabled,omitempty"`

	// env are environment variables for the gateway's container, usually <PROVIDER>_API_KEY
	// (from a Secret) and <PROVIDER>_API_URL. Any gateway setting without a spec field (for
	// example ALLOWED_MODELS or MCP_INCLUDE_TOOLS) can be set here too; a setting the spec has a
	// field for cannot. A variable set twice among the enabled providers is reported (Degraded,
	// ValidationFailed) and not deployed.
	// +optional
	// +kubebuilder:validation:MaxItems=128
	Env []corev1.EnvVar `json:"env,omitempty"`
}

// ManagedEnv are the gateway's environment variables the operator derives from the spec.
// spec.providers[].env may not set them: the CRD rejects them, so a provider's env can neither
// override nor be overridden by the spec. The ProviderSpec rule lists the same names; the
// package's tests keep the two equal.
var ManagedEnv = []string{
	"ENVIRONMENT", "SSL_CERT_FILE", "SSL_CERT_DIR",
	"SERVER_HOST", "SERVER_PORT", "SERVER_READ_TIMEOUT", "SERVER_WRITE_TIMEOUT", "SERVER_IDLE_TIMEOUT",
	"SERVER_TLS_CERT_PATH", "SERVER_TLS_KEY_PATH",
	"TELEMETRY_ENABLED", "TELEMETRY_METRICS_PORT", "TELEMETRY_TRACING_ENABLED", "TELEMETRY_TRACING_OTLP_ENDPOINT",
	"AUTH_ENABLED", "AUTH_OIDC_ISSUER", "AUTH_OIDC_CLIENT_ID", "AUTH_OIDC_CLIENT_SECRET",
	"MCP_ENABLED", "MCP_EXPOSE", "MCP_TOOL_MODE", "MCP_SERVERS", "MCP_CLIENT_TIMEOUT", "MCP_DIAL_TIMEOUT",
	"MCP_TLS_HANDSHAKE_TIMEOUT", "MCP_RESPONSE_HEADER_TIMEOUT", "MCP_REQUEST_TIMEOUT",
	"ROUTING_ENABLED", "ROUTING_CONFIG_PATH",
	"GUARDRAILS_ENABLED", "GUARDRAILS_POLICY_DIR", "GUARDRAILS_FAIL_MODE", "GUARDRAILS_EXTERNAL_URL", "GUARDRAILS_EXTERNAL_TIMEOUT",
}

// MCP tool modes of MCPServersSpec.ToolMode.
const (
	MCPToolModeSelector = "selector"
	MCPToolModeDirect   = "direct"
)

// MCPServersSpec is the gateway's use of MCP servers.
type MCPServersSpec struct {
	// enabled lets the gateway call MCP tools (MCP_ENABLED, MCP_SERVERS and the timeouts).
	// Default false.
	// +optional
	// +kubebuilder:default=false
	Enabled bool `json:"enabled,omitempty"`

	// expose also serves the MCP tools to clients: GET /v1/mcp/tools and POST /mcp
	// (MCP_EXPOSE). Default false.
	// +optional
	// +kubebuilder:default=false
	Expose bool `json:"expose,omitempty"`

	// toolMode is how tools reach the model (MCP_TOOL_MODE): selector (the default) adds two
	// meta-tools that find and run tools; direct adds every tool's schema to every request.
	// +optional
	// +kubebuilder:default=selector
	// +kubebuilder:validation:Enum=selector;direct
	ToolMode string `json:"toolMode,omitempty"`

	// timeouts of the gateway's MCP client.
	// +optional
	Timeouts *MCPTimeouts `json:"timeouts,omitempty"`

	// servers are MCP servers by URL, typically outside the cluster. They are merged with the
	// discovered ones, without duplicate URLs.
	// +optional
	// +kubebuilder:validation:MaxItems=64
	Servers []MCPServer `json:"servers,omitempty"`

	// serviceDiscovery adds the URL of every MCP object that matches a label selector.
	// +optional
	ServiceDiscovery *MCPServiceDiscoverySpec `json:"serviceDiscovery,omitempty"`
}

// MCPServiceDiscoverySpec selects MCP objects whose status.url the gateway uses.
// +kubebuilder:validation:XValidation:rule="!has(self.selector) || !has(self.selector.matchExpressions) || self.selector.matchExpressions.all(e, e.operator in ['In', 'NotIn'] ? (has(e.values) && size(e.values) > 0) : (e.operator in ['Exists', 'DoesNotExist'] && (!has(e.values) || size(e.values) == 0)))",fieldPath=".selector",message="spec.mcp.serviceDiscovery.selector.matchExpressions: operator In and NotIn need values, Exists and DoesNotExist take none"
type MCPServiceDiscoverySpec struct {
	// enabled turns discovery on.
	// +required
	Enabled bool `json:"enabled"`

	// namespace the MCP objects are in. Unset, the Gateway's namespace. Another namespace
	// must consent: its MCPs are used only while a Gateway API ReferenceGrant there allows
	// Gateways of this namespace to reference them (from group core.inference-gateway.com,
	// kind Gateway, this namespace; to group core.inference-gateway.com, kind MCP); the others
	// are skipped and named in the Degraded condition. Without the ReferenceGrant CRD,
	// discovery in another namespace is off.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Namespace string `json:"namespace,omitempty"`

	// selector matches the labels of the MCP objects. Unset or empty, every MCP object of the
	// namespace.
	// +optional
	Selector *metav1.LabelSelector `json:"selector,omitempty"`
}

// MCPTimeouts are the gateway's MCP client timeouts, each a duration such as 500ms, 10s or 1m.
// Unset while timeouts is set, the defaults below; timeouts unset, the gateway's own defaults.
type MCPTimeouts struct {
	// client is the overall timeout of a call to an MCP server (MCP_CLIENT_TIMEOUT). Default
	// 10s.
	// +optional
	// +kubebuilder:default="10s"
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`
	Client string `json:"client,omitempty"`

	// dial is the connection timeout (MCP_DIAL_TIMEOUT). Default 5s.
	// +optional
	// +kubebuilder:default="5s"
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`
	Dial string `json:"dial,omitempty"`

	// tlsHandshake is the TLS handshake timeout (MCP_TLS_HANDSHAKE_TIMEOUT). Default 5s.
	// +optional
	// +kubebuilder:default="5s"
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`
	TLSHandshake string `json:"tlsHandshake,omitempty"`

	// responseHeader is the time to wait for a response's headers
	// (MCP_RESPONSE_HEADER_TIMEOUT). Default 5s.
	// +optional
	// +kubebuilder:default="5s"
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`
	ResponseHeader string `json:"responseHeader,omitempty"`

	// request is the timeout of one MCP request (MCP_REQUEST_TIMEOUT). Default 10s.
	// +optional
	// +kubebuilder:default="10s"
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`
	Request string `json:"request,omitempty"`
}

// MCPServer is an MCP server the gateway calls.
type MCPServer struct {
	// name of the server, for people.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// url of the server's MCP endpoint, http or https, without white space or a comma: the
	// gateway gets every server's URL in MCP_SERVERS, comma-separated.
	// +required
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:Pattern=`^https?://[^\s,]+$`
	URL string `json:"url"`

	// healthCheck is upstream's per-server health check, which the gateway does not have: it
	// polls every MCP server itself (MCP_POLLING_*). Only enabled: false is accepted.
	// +optional
	HealthCheck *HealthCheck `json:"healthCheck,omitempty"`
}

// HealthCheck is a per-server health check; the gateway has none.
//
// +kubebuilder:validation:XValidation:rule="!self.enabled",fieldPath=".enabled",reason="FieldValueForbidden",message="spec.mcp.servers[].healthCheck is not supported: the gateway has no per-server health check (it polls every MCP server itself); remove healthCheck or set enabled: false"
type HealthCheck struct {
	// enabled must be false. Default true (so a healthCheck block must say enabled: false).
	// +optional
	// +kubebuilder:default=true
	Enabled bool `json:"enabled,omitempty"`

	// path has no effect. Default /health.
	// +optional
	// +kubebuilder:default="/health"
	// +kubebuilder:validation:MaxLength=2048
	Path string `json:"path,omitempty"`

	// interval has no effect. Default 30s.
	// +optional
	// +kubebuilder:default="30s"
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`
	Interval string `json:"interval,omitempty"`
}

// Defaults of the gateway container's resources, for each value spec.resources leaves unset.
const (
	DefaultCPURequest    = "100m"
	DefaultMemoryRequest = "256Mi"
	DefaultCPULimit      = "2"
	DefaultMemoryLimit   = "1Gi"
)

// ResourceRequirements are the gateway container's requests and limits, as quantity strings.
//
// +kubebuilder:validation:XValidation:rule="!isQuantity(has(self.requests) && has(self.requests.cpu) ? self.requests.cpu : '100m') || !isQuantity(has(self.limits) && has(self.limits.cpu) ? self.limits.cpu : '2') || quantity(has(self.requests) && has(self.requests.cpu) ? self.requests.cpu : '100m').compareTo(quantity(has(self.limits) && has(self.limits.cpu) ? self.limits.cpu : '2')) <= 0",fieldPath=".requests",message="spec.resources.requests.cpu must not exceed spec.resources.limits.cpu (unset, the request is 100m and the limit 2)"
// +kubebuilder:validation:XValidation:rule="!isQuantity(has(self.requests) && has(self.requests.memory) ? self.requests.memory : '256Mi') || !isQuantity(has(self.limits) && has(self.limits.memory) ? self.limits.memory : '1Gi') || quantity(has(self.requests) && has(self.requests.memory) ? self.requests.memory : '256Mi').compareTo(quantity(has(self.limits) && has(self.limits.memory) ? self.limits.memory : '1Gi')) <= 0",fieldPath=".requests",message="spec.resources.requests.memory must not exceed spec.resources.limits.memory (unset, the request is 256Mi and the limit 1Gi)"
type ResourceRequirements struct {
	// requests are the CPU and memory the scheduler reserves for the container.
	// +optional
	Requests *ResourceList `json:"requests,omitempty"`

	// limits are the most CPU and memory the container may use.
	// +optional
	Limits *ResourceList `json:"limits,omitempty"`
}

// ResourceList is CPU and memory as Kubernetes quantities.
type ResourceList struct {
	// cpu, for example 500m or 2.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$`
	CPU string `json:"cpu,omitempty"`

	// memory, for example 512Mi or 2Gi.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$`
	Memory string `json:"memory,omitempty"`
}

// ServiceAccountSpec is the ServiceAccount of the gateway's pods.
type ServiceAccountSpec struct {
	// create makes the operator create the ServiceAccount. false uses an existing one. Default
	// true.
	// +optional
	// +kubebuilder:default=true
	Create bool `json:"create,omitempty"`

	// name of the ServiceAccount. Unset, the Gateway's name.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Name string `json:"name,omitempty"`
}

// ModelRoutingSpec is the gateway's model routing: a YAML document mapping model aliases to
// pools of provider/model deployments, served round-robin.
//
// +kubebuilder:validation:XValidation:rule="!(has(self.config) && size(self.config) > 0 && has(self.configMapRef))",message="spec.routing.config and spec.routing.configMapRef are mutually exclusive: keep one"
// +kubebuilder:validation:XValidation:rule="!self.enabled || (has(self.config) && size(self.config) > 0) || has(self.configMapRef)",message="spec.routing.enabled needs spec.routing.config or spec.routing.configMapRef: the gateway exits without a routing configuration (the Gateway API settings spec.routing held before upstream's 0.21.0 are now spec.gatewayAPI)"
// +kubebuilder:validation:XValidation:rule="!has(self.configMapRef) || size(self.configMapRef.name) > 0",fieldPath=".configMapRef.name",reason="FieldValueRequired",message="spec.routing.configMapRef.name must name a ConfigMap in the Gateway's namespace"
type ModelRoutingSpec struct {
	// enabled turns model routing on (ROUTING_ENABLED, ROUTING_CONFIG_PATH); it needs config or
	// configMapRef. Default false.
	// +optional
	// +kubebuilder:default=false
	Enabled bool `json:"enabled,omitempty"`

	// config is the routing YAML (a models: map of aliases to deployments), stored by the
	// operator in the ConfigMap <gateway>-routing. Mutually exclusive with configMapRef.
	// +optional
	// +kubebuilder:validation:MaxLength=262144
	Config string `json:"config,omitempty"`

	// configMapRef is the key of an existing ConfigMap in the Gateway's namespace holding the
	// routing YAML. Mutually exclusive with config.
	// +optional
	ConfigMapRef *corev1.ConfigMapKeySelector `json:"configMapRef,omitempty"`
}

// Guardrails fail modes of GuardrailsSpec.FailMode: upstream's deny and allow, and the gateway's
// own closed and open.
const (
	GuardrailsFailModeDeny   = "deny"
	GuardrailsFailModeAllow  = "allow"
	GuardrailsFailModeClosed = "closed"
	GuardrailsFailModeOpen   = "open"
)

// GatewayFailMode is the gateway's GUARDRAILS_FAIL_MODE for a spec.guardrails.failMode: deny and
// closed (and unset) are closed, allow and open are open. The gateway knows only closed and open
// and treats any other value as open, so passing upstream's deny through, as upstream did, made
// the default fail open.
func GatewayFailMode(failMode string) string {
	switch failMode {
	case GuardrailsFailModeAllow, GuardrailsFailModeOpen:
		return GuardrailsFailModeOpen
	default:
		return GuardrailsFailModeClosed
	}
}

// GuardrailsSpec is the gateway's policy enforcement.
//
// +kubebuilder:validation:XValidation:rule="!self.enabled || has(self.configMapRef) || (has(self.externalUrl) && size(self.externalUrl) > 0)",message="spec.guardrails.enabled needs policies: set configMapRef (a ConfigMap of .rego files) or externalUrl; with neither the gateway allows every request"
// +kubebuilder:validation:XValidation:rule="!has(self.configMapRef) || size(self.configMapRef.name) > 0",fieldPath=".configMapRef.name",reason="FieldValueRequired",message="spec.guardrails.configMapRef.name must name a ConfigMap in the Gateway's namespace"
type GuardrailsSpec struct {
	// enabled checks every request against the policies (GUARDRAILS_ENABLED); it needs
	// configMapRef or externalUrl. Default false.
	// +optional
	// +kubebuilder:default=false
	Enabled bool `json:"enabled,omitempty"`

	// failMode is what happens to a request when a policy cannot be evaluated
	// (GUARDRAILS_FAIL_MODE): deny (the default) or closed rejects it, allow or open lets it
	// through. deny and allow are upstream's words; the gateway's are closed and open.
	// +optional
	// +kubebuilder:default="deny"
	// +kubebuilder:validation:Enum=deny;allow;closed;open
	FailMode string `json:"failMode,omitempty"`

	// externalUrl is an external policy service that evaluates every request
	// (GUARDRAILS_EXTERNAL_URL).
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:Pattern=`^https?://.+$`
	ExternalURL string `json:"externalUrl,omitempty"`

	// externalTimeout is the timeout of a call to externalUrl (GUARDRAILS_EXTERNAL_TIMEOUT), a
	// duration such as 500ms or 5s. Default 5s.
	// +optional
	// +kubebuilder:default="5s"
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`
	ExternalTimeout string `json:"externalTimeout,omitempty"`

	// configMapRef is a ConfigMap in the Gateway's namespace whose .rego files are the
	// policies, mounted at GUARDRAILS_POLICY_DIR.
	// +optional
	ConfigMapRef *corev1.LocalObjectReference `json:"configMapRef,omitempty"`
}
