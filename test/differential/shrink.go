package differential

import (
	"k8s.io/apimachinery/pkg/runtime"
)

// maxShrinkTries bounds the CRs one Shrink tries (each an admission and two renders), so that
// a failing run ends in minutes: the CR it returns is then small, if not the smallest.
const maxShrinkTries = 200

// Shrink returns the smallest CR it finds, below cr's spec, for which keep still holds (the CR
// is admitted and still shows the difference): it takes away one field, map entry or list item
// at a time, outermost first, keeping each removal that keep accepts and going on from there
// (not from the start), pass after pass until a pass removes nothing, or until it has tried
// maxShrinkTries CRs. keep(cr) must hold.
func Shrink(cr map[string]interface{}, keep func(map[string]interface{}) bool) map[string]interface{} {
	current := runtime.DeepCopyJSON(cr)
	tries := 0
	for {
		shrunk := false
		paths := fieldPaths(current["spec"], nil)
		for i := 0; i < len(paths); i++ {
			if tries >= maxShrinkTries {
				return current
			}
			candidate := runtime.DeepCopyJSON(current)
			if !remove(candidate["spec"], paths[i]) {
				continue
			}
			tries++
			if keep(candidate) {
				// The fields before i are as they were (outermost first; a removed list item
				// shifts only its later siblings): go on with the field now at i.
				current, shrunk = candidate, true
				paths = fieldPaths(current["spec"], nil)
				i--
			}
		}
		if !shrunk {
			return current
		}
	}
}

// fieldPaths lists every field, map entry and list item below v, outermost first.
func fieldPaths(v interface{}, prefix []interface{}) [][]interface{} {
	var here, below [][]interface{}
	switch n := v.(type) {
	case map[string]interface{}:
		for _, k := range sortedKeysOf(n) {
			p := append(append([]interface{}{}, prefix...), k)
			here = append(here, p)
			below = append(below, fieldPaths(n[k], p)...)
		}
	case []interface{}:
		for i := range n {
			p := append(append([]interface{}{}, prefix...), i)
			here = append(here, p)
			below = append(below, fieldPaths(n[i], p)...)
		}
	}
	return append(here, below...)
}

// remove deletes the node at path below v (a map, changed in place); false if there is none.
func remove(v interface{}, path []interface{}) bool {
	_, ok := removeAt(v, path)
	return ok
}

// removeAt returns v without the node at path (maps changed in place, lists rebuilt).
func removeAt(v interface{}, path []interface{}) (interface{}, bool) {
	if len(path) == 0 {
		return v, false
	}
	switch n := v.(type) {
	case map[string]interface{}:
		k, ok := path[0].(string)
		child, has := n[k]
		if !ok || !has {
			return v, false
		}
		if len(path) == 1 {
			delete(n, k)
			return n, true
		}
		newChild, ok := removeAt(child, path[1:])
		n[k] = newChild
		return n, ok
	case []interface{}:
		idx, ok := path[0].(int)
		if !ok || idx >= len(n) {
			return v, false
		}
		if len(path) == 1 {
			return append(append([]interface{}{}, n[:idx]...), n[idx+1:]...), true
		}
		newChild, ok := removeAt(n[idx], path[1:])
		n[idx] = newChild
		return n, ok
	}
	return v, false
}
