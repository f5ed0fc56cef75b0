package enginetest

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// absentValue is the type of Absent: comparable, so a listed difference's value can be matched
// with ==.
type absentValue struct{}

// Absent stands for a field, or a whole object, that one side of a golden comparison does not
// have.
var Absent any = absentValue{}

// FieldDiff is one field of the object Kind/Name that differs between upstream's objects and
// the operand's: Path as Flatten writes it, "" for a whole object only one side has (whose value
// is then "object" on the side that has it).
type FieldDiff struct {
	Kind, Name   string
	Path         string
	Golden, Ours any
}

func (d FieldDiff) String() string {
	return fmt.Sprintf("%s %s %s: upstream %s, ours %s", d.Kind, d.Name, d.Path, Show(d.Golden), Show(d.Ours))
}

// Object is the key of d's object, as ObjectKey writes it.
func (d FieldDiff) Object() string { return d.Kind + "/" + d.Name }

// Show is a value as a failure prints it: JSON, or <absent>.
func Show(v any) string {
	if v == Absent {
		return "<absent>"
	}
	data, _ := json.Marshal(v)
	return string(data)
}

// ObjectKey is an object's key in a golden comparison: kind/name.
func ObjectKey(obj map[string]any) string {
	u := unstructured.Unstructured{Object: obj}
	return u.GetKind() + "/" + u.GetName()
}

// DiffFlattened compares two sets of objects, each flattened (Flatten) and keyed by ObjectKey,
// and returns every field that differs and every object only one side has, in the order of
// their keys and paths.
func DiffFlattened(golden, ours map[string]map[string]any) []FieldDiff {
	var diffs []FieldDiff
	for _, key := range unionOfKeys(golden, ours) {
		g, o := golden[key], ours[key]
		kind, name, _ := strings.Cut(key, "/")
		switch {
		case g == nil:
			diffs = append(diffs, FieldDiff{Kind: kind, Name: name, Golden: Absent, Ours: "object"})
		case o == nil:
			diffs = append(diffs, FieldDiff{Kind: kind, Name: name, Golden: "object", Ours: Absent})
		default:
			for _, path := range unionOfKeys(g, o) {
				gv, gok := g[path]
				ov, ook := o[path]
				if !gok {
					gv = Absent
				}
				if !ook {
					ov = Absent
				}
				if !reflect.DeepEqual(gv, ov) {
					diffs = append(diffs, FieldDiff{Kind: kind, Name: name, Path: path, Golden: gv, Ours: ov})
				}
			}
		}
	}
	return diffs
}

// unionOfKeys is the sorted keys of a and b together.
func unionOfKeys[V any](a, b map[string]V) []string {
	keys := maps.Clone(a)
	if keys == nil {
		keys = map[string]V{}
	}
	maps.Copy(keys, b)
	return slices.Sorted(maps.Keys(keys))
}

// GoldenObject is an object of a golden case (or the CR's status): its kind, and whether only
// one side has it. An intended difference of a field applies to objects both sides have, one of
// a whole object to objects only one side has.
type GoldenObject struct {
	Kind     string
	OneSided bool
}

// GoldenObjects is every object of either side of a case, keyed as DiffFlattened keys them.
func GoldenObjects(golden, ours map[string]map[string]any) map[string]GoldenObject {
	objects := map[string]GoldenObject{}
	for _, key := range unionOfKeys(golden, ours) {
		kind, _, _ := strings.Cut(key, "/")
		objects[key] = GoldenObject{Kind: kind, OneSided: golden[key] == nil || ours[key] == nil}
	}
	return objects
}

// FlattenedCase is a case of a golden test that compares flattened objects: listed returns the
// index of the intended difference d is (-1 when none), applies whether intended difference i
// applies to an object.
func FlattenedCase(golden, ours map[string]map[string]any, listed func(o GoldenObject, d FieldDiff) int,
	applies func(i int, o GoldenObject) bool) GoldenCase[FieldDiff] {
	objects := GoldenObjects(golden, ours)
	return GoldenCase[FieldDiff]{
		Diffs:   DiffFlattened(golden, ours),
		Objects: slices.Sorted(maps.Keys(objects)),
		Listed: func(d FieldDiff) (int, string) {
			return listed(objects[d.Object()], d), d.Object()
		},
		Applies: func(i int, key string) bool { return applies(i, objects[key]) },
	}
}
