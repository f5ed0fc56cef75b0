package inferencegateway

import (
	"reflect"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
)

// effectiveEnv is the environment a container gets from env: Kubernetes keeps the last of two
// same-named variables. A value from a Secret shows as "secret:<name>/<key>".
func effectiveEnv(env []corev1.EnvVar) map[string]string {
	out := map[string]string{}
	for _, e := range env {
		value := e.Value
		if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
			value = "secret:" + e.ValueFrom.SecretKeyRef.Name + "/" + e.ValueFrom.SecretKeyRef.Key
		}
		out[e.Name] = value
	}
	return out
}

func secretRef(name, key string) *corev1.SecretKeySelector {
	return &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: name}, Key: key}
}

func secretEnv(name, secret, key string) corev1.EnvVar {
	return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: secretRef(secret, key)}}
}

// testNames are the names of the Gateway gw in namespace llm.
var testNames = NamesFor(&v1alpha1.Gateway{ObjectMeta: metav1.ObjectMeta{Name: "gw", Namespace: "llm"}})

// emptySpecEnv is the managed env of an empty spec.
var emptySpecEnv = map[string]string{
	"ENVIRONMENT":          "production",
	"SERVER_HOST":          "0.0.0.0",
	"SERVER_PORT":          "8080",
	"SERVER_READ_TIMEOUT":  "60s",
	"SERVER_WRITE_TIMEOUT": "60s",
	"SERVER_IDLE_TIMEOUT":  "300s",
	"TELEMETRY_ENABLED":    "false",
	"AUTH_ENABLED":         "false",
}

// with is emptySpecEnv with some variables set (or, with value "-", removed).
func with(vars map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range emptySpecEnv {
		out[k] = v
	}
	for k, v := range vars {
		if v == "-" {
			delete(out, k)
		} else {
			out[k] = v
		}
	}
	return out
}

