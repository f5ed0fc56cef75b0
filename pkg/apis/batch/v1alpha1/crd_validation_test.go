package v1alpha1_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/batch/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/apis/batch/v1alpha1/testcases"
	"github.com/llm-infra/llm-infra-operator/pkg/apis/crdtest"
)

const (
	manifestCRD = "../../../../manifests/batch.llm-d.ai_llmbatchgateways.yaml"
	deployCRD   = "../../../../deploy/00_batch.llm-d.ai_llmbatchgateways.crd.yaml"
	// The upstream operator's golden CRs (test/golden/README.md).
	goldenDir = "../../../../test/golden/batch-gateway"
)

func loadCRD(t *testing.T) *crdtest.CRD {
	t.Helper()
	return crdtest.LoadGenerated(t, manifestCRD, deployCRD)
}

// allCases is every case of the table: the golden CRs, then the other accepted and the rejected
// objects.
func allCases(t *testing.T) []testcases.Case {
	t.Helper()
	return slices.Concat(crdtest.GoldenCases(t, goldenDir, 12), testcases.Accepted, testcases.Rejected)
}

func object(t *testing.T, c testcases.Case) map[string]any {
	t.Helper()
	return crdtest.Object(t, c)
}

func TestCRDAdmission(t *testing.T) {
	loadCRD(t).ExpectCases(t, allCases(t))
}

// TestValidateSpecAgreesWithCRD: ValidateSpec returns the errors of the CRD's CEL rules, on
// every case the schema accepts.
func TestValidateSpecAgreesWithCRD(t *testing.T) {
	loadCRD(t).ExpectValidateSpecAgrees(t, allCases(t), func(t *testing.T, stored map[string]any) field.ErrorList {
		return decodeStrict(t, stored).ValidateSpec()
	})
}

func decodeStrict(t *testing.T, obj map[string]any) *v1alpha1.LLMBatchGateway {
	t.Helper()
	return crdtest.DecodeStrict[v1alpha1.LLMBatchGateway](t, obj)
}

func TestDefaults(t *testing.T) {
	crd := loadCRD(t)
	sync, errs := crd.Create(object(t, testcases.Case{Base: testcases.BaseSync, Patch: `{spec: {fileStorage: {retry: {}}, processor: {config: {}}, gc: {config: {reconciler: {}}}}}`}))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	async, errs := crd.Create(object(t, testcases.Case{Base: testcases.BaseAsync, Patch: `{spec: {processor: {asyncConfig: {modelServerMonitor: {}}}}}`}))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	// Upstream's defaults, which existing objects were stored with.
	for _, tc := range []struct {
		obj  map[string]any
		path string
		want any
	}{
		{sync, "spec.dbBackend", "postgresql"},
		{sync, "spec.apiServer.replicas", int64(1)},
		{sync, "spec.processor.replicas", int64(1)},
		{sync, "spec.processor.dispatchMode", "sync"},
		{sync, "spec.gc.replicas", int64(1)},
		{sync, "spec.gc.interval", "30m"},
		{sync, "spec.fileStorage.retry.maxRetries", int64(3)},
		{sync, "spec.fileStorage.retry.initialBackoff", "1s"},
		{sync, "spec.fileStorage.retry.maxBackoff", "10s"},
		{sync, "spec.processor.config.heartbeatInterval", v1alpha1.DefaultHeartbeatInterval},
		{sync, "spec.gc.config.reconciler.enabled", true},
		{sync, "spec.gc.config.reconciler.interval", v1alpha1.DefaultReconcilerInterval},
		{async, "spec.processor.dispatchMode", "async"},
		{async, "spec.processor.asyncConfig.replicas", int64(1)},
		{async, "spec.processor.asyncConfig.concurrency", int64(8)},
		{async, "spec.processor.asyncConfig.drainTimeout", "2m"},
		{async, "spec.processor.asyncConfig.redis.requestPathURL", "/v1/completions"},
		{async, "spec.processor.asyncConfig.redis.pollIntervalMs", int64(1000)},
		{async, "spec.processor.asyncConfig.redis.batchSize", int64(10)},
		{async, "spec.processor.asyncConfig.modelServerMonitor.port", "modelserver"},
		{async, "spec.processor.asyncConfig.modelServerMonitor.path", "/metrics"},
		{async, "spec.processor.asyncConfig.modelServerMonitor.interval", "15s"},
	} {
		got, found, err := unstructured.NestedFieldNoCopy(tc.obj, strings.Split(tc.path, ".")...)
		if err != nil || !found || got != tc.want {
			t.Errorf("%s = %v (found %v, %v), want %v", tc.path, got, found, err, tc.want)
		}
	}
	tlsDefaults, errs := crd.Create(object(t, testcases.Case{Base: testcases.BaseSync, Patch: `{spec: {tls: {enabled: true, certManager: {issuerName: ca}}}}`}))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if kind, _, _ := unstructured.NestedString(tlsDefaults, "spec", "tls", "certManager", "issuerKind"); kind != "ClusterIssuer" {
		t.Errorf("spec.tls.certManager.issuerKind = %q, want ClusterIssuer", kind)
	}
}

