package v1alpha1_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/llm-infra/llm-infra-operator/pkg/apis/crdtest"
	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1/testcases"
	"github.com/llm-infra/llm-infra-operator/pkg/apis/internal/admission"
)

const (
	// The upstream operator's golden Agents and Orchestrators, and its CRDs
	// (test/golden/README.md).
	agentsGoldenDir = "../../../../test/golden/inference-gateway-agents"
)

func agentCRD(t *testing.T) *crdtest.CRD {
	t.Helper()
	return crdtest.LoadGenerated(t, "../../../../manifests/core.inference-gateway.com_agents.yaml", "../../../../deploy/00_core.inference-gateway.com_agents.crd.yaml")
}

func orchestratorCRD(t *testing.T) *crdtest.CRD {
	t.Helper()
	return crdtest.LoadGenerated(t, "../../../../manifests/core.inference-gateway.com_orchestrators.yaml", "../../../../deploy/00_core.inference-gateway.com_orchestrators.crd.yaml")
}

func gpuCRD(t *testing.T) *crdtest.CRD {
	t.Helper()
	return crdtest.LoadGenerated(t, "../../../../manifests/core.inference-gateway.com_gpus.yaml", "../../../../deploy/00_core.inference-gateway.com_gpus.crd.yaml")
}

// goldenOf is the golden CRs of one kind as cases: accepted unchanged, or refused as
// testcases.AgentsGoldenRefused says.
func goldenOf(t *testing.T, kind string, want int) []testcases.Case {
	t.Helper()
	crdtest.GoldenCases(t, agentsGoldenDir, 10)
	cases, err := admission.GoldenOf(agentsGoldenDir, kind, testcases.AgentsGoldenRefused)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != want {
		t.Errorf("%d golden %ss, want %d", len(cases), kind, want)
	}
	return cases
}

func agentCases(t *testing.T) []testcases.Case {
	return slices.Concat(goldenOf(t, "Agent", 5), testcases.AgentAccepted, testcases.AgentRejected)
}

func orchestratorCases(t *testing.T) []testcases.Case {
	return slices.Concat(goldenOf(t, "Orchestrator", 5), testcases.OrchestratorAccepted, testcases.OrchestratorRejected)
}

func gpuCases() []testcases.Case {
	return slices.Concat(testcases.GPUAccepted, testcases.GPURejected)
}

func TestAgentAdmission(t *testing.T)        { agentCRD(t).ExpectCases(t, agentCases(t)) }
func TestOrchestratorAdmission(t *testing.T) { orchestratorCRD(t).ExpectCases(t, orchestratorCases(t)) }
func TestGPUAdmission(t *testing.T)          { gpuCRD(t).ExpectCases(t, gpuCases()) }

// TestGPUUpdates: what a GPU's allocation runs cannot change; maxRuntime can, and credentialsRef
// while no allocation is held.
func TestGPUUpdates(t *testing.T) {
	crd := gpuCRD(t)
	old := stored(t, crd, testcases.Case{Base: testcases.BaseGPU})
	for _, tc := range testcases.GPUUpdates {
		t.Run(tc.Name, func(t *testing.T) {
			crdtest.ExpectErrors(t, update(t, crd, old, tc.Patch), tc.Errors)
		})
	}
}