// TestManagedEnv is the env contract, one field group per case.
func TestManagedEnv(t *testing.T) {
	for _, tc := range []struct {
		name       string
		spec       v1alpha1.GatewaySpec
		mcpServers []string
		want       map[string]string
	}{
		{name: "empty spec", want: emptySpecEnv},
		{
			name: "environment",
			spec: v1alpha1.GatewaySpec{Environment: v1alpha1.EnvironmentDevelopment},
			want: with(map[string]string{"ENVIRONMENT": "development"}),
		},
		{
			name: "server host, port and timeouts",
			spec: v1alpha1.GatewaySpec{Server: &v1alpha1.ServerSpec{
				Host: "::", Port: 9000, Timeouts: &v1alpha1.ServerTimeouts{Read: "10s", Write: "10m", Idle: "1h"},
			}},
			want: with(map[string]string{
				"SERVER_HOST": "::", "SERVER_PORT": "9000",
				"SERVER_READ_TIMEOUT": "10s", "SERVER_WRITE_TIMEOUT": "10m", "SERVER_IDLE_TIMEOUT": "1h",
			}),
		},
		{
			name: "server timeouts partly set",
			spec: v1alpha1.GatewaySpec{Server: &v1alpha1.ServerSpec{Timeouts: &v1alpha1.ServerTimeouts{Write: "5m"}}},
			want: with(map[string]string{"SERVER_WRITE_TIMEOUT": "5m"}),
		},
		{
			name: "server TLS",
			spec: v1alpha1.GatewaySpec{Server: &v1alpha1.ServerSpec{Port: 8443, TLS: &v1alpha1.TLSConfig{
				Enabled: true, CertificateRef: secretRef("cert", "tls.crt"), KeyRef: secretRef("cert", "tls.key"),
			}}},
			// The gateway calls itself at https://SERVER_HOST:SERVER_PORT/proxy/... and verifies the
			// name: SERVER_HOST is the Service's name (not 0.0.0.0, which no certificate is valid
			// for), and the mounted certificate joins the system's roots (issue 16, defect 1).
			want: with(map[string]string{
				"SERVER_HOST": "gw.llm.svc",
				"SERVER_PORT": "8443", "SERVER_TLS_CERT_PATH": "/app/tls/tls.crt", "SERVER_TLS_KEY_PATH": "/app/tls/tls.key",
				"SSL_CERT_DIR": "/etc/ssl/certs:/etc/pki/tls/certs:/app/tls",
			}),
		},
		{
			name: "server TLS on ::",
			spec: v1alpha1.GatewaySpec{Server: &v1alpha1.ServerSpec{Host: "::", TLS: &v1alpha1.TLSConfig{
				Enabled: true, CertificateRef: secretRef("cert", "tls.crt"), KeyRef: secretRef("cert", "tls.key"),
			}}},
			want: with(map[string]string{
				"SERVER_HOST": "gw.llm.svc", "SERVER_TLS_CERT_PATH": "/app/tls/tls.crt", "SERVER_TLS_KEY_PATH": "/app/tls/tls.key",
				"SSL_CERT_DIR": "/etc/ssl/certs:/etc/pki/tls/certs:/app/tls",
			}),
		},
		{
			name: "server TLS off",
			spec: v1alpha1.GatewaySpec{Server: &v1alpha1.ServerSpec{TLS: &v1alpha1.TLSConfig{CertificateRef: secretRef("c", "k")}}},
			want: emptySpecEnv,
		},
		{
			name: "telemetry without metrics block: metrics served on the default port",
			spec: v1alpha1.GatewaySpec{Telemetry: &v1alpha1.TelemetrySpec{Enabled: true}},
			want: with(map[string]string{"TELEMETRY_ENABLED": "true", "TELEMETRY_METRICS_PORT": "9464"}),
		},
		{
			name: "telemetry with metrics port and traces",
			spec: v1alpha1.GatewaySpec{Telemetry: &v1alpha1.TelemetrySpec{
				Enabled: true,
				Metrics: &v1alpha1.MetricsSpec{Enabled: true, Port: 9500},
				Traces:  &v1alpha1.TracesSpec{Exporter: &v1alpha1.TracesExporterSpec{OTLP: &v1alpha1.OTLPExporterSpec{Endpoint: "http://otel:4318"}}},
			}},
			want: with(map[string]string{
				"TELEMETRY_ENABLED": "true", "TELEMETRY_METRICS_PORT": "9500",
				"TELEMETRY_TRACING_ENABLED": "true", "TELEMETRY_TRACING_OTLP_ENDPOINT": "http://otel:4318",
			}),
		},
		{
			name: "traces without endpoint: the gateway's default collector",
			spec: v1alpha1.GatewaySpec{Telemetry: &v1alpha1.TelemetrySpec{
				Enabled: true, Traces: &v1alpha1.TracesSpec{Exporter: &v1alpha1.TracesExporterSpec{OTLP: &v1alpha1.OTLPExporterSpec{}}},
			}},
			want: with(map[string]string{"TELEMETRY_ENABLED": "true", "TELEMETRY_METRICS_PORT": "9464", "TELEMETRY_TRACING_ENABLED": "true"}),
		},
		{
			name: "telemetry off: traces and metrics settings have no effect",
			spec: v1alpha1.GatewaySpec{Telemetry: &v1alpha1.TelemetrySpec{
				Metrics: &v1alpha1.MetricsSpec{Enabled: true, Port: 9500},
				Traces:  &v1alpha1.TracesSpec{Exporter: &v1alpha1.TracesExporterSpec{OTLP: &v1alpha1.OTLPExporterSpec{Endpoint: "http://otel:4318"}}},
			}},
			want: emptySpecEnv,
		},
		{
			name: "OIDC with client secret and CA",
			spec: v1alpha1.GatewaySpec{Auth: &v1alpha1.AuthSpec{Enabled: true, OIDC: &v1alpha1.OIDCSpec{
				IssuerURL: "https://idp.example/realms/r", ClientID: "gw",
				ClientSecretRef: secretRef("oidc", "secret"),
				CACertRef:       &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "ca"}, Key: "ca.crt"},
			}}},
			want: with(map[string]string{
				"AUTH_ENABLED": "true", "AUTH_OIDC_ISSUER": "https://idp.example/realms/r", "AUTH_OIDC_CLIENT_ID": "gw",
				"AUTH_OIDC_CLIENT_SECRET": "secret:oidc/secret", "SSL_CERT_FILE": "/usr/local/share/ca-certificates/oidc-ca.crt",
			}),
		},
		{
			name: "OIDC with the API's defaults unset",
			spec: v1alpha1.GatewaySpec{Auth: &v1alpha1.AuthSpec{Enabled: true, OIDC: &v1alpha1.OIDCSpec{}}},
			want: with(map[string]string{
				"AUTH_ENABLED": "true", "AUTH_OIDC_ISSUER": defaultOIDCIssuer, "AUTH_OIDC_CLIENT_ID": defaultOIDCClientID,
			}),
		},
		{
			name: "auth off: OIDC settings have no effect",
			spec: v1alpha1.GatewaySpec{Auth: &v1alpha1.AuthSpec{OIDC: &v1alpha1.OIDCSpec{ClientSecretRef: secretRef("oidc", "s")}}},
			want: emptySpecEnv,
		},
		{
			name:       "MCP without timeouts: the gateway's defaults",
			spec:       v1alpha1.GatewaySpec{MCP: &v1alpha1.MCPServersSpec{Enabled: true}},
			mcpServers: []string{"http://a/mcp", "http://b/mcp"},
			want: with(map[string]string{
				"MCP_ENABLED": "true", "MCP_EXPOSE": "false", "MCP_TOOL_MODE": "selector", "MCP_SERVERS": "http://a/mcp,http://b/mcp",
				"MCP_CLIENT_TIMEOUT": "5s", "MCP_DIAL_TIMEOUT": "3s", "MCP_TLS_HANDSHAKE_TIMEOUT": "3s",
				"MCP_RESPONSE_HEADER_TIMEOUT": "3s", "MCP_REQUEST_TIMEOUT": "5s",
			}),
		},
		{
			name: "MCP with some timeouts: the API's defaults for the others",
			spec: v1alpha1.GatewaySpec{MCP: &v1alpha1.MCPServersSpec{
				Enabled: true, Expose: true, ToolMode: v1alpha1.MCPToolModeDirect,
				Timeouts: &v1alpha1.MCPTimeouts{Client: "30s", Request: "1m"},
			}},
			want: with(map[string]string{
				"MCP_ENABLED": "true", "MCP_EXPOSE": "true", "MCP_TOOL_MODE": "direct", "MCP_SERVERS": "",
				"MCP_CLIENT_TIMEOUT": "30s", "MCP_DIAL_TIMEOUT": "5s", "MCP_TLS_HANDSHAKE_TIMEOUT": "5s",
				"MCP_RESPONSE_HEADER_TIMEOUT": "5s", "MCP_REQUEST_TIMEOUT": "1m",
			}),
		},
		{
			name:       "MCP off",
			spec:       v1alpha1.GatewaySpec{MCP: &v1alpha1.MCPServersSpec{Servers: []v1alpha1.MCPServer{{Name: "a", URL: "http://a"}}}},
			mcpServers: []string{"http://a"},
			want:       emptySpecEnv,
		},
		{
			name: "routing inline",
			spec: v1alpha1.GatewaySpec{Routing: &v1alpha1.ModelRoutingSpec{Enabled: true, Config: "models: {}"}},
			want: with(map[string]string{"ROUTING_ENABLED": "true", "ROUTING_CONFIG_PATH": "/etc/inference-gateway/routing/routing.yaml"}),
		},
		{
			name: "routing from a ConfigMap",
			spec: v1alpha1.GatewaySpec{Routing: &v1alpha1.ModelRoutingSpec{Enabled: true, ConfigMapRef: &corev1.ConfigMapKeySelector{
				LocalObjectReference: corev1.LocalObjectReference{Name: "mine"}, Key: "custom.yaml",
			}}},
			want: with(map[string]string{"ROUTING_ENABLED": "true", "ROUTING_CONFIG_PATH": "/etc/inference-gateway/routing/custom.yaml"}),
		},
		{
			name: "routing enabled without a source: nothing, or the gateway exits (§7.10)",
			spec: v1alpha1.GatewaySpec{Routing: &v1alpha1.ModelRoutingSpec{Enabled: true}},
			want: emptySpecEnv,
		},
		{
			name: "routing off",
			spec: v1alpha1.GatewaySpec{Routing: &v1alpha1.ModelRoutingSpec{Config: "models: {}"}},
			want: emptySpecEnv,
		},
		{
			name: "guardrails with policies, default fail mode",
			spec: v1alpha1.GatewaySpec{Guardrails: &v1alpha1.GuardrailsSpec{Enabled: true, ConfigMapRef: &corev1.LocalObjectReference{Name: "rego"}}},
			want: with(map[string]string{
				"GUARDRAILS_ENABLED": "true", "GUARDRAILS_POLICY_DIR": "/etc/inference-gateway/guardrails", "GUARDRAILS_FAIL_MODE": "closed",
			}),
		},
		{
			name: "guardrails external, allow",
			spec: v1alpha1.GatewaySpec{Guardrails: &v1alpha1.GuardrailsSpec{Enabled: true, FailMode: "allow", ExternalURL: "http://policy"}},
			want: with(map[string]string{
				"GUARDRAILS_ENABLED": "true", "GUARDRAILS_FAIL_MODE": "open",
				"GUARDRAILS_EXTERNAL_URL": "http://policy", "GUARDRAILS_EXTERNAL_TIMEOUT": "5s",
			}),
		},
		{
			name: "guardrails off",
			spec: v1alpha1.GatewaySpec{Guardrails: &v1alpha1.GuardrailsSpec{FailMode: "allow", ExternalURL: "http://policy"}},
			want: emptySpecEnv,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := managedEnv(&tc.spec, testNames, tc.mcpServers)
			if got := effectiveEnv(env); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("env\n got %v\nwant %v", got, tc.want)
			}
			names := map[string]bool{}
			for _, e := range env {
				if names[e.Name] {
					t.Errorf("%s set twice", e.Name)
				}
				names[e.Name] = true
				if !slices.Contains(v1alpha1.ManagedEnv, e.Name) {
					t.Errorf("%s is not in v1alpha1.ManagedEnv: a provider's env could set it too", e.Name)
				}
			}
		})
	}
}

