package inferencegateway

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
)

// The gateway's environment contract (gateway v0.48.x, config/config.go): the gateway is
// configured through environment variables only, plus the routing file and the guardrails
// policies it finds at the paths they name. gatewayEnv builds the container's env from a
// Gateway's spec:
//
//	variable                        source field                                     emitted when
//	(providers' env)                spec.providers[].env, verbatim                   the provider is enabled
//	ENVIRONMENT                     spec.environment (production)                    always
//	SERVER_HOST                     spec.server.host (0.0.0.0)                       server TLS off
//	SERVER_HOST                     <gateway>.<namespace>.svc (the Service's name)   server TLS on (see below)
//	SERVER_PORT                     spec.server.port (8080)                          always
//	SERVER_READ_TIMEOUT             spec.server.timeouts.read (60s)                  always
//	SERVER_WRITE_TIMEOUT            spec.server.timeouts.write (60s)                 always
//	SERVER_IDLE_TIMEOUT             spec.server.timeouts.idle (300s)                 always
//	SERVER_TLS_CERT_PATH            /app/tls/tls.crt                                 spec.server.tls.enabled
//	SERVER_TLS_KEY_PATH             /app/tls/tls.key                                 spec.server.tls.enabled
//	SSL_CERT_DIR                    the system's directories and /app/tls            spec.server.tls.enabled
//	TELEMETRY_ENABLED               spec.telemetry.enabled                           always
//	TELEMETRY_METRICS_PORT          spec.telemetry.metrics.port (9464)               telemetry enabled
//	TELEMETRY_TRACING_ENABLED       "true"                                           telemetry enabled, traces...otlp set
//	TELEMETRY_TRACING_OTLP_ENDPOINT ...traces.exporter.otlp.endpoint                 same, endpoint set
//	AUTH_ENABLED                    spec.auth.enabled                                always
//	AUTH_OIDC_ISSUER                spec.auth.oidc.issuerUrl                         auth enabled with oidc
//	AUTH_OIDC_CLIENT_ID             spec.auth.oidc.clientId                          auth enabled with oidc
//	AUTH_OIDC_CLIENT_SECRET         spec.auth.oidc.clientSecretRef (a Secret)        same, clientSecretRef set
//	SSL_CERT_FILE                   the mounted spec.auth.oidc.caCertRef             same, caCertRef set
//	MCP_ENABLED                     "true"                                           spec.mcp.enabled
//	MCP_EXPOSE                      spec.mcp.expose                                  MCP enabled
//	MCP_TOOL_MODE                   spec.mcp.toolMode (selector)                     MCP enabled
//	MCP_SERVERS                     static and discovered server URLs                MCP enabled (may be "")
//	MCP_CLIENT_TIMEOUT              spec.mcp.timeouts.client                         MCP enabled
//	MCP_DIAL_TIMEOUT                spec.mcp.timeouts.dial                           MCP enabled
//	MCP_TLS_HANDSHAKE_TIMEOUT       spec.mcp.timeouts.tlsHandshake                   MCP enabled
//	MCP_RESPONSE_HEADER_TIMEOUT     spec.mcp.timeouts.responseHeader                 MCP enabled
//	MCP_REQUEST_TIMEOUT             spec.mcp.timeouts.request                        MCP enabled
//	ROUTING_ENABLED                 "true"                                           routing enabled, with config or configMapRef
//	ROUTING_CONFIG_PATH             the mounted routing file                         same
//	GUARDRAILS_ENABLED              "true"                                           spec.guardrails.enabled
//	GUARDRAILS_POLICY_DIR           the mounted configMapRef                         guardrails enabled, configMapRef set
//	GUARDRAILS_FAIL_MODE            spec.guardrails.failMode, deny→closed allow→open guardrails enabled
//	GUARDRAILS_EXTERNAL_URL         spec.guardrails.externalUrl                      guardrails enabled, externalUrl set
//	GUARDRAILS_EXTERNAL_TIMEOUT     spec.guardrails.externalTimeout (5s)             same
//
// MCP timeouts: with spec.mcp.timeouts unset, the gateway's own defaults (client 5s, the others
// 3s, request 5s), which are also upstream's; with it set, each unset field takes the API's
// default (client 10s, dial, tlsHandshake and responseHeader 5s, request 10s).
//
// Server TLS. The gateway calls itself for every provider request (/v1/models, chat
// completions: https://SERVER_HOST:SERVER_PORT/proxy/<provider>/..., cmd/gateway/main.go and
// providers/client), with a client that verifies the certificate against the system's roots and
// SERVER_HOST as the name. SERVER_HOST is also the address it listens on, so 0.0.0.0 cannot be
// both: no certificate is valid for 0.0.0.0. With TLS the operator therefore sets SERVER_HOST to
// the Service's name, <gateway>.<namespace>.svc, which a serving certificate for the Service
// names, and gives the pod a host alias (/etc/hosts) that resolves that name to spec.server.host
// (0.0.0.0 or ::, which the API requires with TLS): the gateway listens on every interface, as
// without TLS, and calls itself on the same name its certificate is for. SSL_CERT_DIR adds the
// mounted certificate to the trusted roots (Go trusts a certificate found among the roots,
// whoever issued it), keeping the system's directories (Go's defaults on Linux) for public
// providers; SSL_CERT_FILE stays free for the OIDC issuer's CA. The controller checks that the
// certificate is valid for the name (ReasonServerCertificateInvalid).
//
// Fixed against upstream (reference §7): SERVER_HOST and SERVER_PORT are set, so the gateway
// listens where the container port, the probes and the Service point (§7.2, §7.17); the server
// timeouts are passed (§7.4); TLS is served with the referenced certificate (§7.5);
// TELEMETRY_METRICS_PORT follows the declared metrics port (§7.3); MCP_REQUEST_TIMEOUT is passed
// (§7.4); guardrails fail closed by default (§7.1: the gateway knows only closed and open and
// takes anything else for open); ROUTING_ENABLED needs a config source, without which the
// gateway exits (§7.10); GUARDRAILS_POLICY_DIR names only a directory that is mounted.

