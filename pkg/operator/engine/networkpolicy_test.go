package engine

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine/enginetest"
)

// TestNetworkPolicy evaluates a policy made from flows, connection by connection: what the
// flows name is allowed, DNS too, everything else to and from the pods is denied, and other
// pods are left alone.
func TestNetworkPolicy(t *testing.T) {
	np := &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "ctl", Namespace: "op"}}
	pods := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "ctl"}}
	NetworkPolicy(np, pods, NetworkFlows{
		Ingress: []Flow{
			{Ports: TCP(9443)}, // from anywhere
			{Ports: TCP(8443), Peers: []networkingv1.NetworkPolicyPeer{FromNamespace("monitoring")}},
		},
		Egress: []Flow{APIServerEgress},
	})
	if np.Spec.PodSelector.MatchLabels["app"] != "ctl" || &np.Spec.PodSelector == pods {
		t.Fatalf("podSelector = %v, want a copy of the pods' selector", np.Spec.PodSelector)
	}
	policies := []*networkingv1.NetworkPolicy{np}
	ctl := enginetest.Endpoint{Namespace: "op", Labels: map[string]string{"app": "ctl"}, IP: "10.128.0.5"}
	other := enginetest.Endpoint{Namespace: "op", Labels: map[string]string{"app": "other"}}
	monitoring := enginetest.Endpoint{Namespace: "monitoring", NamespaceLabels: map[string]string{NamespaceNameLabel: "monitoring"}, Labels: map[string]string{"app": "prometheus"}}
	user := enginetest.Endpoint{Namespace: "team", NamespaceLabels: map[string]string{NamespaceNameLabel: "team"}}
	apiServer := enginetest.Endpoint{IP: "192.0.2.10"}
	internet := enginetest.Endpoint{IP: "203.0.113.7"}
	for _, tc := range []struct {
		name     string
		from, to enginetest.Endpoint
		protocol corev1.Protocol
		port     int32
		want     bool
	}{
		{name: "API server to the webhook", from: apiServer, to: ctl, port: 9443, want: true},
		{name: "a user's pod to the webhook", from: user, to: ctl, port: 9443, want: true},
		{name: "monitoring to metrics", from: monitoring, to: ctl, port: 8443, want: true},
		{name: "a user's pod to metrics", from: user, to: ctl, port: 8443},
		{name: "a pod of the operator's namespace to metrics", from: other, to: ctl, port: 8443},
		{name: "anyone to another port", from: monitoring, to: ctl, port: 8081},
		{name: "to the API server on 6443", from: ctl, to: apiServer, port: 6443, want: true},
		{name: "to the API server on 443", from: ctl, to: apiServer, port: 443, want: true},
		{name: "DNS over UDP", from: ctl, to: enginetest.Endpoint{IP: "172.30.0.10"}, protocol: corev1.ProtocolUDP, port: 53, want: true},
		{name: "DNS over TCP", from: ctl, to: enginetest.Endpoint{IP: "172.30.0.10"}, port: 53, want: true},
		{name: "to the internet on 80", from: ctl, to: internet, port: 80},
		{name: "to another pod", from: ctl, to: other, port: 8080},
		{name: "other pods are not isolated", from: user, to: other, port: 8080, want: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			protocol := tc.protocol
			if protocol == "" {
				protocol = corev1.ProtocolTCP
			}
			got, err := enginetest.Allowed(policies, tc.from, tc.to, protocol, tc.port)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("allowed = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestNetworkPolicyWithoutFlows: no flows denies everything but DNS.
func TestNetworkPolicyWithoutFlows(t *testing.T) {
	np := &networkingv1.NetworkPolicy{}
	NetworkPolicy(np, &metav1.LabelSelector{}, NetworkFlows{})
	if len(np.Spec.Ingress) != 0 || np.Spec.Ingress == nil || len(np.Spec.Egress) != 1 || len(np.Spec.PolicyTypes) != 2 {
		t.Errorf("spec = %+v, want both policy types, no ingress rule, the DNS egress rule", np.Spec)
	}
}

// TestNetworkPolicyOpenEgress: with OpenEgress the pods are isolated for ingress only: what
// the ingress flows name reaches them and nothing else does, while they still connect
// anywhere (no DNS rule is needed).
func TestNetworkPolicyOpenEgress(t *testing.T) {
	np := &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "gw", Namespace: "team"}}
	NetworkPolicy(np, &metav1.LabelSelector{MatchLabels: map[string]string{"app": "gw"}}, NetworkFlows{
		Ingress:    []Flow{{Ports: TCP(8080)}},
		OpenEgress: true,
	})
	if len(np.Spec.PolicyTypes) != 1 || np.Spec.PolicyTypes[0] != networkingv1.PolicyTypeIngress || np.Spec.Egress != nil {
		t.Fatalf("spec = %+v, want policy type Ingress only and no egress rules", np.Spec)
	}
	policies := []*networkingv1.NetworkPolicy{np}
	gw := enginetest.Endpoint{Namespace: "team", Labels: map[string]string{"app": "gw"}, IP: "10.128.0.5"}
	user := enginetest.Endpoint{Namespace: "other", NamespaceLabels: map[string]string{NamespaceNameLabel: "other"}}
	for _, tc := range []struct {
		name     string
		from, to enginetest.Endpoint
		port     int32
		want     bool
	}{
		{name: "a pod to the serving port", from: user, to: gw, port: 8080, want: true},
		{name: "a pod to another port", from: user, to: gw, port: 9090},
		{name: "the pods to the internet", from: gw, to: enginetest.Endpoint{IP: "203.0.113.7"}, port: 443, want: true},
		{name: "the pods to another pod", from: gw, to: user, port: 5432, want: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := enginetest.Allowed(policies, tc.from, tc.to, corev1.ProtocolTCP, tc.port)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("allowed = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestContainerPortsByName: named ports by name; an unnamed one is left out (no policy can
// ask for it by name).
func TestContainerPortsByName(t *testing.T) {
	got := ContainerPortsByName(&corev1.Container{Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}, {ContainerPort: 9000}, {Name: "metrics", ContainerPort: 9464}}})
	if len(got) != 2 || got["http"] != 8080 || got["metrics"] != 9464 {
		t.Errorf("ports = %v, want http 8080 and metrics 9464 only", got)
	}
}

// TestServingNetworkPolicy: the ports of the rendered container, by name: the serving ports
// from the clients (any address without clients), the declared metrics ports from the
// monitoring namespace, no other port; egress open. A serving port or container the Deployment
// lacks is an error, a metrics port it lacks opens nothing.
func TestServingNetworkPolicy(t *testing.T) {
	deployment := func(ports ...corev1.ContainerPort) *appsv1.Deployment {
		return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "srv", Namespace: "team"}, Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "srv"}},
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "server", Ports: ports}}}},
		}}
	}
	http, obs, metrics := corev1.ContainerPort{Name: "http", ContainerPort: 8000}, corev1.ContainerPort{Name: "observability", ContainerPort: 8081}, corev1.ContainerPort{Name: "metrics", ContainerPort: 9090}
	srv := enginetest.Endpoint{Namespace: "team", NamespaceLabels: map[string]string{NamespaceNameLabel: "team"}, Labels: map[string]string{"app": "srv"}, IP: "10.128.0.5"}
	client := enginetest.Endpoint{Namespace: "clients", NamespaceLabels: map[string]string{NamespaceNameLabel: "clients"}}
	stranger := enginetest.Endpoint{Namespace: "other", NamespaceLabels: map[string]string{NamespaceNameLabel: "other"}}
	prometheus := enginetest.Endpoint{Namespace: "monitoring", NamespaceLabels: map[string]string{NamespaceNameLabel: "monitoring"}}
	outside := enginetest.Endpoint{IP: "203.0.113.7"}
	type flow struct {
		from, to enginetest.Endpoint
		port     int32
		want     bool
	}
	for _, tc := range []struct {
		name      string
		d         *appsv1.Deployment
		container string
		in        ServingIngress
		flows     []flow
		err       string
	}{
		{name: "serving port from any address, metrics from monitoring", d: deployment(http, obs, metrics), container: "server",
			in: ServingIngress{Serving: []string{"http"}, Metrics: []string{"observability", "metrics"}, MonitoringNamespace: "monitoring"},
			flows: []flow{{client, srv, 8000, true}, {outside, srv, 8000, true}, {prometheus, srv, 8081, true}, {prometheus, srv, 9090, true},
				{client, srv, 8081, false}, {client, srv, 9090, false}, {prometheus, srv, 7000, false}, {srv, outside, 443, true}}},
		{name: "serving port from the clients only", d: deployment(http), container: "server",
			in:    ServingIngress{Serving: []string{"http"}, Clients: []networkingv1.NetworkPolicyPeer{FromNamespace("clients")}, Metrics: []string{"metrics"}, MonitoringNamespace: "monitoring"},
			flows: []flow{{client, srv, 8000, true}, {stranger, srv, 8000, false}, {outside, srv, 8000, false}, {prometheus, srv, 9090, false}}},
		{name: "metrics only", d: deployment(metrics), container: "server",
			in:    ServingIngress{Metrics: []string{"metrics"}, MonitoringNamespace: "monitoring"},
			flows: []flow{{prometheus, srv, 9090, true}, {client, srv, 9090, false}, {client, srv, 8000, false}}},
		{name: "nothing served: every connection refused", d: deployment(), container: "server",
			in:    ServingIngress{Metrics: []string{"metrics"}, MonitoringNamespace: "monitoring"},
			flows: []flow{{prometheus, srv, 9090, false}, {client, srv, 8000, false}, {srv, outside, 443, true}}},
		{name: "a serving port the container lacks", d: deployment(metrics), container: "server", in: ServingIngress{Serving: []string{"http"}},
			err: `container "server" of Deployment srv has no port "http"`},
		{name: "a container the Deployment lacks", d: deployment(http), container: "sidecar", in: ServingIngress{Serving: []string{"http"}},
			err: `Deployment srv has no container "sidecar"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			np := &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "srv", Namespace: "team"}}
			err := ServingNetworkPolicy(np, tc.d, tc.container, tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(np.Spec.PolicyTypes) != 1 || np.Spec.PolicyTypes[0] != networkingv1.PolicyTypeIngress {
				t.Fatalf("policy types %v, want Ingress only", np.Spec.PolicyTypes)
			}
			for _, f := range tc.flows {
				got, err := enginetest.Allowed([]*networkingv1.NetworkPolicy{np}, f.from, f.to, corev1.ProtocolTCP, f.port)
				if err != nil {
					t.Fatal(err)
				}
				if got != f.want {
					t.Errorf("%+v to %+v port %d: allowed = %v, want %v", f.from, f.to, f.port, got, f.want)
				}
			}
		})
	}
}
