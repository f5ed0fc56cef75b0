package inferencegateway

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/llm-infra/llm-infra-operator/bindata"
	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// servingPolicy says which rendered objects make a server's NetworkPolicy: the Deployment
// whose pods it isolates and whose container's named ports it opens.
type servingPolicy struct {
	deploymentAsset, policyAsset, container string
}

var (
	gatewayServingPolicy = servingPolicy{bindata.InferenceGatewayDeployment, bindata.InferenceGatewayNetworkPolicy, gatewayContainer}
	mcpServingPolicy     = servingPolicy{bindata.MCPDeployment, bindata.MCPNetworkPolicy, mcpContainer}
)

// networkPolicyWanted: spec.networkPolicy.enabled.
func networkPolicyWanted(p *v1alpha1.ServingNetworkPolicy) bool { return p.IsEnabled() }

// withServingNetworkPolicy fills in the wanted NetworkPolicy among objs from the Deployment
// rendered beside it: its pods isolated for ingress, the container's serving port (portHTTP)
// open to the peers of p.from (any address when unset), its metrics port (portMetrics, when
// the container declares one) to the pods of the monitoring namespace, egress left open.
// The ports are the rendered container's, so they follow spec.server.port and the metrics
// settings without being written again.
func withServingNetworkPolicy(objs []renderedObject, sp servingPolicy, p *v1alpha1.ServingNetworkPolicy) error {
	var d *appsv1.Deployment
	var np *networkingv1.NetworkPolicy
	for _, o := range objs {
		switch o.asset {
		case sp.deploymentAsset:
			d, _ = o.obj.(*appsv1.Deployment)
		case sp.policyAsset:
			if o.wanted {
				np, _ = o.obj.(*networkingv1.NetworkPolicy)
			}
		}
	}
	if np == nil {
		return nil
	}
	if d == nil {
		return fmt.Errorf("render %s: no Deployment %s rendered", sp.policyAsset, sp.deploymentAsset)
	}
	c := engine.ContainerOf(d, sp.container)
	if c == nil {
		return fmt.Errorf("render %s: %s has no container %q", sp.policyAsset, sp.deploymentAsset, sp.container)
	}
	ports := engine.ContainerPortsByName(c)
	serving, ok := ports[portHTTP]
	if !ok {
		return fmt.Errorf("render %s: container %q has no port %q", sp.policyAsset, sp.container, portHTTP)
	}
	flows := engine.NetworkFlows{
		Ingress:    []engine.Flow{{Ports: engine.TCP(serving), Peers: peersOf(p.From)}},
		OpenEgress: true,
	}
	if metrics, ok := ports[portMetrics]; ok {
		flows.Ingress = append(flows.Ingress, engine.Flow{Ports: engine.TCP(metrics),
			Peers: []networkingv1.NetworkPolicyPeer{engine.FromNamespace(p.MonitoringNamespaceOrDefault())}})
	}
	engine.NetworkPolicy(np, d.Spec.Selector, flows)
	return nil
}

// peersOf is spec.networkPolicy.from as NetworkPolicy peers; none (any address) when unset.
func peersOf(from []v1alpha1.NetworkPolicyPeer) []networkingv1.NetworkPolicyPeer {
	if len(from) == 0 {
		return nil
	}
	out := make([]networkingv1.NetworkPolicyPeer, len(from))
	for i, p := range from {
		out[i] = networkingv1.NetworkPolicyPeer{NamespaceSelector: p.NamespaceSelector.DeepCopy(), PodSelector: p.PodSelector.DeepCopy()}
	}
	return out
}
