package inferencegatewayagents

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/llm-infra/llm-infra-operator/bindata"
	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
)

// An Agent's environment contract: upstream operator's (agent_controller.go,
// buildAgentEnvironmentVars), in its order. agentEnv builds the container's env from the spec:
//
//	variable                                         source field                               emitted when
//	(spec.env)                                       spec.env, first and verbatim               always
//	TIMEZONE                                         spec.timezone (UTC)                        always
//	PORT                                             spec.port (8080)                           always
//	HOST                                             spec.host (0.0.0.0)                        always
//	A2A_AGENT_URL                                    spec.card.url, else AgentURL               always
//	READ_TIMEOUT, WRITE_TIMEOUT, IDLE_TIMEOUT        spec.readTimeout ... (30s, 30s, 60s)       always
//	LOG_LEVEL, LOG_FORMAT                            spec.logging (info, json; "" without it)   always
//	QUEUE_ENABLED, QUEUE_MAX_SIZE,                   spec.queue                                 always
//	  QUEUE_CLEANUP_INTERVAL
//	TLS_ENABLED, TLS_SECRET_REF                      spec.tls (only enabled: false admitted)    always
//	AGENT_ENABLED, AGENT_MAX_CONVERSATION_HISTORY    spec.agent                                 always
//	A2A_TELEMETRY_ENABLED                            spec.telemetry.enabled                     always
//	A2A_OTEL_TRACES_EXPORTER                         otlp with traces.exporter.otlp, else none  telemetry enabled
//	A2A_OTEL_METRICS_EXPORTER                        otlp, prometheus or none                   telemetry enabled
//	A2A_OTEL_EXPORTER_OTLP_ENDPOINT, _PROTOCOL       traces' OTLP exporter, else metrics'       telemetry enabled, each when set
//	A2A_OTEL_EXPORTER_PROMETHEUS_HOST, _PORT         metrics.exporter.prometheus                telemetry enabled, each when set
//	A2A_MCP_ENABLED                                  spec.mcp.enabled                           always
//	A2A_MCP_SERVERS                                  spec.mcp.servers, comma-separated          MCP enabled, servers listed
//	A2A_MCP_ENDPOINT, _REFRESH_INTERVAL,             spec.mcp                                   MCP enabled, each when set
//	  _DIAL_TIMEOUT, _CALL_TIMEOUT, _RETRY_INTERVAL,
//	  _RETRY_MAX_INTERVAL
//	A2A_MCP_MAX_RETRIES                              spec.mcp.maxRetries                        MCP enabled
//	A2A_AGENT_CLIENT_PROVIDER, _MODEL                spec.agent.llm.model, split at the first / model set (PROVIDER with a /)
//	A2A_AGENT_CLIENT_BASE_URL                        spec.agent.llm.baseURL                     set
//	A2A_AGENT_CLIENT_API_KEY                         spec.agent.llm.apiKeySecretRef (a Secret)  set
//	A2A_AGENT_CLIENT_MAX_TOKENS, _TEMPERATURE        spec.agent.llm (4096, 0.7 in the block)    set
//	A2A_AGENT_CLIENT_SYSTEM_PROMPT                   spec.agent.llm.systemPrompt                set
//	A2A_AGENT_CLIENT_MAX_CHAT_COMPLETION_ITERATIONS  spec.agent (5 in the block, else 0)        always
//	A2A_AGENT_CLIENT_MAX_RETRIES                     spec.agent (3 in the block, else 0)        always
//	A2A_AGENT_CLIENT_CUSTOM_HEADER_<i>_NAME, _VALUE  spec.agent.llm.customHeaders               each header
//
// Differences from upstream: A2A_AGENT_CLIENT_SYSTEM_PROMPT is passed (upstream accepted
// systemPrompt and dropped it); an entry of spec.env named like one of the operator's replaces
// it (upstream emitted both, so the kubelet kept the operator's and the user's entry was silently
// lost; PORT is spec.port's alone, which admission checks).

