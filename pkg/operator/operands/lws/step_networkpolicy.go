package lws

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/llm-infra/llm-infra-operator/bindata"
	lwsoperatorv1 "github.com/llm-infra/llm-infra-operator/pkg/apis/operator/v1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// The controller's container ports that its NetworkPolicy opens, by their names in the
// Deployment's manifest (the numbers are read from there, declared once).
const (
	webhookPortName = "webhook-server"
	metricsPortName = "metrics"
)

// applyNetworkPolicy applies the controller's NetworkPolicy when spec.networkPolicy.enabled,
// and otherwise deletes the one the operator made (found in the caches: a quiet sync reads
// nothing from the API).
func applyNetworkPolicy(ctx context.Context, run *syncRun, assets []string) error {
	np, err := renderNetworkPolicy(run.render, run.cr)
	if err != nil {
		return err
	}
	if !run.cr.Spec.NetworkPolicyEnabled() {
		return run.applier.DeleteObject(ctx, np, engine.ManagedByOperator, engine.FromCache)
	}
	return run.applier.Apply(ctx, np)
}

// renderNetworkPolicy is the controller's NetworkPolicy: its pods (the Deployment's selector)
// isolated, with the controller's flows allowed.
func renderNetworkPolicy(render engine.Renderer, cr *lwsoperatorv1.LeaderWorkerSetOperator) (*networkingv1.NetworkPolicy, error) {
	np, err := engine.RenderTyped[networkingv1.NetworkPolicy](render, bindata.LWSNetworkPolicy)
	if err != nil {
		return nil, err
	}
	flows, pods, err := controllerFlows(render, cr.Spec.NetworkPolicy.MonitoringNamespaceOrDefault())
	if err != nil {
		return nil, err
	}
	engine.NetworkPolicy(np, pods, flows)
	return np, nil
}

// controllerFlows are the connections the controller needs, and its pods' selector: the API
// server calls its webhooks (conversion, defaulting, validation) from an address no selector
// names, so from anywhere; Prometheus of the monitoring namespace scrapes its metrics; it
// talks to the API server. Its probes come from the node, which policies do not restrict.
func controllerFlows(render engine.Renderer, monitoringNamespace string) (engine.NetworkFlows, *metav1.LabelSelector, error) {
	d, err := engine.RenderTyped[appsv1.Deployment](render, bindata.LWSDeployment)
	if err != nil {
		return engine.NetworkFlows{}, nil, err
	}
	c := engine.ContainerOf(d, managerContainer)
	if c == nil {
		return engine.NetworkFlows{}, nil, fmt.Errorf("%s has no container %q", bindata.LWSDeployment, managerContainer)
	}
	ports := engine.ContainerPortsByName(c)
	webhook, metrics := ports[webhookPortName], ports[metricsPortName]
	if webhook == 0 || metrics == 0 {
		return engine.NetworkFlows{}, nil, fmt.Errorf("%s: container %q has no port %q or %q", bindata.LWSDeployment, managerContainer, webhookPortName, metricsPortName)
	}
	return engine.NetworkFlows{
		Ingress: []engine.Flow{
			{Ports: engine.TCP(webhook)},
			{Ports: engine.TCP(metrics), Peers: []networkingv1.NetworkPolicyPeer{engine.FromNamespace(monitoringNamespace)}},
		},
		Egress: []engine.Flow{engine.APIServerEgress},
	}, d.Spec.Selector, nil
}
