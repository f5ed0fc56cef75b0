package v1alpha1_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/llm-infra/llm-infra-operator/pkg/apis/crdtest"
	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1/testcases"
	"github.com/llm-infra/llm-infra-operator/pkg/apis/internal/admission"
)

const (
	gatewayManifestCRD = "../../../../manifests/core.inference-gateway.com_gateways.yaml"
	gatewayDeployCRD   = "../../../../deploy/00_core.inference-gateway.com_gateways.crd.yaml"
	mcpManifestCRD     = "../../../../manifests/core.inference-gateway.com_mcps.yaml"
	mcpDeployCRD       = "../../../../deploy/00_core.inference-gateway.com_mcps.crd.yaml"
	// The upstream operator's golden Gateways and MCPs (test/golden/README.md).
	goldenDir = "../../../../test/golden/inference-gateway"
)

func gatewayCRD(t *testing.T) *crdtest.CRD {
	t.Helper()
	return crdtest.LoadGenerated(t, gatewayManifestCRD, gatewayDeployCRD)
}

func mcpCRD(t *testing.T) *crdtest.CRD {
	t.Helper()
	return crdtest.LoadGenerated(t, mcpManifestCRD, mcpDeployCRD)
}

// gatewayCases is every Gateway case: the golden Gateways, then the other accepted and the
// rejected objects.
func gatewayCases(t *testing.T) []testcases.Case {
	t.Helper()
	return slices.Concat(goldenGatewaysOf(t, "Gateway", 6), testcases.GatewayAccepted, testcases.GatewayRejected)
}

// mcpCases is every MCP case: the golden MCPs (those refused by design with their errors), then
// the other accepted and the rejected objects.
func mcpCases(t *testing.T) []testcases.Case {
	t.Helper()
	return slices.Concat(goldenGatewaysOf(t, "MCP", 3), testcases.MCPAccepted, testcases.MCPRejected)
}

// goldenGatewaysOf is the golden CRs of test/golden/inference-gateway of one kind as cases:
// accepted unchanged, or refused as testcases.InferenceGatewayGoldenRefused says.
func goldenGatewaysOf(t *testing.T, kind string, want int) []testcases.Case {
	t.Helper()
	crdtest.GoldenCases(t, goldenDir, 9)
	cases, err := admission.GoldenOf(goldenDir, kind, testcases.InferenceGatewayGoldenRefused)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != want {
		t.Errorf("%d golden %ss, want %d", len(cases), kind, want)
	}
	return cases
}

func TestGatewayAdmission(t *testing.T) {
	gatewayCRD(t).ExpectCases(t, gatewayCases(t))
}

func TestMCPAdmission(t *testing.T) {
	mcpCRD(t).ExpectCases(t, mcpCases(t))
}

// TestValidateSpecAgreesWithCRD: ValidateSpec returns the errors of the CRDs' CEL rules, on
// every case the schema accepts, and every rule is broken by some case.
func TestValidateSpecAgreesWithCRD(t *testing.T) {
	t.Run("Gateway", func(t *testing.T) {
		gatewayCRD(t).ExpectValidateSpecAgrees(t, gatewayCases(t), func(t *testing.T, stored map[string]any) field.ErrorList {
			// The rule the CRD cannot check has tests of its own.
			var celRules field.ErrorList
			for _, err := range crdtest.DecodeStrict[v1alpha1.Gateway](t, stored).ValidateSpec() {
				if err.Detail != v1alpha1.MessageProviderEnvDuplicate {
					celRules = append(celRules, err)
				}
			}
			return celRules
		})
	})
	t.Run("MCP", func(t *testing.T) {
		mcpCRD(t).ExpectValidateSpecAgrees(t, mcpCases(t), func(t *testing.T, stored map[string]any) field.ErrorList {
			return crdtest.DecodeStrict[v1alpha1.MCP](t, stored).ValidateSpec()
		})
	})
}

