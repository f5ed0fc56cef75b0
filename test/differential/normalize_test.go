package differential

import (
	"reflect"
	"testing"

	"sigs.k8s.io/yaml"
)

func parse(t *testing.T, s string) map[string]interface{} {
	t.Helper()
	var out map[string]interface{}
	if err := yaml.Unmarshal([]byte(s), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestEquivalences: each equivalence brings its two shapes to one, and leaves alone what it does
// not cover.
func TestEquivalences(t *testing.T) {
	for _, tc := range []struct {
		name, one, other string
		same             bool
	}{
		{"monitor of its own namespace", `
kind: PodMonitor
metadata: {namespace: llm}
spec: {namespaceSelector: {matchNames: [llm]}, selector: {matchLabels: {a: b}}}`, `
kind: PodMonitor
metadata: {namespace: llm}
spec: {selector: {matchLabels: {a: b}}}`, true},
		{"monitor of another namespace", `
kind: PodMonitor
metadata: {namespace: llm}
spec: {namespaceSelector: {matchNames: [other]}}`, `
kind: PodMonitor
metadata: {namespace: llm}
spec: {}`, false},
		{"one HTTPRoute rule per match", `
kind: HTTPRoute
spec: {rules: [{matches: [{path: {value: /a}}, {path: {value: /b}}], backendRefs: [{name: s}]}]}`, `
kind: HTTPRoute
spec: {rules: [{matches: [{path: {value: /a}}], backendRefs: [{name: s}]}, {matches: [{path: {value: /b}}], backendRefs: [{name: s}]}]}`, true},
		{"HTTPRoute rules to other backends", `
kind: HTTPRoute
spec: {rules: [{matches: [{path: {value: /a}}, {path: {value: /b}}], backendRefs: [{name: s}]}]}`, `
kind: HTTPRoute
spec: {rules: [{matches: [{path: {value: /a}}], backendRefs: [{name: s}]}, {matches: [{path: {value: /b}}], backendRefs: [{name: t}]}]}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			one, other := parse(t, tc.one), parse(t, tc.other)
			Normalize(one)
			Normalize(other)
			if got := reflect.DeepEqual(one, other); got != tc.same {
				t.Errorf("normalised alike: %v, want %v\n%v\n%v", got, tc.same, one, other)
			}
		})
	}
	if len(Equivalences) != 2 {
		t.Errorf("%d equivalences: each needs its case here", len(Equivalences))
	}
}

// TestShrink: the smallest CR keeps what the predicate needs and nothing else.
func TestShrink(t *testing.T) {
	cr := parse(t, `
spec:
  a: {b: 1, c: [1, 2, 3]}
  d: x
  e: [{f: 1}, {g: 2}]`)
	got := Shrink(cr, func(c map[string]interface{}) bool {
		spec := c["spec"].(map[string]interface{})
		e, _ := spec["e"].([]interface{})
		for _, item := range e {
			if m, _ := item.(map[string]interface{}); m["g"] != nil {
				return true
			}
		}
		return false
	})
	want := parse(t, `spec: {e: [{g: 2}]}`)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("shrunk to %v, want %v", got, want)
	}
}