// Paths in the gateway's container.
const (
	routingDir       = "/etc/inference-gateway/routing"
	routingInlineKey = "routing.yaml"
	guardrailsDir    = "/etc/inference-gateway/guardrails"
	oidcCAPath       = "/usr/local/share/ca-certificates/oidc-ca.crt"
	tlsDir           = "/app/tls"
	tlsCertFile      = "tls.crt"
	tlsKeyFile       = "tls.key"
)

// systemCertDirs are the directories Go reads trusted roots from on Linux when SSL_CERT_DIR is
// unset (crypto/x509, root_linux.go); SSL_CERT_DIR replaces them, so it lists them again.
var systemCertDirs = []string{"/etc/ssl/certs", "/etc/pki/tls/certs"}

// Defaults for fields a CR leaves unset: the API's defaults (an object the API server stored
// has them), so that rendering means the same with or without them.
const (
	defaultImage                 = "ghcr.io/inference-gateway/inference-gateway:latest"
	defaultServerHost            = "0.0.0.0"
	defaultServerPort      int32 = 8080
	defaultReadTimeout           = "60s"
	defaultWriteTimeout          = "60s"
	defaultIdleTimeout           = "300s"
	defaultMetricsPort           = int32(9464)
	defaultOIDCIssuer            = "http://keycloak:8080/realms/inference-gateway-realm"
	defaultOIDCClientID          = "inference-gateway-client"
	defaultExternalTimeout       = "5s"
)

// mcpTimeouts are the five MCP client timeouts in the order of their variables.
type mcpTimeouts struct{ client, dial, tlsHandshake, responseHeader, request string }

var (
	// gatewayMCPTimeouts are the gateway's own defaults, used when spec.mcp.timeouts is unset.
	gatewayMCPTimeouts = mcpTimeouts{"5s", "3s", "3s", "3s", "5s"}
	// apiMCPTimeouts are the API's defaults of each field of a set spec.mcp.timeouts.
	apiMCPTimeouts = mcpTimeouts{"10s", "5s", "5s", "5s", "10s"}
)