// TestGuardrailsFailMode: upstream's deny and the default fail closed; the gateway takes any
// value but closed for open (§7.1).
func TestGuardrailsFailMode(t *testing.T) {
	for failMode, want := range map[string]string{"": "closed", "deny": "closed", "closed": "closed", "allow": "open", "open": "open"} {
		spec := v1alpha1.GatewaySpec{Guardrails: &v1alpha1.GuardrailsSpec{Enabled: true, FailMode: failMode, ExternalURL: "http://p"}}
		if got := effectiveEnv(managedEnv(&spec, testNames, nil))["GUARDRAILS_FAIL_MODE"]; got != want {
			t.Errorf("failMode %q: GUARDRAILS_FAIL_MODE %q, want %q", failMode, got, want)
		}
	}
}

// fullSpec turns on every feature that sets env.
func fullSpec() v1alpha1.GatewaySpec {
	return v1alpha1.GatewaySpec{
		Server: &v1alpha1.ServerSpec{Port: 9000, TLS: &v1alpha1.TLSConfig{Enabled: true, CertificateRef: secretRef("c", "crt"), KeyRef: secretRef("c", "key")}},
		Telemetry: &v1alpha1.TelemetrySpec{Enabled: true, Metrics: &v1alpha1.MetricsSpec{Enabled: true},
			Traces: &v1alpha1.TracesSpec{Exporter: &v1alpha1.TracesExporterSpec{OTLP: &v1alpha1.OTLPExporterSpec{Endpoint: "http://otel:4318"}}}},
		Auth: &v1alpha1.AuthSpec{Enabled: true, OIDC: &v1alpha1.OIDCSpec{
			ClientSecretRef: secretRef("oidc", "s"),
			CACertRef:       &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "ca"}, Key: "ca.crt"},
		}},
		MCP:        &v1alpha1.MCPServersSpec{Enabled: true},
		Routing:    &v1alpha1.ModelRoutingSpec{Enabled: true, Config: "models: {}"},
		Guardrails: &v1alpha1.GuardrailsSpec{Enabled: true, ConfigMapRef: &corev1.LocalObjectReference{Name: "rego"}, ExternalURL: "http://p"},
	}
}