// TestManagedEnv: the CEL rule on providers[].env rejects exactly the names of ManagedEnv.
func TestManagedEnv(t *testing.T) {
	crd := gatewayCRD(t)
	var rule string
	crdtest.Walk(crd.Definition.Spec.Versions[0].Schema.OpenAPIV3Schema, "", func(path string, s *apiextensionsv1.JSONSchemaProps) {
		for _, r := range s.XValidations {
			if r.Message == v1alpha1.MessageProviderManagedEnv {
				rule = r.Rule
			}
		}
	})
	var inRule []string
	for _, m := range regexp.MustCompile(`'([A-Z_]+)'`).FindAllStringSubmatch(rule, -1) {
		inRule = append(inRule, m[1])
	}
	if got, want := slices.Sorted(slices.Values(inRule)), slices.Sorted(slices.Values(v1alpha1.ManagedEnv)); !slices.Equal(got, want) {
		t.Errorf("the rule's names %v, ManagedEnv %v", got, want)
	}
	for _, name := range append(slices.Clone(v1alpha1.ManagedEnv), "OPENAI_API_KEY", "SERVER_MAX_REQUEST_BODY_SIZE", "MCP_POLLING_INTERVAL", "environment") {
		managed := slices.Contains(v1alpha1.ManagedEnv, name)
		t.Run(name, func(t *testing.T) {
			_, errs := crd.Create(crdtest.Object(t, testcases.Case{Base: testcases.BaseGateway, Patch: `{spec: {providers: [{name: p, env: [{name: ` + name + `, value: x}]}]}}`}))
			if rejected := len(errs) > 0; rejected != managed {
				t.Errorf("rejected %v, want %v: %v", rejected, managed, errs)
			}
		})
	}
}