// gatewayEnv is the gateway container's env: the providers' env first, then every variable the
// operator derives from the spec. The order is what keeps authentication in the operator's
// hands: Kubernetes gives a container the last of two same-named variables, so a provider's
// env (free text) can never override AUTH_ENABLED or anything else the operator sets. (The CRD
// also rejects provider variables of those names; an object stored before that rule still
// cannot win.)
func gatewayEnv(spec *v1alpha1.GatewaySpec, names Names, mcpServers []string) []corev1.EnvVar {
	return append(providerEnv(spec), managedEnv(spec, names, mcpServers)...)
}

// providerEnv is the env of every enabled provider, in list order, copied.
func providerEnv(spec *v1alpha1.GatewaySpec) []corev1.EnvVar {
	var env []corev1.EnvVar
	for _, p := range spec.Providers {
		if !p.Enabled {
			continue
		}
		for i := range p.Env {
			env = append(env, *p.Env[i].DeepCopy())
		}
	}
	return env
}

// managedEnv is every variable the operator derives from the spec (the table above); names
// gives the Service's name, which SERVER_HOST is with server TLS.
func managedEnv(spec *v1alpha1.GatewaySpec, names Names, mcpServers []string) []corev1.EnvVar {
	var env []corev1.EnvVar
	set := func(name, value string) {
		env = append(env, corev1.EnvVar{Name: name, Value: value})
	}

	set("ENVIRONMENT", cmp.Or(spec.Environment, v1alpha1.EnvironmentProduction))

	server := spec.Server
	if server == nil {
		server = &v1alpha1.ServerSpec{}
	}
	timeouts := server.Timeouts
	if timeouts == nil {
		timeouts = &v1alpha1.ServerTimeouts{}
	}
	if serverTLSEnabled(spec) {
		set("SERVER_HOST", names.ServiceHost)
	} else {
		set("SERVER_HOST", listenHost(spec))
	}
	set("SERVER_PORT", portString(serverPort(spec)))
	set("SERVER_READ_TIMEOUT", cmp.Or(timeouts.Read, defaultReadTimeout))
	set("SERVER_WRITE_TIMEOUT", cmp.Or(timeouts.Write, defaultWriteTimeout))
	set("SERVER_IDLE_TIMEOUT", cmp.Or(timeouts.Idle, defaultIdleTimeout))
	if serverTLSEnabled(spec) {
		set("SERVER_TLS_CERT_PATH", tlsDir+"/"+tlsCertFile)
		set("SERVER_TLS_KEY_PATH", tlsDir+"/"+tlsKeyFile)
		set("SSL_CERT_DIR", strings.Join(append(slices.Clone(systemCertDirs), tlsDir), ":"))
	}

	set("TELEMETRY_ENABLED", strconv.FormatBool(telemetryEnabled(spec)))
	if telemetryEnabled(spec) {
		set("TELEMETRY_METRICS_PORT", portString(metricsPort(spec)))
		if otlp := tracesOTLP(spec.Telemetry); otlp != nil {
			set("TELEMETRY_TRACING_ENABLED", "true")
			if otlp.Endpoint != "" {
				set("TELEMETRY_TRACING_OTLP_ENDPOINT", otlp.Endpoint)
			}
		}
	}

	auth := spec.Auth
	set("AUTH_ENABLED", strconv.FormatBool(auth != nil && auth.Enabled))
	if oidc := oidcOf(spec); oidc != nil {
		set("AUTH_OIDC_ISSUER", cmp.Or(oidc.IssuerURL, defaultOIDCIssuer))
		set("AUTH_OIDC_CLIENT_ID", cmp.Or(oidc.ClientID, defaultOIDCClientID))
		if ref := oidc.ClientSecretRef; ref != nil {
			env = append(env, corev1.EnvVar{Name: "AUTH_OIDC_CLIENT_SECRET", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: ref.DeepCopy()}})
		}
		if oidc.CACertRef != nil {
			set("SSL_CERT_FILE", oidcCAPath)
		}
	}

	if mcp := spec.MCP; mcp != nil && mcp.Enabled {
		t := gatewayMCPTimeouts
		if mcp.Timeouts != nil {
			t = mcpTimeouts{
				client:         cmp.Or(mcp.Timeouts.Client, apiMCPTimeouts.client),
				dial:           cmp.Or(mcp.Timeouts.Dial, apiMCPTimeouts.dial),
				tlsHandshake:   cmp.Or(mcp.Timeouts.TLSHandshake, apiMCPTimeouts.tlsHandshake),
				responseHeader: cmp.Or(mcp.Timeouts.ResponseHeader, apiMCPTimeouts.responseHeader),
				request:        cmp.Or(mcp.Timeouts.Request, apiMCPTimeouts.request),
			}
		}
		set("MCP_ENABLED", "true")
		set("MCP_EXPOSE", strconv.FormatBool(mcp.Expose))
		set("MCP_TOOL_MODE", cmp.Or(mcp.ToolMode, v1alpha1.MCPToolModeSelector))
		set("MCP_SERVERS", strings.Join(mcpServers, ","))
		set("MCP_CLIENT_TIMEOUT", t.client)
		set("MCP_DIAL_TIMEOUT", t.dial)
		set("MCP_TLS_HANDSHAKE_TIMEOUT", t.tlsHandshake)
		set("MCP_RESPONSE_HEADER_TIMEOUT", t.responseHeader)
		set("MCP_REQUEST_TIMEOUT", t.request)
	}

	if src := routingSourceOf(spec); src != nil {
		set("ROUTING_ENABLED", "true")
		set("ROUTING_CONFIG_PATH", routingDir+"/"+src.key)
	}

	if g := spec.Guardrails; g != nil && g.Enabled {
		set("GUARDRAILS_ENABLED", "true")
		if g.ConfigMapRef != nil {
			set("GUARDRAILS_POLICY_DIR", guardrailsDir)
		}
		set("GUARDRAILS_FAIL_MODE", v1alpha1.GatewayFailMode(g.FailMode))
		if g.ExternalURL != "" {
			set("GUARDRAILS_EXTERNAL_URL", g.ExternalURL)
			set("GUARDRAILS_EXTERNAL_TIMEOUT", cmp.Or(g.ExternalTimeout, defaultExternalTimeout))
		}
	}
	return env
}

