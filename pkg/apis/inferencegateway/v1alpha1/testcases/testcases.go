// Package testcases is the table of Gateway and MCP admission cases: objects the API server must
// accept and objects it must reject, each with the errors it must return. The API package's unit
// tests run every case through the API server's own validators (and the CEL cases through
// Gateway.ValidateSpec and MCP.ValidateSpec); an e2e suite can create them on a real API server
// (server-side dry run) and expect the same errors. It is data: it imports nothing that
// validates. The golden CRs (test/golden/inference-gateway/*/cr.yaml) must be accepted too; the
// unit tests add them to the table, the e2e suite applies them itself.
package testcases

import (
	"fmt"
	"strings"

	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/apis/internal/admission"
)

// Case is one object and what the API server says about it: Base (a base object below or an
// upstream example, as YAML) with Patch (a JSON merge patch, as YAML) applied,
// and the substrings of the errors the API server must return (none: accepted).
type Case = admission.Case

// RulesNotChecked is the API server's error when schema errors keep it from running the CEL
// rules.
const RulesNotChecked = admission.RulesNotChecked

// Golden returns one case per <dir>/<case>/cr.yaml (the upstream operator's golden CRs, in
// test/golden/inference-gateway), each to be accepted unchanged: the loader the API tests use
// (crdtest.GoldenCases), for the e2e suite, which cannot import pkg/apis/internal.
func Golden(dir string) ([]Case, error) { return admission.Golden(dir) }

// GoldenOf returns the golden CRs of kind under dir, those refused by design with their errors
// (admission.GoldenOf): for the suites outside pkg/apis, which cannot import pkg/apis/internal.
func GoldenOf(dir, kind string, refused map[string][]string) ([]Case, error) {
	return admission.GoldenOf(dir, kind, refused)
}

// InferenceGatewayGoldenRefused are the golden Gateways and MCPs (test/golden/inference-gateway)
// this API refuses by design, by case name, with the errors the API server returns and why
// (docs/differences-from-upstream.md).
var InferenceGatewayGoldenRefused = map[string][]string{
	// spec.server.timeout: 60s reached neither the server nor its clients upstream (its MCP
	// controller passed no timeout); here only the default, 30s, is admitted, so that a
	// timeout nobody honours is not written.
	"golden extra-mcp-hpa-tls": {admission.Invalid("spec.server.timeout", v1alpha1.MessageMCPServerTimeout)},
}

// AgentsGoldenRefused are the golden Agents and Orchestrators (test/golden/inference-gateway-agents)
// this API refuses by design, by case name, with the errors the API server returns and why
// (docs/differences-from-upstream.md).
var AgentsGoldenRefused = map[string][]string{
	// Upstream appended its own PORT=8080 after the CR's PORT=7000, so the CR's had no effect
	// (and the agent listened on 8080); here PORT is spec.port's alone.
	"golden extra-agent-env-resources": {admission.Invalid("spec.env", v1alpha1.MessageAgentEnvPort)},
}

// LongestFieldPath is the longest fieldPath of an environment variable's fieldRef: an
// annotation whose key is a qualified name of 317 (hack/crdbounds bounds fieldPath to its 341).
var LongestFieldPath = "metadata.annotations['" + admission.Long(253) + "/" + admission.Long(63) + "']"

// BaseGateway is a small Gateway: one provider with its key from a Secret.
const BaseGateway = `
apiVersion: core.inference-gateway.com/v1alpha1
kind: Gateway
metadata:
  name: gw
  namespace: llm
spec:
  providers:
  - name: openai
    env:
    - name: OPENAI_API_KEY
      valueFrom:
        secretKeyRef: {name: openai, key: api-key}
`

// BaseMCP is a small MCP server.
const BaseMCP = `
apiVersion: core.inference-gateway.com/v1alpha1
kind: MCP
metadata:
  name: memory
  namespace: mcp
spec:
  image: registry.example/mcp-memory-server:v1
  server: {port: 8080, path: /mcp}
`

// UpstreamGatewayMinimal is upstream's examples/gateway-minimal Gateway (at operator commit
// fae5b925).
const UpstreamGatewayMinimal = `
apiVersion: core.inference-gateway.com/v1alpha1
kind: Gateway
metadata:
  name: simple-gateway
  namespace: inference-gateway
spec:
  replicas: 1
  image: ghcr.io/inference-gateway/inference-gateway:latest
  environment: development
  telemetry:
    enabled: true
    metrics: {enabled: true, port: 9464}
  server: {host: "0.0.0.0", port: 8080}
  providers:
  - name: OpenAI
    env:
    - name: OPENAI_API_KEY
      valueFrom:
        secretKeyRef: {name: openai-secret, key: api_key}
`

