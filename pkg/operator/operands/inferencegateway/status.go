package inferencegateway

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"

	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// DeploymentConditions are Available and Progressing from a Deployment (as this sync applied
// it, else as cached), and Degraded from the sync's outcome. A spec that is invalid leaves
// Available as the Deployment says, and Progressing False and Degraded True with the reason
// why. This is the one place where the operand's outcomes become conditions.
func DeploymentConditions(applied, cached *appsv1.Deployment, result *engine.Outcome, invalid *engine.StepError, what string) (available, progressing, degraded engine.Condition, d *appsv1.Deployment) {
	d = applied
	if d == nil {
		d = cached
	}
	rollout := engine.Rollout(d)
	switch {
	case !rollout.Exists:
		available = engine.Condition{Type: v1alpha1.ConditionAvailable, Reason: engine.ReasonNotDeployed,
			Message: fmt.Sprintf("the %s Deployment does not exist yet; Progressing and Degraded say why", what)}
	case !rollout.Available:
		available = engine.Condition{Type: v1alpha1.ConditionAvailable, Reason: engine.ReasonDeploymentUnavailable,
			Message: fmt.Sprintf("no replica of the %s Deployment %s/%s is available yet", what, d.Namespace, d.Name)}
	default:
		available = engine.Condition{Type: v1alpha1.ConditionAvailable, Status: true, Reason: engine.ReasonAsExpected,
			Message: fmt.Sprintf("%d of %d replicas of the %s are available", rollout.AvailableReplicas, rollout.Desired, what)}
	}
	if invalid != nil {
		progressing = engine.Condition{Type: v1alpha1.ConditionProgressing, Reason: invalid.Reason, Message: invalid.Message}
		degraded = engine.Condition{Type: v1alpha1.ConditionDegraded, Status: true, Reason: invalid.Reason, Message: invalid.Message}
		return available, progressing, degraded, d
	}
	progressing, waiting := engine.FromOutcome(result, engine.ConditionProgressing, engine.ReasonAsExpected, "")
	if !waiting && rollout.Exists && !rollout.Complete {
		progressing = engine.Condition{Type: v1alpha1.ConditionProgressing, Status: true, Reason: engine.ReasonDeploymentRollingOut,
			Message: fmt.Sprintf("the %s Deployment %s/%s is rolling out: %d of %d replicas updated, %d available",
				what, d.Namespace, d.Name, rollout.Updated, rollout.Desired, rollout.AvailableReplicas)}
	}
	degraded, _ = engine.FromOutcome(result, engine.ConditionDegraded, engine.ReasonAsExpected, result.Notes())
	return available, progressing, degraded, d
}

// gatewayStatus is a Gateway's status after a sync. While the spec is invalid only the
// conditions, phase and observedGeneration move.
func gatewayStatus(run *gatewayRun, result *engine.Outcome, gw *v1alpha1.Gateway) {
	status := &gw.Status
	set := func(c engine.Condition) { meta.SetStatusCondition(&status.Conditions, c.MetaCondition(gw.Generation)) }
	available, progressing, degraded, d := DeploymentConditions(run.Applied[run.State.names.Gateway],
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
	available, progressing, degraded, _ := DeploymentConditions(run.Applied[name], run.CachedDeployment(name), result, run.Invalid, "MCP server")
	set(available)
	set(progressing)
	set(degraded)
	status.Ready = available.Status
	status.URL = mcpURL(mcp)
	status.ObservedGeneration = mcp.Generation
	run.RecordGenerations(&status.Generations)
}