// agentEnv is the Agent container's environment.
func agentEnv(agent *v1alpha1.Agent) []corev1.EnvVar {
	spec := &agent.Spec
	str := func(name, value string) corev1.EnvVar { return corev1.EnvVar{Name: name, Value: value} }
	num := func(name string, value int32) corev1.EnvVar { return str(name, strconv.Itoa(int(value))) }
	flag := func(name string, value bool) corev1.EnvVar { return str(name, strconv.FormatBool(value)) }

	managed := []corev1.EnvVar{
		str("TIMEZONE", spec.Timezone),
		num("PORT", agentPort(spec)),
		str("HOST", spec.Host),
		str("A2A_AGENT_URL", cmp.Or(spec.Card.URL, AgentURL(agent))),
		str("READ_TIMEOUT", spec.ReadTimeout),
		str("WRITE_TIMEOUT", spec.WriteTimeout),
		str("IDLE_TIMEOUT", spec.IdleTimeout),
		str("LOG_LEVEL", spec.Logging.Level),
		str("LOG_FORMAT", spec.Logging.Format),
		flag("QUEUE_ENABLED", spec.Queue.Enabled),
		num("QUEUE_MAX_SIZE", spec.Queue.MaxSize),
		str("QUEUE_CLEANUP_INTERVAL", spec.Queue.CleanupInterval),
		flag("TLS_ENABLED", spec.TLS.Enabled),
		str("TLS_SECRET_REF", spec.TLS.SecretRef),
		flag("AGENT_ENABLED", spec.Agent.Enabled),
		num("AGENT_MAX_CONVERSATION_HISTORY", spec.Agent.MaxConversationHistory),
	}
	managed = append(managed, agentTelemetryEnv(&spec.Telemetry)...)
	managed = append(managed, agentMCPEnv(&spec.MCP)...)

	llm := &spec.Agent.LLM
	if llm.Model != "" {
		if provider, model, ok := strings.Cut(llm.Model, "/"); ok {
			managed = append(managed, str("A2A_AGENT_CLIENT_PROVIDER", provider), str("A2A_AGENT_CLIENT_MODEL", model))
		} else {
			managed = append(managed, str("A2A_AGENT_CLIENT_MODEL", llm.Model))
		}
	}
	if llm.BaseURL != "" {
		managed = append(managed, str("A2A_AGENT_CLIENT_BASE_URL", llm.BaseURL))
	}
	if llm.APIKeySecretRef != nil {
		managed = append(managed, corev1.EnvVar{Name: "A2A_AGENT_CLIENT_API_KEY",
			ValueFrom: &corev1.EnvVarSource{SecretKeyRef: llm.APIKeySecretRef.DeepCopy()}})
	}
	if llm.MaxTokens != nil {
		managed = append(managed, num("A2A_AGENT_CLIENT_MAX_TOKENS", *llm.MaxTokens))
	}
	if llm.Temperature != nil {
		managed = append(managed, str("A2A_AGENT_CLIENT_TEMPERATURE", *llm.Temperature))
	}
	if llm.SystemPrompt != "" {
		managed = append(managed, str("A2A_AGENT_CLIENT_SYSTEM_PROMPT", llm.SystemPrompt))
	}
	managed = append(managed,
		num("A2A_AGENT_CLIENT_MAX_CHAT_COMPLETION_ITERATIONS", spec.Agent.MaxChatCompletionIterations),
		num("A2A_AGENT_CLIENT_MAX_RETRIES", spec.Agent.MaxRetries),
	)
	if llm.CustomHeaders != nil {
		for i, h := range *llm.CustomHeaders {
			managed = append(managed,
				str(fmt.Sprintf("A2A_AGENT_CLIENT_CUSTOM_HEADER_%d_NAME", i), h.Name),
				str(fmt.Sprintf("A2A_AGENT_CLIENT_CUSTOM_HEADER_%d_VALUE", i), h.Value))
		}
	}
	return userEnvFirst(spec.Env, managed)
}

// agentTelemetryEnv maps spec.telemetry onto the ADK's OpenTelemetry variables. The agent has one
// OTLP endpoint: the traces exporter's, else the metrics exporter's (admission makes the two
// agree when both are set).
func agentTelemetryEnv(tel *v1alpha1.AgentTelemetrySpec) []corev1.EnvVar {
	env := []corev1.EnvVar{{Name: "A2A_TELEMETRY_ENABLED", Value: strconv.FormatBool(tel.Enabled)}}
	if !tel.Enabled {
		return env
	}
	traces := tracesOTLP(tel.Traces)
	var metricsOTLP *v1alpha1.WorkloadOTLPExporterSpec
	var prometheus *v1alpha1.PrometheusExporterSpec
	if m := tel.Metrics; m != nil && m.Exporter != nil {
		metricsOTLP, prometheus = m.Exporter.OTLP, m.Exporter.Prometheus
	}
	env = append(env, corev1.EnvVar{Name: "A2A_OTEL_TRACES_EXPORTER", Value: exporterName(traces != nil, "otlp")})
	switch {
	case metricsOTLP != nil:
		env = append(env, corev1.EnvVar{Name: "A2A_OTEL_METRICS_EXPORTER", Value: "otlp"})
	case prometheus != nil:
		env = append(env, corev1.EnvVar{Name: "A2A_OTEL_METRICS_EXPORTER", Value: "prometheus"})
	default:
		env = append(env, corev1.EnvVar{Name: "A2A_OTEL_METRICS_EXPORTER", Value: "none"})
	}
	otlp := traces
	if otlp == nil {
		otlp = metricsOTLP
	}
	if otlp != nil {
		env = appendIfSet(env, "A2A_OTEL_EXPORTER_OTLP_ENDPOINT", otlp.Endpoint)
		env = appendIfSet(env, "A2A_OTEL_EXPORTER_OTLP_PROTOCOL", otlp.Protocol)
	}
	if prometheus != nil {
		env = appendIfSet(env, "A2A_OTEL_EXPORTER_PROMETHEUS_HOST", prometheus.Host)
		if prometheus.Port != 0 {
			env = append(env, corev1.EnvVar{Name: "A2A_OTEL_EXPORTER_PROMETHEUS_PORT", Value: strconv.Itoa(int(prometheus.Port))})
		}
	}
	return env
}

