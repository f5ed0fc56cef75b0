// Package admission is what the admission tables of the API packages (pkg/apis/*/*/testcases)
// share: the Case type, the golden CRs as cases, and the texts of the API server's errors. Like
// the tables, it is data and imports nothing that validates: the API packages' tests run the
// cases through pkg/apis/crdtest, and an e2e suite creates them on a real API server.
package admission

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"
)

// Case is one object and what the API server says about it.
type Case struct {
	Name string
	// Base is the object the case starts from, as YAML: a table's base object or a golden CR.
	Base string
	// Patch is a JSON merge patch (RFC 7386), written as YAML, applied to Base: a map merges
	// into the base, null removes a field, anything else replaces it.
	Patch string
	// Errors are substrings of the errors the API server must return, one substring per error
	// (field path, type and message); no errors means the object is accepted.
	Errors []string
}

// Object returns the case's object: Base with Patch applied.
func (c Case) Object() (map[string]any, error) {
	base, err := yaml.YAMLToJSON([]byte(c.Base))
	if err != nil {
		return nil, fmt.Errorf("%s: base: %w", c.Name, err)
	}
	if strings.TrimSpace(c.Patch) != "" {
		patch, err := yaml.YAMLToJSON([]byte(c.Patch))
		if err != nil {
			return nil, fmt.Errorf("%s: patch: %w", c.Name, err)
		}
		if base, err = jsonpatch.MergePatch(base, patch); err != nil {
			return nil, fmt.Errorf("%s: %w", c.Name, err)
		}
	}
	// Integral numbers become int64, as the API server decodes them.
	obj := map[string]any{}
	if err := utiljson.Unmarshal(base, &obj); err != nil {
		return nil, fmt.Errorf("%s: %w", c.Name, err)
	}
	return obj, nil
}

// RulesNotChecked is the API server's error when schema errors keep it from running the CEL
// rules.
const RulesNotChecked = "some validation rules were not checked because the object was invalid"

// Golden returns one case per <dir>/<case>/cr.yaml (an upstream operator's golden CRs, in
// test/golden/<operator>), each to be accepted unchanged.
func Golden(dir string) ([]Case, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*", "cr.yaml"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no */cr.yaml under %s", dir)
	}
	sort.Strings(files)
	var cases []Case
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		cases = append(cases, Case{Name: "golden " + filepath.Base(filepath.Dir(f)), Base: string(raw)})
	}
	return cases, nil
}

// GoldenOf returns the golden CRs under dir whose kind is kind, each accepted unchanged unless
// refused names it ("golden <case>"): refused are the golden CRs this API refuses by design,
// with the errors the API server returns (each a difference from upstream,
// docs/differences-from-upstream.md). A name in refused that is no golden CR under dir is an
// error, so that the list never outlives the CRs it was written for.
func GoldenOf(dir, kind string, refused map[string][]string) ([]Case, error) {
	golden, err := Golden(dir)
	if err != nil {
		return nil, err
	}
	var cases []Case
	names := map[string]bool{}
	for _, c := range golden {
		names[c.Name] = true
		var meta struct{ Kind string }
		if err := yaml.Unmarshal([]byte(c.Base), &meta); err != nil {
			return nil, fmt.Errorf("%s: %w", c.Name, err)
		}
		if meta.Kind != kind {
			continue
		}
		c.Errors = refused[c.Name]
		cases = append(cases, c)
	}
	for name := range refused {
		if !names[name] {
			return nil, fmt.Errorf("%q is listed as refused, but there is no such golden CR under %s", name, dir)
		}
	}
	if len(cases) == 0 {
		return nil, fmt.Errorf("no golden %s under %s", kind, dir)
	}
	return cases, nil
}

// Long is a string of n characters.
func Long(n int) string { return strings.Repeat("a", n) }

// LongURL is a URL of n characters.
func LongURL(n int) string { return "http://" + Long(n-len("http://")) }

// Items is a YAML list of n copies of item.
func Items(n int, item string) string {
	return "[" + strings.TrimSuffix(strings.Repeat(item+", ", n), ", ") + "]"
}

// Numbered is a YAML list of n items, item i being format with i for its %d (for lists keyed by
// a field, whose items must differ).
func Numbered(n int, format string) string {
	items := make([]string, n)
	for i := range items {
		items[i] = fmt.Sprintf(format, i)
	}
	return "[" + strings.Join(items, ", ") + "]"
}

// ExtendedResources is a YAML map of n extended resources (example.com/r0..) of "1" each: a
// resources.limits a container takes (an extended resource is a whole number, its request
// defaults to its limit).
func ExtendedResources(n int) string {
	entries := make([]string, n)
	for i := range entries {
		entries[i] = fmt.Sprintf(`example.com/r%d: "1"`, i)
	}
	return "{" + strings.Join(entries, ", ") + "}"
}

// Props is a YAML map of n entries k0..k<n-1>, each with value.
func Props(n int, value string) string {
	entries := make([]string, n)
	for i := range entries {
		entries[i] = fmt.Sprintf("k%d: %s", i, value)
	}
	return "{" + strings.Join(entries, ", ") + "}"
}

// Texts of the errors of CEL rules, as field.Error prints them.

// Required is a CEL rule's error with reason FieldValueRequired.
func Required(path, message string) string { return path + ": Required value: " + message }

// Forbidden is a CEL rule's error with reason FieldValueForbidden.
func Forbidden(path, message string) string { return path + ": Forbidden: " + message }

// Invalid is a CEL rule's error with the default reason, FieldValueInvalid.
func Invalid(path, message string) string { return path + ": Invalid value: " + message }

// Texts of the errors of the API server's OpenAPI schema validator.

// Unsupported is a value outside an enum.
func Unsupported(path, value string) string {
	return fmt.Sprintf("%s: Unsupported value: %q", path, value)
}

// Pattern is a string that does not match the field's pattern.
func Pattern(path, value, pattern string) string {
	return fmt.Sprintf("%s: Invalid value: %q: %s in body should match '%s'", path, value, path, pattern)
}

// TooLong is a string longer than the field's maxLength.
func TooLong(path string, n int) string {
	return fmt.Sprintf("%s: Too long: may not be more than %d bytes", path, n)
}

// TooMany is a list longer than the field's maxItems.
func TooMany(path string, got, max int) string {
	return fmt.Sprintf("%s: Too many: %d: must have at most %d items", path, got, max)
}

// Minimum is a number below the field's minimum.
func Minimum(path string, value, min int) string {
	return fmt.Sprintf("%s: Invalid value: %d: %s in body should be greater than or equal to %d", path, value, path, min)
}

// Maximum is a number above the field's maximum.
func Maximum(path string, value, max int) string {
	return fmt.Sprintf("%s: Invalid value: %d: %s in body should be less than or equal to %d", path, value, path, max)
}

// Missing is a required field that is absent.
func Missing(path string) string { return path + ": Required value" }

// Patterns of the API packages, as the schema errors quote them.
const (
	DurationPattern = `^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`
	URLPattern      = `^https?://.+$`
)
