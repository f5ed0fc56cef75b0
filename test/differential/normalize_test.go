package differential

import (
	"fmt"
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

// TestShrinkIsBounded: however many fields a CR has, Shrink tries at most maxShrinkTries CRs
// (each an admission and two renders in the differential tests), and after each removal it goes
// on from where it was, not from the first field: one pass, and one more over what is left.
func TestShrinkIsBounded(t *testing.T) {
	for _, tc := range []struct {
		name string
		// fields the CR has; the difference needs the first needed of them.
		fields, needed int
		wantTries      int
	}{
		{"no field can go: one pass over them", 30, 30, 30},
		{"more fields than the bound", 5 * maxShrinkTries, 5 * maxShrinkTries, maxShrinkTries},
		// Starting again after each removal would try 15 + 15*16 = 255.
		{"the last half can go: a pass, and one over the first half", 30, 15, 30 + 15},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := map[string]interface{}{}
			for i := 0; i < tc.fields; i++ {
				spec[fmt.Sprintf("f%04d", i)] = int64(i)
			}
			tries := 0
			got := Shrink(map[string]interface{}{"spec": spec}, func(cr map[string]interface{}) bool {
				tries++
				s := cr["spec"].(map[string]interface{})
				for i := 0; i < tc.needed; i++ {
					if _, ok := s[fmt.Sprintf("f%04d", i)]; !ok {
						return false
					}
				}
				return true
			})
			if tries != tc.wantTries {
				t.Errorf("%d tries, want %d", tries, tc.wantTries)
			}
			if left := len(got["spec"].(map[string]interface{})); tc.needed < tc.fields && left != tc.needed {
				t.Errorf("%d fields left, want %d", left, tc.needed)
			}
		})
	}
}
