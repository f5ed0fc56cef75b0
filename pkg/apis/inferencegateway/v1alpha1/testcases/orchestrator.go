package testcases

import (
	"fmt"

	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/apis/internal/admission"
	networkpolicytestcases "github.com/llm-infra/llm-infra-operator/pkg/apis/networkpolicy/v1alpha1/testcases"
)

// ListedURLPattern is the pattern of the URLs an Agent's and an Orchestrator's lists and a
// Gateway's spec.mcp.servers[].url hold: no white space and no comma, since the lists are passed
// comma-separated and written into YAML.
const ListedURLPattern = `^https?://[^\s,]+$`

// BaseOrchestrator is a small Orchestrator: only the required fields.
const BaseOrchestrator = `
apiVersion: core.inference-gateway.com/v1alpha1
kind: Orchestrator
metadata:
  name: orchestrator
  namespace: llm
spec:
  image: ghcr.io/inference-gateway/cli:latest
  channels:
    telegram:
      enabled: true
      tokenSecretRef: {name: telegram-bot-credentials, key: token}
  gateway:
    url: http://inference-gateway.llm.svc.cluster.local:8080
  agent:
    model: deepseek/deepseek-chat
`

// UpstreamOrchestrator is upstream's examples/orchestrator/05-orchestrator.yaml (at operator
// commit fae5b925).
const UpstreamOrchestrator = `
apiVersion: core.inference-gateway.com/v1alpha1
kind: Orchestrator
metadata:
  name: orchestrator
  namespace: orchestrator
spec:
  image: ghcr.io/inference-gateway/cli:latest
  env:
  - {name: TZ, value: Europe/Berlin}
  - {name: INFER_STORAGE_ENABLED, value: "true"}
  - {name: INFER_STORAGE_TYPE, value: redis}
  - {name: INFER_STORAGE_REDIS_HOST, value: redis.orchestrator.svc.cluster.local}
  - {name: INFER_STORAGE_REDIS_PORT, value: "6379"}
  channels:
    maxWorkers: 5
    imageRetention: 5
    requireApproval: true
    telegram:
      enabled: true
      tokenSecretRef: {name: telegram-bot-credentials, key: token}
      allowedUsersSecretRef: {name: telegram-bot-credentials, key: allowedUsers}
      pollTimeout: 30s
  gateway:
    url: http://inference-gateway.inference-gateway.svc.cluster.local:8080
  agent:
    model: deepseek/deepseek-v4-flash
    systemPrompt: You are a helpful assistant.
  tools: {enabled: true, schedule: true}
  a2a:
    enabled: true
    agents: []
    serviceDiscovery:
      enabled: true
      namespace: agents
      selector: {matchLabels: {agent-group: group1}}
  mcp:
    enabled: true
    servers: []
    serviceDiscovery:
      enabled: true
      namespace: mcp
      selector: {matchLabels: {mcp-group: group1}}
  telemetry:
    enabled: true
    metrics:
      exporter:
        otlp: {endpoint: "http://otel-collector:4318"}
`

