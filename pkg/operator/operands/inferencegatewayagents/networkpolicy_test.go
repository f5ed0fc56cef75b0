package inferencegatewayagents

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1/testcases"
	operatorv1 "github.com/llm-infra/llm-infra-operator/pkg/apis/operator/v1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine/enginetest"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/registry"
)

// operatorNamespace is the operator's namespace in these renders (registry.Deps.Namespace).
const operatorNamespace = "llm-infra-operator"

// networkPoliciesOf are the NetworkPolicies among a render's objects.
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

// renderAgentKind renders an Agent (BaseAgent with patch) as a sync applies it.
func renderAgentKind(t *testing.T, patch string) []*networkingv1.NetworkPolicy {
	t.Helper()
	agent := decodeCase[v1alpha1.Agent](t, testcases.Case{Base: testcases.BaseAgent, Patch: patch})
	objs, err := (&agentOperand{}).kind(&registry.Deps{Namespace: operatorNamespace}).RenderCR(agent)
	return networkPoliciesOf(t, objs, err)
}

// renderOrchestratorKind renders an Orchestrator (BaseOrchestrator with patch) as a sync applies
// it.
func renderOrchestratorKind(t *testing.T, patch string) []*networkingv1.NetworkPolicy {
	t.Helper()
	o := decodeCase[v1alpha1.Orchestrator](t, testcases.Case{Base: testcases.BaseOrchestrator, Patch: patch})
	objs, err := OrchestratorKind(&registry.Deps{Namespace: operatorNamespace}).RenderCR(o)
	return networkPoliciesOf(t, objs, err)
}

// Endpoints of the flow tables: the agent's pod (namespace agents, app=calendar), the
// orchestrator's (namespace llm, app=orchestrator), the operator, Prometheus, Orchestrators and
// Gateways that call or push, other pods, and an address outside the cluster.
var (
	nsLabels        = func(name string) map[string]string { return map[string]string{engine.NamespaceNameLabel: name} }
	agentPod        = enginetest.Endpoint{Namespace: "agents", NamespaceLabels: nsLabels("agents"), Labels: map[string]string{"app": "calendar"}, IP: "10.128.0.30"}
	orchestratorPod = enginetest.Endpoint{Namespace: "llm", NamespaceLabels: nsLabels("llm"), Labels: map[string]string{"app": "orchestrator", "app.kubernetes.io/component": "orchestrator"}, IP: "10.128.0.31"}
	operatorPod     = enginetest.Endpoint{Namespace: operatorNamespace, NamespaceLabels: nsLabels(operatorNamespace), Labels: map[string]string{"app.kubernetes.io/name": "llm-infra-operator"}}
	platformProm    = enginetest.Endpoint{Namespace: operatorv1.DefaultMonitoringNamespace, NamespaceLabels: nsLabels(operatorv1.DefaultMonitoringNamespace)}
	gatewayPod      = enginetest.Endpoint{Namespace: "llm", NamespaceLabels: nsLabels("llm"), Labels: map[string]string{"app": "gw", "app.kubernetes.io/component": "gateway"}}
	agentsNeighbour = enginetest.Endpoint{Namespace: "agents", NamespaceLabels: nsLabels("agents"), Labels: map[string]string{"app": "other"}}
	llmNeighbour    = enginetest.Endpoint{Namespace: "llm", NamespaceLabels: nsLabels("llm"), Labels: map[string]string{"app": "batch"}}
	strangerPod     = enginetest.Endpoint{Namespace: "other", NamespaceLabels: nsLabels("other"), Labels: map[string]string{"app": "chat"}}
	outsideAddr     = enginetest.Endpoint{IP: "203.0.113.7"}
)

