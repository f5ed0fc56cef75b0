package v1

import (
	"slices"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/llm-infra/llm-infra-operator/pkg/apis/crdtest"
	"github.com/llm-infra/llm-infra-operator/pkg/apis/operator/v1/testcases"
)

// The CRD is checked with the API server's own validators (pkg/apis/crdtest); the e2e
// tests exercise real admission.

const (
	manifestCRD = "../../../../manifests/operator.openshift.io_leaderworkersetoperators.yaml"
	deployCRD   = "../../../../deploy/00_operator.openshift.io_leaderworkersetoperators.crd.yaml"
)

// TestCRDAdmission runs the admission table (testcases), which the e2e suite and
// test/reliability/admission send to a real API server.
func TestCRDAdmission(t *testing.T) {
	crd := loadCRD(t)
	crd.ExpectCases(t, slices.Concat(testcases.Accepted, testcases.Rejected))
}

// TestEveryRuleHasACase fails for a CEL rule of the CRD outside status (status is not admitted
// on create) that no rejected case breaks, and for a message constant of the table that is not
// the CRD's.
func TestEveryRuleHasACase(t *testing.T) {
	messages := map[string]bool{}
	crdtest.Walk(loadCRD(t).Definition.Spec.Versions[0].Schema.OpenAPIV3Schema, "", func(path string, s *apiextensionsv1.JSONSchemaProps) {
		for _, rule := range s.XValidations {
			if !strings.HasPrefix(path, ".status") {
				messages[rule.Message] = true
			}
		}
	})
	for _, m := range []string{testcases.MessageSingleton, testcases.MessageManagementState, testcases.MessageTolerationOperator,
		testcases.MessageTolerationEffect, testcases.MessageTolerationSeconds, testcases.MessageTolerationExists, testcases.MessageTolerationNoKey,
		testcases.MessageTolerationKey, testcases.MessageTolerationValue, testcases.MessageNodeSelector} {
		if !messages[m] {
			t.Errorf("the CRD has no rule with the message %q", m)
		}
	}
	for m := range messages {
		if !slices.ContainsFunc(testcases.Rejected, func(c testcases.Case) bool {
			return slices.ContainsFunc(c.Errors, func(e string) bool { return strings.Contains(e, m) })
		}) {
			t.Errorf("no rejected case breaks the rule %q", m)
		}
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

// TestCRDBounded: every string, list and map of the spec has a size bound (issue 33), but
// openshift/api's OperatorSpec's: managementState is bounded by its pattern (four words), and
// observedConfig and unsupportedConfigOverrides are free-form objects, as in openshift/lws-operator.
func TestCRDBounded(t *testing.T) {
	loadCRD(t).ExpectBounded(t, ".spec.managementState")
}

// loadCRD also checks the deploy/ copy and that the API server accepts the CRD.
func loadCRD(t *testing.T) *crdtest.CRD {
	t.Helper()
	return crdtest.LoadGenerated(t, manifestCRD, deployCRD)
}