// TestGPUUpdatesWithAllocation: credentialsRef is fixed while the GPU holds an allocation
// (issue 33: releasing it with another key got the provider's 404 and left it billing).
func TestGPUUpdatesWithAllocation(t *testing.T) {
	crd := gpuCRD(t)
	old := stored(t, crd, testcases.Case{Base: testcases.BaseGPU})
	// The status as the operator writes it (through the status subresource) after leasing.
	var status map[string]any
	if err := yaml.Unmarshal([]byte(testcases.GPUAllocatedStatus), &status); err != nil {
		t.Fatal(err)
	}
	if err := unstructured.SetNestedMap(old, status, "status"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range testcases.GPUUpdatesWithAllocation {
		t.Run(tc.Name, func(t *testing.T) {
			crdtest.ExpectErrors(t, update(t, crd, old, tc.Patch), tc.Errors)
		})
	}
}

// TestValidateSpecAgreesWithAgentCRDs: each kind's ValidateSpec returns the errors of its CRD's
// CEL rules on every case the schema accepts, and every rule is broken by some case.
func TestValidateSpecAgreesWithAgentCRDs(t *testing.T) {
	t.Run("Agent", func(t *testing.T) {
		agentCRD(t).ExpectValidateSpecAgrees(t, agentCases(t), func(t *testing.T, stored map[string]any) field.ErrorList {
			return crdtest.DecodeStrict[v1alpha1.Agent](t, stored).ValidateSpec()
		})
	})
	t.Run("Orchestrator", func(t *testing.T) {
		orchestratorCRD(t).ExpectValidateSpecAgrees(t, orchestratorCases(t), func(t *testing.T, stored map[string]any) field.ErrorList {
			return crdtest.DecodeStrict[v1alpha1.Orchestrator](t, stored).ValidateSpec()
		})
	})
	t.Run("GPU", func(t *testing.T) {
		gpuCRD(t).ExpectValidateSpecAgrees(t, gpuCases(), func(t *testing.T, stored map[string]any) field.ErrorList {
			return crdtest.DecodeStrict[v1alpha1.GPU](t, stored).ValidateSpec()
		}, v1alpha1.MessageGPUImmutable, v1alpha1.MessageGPUCredentialsHeld)
	})
}

// TestAgentKindsDescribed: kubectl explain has a description for every field.
func TestAgentKindsDescribed(t *testing.T) {
	agentCRD(t).ExpectDescribed(t)
	orchestratorCRD(t).ExpectDescribed(t)
	gpuCRD(t).ExpectDescribed(t)
}

// TestAgentKindsBounded: every string, list and map of the spec has a size bound (issue 33).
func TestAgentKindsBounded(t *testing.T) {
	agentCRD(t).ExpectBounded(t)
	orchestratorCRD(t).ExpectBounded(t)
	gpuCRD(t).ExpectBounded(t)
}

// TestAgentKindsDefaults: nested defaults apply only inside a block that is present, as
// upstream's.
func TestAgentKindsDefaults(t *testing.T) {
	minimal := stored(t, agentCRD(t), testcases.Case{Base: testcases.BaseAgent})
	blocks := stored(t, agentCRD(t), testcases.Case{Base: testcases.BaseAgent, Patch: `{spec: {logging: {}, mcp: {}, agent: {llm: {}}, telemetry: {}}}`})
	orch := stored(t, orchestratorCRD(t), testcases.Case{Base: testcases.BaseOrchestrator, Patch: `{spec: {telemetry: {receiver: {}}}}`})
	gpu := stored(t, gpuCRD(t), testcases.Case{Base: testcases.BaseGPU})
	for _, tc := range []struct {
		obj  map[string]any
		path string
		want any
	}{
		{minimal, "spec.port", int64(8080)},
		{minimal, "spec.host", "0.0.0.0"},
		{minimal, "spec.timezone", "UTC"},
		{minimal, "spec.readTimeout", "30s"},
		{minimal, "spec.writeTimeout", "30s"},
		{minimal, "spec.idleTimeout", "60s"},
		{minimal, "spec.logging", nil},
		{minimal, "spec.agent", nil},
		{blocks, "spec.logging.level", "info"},
		{blocks, "spec.logging.format", "json"},
		{blocks, "spec.mcp.endpoint", "/mcp"},
		{blocks, "spec.mcp.refreshInterval", "5m"},
		{blocks, "spec.mcp.dialTimeout", "30s"},
		{blocks, "spec.mcp.callTimeout", "30s"},
		{blocks, "spec.mcp.maxRetries", int64(0)},
		{blocks, "spec.mcp.retryInterval", "2s"},
		{blocks, "spec.mcp.retryMaxInterval", "30s"},
		{blocks, "spec.agent.maxConversationHistory", int64(10)},
		{blocks, "spec.agent.maxChatCompletionIterations", int64(5)},
		{blocks, "spec.agent.maxRetries", int64(3)},
		{blocks, "spec.agent.llm.maxTokens", int64(4096)},
		{blocks, "spec.agent.llm.temperature", "0.7"},
		{blocks, "spec.telemetry.enabled", false},
		{blocks, "spec.telemetry.metrics.port", int64(9464)},
		{orch, "spec.telemetry.receiver.port", int64(4318)},
		{orch, "spec.telemetry.receiver.enabled", false},
		{gpu, "spec.provider", "runpod"},
		{gpu, "spec.endpoint.port", int64(8080)},
		{gpu, "spec.endpoint.readinessPath", "/"},
	} {
		if got := lookup(t, tc.obj, tc.path); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s = %#v, want %#v", tc.path, got, tc.want)
		}
	}
}