// UpstreamGatewayComplete is upstream's examples/gateway-complete Gateway (at operator commit
// fae5b925), which still uses spec.ingress. Its two MCP servers enable a health check the
// gateway does not have, so it is rejected; UpstreamGatewayCompleteFixed, the same with those
// health checks off, is accepted.
const UpstreamGatewayComplete = `
apiVersion: core.inference-gateway.com/v1alpha1
kind: Gateway
metadata:
  name: inference-gateway
  namespace: inference-gateway
spec:
  environment: development
  image: ghcr.io/inference-gateway/inference-gateway:latest
  hpa:
    enabled: true
    config:
      minReplicas: 3
      maxReplicas: 10
      metrics:
      - type: Resource
        resource:
          name: cpu
          target: {type: Utilization, averageUtilization: 80}
  telemetry:
    enabled: true
    metrics: {enabled: true, port: 9464}
    traces:
      exporter:
        otlp: {endpoint: "http://otel-collector:4318", protocol: http/protobuf}
  server:
    timeouts: {read: 60s, write: 60s, idle: 300s}
    tls: {enabled: false}
  auth:
    enabled: false
    provider: oidc
    oidc:
      issuerUrl: https://keycloak.inference-gateway.local/realms/inference-gateway-realm
      clientId: inference-gateway-client
      clientSecretRef: {name: inference-gateway-auth-secret, key: OIDC_CLIENT_SECRET}
  providers:
  - {name: OpenAI, enabled: false, env: [{name: OPENAI_API_KEY, valueFrom: {secretKeyRef: {name: inference-gateway-providers-secret, key: OPENAI_API_KEY}}}]}
  - {name: Anthropic, enabled: false, env: [{name: ANTHROPIC_API_KEY, valueFrom: {secretKeyRef: {name: inference-gateway-providers-secret, key: ANTHROPIC_API_KEY}}}]}
  - {name: Groq, enabled: true, env: [{name: GROQ_API_KEY, valueFrom: {secretKeyRef: {name: inference-gateway-providers-secret, key: GROQ_API_KEY}}}]}
  - {name: Cohere, enabled: true, env: [{name: COHERE_API_KEY, valueFrom: {secretKeyRef: {name: inference-gateway-providers-secret, key: COHERE_API_KEY}}}]}
  - {name: Cloudflare, enabled: true, env: [{name: CLOUDFLARE_API_KEY, valueFrom: {secretKeyRef: {name: inference-gateway-providers-secret, key: CLOUDFLARE_API_KEY}}}]}
  - {name: DeepSeek, enabled: true, env: [{name: DEEPSEEK_API_KEY, valueFrom: {secretKeyRef: {name: inference-gateway-providers-secret, key: DEEPSEEK_API_KEY}}}]}
  - {name: Ollama, enabled: true, env: [{name: OLLAMA_API_KEY, valueFrom: {secretKeyRef: {name: inference-gateway-providers-secret, key: OLLAMA_API_KEY}}}]}
  - {name: Google, enabled: true, env: [{name: GOOGLE_API_KEY, valueFrom: {secretKeyRef: {name: inference-gateway-providers-secret, key: GOOGLE_API_KEY}}}]}
  - name: Custom
    enabled: true
    env:
    - {name: CUSTOM_API_URL, valueFrom: {secretKeyRef: {name: inference-gateway-providers-secret, key: CUSTOM_API_URL}}}
    - {name: CUSTOM_API_KEY, valueFrom: {secretKeyRef: {name: inference-gateway-providers-secret, key: CUSTOM_API_KEY}}}
  mcp:
    enabled: false
    expose: false
    toolMode: selector
    timeouts: {client: 10s, dial: 5s, tlsHandshake: 5s, responseHeader: 5s, request: 10s}
    servers:
    - name: filesystem-server
      url: http://mcp-filesystem.mcp.svc.cluster.local:8080
      healthCheck: {enabled: true, path: /health, interval: 30s}
    - name: git-server
      url: http://mcp-git.mcp.svc.cluster.local:8080
      healthCheck: {enabled: true, path: /health, interval: 30s}
    serviceDiscovery:
      enabled: false
      namespace: mcp
      selector:
        matchLabels: {mcp-group: group1}
  resources:
    requests: {cpu: 100m, memory: 128Mi}
    limits: {cpu: 1000m, memory: 512Mi}
  ingress:
    enabled: true
    host: api.inference-gateway.local
    annotations:
      cert-manager.io/cluster-issuer: selfsigned-cluster-issuer
    tls: {enabled: true, secretName: inference-gateway-tls}
`

// UpstreamGatewayCompleteFixed turns UpstreamGatewayComplete's MCP health checks off.
const UpstreamGatewayCompleteFixed = `
spec:
  mcp:
    servers:
    - name: filesystem-server
      url: http://mcp-filesystem.mcp.svc.cluster.local:8080
      healthCheck: {enabled: false, path: /health, interval: 30s}
    - name: git-server
      url: http://mcp-git.mcp.svc.cluster.local:8080
`

// UpstreamMCP is upstream's examples/mcp-server MCP.
const UpstreamMCP = `
apiVersion: core.inference-gateway.com/v1alpha1
kind: MCP
metadata:
  name: mcp-memory-server
  namespace: mcp
spec:
  image: mcp-memory-server:dev
  hpa:
    enabled: true
  server:
    port: 8080
    path: /mcp
`

// providers is a providers list of n providers, as YAML.
func providers(n int) string {
	var b strings.Builder
	b.WriteString("[")
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "{name: provider-%d}", i)
	}
	b.WriteString("]")
	return b.String()
}

// Patterns of the schema, as its errors quote them.
const (
	quantityPattern = `^(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$`
	dnsPattern      = `^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	hostnamePattern = `^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	labelPattern    = `^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
)
