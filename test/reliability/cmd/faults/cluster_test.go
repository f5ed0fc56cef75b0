package main

import (
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8stypes "k8s.io/apimachinery/pkg/types"
)

func TestDescribeObjectComparesOwnersAndLabelsNotUIDs(t *testing.T) {
	controller := true
	obj := func(uid string) *unstructured.Unstructured {
		o := &unstructured.Unstructured{}
		o.SetLabels(map[string]string{"b": "2", "a": "1"})
		o.SetOwnerReferences([]metav1.OwnerReference{
			{Kind: "LLMBatchGateway", Name: "gw", UID: k8stypes.UID("uid-" + uid), Controller: &controller},
			{Kind: "ConfigMap", Name: "cm", UID: "x"},
		})
		return o
	}
	got := describeObject(obj("1"))
	if want := "owners[ConfigMap/cm,LLMBatchGateway/gw*] labels[a=1,b=2]"; got != want {
		t.Errorf("describeObject = %q, want %q", got, want)
	}
	if describeObject(obj("2")) != got {
		t.Errorf("two runs' objects differing only in owner UIDs must compare equal")
	}
}

func TestDiffNamesMissingExtraAndChangedObjects(t *testing.T) {
	tests := []struct {
		name      string
		want, got snapshot
		diff      []string
	}{
		{name: "equal", want: snapshot{"configmaps ns/a": "x"}, got: snapshot{"configmaps ns/a": "x"}},
		{name: "missing", want: snapshot{"configmaps ns/a": "x"}, got: snapshot{}, diff: []string{"missing configmaps ns/a"}},
		{name: "extra (a duplicate or an orphan)", want: snapshot{}, got: snapshot{"configmaps ns/b": "y"}, diff: []string{"extra configmaps ns/b y"}},
		{name: "owner or label changed", want: snapshot{"configmaps ns/a": "x"}, got: snapshot{"configmaps ns/a": "z"},
			diff: []string{"configmaps ns/a: z, want x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := diff(tt.want, tt.got)
			if !reflect.DeepEqual(d, tt.diff) {
				t.Errorf("diff = %q, want %q", d, tt.diff)
			}
			if tt.name == "extra (a duplicate or an orphan)" && countExtra(d) != 1 {
				t.Errorf("countExtra = %d, want 1", countExtra(d))
			}
		})
	}
}
