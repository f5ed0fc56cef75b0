package v1

import (
	"slices"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/llm-infra/llm-infra-operator/pkg/apis/internal/crdtest"
)

// The CRD is checked with the API server's own validators (pkg/apis/internal/crdtest); the e2e
// tests exercise real admission.

const (
	manifestCRD = "../../../../manifests/operator.openshift.io_leaderworkersetoperators.yaml"
	deployCRD   = "../../../../deploy/00_operator.openshift.io_leaderworkersetoperators.crd.yaml"
)

func TestCRDAdmission(t *testing.T) {
	crd := loadCRD(t)

	tests := []struct {
		name string
		obj  string
		// wantErrs are substrings, one per expected error; none means the object is accepted.
		wantErrs []string
	}{
		{
			name: "name cluster with a minimal spec",
			obj: `
metadata: {name: cluster}
spec: {managementState: Managed}`,
		},
		{
			name: "full spec with nodePlacement",
			obj: `
metadata: {name: cluster}
spec:
  managementState: Managed
  logLevel: Debug
  operatorLogLevel: TraceAll
  nodePlacement:
    nodeSelector: {node-role.kubernetes.io/infra: ""}
    tolerations:
    - {key: node-role.kubernetes.io/infra, operator: Exists, effect: NoSchedule}
    - {key: example.com/gpu, operator: Equal, value: "true", effect: NoExecute, tolerationSeconds: 30}
status:
  observedGeneration: 2
  conditions:
  - {type: Available, status: "True", lastTransitionTime: "2026-01-02T03:04:05Z", reason: AsExpected}`,
		},
		{
			name: "every certificate source",
			obj: `
metadata: {name: cluster}
spec: {managementState: Managed, certificates: {source: ServiceCA}}`,
		},
		{
			name:     "unknown certificate source",
			obj:      `{metadata: {name: cluster}, spec: {managementState: Managed, certificates: {source: SelfSigned}}}`,
			wantErrs: []string{`spec.certificates.source: Unsupported value: "SelfSigned": supported values: "Automatic", "CertManager", "ServiceCA", "Operator"`, crdtest.RulesNotCheckedMessage},
		},
		{
			name:     "any other name",
			obj:      `{metadata: {name: foo}, spec: {managementState: Managed}}`,
			wantErrs: []string{"<nil>: Invalid value: LeaderWorkerSetOperator is a singleton: its name must be 'cluster'"},
		},
		{
			name: "unknown managementState",
			obj:  `{metadata: {name: cluster}, spec: {managementState: Bogus}}`,
			wantErrs: []string{
				`spec.managementState: Invalid value: "Bogus": spec.managementState in body should match '^(Managed|Unmanaged|Force|Removed)$'`,
				"spec: Invalid value: spec.managementState is required and must be one of Managed, Unmanaged, Force or Removed",
			},
		},
		{
			name:     "missing managementState",
			obj:      `{metadata: {name: cluster}, spec: {logLevel: Debug}}`,
			wantErrs: []string{"spec: Invalid value: spec.managementState is required and must be one of Managed, Unmanaged, Force or Removed"},
		},
		{
			name: "unknown logLevel",
			obj:  `{metadata: {name: cluster}, spec: {managementState: Managed, logLevel: Loud}}`,
			// An enum error keeps the API server from running the CEL rules, and it says so.
			wantErrs: []string{`spec.logLevel: Unsupported value: "Loud": supported values: "", "Normal", "Debug", "Trace", "TraceAll"`, crdtest.RulesNotCheckedMessage},
		},
		{
			name:     "unknown operatorLogLevel",
			obj:      `{metadata: {name: cluster}, spec: {managementState: Managed, operatorLogLevel: Loud}}`,
			wantErrs: []string{`spec.operatorLogLevel: Unsupported value: "Loud"`, crdtest.RulesNotCheckedMessage},
		},
		{
			name:     "missing spec",
			obj:      `{metadata: {name: cluster}}`,
			wantErrs: []string{`spec: Required value`, crdtest.RulesNotCheckedMessage},
		},
		{
			name:     "toleration with an unknown operator",
			obj:      `{metadata: {name: cluster}, spec: {managementState: Managed, nodePlacement: {tolerations: [{key: a, operator: Sometimes}]}}}`,
			wantErrs: []string{`spec.nodePlacement: Invalid value: nodePlacement.tolerations[].operator must be Exists or Equal`},
		},
		{
			name: "tolerations of the wrong shape",
			obj:  `{metadata: {name: cluster}, spec: {managementState: Managed, nodePlacement: {tolerations: {key: a}}}}`,
			// A map where a list belongs: its keys are fields the schema does not know, and strict
			// field validation (kubectl's default) fails the request on them before validating.
			wantErrs: []string{`unknown field "spec.nodePlacement.tolerations.key"`},
		},
		{
			name: "tolerations of the wrong type",
			obj:  `{metadata: {name: cluster}, spec: {managementState: Managed, nodePlacement: {tolerations: node-role.kubernetes.io/infra}}}`,
			// The schema error; the tolerations rule is not run on a value that is not a list.
			wantErrs: []string{`spec.nodePlacement.tolerations: Invalid value: "string": spec.nodePlacement.tolerations in body must be of type array`, crdtest.RulesNotCheckedMessage},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := map[string]any{}
			if err := yaml.Unmarshal([]byte(tt.obj), &obj); err != nil {
				t.Fatal(err)
			}
			obj["apiVersion"] = "operator.openshift.io/v1"
			obj["kind"] = "LeaderWorkerSetOperator"

			_, errs := crd.Create(obj)
			crdtest.ExpectErrors(t, errs, tt.wantErrs)
		})
	}
}

