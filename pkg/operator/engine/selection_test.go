package engine

import (
	"errors"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

func TestNewLabelSelection(t *testing.T) {
	obj := func(ns string, labels map[string]string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "o", Namespace: ns, Labels: labels}}
	}
	all, err := NewLabelSelection("own", "", nil, "spec.selector")
	if err != nil || !all.Matches(obj("own", nil)) || all.Matches(obj("other", nil)) {
		t.Errorf("unset namespace and selector: every object of the CR's namespace; %v", err)
	}
	group, err := NewLabelSelection("own", "mcp", &metav1.LabelSelector{MatchLabels: map[string]string{"group": "a"}}, "spec.selector")
	if err != nil || !group.Matches(obj("mcp", map[string]string{"group": "a"})) || group.Matches(obj("mcp", map[string]string{"group": "b"})) || group.Matches(obj("own", map[string]string{"group": "a"})) {
		t.Errorf("namespace and labels; %v", err)
	}
	_, err = NewLabelSelection("own", "", &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "k", Operator: "Gt"}}}, "spec.a2a.serviceDiscovery.selector")
	if err == nil || err.Error()[:len("spec.a2a.serviceDiscovery.selector: ")] != "spec.a2a.serviceDiscovery.selector: " {
		t.Errorf("a selector that does not parse: %v", err)
	}
	if (LabelSelection{}).Matches(obj("", nil)) {
		t.Error("the zero selection matches")
	}
}

// TestSelectingKeys: an object's event maps to the CRs whose selections match it, through a
// tombstone too; a listing failure maps to none.
func TestSelectingKeys(t *testing.T) {
	crs := []*corev1.ConfigMap{
		{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "x", Labels: map[string]string{"sel": "g1"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "b", Namespace: "y", Labels: map[string]string{"sel": "g2"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "x"}},
	}
	selections := func(cr *corev1.ConfigMap) []LabelSelection {
		if cr.Labels["sel"] == "" {
			return nil
		}
		s, _ := NewLabelSelection(cr.Namespace, "mcp", &metav1.LabelSelector{MatchLabels: map[string]string{"group": cr.Labels["sel"]}}, "f")
		return []LabelSelection{s}
	}
	keys := SelectingKeys(func() ([]*corev1.ConfigMap, error) { return crs, nil }, selections)
	selected := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "m", Namespace: "mcp", Labels: map[string]string{"group": "g1"}}}
	if got := keys(selected); !slices.Equal(got, []string{"x/a"}) {
		t.Errorf("keys %v", got)
	}
	if got := keys(cache.DeletedFinalStateUnknown{Key: "mcp/m", Obj: selected}); !slices.Equal(got, []string{"x/a"}) {
		t.Errorf("tombstone keys %v", got)
	}
	failing := SelectingKeys(func() ([]*corev1.ConfigMap, error) { return nil, errors.New("no cache") }, selections)
	if got := failing(selected); len(got) != 0 {
		t.Errorf("keys %v without a list", got)
	}
}
