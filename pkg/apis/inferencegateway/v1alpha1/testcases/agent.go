package testcases

import (
	"fmt"

	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/apis/internal/admission"
	networkpolicytestcases "github.com/llm-infra/llm-infra-operator/pkg/apis/networkpolicy/v1alpha1/testcases"
)

// BaseAgent is a small Agent.
const BaseAgent = `
apiVersion: core.inference-gateway.com/v1alpha1
kind: Agent
metadata:
  name: calendar
  namespace: agents
spec:
  image: registry.example/calendar-agent:v1
`

// UpstreamAgent is upstream's examples/agent-server Agent (at operator commit fae5b925). Its env
// sets A2A_AGENT_URL, which here replaces the URL the operator derives (upstream appended its own
// after it, so the entry had no effect; both are the same URL in the example's namespace).
const UpstreamAgent = `
apiVersion: core.inference-gateway.com/v1alpha1
kind: Agent
metadata:
  name: google-calendar-agent
  namespace: agents
  labels:
    agent-group: group1
spec:
  image: ghcr.io/inference-gateway/google-calendar-agent:latest
  env:
  - name: GOOGLE_CALENDAR_MOCK_MODE
    value: "true"
  - name: A2A_AGENT_URL
    value: http://google-calendar-agent.agents.svc.cluster.local:8080
  agent:
    llm:
      baseURL: http://inference-gateway.inference-gateway.svc.cluster.local:8080/v1
      model: openai/gpt-4o
      apiKeySecretRef: {name: inference-gateway-providers-secret, key: OPENAI_API_KEY}
  telemetry:
    enabled: true
    traces:
      exporter:
        otlp: {endpoint: "http://otel-collector.observability.svc.cluster.local:4318", protocol: http/protobuf}
    metrics:
      exporter:
        prometheus: {port: 9464}
`

