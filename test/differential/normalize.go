package differential

import (
	"slices"
)

// Equivalence is two shapes of an object that mean the same to its consumer; Normalize brings
// the one shape to the other, on both sides of a comparison.
type Equivalence struct {
	Name string
	// Why says which consumer reads both shapes alike, and how.
	Why string
	// Apply rewrites obj (a map, changed in place) into the normal shape; it returns whether it
	// changed anything.
	Apply func(obj map[string]interface{}) bool
}

// Equivalences are every equivalence the differential tests accept, in one place.
var Equivalences = []Equivalence{
	{
		Name: "monitor of its own namespace",
		Why: "the Prometheus operator selects pods or services of the PodMonitor's or ServiceMonitor's own " +
			"namespace when namespaceSelector is empty; matchNames naming that one namespace selects the same",
		Apply: ownNamespaceSelector,
	},
	{
		Name: "one HTTPRoute rule per match",
		Why: "Gateway API ORs a rule's matches, and orders matches across rules by their specificity, " +
			"not by rule: a rule with two matches routes as two rules of one match each with the same " +
			"filters and backends",
		Apply: oneMatchPerRule,
	},
}

// Normalize applies every equivalence to obj; it returns the names of those that changed it.
func Normalize(obj map[string]interface{}) []string {
	var applied []string
	for _, e := range Equivalences {
		if e.Apply(obj) {
			applied = append(applied, e.Name)
		}
	}
	return applied
}

func ownNamespaceSelector(obj map[string]interface{}) bool {
	if kind := obj["kind"]; kind != "PodMonitor" && kind != "ServiceMonitor" {
		return false
	}
	spec, _ := obj["spec"].(map[string]interface{})
	selector, _ := spec["namespaceSelector"].(map[string]interface{})
	if spec == nil || selector == nil || len(selector) != 1 {
		return false
	}
	names, _ := selector["matchNames"].([]interface{})
	metadata, _ := obj["metadata"].(map[string]interface{})
	if len(names) != 1 || metadata == nil || names[0] != metadata["namespace"] {
		return false
	}
	delete(spec, "namespaceSelector")
	return true
}

func oneMatchPerRule(obj map[string]interface{}) bool {
	if obj["kind"] != "HTTPRoute" {
		return false
	}
	spec, _ := obj["spec"].(map[string]interface{})
	rules, _ := spec["rules"].([]interface{})
	changed := false
	var out []interface{}
	for _, r := range rules {
		rule, _ := r.(map[string]interface{})
		matches, _ := rule["matches"].([]interface{})
		if len(matches) <= 1 {
			out = append(out, r)
			continue
		}
		changed = true
		for _, m := range matches {
			split := map[string]interface{}{}
			for k, v := range rule {
				split[k] = v
			}
			split["matches"] = []interface{}{m}
			out = append(out, split)
		}
	}
	if changed {
		spec["rules"] = slices.Clip(out)
	}
	return changed
}