// TestRatcheting shows what happens to an object stored before a rule existed (an async
// gateway with a global inference gateway, which upstream's CRD accepted): updates that leave
// spec.processor alone pass, an update of spec.processor must fix it, and ValidateSpec reports
// it all along.
func TestRatcheting(t *testing.T) {
	crd := loadCRD(t)
	stored, errs := crd.Create(object(t, testcases.Case{Base: testcases.BaseAsync}))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	processor := stored["spec"].(map[string]any)["processor"].(map[string]any)
	processor["globalInferenceGateway"] = map[string]any{"url": "http://gw"}
	delete(processor, "modelGateways")

	if errs := decodeStrict(t, stored).ValidateSpec(); !slices.ContainsFunc(errs, func(e *field.Error) bool { return e.Detail == v1alpha1.MessageAsyncGlobalGateway }) {
		t.Errorf("ValidateSpec of the stored object = %v, want %q", errs, v1alpha1.MessageAsyncGlobalGateway)
	}
	for _, tc := range []struct {
		name  string
		patch string
		want  []string
	}{
		{"scale the apiserver", `{spec: {apiServer: {replicas: 2}}}`, nil},
		{"add a label", `{metadata: {labels: {team: batch}}}`, nil},
		{"scale the processor", `{spec: {processor: {replicas: 2}}}`, []string{v1alpha1.MessageAsyncGlobalGateway}},
		{"fix it", `{spec: {processor: {globalInferenceGateway: null, modelGateways: {llama-3: {inferencePoolName: llama-pool}}}}}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			storedJSON, err := json.Marshal(stored)
			if err != nil {
				t.Fatal(err)
			}
			updated := object(t, testcases.Case{Base: string(storedJSON), Patch: tc.patch})
			_, errs := crd.Update(updated, stored)
			crdtest.ExpectErrors(t, errs, tc.want)
		})
	}
}

func TestStatus(t *testing.T) {
	crd := loadCRD(t)
	stored, errs := crd.Create(object(t, testcases.Case{Base: testcases.BaseAsync}))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	const status = `
status:
  observedGeneration: 3
  conditions:
  - {type: Ready, status: "False", reason: ComponentsNotReady, message: "One or more components have no ready replicas", lastTransitionTime: "2026-01-02T03:04:05Z", observedGeneration: 3}
  - {type: AsyncProcessorAvailable, status: "False", reason: Unavailable, message: "", lastTransitionTime: "2026-01-02T03:04:05Z"}
  componentStatus:
    apiServer: {replicas: 1, readyReplicas: 1}
    processor: {replicas: 1, readyReplicas: 1}
    gc: {replicas: 1, readyReplicas: 0}
    asyncProcessor: {replicas: 1, readyReplicas: 0}
  generations:
  - {group: apps, resource: deployments, namespace: llm, name: gw-batch-gateway-apiserver, lastGeneration: 2}
  - {group: apps, resource: deployments, namespace: llm, name: gw-batch-gateway-processor, lastGeneration: 1}
`
	storedYAML, err := json.Marshal(stored)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		patch string
		want  []string
	}{
		{"every field", status, nil},
		{"two Ready conditions", `{status: {conditions: [
		  {type: Ready, status: "True", reason: AllComponentsReady, message: "", lastTransitionTime: "2026-01-02T03:04:05Z"},
		  {type: Ready, status: "False", reason: ComponentsNotReady, message: "", lastTransitionTime: "2026-01-02T03:04:05Z"}]}}`,
			[]string{`status.conditions[1]: Duplicate value: {"type":"Ready"}`}},
		{"the same Deployment twice in generations", `{status: {generations: [
		  {group: apps, resource: deployments, namespace: llm, name: gw, lastGeneration: 1},
		  {group: apps, resource: deployments, namespace: llm, name: gw, lastGeneration: 2}]}}`,
			[]string{`status.generations[1]: Duplicate value: {"group":"apps","name":"gw","namespace":"llm","resource":"deployments"}`}},
		{"componentStatus without readyReplicas", `{status: {componentStatus: {gc: {replicas: 1}}}}`,
			[]string{"status.componentStatus.gc.readyReplicas: Required value", testcases.RulesNotChecked}},
		{"a condition without reason", `{status: {conditions: [{type: Ready, status: "True", message: "", lastTransitionTime: "2026-01-02T03:04:05Z"}]}}`,
			[]string{"status.conditions[0].reason: Required value", testcases.RulesNotChecked}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			updated := object(t, testcases.Case{Base: string(storedYAML), Patch: tc.patch})
			crdtest.ExpectErrors(t, crd.UpdateStatus(updated, stored), tc.want)
		})
	}
}

func TestCRDShape(t *testing.T) {
	// loadCRD also checks that the API server accepts the CRD, CEL cost included.
	crd := loadCRD(t)
	d := crd.Definition
	if d.Name != "llmbatchgateways.batch.llm-d.ai" || d.Spec.Scope != apiextensionsv1.NamespaceScoped ||
		d.Spec.Names.Kind != "LLMBatchGateway" || d.Spec.Names.ListKind != "LLMBatchGatewayList" ||
		d.Spec.Names.Singular != "llmbatchgateway" || !slices.Equal(d.Spec.Names.ShortNames, []string{"lbg"}) {
		t.Errorf("names = %s %s %+v, want upstream's", d.Name, d.Spec.Scope, d.Spec.Names)
	}
	v := d.Spec.Versions[0]
	if v.Name != "v1alpha1" || !v.Served || !v.Storage || v.Subresources == nil || v.Subresources.Status == nil || v.Subresources.Scale != nil {
		t.Errorf("version %s served %v storage %v subresources %+v, want v1alpha1 with the status subresource only", v.Name, v.Served, v.Storage, v.Subresources)
	}
	wantColumns := []apiextensionsv1.CustomResourceColumnDefinition{
		{Name: "Ready", Type: "string", JSONPath: `.status.conditions[?(@.type=="Ready")].status`},
		{Name: "API-Ready", Type: "integer", JSONPath: ".status.componentStatus.apiServer.readyReplicas"},
		{Name: "Proc-Ready", Type: "integer", JSONPath: ".status.componentStatus.processor.readyReplicas"},
		{Name: "GC-Ready", Type: "integer", JSONPath: ".status.componentStatus.gc.readyReplicas"},
		{Name: "Async-Ready", Type: "integer", JSONPath: ".status.componentStatus.asyncProcessor.readyReplicas"},
		{Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp"},
	}
	if !slices.Equal(v.AdditionalPrinterColumns, wantColumns) {
		t.Errorf("printer columns = %+v, want %+v", v.AdditionalPrinterColumns, wantColumns)
	}

	root := v.Schema.OpenAPIV3Schema
	if !slices.Equal(root.Required, []string{"spec"}) {
		t.Errorf("required = %v, want [spec]", root.Required)
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
	crd.ExpectDescribed(t)
	// Every string, list and map of the spec has a size bound (issue 33).
	crd.ExpectBounded(t)
}
