package batchgateway

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/llm-infra/llm-infra-operator/bindata"
	batchv1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/batch/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// portMetrics is the name of the Prometheus port of the processor, gc and async-processor
// containers; their PodMonitors scrape it by name.
const portMetrics = "metrics"

// componentPolicy is one component's NetworkPolicy: the Deployment whose pods it isolates, the
// container (named like the component) whose named ports it opens, and which of them serve
// clients and which Prometheus.
type componentPolicy struct {
	policyAsset, deploymentAsset, container string
	serving, metrics                        []string
}

// componentPolicies: only the apiserver serves clients (the Files and Batches API on http); its
// observability port carries its metrics (and the probes, which come from the node). The
// processor, gc and async-processor take their work from the exchange (Redis) and serve
// nothing but their metrics; the async-processor's health port is for the kubelet's probes
// only.
var componentPolicies = []componentPolicy{
	{bindata.BatchGatewayAPIServerNetworkPolicy, bindata.BatchGatewayAPIServerDeployment, componentAPIServer, []string{portHTTP}, []string{portObservability}},
	{bindata.BatchGatewayProcessorNetworkPolicy, bindata.BatchGatewayProcessorDeployment, componentProcessor, nil, []string{portMetrics}},
	{bindata.BatchGatewayGCNetworkPolicy, bindata.BatchGatewayGCDeployment, componentGC, nil, []string{portMetrics}},
	{bindata.BatchGatewayAsyncProcessorNetworkPolicy, bindata.BatchGatewayAsyncProcessorDeployment, componentAsyncProcessor, nil, []string{portMetrics}},
}

// networkPolicyEnabled: spec.networkPolicy.enabled. Off by default, as upstream makes no
// policy: one that is wrong for a cluster (Prometheus in another namespace, clients behind a
// router that from does not name) would cut the gateway off.
func networkPolicyEnabled(spec *batchv1alpha1.LLMBatchGatewaySpec) bool {
	return spec.NetworkPolicy.IsEnabled()
}

// withNetworkPolicies fills in each wanted component policy among objs from its Deployment as
// rendered (engine.ServingNetworkPolicy): ingress only. Egress is left open on purpose: the
// components connect to the metadata database and the exchange (PostgreSQL, Redis or Valkey at
// the URLs of the credentials Secret), the object store (spec.fileStorage.s3.endpoint, or AWS),
// the inference gateways (spec.processor) and the OTLP collector (spec.otel), wherever the user
// put them, inside the cluster or out; a policy that guessed them would cut the gateway off.
func withNetworkPolicies(objs []renderedObject, spec *batchv1alpha1.LLMBatchGatewaySpec) error {
	byAsset := make(map[string]renderedObject, len(objs))
	for _, o := range objs {
		byAsset[o.asset] = o
	}
	p := spec.NetworkPolicy
	for _, cp := range componentPolicies {
		o := byAsset[cp.policyAsset]
		np, _ := o.obj.(*networkingv1.NetworkPolicy)
		if !o.wanted || np == nil {
			continue
		}
		d, _ := byAsset[cp.deploymentAsset].obj.(*appsv1.Deployment)
		if d == nil {
			return fmt.Errorf("render %s: no Deployment %s rendered", cp.policyAsset, cp.deploymentAsset)
		}
		if err := engine.ServingNetworkPolicy(np, d, cp.container, engine.ServingIngress{
			Serving: cp.serving, Clients: p.Peers(),
			Metrics: cp.metrics, MonitoringNamespace: p.MonitoringNamespaceOrDefault(),
		}); err != nil {
			return fmt.Errorf("render %s: %w", cp.policyAsset, err)
		}
	}
	return nil
}