func TestDefaults(t *testing.T) {
	create := func(crd *crdtest.CRD, base, patch string) map[string]any {
		t.Helper()
		obj, errs := crd.Create(crdtest.Object(t, testcases.Case{Base: base, Patch: patch}))
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		return obj
	}
	empty := create(gatewayCRD(t), testcases.BaseGateway, `{spec: {providers: null}}`)
	blocks := create(gatewayCRD(t), testcases.BaseGateway, `
spec:
  telemetry: {traces: {}, receiver: {}}
  server: {timeouts: {}, tls: {}}
  auth: {oidc: {}}
  mcp: {timeouts: {}, servers: [{name: s, url: "http://s", healthCheck: {enabled: false}}]}
  service: {}
  ingress: {tls: {}}
  gatewayAPI: {gateway: {parentRefs: [{name: shared}], tls: {}}}
  routing: {}
  hpa: {}
  serviceAccount: {}
  guardrails: {}
`)
	mcp := create(mcpCRD(t), testcases.BaseMCP, `{spec: {server: {port: null, path: null, tls: {secretName: s}}}}`)
	// Upstream's defaults, which existing objects were stored with.
	for _, tc := range []struct {
		obj  map[string]any
		path string
		want any
	}{
		{empty, "spec.replicas", int64(1)},
		{empty, "spec.image", "ghcr.io/inference-gateway/inference-gateway:latest"},
		{empty, "spec.environment", "production"},
		{blocks, "spec.telemetry.enabled", false},
		{blocks, "spec.telemetry.metrics.enabled", false},
		{blocks, "spec.telemetry.metrics.port", int64(9464)},
		{blocks, "spec.telemetry.receiver.enabled", false},
		{blocks, "spec.telemetry.receiver.port", int64(4318)},
		{blocks, "spec.server.host", "0.0.0.0"},
		{blocks, "spec.server.port", int64(8080)},
		{blocks, "spec.server.timeouts.read", "60s"},
		{blocks, "spec.server.timeouts.write", "60s"},
		{blocks, "spec.server.timeouts.idle", "300s"},
		{blocks, "spec.server.tls.enabled", false},
		{blocks, "spec.auth.enabled", false},
		{blocks, "spec.auth.provider", "oidc"},
		{blocks, "spec.auth.oidc.issuerUrl", "http://keycloak:8080/realms/inference-gateway-realm"},
		{blocks, "spec.auth.oidc.clientId", "inference-gateway-client"},
		{blocks, "spec.providers[0].enabled", true},
		{blocks, "spec.mcp.enabled", false},
		{blocks, "spec.mcp.expose", false},
		{blocks, "spec.mcp.toolMode", "selector"},
		{blocks, "spec.mcp.timeouts.client", "10s"},
		{blocks, "spec.mcp.timeouts.dial", "5s"},
		{blocks, "spec.mcp.timeouts.tlsHandshake", "5s"},
		{blocks, "spec.mcp.timeouts.responseHeader", "5s"},
		{blocks, "spec.mcp.timeouts.request", "10s"},
		{blocks, "spec.mcp.servers[0].healthCheck.path", "/health"},
		{blocks, "spec.mcp.servers[0].healthCheck.interval", "30s"},
		{blocks, "spec.service.type", "ClusterIP"},
		{blocks, "spec.service.port", int64(8080)},
		{blocks, "spec.ingress.enabled", false},
		{blocks, "spec.ingress.tls.enabled", false},
		{blocks, "spec.gatewayAPI.enabled", false},
		{blocks, "spec.gatewayAPI.gateway.gatewayClassName", "envoy"},
		{blocks, "spec.gatewayAPI.gateway.parentRefs[0].group", "gateway.networking.k8s.io"},
		{blocks, "spec.gatewayAPI.gateway.parentRefs[0].kind", "Gateway"},
		{blocks, "spec.gatewayAPI.gateway.tls.enabled", false},
		{blocks, "spec.routing.enabled", false},
		{blocks, "spec.hpa.enabled", false},
		{blocks, "spec.serviceAccount.create", true},
		{blocks, "spec.guardrails.enabled", false},
		{blocks, "spec.guardrails.failMode", "deny"},
		{blocks, "spec.guardrails.externalTimeout", "5s"},
		{mcp, "spec.replicas", int64(1)},
		{mcp, "spec.image", "registry.example/mcp-memory-server:v1"},
		{mcp, "spec.server.port", int64(8080)},
		{mcp, "spec.server.path", "/mcp"},
		{mcp, "spec.server.timeout", "30s"},
		{mcp, "spec.server.tls.enabled", true},
	} {
		if got := lookup(t, tc.obj, tc.path); got != tc.want {
			t.Errorf("%s = %v, want %v", tc.path, got, tc.want)
		}
	}
	if got := lookup(t, create(mcpCRD(t), testcases.BaseMCP, `{spec: {image: null}}`), "spec.image"); got != "node:lts" {
		t.Errorf("MCP spec.image = %v, want node:lts", got)
	}
	// Nested defaults apply only where their block is present, as upstream.
	for _, path := range []string{"spec.server", "spec.telemetry", "spec.auth", "spec.hpa"} {
		if got := lookup(t, empty, path); got != nil {
			t.Errorf("%s = %v, want unset in an empty spec", path, got)
		}
	}
}

// lookup is the value at a dotted path with [i] list indexes, or nil.
func lookup(t *testing.T, obj map[string]any, path string) any {
	t.Helper()
	var value any = obj
	for _, part := range strings.Split(path, ".") {
		name, index, isList := strings.Cut(strings.TrimSuffix(part, "]"), "[")
		m, ok := value.(map[string]any)
		if !ok {
			return nil
		}
		value = m[name]
		if isList {
			list, ok := value.([]any)
			if !ok || index != "0" || len(list) == 0 {
				return nil
			}
			value = list[0]
		}
	}
	return value
}

// stored is what the API server stores for a case that must be accepted.
func stored(t *testing.T, crd *crdtest.CRD, c testcases.Case) map[string]any {
	t.Helper()
	obj, errs := crd.Create(crdtest.Object(t, c))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return obj
}

