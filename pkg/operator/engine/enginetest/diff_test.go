package enginetest

import (
	"reflect"
	"testing"
)

func TestDiffFlattened(t *testing.T) {
	for _, tc := range []struct {
		name         string
		golden, ours map[string]map[string]any
		want         []FieldDiff
	}{
		{name: "equal", golden: map[string]map[string]any{"Service/a": {"spec.port": int64(1)}},
			ours: map[string]map[string]any{"Service/a": {"spec.port": int64(1)}}},
		{name: "a field differs, one is missing on either side",
			golden: map[string]map[string]any{"Service/a": {"spec.port": int64(1), "metadata.labels.x": "y"}},
			ours:   map[string]map[string]any{"Service/a": {"spec.port": int64(2), "metadata.labels.z": "w"}},
			want: []FieldDiff{
				{Kind: "Service", Name: "a", Path: "metadata.labels.x", Golden: "y", Ours: Absent},
				{Kind: "Service", Name: "a", Path: "metadata.labels.z", Golden: Absent, Ours: "w"},
				{Kind: "Service", Name: "a", Path: "spec.port", Golden: int64(1), Ours: int64(2)},
			}},
		{name: "objects only one side has",
			golden: map[string]map[string]any{"Service/a": {}},
			ours:   map[string]map[string]any{"ConfigMap/b": {}},
			want: []FieldDiff{
				{Kind: "ConfigMap", Name: "b", Golden: Absent, Ours: "object"},
				{Kind: "Service", Name: "a", Golden: "object", Ours: Absent},
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := DiffFlattened(tc.golden, tc.ours); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v\nwant %v", got, tc.want)
			}
		})
	}
	if got := Show(Absent); got != "<absent>" {
		t.Errorf("Show(Absent) = %s", got)
	}
}
