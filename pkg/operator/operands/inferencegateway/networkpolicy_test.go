package inferencegateway

import (
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/utils/ptr"

	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	networkpolicyv1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/networkpolicy/v1alpha1"
	operatorv1 "github.com/llm-infra/llm-infra-operator/pkg/apis/operator/v1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine/enginetest"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/registry"
)

// networkPoliciesOf are the NetworkPolicies among a sync's rendered objects.
func networkPoliciesOf(t *testing.T, objs []runtime.Object, err error) []*networkingv1.NetworkPolicy {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	var out []*networkingv1.NetworkPolicy
	for _, o := range objs {
		if np, ok := o.(*networkingv1.NetworkPolicy); ok {
			out = append(out, np)
		}
	}
	return out
}

// Endpoints of the flow tables: the servers' pods (namespace llm, app=<name>, as the
// Deployments' selectors), Prometheus, pods of the users' and the CR's namespaces, and
// addresses outside the cluster.
var (
	namespaceLabels = func(name string) map[string]string { return map[string]string{engine.NamespaceNameLabel: name} }
	prometheus      = enginetest.Endpoint{Namespace: "monitoring", NamespaceLabels: namespaceLabels("monitoring"), Labels: map[string]string{"app.kubernetes.io/name": "prometheus"}}
	platformProm    = enginetest.Endpoint{Namespace: operatorv1.DefaultMonitoringNamespace, NamespaceLabels: namespaceLabels(operatorv1.DefaultMonitoringNamespace)}
	clientPod       = enginetest.Endpoint{Namespace: "clients", NamespaceLabels: namespaceLabels("clients"), Labels: map[string]string{"app": "chat"}}
	otherPod        = enginetest.Endpoint{Namespace: "other", NamespaceLabels: namespaceLabels("other"), Labels: map[string]string{"app": "chat"}}
	neighbourPod    = enginetest.Endpoint{Namespace: ns, NamespaceLabels: namespaceLabels(ns), Labels: map[string]string{"app": "batch"}}
	gatewayPeer     = enginetest.Endpoint{Namespace: ns, NamespaceLabels: namespaceLabels(ns), Labels: map[string]string{"app": "gw", "app.kubernetes.io/component": componentGateway}}
	outside         = enginetest.Endpoint{IP: "203.0.113.7"}
)

