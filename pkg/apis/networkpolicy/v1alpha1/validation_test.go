package v1alpha1

import (
	"reflect"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestValidate: every peer of from that selects nothing is reported at its index, with the CEL
// rule's message; a nil or empty policy has nothing to report. (The kinds' admission tables
// check the rule itself against the CRDs.)
func TestValidate(t *testing.T) {
	selects := &metav1.LabelSelector{}
	for _, tc := range []struct {
		name string
		p    *ServingNetworkPolicy
		want []string
	}{
		{"nil", nil, nil},
		{"no from", &ServingNetworkPolicy{Enabled: true}, nil},
		{"peers that select", &ServingNetworkPolicy{From: []NetworkPolicyPeer{{PodSelector: selects}, {NamespaceSelector: selects}}}, nil},
		{"the second and third select nothing", &ServingNetworkPolicy{From: []NetworkPolicyPeer{{PodSelector: selects}, {}, {}}},
			[]string{"spec.networkPolicy.from[1]", "spec.networkPolicy.from[2]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, err := range tc.p.Validate(field.NewPath("spec", "networkPolicy")) {
				if err.Detail != MessageNetworkPolicyPeer || err.Type != field.ErrorTypeInvalid {
					t.Errorf("error %v, want Invalid with MessageNetworkPolicyPeer", err)
				}
				got = append(got, err.Field)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("fields = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestPeers: from unset is no peer (any address); set, each peer is copied, not shared, so the
// rendered policy cannot change the CR.
func TestPeers(t *testing.T) {
	if got := (*ServingNetworkPolicy)(nil).Peers(); got != nil {
		t.Errorf("nil policy: peers %v, want none", got)
	}
	if got := (&ServingNetworkPolicy{Enabled: true}).Peers(); got != nil {
		t.Errorf("no from: peers %v, want none", got)
	}
	pods := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "chat"}}
	p := &ServingNetworkPolicy{From: []NetworkPolicyPeer{{PodSelector: pods}, {NamespaceSelector: &metav1.LabelSelector{}}}}
	got := p.Peers()
	want := []networkingv1.NetworkPolicyPeer{{PodSelector: pods}, {NamespaceSelector: &metav1.LabelSelector{}}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("peers = %+v, want %+v", got, want)
	}
	got[0].PodSelector.MatchLabels["app"] = "changed"
	if pods.MatchLabels["app"] != "chat" {
		t.Error("the peers share the CR's selector")
	}
}

// TestMonitoringNamespaceOrDefault: OpenShift's platform Prometheus unless set.
func TestMonitoringNamespaceOrDefault(t *testing.T) {
	for _, tc := range []struct {
		p    *ServingNetworkPolicy
		want string
	}{
		{nil, "openshift-monitoring"},
		{&ServingNetworkPolicy{}, "openshift-monitoring"},
		{&ServingNetworkPolicy{MonitoringNamespace: "monitoring"}, "monitoring"},
	} {
		if got := tc.p.MonitoringNamespaceOrDefault(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.p, got, tc.want)
		}
	}
}
