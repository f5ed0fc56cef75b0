package inferencegatewayagents

import (
	appsv1 "k8s.io/api/apps/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/llm-infra/llm-infra-operator/bindata"
	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// The NetworkPolicies of the Agent and the Orchestrator (spec.networkPolicy, off by default as
// upstream makes none): ingress only, made from the rendered Deployment's named container ports
// (engine.ServingNetworkPolicy). Egress stays open: an agent and an orchestrator call their
// LLM's gateway, MCP servers and agents at the URLs their specs and discovery name, in any
// namespace or outside the cluster, and an OTLP collector; a policy that guessed them would cut
// the pod off. Neither declares a metrics port (an Agent's Prometheus exporter port is not a
// container port, and an Orchestrator pushes its metrics over OTLP), so monitoringNamespace
// opens nothing for them.

// agentNetworkPolicy renders an Agent's NetworkPolicy beside its Deployment d: wanted while
// spec.networkPolicy.enabled, the A2A port (portHTTP, spec.port) open to the peers of from, and
// nothing else. With from set, the operator's namespace is added to it: the operator reads the
// agent's card on that port (CardFetcher), and the Agent is Ready only once it has. The
// Orchestrators that call the agent are the user's to name in from, as the Gateways of an
// MCP's are: a careful administrator lists who may call an agent, and an Orchestrator may
// discover Agents of other namespaces (through a ReferenceGrant), which no rule of the agent's
// own namespace would cover. operatorNamespace "" (an operator run outside the cluster, which
// cannot reach a pod's port anyway) adds nothing.
func agentNetworkPolicy(agent *v1alpha1.Agent, d *appsv1.Deployment, operatorNamespace string) (np *networkingv1.NetworkPolicy, wanted bool, err error) {
	np, err = manifest[networkingv1.NetworkPolicy](bindata.AgentNetworkPolicy, instancePlaceholders(agent.Namespace, agent.Name, agent.Spec.Image))
	if err != nil || !agent.Spec.NetworkPolicy.IsEnabled() {
		return np, false, err
	}
	p := agent.Spec.NetworkPolicy
	clients := p.Peers()
	if len(clients) > 0 && operatorNamespace != "" {
		clients = append(clients, engine.FromNamespace(operatorNamespace))
	}
	return np, true, engine.ServingNetworkPolicy(np, d, agentContainer, engine.ServingIngress{
		Serving: []string{portHTTP}, Clients: clients, MonitoringNamespace: p.MonitoringNamespaceOrDefault(),
	})
}

// orchestratorNetworkPolicy fills in an Orchestrator's NetworkPolicy np from its rendered
// Deployment d: the OTLP receiver's port (portReceiver) open to the peers of from while the
// receiver is on (the gateway and agents push their spans there); without the receiver the pod
// serves nothing (the CLI polls Telegram and calls out), so the policy refuses every
// connection to it.
func orchestratorNetworkPolicy(np *networkingv1.NetworkPolicy, d *appsv1.Deployment, spec *v1alpha1.OrchestratorSpec) error {
	p := spec.NetworkPolicy
	in := engine.ServingIngress{Clients: p.Peers(), MonitoringNamespace: p.MonitoringNamespaceOrDefault()}
	if receiverOn(spec) {
		in.Serving = []string{portReceiver}
	}
	return engine.ServingNetworkPolicy(np, d, orchestratorContainer, in)
}