// TestGatewayNetworkPolicyFlows evaluates the Gateway's rendered NetworkPolicy, connection by
// connection (docs/network-policies.md has this table). The gateway listens on 9000 behind a
// Service port of 80 and serves metrics on 9464: the policy opens the container's ports, which
// are what a connection reaches after the Service's translation.
func TestGatewayNetworkPolicyFlows(t *testing.T) {
	spec := v1alpha1.GatewaySpec{
		Server:    &v1alpha1.ServerSpec{Port: 9000},
		Service:   &v1alpha1.ServiceSpec{Port: 80},
		Telemetry: &v1alpha1.TelemetrySpec{Enabled: true, Metrics: &v1alpha1.MetricsSpec{Enabled: true, Port: 9464}},
	}
	gw := enginetest.Endpoint{Namespace: ns, NamespaceLabels: namespaceLabels(ns), Labels: map[string]string{"app": "gw"}, IP: "10.128.0.9"}
	render := func(p *networkpolicyv1alpha1.ServingNetworkPolicy) []*networkingv1.NetworkPolicy {
		s := *spec.DeepCopy()
		s.NetworkPolicy = p
		cr := testGateway(s)
		cr.Namespace = ns
		objs, err := GatewayKind(&registry.Deps{}).RenderCR(cr)
		return networkPoliciesOf(t, objs, err)
	}
	t.Run("any address", func(t *testing.T) {
		policies := render(&networkpolicyv1alpha1.ServingNetworkPolicy{Enabled: true, MonitoringNamespace: "monitoring"})
		if len(policies) != 1 || policies[0].Name != "gw" || len(policies[0].Spec.PolicyTypes) != 1 {
			t.Fatalf("policies = %+v, want one ingress-only policy gw", policies)
		}
		enginetest.ExpectTCPFlows(t, policies, []enginetest.TCPFlow{
			{Name: "a pod of another namespace to the HTTP port", From: clientPod, To: gw, Port: 9000, Want: true},
			{Name: "an address outside the cluster to the HTTP port", From: outside, To: gw, Port: 9000, Want: true},
			{Name: "a pod of the namespace to the HTTP port", From: neighbourPod, To: gw, Port: 9000, Want: true},
			{Name: "the Service's port number is not the pod's", From: clientPod, To: gw, Port: 80, Want: false},
			{Name: "the monitoring namespace to metrics", From: prometheus, To: gw, Port: 9464, Want: true},
			{Name: "a pod of another namespace to metrics", From: clientPod, To: gw, Port: 9464, Want: false},
			{Name: "a pod of the namespace to metrics", From: neighbourPod, To: gw, Port: 9464, Want: false},
			{Name: "the monitoring namespace to another port", From: prometheus, To: gw, Port: 8081, Want: false},
			{Name: "the gateway to a provider (egress open)", From: gw, To: outside, Port: 443, Want: true},
			{Name: "the gateway to an MCP server of another namespace (egress open)", From: gw, To: otherPod, Port: 8080, Want: true},
			{Name: "pods the policy does not select are left alone", From: clientPod, To: neighbourPod, Port: 8080, Want: true},
		})
	})
	t.Run("from the clients namespace and the namespace's gateways", func(t *testing.T) {
		policies := render(&networkpolicyv1alpha1.ServingNetworkPolicy{Enabled: true, From: []networkpolicyv1alpha1.NetworkPolicyPeer{
			{NamespaceSelector: &metav1.LabelSelector{MatchLabels: namespaceLabels("clients")}},
			{PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app.kubernetes.io/component": componentGateway}}},
		}})
		enginetest.ExpectTCPFlows(t, policies, []enginetest.TCPFlow{
			{Name: "a pod of the namespace from", From: clientPod, To: gw, Port: 9000, Want: true},
			{Name: "a pod the podSelector selects, in the CR's namespace", From: gatewayPeer, To: gw, Port: 9000, Want: true},
			{Name: "a pod of another namespace", From: otherPod, To: gw, Port: 9000, Want: false},
			{Name: "another pod of the CR's namespace", From: neighbourPod, To: gw, Port: 9000, Want: false},
			{Name: "an address outside the cluster", From: outside, To: gw, Port: 9000, Want: false},
			{Name: "the default monitoring namespace to metrics", From: platformProm, To: gw, Port: 9464, Want: true},
			{Name: "a pod of the namespace from to metrics", From: clientPod, To: gw, Port: 9464, Want: false},
		})
	})
	t.Run("no metrics port", func(t *testing.T) {
		s := v1alpha1.GatewaySpec{NetworkPolicy: &networkpolicyv1alpha1.ServingNetworkPolicy{Enabled: true}}
		cr := testGateway(s)
		cr.Namespace = ns
		objs, err := GatewayKind(&registry.Deps{}).RenderCR(cr)
		policies := networkPoliciesOf(t, objs, err)
		if len(policies) != 1 || len(policies[0].Spec.Ingress) != 1 {
			t.Fatalf("policies = %+v, want one with the HTTP port's rule only", policies)
		}
		enginetest.ExpectTCPFlows(t, policies, []enginetest.TCPFlow{
			{Name: "any pod to the default port", From: otherPod, To: gw, Port: 8080, Want: true},
			{Name: "the monitoring namespace to 9464", From: platformProm, To: gw, Port: 9464, Want: false},
		})
	})
}

// TestMCPNetworkPolicyFlows: the MCP server's port from the peers named; it declares no metrics
// port, so nothing else reaches it.
func TestMCPNetworkPolicyFlows(t *testing.T) {
	server := enginetest.Endpoint{Namespace: ns, NamespaceLabels: namespaceLabels(ns), Labels: map[string]string{"app": "memory"}, IP: "10.128.0.10"}
	render := func(p *networkpolicyv1alpha1.ServingNetworkPolicy) []*networkingv1.NetworkPolicy {
		cr := testMCP("memory", v1alpha1.MCPSpec{Server: &v1alpha1.MCPServerSpec{Port: 3000}, NetworkPolicy: p})
		cr.Namespace = ns
		objs, err := MCPKind(&registry.Deps{}).RenderCR(cr)
		return networkPoliciesOf(t, objs, err)
	}
	t.Run("any address", func(t *testing.T) {
		policies := render(&networkpolicyv1alpha1.ServingNetworkPolicy{Enabled: true})
		if len(policies) != 1 || policies[0].Name != "memory" || len(policies[0].Spec.Ingress) != 1 {
			t.Fatalf("policies = %+v, want one policy memory with one rule", policies)
		}
		enginetest.ExpectTCPFlows(t, policies, []enginetest.TCPFlow{
			{Name: "a Gateway of the namespace to the server port", From: gatewayPeer, To: server, Port: 3000, Want: true},
			{Name: "a pod of another namespace to the server port", From: otherPod, To: server, Port: 3000, Want: true},
			{Name: "the monitoring namespace to the server port", From: platformProm, To: server, Port: 3000, Want: true},
			{Name: "any pod to another port", From: otherPod, To: server, Port: 8080, Want: false},
			{Name: "the server to the internet (egress open)", From: server, To: outside, Port: 443, Want: true},
		})
	})
	t.Run("from the namespace's Gateways", func(t *testing.T) {
		policies := render(&networkpolicyv1alpha1.ServingNetworkPolicy{Enabled: true, From: []networkpolicyv1alpha1.NetworkPolicyPeer{
			{PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app.kubernetes.io/component": componentGateway}}},
		}})
		enginetest.ExpectTCPFlows(t, policies, []enginetest.TCPFlow{
			{Name: "a Gateway of the namespace", From: gatewayPeer, To: server, Port: 3000, Want: true},
			{Name: "another pod of the namespace", From: neighbourPod, To: server, Port: 3000, Want: false},
			{Name: "a pod of another namespace", From: otherPod, To: server, Port: 3000, Want: false},
		})
	})
}

// TestNetworkPolicyOnlyWhenEnabled: no NetworkPolicy is rendered unless spec.networkPolicy
// asks for one.
func TestNetworkPolicyOnlyWhenEnabled(t *testing.T) {
	for _, p := range []*networkpolicyv1alpha1.ServingNetworkPolicy{nil, {}, {MonitoringNamespace: "monitoring", From: []networkpolicyv1alpha1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{}}}}} {
		objs, err := GatewayKind(&registry.Deps{}).RenderCR(testGateway(v1alpha1.GatewaySpec{NetworkPolicy: p}))
		if got := networkPoliciesOf(t, objs, err); len(got) != 0 {
			t.Errorf("Gateway, spec.networkPolicy %+v: %d NetworkPolicies rendered", p, len(got))
		}
		objs, err = MCPKind(&registry.Deps{}).RenderCR(testMCP("memory", v1alpha1.MCPSpec{NetworkPolicy: p}))
		if got := networkPoliciesOf(t, objs, err); len(got) != 0 {
			t.Errorf("MCP, spec.networkPolicy %+v: %d NetworkPolicies rendered", p, len(got))
		}
	}
}