// AgentAccepted are valid Agent objects.
var AgentAccepted = append([]Case{
	{Name: "base", Base: BaseAgent},
	{Name: "upstream example agent-server", Base: UpstreamAgent},
	{Name: "every field set", Base: BaseAgent, Patch: `
spec:
  card: {url: "https://calendar.example.com"}
  timezone: Europe/Berlin
  port: 9000
  host: 0.0.0.0
  readTimeout: 1m
  writeTimeout: 2m30s
  idleTimeout: 500ms
  logging: {level: debug, format: text}
  telemetry:
    enabled: true
    traces: {exporter: {otlp: {endpoint: "http://otel:4317", protocol: grpc}}}
    metrics: {enabled: false, port: 9464, exporter: {otlp: {endpoint: "http://otel:4317", protocol: grpc}}}
    receiver: {enabled: false, port: 4318}
  queue: {enabled: true, maxSize: 100, cleanupInterval: 30s}
  mcp:
    enabled: true
    servers: ["http://mcp-a:8080", "https://mcp-b.example.com"]
    endpoint: /sse
    refreshInterval: 1m
    dialTimeout: 5s
    callTimeout: 1m
    maxRetries: 4
    retryInterval: 1s
    retryMaxInterval: 10s
  tls: {enabled: false, secretRef: unused}
  agent:
    enabled: true
    tls: {enabled: false}
    apiKey: {secretRef: ""}
    maxConversationHistory: 20
    maxChatCompletionIterations: 8
    maxRetries: 2
    llm:
      baseURL: "http://gw.llm.svc.cluster.local:8080/v1"
      model: anthropic/claude-sonnet
      maxTokens: 2048
      temperature: "0.2"
      customHeaders: [{name: X-Team, value: calendar}]
      systemPrompt: You manage calendars.
      apiKeySecretRef: {name: llm, key: api-key}
  env:
  - {name: A2A_AGENT_URL, value: "https://calendar.example.com"}
  - name: POD_NAME
    valueFrom: {fieldRef: {fieldPath: metadata.name}}
  resources:
    requests: {cpu: 100m, memory: 128Mi}
    limits: {cpu: "1", memory: 512Mi}
`},
	{Name: "prometheus metrics", Base: BaseAgent, Patch: `{spec: {telemetry: {enabled: true, metrics: {exporter: {prometheus: {host: 0.0.0.0, port: 9100}}}}}}`},
	{Name: "traces and metrics on one OTLP endpoint", Base: BaseAgent, Patch: `{spec: {telemetry: {traces: {exporter: {otlp: {endpoint: "http://c:4318"}}}, metrics: {exporter: {otlp: {endpoint: "http://c:4318"}}}}}}`},
	{Name: "model without a provider", Base: BaseAgent, Patch: `{spec: {agent: {llm: {model: gpt-4o-mini}}}}`},
	{Name: "name of 63 characters (the bound)", Base: BaseAgent, Patch: fmt.Sprintf(`{metadata: {name: %s}}`, admission.Long(63))},

	// Size bounds (issue 33): at each bound, admitted.
	{Name: "at the size bounds", Base: BaseAgent, Patch: fmt.Sprintf(`
spec:
  env:
  - {name: %s, value: %s}
  - name: FROM_FIELD
    valueFrom: {fieldRef: {apiVersion: v1, fieldPath: "%s"}}
  resources: {limits: %s}
  agent: {llm: {apiKeySecretRef: {name: %s, key: %s}}}
`, admission.Long(253), admission.Long(65536), LongestFieldPath, admission.ExtendedResources(32), admission.Long(253), admission.Long(253))},
	{Name: "every field the downward API gives the environment", Base: BaseAgent, Patch: `
spec:
  env:
  - {name: A, valueFrom: {fieldRef: {fieldPath: metadata.name}}}
  - {name: B, valueFrom: {fieldRef: {fieldPath: metadata.namespace}}}
  - {name: C, valueFrom: {fieldRef: {fieldPath: metadata.uid}}}
  - {name: D, valueFrom: {fieldRef: {fieldPath: "metadata.labels['app.kubernetes.io/name']"}}}
  - {name: E, valueFrom: {fieldRef: {fieldPath: "metadata.annotations['example.com/Owner_1.x']"}}}
  - {name: F, valueFrom: {fieldRef: {fieldPath: spec.nodeName}}}
  - {name: G, valueFrom: {fieldRef: {fieldPath: spec.serviceAccountName}}}
  - {name: H, valueFrom: {fieldRef: {fieldPath: status.hostIP}}}
  - {name: I, valueFrom: {fieldRef: {fieldPath: status.hostIPs}}}
  - {name: J, valueFrom: {fieldRef: {fieldPath: status.podIP}}}
  - {name: K, valueFrom: {fieldRef: {fieldPath: status.podIPs}}}
`},
}, networkpolicytestcases.Accepted(BaseAgent)...)

