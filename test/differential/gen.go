package differential

import (
	"fmt"
	"math/rand"
	"regexp"
	"slices"
	"sort"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apimachinery/pkg/runtime"
)

// Generator makes custom resources from a CRD's structural schema, reproducibly from a seed:
// each optional property is set with probability Optional, every enum value and every default
// can be drawn, lists and maps get zero to two entries within their bounds. A string with a
// pattern takes a value seen at the same path (Pool: the golden CRs' and admission tables'
// values), since a random string would match almost no pattern; without one it is left out.
// What the CRD's rules refuse is filtered by admitting each CR (crdtest), not here.
type Generator struct {
	Schema   *structuralschema.Structural
	Pool     Pool
	Optional float64
}

// Pool is the values seen per path (".spec.processor.dispatchMode"; a list's items are "[]", a
// map's values "{}").
type Pool map[string][]interface{}

// Add records every value of obj (a CR) under its path.
func (p Pool) Add(path string, v interface{}) {
	switch n := v.(type) {
	case map[string]interface{}:
		p[path+"{whole}"] = append(p[path+"{whole}"], n)
		for k, e := range n {
			p.Add(path+"."+k, e)
			p.Add(path+"{}", e)
		}
		p[path+"{keys}"] = appendUnique(p[path+"{keys}"], keysOf(n)...)
	case []interface{}:
		for _, e := range n {
			p.Add(path+"[]", e)
		}
	default:
		p[path] = appendUnique(p[path], v)
	}
}

func keysOf(m map[string]interface{}) []interface{} {
	var out []interface{}
	for _, k := range sortedKeysOf(m) {
		out = append(out, k)
	}
	return out
}

func appendUnique(list []interface{}, values ...interface{}) []interface{} {
	for _, v := range values {
		if !slices.ContainsFunc(list, func(e interface{}) bool { return fmt.Sprint(e) == fmt.Sprint(v) }) {
			list = append(list, v)
		}
	}
	return list
}

func sortedKeysOf[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Spec generates a spec.
func (g *Generator) Spec(rng *rand.Rand) map[string]interface{} {
	s := g.Schema.Properties["spec"]
	v, _ := g.value(rng, &s, ".spec", 0).(map[string]interface{})
	if v == nil {
		v = map[string]interface{}{}
	}
	return v
}

const maxDepth = 12

var plainName = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// value generates a value of s at path, or nil to leave the field out.
func (g *Generator) value(rng *rand.Rand, s *structuralschema.Structural, path string, depth int) interface{} {
	if depth > maxDepth {
		return nil
	}
	vv := s.ValueValidation
	if vv != nil && len(vv.Enum) > 0 {
		return runtime.DeepCopyJSONValue(vv.Enum[rng.Intn(len(vv.Enum))].Object)
	}
	pool := g.Pool[path]
	usePool := len(pool) > 0 && rng.Float64() < 0.7
	switch {
	case s.Type == "object" && s.Properties != nil:
		// A whole object seen at this path, now and then: the CRD's rules across its fields
		// (an async processor's Redis and pools) are rarely met by drawing each field alone.
		if whole := g.Pool[path+"{whole}"]; len(whole) > 0 && rng.Float64() < 0.25 {
			return runtime.DeepCopyJSONValue(whole[rng.Intn(len(whole))])
		}
		out := map[string]interface{}{}
		var required []string
		if vv != nil {
			required = vv.Required
		}
		for _, name := range sortedKeysOf(s.Properties) {
			if !slices.Contains(required, name) && rng.Float64() >= g.Optional {
				continue
			}
			p := s.Properties[name]
			if v := g.value(rng, &p, path+"."+name, depth+1); v != nil {
				out[name] = v
			}
		}
		return out
	case s.Type == "object" && s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil:
		out := map[string]interface{}{}
		keys := g.Pool[path+"{keys}"]
		for i, n := 0, rng.Intn(3); i < n; i++ {
			key := fmt.Sprintf("k%d", rng.Intn(4))
			if len(keys) > 0 && rng.Float64() < 0.7 {
				key = fmt.Sprint(keys[rng.Intn(len(keys))])
			}
			if v := g.value(rng, s.AdditionalProperties.Structural, path+"{}", depth+1); v != nil {
				out[key] = v
			}
		}
		return out
	case s.Type == "object":
		if usePool {
			return runtime.DeepCopyJSONValue(pool[rng.Intn(len(pool))])
		}
		return nil
	case s.Type == "array" && s.Items != nil:
		n := rng.Intn(3)
		if vv != nil && vv.MinItems != nil && int64(n) < *vv.MinItems {
			n = int(*vv.MinItems)
		}
		if vv != nil && vv.MaxItems != nil && int64(n) > *vv.MaxItems {
			n = int(*vv.MaxItems)
		}
		out := []interface{}{}
		for i := 0; i < n; i++ {
			if v := g.value(rng, s.Items, path+"[]", depth+1); v != nil {
				out = append(out, v)
			}
		}
		return out
	case s.Type == "boolean":
		return rng.Intn(2) == 0
	case s.Type == "integer" || (s.XIntOrString && !usePool):
		if usePool {
			return runtime.DeepCopyJSONValue(pool[rng.Intn(len(pool))])
		}
		lo, hi := int64(0), int64(10)
		if vv != nil && vv.Minimum != nil {
			lo = int64(*vv.Minimum)
		}
		if vv != nil && vv.Maximum != nil && int64(*vv.Maximum) < lo+10 {
			hi = int64(*vv.Maximum) - lo
		}
		return lo + rng.Int63n(hi+1)
	case s.Type == "number":
		return float64(rng.Intn(100)) / 10
	case s.Type == "string" || s.XIntOrString:
		if usePool {
			return runtime.DeepCopyJSONValue(pool[rng.Intn(len(pool))])
		}
		if s.Default.Object != nil && rng.Intn(2) == 0 {
			return runtime.DeepCopyJSONValue(s.Default.Object)
		}
		if vv != nil && (vv.Pattern != "" || vv.Format != "") {
			if len(pool) > 0 {
				return runtime.DeepCopyJSONValue(pool[rng.Intn(len(pool))])
			}
			return nil
		}
		name := fmt.Sprintf("v%d", rng.Intn(1000))
		if !plainName.MatchString(name) {
			return nil
		}
		return name
	}
	if usePool {
		return runtime.DeepCopyJSONValue(pool[rng.Intn(len(pool))])
	}
	return nil
}
