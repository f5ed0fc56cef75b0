package enginetest

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

func tcpPort(p int32) networkingv1.NetworkPolicyPort {
	return networkingv1.NetworkPolicyPort{Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To(intstr.FromInt32(p))}
}

func selector(kv ...string) *metav1.LabelSelector {
	m := map[string]string{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return &metav1.LabelSelector{MatchLabels: m}
}

// TestAllowed checks the evaluator against the API's rules, one connection per row.
func TestAllowed(t *testing.T) {
	policies := []*networkingv1.NetworkPolicy{
		{ // web: ingress on 80 from namespaces of team x, egress to 10/8 but 10.1/16 on 443, ports 8000-8010 anywhere.
			ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "a"},
			Spec: networkingv1.NetworkPolicySpec{
				PodSelector: *selector("app", "web"),
				PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress},
				Ingress:     []networkingv1.NetworkPolicyIngressRule{{Ports: []networkingv1.NetworkPolicyPort{tcpPort(80)}, From: []networkingv1.NetworkPolicyPeer{{NamespaceSelector: selector("team", "x")}}}},
				Egress: []networkingv1.NetworkPolicyEgressRule{
					{Ports: []networkingv1.NetworkPolicyPort{tcpPort(443)}, To: []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: "10.0.0.0/8", Except: []string{"10.1.0.0/16"}}}}},
					{Ports: []networkingv1.NetworkPolicyPort{{Port: ptr.To(intstr.FromInt32(8000)), EndPort: ptr.To[int32](8010)}}},
				},
			},
		},
		{ // db: ingress from web pods of its own namespace only; no policyTypes and no egress rules: egress not isolated.
			ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "a"},
			Spec: networkingv1.NetworkPolicySpec{
				PodSelector: *selector("app", "db"),
				Ingress:     []networkingv1.NetworkPolicyIngressRule{{From: []networkingv1.NetworkPolicyPeer{{PodSelector: selector("app", "web")}}}},
			},
		},
		{ // named: a named port, which the evaluator refuses.
			ObjectMeta: metav1.ObjectMeta{Name: "named", Namespace: "n"},
			Spec: networkingv1.NetworkPolicySpec{
				Ingress: []networkingv1.NetworkPolicyIngressRule{{Ports: []networkingv1.NetworkPolicyPort{{Port: ptr.To(intstr.FromString("http"))}}}},
			},
		},
	}
	web := Endpoint{Namespace: "a", Labels: map[string]string{"app": "web"}, IP: "10.9.0.1"}
	db := Endpoint{Namespace: "a", Labels: map[string]string{"app": "db"}}
	cache := Endpoint{Namespace: "a", Labels: map[string]string{"app": "cache"}}
	teamX := Endpoint{Namespace: "b", NamespaceLabels: map[string]string{"team": "x"}, Labels: map[string]string{"app": "client"}}
	teamY := Endpoint{Namespace: "c", NamespaceLabels: map[string]string{"team": "y"}}
	webOfB := Endpoint{Namespace: "b", NamespaceLabels: map[string]string{"team": "x"}, Labels: map[string]string{"app": "web"}}
	for _, tc := range []struct {
		name     string
		from, to Endpoint
		protocol corev1.Protocol
		port     int32
		want     bool
		wantErr  bool
	}{
		{name: "team x to web:80", from: teamX, to: web, port: 80, want: true},
		{name: "team y to web:80", from: teamY, to: web, port: 80},
		{name: "team x to web:81", from: teamX, to: web, port: 81},
		{name: "team x to web:80 UDP", from: teamX, to: web, protocol: corev1.ProtocolUDP, port: 80},
		{name: "outside the cluster to web:80", from: Endpoint{IP: "192.0.2.1"}, to: web, port: 80},
		{name: "web to an address of 10/8 on 443", from: web, to: Endpoint{IP: "10.2.0.1"}, port: 443, want: true},
		{name: "web to an excepted address on 443", from: web, to: Endpoint{IP: "10.1.0.1"}, port: 443},
		{name: "web to an address of 10/8 on 80", from: web, to: Endpoint{IP: "10.2.0.1"}, port: 80},
		{name: "web to anywhere in its port range", from: web, to: Endpoint{IP: "192.0.2.1"}, port: 8010, want: true},
		{name: "web to anywhere past its port range", from: web, to: Endpoint{IP: "192.0.2.1"}, port: 8011},
		{name: "web to db: web's egress does not allow it", from: web, to: db, port: 5432},
		{name: "web to db on web's port range: both directions allow it", from: web, to: db, port: 8005, want: true},
		{name: "a web pod of another namespace to db (podSelector alone: own namespace)", from: webOfB, to: db, port: 5432},
		{name: "db's egress is not isolated", from: db, to: Endpoint{IP: "192.0.2.1"}, port: 25, want: true},
		{name: "a pod no policy selects", from: teamY, to: cache, port: 6379, want: true},
		{name: "a named port is refused", from: teamY, to: Endpoint{Namespace: "n"}, port: 80, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			protocol := tc.protocol
			if protocol == "" {
				protocol = corev1.ProtocolTCP
			}
			got, err := Allowed(policies, tc.from, tc.to, protocol, tc.port)
			if (err != nil) != tc.wantErr {
				t.Fatalf("error = %v, want one: %v", err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("allowed = %v, want %v", got, tc.want)
			}
		})
	}
}
