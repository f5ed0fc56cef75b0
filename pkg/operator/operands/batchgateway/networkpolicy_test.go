package batchgateway

import (
	"sort"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	batchv1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/batch/v1alpha1"
	networkpolicyv1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/networkpolicy/v1alpha1"
	operatorv1 "github.com/llm-infra/llm-infra-operator/pkg/apis/operator/v1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine/enginetest"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/registry"
)

// networkPolicies renders spec as a sync applies it (the Kind's render) and returns its
// NetworkPolicies, sorted by name.
func networkPolicies(t *testing.T, spec batchv1alpha1.LLMBatchGatewaySpec) []*networkingv1.NetworkPolicy {
	t.Helper()
	objs, err := Kind(&registry.Deps{Image: func(string) string { return "image" }}).RenderCR(testCR(spec))
	if err != nil {
		t.Fatal(err)
	}
	var out []*networkingv1.NetworkPolicy
	for _, o := range objs {
		if np, ok := o.(*networkingv1.NetworkPolicy); ok {
			out = append(out, np)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Endpoints of the flow tables: the components' pods (namespace llm, CR gw, labelled as their
// Deployments select them), Prometheus, clients of other namespaces and the CR's, a Gateway API
// implementation's proxy, and an address outside the cluster.
var (
	nsLabels = func(name string) map[string]string { return map[string]string{engine.NamespaceNameLabel: name} }
	podOf    = func(c string) enginetest.Endpoint {
		return enginetest.Endpoint{Namespace: "llm", NamespaceLabels: nsLabels("llm"), Labels: objectLabels("gw", c), IP: "10.128.0.20"}
	}
	apiserverPod = podOf(componentAPIServer)
	processorPod = podOf(componentProcessor)
	gcPod        = podOf(componentGC)
	asyncPod     = podOf(componentAsyncProcessor)
	platformProm = enginetest.Endpoint{Namespace: operatorv1.DefaultMonitoringNamespace, NamespaceLabels: nsLabels(operatorv1.DefaultMonitoringNamespace)}
	userProm     = enginetest.Endpoint{Namespace: "monitoring", NamespaceLabels: nsLabels("monitoring"), Labels: map[string]string{"app.kubernetes.io/name": "prometheus"}}
	clientPod    = enginetest.Endpoint{Namespace: "clients", NamespaceLabels: nsLabels("clients"), Labels: map[string]string{"app": "notebook"}}
	strangerPod  = enginetest.Endpoint{Namespace: "other", NamespaceLabels: nsLabels("other"), Labels: map[string]string{"app": "notebook"}}
	neighbourPod = enginetest.Endpoint{Namespace: "llm", NamespaceLabels: nsLabels("llm"), Labels: map[string]string{"app": "chat"}}
	routerPod    = enginetest.Endpoint{Namespace: "gateway-system", NamespaceLabels: nsLabels("gateway-system"), Labels: map[string]string{"app": "envoy"}}
	outsideAddr  = enginetest.Endpoint{IP: "203.0.113.7"}
)

// TestNetworkPolicyFlows evaluates the LLMBatchGateway's rendered NetworkPolicies, connection by
// connection (docs/network-policies.md has this table): the apiserver's API port from from
// (any address when unset), the observability and metrics ports from the monitoring namespace,
// nothing else to any component; egress open. The apiserver listens on 9000 (config.port) and
// serves observability on 9001, so the policy follows the rendered container's ports.
func TestNetworkPolicyFlows(t *testing.T) {
	withPolicy := func(spec batchv1alpha1.LLMBatchGatewaySpec, p *networkpolicyv1alpha1.ServingNetworkPolicy) batchv1alpha1.LLMBatchGatewaySpec {
		spec.APIServer.Config = &batchv1alpha1.APIServerConfigSpec{Port: 9000, ObservabilityPort: 9001}
		spec.NetworkPolicy = p
		return spec
	}
	t.Run("sync mode, from unset", func(t *testing.T) {
		policies := networkPolicies(t, withPolicy(minimalSpec(), &networkpolicyv1alpha1.ServingNetworkPolicy{Enabled: true, MonitoringNamespace: "monitoring"}))
		names := NamesFor("gw")
		if len(policies) != 3 || policies[0].Name != names.APIServer || policies[1].Name != names.GC || policies[2].Name != names.Processor {
			t.Fatalf("policies %v, want the apiserver's, gc's and processor's", policyNames(policies))
		}
		for _, np := range policies {
			if len(np.Spec.PolicyTypes) != 1 || np.Spec.PolicyTypes[0] != networkingv1.PolicyTypeIngress {
				t.Errorf("%s: policy types %v, want Ingress only", np.Name, np.Spec.PolicyTypes)
			}
		}
		enginetest.ExpectTCPFlows(t, policies, []enginetest.TCPFlow{
			{Name: "a pod of another namespace to the API port", From: clientPod, To: apiserverPod, Port: 9000, Want: true},
			{Name: "an address outside the cluster to the API port", From: outsideAddr, To: apiserverPod, Port: 9000, Want: true},
			{Name: "a pod of the namespace to the API port", From: neighbourPod, To: apiserverPod, Port: 9000, Want: true},
			{Name: "the manifest's default API port is not the pod's", From: clientPod, To: apiserverPod, Port: 8000, Want: false},
			{Name: "the monitoring namespace to the apiserver's observability port", From: userProm, To: apiserverPod, Port: 9001, Want: true},
			{Name: "a pod of another namespace to the observability port", From: clientPod, To: apiserverPod, Port: 9001, Want: false},
			{Name: "a pod of the namespace to the observability port", From: neighbourPod, To: apiserverPod, Port: 9001, Want: false},
			{Name: "the monitoring namespace to the processor's metrics", From: userProm, To: processorPod, Port: 9090, Want: true},
			{Name: "the monitoring namespace to the gc's metrics", From: userProm, To: gcPod, Port: 9091, Want: true},
			{Name: "a pod of the namespace to the processor's metrics", From: neighbourPod, To: processorPod, Port: 9090, Want: false},
			{Name: "the apiserver to the processor", From: apiserverPod, To: processorPod, Port: 9090, Want: false},
			{Name: "a client to the processor", From: clientPod, To: processorPod, Port: 9000, Want: false},
			{Name: "the monitoring namespace to another port of the gc", From: userProm, To: gcPod, Port: 8081, Want: false},
			{Name: "the default monitoring namespace, not the one set", From: platformProm, To: processorPod, Port: 9090, Want: false},
			{Name: "the processor to an inference gateway (egress open)", From: processorPod, To: strangerPod, Port: 8000, Want: true},
			{Name: "the apiserver to an object store outside the cluster (egress open)", From: apiserverPod, To: outsideAddr, Port: 443, Want: true},
			{Name: "the gc to the database (egress open)", From: gcPod, To: neighbourPod, Port: 5432, Want: true},
			{Name: "pods no policy selects are left alone", From: clientPod, To: neighbourPod, Port: 8080, Want: true},
		})
	})
	t.Run("async mode, from a namespace and a router", func(t *testing.T) {
		policies := networkPolicies(t, withPolicy(asyncSpec(), &networkpolicyv1alpha1.ServingNetworkPolicy{Enabled: true, From: []networkpolicyv1alpha1.NetworkPolicyPeer{
			{NamespaceSelector: &metav1.LabelSelector{MatchLabels: nsLabels("clients")}},
			{NamespaceSelector: &metav1.LabelSelector{MatchLabels: nsLabels("gateway-system")}, PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "envoy"}}},
		}}))
		if len(policies) != 4 || policies[0].Name != NamesFor("gw").AsyncProcessor {
			t.Fatalf("policies %v, want the async-processor's too", policyNames(policies))
		}
		enginetest.ExpectTCPFlows(t, policies, []enginetest.TCPFlow{
			{Name: "a pod of the namespace from", From: clientPod, To: apiserverPod, Port: 9000, Want: true},
			{Name: "the router from names (an HTTPRoute's)", From: routerPod, To: apiserverPod, Port: 9000, Want: true},
			{Name: "a pod of another namespace", From: strangerPod, To: apiserverPod, Port: 9000, Want: false},
			{Name: "another pod of the CR's namespace", From: neighbourPod, To: apiserverPod, Port: 9000, Want: false},
			{Name: "an address outside the cluster", From: outsideAddr, To: apiserverPod, Port: 9000, Want: false},
			{Name: "the default monitoring namespace to the observability port", From: platformProm, To: apiserverPod, Port: 9001, Want: true},
			{Name: "the default monitoring namespace to the async-processor's metrics", From: platformProm, To: asyncPod, Port: 9090, Want: true},
			{Name: "the default monitoring namespace to the async-processor's health port", From: platformProm, To: asyncPod, Port: 8081, Want: false},
			{Name: "a pod of from to the async-processor", From: clientPod, To: asyncPod, Port: 9090, Want: false},
			{Name: "a pod of from to the processor's metrics", From: clientPod, To: processorPod, Port: 9090, Want: false},
			{Name: "the async-processor to an InferencePool's endpoint picker (egress open)", From: asyncPod, To: neighbourPod, Port: 8081, Want: true},
		})
	})
}

// TestNetworkPolicyOnlyWhenEnabled: no NetworkPolicy is rendered unless spec.networkPolicy asks
// for one, so a CR written for upstream renders what it did (the golden suites stay as they
// are).
func TestNetworkPolicyOnlyWhenEnabled(t *testing.T) {
	for _, p := range []*networkpolicyv1alpha1.ServingNetworkPolicy{nil, {}, {MonitoringNamespace: "monitoring", From: []networkpolicyv1alpha1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{}}}}} {
		for name, spec := range map[string]batchv1alpha1.LLMBatchGatewaySpec{"sync": minimalSpec(), "async": asyncSpec()} {
			spec.NetworkPolicy = p
			if got := networkPolicies(t, spec); len(got) != 0 {
				t.Errorf("%s, spec.networkPolicy %+v: NetworkPolicies %v rendered", name, p, policyNames(got))
			}
		}
	}
}

func policyNames(policies []*networkingv1.NetworkPolicy) []string {
	var out []string
	for _, np := range policies {
		out = append(out, np.Name)
	}
	return out
}
