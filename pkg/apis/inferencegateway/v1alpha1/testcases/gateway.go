package testcases

import (
	"fmt"

	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/apis/internal/admission"
	networkpolicytestcases "github.com/llm-infra/llm-infra-operator/pkg/apis/networkpolicy/v1alpha1/testcases"
)

// GatewayAccepted are valid Gateways beyond the golden CRs: upstream's examples, every field
// set, and the edges of the rules.
var GatewayAccepted = append([]Case{
	{Name: "base", Base: BaseGateway},
	{Name: "upstream example gateway-minimal", Base: UpstreamGatewayMinimal},
	{Name: "upstream example gateway-complete, MCP health checks off", Base: UpstreamGatewayComplete, Patch: UpstreamGatewayCompleteFixed},
	{Name: "every field set", Base: BaseGateway, Patch: `
spec:
  replicas: 3
  image: registry.example/inference-gateway:v0.48.2
  environment: staging
  telemetry:
    enabled: true
    traces: {exporter: {otlp: {endpoint: "https://otel.example.com:4318", protocol: http/protobuf}}}
    metrics: {enabled: true, port: 9090}
    receiver: {enabled: false, port: 4318}
  server:
    host: "::"
    port: 8443
    timeouts: {read: 30s, write: 10m, idle: 1h30m}
    tls:
      enabled: true
      certificateRef: {name: gw-tls, key: tls.crt}
      keyRef: {name: gw-tls, key: tls.key}
  auth:
    enabled: true
    provider: oidc
    oidc:
      issuerUrl: https://keycloak.example.com/realms/llm
      clientId: gateway
      clientSecretRef: {name: oidc, key: client-secret}
      caCertRef: {name: oidc-ca, key: ca.crt}
  providers:
  - name: openai
    enabled: true
    env:
    - {name: OPENAI_API_KEY, valueFrom: {secretKeyRef: {name: openai, key: api-key}}}
    - {name: OPENAI_API_URL, value: "https://api.openai.com/v1"}
  - name: ollama
    enabled: false
    env: [{name: OLLAMA_API_URL, value: "http://ollama.llm.svc:11434/v1"}]
  - name: settings
    env: [{name: ALLOWED_MODELS, value: "gpt-4o"}, {name: TELEMETRY_METRICS_PUSH_ENABLED, value: "true"}, {name: MCP_INCLUDE_TOOLS, value: "search"}]
  mcp:
    enabled: true
    expose: true
    toolMode: direct
    timeouts: {client: 30s, dial: 2s, tlsHandshake: 2s, responseHeader: 10s, request: 1m}
    servers:
    - {name: search, url: "https://mcp.example.com/mcp"}
    - {name: time, url: "http://time.mcp.svc:8080/mcp", healthCheck: {enabled: false}}
    serviceDiscovery:
      enabled: true
      namespace: mcp
      selector: {matchExpressions: [{key: team, operator: In, values: [llm]}]}
  resources:
    requests: {cpu: 500m, memory: 512Mi}
    limits: {cpu: "4", memory: 4Gi}
  service:
    type: LoadBalancer
    port: 443
    annotations: {service.beta.kubernetes.io/aws-load-balancer-internal: "true"}
  ingress:
    enabled: true
    className: openshift-default
    host: llm.apps.example.com
    annotations: {haproxy.router.openshift.io/timeout: 10m}
    tls: {enabled: true, secretName: llm-tls, issuer: letsencrypt}
  gatewayAPI:
    enabled: true
    gateway:
      gatewayClassName: istio
      tls: {enabled: true, issuer: letsencrypt, secretName: gw-listener-tls}
    httpRoute: {hostnames: [llm.example.com, "*.llm.example.com"]}
  routing:
    enabled: true
    configMapRef: {name: routing, key: routing.yaml}
  hpa:
    enabled: true
    config:
      scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: gw}
      minReplicas: 2
      maxReplicas: 20
      metrics: [{type: Resource, resource: {name: memory, target: {type: Utilization, averageUtilization: 70}}}]
      behavior: {scaleDown: {stabilizationWindowSeconds: 600}}
  serviceAccount: {create: false, name: llm-gateway}
  guardrails:
    enabled: true
    failMode: closed
    externalUrl: "http://opa.policy.svc:8181/v1/data/llm/allow"
    externalTimeout: 2s
    configMapRef: {name: policies}
`},
	{Name: "gatewayAPI with parentRefs (every field)", Base: BaseGateway, Patch: `
spec:
  gatewayAPI:
    enabled: true
    gateway:
      parentRefs:
      - {group: gateway.networking.k8s.io, kind: Gateway, namespace: gateways, name: shared, sectionName: https, port: 443}
      - {group: "", kind: Service, name: mesh}
      tls: {enabled: false}
`},
	{Name: "scaleTargetRef of the own Deployment without apiVersion", Base: BaseGateway, Patch: `{spec: {hpa: {enabled: true, config: {maxReplicas: 3, scaleTargetRef: {kind: Deployment, name: gw}}}}}`},
	{Name: "hpa minReplicas equal to maxReplicas", Base: BaseGateway, Patch: `{spec: {hpa: {enabled: true, config: {minReplicas: 4, maxReplicas: 4}}}}`},
	{Name: "hpa enabled without config", Base: BaseGateway, Patch: `{spec: {hpa: {enabled: true}}}`},
	{Name: "auth enabled with oidc defaults", Base: BaseGateway, Patch: `{spec: {auth: {enabled: true, oidc: {}}}}`},
	{Name: "auth disabled without oidc", Base: BaseGateway, Patch: `{spec: {auth: {enabled: false}}}`},
	{Name: "server tls disabled without refs", Base: BaseGateway, Patch: `{spec: {server: {tls: {enabled: false}}}}`},
	{Name: "server tls disabled on a loopback host", Base: BaseGateway, Patch: `{spec: {server: {host: 127.0.0.1, tls: {enabled: false}}}}`},
	{Name: "server tls on ::", Base: BaseGateway, Patch: `{spec: {server: {host: "::", tls: {enabled: true, certificateRef: {name: gw-tls, key: tls.crt}, keyRef: {name: gw-tls, key: tls.key}}}}}`},
	{Name: "routing with inline config", Base: BaseGateway, Patch: `{spec: {routing: {enabled: true, config: "models: {}"}}}`},
	{Name: "routing disabled without config", Base: BaseGateway, Patch: `{spec: {routing: {enabled: false}}}`},
	{Name: "routing with an empty config and a configMapRef", Base: BaseGateway, Patch: `{spec: {routing: {enabled: true, config: "", configMapRef: {name: routing, key: r.yaml}}}}`},
	{Name: "guardrails with an external service only, failMode allow", Base: BaseGateway, Patch: `{spec: {guardrails: {enabled: true, failMode: allow, externalUrl: "http://opa:8181"}}}`},
	{Name: "guardrails with Rego policies only, failMode open", Base: BaseGateway, Patch: `{spec: {guardrails: {enabled: true, failMode: open, configMapRef: {name: policies}}}}`},
	{Name: "guardrails disabled without policies", Base: BaseGateway, Patch: `{spec: {guardrails: {enabled: false, failMode: deny}}}`},
	{Name: "ingress disabled without host", Base: BaseGateway, Patch: `{spec: {ingress: {enabled: false, className: nginx}}}`},
	{Name: "ingress with a wildcard host", Base: BaseGateway, Patch: `{spec: {ingress: {enabled: true, host: "*.apps.example.com"}}}`},
	{Name: "service NodePort", Base: BaseGateway, Patch: `{spec: {service: {type: NodePort, port: 80}}}`},
	{Name: "traces without protocol", Base: BaseGateway, Patch: `{spec: {telemetry: {enabled: true, traces: {exporter: {otlp: {endpoint: "http://collector:4318"}}}}}}`},
	{Name: "resources: request equal to limit", Base: BaseGateway, Patch: `{spec: {resources: {requests: {cpu: "1", memory: 1Gi}, limits: {cpu: 1000m, memory: 1024Mi}}}}`},
	{Name: "resources: requests only, below the default limits", Base: BaseGateway, Patch: `{spec: {resources: {requests: {cpu: "2", memory: 1Gi}}}}`},
	{Name: "resources: limits only, above the default requests", Base: BaseGateway, Patch: `{spec: {resources: {limits: {cpu: 100m, memory: 256Mi}}}}`},
	{Name: "resources in exponent and decimal forms", Base: BaseGateway, Patch: `{spec: {resources: {requests: {cpu: "0.5", memory: "5e8"}, limits: {cpu: ".75", memory: 1G}}}}`},
	{Name: "bounds: 100 replicas, port 1024 and 65535", Base: BaseGateway, Patch: `{spec: {replicas: 100, server: {port: 1024}, service: {port: 65535}, telemetry: {metrics: {port: 65535}}}}`},
	{Name: "64 providers", Base: BaseGateway, Patch: `{spec: {providers: ` + providers(64) + `}}`},
	{Name: "empty spec", Base: BaseGateway, Patch: `{spec: {providers: null}}`},
	{Name: "serviceDiscovery selector with every operator", Base: BaseGateway, Patch: `{spec: {mcp: {enabled: true, serviceDiscovery: {enabled: true, selector: {matchLabels: {app: mcp}, matchExpressions: [{key: a, operator: In, values: [x]}, {key: b, operator: NotIn, values: [z]}, {key: c, operator: Exists}, {key: d, operator: DoesNotExist}]}}}}}`},
	// Admitted, and reported by Gateway.ValidateSpec (MessageProviderEnvDuplicate): a rule too
	// costly for CEL.
	{Name: "name of 63 characters (the bound)", Base: BaseGateway, Patch: fmt.Sprintf(`{metadata: {name: %s}}`, admission.Long(63))},
	{Name: "the same variable in two providers", Base: BaseGateway, Patch: `{spec: {providers: [{name: a, env: [{name: ALLOWED_MODELS, value: gpt-4o}]}, {name: b, env: [{name: ALLOWED_MODELS, value: llama}]}]}}`},

	// Admitted, and decided by the operator (issue 33): another namespace's consent to
	// discovery (a ReferenceGrant there), the administrator's allowlists of GatewayClasses and
	// ClusterIssuers (docs/cluster-policy.md); the unit tests of the operand check what it does.
	{Name: "MCP discovery in another namespace", Base: BaseGateway, Patch: `{spec: {mcp: {enabled: true, serviceDiscovery: {enabled: true, namespace: tools}}}}`},
	{Name: "any GatewayClass and listener ClusterIssuer", Base: BaseGateway, Patch: `{spec: {gatewayAPI: {enabled: true, gateway: {gatewayClassName: public-lb, tls: {enabled: true, issuer: letsencrypt-prod}}}}}`},
	{Name: "any Ingress ClusterIssuer, by field and by annotation", Base: BaseGateway, Patch: `{spec: {ingress: {enabled: true, host: api.example.com, annotations: {cert-manager.io/issuer: other, cert-manager.io/issuer-kind: ClusterIssuer}, tls: {enabled: true, issuer: letsencrypt-prod}}}}`},

	// Size bounds (issue 33): at each bound, admitted.
	{Name: "at the size bounds", Base: BaseGateway, Patch: fmt.Sprintf(`
spec:
  providers:
  - name: openai
    env:
    - {name: %s, value: %s}
    - name: OPENAI_API_KEY
      valueFrom:
        secretKeyRef: {name: %s, key: %s}
  mcp:
    enabled: true
    serviceDiscovery:
      enabled: true
      selector:
        matchLabels: %s
        matchExpressions: %s
  server:
    tls: {enabled: true, certificateRef: {name: %s, key: tls.crt}, keyRef: {name: tls, key: tls.key}}
    host: 0.0.0.0
`, admission.Long(253), admission.Long(65536), admission.Long(253), admission.Long(253),
		admission.Props(64, admission.Long(63)), admission.Items(32, fmt.Sprintf("{key: %s, operator: In, values: %s}", admission.Long(317), admission.Items(256, admission.Long(63)))), admission.Long(253))},
}, networkpolicytestcases.Accepted(BaseGateway)...)