// AgentRejected are invalid Agent objects, with the errors the API server returns.
var AgentRejected = append([]Case{
	// The schema.
	{Name: "no image", Base: BaseAgent, Patch: `{spec: {image: null}}`, Errors: []string{admission.Missing("spec.image"), RulesNotChecked}},
	{Name: "empty image", Base: BaseAgent, Patch: `{spec: {image: ""}}`,
		Errors: []string{`spec.image: Invalid value: "": spec.image in body should be at least 1 chars long`}},
	{Name: "port 0", Base: BaseAgent, Patch: `{spec: {port: 0}}`, Errors: []string{admission.Minimum("spec.port", 0, 1)}},
	{Name: "port 65536", Base: BaseAgent, Patch: `{spec: {port: 65536}}`, Errors: []string{admission.Maximum("spec.port", 65536, 65535)}},
	{Name: "timeout without a unit", Base: BaseAgent, Patch: `{spec: {readTimeout: "30"}}`,
		Errors: []string{admission.Pattern("spec.readTimeout", "30", admission.DurationPattern)}},
	{Name: "MCP server without a scheme", Base: BaseAgent, Patch: `{spec: {mcp: {servers: ["mcp:8080"]}}}`,
		Errors: []string{admission.Pattern("spec.mcp.servers[0]", "mcp:8080", ListedURLPattern)}},
	{Name: "MCP server with a comma", Base: BaseAgent, Patch: `{spec: {mcp: {servers: ["http://a:8080,http://b:8080"]}}}`,
		Errors: []string{admission.Pattern("spec.mcp.servers[0]", "http://a:8080,http://b:8080", ListedURLPattern)}},
	{Name: "MCP endpoint without a leading slash", Base: BaseAgent, Patch: `{spec: {mcp: {endpoint: mcp}}}`,
		Errors: []string{admission.Pattern("spec.mcp.endpoint", "mcp", "^/.*")}},
	{Name: "temperature that is no number", Base: BaseAgent, Patch: `{spec: {agent: {llm: {temperature: warm}}}}`,
		Errors: []string{admission.Pattern("spec.agent.llm.temperature", "warm", `^[0-9]+(\.[0-9]+)?$`)}},
	{Name: "OTLP protocol http/json", Base: BaseAgent, Patch: `{spec: {telemetry: {traces: {exporter: {otlp: {protocol: http/json}}}}}}`,
		Errors: []string{`spec.telemetry.traces.exporter.otlp.protocol: Unsupported value: "http/json"`, RulesNotChecked}},
	{Name: "two env entries of one name", Base: BaseAgent, Patch: `{spec: {env: [{name: A, value: "1"}, {name: A, value: "2"}]}}`,
		Errors: []string{`spec.env[1]: Duplicate value: {"name":"A"}`}},
	{Name: "upstream's earlier a2a block", Base: BaseAgent, Patch: `{spec: {a2a: {enabled: true}}}`, Errors: []string{`unknown field "spec.a2a"`}},

	// CEL.
	{Name: "a fieldRef the downward API does not give", Base: BaseAgent, Patch: `{spec: {env: [{name: A, valueFrom: {fieldRef: {fieldPath: spec.containers}}}]}}`,
		Errors: []string{admission.Invalid("spec.env", v1alpha1.MessageEnvFieldRef)}},
	{Name: "a fieldRef of apiVersion v2", Base: BaseAgent, Patch: `{spec: {env: [{name: A, valueFrom: {fieldRef: {apiVersion: v2, fieldPath: metadata.name}}}]}}`,
		Errors: []string{admission.Invalid("spec.env", v1alpha1.MessageEnvFieldRef)}},
	{Name: "a fieldRef of a label whose key is no qualified name", Base: BaseAgent, Patch: `{spec: {env: [{name: A, valueFrom: {fieldRef: {fieldPath: "metadata.labels['a b']"}}}]}}`,
		Errors: []string{admission.Invalid("spec.env", v1alpha1.MessageEnvFieldRef)}},
	{Name: "a fieldRef of an annotation whose name is 64", Base: BaseAgent, Patch: fmt.Sprintf(`{spec: {env: [{name: A, valueFrom: {fieldRef: {fieldPath: "metadata.annotations['%s']"}}}]}}`, admission.Long(64)),
		Errors: []string{admission.Invalid("spec.env", v1alpha1.MessageEnvFieldRef)}},
	{Name: "resource claims", Base: BaseAgent, Patch: `{spec: {resources: {claims: [{name: gpu}]}}}`,
		Errors: []string{admission.Forbidden("spec.resources.claims", v1alpha1.MessageResourceClaims)}},
	{Name: "name of 64 characters", Base: BaseAgent, Patch: fmt.Sprintf(`{metadata: {name: %s}}`, admission.Long(64)), Errors: []string{admission.Invalid("<nil>", v1alpha1.MessageAgentName)}},
	{Name: "name with a dot", Base: BaseAgent, Patch: `{metadata: {name: calendar.v1}}`, Errors: []string{admission.Invalid("<nil>", v1alpha1.MessageAgentName)}},
	{Name: "PORT in env", Base: BaseAgent, Patch: `{spec: {env: [{name: PORT, value: "7000"}]}}`,
		Errors: []string{admission.Invalid("spec.env", v1alpha1.MessageAgentEnvPort)}},
	{Name: "PORT in env equal to spec.port", Base: BaseAgent, Patch: `{spec: {port: 9000, env: [{name: PORT, value: "9000"}]}}`,
		Errors: []string{admission.Invalid("spec.env", v1alpha1.MessageAgentEnvPort)}},
	{Name: "tls enabled", Base: BaseAgent, Patch: `{spec: {tls: {enabled: true, secretRef: calendar-tls}}}`,
		Errors: []string{admission.Forbidden("spec.tls.enabled", v1alpha1.MessageAgentTLS)}},
	{Name: "agent tls enabled", Base: BaseAgent, Patch: `{spec: {agent: {tls: {enabled: true}}}}`,
		Errors: []string{admission.Forbidden("spec.agent.tls.enabled", v1alpha1.MessageAgentLoopTLS)}},
	{Name: "deprecated apiKey", Base: BaseAgent, Patch: `{spec: {agent: {apiKey: {secretRef: llm}}}}`,
		Errors: []string{admission.Forbidden("spec.agent.apiKey.secretRef", v1alpha1.MessageAgentAPIKey)}},
	{Name: "two OTLP endpoints", Base: BaseAgent, Patch: `{spec: {telemetry: {traces: {exporter: {otlp: {endpoint: "http://a:4318"}}}, metrics: {exporter: {otlp: {endpoint: "http://b:4318"}}}}}}`,
		Errors: []string{admission.Invalid("spec.telemetry.metrics.exporter.otlp", v1alpha1.MessageAgentOTLPEndpoint)}},
	{Name: "two OTLP protocols", Base: BaseAgent, Patch: `{spec: {telemetry: {traces: {exporter: {otlp: {protocol: grpc}}}, metrics: {exporter: {otlp: {protocol: http/protobuf}}}}}}`,
		Errors: []string{admission.Invalid("spec.telemetry.metrics.exporter.otlp", v1alpha1.MessageAgentOTLPEndpoint)}},
	{Name: "receiver enabled", Base: BaseAgent, Patch: `{spec: {telemetry: {receiver: {enabled: true}}}}`,
		Errors: []string{admission.Forbidden("spec.telemetry.receiver.enabled", v1alpha1.MessageAgentReceiver)}},
	{Name: "metrics enabled", Base: BaseAgent, Patch: `{spec: {telemetry: {metrics: {enabled: true}}}}`,
		Errors: []string{admission.Forbidden("spec.telemetry.metrics.enabled", v1alpha1.MessageWorkloadMetricsOn)}},
	{Name: "metrics port", Base: BaseAgent, Patch: `{spec: {telemetry: {metrics: {port: 9100}}}}`,
		Errors: []string{admission.Invalid("spec.telemetry.metrics.port", v1alpha1.MessageWorkloadMetricsPort)}},
	{Name: "two metrics exporters", Base: BaseAgent, Patch: `{spec: {telemetry: {metrics: {exporter: {otlp: {}, prometheus: {}}}}}}`,
		Errors: []string{admission.Invalid("spec.telemetry.metrics.exporter", v1alpha1.MessageMetricsExporterExclusive)}},

	// Size bounds (issue 33): one past each bound, refused.
	{Name: "env value of 65537", Base: BaseAgent, Patch: fmt.Sprintf(`{spec: {env: [{name: X, value: %s}]}}`, admission.Long(65537)),
		Errors: []string{admission.TooLong("spec.env[0].value", 65536), RulesNotChecked}},
	{Name: "17 resource claims", Base: BaseAgent, Patch: `{spec: {resources: {claims: ` + admission.Numbered(17, "{name: c%d}") + `}}}`,
		Errors: []string{admission.TooMany("spec.resources.claims", 17, 16), RulesNotChecked}},
	{Name: "33 resource limits", Base: BaseAgent, Patch: `{spec: {resources: {limits: ` + admission.Props(33, `"1"`) + `}}}`,
		Errors: []string{admission.TooMany("spec.resources.limits", 33, 32), RulesNotChecked}},
	{Name: "apiKeySecretRef key of 254", Base: BaseAgent, Patch: fmt.Sprintf(`{spec: {agent: {llm: {apiKeySecretRef: {name: s, key: %s}}}}}`, admission.Long(254)),
		Errors: []string{admission.TooLong("spec.agent.llm.apiKeySecretRef.key", 253), RulesNotChecked}},
}, networkpolicytestcases.Rejected(BaseAgent)...)
