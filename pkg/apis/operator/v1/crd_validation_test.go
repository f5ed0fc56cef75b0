package v1

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/cel-go/cel"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/util/version"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/common"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/cel/openapi"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/yaml"
)

// The apiserver's own CRD validators (k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel and
// .../apiserver/validation) are not vendored. This test evaluates the generated CRD's CEL rules
// with the same building blocks those validators use (k8s.io/apiserver/pkg/cel: the base
// environment, schema-derived types, unstructured values), and checks the OpenAPI keywords the
// CRD uses (type, enum, pattern, maxLength, required) with a small validator of its own.
// Real admission is exercised by the e2e tests.

const (
	manifestCRD = "../../../../manifests/operator.openshift.io_leaderworkersetoperators.yaml"
	deployCRD   = "../../../../deploy/00_operator.openshift.io_leaderworkersetoperators.crd.yaml"
)

func TestCRDAdmission(t *testing.T) {
	crd := loadCRD(t, manifestCRD)

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
			name:     "any other name",
			obj:      `{metadata: {name: foo}, spec: {managementState: Managed}}`,
			wantErrs: []string{"<nil>: Invalid value: \"object\": LeaderWorkerSetOperator is a singleton: its name must be 'cluster'"},
		},
		{
			name: "unknown managementState",
			obj:  `{metadata: {name: cluster}, spec: {managementState: Bogus}}`,
			wantErrs: []string{
				`spec.managementState: Invalid value: "Bogus": should match '^(Managed|Unmanaged|Force|Removed)$'`,
				"spec: Invalid value: \"object\": spec.managementState is required and must be one of Managed, Unmanaged, Force or Removed",
			},
		},
		{
			name:     "missing managementState",
			obj:      `{metadata: {name: cluster}, spec: {logLevel: Debug}}`,
			wantErrs: []string{"spec: Invalid value: \"object\": spec.managementState is required and must be one of Managed, Unmanaged, Force or Removed"},
		},
		{
			name:     "unknown logLevel",
			obj:      `{metadata: {name: cluster}, spec: {managementState: Managed, logLevel: Loud}}`,
			wantErrs: []string{`spec.logLevel: Unsupported value: "Loud": supported values: "", "Normal", "Debug", "Trace", "TraceAll"`},
		},
		{
			name:     "unknown operatorLogLevel",
			obj:      `{metadata: {name: cluster}, spec: {managementState: Managed, operatorLogLevel: Loud}}`,
			wantErrs: []string{`spec.operatorLogLevel: Unsupported value: "Loud"`},
		},
		{
			name:     "missing spec",
			obj:      `{metadata: {name: cluster}}`,
			wantErrs: []string{`spec: Required value`},
		},
		{
			name:     "toleration with an unknown operator",
			obj:      `{metadata: {name: cluster}, spec: {managementState: Managed, nodePlacement: {tolerations: [{key: a, operator: Sometimes}]}}}`,
			wantErrs: []string{`spec.nodePlacement: Invalid value: "object": nodePlacement.tolerations[].operator must be Exists or Equal`},
		},
		{
			name: "tolerations of the wrong shape",
			obj:  `{metadata: {name: cluster}, spec: {managementState: Managed, nodePlacement: {tolerations: {key: a}}}}`,
			// The schema error, and the tolerations rule refusing to read a non-list.
			wantErrs: []string{`spec.nodePlacement.tolerations: Invalid value: "object": must be of type array`, `invalid data, expected an array`},
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

			errs := validate(t, crd, obj)
			if len(errs) != len(tt.wantErrs) {
				t.Fatalf("got %d errors, want %d:\n%s", len(errs), len(tt.wantErrs), errs.ToAggregate())
			}
			for _, want := range tt.wantErrs {
				if !slices.ContainsFunc(errs, func(err *field.Error) bool { return strings.Contains(err.Error(), want) }) {
					t.Errorf("no error contains %q; got:\n%s", want, errs.ToAggregate())
				}
			}
		})
	}
}

