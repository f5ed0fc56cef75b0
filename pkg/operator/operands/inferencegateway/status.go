package inferencegateway

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"

	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// gatewayStatus is a Gateway's status after a sync. While the spec is invalid only the
// conditions, phase and observedGeneration move.
func gatewayStatus(run *gatewayRun, result *engine.Outcome, gw *v1alpha1.Gateway) {
	status := &gw.Status
	set := func(c engine.Condition) { meta.SetStatusCondition(&status.Conditions, c.MetaCondition(gw.Generation)) }
	available, progressing, degraded, d := engine.DeploymentConditions(run.Applied[run.State.names.Gateway],
		run.CachedDeployment(run.State.names.Gateway), result, run.Invalid, "gateway")
	set(available)
	set(progressing)
	set(degraded)
	if run.Invalid == nil {
		status.ReadyReplicas, status.AvailableReplicas = 0, 0
		if d != nil {
			status.ReadyReplicas, status.AvailableReplicas = d.Status.ReadyReplicas, d.Status.AvailableReplicas
		}
		specStatus(status, gw, run.State.mcpServers, secretNamed(run))
		run.RecordGenerations(&status.Generations)
	}
	status.ObservedGeneration = gw.Generation
	status.Phase, status.Message = v1alpha1.PhaseOf(status.Conditions)
}

// specStatus sets the status fields that follow from the spec, the MCP servers and the provider
// Secrets: the fields upstream's status has too (the golden test compares them with upstream's).
func specStatus(status *v1alpha1.GatewayStatus, gw *v1alpha1.Gateway, mcpServers []string, secret func(name string) *corev1.Secret) {
	status.URL = gatewayURL(gw)
	status.ProviderSummary = providerSummary(&gw.Spec, secret)
	status.MCPServers = mcpServers
	status.MCPServerCount = int32(len(mcpServers))
	status.ServiceAccountName = serviceAccountName(gw)
}

// mcpStatus is an MCP's status after a sync.
func mcpStatus(run *mcpRun, result *engine.Outcome, mcp *v1alpha1.MCP) {
	status := &mcp.Status
	set := func(c engine.Condition) { meta.SetStatusCondition(&status.Conditions, c.MetaCondition(mcp.Generation)) }
	name := MCPNamesFor(mcp.Name).Deployment
	available, progressing, degraded, _ := engine.DeploymentConditions(run.Applied[name], run.CachedDeployment(name), result, run.Invalid, "MCP server")
	set(available)
	set(progressing)
	set(degraded)
	status.Ready = available.Status
	mcpSpecStatus(status, mcp)
	run.RecordGenerations(&status.Generations)
}

// mcpSpecStatus sets the status fields that follow from the spec: the fields upstream's status
// has too (the golden test compares them with upstream's).
func mcpSpecStatus(status *v1alpha1.MCPStatus, mcp *v1alpha1.MCP) {
	status.URL = mcpURL(mcp)
	status.ObservedGeneration = mcp.Generation
}