// OrchestratorAccepted are valid Orchestrator objects.
var OrchestratorAccepted = append([]Case{
	{Name: "base", Base: BaseOrchestrator},
	{Name: "upstream example 05-orchestrator", Base: UpstreamOrchestrator},
	{Name: "every field set", Base: BaseOrchestrator, Patch: `
spec:
  channels:
    maxWorkers: 3
    imageRetention: 0
    requireApproval: false
    telegram:
      enabled: false
      allowedUsersSecretRef: {name: telegram-bot-credentials, key: allowedUsers, optional: true}
      pollTimeout: 1m30s
  gateway:
    apiKeySecretRef: {name: gateway-credentials, key: apiKey}
  agent:
    systemPrompt: You are the on-call assistant.
  tools: {enabled: true, schedule: false}
  a2a:
    enabled: true
    agents: ["http://helpdesk.agents.svc.cluster.local:8080"]
    serviceDiscovery:
      enabled: true
      selector:
        matchExpressions: [{key: tier, operator: In, values: [a, b]}, {key: legacy, operator: DoesNotExist}]
  mcp:
    enabled: true
    servers: ["https://mcp.example.com/mcp"]
    serviceDiscovery: {enabled: true, namespace: mcp}
  resources: {requests: {cpu: 100m}, limits: {memory: 256Mi}}
  env: [{name: TZ, value: UTC}, {name: INFER_GATEWAY_RUN, value: "false"}]
  telemetry:
    enabled: true
    traces: {exporter: {otlp: {endpoint: "http://otel:4318", protocol: http/protobuf}}}
    metrics: {enabled: false, port: 9464, exporter: {otlp: {endpoint: "http://otel:4318"}}}
    receiver: {enabled: true, port: 14318}
`},
	{Name: "name of 54 characters (the bound)", Base: BaseOrchestrator, Patch: fmt.Sprintf(`{metadata: {name: %s}}`, admission.Long(54))},

	// Admitted, and decided by the operator: the other namespace's consent to discovery, a
	// ReferenceGrant there (issue 33).
	{Name: "Agent and MCP discovery in another namespace", Base: BaseOrchestrator, Patch: `{spec: {a2a: {enabled: true, serviceDiscovery: {enabled: true, namespace: agents}}, mcp: {enabled: true, serviceDiscovery: {enabled: true, namespace: tools}}}}`},

	// A metrics block of an exporter alone: the rules on enabled and port hold without them
	// (with has(): a request of another kind, which the API server does not default, made them
	// fail with "no such key").
	{Name: "metrics of an exporter alone", Base: BaseOrchestrator, Patch: `{spec: {telemetry: {enabled: true, metrics: {exporter: {otlp: {endpoint: "http://otel:4318"}}}}}}`},
	{Name: "a fieldRef of the pod's name", Base: BaseOrchestrator, Patch: `{spec: {env: [{name: POD, valueFrom: {fieldRef: {fieldPath: metadata.name}}}]}}`},

	// Size bounds (issue 33): at each bound, admitted.
	{Name: "at the size bounds", Base: BaseOrchestrator, Patch: fmt.Sprintf(`
spec:
  channels: {telegram: {tokenSecretRef: {name: %s, key: %s}}}
  env: [{name: %s, value: v}]
  a2a: {enabled: true, serviceDiscovery: {enabled: true, selector: {matchExpressions: [{key: %s, operator: In, values: %s}]}}}
`, admission.Long(253), admission.Long(253), admission.Long(253), admission.Long(317), admission.Items(256, admission.Long(63)))},
}, networkpolicytestcases.Accepted(BaseOrchestrator)...)