// GatewayRejected are invalid Gateways, with the errors the API server returns.
var GatewayRejected = append([]Case{
	// Names: the gateway's Service is named like it.
	{Name: "name of 64 characters", Base: BaseGateway, Patch: fmt.Sprintf(`{metadata: {name: %s}}`, admission.Long(64)), Errors: []string{admission.Invalid("<nil>", v1alpha1.MessageGatewayName)}},
	{Name: "name with a dot", Base: BaseGateway, Patch: `{metadata: {name: gw.v1}}`, Errors: []string{admission.Invalid("<nil>", v1alpha1.MessageGatewayName)}},
	{Name: "name with an underscore", Base: BaseGateway, Patch: `{metadata: {name: my_gw}}`, Errors: []string{`metadata.name: Invalid value: "my_gw": a lowercase RFC 1123 subdomain`}},

	// Upstream's examples.
	{Name: "upstream example gateway-complete (MCP health checks)", Base: UpstreamGatewayComplete, Errors: []string{
		admission.Forbidden("spec.mcp.servers[0].healthCheck.enabled", v1alpha1.MessageMCPServerHealthCheck),
		admission.Forbidden("spec.mcp.servers[1].healthCheck.enabled", v1alpha1.MessageMCPServerHealthCheck),
	}},
	{Name: "upstream's earliest provider schema (type and config)", Base: BaseGateway, Patch: `{spec: {providers: [{name: openai, type: openai, config: {baseUrl: "https://api.openai.com/v1"}}]}}`,
		Errors: []string{`unknown field "spec.providers[0].config"`, `unknown field "spec.providers[0].type"`}},
	{Name: "upstream's removed a2a", Base: BaseGateway, Patch: `{spec: {a2a: {enabled: true}}}`, Errors: []string{`unknown field "spec.a2a"`}},
	{Name: "pre-0.21 spec.routing (Gateway API settings)", Base: BaseGateway, Patch: `{spec: {routing: {enabled: true, httpRoute: {hostnames: [api.example.com]}}}}`,
		Errors: []string{`unknown field "spec.routing.httpRoute"`}},

	// Required fields.
	{Name: "provider without name", Base: BaseGateway, Patch: `{spec: {providers: [{enabled: true}]}}`, Errors: []string{admission.Missing("spec.providers[0].name"), RulesNotChecked}},
	{Name: "provider env without name", Base: BaseGateway, Patch: `{spec: {providers: [{name: openai, env: [{value: x}]}]}}`, Errors: []string{admission.Missing("spec.providers[0].env[0].name"), RulesNotChecked}},
	{Name: "MCP server without name and url", Base: BaseGateway, Patch: `{spec: {mcp: {servers: [{healthCheck: {enabled: false}}]}}}`,
		Errors: []string{admission.Missing("spec.mcp.servers[0].name"), admission.Missing("spec.mcp.servers[0].url"), RulesNotChecked}},
	{Name: "serviceDiscovery without enabled", Base: BaseGateway, Patch: `{spec: {mcp: {serviceDiscovery: {namespace: mcp}}}}`, Errors: []string{admission.Missing("spec.mcp.serviceDiscovery.enabled"), RulesNotChecked}},
	{Name: "hpa config without maxReplicas", Base: BaseGateway, Patch: `{spec: {hpa: {enabled: true, config: {minReplicas: 2}}}}`, Errors: []string{admission.Missing("spec.hpa.config.maxReplicas"), RulesNotChecked}},
	{Name: "scaleTargetRef without kind and name", Base: BaseGateway, Patch: `{spec: {hpa: {config: {maxReplicas: 2, scaleTargetRef: {apiVersion: apps/v1}}}}}`,
		Errors: []string{admission.Missing("spec.hpa.config.scaleTargetRef.kind"), admission.Missing("spec.hpa.config.scaleTargetRef.name"), RulesNotChecked}},
	{Name: "certificateRef without key", Base: BaseGateway, Patch: `{spec: {server: {tls: {enabled: true, certificateRef: {name: gw-tls}, keyRef: {name: gw-tls, key: tls.key}}}}}`,
		Errors: []string{admission.Missing("spec.server.tls.certificateRef.key"), RulesNotChecked}},
	{Name: "caCertRef without key", Base: BaseGateway, Patch: `{spec: {auth: {oidc: {caCertRef: {name: ca}}}}}`, Errors: []string{admission.Missing("spec.auth.oidc.caCertRef.key"), RulesNotChecked}},
	{Name: "parentRef without name", Base: BaseGateway, Patch: `{spec: {gatewayAPI: {gateway: {parentRefs: [{namespace: gateways}]}}}}`, Errors: []string{admission.Missing("spec.gatewayAPI.gateway.parentRefs[0].name"), RulesNotChecked}},

	// Enums.
	{Name: "environment prod", Base: BaseGateway, Patch: `{spec: {environment: prod}}`, Errors: []string{admission.Unsupported("spec.environment", "prod"), RulesNotChecked}},
	{Name: "auth provider saml", Base: BaseGateway, Patch: `{spec: {auth: {provider: saml}}}`, Errors: []string{admission.Unsupported("spec.auth.provider", "saml"), RulesNotChecked}},
	{Name: "mcp toolMode all", Base: BaseGateway, Patch: `{spec: {mcp: {toolMode: all}}}`, Errors: []string{admission.Unsupported("spec.mcp.toolMode", "all"), RulesNotChecked}},
	{Name: "guardrails failMode reject", Base: BaseGateway, Patch: `{spec: {guardrails: {failMode: reject}}}`, Errors: []string{admission.Unsupported("spec.guardrails.failMode", "reject"), RulesNotChecked}},
	{Name: "service type Headless", Base: BaseGateway, Patch: `{spec: {service: {type: Headless}}}`, Errors: []string{admission.Unsupported("spec.service.type", "Headless"), RulesNotChecked}},
	{Name: "traces protocol thrift", Base: BaseGateway, Patch: `{spec: {telemetry: {traces: {exporter: {otlp: {protocol: thrift}}}}}}`, Errors: []string{admission.Unsupported("spec.telemetry.traces.exporter.otlp.protocol", "thrift"), RulesNotChecked}},

	// Patterns.
	{Name: "server read timeout without unit", Base: BaseGateway, Patch: `{spec: {server: {timeouts: {read: "60"}}}}`, Errors: []string{admission.Pattern("spec.server.timeouts.read", "60", admission.DurationPattern)}},
	{Name: "server write timeout in days", Base: BaseGateway, Patch: `{spec: {server: {timeouts: {write: 1d}}}}`, Errors: []string{admission.Pattern("spec.server.timeouts.write", "1d", admission.DurationPattern)}},
	{Name: "server idle timeout negative", Base: BaseGateway, Patch: `{spec: {server: {timeouts: {idle: "-1s"}}}}`, Errors: []string{admission.Pattern("spec.server.timeouts.idle", "-1s", admission.DurationPattern)}},
	{Name: "mcp client timeout", Base: BaseGateway, Patch: `{spec: {mcp: {timeouts: {client: ten}}}}`, Errors: []string{admission.Pattern("spec.mcp.timeouts.client", "ten", admission.DurationPattern)}},
	{Name: "mcp dial timeout", Base: BaseGateway, Patch: `{spec: {mcp: {timeouts: {dial: 5S}}}}`, Errors: []string{admission.Pattern("spec.mcp.timeouts.dial", "5S", admission.DurationPattern)}},
	{Name: "mcp tlsHandshake timeout", Base: BaseGateway, Patch: `{spec: {mcp: {timeouts: {tlsHandshake: 5 s}}}}`, Errors: []string{admission.Pattern("spec.mcp.timeouts.tlsHandshake", "5 s", admission.DurationPattern)}},
	{Name: "mcp responseHeader timeout", Base: BaseGateway, Patch: `{spec: {mcp: {timeouts: {responseHeader: 1.s}}}}`, Errors: []string{admission.Pattern("spec.mcp.timeouts.responseHeader", "1.s", admission.DurationPattern)}},
	{Name: "mcp request timeout", Base: BaseGateway, Patch: `{spec: {mcp: {timeouts: {request: 500us}}}}`, Errors: []string{admission.Pattern("spec.mcp.timeouts.request", "500us", admission.DurationPattern)}},
	{Name: "healthCheck interval", Base: BaseGateway, Patch: `{spec: {mcp: {servers: [{name: s, url: "http://s", healthCheck: {enabled: false, interval: often}}]}}}`, Errors: []string{admission.Pattern("spec.mcp.servers[0].healthCheck.interval", "often", admission.DurationPattern)}},
	{Name: "guardrails externalTimeout", Base: BaseGateway, Patch: `{spec: {guardrails: {externalTimeout: 5}}}`, Errors: []string{`spec.guardrails.externalTimeout: Invalid value: "integer": spec.guardrails.externalTimeout in body must be of type string`, RulesNotChecked}},
	{Name: "guardrails externalUrl without scheme", Base: BaseGateway, Patch: `{spec: {guardrails: {externalUrl: "opa:8181"}}}`, Errors: []string{admission.Pattern("spec.guardrails.externalUrl", "opa:8181", admission.URLPattern)}},
	{Name: "otlp endpoint grpc scheme", Base: BaseGateway, Patch: `{spec: {telemetry: {traces: {exporter: {otlp: {endpoint: "grpc://collector:4317"}}}}}}`, Errors: []string{admission.Pattern("spec.telemetry.traces.exporter.otlp.endpoint", "grpc://collector:4317", admission.URLPattern)}},
	{Name: "oidc issuerUrl without scheme", Base: BaseGateway, Patch: `{spec: {auth: {oidc: {issuerUrl: keycloak/realms/x}}}}`, Errors: []string{admission.Pattern("spec.auth.oidc.issuerUrl", "keycloak/realms/x", admission.URLPattern)}},
	{Name: "MCP server url without scheme", Base: BaseGateway, Patch: `{spec: {mcp: {servers: [{name: s, url: "mcp.svc:8080"}]}}}`, Errors: []string{admission.Pattern("spec.mcp.servers[0].url", "mcp.svc:8080", ListedURLPattern)}},
	{Name: "MCP server url with a comma", Base: BaseGateway, Patch: `{spec: {mcp: {servers: [{name: s, url: "http://a:8080,http://b:8080"}]}}}`, Errors: []string{admission.Pattern("spec.mcp.servers[0].url", "http://a:8080,http://b:8080", ListedURLPattern)}},
	{Name: "MCP server url with a space", Base: BaseGateway, Patch: `{spec: {mcp: {servers: [{name: s, url: "http://a:8080/m cp"}]}}}`, Errors: []string{admission.Pattern("spec.mcp.servers[0].url", "http://a:8080/m cp", ListedURLPattern)}},
	{Name: "cpu request in words", Base: BaseGateway, Patch: `{spec: {resources: {requests: {cpu: lots}}}}`, Errors: []string{admission.Pattern("spec.resources.requests.cpu", "lots", quantityPattern)}},
	{Name: "memory limit 1GB", Base: BaseGateway, Patch: `{spec: {resources: {limits: {memory: 1GB}}}}`, Errors: []string{admission.Pattern("spec.resources.limits.memory", "1GB", quantityPattern)}},
	{Name: "negative cpu limit", Base: BaseGateway, Patch: `{spec: {resources: {limits: {cpu: "-1"}}}}`, Errors: []string{admission.Pattern("spec.resources.limits.cpu", "-1", quantityPattern), admission.Invalid("spec.resources.requests", v1alpha1.MessageCPURequestAboveLimit)}},
	{Name: "cpu as a YAML number", Base: BaseGateway, Patch: `{spec: {resources: {requests: {cpu: 1}}}}`,
		Errors: []string{`spec.resources.requests.cpu: Invalid value: "integer": spec.resources.requests.cpu in body must be of type string`, RulesNotChecked}},
	{Name: "memory request with a space", Base: BaseGateway, Patch: `{spec: {resources: {requests: {memory: 256 Mi}}}}`, Errors: []string{admission.Pattern("spec.resources.requests.memory", "256 Mi", quantityPattern)}},
	{Name: "hostname in capitals", Base: BaseGateway, Patch: `{spec: {gatewayAPI: {httpRoute: {hostnames: [API.example.com]}}}}`, Errors: []string{admission.Pattern("spec.gatewayAPI.httpRoute.hostnames[0]", "API.example.com", hostnamePattern)}},
	{Name: "ingress host with an underscore", Base: BaseGateway, Patch: `{spec: {ingress: {host: bad_host.example.com}}}`, Errors: []string{admission.Pattern("spec.ingress.host", "bad_host.example.com", hostnamePattern)}},
	{Name: "ingress tls secretName", Base: BaseGateway, Patch: `{spec: {ingress: {tls: {secretName: Bad}}}}`, Errors: []string{admission.Pattern("spec.ingress.tls.secretName", "Bad", dnsPattern)}},
	{Name: "gatewayAPI tls secretName", Base: BaseGateway, Patch: `{spec: {gatewayAPI: {gateway: {tls: {secretName: "a b"}}}}}`, Errors: []string{admission.Pattern("spec.gatewayAPI.gateway.tls.secretName", "a b", dnsPattern)}},
	{Name: "parentRef namespace", Base: BaseGateway, Patch: `{spec: {gatewayAPI: {gateway: {parentRefs: [{name: gw, namespace: Gateways}]}}}}`, Errors: []string{admission.Pattern("spec.gatewayAPI.gateway.parentRefs[0].namespace", "Gateways", labelPattern)}},
	{Name: "parentRef kind", Base: BaseGateway, Patch: `{spec: {gatewayAPI: {gateway: {parentRefs: [{name: gw, kind: 1Gateway}]}}}}`, Errors: []string{admission.Pattern("spec.gatewayAPI.gateway.parentRefs[0].kind", "1Gateway", `^[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$`)}},
	{Name: "parentRef group", Base: BaseGateway, Patch: `{spec: {gatewayAPI: {gateway: {parentRefs: [{name: gw, group: Gateway.Networking}]}}}}`, Errors: []string{admission.Pattern("spec.gatewayAPI.gateway.parentRefs[0].group", "Gateway.Networking", `^$|`+dnsPattern)}},
	{Name: "parentRef sectionName", Base: BaseGateway, Patch: `{spec: {gatewayAPI: {gateway: {parentRefs: [{name: gw, sectionName: HTTPS}]}}}}`, Errors: []string{admission.Pattern("spec.gatewayAPI.gateway.parentRefs[0].sectionName", "HTTPS", dnsPattern)}},
	{Name: "serviceAccount name", Base: BaseGateway, Patch: `{spec: {serviceAccount: {name: Gateway_SA}}}`, Errors: []string{admission.Pattern("spec.serviceAccount.name", "Gateway_SA", dnsPattern)}},
	{Name: "serviceDiscovery selector: In without values", Base: BaseGateway, Patch: `{spec: {mcp: {enabled: true, serviceDiscovery: {enabled: true, selector: {matchExpressions: [{key: tier, operator: In}]}}}}}`,
		Errors: []string{admission.Invalid("spec.mcp.serviceDiscovery.selector", v1alpha1.MessageSelectorExpressions)}},
	{Name: "serviceDiscovery selector: Exists with values", Base: BaseGateway, Patch: `{spec: {mcp: {enabled: true, serviceDiscovery: {enabled: true, selector: {matchExpressions: [{key: tier, operator: Exists, values: [a]}]}}}}}`,
		Errors: []string{admission.Invalid("spec.mcp.serviceDiscovery.selector", v1alpha1.MessageSelectorExpressions)}},
	{Name: "serviceDiscovery selector: unknown operator", Base: BaseGateway, Patch: `{spec: {mcp: {enabled: true, serviceDiscovery: {enabled: true, selector: {matchExpressions: [{key: tier, operator: Equals, values: [a]}]}}}}}`,
		Errors: []string{admission.Invalid("spec.mcp.serviceDiscovery.selector", v1alpha1.MessageSelectorExpressions)}},
	{Name: "serviceDiscovery namespace", Base: BaseGateway, Patch: `{spec: {mcp: {serviceDiscovery: {enabled: true, namespace: mcp.servers}}}}`, Errors: []string{admission.Pattern("spec.mcp.serviceDiscovery.namespace", "mcp.servers", labelPattern)}},

	// Numeric bounds.
	{Name: "replicas 0", Base: BaseGateway, Patch: `{spec: {replicas: 0}}`, Errors: []string{admission.Minimum("spec.replicas", 0, 1)}},
	{Name: "replicas 101", Base: BaseGateway, Patch: `{spec: {replicas: 101}}`, Errors: []string{admission.Maximum("spec.replicas", 101, 100)}},
	{Name: "server port 1023", Base: BaseGateway, Patch: `{spec: {server: {port: 1023}}}`, Errors: []string{admission.Minimum("spec.server.port", 1023, 1024)}},
	{Name: "server port 65536", Base: BaseGateway, Patch: `{spec: {server: {port: 65536}}}`, Errors: []string{admission.Maximum("spec.server.port", 65536, 65535)}},
	{Name: "service port 0", Base: BaseGateway, Patch: `{spec: {service: {port: 0}}}`, Errors: []string{admission.Minimum("spec.service.port", 0, 1)}},
	{Name: "service port 65536", Base: BaseGateway, Patch: `{spec: {service: {port: 65536}}}`, Errors: []string{admission.Maximum("spec.service.port", 65536, 65535)}},
	{Name: "metrics port 80", Base: BaseGateway, Patch: `{spec: {telemetry: {metrics: {port: 80}}}}`, Errors: []string{admission.Minimum("spec.telemetry.metrics.port", 80, 1024)}},
	{Name: "metrics port 99999 (upstream's e2e)", Base: BaseGateway, Patch: `{spec: {telemetry: {metrics: {port: 99999}}}}`, Errors: []string{admission.Maximum("spec.telemetry.metrics.port", 99999, 65535)}},
	{Name: "receiver port 70000", Base: BaseGateway, Patch: `{spec: {telemetry: {receiver: {port: 70000}}}}`, Errors: []string{admission.Maximum("spec.telemetry.receiver.port", 70000, 65535)}},
	{Name: "parentRef port 0", Base: BaseGateway, Patch: `{spec: {gatewayAPI: {gateway: {parentRefs: [{name: gw, port: 0}]}}}}`, Errors: []string{admission.Minimum("spec.gatewayAPI.gateway.parentRefs[0].port", 0, 1)}},
	{Name: "hpa minReplicas 0", Base: BaseGateway, Patch: `{spec: {hpa: {config: {minReplicas: 0, maxReplicas: 3}}}}`, Errors: []string{admission.Minimum("spec.hpa.config.minReplicas", 0, 1)}},
	{Name: "hpa maxReplicas 0", Base: BaseGateway, Patch: `{spec: {hpa: {config: {maxReplicas: 0}}}}`, Errors: []string{admission.Minimum("spec.hpa.config.maxReplicas", 0, 1)}},

	// Lengths and sizes.
	{Name: "image", Base: BaseGateway, Patch: fmt.Sprintf(`{spec: {image: %s}}`, admission.Long(1025)), Errors: []string{admission.TooLong("spec.image", 1024), RulesNotChecked}},
	{Name: "provider name", Base: BaseGateway, Patch: fmt.Sprintf(`{spec: {providers: [{name: %s}]}}`, admission.Long(254)), Errors: []string{admission.TooLong("spec.providers[0].name", 253), RulesNotChecked}},
	{Name: "empty provider name", Base: BaseGateway, Patch: `{spec: {providers: [{name: ""}]}}`, Errors: []string{`spec.providers[0].name: Invalid value: "": spec.providers[0].name in body should be at least 1 chars long`}},
	{Name: "server host", Base: BaseGateway, Patch: fmt.Sprintf(`{spec: {server: {host: %s}}}`, admission.Long(254)), Errors: []string{admission.TooLong("spec.server.host", 253), RulesNotChecked}},
	{Name: "server timeout", Base: BaseGateway, Patch: `{spec: {server: {timeouts: {read: "1s1s1s1s1s1s1s1s1s1s1s1s1s1s1s1s1"}}}}`, Errors: []string{admission.TooLong("spec.server.timeouts.read", 32), RulesNotChecked}},
	{Name: "oidc clientId", Base: BaseGateway, Patch: fmt.Sprintf(`{spec: {auth: {oidc: {clientId: %s}}}}`, admission.Long(254)), Errors: []string{admission.TooLong("spec.auth.oidc.clientId", 253), RulesNotChecked}},
	{Name: "oidc issuerUrl", Base: BaseGateway, Patch: fmt.Sprintf(`{spec: {auth: {oidc: {issuerUrl: %q}}}}`, admission.LongURL(2049)), Errors: []string{admission.TooLong("spec.auth.oidc.issuerUrl", 2048), RulesNotChecked}},
	{Name: "MCP server url", Base: BaseGateway, Patch: fmt.Sprintf(`{spec: {mcp: {servers: [{name: s, url: %q}]}}}`, admission.LongURL(2049)), Errors: []string{admission.TooLong("spec.mcp.servers[0].url", 2048), RulesNotChecked}},
	{Name: "routing config", Base: BaseGateway, Patch: fmt.Sprintf(`{spec: {routing: {enabled: true, config: %s}}}`, admission.Long(262145)), Errors: []string{admission.TooLong("spec.routing.config", 262144), RulesNotChecked}},
	{Name: "ingress host", Base: BaseGateway, Patch: fmt.Sprintf(`{spec: {ingress: {host: %s}}}`, admission.Long(254)), Errors: []string{admission.TooLong("spec.ingress.host", 253), RulesNotChecked}},
	{Name: "gatewayClassName", Base: BaseGateway, Patch: fmt.Sprintf(`{spec: {gatewayAPI: {gateway: {gatewayClassName: %s}}}}`, admission.Long(254)), Errors: []string{admission.TooLong("spec.gatewayAPI.gateway.gatewayClassName", 253), RulesNotChecked}},
	{Name: "hostname", Base: BaseGateway, Patch: fmt.Sprintf(`{spec: {gatewayAPI: {httpRoute: {hostnames: [%s]}}}}`, admission.Long(254)), Errors: []string{admission.TooLong("spec.gatewayAPI.httpRoute.hostnames[0]", 253), RulesNotChecked}},
	{Name: "scaleTargetRef name", Base: BaseGateway, Patch: fmt.Sprintf(`{spec: {hpa: {config: {maxReplicas: 2, scaleTargetRef: {kind: Deployment, name: %s}}}}}`, admission.Long(254)), Errors: []string{admission.TooLong("spec.hpa.config.scaleTargetRef.name", 253), RulesNotChecked}},
	{Name: "65 providers", Base: BaseGateway, Patch: `{spec: {providers: ` + providers(65) + `}}`, Errors: []string{admission.TooMany("spec.providers", 65, 64), RulesNotChecked}},
	{Name: "129 env variables of a provider", Base: BaseGateway, Patch: `{spec: {providers: [{name: p, env: ` + admission.Items(129, "{name: X}") + `}]}}`, Errors: []string{admission.TooMany("spec.providers[0].env", 129, 128), RulesNotChecked}},
	{Name: "65 MCP servers", Base: BaseGateway, Patch: `{spec: {mcp: {servers: ` + admission.Items(65, `{name: s, url: "http://s"}`) + `}}}`, Errors: []string{admission.TooMany("spec.mcp.servers", 65, 64), RulesNotChecked}},
	{Name: "17 hostnames", Base: BaseGateway, Patch: `{spec: {gatewayAPI: {httpRoute: {hostnames: ` + admission.Items(17, "a.example.com") + `}}}}`, Errors: []string{admission.TooMany("spec.gatewayAPI.httpRoute.hostnames", 17, 16), RulesNotChecked}},
	{Name: "33 parentRefs", Base: BaseGateway, Patch: `{spec: {gatewayAPI: {gateway: {parentRefs: ` + admission.Items(33, "{name: gw}") + `}}}}`, Errors: []string{admission.TooMany("spec.gatewayAPI.gateway.parentRefs", 33, 32), RulesNotChecked}},
	{Name: "17 hpa metrics", Base: BaseGateway, Patch: `{spec: {hpa: {config: {maxReplicas: 2, metrics: ` + admission.Items(17, "{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}}") + `}}}}`,
		Errors: []string{admission.TooMany("spec.hpa.config.metrics", 17, 16), RulesNotChecked}},
	{Name: "65 service annotations", Base: BaseGateway, Patch: `{spec: {service: {annotations: ` + annotations(65) + `}}}`, Errors: []string{"spec.service.annotations: Too many: 65: must have at most 64 items", RulesNotChecked}},
	{Name: "65 ingress annotations", Base: BaseGateway, Patch: `{spec: {ingress: {annotations: ` + annotations(65) + `}}}`, Errors: []string{"spec.ingress.annotations: Too many: 65: must have at most 64 items", RulesNotChecked}},

	// Types and unknown fields.
	{Name: "replicas as a string", Base: BaseGateway, Patch: `{spec: {replicas: two}}`, Errors: []string{`spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer`, RulesNotChecked}},
	{Name: "server port as a string (upstream's 2025 samples)", Base: BaseGateway, Patch: `{spec: {server: {port: "8080"}}}`, Errors: []string{`spec.server.port: Invalid value: "string": spec.server.port in body must be of type integer`, RulesNotChecked}},
	{Name: "unknown spec field", Base: BaseGateway, Patch: `{spec: {logLevel: debug}}`, Errors: []string{`unknown field "spec.logLevel"`}},
	{Name: "ingress hosts list (upstream's advanced ingress example)", Base: BaseGateway, Patch: `{spec: {ingress: {enabled: true, hosts: [{host: a.example.com}]}}}`, Errors: []string{`unknown field "spec.ingress.hosts"`}},

	// CEL: fields upstream accepted and ignored, which the gateway cannot do.
	{Name: "scaleTargetRef of another Deployment", Base: BaseGateway, Patch: `{spec: {hpa: {enabled: true, config: {maxReplicas: 3, scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: other}}}}}`,
		Errors: []string{admission.Invalid("spec.hpa.config.scaleTargetRef", v1alpha1.MessageScaleTargetRef)}},
	{Name: "scaleTargetRef of a StatefulSet", Base: BaseGateway, Patch: `{spec: {hpa: {config: {maxReplicas: 3, scaleTargetRef: {kind: StatefulSet, name: gw}}}}}`,
		Errors: []string{admission.Invalid("spec.hpa.config.scaleTargetRef", v1alpha1.MessageScaleTargetRef)}},
	{Name: "scaleTargetRef of apps/v1beta1", Base: BaseGateway, Patch: `{spec: {hpa: {config: {maxReplicas: 3, scaleTargetRef: {apiVersion: apps/v1beta1, kind: Deployment, name: gw}}}}}`,
		Errors: []string{admission.Invalid("spec.hpa.config.scaleTargetRef", v1alpha1.MessageScaleTargetRef)}},
	{Name: "traces over OTLP/gRPC", Base: BaseGateway, Patch: `{spec: {telemetry: {enabled: true, traces: {exporter: {otlp: {endpoint: "http://collector:4317", protocol: grpc}}}}}}`,
		Errors: []string{admission.Invalid("spec.telemetry.traces.exporter.otlp.protocol", v1alpha1.MessageTracesProtocolGRPC)}},
	{Name: "a metrics exporter", Base: BaseGateway, Patch: `{spec: {telemetry: {metrics: {exporter: {prometheus: {port: 9464}}}}}}`,
		Errors: []string{admission.Forbidden("spec.telemetry.metrics.exporter", v1alpha1.MessageMetricsExporter)}},
	{Name: "an OTLP receiver", Base: BaseGateway, Patch: `{spec: {telemetry: {receiver: {enabled: true}}}}`,
		Errors: []string{admission.Forbidden("spec.telemetry.receiver.enabled", v1alpha1.MessageTelemetryReceiver)}},
	{Name: "auth provider jwt", Base: BaseGateway, Patch: `{spec: {auth: {enabled: true, provider: jwt, oidc: {}}}}`, Errors: []string{admission.Invalid("spec.auth.provider", v1alpha1.MessageAuthProvider)}},
	{Name: "auth provider basic, auth disabled", Base: BaseGateway, Patch: `{spec: {auth: {provider: basic}}}`, Errors: []string{admission.Invalid("spec.auth.provider", v1alpha1.MessageAuthProvider)}},
	{Name: "an MCP health check, defaulted to enabled", Base: BaseGateway, Patch: `{spec: {mcp: {servers: [{name: s, url: "http://s"}, {name: t, url: "http://t", healthCheck: {path: /healthz}}]}}}`,
		Errors: []string{admission.Forbidden("spec.mcp.servers[1].healthCheck.enabled", v1alpha1.MessageMCPServerHealthCheck)}},
	{Name: "service ExternalName", Base: BaseGateway, Patch: `{spec: {service: {type: ExternalName}}}`, Errors: []string{admission.Invalid("spec.service.type", v1alpha1.MessageServiceTypeExternalName)}},
	{Name: "listener tls with parentRefs", Base: BaseGateway, Patch: `{spec: {gatewayAPI: {enabled: true, gateway: {parentRefs: [{name: shared}], tls: {enabled: true}}}}}`,
		Errors: []string{admission.Invalid("spec.gatewayAPI.gateway.tls", v1alpha1.MessageGatewayAPITLSParentRefs)}},

	// CEL: settings the gateway exits on, or silently ignores.
	{Name: "server tls without refs", Base: BaseGateway, Patch: `{spec: {server: {tls: {enabled: true}}}}`, Errors: []string{admission.Invalid("spec.server.tls", v1alpha1.MessageServerTLSNeedsRefs)}},
	{Name: "server tls without keyRef", Base: BaseGateway, Patch: `{spec: {server: {tls: {enabled: true, certificateRef: {name: gw-tls, key: tls.crt}}}}}`, Errors: []string{admission.Invalid("spec.server.tls", v1alpha1.MessageServerTLSNeedsRefs)}},
	{Name: "server tls keyRef without a Secret name", Base: BaseGateway, Patch: `{spec: {server: {tls: {enabled: true, certificateRef: {name: gw-tls, key: tls.crt}, keyRef: {key: tls.key}}}}}`,
		Errors: []string{admission.Invalid("spec.server.tls", v1alpha1.MessageServerTLSRefNames)}},
	{Name: "server tls disabled, certificateRef with an empty name", Base: BaseGateway, Patch: `{spec: {server: {tls: {certificateRef: {name: "", key: tls.crt}}}}}`,
		Errors: []string{admission.Invalid("spec.server.tls", v1alpha1.MessageServerTLSRefNames)}},
	// issue 16, defect 1: with TLS the gateway calls itself at its Service's name, resolved to
	// the listen address inside the pod; a specific address would leave the Service or the
	// gateway itself unanswered.
	{Name: "server tls on a loopback host", Base: BaseGateway, Patch: `{spec: {server: {host: 127.0.0.1, tls: {enabled: true, certificateRef: {name: gw-tls, key: tls.crt}, keyRef: {name: gw-tls, key: tls.key}}}}}`,
		Errors: []string{admission.Invalid("spec.server.host", v1alpha1.MessageServerTLSHost)}},
	{Name: "server tls on a host name", Base: BaseGateway, Patch: `{spec: {server: {host: gateway.example.com, tls: {enabled: true, certificateRef: {name: gw-tls, key: tls.crt}, keyRef: {name: gw-tls, key: tls.key}}}}}`,
		Errors: []string{admission.Invalid("spec.server.host", v1alpha1.MessageServerTLSHost)}},
	{Name: "provider env sets SSL_CERT_DIR", Base: BaseGateway, Patch: `{spec: {providers: [{name: x, env: [{name: SSL_CERT_DIR, value: /etc/certs}]}]}}`,
		Errors: []string{admission.Invalid("spec.providers[0].env", v1alpha1.MessageProviderManagedEnv)}},
	{Name: "auth enabled without oidc", Base: BaseGateway, Patch: `{spec: {auth: {enabled: true}}}`, Errors: []string{admission.Required("spec.auth.oidc", v1alpha1.MessageAuthNeedsOIDC)}},
	{Name: "oidc clientSecretRef without a Secret name", Base: BaseGateway, Patch: `{spec: {auth: {enabled: true, oidc: {clientSecretRef: {key: secret}}}}}`, Errors: []string{admission.Invalid("spec.auth.oidc", v1alpha1.MessageOIDCRefNames)}},
	{Name: "oidc caCertRef without a ConfigMap name", Base: BaseGateway, Patch: `{spec: {auth: {oidc: {caCertRef: {name: "", key: ca.crt}}}}}`, Errors: []string{admission.Invalid("spec.auth.oidc", v1alpha1.MessageOIDCRefNames)}},
	{Name: "provider env sets AUTH_ENABLED", Base: BaseGateway, Patch: `{spec: {providers: [{name: openai}, {name: x, env: [{name: OPENAI_API_KEY, value: k}, {name: AUTH_ENABLED, value: "false"}]}]}}`,
		Errors: []string{admission.Invalid("spec.providers[1].env", v1alpha1.MessageProviderManagedEnv)}},
	{Name: "disabled provider env sets SERVER_PORT", Base: BaseGateway, Patch: `{spec: {providers: [{name: x, enabled: false, env: [{name: SERVER_PORT, value: "9000"}]}]}}`,
		Errors: []string{admission.Invalid("spec.providers[0].env", v1alpha1.MessageProviderManagedEnv)}},
	{Name: "cpu request above the limit", Base: BaseGateway, Patch: `{spec: {resources: {requests: {cpu: "2"}, limits: {cpu: 1500m}}}}`, Errors: []string{admission.Invalid("spec.resources.requests", v1alpha1.MessageCPURequestAboveLimit)}},
	{Name: "cpu request above the default limit", Base: BaseGateway, Patch: `{spec: {resources: {requests: {cpu: "3"}}}}`, Errors: []string{admission.Invalid("spec.resources.requests", v1alpha1.MessageCPURequestAboveLimit)}},
	{Name: "cpu limit below the default request", Base: BaseGateway, Patch: `{spec: {resources: {limits: {cpu: 50m}}}}`, Errors: []string{admission.Invalid("spec.resources.requests", v1alpha1.MessageCPURequestAboveLimit)}},
	{Name: "memory request above the limit", Base: BaseGateway, Patch: `{spec: {resources: {requests: {memory: 2Gi}, limits: {memory: 2000Mi}}}}`, Errors: []string{admission.Invalid("spec.resources.requests", v1alpha1.MessageMemoryRequestAboveLimit)}},
	{Name: "memory request above the default limit", Base: BaseGateway, Patch: `{spec: {resources: {requests: {memory: 2Gi}}}}`, Errors: []string{admission.Invalid("spec.resources.requests", v1alpha1.MessageMemoryRequestAboveLimit)}},
	{Name: "routing config and configMapRef", Base: BaseGateway, Patch: `{spec: {routing: {enabled: true, config: "models: {}", configMapRef: {name: routing, key: routing.yaml}}}}`,
		Errors: []string{admission.Invalid("spec.routing", v1alpha1.MessageRoutingExclusive)}},
	{Name: "routing enabled without a configuration (pre-0.21 spec.routing after pruning)", Base: BaseGateway, Patch: `{spec: {routing: {enabled: true}}}`,
		Errors: []string{admission.Invalid("spec.routing", v1alpha1.MessageRoutingNeedsConfig)}},
	{Name: "routing enabled with an empty config", Base: BaseGateway, Patch: `{spec: {routing: {enabled: true, config: ""}}}`, Errors: []string{admission.Invalid("spec.routing", v1alpha1.MessageRoutingNeedsConfig)}},
	{Name: "routing configMapRef without a name", Base: BaseGateway, Patch: `{spec: {routing: {enabled: true, configMapRef: {key: routing.yaml}}}}`,
		Errors: []string{admission.Required("spec.routing.configMapRef.name", v1alpha1.MessageRoutingConfigMapName)}},
	{Name: "guardrails without policies", Base: BaseGateway, Patch: `{spec: {guardrails: {enabled: true, failMode: deny}}}`, Errors: []string{admission.Invalid("spec.guardrails", v1alpha1.MessageGuardrailsNeedPolicies)}},
	{Name: "guardrails with an empty externalUrl", Base: BaseGateway, Patch: `{spec: {guardrails: {enabled: true, externalUrl: ""}}}`,
		Errors: []string{admission.Pattern("spec.guardrails.externalUrl", "", admission.URLPattern), admission.Invalid("spec.guardrails", v1alpha1.MessageGuardrailsNeedPolicies)}},
	{Name: "guardrails configMapRef without a name", Base: BaseGateway, Patch: `{spec: {guardrails: {enabled: true, configMapRef: {}}}}`,
		Errors: []string{admission.Required("spec.guardrails.configMapRef.name", v1alpha1.MessageGuardrailsConfigMapName)}},
	{Name: "ingress enabled without host", Base: BaseGateway, Patch: `{spec: {ingress: {enabled: true, tls: {enabled: true}}}}`, Errors: []string{admission.Required("spec.ingress.host", v1alpha1.MessageIngressNeedsHost)}},
	{Name: "hpa minReplicas above maxReplicas", Base: BaseGateway, Patch: `{spec: {hpa: {enabled: true, config: {minReplicas: 5, maxReplicas: 3}}}}`, Errors: []string{admission.Invalid("spec.hpa.config.minReplicas", v1alpha1.MessageHPAMinAboveMax)}},

	// Size bounds (issue 33): one past each bound, refused.
	{Name: "provider env name of 254", Base: BaseGateway, Patch: fmt.Sprintf(`{spec: {providers: [{name: p, env: [{name: %s, value: v}]}]}}`, admission.Long(254)),
		Errors: []string{admission.TooLong("spec.providers[0].env[0].name", 253), RulesNotChecked}},
	{Name: "provider env value of 65537", Base: BaseGateway, Patch: fmt.Sprintf(`{spec: {providers: [{name: p, env: [{name: X, value: %s}]}]}}`, admission.Long(65537)),
		Errors: []string{admission.TooLong("spec.providers[0].env[0].value", 65536), RulesNotChecked}},
	{Name: "secretKeyRef key of 254", Base: BaseGateway, Patch: fmt.Sprintf(`{spec: {providers: [{name: p, env: [{name: X, valueFrom: {secretKeyRef: {name: s, key: %s}}}]}]}}`, admission.Long(254)),
		Errors: []string{admission.TooLong("spec.providers[0].env[0].valueFrom.secretKeyRef.key", 253), RulesNotChecked}},
	{Name: "65 matchLabels of discovery", Base: BaseGateway, Patch: `{spec: {mcp: {enabled: true, serviceDiscovery: {enabled: true, selector: {matchLabels: ` + admission.Props(65, "v") + `}}}}}`,
		Errors: []string{admission.TooMany("spec.mcp.serviceDiscovery.selector.matchLabels", 65, 64), RulesNotChecked}},
	{Name: "33 matchExpressions of discovery", Base: BaseGateway, Patch: `{spec: {mcp: {enabled: true, serviceDiscovery: {enabled: true, selector: {matchExpressions: ` + admission.Items(33, "{key: k, operator: Exists}") + `}}}}}`,
		Errors: []string{admission.TooMany("spec.mcp.serviceDiscovery.selector.matchExpressions", 33, 32), RulesNotChecked}},
	{Name: "a matchLabels value of 64", Base: BaseGateway, Patch: fmt.Sprintf(`{spec: {mcp: {enabled: true, serviceDiscovery: {enabled: true, selector: {matchLabels: {app: %s}}}}}}`, admission.Long(64)),
		Errors: []string{admission.TooLong("spec.mcp.serviceDiscovery.selector.matchLabels.app", 63), RulesNotChecked}},
	{Name: "17 HPA scale-up policies", Base: BaseGateway, Patch: `{spec: {hpa: {config: {maxReplicas: 3, behavior: {scaleUp: {policies: ` + admission.Items(17, "{type: Pods, value: 1, periodSeconds: 60}") + `}}}}}}`,
		Errors: []string{admission.TooMany("spec.hpa.config.behavior.scaleUp.policies", 17, 16), RulesNotChecked}},
	{Name: "tls certificateRef name of 254", Base: BaseGateway, Patch: fmt.Sprintf(`{spec: {server: {host: 0.0.0.0, tls: {enabled: true, certificateRef: {name: %s, key: tls.crt}, keyRef: {name: tls, key: tls.key}}}}}`, admission.Long(254)),
		Errors: []string{admission.TooLong("spec.server.tls.certificateRef.name", 253), RulesNotChecked}},
}, networkpolicytestcases.Rejected(BaseGateway)...)

// annotations is a map of n annotations, as YAML.
func annotations(n int) string {
	m := "{"
	for i := range n {
		m += fmt.Sprintf("example.com/a%d: v, ", i)
	}
	return m + "}"
}

// GatewayUpdates are changes to a stored Gateway (BaseGateway) and what the API server says
// about them. The scaleTargetRef rule compares with the stored object (optionalOldSelf: a
// Gateway stored before the rule keeps its scaleTargetRef); one the stored object did not have
// must name the Gateway's own Deployment.
var GatewayUpdates = []Case{
	{Name: "label added", Patch: `{metadata: {labels: {team: llm}}}`},
	{Name: "hpa turned on", Patch: `{spec: {hpa: {enabled: true, config: {maxReplicas: 3}}}}`},
	{Name: "scaleTargetRef to another Deployment added", Patch: `{spec: {hpa: {enabled: true, config: {maxReplicas: 3, scaleTargetRef: {kind: Deployment, name: other}}}}}`,
		Errors: []string{admission.Invalid("spec.hpa.config.scaleTargetRef", v1alpha1.MessageScaleTargetRef)}},
}