// serverPort is the port the gateway listens on: the container port http, SERVER_PORT and the
// probes' port.
func serverPort(spec *v1alpha1.GatewaySpec) int32 {
	if spec.Server != nil && spec.Server.Port > 0 {
		return spec.Server.Port
	}
	return defaultServerPort
}

// listenHost is the address the gateway listens on: spec.server.host. With server TLS it is
// not SERVER_HOST but the address SERVER_HOST resolves to in the pod (withSelfHostAlias).
func listenHost(spec *v1alpha1.GatewaySpec) string {
	if spec.Server != nil {
		return cmp.Or(spec.Server.Host, defaultServerHost)
	}
	return defaultServerHost
}

// serverTLSEnabled: the gateway serves HTTPS on its port. The API requires both references with
// enabled; renderAll refuses an object stored without them.
func serverTLSEnabled(spec *v1alpha1.GatewaySpec) bool {
	return spec.Server != nil && spec.Server.TLS != nil && spec.Server.TLS.Enabled
}

// telemetryEnabled: TELEMETRY_ENABLED, with which the gateway serves Prometheus metrics
// (whatever spec.telemetry.metrics.enabled says) and exports traces when they are configured.
func telemetryEnabled(spec *v1alpha1.GatewaySpec) bool {
	return spec.Telemetry != nil && spec.Telemetry.Enabled
}

// metricsDeclared: the metrics port is on the container and the Service, and scraped.
func metricsDeclared(spec *v1alpha1.GatewaySpec) bool {
	return telemetryEnabled(spec) && spec.Telemetry.Metrics != nil && spec.Telemetry.Metrics.Enabled
}