func TestCRDShape(t *testing.T) {
	crd := loadCRD(t).Definition

	if crd.Name != "leaderworkersetoperators.operator.openshift.io" || crd.Spec.Scope != apiextensionsv1.ClusterScoped {
		t.Errorf("got %s with scope %s, want the cluster-scoped leaderworkersetoperators.operator.openshift.io", crd.Name, crd.Spec.Scope)
	}
	v := crd.Spec.Versions[0]
	if v.Subresources == nil || v.Subresources.Status == nil {
		t.Error("the status subresource is missing: library-go's operator client writes status through it")
	}
	var columns []string
	for _, c := range v.AdditionalPrinterColumns {
		columns = append(columns, c.Name)
	}
	if want := []string{"Management", "Available", "Progressing", "Degraded", "Certificates", "Age"}; !slices.Equal(columns, want) {
		t.Errorf("printer columns = %v, want %v", columns, want)
	}

	specSchema := v.Schema.OpenAPIV3Schema.Properties["spec"]
	nodePlacement := specSchema.Properties["nodePlacement"]
	for name, s := range map[string]apiextensionsv1.JSONSchemaProps{
		"spec":                            specSchema,
		"spec.nodePlacement":              nodePlacement,
		"spec.nodePlacement.nodeSelector": nodePlacement.Properties["nodeSelector"],
		"spec.nodePlacement.tolerations":  nodePlacement.Properties["tolerations"],
		"spec.logLevel":                   specSchema.Properties["logLevel"],
		"spec.operatorLogLevel":           specSchema.Properties["operatorLogLevel"],
		"spec.managementState":            specSchema.Properties["managementState"],
	} {
		if strings.TrimSpace(s.Description) == "" {
			t.Errorf("%s has no description: kubectl explain would show nothing", name)
		}
	}
	if got := v.Schema.OpenAPIV3Schema.Properties["status"].Properties["conditions"].XListMapKeys; !slices.Equal(got, []string{"type"}) {
		t.Errorf("status.conditions list-map keys = %v, want [type]: server-side apply must merge conditions by type", got)
	}
}

// loadCRD also checks the deploy/ copy and that the API server accepts the CRD.
func loadCRD(t *testing.T) *crdtest.CRD {
	t.Helper()
	return crdtest.LoadGenerated(t, manifestCRD, deployCRD)
}