// TestAgentNetworkPolicyFlows evaluates an Agent's rendered NetworkPolicy, connection by
// connection (docs/network-policies.md has this table): the A2A port (spec.port 9000) from from
// (any address when unset) and, with from set, from the operator's namespace, which reads the
// card; nothing else; egress open.
func TestAgentNetworkPolicyFlows(t *testing.T) {
	t.Run("from unset", func(t *testing.T) {
		policies := renderAgentKind(t, `{spec: {port: 9000, networkPolicy: {enabled: true}}}`)
		if len(policies) != 1 || policies[0].Name != "calendar" || len(policies[0].Spec.PolicyTypes) != 1 {
			t.Fatalf("policies = %+v, want one ingress-only policy calendar", policies)
		}
		enginetest.ExpectTCPFlows(t, policies, []enginetest.TCPFlow{
			{Name: "an Orchestrator of another namespace to the A2A port", From: orchestratorPod, To: agentPod, Port: 9000, Want: true},
			{Name: "an address outside the cluster to the A2A port", From: outsideAddr, To: agentPod, Port: 9000, Want: true},
			{Name: "the operator reads the card", From: operatorPod, To: agentPod, Port: 9000, Want: true},
			{Name: "the default port is not the agent's", From: orchestratorPod, To: agentPod, Port: 8080, Want: false},
			{Name: "the monitoring namespace to another port (no metrics port)", From: platformProm, To: agentPod, Port: 9464, Want: false},
			{Name: "the agent to its LLM's gateway (egress open)", From: agentPod, To: gatewayPod, Port: 8080, Want: true},
			{Name: "the agent to a provider outside the cluster (egress open)", From: agentPod, To: outsideAddr, Port: 443, Want: true},
			{Name: "pods the policy does not select are left alone", From: strangerPod, To: agentsNeighbour, Port: 8080, Want: true},
		})
	})
	t.Run("from the llm namespace's Orchestrators", func(t *testing.T) {
		policies := renderAgentKind(t, `
spec:
  port: 9000
  networkPolicy:
    enabled: true
    from:
    - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: llm}}
      podSelector: {matchLabels: {app.kubernetes.io/component: orchestrator}}
`)
		enginetest.ExpectTCPFlows(t, policies, []enginetest.TCPFlow{
			{Name: "an Orchestrator from selects", From: orchestratorPod, To: agentPod, Port: 9000, Want: true},
			{Name: "the operator still reads the card", From: operatorPod, To: agentPod, Port: 9000, Want: true},
			{Name: "the operator to another port", From: operatorPod, To: agentPod, Port: 8080, Want: false},
			{Name: "another pod of the Orchestrators' namespace", From: llmNeighbour, To: agentPod, Port: 9000, Want: false},
			{Name: "a pod of the agent's own namespace", From: agentsNeighbour, To: agentPod, Port: 9000, Want: false},
			{Name: "a pod of another namespace", From: strangerPod, To: agentPod, Port: 9000, Want: false},
			{Name: "an address outside the cluster", From: outsideAddr, To: agentPod, Port: 9000, Want: false},
		})
	})
}

// TestOrchestratorNetworkPolicyFlows: an Orchestrator serves nothing but its OTLP receiver:
// without it every connection to the pod is refused, with it the receiver's port is open to
// from (any address when unset); egress open.
func TestOrchestratorNetworkPolicyFlows(t *testing.T) {
	t.Run("no receiver: nothing reaches the pod", func(t *testing.T) {
		policies := renderOrchestratorKind(t, `{spec: {networkPolicy: {enabled: true}}}`)
		if len(policies) != 1 || policies[0].Name != "orchestrator" || len(policies[0].Spec.Ingress) != 0 || policies[0].Spec.Ingress == nil {
			t.Fatalf("policies = %+v, want one policy orchestrator with no ingress rule", policies)
		}
		enginetest.ExpectTCPFlows(t, policies, []enginetest.TCPFlow{
			{Name: "a Gateway to the receiver's default port", From: gatewayPod, To: orchestratorPod, Port: 4318, Want: false},
			{Name: "an address outside the cluster to any port", From: outsideAddr, To: orchestratorPod, Port: 8080, Want: false},
			{Name: "the monitoring namespace (no metrics port)", From: platformProm, To: orchestratorPod, Port: 9464, Want: false},
			{Name: "the operator", From: operatorPod, To: orchestratorPod, Port: 8080, Want: false},
			{Name: "the orchestrator to an agent (egress open)", From: orchestratorPod, To: agentPod, Port: 8080, Want: true},
			{Name: "the orchestrator to Telegram (egress open)", From: orchestratorPod, To: outsideAddr, Port: 443, Want: true},
		})
	})
	receiver := `
spec:
  telemetry: {enabled: true, receiver: {enabled: true, port: 4400}}
  networkPolicy:
    enabled: true
`
	t.Run("the receiver, from unset", func(t *testing.T) {
		enginetest.ExpectTCPFlows(t, renderOrchestratorKind(t, receiver), []enginetest.TCPFlow{
			{Name: "a Gateway pushes spans", From: gatewayPod, To: orchestratorPod, Port: 4400, Want: true},
			{Name: "an agent of another namespace pushes spans", From: agentPod, To: orchestratorPod, Port: 4400, Want: true},
			{Name: "the default receiver port is not this one", From: gatewayPod, To: orchestratorPod, Port: 4318, Want: false},
			{Name: "any pod to another port", From: strangerPod, To: orchestratorPod, Port: 8080, Want: false},
		})
	})
	t.Run("the receiver, from the namespace's Gateways", func(t *testing.T) {
		enginetest.ExpectTCPFlows(t, renderOrchestratorKind(t, receiver+`    from: [{podSelector: {matchLabels: {app.kubernetes.io/component: gateway}}}]
`), []enginetest.TCPFlow{
			{Name: "a Gateway of the namespace pushes spans", From: gatewayPod, To: orchestratorPod, Port: 4400, Want: true},
			{Name: "another pod of the namespace", From: llmNeighbour, To: orchestratorPod, Port: 4400, Want: false},
			{Name: "an agent of another namespace", From: agentPod, To: orchestratorPod, Port: 4400, Want: false},
		})
	})
}