// TestAgentKindsStatus: the status the operator writes, and upstream's golden statuses, fit the
// status schemas.
func TestAgentKindsStatus(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(agentsGoldenDir, "*", "status.yaml"))
	if err != nil || len(dirs) != 10 {
		t.Fatalf("%d golden statuses: %v", len(dirs), err)
	}
	for _, f := range dirs {
		t.Run(filepath.Base(filepath.Dir(f)), func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join(filepath.Dir(f), "cr.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			status, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			crd, base := agentCRD(t), testcases.BaseAgent
			if strings.Contains(string(raw), "kind: Orchestrator") {
				crd, base = orchestratorCRD(t), testcases.BaseOrchestrator
			}
			old := stored(t, crd, testcases.Case{Base: base})
			obj := crdtest.Object(t, testcases.Case{Base: base, Patch: "status:\n" + indent(string(status))})
			crdtest.ExpectErrors(t, crd.UpdateStatus(obj, old), nil)
		})
	}
	gpu := gpuCRD(t)
	old := stored(t, gpu, testcases.Case{Base: testcases.BaseGPU})
	obj := crdtest.Object(t, testcases.Case{Base: testcases.BaseGPU, Patch: `
status:
  phase: Ready
  instanceID: abc123
  url: https://abc123-8000.proxy.runpod.net
  connectionSecretRef: {name: ornith-connection}
  startedAt: "2026-01-02T03:04:05Z"
  expiresAt: "2026-01-02T05:04:05Z"
  observedGeneration: 1
  conditions:
  - {type: Ready, status: "True", reason: EndpointReady, message: ready, lastTransitionTime: "2026-01-02T03:04:05Z", observedGeneration: 1}
`})
	crdtest.ExpectErrors(t, gpu.UpdateStatus(obj, old), nil)
}

func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i := range lines {
		lines[i] = "  " + lines[i]
	}
	return strings.Join(lines, "\n")
}

// schemaDifference is an intended difference of a CRD from upstream's.
type schemaDifference struct {
	kind, path, what string
	reason           string
}

var schemaDifferences = []schemaDifference{
	{"Agent", "names.categories", "[] -> [inference-gateway]",
		"kubectl get inference-gateway lists every kind of the group, as the Orchestrator, GPU, Gateway and MCP are listed (additive)"},
	{"Agent", ".spec.env", "x-kubernetes-list-type: <nil> -> map",
		"env is keyed by name: two entries of one name are rejected (the kubelet used the last silently), and server-side apply merges entries by name as for a container's env"},
	{"Agent", ".spec.env", "x-kubernetes-list-map-keys: <nil> -> [name]", "as above"},
	{"Orchestrator", ".spec.env", "x-kubernetes-list-type: <nil> -> map", "as for the Agent"},
	{"Orchestrator", ".spec.env", "x-kubernetes-list-map-keys: <nil> -> [name]", "as for the Agent"},
	{"Agent", ".status.conditions", "x-kubernetes-list-type: <nil> -> map",
		"conditions are keyed by type, as the Orchestrator's and GPU's (and metav1.Condition's convention), so server-side apply merges them"},
	{"Agent", ".status.conditions", "x-kubernetes-list-map-keys: <nil> -> [type]", "as above"},
	{"Agent", ".spec.networkPolicy", "field: missing -> present",
		"an opt-in NetworkPolicy of the agent's A2A port (issue 33): upstream makes none, while an agent runs its LLM loop for any caller; unset, nothing changes (additive)"},
	{"Orchestrator", ".spec.networkPolicy", "field: missing -> present",
		"an opt-in NetworkPolicy that refuses every connection but the OTLP receiver's (issue 33); unset, nothing changes (additive)"},
}

