package inferencegateway

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/llm-infra/llm-infra-operator/bindata"
	networkpolicyv1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/networkpolicy/v1alpha1"
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
func networkPolicyWanted(p *networkpolicyv1alpha1.ServingNetworkPolicy) bool { return p.IsEnabled() }

// withServingNetworkPolicy fills in the wanted NetworkPolicy among objs from the Deployment
// rendered beside it (engine.ServingNetworkPolicy): its pods isolated for ingress, the
// container's serving port (portHTTP) open to the peers of p.from (any address when unset), its
// metrics port (portMetrics, when the container declares one) to the pods of the monitoring
// namespace, egress left open.
func withServingNetworkPolicy(objs []renderedObject, sp servingPolicy, p *networkpolicyv1alpha1.ServingNetworkPolicy) error {
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
	return engine.ServingNetworkPolicy(np, d, sp.container, engine.ServingIngress{
		Serving: []string{portHTTP}, Clients: p.Peers(),
		Metrics: []string{portMetrics}, MonitoringNamespace: p.MonitoringNamespaceOrDefault(),
	})
}
