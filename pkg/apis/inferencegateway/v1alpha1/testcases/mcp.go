package testcases

import (
	"fmt"

	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/apis/internal/admission"
	networkpolicytestcases "github.com/llm-infra/llm-infra-operator/pkg/apis/networkpolicy/v1alpha1/testcases"
)

// MCPAccepted are valid MCP objects.
var MCPAccepted = append([]Case{
	{Name: "base", Base: BaseMCP},
	{Name: "upstream example mcp-server", Base: UpstreamMCP},
	{Name: "every field set", Base: BaseMCP, Patch: `
spec:
  replicas: 2
  image: node:22
  server:
    port: 3000
    path: /sse
    command: [npx]
    args: [-y, "@modelcontextprotocol/server-memory", --port, "3000"]
    timeout: 30s
    tls: {enabled: true, secretName: memory-tls}
  hpa:
    enabled: true
    config:
      scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: memory}
      minReplicas: 1
      maxReplicas: 5
      metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 60}}}]
`},
	{Name: "replicas 0", Base: BaseMCP, Patch: `{spec: {replicas: 0}}`},
	{Name: "tls disabled", Base: BaseMCP, Patch: `{spec: {server: {tls: {enabled: false, secretName: unused}}}}`},
	{Name: "empty spec", Base: BaseMCP, Patch: `{spec: null}`},
	{Name: "name of 55 characters (the bound)", Base: BaseMCP, Patch: fmt.Sprintf(`{metadata: {name: %s}}`, admission.Long(55))},

	// Size bounds (issue 33) and spec.server.path's characters: admitted.
	{Name: "at the size bounds", Base: BaseMCP, Patch: fmt.Sprintf(`
spec:
  hpa:
    config:
      maxReplicas: 3
      behavior: {scaleDown: {policies: %s, selectPolicy: Max}}
      metrics: [{type: Pods, pods: {metric: {name: %s}, target: {type: AverageValue, averageValue: "1"}}}]
`, admission.Items(16, "{type: Percent, value: 10, periodSeconds: 60}"), admission.Long(1024))},
	{Name: "path of 2048 characters (the bound)", Base: BaseMCP, Patch: fmt.Sprintf(`{spec: {server: {path: /%s}}}`, admission.Long(2047))},
	{Name: "path /", Base: BaseMCP, Patch: `{spec: {server: {path: /}}}`},
	{Name: "path /sse", Base: BaseMCP, Patch: `{spec: {server: {path: /sse}}}`},
	{Name: "path with every allowed character", Base: BaseMCP, Patch: `{spec: {server: {path: "/v1/mcp-server_2.0~x/!$&'()*+;=:@/a%20b%2C%C3%A9"}}}`},
}, networkpolicytestcases.Accepted(BaseMCP)...)