func TestCRDShape(t *testing.T) {
	crd := loadCRD(t, manifestCRD)

	manifest, err := os.ReadFile(manifestCRD)
	if err != nil {
		t.Fatal(err)
	}
	deploy, err := os.ReadFile(deployCRD)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(manifest, deploy) {
		t.Errorf("%s and %s differ: run hack/update-crds.sh", manifestCRD, deployCRD)
	}

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
	if want := []string{"Management", "Available", "Progressing", "Degraded", "Age"}; !slices.Equal(columns, want) {
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

func loadCRD(t *testing.T, path string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	raw, err := os.ReadFile(filepath.FromSlash(path))
	if err != nil {
		t.Fatalf("read the generated CRD (run hack/update-crds.sh): %v", err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(raw, crd); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(crd.Spec.Versions) != 1 || crd.Spec.Versions[0].Schema == nil || crd.Spec.Versions[0].Schema.OpenAPIV3Schema == nil {
		t.Fatalf("%s: want exactly one version with a schema", path)
	}
	return crd
}

// validate checks obj against the CRD's schema and evaluates its CEL rules, as on create.
func validate(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition, obj map[string]any) field.ErrorList {
	t.Helper()
	root := crd.Spec.Versions[0].Schema.OpenAPIV3Schema
	envSet := environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion())
	errs := validateSchema(nil, root, obj)
	errs = append(errs, validateCEL(t, envSet, nil, root, obj, true)...)
	return errs
}

func validateSchema(path *field.Path, s *apiextensionsv1.JSONSchemaProps, value any) field.ErrorList {
	var errs field.ErrorList
	if value == nil {
		return nil
	}
	switch s.Type {
	case "object":
		m, ok := value.(map[string]any)
		if !ok {
			return field.ErrorList{field.Invalid(path, typeName(value), "must be of type object")}
		}
		for _, name := range s.Required {
			if _, ok := m[name]; !ok {
				errs = append(errs, field.Required(path.Child(name), ""))
			}
		}
		for name, v := range m {
			if p, ok := s.Properties[name]; ok {
				errs = append(errs, validateSchema(path.Child(name), &p, v)...)
			} else if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
				errs = append(errs, validateSchema(path.Key(name), s.AdditionalProperties.Schema, v)...)
			}
		}
	case "array":
		l, ok := value.([]any)
		if !ok {
			return field.ErrorList{field.Invalid(path, typeName(value), "must be of type array")}
		}
		for i, v := range l {
			errs = append(errs, validateSchema(path.Index(i), s.Items.Schema, v)...)
		}
	case "string":
		str, ok := value.(string)
		if !ok {
			return field.ErrorList{field.Invalid(path, typeName(value), "must be of type string")}
		}
		if s.MaxLength != nil && int64(len(str)) > *s.MaxLength {
			errs = append(errs, field.TooLong(path, str, int(*s.MaxLength)))
		}
		if s.Pattern != "" && !regexp.MustCompile(s.Pattern).MatchString(str) {
			errs = append(errs, field.Invalid(path, str, fmt.Sprintf("should match '%s'", s.Pattern)))
		}
	case "integer":
		switch value.(type) {
		case int64, float64:
		default:
			return field.ErrorList{field.Invalid(path, typeName(value), "must be of type integer")}
		}
	}
	if len(s.Enum) > 0 {
		var allowed []string
		found := false
		for _, e := range s.Enum {
			var v any
			if err := json.Unmarshal(e.Raw, &v); err != nil {
				panic(err)
			}
			found = found || v == value
			allowed = append(allowed, fmt.Sprint(v))
		}
		if !found {
			errs = append(errs, field.NotSupported(path, value, allowed))
		}
	}
	return errs
}

func typeName(v any) string {
	switch v.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	default:
		return fmt.Sprintf("%T", v)
	}
}

// validateCEL evaluates the x-kubernetes-validations of s against value, then those of every
// nested schema. Transition rules (oldSelf) do not run on create and are skipped.
func validateCEL(t *testing.T, envSet *environment.EnvSet, path *field.Path, s *apiextensionsv1.JSONSchemaProps, value any, isRoot bool) field.ErrorList {
	t.Helper()
	if value == nil {
		return nil
	}
	var errs field.ErrorList
	if len(s.XValidations) > 0 {
		schema := toSpecSchema(t, s)
		if isRoot {
			schema = common.WithTypeAndObjectMeta(schema)
		}
		declType := common.SchemaDeclType(&openapi.Schema{Schema: schema}, isRoot).MaybeAssignTypeName("selfType")
		ruleEnvSet, err := envSet.Extend(environment.VersionedOptions{
			IntroducedVersion: version.MajorMinor(1, 0),
			EnvOptions:        []cel.EnvOption{cel.Variable("self", declType.CelType())},
			DeclTypes:         []*apiservercel.DeclType{declType},
		})
		if err != nil {
			t.Fatal(err)
		}
		env, err := ruleEnvSet.Env(environment.StoredExpressions)
		if err != nil {
			t.Fatal(err)
		}
		self := common.UnstructuredToVal(value, &openapi.Schema{Schema: schema})
		for _, rule := range s.XValidations {
			if strings.Contains(rule.Rule, "oldSelf") {
				continue
			}
			ast, issues := env.Compile(rule.Rule)
			if issues.Err() != nil {
				t.Fatalf("%s: rule %q does not compile: %v", path, rule.Rule, issues.Err())
			}
			program, err := env.Program(ast)
			if err != nil {
				t.Fatalf("%s: rule %q: %v", path, rule.Rule, err)
			}
			out, _, err := program.Eval(map[string]any{"self": self})
			switch {
			case err != nil:
				errs = append(errs, field.Invalid(path, typeName(value), fmt.Sprintf("rule %q: %v", rule.Rule, err)))
			case out.Value() != true:
				errs = append(errs, field.Invalid(path, typeName(value), rule.Message))
			}
		}
	}
	switch v := value.(type) {
	case map[string]any:
		for name, child := range v {
			if p, ok := s.Properties[name]; ok {
				errs = append(errs, validateCEL(t, envSet, path.Child(name), &p, child, false)...)
			} else if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
				errs = append(errs, validateCEL(t, envSet, path.Key(name), s.AdditionalProperties.Schema, child, false)...)
			}
		}
	case []any:
		if s.Items != nil && s.Items.Schema != nil {
			for i, child := range v {
				errs = append(errs, validateCEL(t, envSet, path.Index(i), s.Items.Schema, child, false)...)
			}
		}
	}
	return errs
}

func toSpecSchema(t *testing.T, s *apiextensionsv1.JSONSchemaProps) *spec.Schema {
	t.Helper()
	raw, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	out := &spec.Schema{}
	if err := json.Unmarshal(raw, out); err != nil {
		t.Fatal(err)
	}
	return out
}