// TestProviderEnvCannotOverrideManagedEnv: a provider's free env comes first, so whatever the
// operator sets wins (Kubernetes keeps the last of two same-named variables). The CRD rejects
// such provider variables; an object stored before that rule is what this guards.
func TestProviderEnvCannotOverrideManagedEnv(t *testing.T) {
	for _, tc := range []struct {
		name     string
		spec     v1alpha1.GatewaySpec
		provider []corev1.EnvVar
		want     map[string]string
	}{
		{
			name:     "AUTH_ENABLED=false cannot turn authentication off",
			spec:     fullSpec(),
			provider: []corev1.EnvVar{{Name: "AUTH_ENABLED", Value: "false"}},
			want:     map[string]string{"AUTH_ENABLED": "true"},
		},
		{
			name:     "AUTH_ENABLED=true does not change a gateway without auth either",
			provider: []corev1.EnvVar{{Name: "AUTH_ENABLED", Value: "true"}},
			want:     map[string]string{"AUTH_ENABLED": "false"},
		},
		{
			name:     "from a Secret",
			spec:     fullSpec(),
			provider: []corev1.EnvVar{secretEnv("AUTH_ENABLED", "s", "k"), secretEnv("AUTH_OIDC_ISSUER", "s", "i")},
			want:     map[string]string{"AUTH_ENABLED": "true", "AUTH_OIDC_ISSUER": defaultOIDCIssuer},
		},
		{
			name:     "the guardrails cannot be turned off or opened",
			spec:     fullSpec(),
			provider: []corev1.EnvVar{{Name: "GUARDRAILS_ENABLED", Value: "false"}, {Name: "GUARDRAILS_FAIL_MODE", Value: "open"}},
			want:     map[string]string{"GUARDRAILS_ENABLED": "true", "GUARDRAILS_FAIL_MODE": "closed"},
		},
		{
			name:     "the port and TLS stay the spec's",
			spec:     fullSpec(),
			provider: []corev1.EnvVar{{Name: "SERVER_PORT", Value: "1"}, {Name: "SERVER_TLS_CERT_PATH", Value: "/x"}, {Name: "SERVER_HOST", Value: "127.0.0.1"}},
			want:     map[string]string{"SERVER_PORT": "9000", "SERVER_TLS_CERT_PATH": "/app/tls/tls.crt", "SERVER_HOST": "gw.llm.svc"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := tc.spec
			spec.Providers = []v1alpha1.ProviderSpec{{Name: "openai", Enabled: true, Env: tc.provider}}
			got := effectiveEnv(gatewayEnv(&spec, testNames, nil))
			for name, want := range tc.want {
				if got[name] != want {
					t.Errorf("%s = %q, want %q", name, got[name], want)
				}
			}
		})
	}
	// Every variable the operator sets under a full spec wins over a provider's.
	spec := fullSpec()
	var provider []corev1.EnvVar
	for _, name := range v1alpha1.ManagedEnv {
		provider = append(provider, corev1.EnvVar{Name: name, Value: "provider"})
	}
	spec.Providers = []v1alpha1.ProviderSpec{{Name: "p", Enabled: true, Env: provider}}
	got := effectiveEnv(gatewayEnv(&spec, testNames, []string{"http://m"}))
	for name, want := range effectiveEnv(managedEnv(&spec, testNames, []string{"http://m"})) {
		if got[name] != want {
			t.Errorf("%s = %q, want the operator's %q", name, got[name], want)
		}
	}
}