// agentMCPEnv maps spec.mcp onto the ADK's MCP client variables: only the switch while it is
// off, and each setting only when set, so the ADK's own default applies otherwise.
func agentMCPEnv(mcp *v1alpha1.MCPClientSpec) []corev1.EnvVar {
	env := []corev1.EnvVar{{Name: "A2A_MCP_ENABLED", Value: strconv.FormatBool(mcp.Enabled)}}
	if !mcp.Enabled {
		return env
	}
	if len(mcp.Servers) > 0 {
		env = append(env, corev1.EnvVar{Name: "A2A_MCP_SERVERS", Value: strings.Join(mcp.Servers, ",")})
	}
	env = appendIfSet(env, "A2A_MCP_ENDPOINT", mcp.Endpoint)
	env = appendIfSet(env, "A2A_MCP_REFRESH_INTERVAL", mcp.RefreshInterval)
	env = appendIfSet(env, "A2A_MCP_DIAL_TIMEOUT", mcp.DialTimeout)
	env = appendIfSet(env, "A2A_MCP_CALL_TIMEOUT", mcp.CallTimeout)
	env = appendIfSet(env, "A2A_MCP_RETRY_INTERVAL", mcp.RetryInterval)
	env = appendIfSet(env, "A2A_MCP_RETRY_MAX_INTERVAL", mcp.RetryMaxInterval)
	return append(env, corev1.EnvVar{Name: "A2A_MCP_MAX_RETRIES", Value: strconv.Itoa(int(mcp.MaxRetries))})
}

// exporterName is an exporter's name when it is configured, else none (which turns the signal
// off).
func exporterName(configured bool, name string) string {
	if configured {
		return name
	}
	return "none"
}

func appendIfSet(env []corev1.EnvVar, name, value string) []corev1.EnvVar {
	if value == "" {
		return env
	}
	return append(env, corev1.EnvVar{Name: name, Value: value})
}

// tracesOTLP is a traces signal's OTLP exporter, or nil.
func tracesOTLP(t *v1alpha1.WorkloadTracesSpec) *v1alpha1.WorkloadOTLPExporterSpec {
	if t == nil || t.Exporter == nil {
		return nil
	}
	return t.Exporter.OTLP
}

// userEnvFirst is spec.env followed by the operator's variables, without those spec.env sets
// itself: the user's entry is honoured, and each name appears once.
func userEnvFirst(user *[]corev1.EnvVar, managed []corev1.EnvVar) []corev1.EnvVar {
	if user == nil || len(*user) == 0 {
		return managed
	}
	set := map[string]bool{}
	env := make([]corev1.EnvVar, 0, len(*user)+len(managed))
	for _, e := range *user {
		set[e.Name] = true
		env = append(env, *e.DeepCopy())
	}
	for _, e := range managed {
		if !set[e.Name] {
			env = append(env, e)
		}
	}
	return env
}

// agentObjects are the objects an Agent renders, in apply order (bindata.AgentAssets).
type agentObjects struct {
	service    *corev1.Service
	deployment *appsv1.Deployment
}

// renderAgent renders an Agent's Service and Deployment: the port (container, Service,
// PORT), the image, the environment contract and the resources, on upstream's names and
// selector.
func renderAgent(agent *v1alpha1.Agent) (agentObjects, error) {
	placeholders := instancePlaceholders(agent.Namespace, agent.Name, agent.Spec.Image)
	svc, err := manifest[corev1.Service](bindata.AgentService, placeholders)
	if err != nil {
		return agentObjects{}, err
	}
	d, err := manifest[appsv1.Deployment](bindata.AgentDeployment, placeholders)
	if err != nil {
		return agentObjects{}, err
	}
	port := agentPort(&agent.Spec)
	svc.Spec.Ports[0].Port = port
	c, err := container(d, agentContainer)
	if err != nil {
		return agentObjects{}, err
	}
	c.Ports[0].ContainerPort = port
	c.Env = agentEnv(agent)
	c.Resources = *agent.Spec.Resources.DeepCopy()
	return agentObjects{service: svc, deployment: d}, nil
}