// namespacedObjects are the names of the objects of the namespace, by kind: those a Gateway's
// or MCP's sync may write.
func (e *fakeEnv) namespacedObjects() sets.Set[string] {
	e.t.Helper()
	out := sets.New[string]()
	for _, r := range engine.Resources {
		if !r.Namespaced || r.GVR.Group != "" && r.GVR.Group != "apps" && r.GVR.Group != "autoscaling" && r.GVR.Group != "policy" && r.GVR.Group != "networking.k8s.io" {
			continue
		}
		list, err := e.dynamic.Resource(r.GVR).Namespace(ns).List(e.ctx, metav1.ListOptions{})
		if err != nil {
			e.t.Fatal(err)
		}
		for _, item := range list.Items {
			out.Insert(r.Kind + " " + item.GetName())
		}
	}
	return out
}

// TestTurningTheNetworkPolicyOffDeletesIt (fake clients): enabled, a sync applies the policy;
// turned off, the next sync deletes it and nothing else.
func TestTurningTheNetworkPolicyOffDeletesIt(t *testing.T) {
	networkPolicies := schema.GroupVersionResource{Group: "networking.k8s.io", Version: "v1", Resource: "networkpolicies"}
	t.Run("Gateway", func(t *testing.T) {
		gw, key := minimalGateway(t)
		gw.Spec.NetworkPolicy = &networkpolicyv1alpha1.ServingNetworkPolicy{Enabled: true}
		env := newFakeEnv(t, nil, key)
		env.createGateway(gw)
		if err := env.syncGateway(gw.Name); err != nil {
			t.Fatal(err)
		}
		if !env.exists(networkPolicies, gw.Name) {
			t.Fatal("the NetworkPolicy was not applied")
		}
		before := env.namespacedObjects()
		env.updateGateway(gw.Name, func(gw *v1alpha1.Gateway) { gw.Spec.NetworkPolicy.Enabled = false })
		if err := env.syncGateway(gw.Name); err != nil {
			t.Fatal(err)
		}
		if gone := before.Difference(env.namespacedObjects()); !gone.Equal(sets.New("NetworkPolicy " + gw.Name)) {
			t.Errorf("deleted %v, want the NetworkPolicy only", sets.List(gone))
		}
	})
	t.Run("MCP", func(t *testing.T) {
		env := newFakeEnv(t, nil)
		env.createMCP(&v1alpha1.MCP{ObjectMeta: metav1.ObjectMeta{Name: "memory"},
			Spec: v1alpha1.MCPSpec{Replicas: ptr.To[int32](1), NetworkPolicy: &networkpolicyv1alpha1.ServingNetworkPolicy{Enabled: true}}})
		if err := env.syncMCP("memory"); err != nil {
			t.Fatal(err)
		}
		if !env.exists(networkPolicies, "memory") {
			t.Fatal("the NetworkPolicy was not applied")
		}
		before := env.namespacedObjects()
		mcp := env.mcp("memory")
		mcp.Spec.NetworkPolicy = nil
		updated, err := env.crs.CoreV1alpha1().MCPs(ns).Update(env.ctx, mcp, metav1.UpdateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		enginetest.WaitFor(t, "the updated MCP in the informer", func() bool {
			cached, err := env.op.mcps.MCPs(ns).Get("memory")
			return err == nil && cached.ResourceVersion == updated.ResourceVersion
		})
		if err := env.syncMCP("memory"); err != nil {
			t.Fatal(err)
		}
		if gone := before.Difference(env.namespacedObjects()); !gone.Equal(sets.New("NetworkPolicy memory")) {
			t.Errorf("deleted %v, want the NetworkPolicy only", sets.List(gone))
		}
	})
}