func TestProviderEnv(t *testing.T) {
	spec := v1alpha1.GatewaySpec{Providers: []v1alpha1.ProviderSpec{
		{Name: "openai", Enabled: true, Env: []corev1.EnvVar{secretEnv("OPENAI_API_KEY", "keys", "openai"), {Name: "OPENAI_API_URL", Value: "http://proxy"}}},
		{Name: "anthropic", Enabled: false, Env: []corev1.EnvVar{secretEnv("ANTHROPIC_API_KEY", "keys", "anthropic")}},
		{Name: "ollama", Enabled: true},
		{Name: "groq", Enabled: true, Env: []corev1.EnvVar{secretEnv("GROQ_API_KEY", "keys", "groq")}},
	}}
	env := gatewayEnv(&spec, testNames, nil)
	var names []string
	for _, e := range env[:3] {
		names = append(names, e.Name)
	}
	if want := []string{"OPENAI_API_KEY", "OPENAI_API_URL", "GROQ_API_KEY"}; !reflect.DeepEqual(names, want) {
		t.Errorf("provider env %v, want the enabled providers' in order %v, first", names, want)
	}
	if env[3].Name != "ENVIRONMENT" {
		t.Errorf("the operator's env does not follow the providers': %v", env[3])
	}
	env[0].ValueFrom.SecretKeyRef.Name = "mutated"
	if spec.Providers[0].Env[0].ValueFrom.SecretKeyRef.Name != "keys" {
		t.Errorf("the env shares the CR's objects")
	}
}