func metricsPort(spec *v1alpha1.GatewaySpec) int32 {
	if t := spec.Telemetry; t != nil && t.Metrics != nil && t.Metrics.Port > 0 {
		return t.Metrics.Port
	}
	return defaultMetricsPort
}

func tracesOTLP(t *v1alpha1.TelemetrySpec) *v1alpha1.OTLPExporterSpec {
	if t == nil || t.Traces == nil || t.Traces.Exporter == nil {
		return nil
	}
	return t.Traces.Exporter.OTLP
}

// oidcOf is the OIDC issuer the gateway checks tokens against, nil when auth is off.
func oidcOf(spec *v1alpha1.GatewaySpec) *v1alpha1.OIDCSpec {
	if spec.Auth == nil || !spec.Auth.Enabled {
		return nil
	}
	return spec.Auth.OIDC
}

// routingSource is the ConfigMap and key the gateway reads its model routing from.
type routingSource struct {
	// inline is spec.routing.config, which the operator stores in "<gateway>-routing".
	inline bool
	// configMap and key are spec.routing.configMapRef's, or the operator's ConfigMap's key.
	configMap, key string
}

// routingSourceOf is where the routing configuration comes from, nil when routing is off or
// has no source. Inline config wins over configMapRef (an object stored before the API made
// them exclusive), as upstream.
func routingSourceOf(spec *v1alpha1.GatewaySpec) *routingSource {
	r := spec.Routing
	switch {
	case r == nil || !r.Enabled:
		return nil
	case r.Config != "":
		return &routingSource{inline: true, key: routingInlineKey}
	case r.ConfigMapRef != nil:
		return &routingSource{configMap: r.ConfigMapRef.Name, key: r.ConfigMapRef.Key}
	}
	return nil
}

// portString formats a port for the environment.
func portString(port int32) string { return strconv.Itoa(int(port)) }

// Providers the gateway knows (gateway openapi.yaml), by id, and whether they need an API key:
// Ollama's auth type is none, so it is configured with its default URL alone. Upstream's
// "custom" is not here: the gateway has no such provider and ignores CUSTOM_API_*.
var knownProviders = map[string]bool{
	"ollama":       false,
	"ollama_cloud": true,
	"anthropic":    true,
	"cohere":       true,
	"groq":         true,
	"llamacpp":     true,
	"openai":       true,
	"cloudflare":   true,
	"deepseek":     true,
	"google":       true,
	"mistral":      true,
	"minimax":      true,
	"moonshot":     true,
	"nvidia":       true,
	"zai":          true,
}

// providerSummary is status.providerSummary: the names (as written) of the enabled providers
// the gateway knows that are configured, comma-separated. A provider is configured when it
// needs no key (Ollama) or when its <ID>_API_KEY, the only key variable the gateway reads, has
// a value: a literal one, or a non-empty key of a Secret. secret returns the Secret of a name in
// the Gateway's namespace, nil when there is none. Nothing here can panic on a provider without
// env (upstream's did, reference §7.7).
func providerSummary(spec *v1alpha1.GatewaySpec, secret func(name string) *corev1.Secret) string {
	var names []string
	for _, p := range spec.Providers {
		id := strings.ToLower(p.Name)
		needsKey, known := knownProviders[id]
		if !p.Enabled || !known || (needsKey && !hasValue(p.Env, strings.ToUpper(id)+"_API_KEY", secret)) {
			continue
		}
		names = append(names, p.Name)
	}
	return strings.Join(names, ",")
}

// hasValue says whether the variable name of env has a non-empty value.
func hasValue(env []corev1.EnvVar, name string, secret func(string) *corev1.Secret) bool {
	for _, e := range env {
		if e.Name != name {
			continue
		}
		if e.Value != "" {
			return true
		}
		if e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil || secret == nil {
			continue
		}
		ref := e.ValueFrom.SecretKeyRef
		if s := secret(ref.Name); s != nil && len(s.Data[ref.Key]) > 0 {
			return true
		}
	}
	return false
}