// update admits a merge patch of old as an update.
func update(t *testing.T, crd *crdtest.CRD, old map[string]any, patch string) field.ErrorList {
	t.Helper()
	oldJSON, err := json.Marshal(old)
	if err != nil {
		t.Fatal(err)
	}
	_, errs := crd.Update(crdtest.Object(t, testcases.Case{Base: string(oldJSON), Patch: patch}), old)
	return errs
}

// TestGatewayUpdates: the update table the live admission suite sends (registry Updates) gets
// the same verdicts from the CRD's rules here.
func TestGatewayUpdates(t *testing.T) {
	crd := gatewayCRD(t)
	old := stored(t, crd, testcases.Case{Base: testcases.BaseGateway})
	for _, tc := range testcases.GatewayUpdates {
		t.Run(tc.Name, func(t *testing.T) {
			crdtest.ExpectErrors(t, update(t, crd, old, tc.Patch), tc.Errors)
		})
	}
}

// TestRatcheting shows what happens to objects stored before the rules (upstream's CRD accepted
// them): updates that leave the offending field alone pass, an update of it must fix it, and
// ValidateSpec reports it all along. The scaleTargetRef rule, at the root, ratchets itself.
func TestRatcheting(t *testing.T) {
	crd := gatewayCRD(t)
	old := stored(t, crd, testcases.Case{Base: testcases.BaseGateway, Patch: `{spec: {auth: {enabled: false}, hpa: {enabled: true, config: {maxReplicas: 3}}}}`})
	spec := old["spec"].(map[string]any)
	spec["auth"].(map[string]any)["provider"] = "jwt"
	spec["hpa"].(map[string]any)["config"].(map[string]any)["scaleTargetRef"] = map[string]any{"kind": "Deployment", "name": "gateway-deployment"}

	gateway := crdtest.DecodeStrict[v1alpha1.Gateway](t, old)
	if got, want := crdtest.ErrorSet(gateway.ValidateSpec()), []string{
		"Invalid value spec.auth.provider: " + v1alpha1.MessageAuthProvider,
		"Invalid value spec.hpa.config.scaleTargetRef: " + v1alpha1.MessageScaleTargetRef,
	}; !slices.Equal(got, want) {
		t.Errorf("ValidateSpec of the stored object = %q, want %q", got, want)
	}
	for _, tc := range []struct {
		name  string
		patch string
		want  []string
	}{
		{"add a label", `{metadata: {labels: {team: llm}}}`, nil},
		{"scale", `{spec: {replicas: 2, hpa: {config: {maxReplicas: 5}}}}`, nil},
		{"turn auth on, provider unchanged", `{spec: {auth: {enabled: true, oidc: {}}}}`, []string{v1alpha1.MessageAuthProvider}},
		{"point scaleTargetRef elsewhere", `{spec: {hpa: {config: {scaleTargetRef: {name: other}}}}}`, []string{v1alpha1.MessageScaleTargetRef}},
		{"fix both", `{spec: {auth: {provider: oidc}, hpa: {config: {scaleTargetRef: null}}}}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			crdtest.ExpectErrors(t, update(t, crd, old, tc.patch), tc.want)
		})
	}
}

func TestStatus(t *testing.T) {
	const conditions = `
    - {type: Available, status: "True", reason: AsExpected, message: "", lastTransitionTime: "2026-01-02T03:04:05Z", observedGeneration: 3}
    - {type: Progressing, status: "False", reason: AsExpected, message: "", lastTransitionTime: "2026-01-02T03:04:05Z"}
    - {type: Degraded, status: "False", reason: AsExpected, message: "", lastTransitionTime: "2026-01-02T03:04:05Z"}
  generations:
  - {group: apps, resource: deployments, namespace: llm, name: gw, lastGeneration: 2}
`
	for _, tc := range []struct {
		name, base, patch string
		want              []string
	}{
		{"Gateway: every field", testcases.BaseGateway, `
status:
  readyReplicas: 2
  availableReplicas: 2
  phase: Running
  message: ""
  observedGeneration: 3
  providerSummary: openai
  url: http://gw.llm.svc.cluster.local:8080
  serviceAccountName: gw
  mcpServers: ["http://memory-service.mcp.svc.cluster.local:8080/mcp"]
  mcpServerCount: 1
  conditions:` + conditions, nil},
		{"Gateway: phase Ready", testcases.BaseGateway, `{status: {phase: Ready, mcpServerCount: 0}}`, []string{`status.phase: Unsupported value: "Ready"`, testcases.RulesNotChecked}},
		{"Gateway: mcpServerCount missing", testcases.BaseGateway, `{status: {phase: Running}}`, []string{"status.mcpServerCount: Required value", testcases.RulesNotChecked}},
		{"Gateway: upstream's GatewayCondition without message", testcases.BaseGateway, `{status: {mcpServerCount: 0, conditions: [{type: Available, status: "True", reason: MinimumReplicasAvailable, lastTransitionTime: "2026-01-02T03:04:05Z"}]}}`,
			[]string{"status.conditions[0].message: Required value", testcases.RulesNotChecked}},
		{"Gateway: two Available conditions", testcases.BaseGateway, `{status: {mcpServerCount: 0, conditions: [
		  {type: Available, status: "True", reason: AsExpected, message: "", lastTransitionTime: "2026-01-02T03:04:05Z"},
		  {type: Available, status: "False", reason: DeploymentUnavailable, message: "", lastTransitionTime: "2026-01-02T03:04:05Z"}]}}`,
			[]string{`status.conditions[1]: Duplicate value: {"type":"Available"}`}},
		{"Gateway: the same Deployment twice in generations", testcases.BaseGateway, `{status: {mcpServerCount: 0, generations: [
		  {group: apps, resource: deployments, namespace: llm, name: gw, lastGeneration: 1},
		  {group: apps, resource: deployments, namespace: llm, name: gw, lastGeneration: 2}]}}`,
			[]string{`status.generations[1]: Duplicate value: {"group":"apps","name":"gw","namespace":"llm","resource":"deployments"}`}},
		{"MCP: every field", testcases.BaseMCP, `
status:
  observedGeneration: 3
  ready: true
  url: http://memory-service.mcp.svc.cluster.local:8080/mcp
  conditions:` + conditions, nil},
		{"MCP: two Available conditions", testcases.BaseMCP, `{status: {conditions: [
		  {type: Available, status: "True", reason: AsExpected, message: "", lastTransitionTime: "2026-01-02T03:04:05Z"},
		  {type: Available, status: "True", reason: AsExpected, message: "", lastTransitionTime: "2026-01-02T03:04:05Z"}]}}`,
			[]string{`status.conditions[1]: Duplicate value: {"type":"Available"}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			crd := gatewayCRD(t)
			if tc.base == testcases.BaseMCP {
				crd = mcpCRD(t)
			}
			old := stored(t, crd, testcases.Case{Base: tc.base})
			oldJSON, err := json.Marshal(old)
			if err != nil {
				t.Fatal(err)
			}
			crdtest.ExpectErrors(t, crd.UpdateStatus(crdtest.Object(t, testcases.Case{Base: string(oldJSON), Patch: tc.patch}), old), tc.want)
		})
	}
}