func TestProviderSummary(t *testing.T) {
	secrets := map[string]*corev1.Secret{
		"keys":  {Data: map[string][]byte{"openai": []byte("sk-1"), "empty": nil, "groq": []byte("gsk")}},
		"other": {Data: map[string][]byte{"k": []byte("v")}},
	}
	lookup := func(name string) *corev1.Secret { return secrets[name] }
	provider := func(name string, enabled bool, env ...corev1.EnvVar) v1alpha1.ProviderSpec {
		return v1alpha1.ProviderSpec{Name: name, Enabled: enabled, Env: env}
	}
	for _, tc := range []struct {
		name      string
		providers []v1alpha1.ProviderSpec
		secret    func(string) *corev1.Secret
		want      string
	}{
		{name: "none"},
		{name: "key in a Secret, name as written", providers: []v1alpha1.ProviderSpec{provider("OpenAI", true, secretEnv("OPENAI_API_KEY", "keys", "openai"))}, want: "OpenAI"},
		{name: "literal key", providers: []v1alpha1.ProviderSpec{provider("groq", true, corev1.EnvVar{Name: "GROQ_API_KEY", Value: "gsk"})}, want: "groq"},
		{name: "empty key", providers: []v1alpha1.ProviderSpec{provider("openai", true, secretEnv("OPENAI_API_KEY", "keys", "empty"))}},
		{name: "missing key", providers: []v1alpha1.ProviderSpec{provider("openai", true, secretEnv("OPENAI_API_KEY", "keys", "nope"))}},
		{name: "missing Secret", providers: []v1alpha1.ProviderSpec{provider("openai", true, secretEnv("OPENAI_API_KEY", "gone", "openai"))}},
		{name: "no Secret lookup", providers: []v1alpha1.ProviderSpec{provider("openai", true, secretEnv("OPENAI_API_KEY", "keys", "openai"))}, secret: nil},
		{name: "a key under another variable does not configure the provider", providers: []v1alpha1.ProviderSpec{provider("openai", true, secretEnv("OPENAI_TOKEN", "keys", "openai"))}},
		{name: "disabled", providers: []v1alpha1.ProviderSpec{provider("openai", false, secretEnv("OPENAI_API_KEY", "keys", "openai"))}},
		{name: "no env at all (upstream panicked)", providers: []v1alpha1.ProviderSpec{provider("openai", true)}},
		{name: "Ollama needs no key (§7.7)", providers: []v1alpha1.ProviderSpec{provider("Ollama", true, corev1.EnvVar{Name: "OLLAMA_API_URL", Value: "http://ollama:11434/v1"})}, want: "Ollama"},
		{name: "Ollama without env", providers: []v1alpha1.ProviderSpec{provider("ollama", true)}, want: "ollama"},
		{name: "unknown to the gateway", providers: []v1alpha1.ProviderSpec{provider("ornith", true, secretEnv("ORNITH_API_KEY", "other", "k"))}},
		{name: "custom is no gateway provider", providers: []v1alpha1.ProviderSpec{provider("custom", true, secretEnv("CUSTOM_API_KEY", "other", "k"))}},
		{name: "ids with an underscore", providers: []v1alpha1.ProviderSpec{provider("ollama_cloud", true, secretEnv("OLLAMA_CLOUD_API_KEY", "other", "k"))}, want: "ollama_cloud"},
		{
			name: "several, in spec order",
			providers: []v1alpha1.ProviderSpec{
				provider("groq", true, secretEnv("GROQ_API_KEY", "keys", "groq")),
				provider("anthropic", true),
				provider("OpenAI", true, secretEnv("OPENAI_API_KEY", "keys", "openai")),
			},
			want: "groq,OpenAI",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			secret := lookup
			if tc.name == "no Secret lookup" {
				secret = tc.secret
			}
			if got := providerSummary(&v1alpha1.GatewaySpec{Providers: tc.providers}, secret); got != tc.want {
				t.Errorf("providerSummary = %q, want %q", got, tc.want)
			}
		})
	}
}