// MCPRejected are invalid MCP objects, with the errors the API server returns.
var MCPRejected = append([]Case{
	// Names: the server's Service is <name>-service.
	{Name: "name of 56 characters", Base: BaseMCP, Patch: fmt.Sprintf(`{metadata: {name: %s}}`, admission.Long(56)), Errors: []string{admission.Invalid("<nil>", v1alpha1.MessageMCPName)}},
	{Name: "name with a dot", Base: BaseMCP, Patch: `{metadata: {name: memory.v1}}`, Errors: []string{admission.Invalid("<nil>", v1alpha1.MessageMCPName)}},

	{Name: "tls without secretName", Base: BaseMCP, Patch: `{spec: {server: {tls: {enabled: true}}}}`, Errors: []string{admission.Missing("spec.server.tls.secretName"), RulesNotChecked}},
	{Name: "tls with an empty secretName", Base: BaseMCP, Patch: `{spec: {server: {tls: {secretName: ""}}}}`,
		Errors: []string{`spec.server.tls.secretName: Invalid value: "": spec.server.tls.secretName in body should be at least 1 chars long`}},
	{Name: "replicas -1", Base: BaseMCP, Patch: `{spec: {replicas: -1}}`, Errors: []string{admission.Minimum("spec.replicas", -1, 0)}},
	{Name: "replicas 101", Base: BaseMCP, Patch: `{spec: {replicas: 101}}`, Errors: []string{admission.Maximum("spec.replicas", 101, 100)}},
	{Name: "port 0", Base: BaseMCP, Patch: `{spec: {server: {port: 0}}}`, Errors: []string{admission.Minimum("spec.server.port", 0, 1)}},
	{Name: "port 65536", Base: BaseMCP, Patch: `{spec: {server: {port: 65536}}}`, Errors: []string{admission.Maximum("spec.server.port", 65536, 65535)}},
	{Name: "image", Base: BaseMCP, Patch: fmt.Sprintf(`{spec: {image: %s}}`, admission.Long(1025)), Errors: []string{admission.TooLong("spec.image", 1024), RulesNotChecked}},
	{Name: "path", Base: BaseMCP, Patch: fmt.Sprintf(`{spec: {server: {path: /%s}}}`, admission.Long(2048)), Errors: []string{admission.TooLong("spec.server.path", 2048), RulesNotChecked}},
	{Name: "65 command items", Base: BaseMCP, Patch: `{spec: {server: {command: ` + admission.Items(65, "x") + `}}}`, Errors: []string{admission.TooMany("spec.server.command", 65, 64), RulesNotChecked}},
	{Name: "257 args", Base: BaseMCP, Patch: `{spec: {server: {args: ` + admission.Items(257, "x") + `}}}`, Errors: []string{admission.TooMany("spec.server.args", 257, 256), RulesNotChecked}},
	{Name: "an arg", Base: BaseMCP, Patch: fmt.Sprintf(`{spec: {server: {args: [%s]}}}`, admission.Long(4097)), Errors: []string{admission.TooLong("spec.server.args[0]", 4096), RulesNotChecked}},
	{Name: "tls secretName", Base: BaseMCP, Patch: fmt.Sprintf(`{spec: {server: {tls: {secretName: %s}}}}`, admission.Long(254)), Errors: []string{admission.TooLong("spec.server.tls.secretName", 253), RulesNotChecked}},
	{Name: "upstream's earlier package and bridge", Base: BaseMCP, Patch: `{spec: {package: "@modelcontextprotocol/server-memory", bridge: {port: 8081}}}`,
		Errors: []string{`unknown field "spec.bridge"`, `unknown field "spec.package"`}},
	{Name: "command as a string (upstream's earlier schema)", Base: BaseMCP, Patch: `{spec: {server: {command: npx}}}`,
		Errors: []string{`spec.server.command: Invalid value: "string": spec.server.command in body must be of type array`, RulesNotChecked}},

	// CEL.
	{Name: "timeout 60s", Base: BaseMCP, Patch: `{spec: {server: {timeout: 60s}}}`, Errors: []string{admission.Invalid("spec.server.timeout", v1alpha1.MessageMCPServerTimeout)}},
	{Name: "scaleTargetRef of another Deployment", Base: BaseMCP, Patch: `{spec: {hpa: {enabled: true, config: {maxReplicas: 3, scaleTargetRef: {kind: Deployment, name: gw}}}}}`,
		Errors: []string{admission.Invalid("spec.hpa.config.scaleTargetRef", v1alpha1.MessageMCPScaleTargetRef)}},
	{Name: "hpa minReplicas above maxReplicas", Base: BaseMCP, Patch: `{spec: {hpa: {config: {minReplicas: 4, maxReplicas: 2}}}}`,
		Errors: []string{admission.Invalid("spec.hpa.config.minReplicas", v1alpha1.MessageHPAMinAboveMax)}},

	// Size bounds (issue 33).
	{Name: "17 HPA scale-down policies", Base: BaseMCP, Patch: `{spec: {hpa: {config: {maxReplicas: 3, behavior: {scaleDown: {policies: ` + admission.Items(17, "{type: Pods, value: 1, periodSeconds: 60}") + `}}}}}}`,
		Errors: []string{admission.TooMany("spec.hpa.config.behavior.scaleDown.policies", 17, 16), RulesNotChecked}},
	{Name: "HPA metric name of 1025", Base: BaseMCP, Patch: fmt.Sprintf(`{spec: {hpa: {config: {maxReplicas: 3, metrics: [{type: Pods, pods: {metric: {name: %s}, target: {type: AverageValue, averageValue: "1"}}}]}}}}`, admission.Long(1025)),
		Errors: []string{admission.TooLong("spec.hpa.config.metrics[0].pods.metric.name", 1024), RulesNotChecked}},

	// spec.server.path is joined into the comma-separated MCP_SERVERS of discovering Gateways
	// and written into an Orchestrator's mcp.yaml (issue 33): a URL path only.
	{Name: "path without a leading slash", Base: BaseMCP, Patch: `{spec: {server: {path: mcp}}}`, Errors: []string{admission.Invalid("spec.server.path", v1alpha1.MessageMCPServerPath)}},
	{Name: "path with a comma", Base: BaseMCP, Patch: `{spec: {server: {path: "/mcp,http://other.example/mcp"}}}`, Errors: []string{admission.Invalid("spec.server.path", v1alpha1.MessageMCPServerPath)}},
	{Name: "path with a fragment", Base: BaseMCP, Patch: `{spec: {server: {path: "/mcp#x"}}}`, Errors: []string{admission.Invalid("spec.server.path", v1alpha1.MessageMCPServerPath)}},
	{Name: "path with a query", Base: BaseMCP, Patch: `{spec: {server: {path: "/mcp?x=1"}}}`, Errors: []string{admission.Invalid("spec.server.path", v1alpha1.MessageMCPServerPath)}},
	{Name: "path with a space", Base: BaseMCP, Patch: `{spec: {server: {path: "/m cp"}}}`, Errors: []string{admission.Invalid("spec.server.path", v1alpha1.MessageMCPServerPath)}},
	{Name: "path with a tab", Base: BaseMCP, Patch: `{spec: {server: {path: "/m\tcp"}}}`, Errors: []string{admission.Invalid("spec.server.path", v1alpha1.MessageMCPServerPath)}},
	{Name: "path with a line break", Base: BaseMCP, Patch: `{spec: {server: {path: "/mcp\nx: y"}}}`, Errors: []string{admission.Invalid("spec.server.path", v1alpha1.MessageMCPServerPath)}},
	{Name: "path with %0A", Base: BaseMCP, Patch: `{spec: {server: {path: "/mcp%0Ax"}}}`, Errors: []string{admission.Invalid("spec.server.path", v1alpha1.MessageMCPServerPath)}},
	{Name: "path with %0d", Base: BaseMCP, Patch: `{spec: {server: {path: "/mcp%0dx"}}}`, Errors: []string{admission.Invalid("spec.server.path", v1alpha1.MessageMCPServerPath)}},
	{Name: "path with %7F", Base: BaseMCP, Patch: `{spec: {server: {path: "/mcp%7F"}}}`, Errors: []string{admission.Invalid("spec.server.path", v1alpha1.MessageMCPServerPath)}},
	{Name: "path with a lone %", Base: BaseMCP, Patch: `{spec: {server: {path: "/mcp%2"}}}`, Errors: []string{admission.Invalid("spec.server.path", v1alpha1.MessageMCPServerPath)}},
	{Name: "path with a backslash", Base: BaseMCP, Patch: `{spec: {server: {path: "/mcp\\x"}}}`, Errors: []string{admission.Invalid("spec.server.path", v1alpha1.MessageMCPServerPath)}},
	{Name: "path with a non-ASCII letter", Base: BaseMCP, Patch: `{spec: {server: {path: "/café"}}}`, Errors: []string{admission.Invalid("spec.server.path", v1alpha1.MessageMCPServerPath)}},
}, networkpolicytestcases.Rejected(BaseMCP)...)