func TestCRDShape(t *testing.T) {
	for _, tc := range []struct {
		crd        *crdtest.CRD
		name, kind string
		shortNames []string
		columns    []apiextensionsv1.CustomResourceColumnDefinition
	}{
		{gatewayCRD(t), "gateways.core.inference-gateway.com", "Gateway", []string{"igw"}, []apiextensionsv1.CustomResourceColumnDefinition{
			{Name: "URL", Type: "string", JSONPath: ".status.url", Description: "Kubernetes service DNS address"},
			{Name: "Port", Type: "integer", JSONPath: ".spec.server.port", Description: "Gateway port"},
			{Name: "Providers", Type: "string", JSONPath: ".status.providerSummary", Description: "Configured providers"},
			{Name: "MCPS", Type: "integer", JSONPath: ".status.mcpServerCount", Description: "Number of MCP servers connected (static + discovered)"},
			{Name: "Ready", Type: "string", JSONPath: `.status.conditions[?(@.type=="Available")].status`, Description: "Whether the gateway serves requests"},
			{Name: "Phase", Type: "string", JSONPath: ".status.phase", Description: "Pending, Running, Failed or Unknown"},
			{Name: "AGE", Type: "date", JSONPath: ".metadata.creationTimestamp"},
		}},
		{mcpCRD(t), "mcps.core.inference-gateway.com", "MCP", nil, []apiextensionsv1.CustomResourceColumnDefinition{
			{Name: "URL", Type: "string", JSONPath: ".status.url", Description: "URL of the MCP server"},
			{Name: "Ready", Type: "string", JSONPath: `.status.conditions[?(@.type=="Available")].status`, Description: "Whether the server has a ready replica"},
			{Name: "AGE", Type: "date", JSONPath: ".metadata.creationTimestamp"},
		}},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			d := tc.crd.Definition
			n := d.Spec.Names
			if d.Name != tc.name || d.Spec.Scope != apiextensionsv1.NamespaceScoped || n.Kind != tc.kind || n.ListKind != tc.kind+"List" ||
				n.Singular != strings.ToLower(tc.kind) || !slices.Equal(n.ShortNames, tc.shortNames) || !slices.Equal(n.Categories, []string{"inference-gateway"}) {
				t.Errorf("names = %s %s %+v", d.Name, d.Spec.Scope, n)
			}
			v := d.Spec.Versions[0]
			if v.Name != "v1alpha1" || !v.Served || !v.Storage || v.Subresources == nil || v.Subresources.Status == nil || v.Subresources.Scale != nil {
				t.Errorf("version %s served %v storage %v subresources %+v, want v1alpha1 with the status subresource only", v.Name, v.Served, v.Storage, v.Subresources)
			}
			if !slices.Equal(v.AdditionalPrinterColumns, tc.columns) {
				t.Errorf("printer columns = %+v, want %+v", v.AdditionalPrinterColumns, tc.columns)
			}
			root := v.Schema.OpenAPIV3Schema
			if len(root.Required) != 0 {
				t.Errorf("required = %v, want none: upstream's spec is optional", root.Required)
			}
			status := root.Properties["status"]
			for name, keys := range map[string][]string{
				"conditions":  {"type"},
				"generations": {"group", "resource", "namespace", "name"},
			} {
				if got := status.Properties[name]; got.XListType == nil || *got.XListType != "map" || !slices.Equal(got.XListMapKeys, keys) {
					t.Errorf("status.%s: list type %v keys %v, want map keyed by %v: server-side apply merges them by key", name, got.XListType, got.XListMapKeys, keys)
				}
			}
			// Every field is documented: kubectl explain shows these descriptions.
			tc.crd.ExpectDescribed(t)
			// Every string, list and map of the spec has a size bound (issue 33).
			tc.crd.ExpectBounded(t)
		})
	}
}

// TestGoldenStatusFits: the status upstream wrote for each golden case is valid under the new
// status schema, with mcpServerCount (which upstream's Go type always writes).
func TestGoldenStatusFits(t *testing.T) {
	crd := gatewayCRD(t)
	for _, c := range goldenGatewaysOf(t, "Gateway", 6) {
		t.Run(c.Name, func(t *testing.T) {
			old := stored(t, crd, c)
			statusFile := strings.TrimPrefix(c.Name, "golden ")
			raw, err := os.ReadFile(filepath.Join(goldenDir, statusFile, "status.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			status := map[string]any{}
			if err := yaml.Unmarshal(raw, &status); err != nil {
				t.Fatal(err)
			}
			updated := runtime.DeepCopyJSON(old)
			updated["status"] = status
			crdtest.ExpectErrors(t, crd.UpdateStatus(updated, old), nil)
		})
	}
}