// TestAgentsNetworkPolicyOnlyWhenEnabled: no NetworkPolicy is rendered unless spec.networkPolicy
// asks for one, so a CR written for upstream renders what it did.
func TestAgentsNetworkPolicyOnlyWhenEnabled(t *testing.T) {
	for _, patch := range []string{`{}`, `{spec: {networkPolicy: {}}}`, `{spec: {networkPolicy: {enabled: false, monitoringNamespace: monitoring, from: [{podSelector: {}}]}}}`} {
		if got := renderAgentKind(t, patch); len(got) != 0 {
			t.Errorf("Agent %s: %d NetworkPolicies rendered", patch, len(got))
		}
		if got := renderOrchestratorKind(t, patch); len(got) != 0 {
			t.Errorf("Orchestrator %s: %d NetworkPolicies rendered", patch, len(got))
		}
	}
}

// TestTurningTheAgentNetworkPolicyOffDeletesIt (fake clients): enabled, a sync applies the
// Agent's policy, with the operator's namespace among its peers; turned off, the next sync
// deletes it and leaves the Service and Deployment.
func TestTurningTheAgentNetworkPolicyOffDeletesIt(t *testing.T) {
	e := newFakeEnv(t)
	e.deps.Namespace = operatorNamespace
	k := (&agentOperand{}).kind(e.deps)
	ctl, err := engine.NewNamespaced(e.ctx, k, e.deps.NamespacedDeps)
	if err != nil {
		t.Fatal(err)
	}
	e.start()
	agent := decodeCase[v1alpha1.Agent](t, testcases.Case{Base: testcases.BaseAgent,
		Patch: `{metadata: {namespace: llm, uid: u1}, spec: {networkPolicy: {enabled: true, from: [{podSelector: {matchLabels: {app.kubernetes.io/component: orchestrator}}}]}}}`})
	sync := func(a *v1alpha1.Agent) {
		t.Helper()
		e.waitCached("the Agent", k.Informer, a)
		if err := ctl.Sync(e.ctx, testNS+"/calendar"); err != nil {
			t.Fatal(err)
		}
		e.settle()
	}
	created, err := e.crs.CoreV1alpha1().Agents(testNS).Create(e.ctx, agent, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sync(created)
	np, err := e.kube.NetworkingV1().NetworkPolicies(testNS).Get(e.ctx, "calendar", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the NetworkPolicy was not applied: %v", err)
	}
	if ok, err := enginetest.Allowed([]*networkingv1.NetworkPolicy{np}, operatorPod,
		enginetest.Endpoint{Namespace: testNS, NamespaceLabels: nsLabels(testNS), Labels: map[string]string{"app": "calendar"}}, corev1.ProtocolTCP, 8080); err != nil || !ok {
		t.Errorf("the applied policy refuses the operator the card (%v, %v): %+v", ok, err, np.Spec)
	}
	created.Spec.NetworkPolicy.Enabled = false
	updated, err := e.crs.CoreV1alpha1().Agents(testNS).Update(e.ctx, created, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sync(updated)
	if _, err := e.kube.NetworkingV1().NetworkPolicies(testNS).Get(e.ctx, "calendar", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the NetworkPolicy is still there (%v)", err)
	}
	if _, err := e.kube.AppsV1().Deployments(testNS).Get(e.ctx, "calendar", metav1.GetOptions{}); err != nil {
		t.Errorf("the Deployment went too: %v", err)
	}
	if _, err := e.kube.CoreV1().Services(testNS).Get(e.ctx, "calendar", metav1.GetOptions{}); err != nil {
		t.Errorf("the Service went too: %v", err)
	}
}
