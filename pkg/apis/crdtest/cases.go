package crdtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/llm-infra/llm-infra-operator/pkg/apis/internal/admission"
)

// Object is c's object; it fails t when the case does not build.
func Object(t testing.TB, c admission.Case) map[string]any {
	t.Helper()
	obj, err := c.Object()
	if err != nil {
		t.Fatal(err)
	}
	return obj
}

// ExpectCases creates every case's object and requires exactly the case's errors, one subtest
// per case. Case names must be unique: the admission suites and `go test -run` find a case by
// its name, and Go would otherwise run the second one silently as "name#01".
func (c *CRD) ExpectCases(t *testing.T, cases []admission.Case) {
	seen := map[string]bool{}
	for _, tc := range cases {
		if seen[tc.Name] {
			t.Errorf("two cases are named %q: give each case its own name", tc.Name)
		}
		seen[tc.Name] = true
	}
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			_, errs := c.Create(Object(t, tc))
			ExpectErrors(t, errs, tc.Errors)
		})
	}
}

// ExpectValidateSpecAgrees runs every case the schema accepts through validate, with the object
// as the API server would store it, and requires the same errors as the CRD's CEL rules: same
// paths, types and messages. Objects with schema errors are left out: a Go function works on
// typed values, where an invalid 0 and an unset field look the same. It also fails for each CEL
// rule that no case breaks, except transitionRules: the messages of rules that compare an update
// with the stored object (oldSelf), which a create never breaks and a Go function of one object
// cannot check; test them with Update.
func (c *CRD) ExpectValidateSpecAgrees(t *testing.T, cases []admission.Case, validate func(t *testing.T, stored map[string]any) field.ErrorList, transitionRules ...string) {
	messages := c.RuleMessages()
	for _, m := range transitionRules {
		if !messages[m] {
			t.Errorf("the CRD has no rule %q", m)
		}
		delete(messages, m)
	}
	covered := map[string]bool{}
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			stored, errs := c.Create(Object(t, tc))
			var celErrs field.ErrorList
			for _, err := range errs {
				if messages[err.Detail] {
					celErrs = append(celErrs, err)
					covered[err.Detail] = true
				}
			}
			if len(celErrs) != len(errs) {
				t.Skip("schema errors: ValidateSpec does not check the schema")
			}
			if got, want := ErrorSet(validate(t, stored)), ErrorSet(celErrs); !slices.Equal(got, want) {
				t.Errorf("ValidateSpec:\n%s\nthe CRD:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
	for message := range messages {
		if !covered[message] {
			t.Errorf("no case breaks the CEL rule %q", message)
		}
	}
}

// RuleMessages is the message of every CEL rule in the CRD.
func (c *CRD) RuleMessages() map[string]bool {
	messages := map[string]bool{}
	Walk(c.version.Schema.OpenAPIV3Schema, "", func(_ string, s *apiextensionsv1.JSONSchemaProps) {
		for _, rule := range s.XValidations {
			messages[rule.Message] = true
		}
	})
	return messages
}

// ExpectDescribed fails t for every field of the CRD without a description: kubectl explain
// shows them.
func (c *CRD) ExpectDescribed(t testing.TB) {
	t.Helper()
	Walk(c.version.Schema.OpenAPIV3Schema, "", func(path string, s *apiextensionsv1.JSONSchemaProps) {
		if path != "" && path != ".metadata" && !strings.HasSuffix(path, "[*]") && strings.TrimSpace(s.Description) == "" {
			t.Errorf("%s has no description", path)
		}
	})
}

// ExpectBounded fails t for every string, list and map of the CRD's spec without a size bound
// (maxLength, maxItems, maxProperties), except at the paths of exempt (as Walk writes them,
// ".spec.x"). A bound keeps what one field holds small and lets the API server estimate the
// cost of the CEL rules that read it (issue 33). A string with an enum is bounded by it; an
// int-or-string (a quantity) by its pattern. The fields inside k8s.io/api's types get theirs
// from hack/crdbounds, the others from their markers.
func (c *CRD) ExpectBounded(t testing.TB, exempt ...string) {
	t.Helper()
	spec, ok := c.version.Schema.OpenAPIV3Schema.Properties["spec"]
	if !ok {
		t.Fatal("the CRD has no spec")
	}
	Walk(&spec, ".spec", func(path string, s *apiextensionsv1.JSONSchemaProps) {
		if slices.Contains(exempt, path) || s.XIntOrString {
			return
		}
		switch {
		case s.Type == "string" && len(s.Enum) == 0 && s.MaxLength == nil:
			t.Errorf("%s: a string without maxLength", path)
		case s.Type == "array" && s.MaxItems == nil:
			t.Errorf("%s: a list without maxItems", path)
		case s.Type == "object" && len(s.Properties) == 0 && s.AdditionalProperties != nil && s.MaxProperties == nil:
			t.Errorf("%s: a map without maxProperties", path)
		}
	})
}

// Walk calls visit on s and every schema under it, with its path.
func Walk(s *apiextensionsv1.JSONSchemaProps, path string, visit func(string, *apiextensionsv1.JSONSchemaProps)) {
	visit(path, s)
	for name, p := range s.Properties {
		Walk(&p, path+"."+name, visit)
	}
	if s.Items != nil && s.Items.Schema != nil {
		Walk(s.Items.Schema, path+"[*]", visit)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		Walk(s.AdditionalProperties.Schema, path+"[*]", visit)
	}
}

// ErrorSet prints errs as "type field: detail", sorted.
func ErrorSet(errs field.ErrorList) []string {
	var out []string
	for _, err := range errs {
		out = append(out, fmt.Sprintf("%s %s: %s", err.Type, err.Field, err.Detail))
	}
	sort.Strings(out)
	return out
}

// DecodeStrict decodes an object into a T and fails t on a field T lacks: the Go types and the
// CRD must describe the same fields.
func DecodeStrict[T any](t testing.TB, obj map[string]any) *T {
	t.Helper()
	raw, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	decoder := json.NewDecoder(bytes.NewReader(raw))
	decoder.DisallowUnknownFields()
	out := new(T)
	if err := decoder.Decode(out); err != nil {
		t.Fatalf("decode into %T: %v", out, err)
	}
	return out
}

// Details are the messages of errs, sorted.
func Details(errs field.ErrorList) []string {
	var out []string
	for _, err := range errs {
		out = append(out, err.Detail)
	}
	sort.Strings(out)
	return out
}

// GoldenCases are the golden CRs under dir (admission.Golden); t fails unless there are want of
// them, so that a case folder lost in a copy is noticed.
func GoldenCases(t testing.TB, dir string, want int) []admission.Case {
	t.Helper()
	golden, err := admission.Golden(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(golden) != want {
		t.Errorf("%d golden CRs under %s, want %d", len(golden), dir, want)
	}
	return golden
}
