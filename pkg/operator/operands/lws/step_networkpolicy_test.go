package lws

import (
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/llm-infra/llm-infra-operator/bindata"
	lwsoperatorv1 "github.com/llm-infra/llm-infra-operator/pkg/apis/operator/v1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine/enginetest"
)

// networkPolicyCR is the singleton with spec.networkPolicy.
func networkPolicyCR(p *lwsoperatorv1.NetworkPolicy) *lwsoperatorv1.LeaderWorkerSetOperator {
	return &lwsoperatorv1.LeaderWorkerSetOperator{
		ObjectMeta: metav1.ObjectMeta{Name: lwsoperatorv1.SingletonName, UID: "uid"},
		Spec: lwsoperatorv1.LeaderWorkerSetOperatorSpec{
			OperatorSpec:  operatorv1.OperatorSpec{ManagementState: operatorv1.Managed},
			NetworkPolicy: p,
		},
	}
}

// TestNetworkPolicyFlows is the controller's flow table (docs/network-policies.md), evaluated
// over the rendered objects, connection by connection: the controller's pods as the rendered
// Deployment labels them, the NetworkPolicy as a sync applies it.
func TestNetworkPolicyFlows(t *testing.T) {
	for _, tc := range []struct {
		name       string
		policy     *lwsoperatorv1.NetworkPolicy
		monitoring string
	}{
		{"default monitoring namespace", &lwsoperatorv1.NetworkPolicy{Enabled: true}, "openshift-monitoring"},
		{"monitoring namespace of the CR", &lwsoperatorv1.NetworkPolicy{Enabled: true, MonitoringNamespace: "monitoring"}, "monitoring"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := Render(networkPolicyCR(tc.policy), testNamespace, testImage)
			if err != nil {
				t.Fatal(err)
			}
			var policies []*networkingv1.NetworkPolicy
			var controller enginetest.Endpoint
			for _, o := range objs {
				switch o := o.(type) {
				case *networkingv1.NetworkPolicy:
					policies = append(policies, o)
				case *appsv1.Deployment:
					controller = enginetest.Endpoint{Namespace: o.Namespace, Labels: o.Spec.Template.Labels, IP: "10.128.0.5"}
				}
			}
			if len(policies) != 1 || len(policies[0].OwnerReferences) != 1 {
				t.Fatalf("want one NetworkPolicy owned by the CR, got %v", policies)
			}
			namespace := func(name string, labels map[string]string) enginetest.Endpoint {
				return enginetest.Endpoint{Namespace: name, NamespaceLabels: map[string]string{engine.NamespaceNameLabel: name}, Labels: labels}
			}
			prometheus := namespace(tc.monitoring, map[string]string{"app.kubernetes.io/name": "prometheus"})
			userPod := namespace("team-a", map[string]string{"app": "client"})
			neighbour := namespace(testNamespace, map[string]string{"app": "other"})
			apiServer := enginetest.Endpoint{IP: "192.0.2.10"}
			dns := enginetest.Endpoint{IP: "172.30.0.10"}
			for _, flow := range []struct {
				name     string
				from, to enginetest.Endpoint
				protocol corev1.Protocol
				port     int32
				want     bool
			}{
				{"API server -> webhook 9443", apiServer, controller, corev1.ProtocolTCP, 9443, true},
				{"a user's pod -> webhook 9443", userPod, controller, corev1.ProtocolTCP, 9443, true},
				{"monitoring -> metrics 8443", prometheus, controller, corev1.ProtocolTCP, 8443, true},
				{"a user's pod -> metrics 8443", userPod, controller, corev1.ProtocolTCP, 8443, false},
				{"a pod of the operator's namespace -> metrics 8443", neighbour, controller, corev1.ProtocolTCP, 8443, false},
				{"monitoring -> health 8081 (probes come from the node)", prometheus, controller, corev1.ProtocolTCP, 8081, false},
				{"a user's pod -> any other port", userPod, controller, corev1.ProtocolTCP, 8080, false},
				{"controller -> API server 6443", controller, apiServer, corev1.ProtocolTCP, 6443, true},
				{"controller -> API server 443", controller, apiServer, corev1.ProtocolTCP, 443, true},
				{"controller -> DNS 53 UDP", controller, dns, corev1.ProtocolUDP, 53, true},
				{"controller -> DNS 53 TCP", controller, dns, corev1.ProtocolTCP, 53, true},
				{"controller -> a user's pod 8080", controller, userPod, corev1.ProtocolTCP, 8080, false},
				{"controller -> the internet 80", controller, enginetest.Endpoint{IP: "203.0.113.7"}, corev1.ProtocolTCP, 80, false},
				{"the operator's namespace's other pods stay open", userPod, neighbour, corev1.ProtocolTCP, 8080, true},
			} {
				got, err := enginetest.Allowed(policies, flow.from, flow.to, flow.protocol, flow.port)
				if err != nil {
					t.Fatalf("%s: %v", flow.name, err)
				}
				if got != flow.want {
					t.Errorf("%s: allowed = %v, want %v", flow.name, got, flow.want)
				}
			}
		})
	}
}

// TestNetworkPolicyOnlyWhenEnabled: no NetworkPolicy is rendered unless the spec asks for one.
func TestNetworkPolicyOnlyWhenEnabled(t *testing.T) {
	for _, p := range []*lwsoperatorv1.NetworkPolicy{nil, {}, {MonitoringNamespace: "monitoring"}} {
		objs, err := Render(networkPolicyCR(p), testNamespace, testImage)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range objs {
			if _, ok := o.(*networkingv1.NetworkPolicy); ok {
				t.Errorf("spec.networkPolicy %+v: a NetworkPolicy was rendered", p)
			}
		}
	}
}

// TestTurningTheNetworkPolicyOffDeletesIt: enabled, the sync applies it; turned off, the next
// sync deletes it and nothing else.
func TestTurningTheNetworkPolicyOffDeletesIt(t *testing.T) {
	env := newFakeEnv(t, fullyInstalled()...)
	if err := env.sync(); err != nil {
		t.Fatal(err)
	}
	if !env.exists(bindata.LWSNetworkPolicy) {
		t.Fatal("the NetworkPolicy was not applied")
	}
	env.networkPolicy = &lwsoperatorv1.NetworkPolicy{Enabled: false}
	env.clearActions()
	if err := env.sync(); err != nil {
		t.Fatal(err)
	}
	if env.exists(bindata.LWSNetworkPolicy) {
		t.Error("the NetworkPolicy outlived spec.networkPolicy.enabled")
	}
	var deletes []string
	for _, w := range env.writes() {
		if len(w) > 6 && w[:6] == "delete" {
			deletes = append(deletes, w)
		}
	}
	if len(deletes) != 1 {
		t.Errorf("deletes = %v, want the NetworkPolicy only", deletes)
	}
}