// TestUpstreamSchema compares each CRD with upstream's (test/golden/inference-gateway-agents/crds,
// copied from inference-gateway/operator at fae5b925): the names, short names and categories,
// the printer columns, and for every field upstream has its type, format, default, enum, list
// type and required fields. Our CRDs add bounds, patterns and CEL rules, which this test does not
// compare (the admission tables do); every other difference must be listed, with its reason, and
// every listed one must occur.
func TestUpstreamSchema(t *testing.T) {
	var got []string
	for _, tc := range []struct {
		kind, plural string
		ours         *crdtest.CRD
	}{
		{"Agent", "agents", agentCRD(t)},
		{"Orchestrator", "orchestrators", orchestratorCRD(t)},
		{"GPU", "gpus", gpuCRD(t)},
	} {
		raw, err := os.ReadFile(filepath.Join(agentsGoldenDir, "crds", "core.inference-gateway.com_"+tc.plural+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		upstream := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.UnmarshalStrict(raw, upstream); err != nil {
			t.Fatal(err)
		}
		ours := tc.ours.Definition
		diff := func(path, what string, a, b any) {
			if !reflect.DeepEqual(a, b) {
				got = append(got, fmt.Sprintf("%s %s %s: %v -> %v", tc.kind, path, what, show(a), show(b)))
			}
		}
		un, on := upstream.Spec.Names, ours.Spec.Names
		diff("names", "", fmt.Sprint(un.Kind, un.ListKind, un.Plural, un.Singular, un.ShortNames), fmt.Sprint(on.Kind, on.ListKind, on.Plural, on.Singular, on.ShortNames))
		if !slices.Equal(un.Categories, on.Categories) {
			got = append(got, fmt.Sprintf("%s names.categories %v -> %v", tc.kind, un.Categories, on.Categories))
		}
		diff("scope", "", upstream.Spec.Scope, ours.Spec.Scope)
		uv, ov := upstream.Spec.Versions[0], ours.Spec.Versions[0]
		diff("version", "", fmt.Sprint(uv.Name, uv.Served, uv.Storage, uv.Subresources), fmt.Sprint(ov.Name, ov.Served, ov.Storage, ov.Subresources))
		diff("additionalPrinterColumns", "", uv.AdditionalPrinterColumns, ov.AdditionalPrinterColumns)
		compareSchemas(uv.Schema.OpenAPIV3Schema, ov.Schema.OpenAPIV3Schema, "", func(path, what string, a, b any) {
			if !reflect.DeepEqual(a, b) {
				got = append(got, fmt.Sprintf("%s %s %s: %v -> %v", tc.kind, path, what, show(a), show(b)))
			}
		})
	}
	var want []string
	for _, d := range schemaDifferences {
		want = append(want, fmt.Sprintf("%s %s %s", d.kind, d.path, d.what))
	}
	sort.Strings(got)
	sort.Strings(want)
	for _, g := range got {
		if !slices.Contains(want, g) {
			t.Errorf("difference from upstream's CRD not listed: %s", g)
		}
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("listed difference from upstream's CRD does not occur: %s", w)
		}
	}
}

// compareSchemas reports, for every field of upstream's schema, what differs in ours; a field
// ours lacks is "missing".
func compareSchemas(up, ours *apiextensionsv1.JSONSchemaProps, path string, report func(path, what string, a, b any)) {
	if ours == nil {
		report(path, "field", "present", "missing")
		return
	}
	report(path, "type", up.Type, ours.Type)
	report(path, "format", up.Format, ours.Format)
	report(path, "default", jsonOf(up.Default), jsonOf(ours.Default))
	report(path, "enum", jsonOf(up.Enum), jsonOf(ours.Enum))
	report(path, "x-kubernetes-list-type", strOrNil(up.XListType), strOrNil(ours.XListType))
	report(path, "x-kubernetes-list-map-keys", up.XListMapKeys, ours.XListMapKeys)
	report(path, "x-kubernetes-int-or-string", up.XIntOrString, ours.XIntOrString)
	report(path, "x-kubernetes-preserve-unknown-fields", up.XPreserveUnknownFields, ours.XPreserveUnknownFields)
	report(path, "required", sortedCopy(up.Required), sortedCopy(ours.Required))
	for name, p := range up.Properties {
		var o *apiextensionsv1.JSONSchemaProps
		if op, ok := ours.Properties[name]; ok {
			o = &op
		}
		compareSchemas(&p, o, path+"."+name, report)
	}
	for name := range ours.Properties {
		if _, ok := up.Properties[name]; !ok {
			report(path+"."+name, "field", "missing", "present")
		}
	}
	if up.Items != nil && up.Items.Schema != nil {
		var o *apiextensionsv1.JSONSchemaProps
		if ours.Items != nil {
			o = ours.Items.Schema
		}
		compareSchemas(up.Items.Schema, o, path+"[*]", report)
	}
}

func jsonOf(v any) any {
	if v == nil || reflect.ValueOf(v).IsNil() {
		return nil
	}
	raw, _ := json.Marshal(v)
	return string(raw)
}

func strOrNil(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

func sortedCopy(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return slices.Sorted(slices.Values(s))
}

func show(v any) string {
	if v == nil {
		return "<nil>"
	}
	if s, ok := v.([]string); ok && len(s) == 0 {
		return "<nil>"
	}
	return fmt.Sprint(v)
}