// OrchestratorRejected are invalid Orchestrator objects, with the errors the API server returns.
var OrchestratorRejected = append([]Case{
	// The schema.
	{Name: "no channels", Base: BaseOrchestrator, Patch: `{spec: {channels: null}}`, Errors: []string{admission.Missing("spec.channels"), RulesNotChecked}},
	{Name: "no telegram token", Base: BaseOrchestrator, Patch: `{spec: {channels: {telegram: {tokenSecretRef: null}}}}`,
		Errors: []string{admission.Missing("spec.channels.telegram.tokenSecretRef"), RulesNotChecked}},
	{Name: "no gateway url", Base: BaseOrchestrator, Patch: `{spec: {gateway: {url: null}}}`, Errors: []string{admission.Missing("spec.gateway.url"), RulesNotChecked}},
	{Name: "gateway url without a scheme", Base: BaseOrchestrator, Patch: `{spec: {gateway: {url: "gw:8080"}}}`,
		Errors: []string{admission.Pattern("spec.gateway.url", "gw:8080", `^https?://.+$`)}},
	{Name: "agent URL with a space", Base: BaseOrchestrator, Patch: `{spec: {a2a: {enabled: true, agents: ["http://a:8080 #b"]}}}`,
		Errors: []string{admission.Pattern("spec.a2a.agents[0]", "http://a:8080 #b", ListedURLPattern)}},
	{Name: "MCP server without a scheme", Base: BaseOrchestrator, Patch: `{spec: {mcp: {enabled: true, servers: ["mcp:8080"]}}}`,
		Errors: []string{admission.Pattern("spec.mcp.servers[0]", "mcp:8080", ListedURLPattern)}},
	{Name: "no model", Base: BaseOrchestrator, Patch: `{spec: {agent: {model: null}}}`, Errors: []string{admission.Missing("spec.agent.model"), RulesNotChecked}},
	{Name: "no image", Base: BaseOrchestrator, Patch: `{spec: {image: null}}`, Errors: []string{admission.Missing("spec.image"), RulesNotChecked}},
	{Name: "a2a without enabled", Base: BaseOrchestrator, Patch: `{spec: {a2a: {agents: ["http://a:8080"]}}}`, Errors: []string{admission.Missing("spec.a2a.enabled"), RulesNotChecked}},
	{Name: "pollTimeout without a unit", Base: BaseOrchestrator, Patch: `{spec: {channels: {telegram: {pollTimeout: "30"}}}}`,
		Errors: []string{admission.Pattern("spec.channels.telegram.pollTimeout", "30", admission.DurationPattern)}},
	{Name: "maxWorkers 0", Base: BaseOrchestrator, Patch: `{spec: {channels: {maxWorkers: 0}}}`, Errors: []string{admission.Minimum("spec.channels.maxWorkers", 0, 1)}},
	{Name: "discovery namespace that is no name", Base: BaseOrchestrator, Patch: `{spec: {mcp: {enabled: true, serviceDiscovery: {enabled: true, namespace: MCP}}}}`,
		Errors: []string{admission.Pattern("spec.mcp.serviceDiscovery.namespace", "MCP", `^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)}},

	// CEL.
	{Name: "a fieldRef the downward API does not give", Base: BaseOrchestrator, Patch: `{spec: {env: [{name: A, valueFrom: {fieldRef: {fieldPath: metadata.generateName}}}]}}`,
		Errors: []string{admission.Invalid("spec.env", v1alpha1.MessageEnvFieldRef)}},
	{Name: "resource claims", Base: BaseOrchestrator, Patch: `{spec: {resources: {claims: [{name: gpu}]}}}`,
		Errors: []string{admission.Forbidden("spec.resources.claims", v1alpha1.MessageResourceClaims)}},
	{Name: "name of 55 characters", Base: BaseOrchestrator, Patch: fmt.Sprintf(`{metadata: {name: %s}}`, admission.Long(55)),
		Errors: []string{admission.Invalid("<nil>", v1alpha1.MessageOrchestratorName)}},
	{Name: "receiver address in env", Base: BaseOrchestrator, Patch: `{spec: {env: [{name: INFER_TELEMETRY_RECEIVER_ADDRESS, value: "0.0.0.0:4318"}]}}`,
		Errors: []string{admission.Invalid("spec.env", v1alpha1.MessageOrchestratorEnvReceiver)}},
	{Name: "pollTimeout below 1s", Base: BaseOrchestrator, Patch: `{spec: {channels: {telegram: {pollTimeout: 500ms}}}}`,
		Errors: []string{admission.Invalid("spec.channels.telegram.pollTimeout", v1alpha1.MessageOrchestratorPollTimeout)}},
	{Name: "agent selector In without values", Base: BaseOrchestrator, Patch: `{spec: {a2a: {enabled: true, serviceDiscovery: {enabled: true, selector: {matchExpressions: [{key: k, operator: In}]}}}}}`,
		Errors: []string{admission.Invalid("spec.a2a.serviceDiscovery.selector", v1alpha1.MessageOrchestratorSelector)}},
	{Name: "MCP selector Exists with values", Base: BaseOrchestrator, Patch: `{spec: {mcp: {enabled: true, serviceDiscovery: {enabled: true, selector: {matchExpressions: [{key: k, operator: Exists, values: [v]}]}}}}}`,
		Errors: []string{admission.Invalid("spec.mcp.serviceDiscovery.selector", v1alpha1.MessageOrchestratorSelector)}},
	{Name: "selector operator Gt", Base: BaseOrchestrator, Patch: `{spec: {mcp: {enabled: true, serviceDiscovery: {enabled: true, selector: {matchExpressions: [{key: k, operator: Gt, values: ["1"]}]}}}}}`,
		Errors: []string{admission.Invalid("spec.mcp.serviceDiscovery.selector", v1alpha1.MessageOrchestratorSelector)}},
	{Name: "two OTLP endpoints", Base: BaseOrchestrator, Patch: `{spec: {telemetry: {traces: {exporter: {otlp: {endpoint: "http://a:4318"}}}, metrics: {exporter: {otlp: {endpoint: "http://b:4318"}}}}}}`,
		Errors: []string{admission.Invalid("spec.telemetry.metrics.exporter.otlp.endpoint", v1alpha1.MessageOrchestratorOTLP)}},
	{Name: "prometheus exporter", Base: BaseOrchestrator, Patch: `{spec: {telemetry: {metrics: {exporter: {prometheus: {port: 9464}}}}}}`,
		Errors: []string{admission.Forbidden("spec.telemetry.metrics.exporter.prometheus", v1alpha1.MessageOrchestratorProm)}},
	{Name: "traces over grpc", Base: BaseOrchestrator, Patch: `{spec: {telemetry: {traces: {exporter: {otlp: {protocol: grpc}}}}}}`,
		Errors: []string{admission.Invalid("spec.telemetry.traces.exporter.otlp.protocol", v1alpha1.MessageOrchestratorTraceGRPC)}},
	{Name: "metrics over grpc", Base: BaseOrchestrator, Patch: `{spec: {telemetry: {metrics: {exporter: {otlp: {protocol: grpc}}}}}}`,
		Errors: []string{admission.Invalid("spec.telemetry.metrics.exporter.otlp.protocol", v1alpha1.MessageOrchestratorMetrGRPC)}},
	{Name: "two metrics exporters", Base: BaseOrchestrator, Patch: `{spec: {telemetry: {metrics: {exporter: {otlp: {}, prometheus: {}}}}}}`,
		Errors: []string{admission.Invalid("spec.telemetry.metrics.exporter", v1alpha1.MessageMetricsExporterExclusive),
			admission.Forbidden("spec.telemetry.metrics.exporter.prometheus", v1alpha1.MessageOrchestratorProm)}},
	{Name: "metrics enabled", Base: BaseOrchestrator, Patch: `{spec: {telemetry: {metrics: {enabled: true}}}}`,
		Errors: []string{admission.Forbidden("spec.telemetry.metrics.enabled", v1alpha1.MessageWorkloadMetricsOn)}},
	{Name: "metrics port", Base: BaseOrchestrator, Patch: `{spec: {telemetry: {metrics: {port: 9100}}}}`,
		Errors: []string{admission.Invalid("spec.telemetry.metrics.port", v1alpha1.MessageWorkloadMetricsPort)}},

	// Size bounds (issue 33): one past each bound, refused.
	{Name: "tokenSecretRef name of 254", Base: BaseOrchestrator, Patch: fmt.Sprintf(`{spec: {channels: {telegram: {tokenSecretRef: {name: %s}}}}}`, admission.Long(254)),
		Errors: []string{admission.TooLong("spec.channels.telegram.tokenSecretRef.name", 253), RulesNotChecked}},
	{Name: "env name of 254", Base: BaseOrchestrator, Patch: fmt.Sprintf(`{spec: {env: [{name: %s, value: v}]}}`, admission.Long(254)),
		Errors: []string{admission.TooLong("spec.env[0].name", 253), RulesNotChecked}},
	{Name: "257 values of a discovery expression", Base: BaseOrchestrator, Patch: `{spec: {a2a: {enabled: true, serviceDiscovery: {enabled: true, selector: {matchExpressions: [{key: k, operator: In, values: ` + admission.Items(257, "v") + `}]}}}}}`,
		Errors: []string{admission.TooMany("spec.a2a.serviceDiscovery.selector.matchExpressions[0].values", 257, 256), RulesNotChecked}},
	{Name: "a discovery expression's key of 318", Base: BaseOrchestrator, Patch: fmt.Sprintf(`{spec: {mcp: {enabled: true, serviceDiscovery: {enabled: true, selector: {matchExpressions: [{key: %s, operator: Exists}]}}}}}`, admission.Long(318)),
		Errors: []string{admission.TooLong("spec.mcp.serviceDiscovery.selector.matchExpressions[0].key", 317), RulesNotChecked}},
}, networkpolicytestcases.Rejected(BaseOrchestrator)...)
