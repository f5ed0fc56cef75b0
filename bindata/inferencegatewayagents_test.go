package bindata

import (
	"reflect"
	"testing"
)

// TestInferenceGatewayAgentAssets checks the asset lists of the Agent, Orchestrator and GPU kinds
// as TestInferenceGatewayAssets does the Gateway's: under their directory, in apply order, in
// the CR's namespace, named from the instance, with the one label set and known placeholders.
func TestInferenceGatewayAgentAssets(t *testing.T) {
	for _, list := range []struct {
		name      string
		assets    []string
		component string
	}{
		{"AgentAssets", AgentAssets, "agent"},
		{"OrchestratorAssets", OrchestratorAssets, "orchestrator"},
		{"GPUAssets", GPUAssets, "gpu"},
	} {
		checkNamespacedAssets(t, list.name+"/", list.assets, "assets/inferencegatewayagents/", inferenceGatewayStage, func(t *testing.T, kind string, obj interface{}) {
			checkInferenceGatewayLabels(t, get(obj, "metadata", "labels"), list.component)
			if kind == "Deployment" {
				checkInferenceGatewayLabels(t, get(obj, "spec", "template", "metadata", "labels"), list.component)
			}
			checkInferenceGatewayPlaceholders(t, obj)
		})
	}
}

// TestInferenceGatewayAgentSelectorsAreUpstreams: the Deployments and Services select pods by
// upstream's app label, so the objects upstream created are adopted.
func TestInferenceGatewayAgentSelectorsAreUpstreams(t *testing.T) {
	upstream := map[string]interface{}{"app": InferenceGatewayInstancePlaceholder}
	for _, tc := range []struct{ deployment, service string }{
		{AgentDeployment, AgentService},
		{OrchestratorDeployment, OrchestratorReceiverService},
	} {
		dep := mustParse(t, tc.deployment)
		if got := get(dep, "spec", "selector", "matchLabels"); !reflect.DeepEqual(got, upstream) {
			t.Errorf("%s: selector %v, want %v", tc.deployment, got, upstream)
		}
		if get(dep, "spec", "template", "metadata", "labels", "app") != InferenceGatewayInstancePlaceholder {
			t.Errorf("%s: the pod template does not carry the selector's label", tc.deployment)
		}
		if got := get(mustParse(t, tc.service), "spec", "selector"); !reflect.DeepEqual(got, upstream) {
			t.Errorf("%s: selector %v, want %v", tc.service, got, upstream)
		}
	}
}
