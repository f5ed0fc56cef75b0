package inferencegateway

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
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

// flow is one row of a flow table: a connection and whether the policies allow it.
type flow struct {
	name     string
	from, to enginetest.Endpoint
	port     int32
	want     bool
}

func expectFlows(t *testing.T, policies []*networkingv1.NetworkPolicy, flows []flow) {
	t.Helper()
	for _, f := range flows {
		t.Run(f.name, func(t *testing.T) {
			got, err := enginetest.Allowed(policies, f.from, f.to, corev1.ProtocolTCP, f.port)
			if err != nil {
				t.Fatal(err)
			}
			if got != f.want {
				t.Errorf("allowed = %v, want %v", got, f.want)
			}
		})
	}
}

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
		expectFlows(t, policies, []flow{
			{"a pod of another namespace to the HTTP port", clientPod, gw, 9000, true},
			{"an address outside the cluster to the HTTP port", outside, gw, 9000, true},
			{"a pod of the namespace to the HTTP port", neighbourPod, gw, 9000, true},
			{"the Service's port number is not the pod's", clientPod, gw, 80, false},
			{"the monitoring namespace to metrics", prometheus, gw, 9464, true},
			{"a pod of another namespace to metrics", clientPod, gw, 9464, false},
			{"a pod of the namespace to metrics", neighbourPod, gw, 9464, false},
			{"the monitoring namespace to another port", prometheus, gw, 8081, false},
			{"the gateway to a provider (egress open)", gw, outside, 443, true},
			{"the gateway to an MCP server of another namespace (egress open)", gw, otherPod, 8080, true},
			{"pods the policy does not select are left alone", clientPod, neighbourPod, 8080, true},
		})
	})
	t.Run("from the clients namespace and the namespace's gateways", func(t *testing.T) {
		policies := render(&networkpolicyv1alpha1.ServingNetworkPolicy{Enabled: true, From: []networkpolicyv1alpha1.NetworkPolicyPeer{
			{NamespaceSelector: &metav1.LabelSelector{MatchLabels: namespaceLabels("clients")}},
			{PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app.kubernetes.io/component": componentGateway}}},
		}})
		expectFlows(t, policies, []flow{
			{"a pod of the namespace from", clientPod, gw, 9000, true},
			{"a pod the podSelector selects, in the CR's namespace", gatewayPeer, gw, 9000, true},
			{"a pod of another namespace", otherPod, gw, 9000, false},
			{"another pod of the CR's namespace", neighbourPod, gw, 9000, false},
			{"an address outside the cluster", outside, gw, 9000, false},
			{"the default monitoring namespace to metrics", platformProm, gw, 9464, true},
			{"a pod of the namespace from to metrics", clientPod, gw, 9464, false},
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
		expectFlows(t, policies, []flow{
			{"any pod to the default port", otherPod, gw, 8080, true},
			{"the monitoring namespace to 9464", platformProm, gw, 9464, false},
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
		expectFlows(t, policies, []flow{
			{"a Gateway of the namespace to the server port", gatewayPeer, server, 3000, true},
			{"a pod of another namespace to the server port", otherPod, server, 3000, true},
			{"the monitoring namespace to the server port", platformProm, server, 3000, true},
			{"any pod to another port", otherPod, server, 8080, false},
			{"the server to the internet (egress open)", server, outside, 443, true},
		})
	})
	t.Run("from the namespace's Gateways", func(t *testing.T) {
		policies := render(&networkpolicyv1alpha1.ServingNetworkPolicy{Enabled: true, From: []networkpolicyv1alpha1.NetworkPolicyPeer{
			{PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app.kubernetes.io/component": componentGateway}}},
		}})
		expectFlows(t, policies, []flow{
			{"a Gateway of the namespace", gatewayPeer, server, 3000, true},
			{"another pod of the namespace", neighbourPod, server, 3000, false},
			{"a pod of another namespace", otherPod, server, 3000, false},
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
