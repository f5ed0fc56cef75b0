package inferencegateway

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/library-go/pkg/operator/resource/resourcemerge"

	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// reconcileGateway validates the Gateway and walks its table. A spec that breaks ValidateSpec
// (stored before the CRD's rules, or a rule CEL cannot express) changes nothing: what runs
// keeps running.
func (o *Operand) reconcileGateway(ctx context.Context, run *gatewayRun) *engine.Outcome {
	if errs := run.cr.ValidateSpec(); len(errs) > 0 {
		run.invalid = errs.ToAggregate()
		return &engine.Outcome{}
	}
	return engine.Walk(ctx, o.gatewaySteps, run, engine.Forward)
}

// reconcileMCP validates the MCP and walks its table.
func (o *Operand) reconcileMCP(ctx context.Context, run *mcpRun) *engine.Outcome {
	if errs := run.cr.ValidateSpec(); len(errs) > 0 {
		result := &engine.Outcome{}
		result.Add(engine.MissingDependency(v1alpha1.ReasonValidationFailed, "the spec is invalid, nothing was changed: %v", errs.ToAggregate()))
		return result
	}
	return engine.Walk(ctx, o.mcpSteps, run, engine.Forward)
}

// deploymentConditions are Available and Progressing from a Deployment (as this sync applied
// it, else as cached), and Degraded from the sync's outcome. This is the one place where the
// operand's outcomes become conditions.
func deploymentConditions(applied, cached *appsv1.Deployment, result *engine.Outcome, what string) (available, progressing, degraded engine.Condition, d *appsv1.Deployment) {
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
	progressing, waiting := engine.FromOutcome(result, engine.ConditionProgressing, engine.ReasonAsExpected, "")
	if !waiting && rollout.Exists && !rollout.Complete {
		progressing = engine.Condition{Type: v1alpha1.ConditionProgressing, Status: true, Reason: engine.ReasonDeploymentRollingOut,
			Message: fmt.Sprintf("the %s Deployment %s/%s is rolling out: %d of %d replicas updated, %d available",
				what, d.Namespace, d.Name, rollout.Updated, rollout.Desired, rollout.AvailableReplicas)}
	}
	degraded, _ = engine.FromOutcome(result, engine.ConditionDegraded, engine.ReasonAsExpected, result.Notes())
	return available, progressing, degraded, d
}

// writeGatewayStatus writes the Gateway's status once per sync, and only when it changed.
func (o *Operand) writeGatewayStatus(ctx context.Context, run *gatewayRun, result *engine.Outcome) error {
	gw := run.cr
	status := gw.Status.DeepCopy()
	set := func(c engine.Condition) { meta.SetStatusCondition(&status.Conditions, c.MetaCondition(gw.Generation)) }
	cached := o.cachedDeployment(gw, run.names.Gateway)
	if run.invalid != nil {
		msg := fmt.Sprintf("the spec is invalid, nothing was changed: %v", run.invalid)
		reason := v1alpha1.ReasonValidationFailed
		if errs := gw.ValidateSpec(); len(errs) > 0 {
			reason = v1alpha1.ReasonFor(errs)
		}
		available, _, _, _ := deploymentConditions(nil, cached, result, "gateway")
		set(available)
		set(engine.Condition{Type: v1alpha1.ConditionProgressing, Reason: reason, Message: msg})
		set(engine.Condition{Type: v1alpha1.ConditionDegraded, Status: true, Reason: reason, Message: msg})
	} else {
		available, progressing, degraded, d := deploymentConditions(run.applied, cached, result, "gateway")
		set(available)
		set(progressing)
		set(degraded)
		status.ReadyReplicas, status.AvailableReplicas = 0, 0
		if d != nil {
			status.ReadyReplicas, status.AvailableReplicas = d.Status.ReadyReplicas, d.Status.AvailableReplicas
		}
		status.URL = gatewayURL(gw)
		status.ProviderSummary = providerSummary(&gw.Spec, run.secretNamed)
		status.MCPServers = run.mcpServers
		status.MCPServerCount = int32(len(run.mcpServers))
		status.ServiceAccountName = run.names.ServiceAccount
		if run.applied != nil {
			resourcemerge.SetDeploymentGeneration(&status.Generations, run.applied)
		}
	}
	status.ObservedGeneration = gw.Generation
	status.Phase, status.Message = v1alpha1.PhaseOf(status.Conditions)
	if equality.Semantic.DeepEqual(status, &gw.Status) {
		return nil
	}
	reportTransitions(run.recorder, gw.Status.Conditions, status.Conditions)
	updated := gw.DeepCopy()
	updated.Status = *status
	if _, err := o.client.CoreV1alpha1().Gateways(gw.Namespace).UpdateStatus(ctx, updated, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("update status of Gateway %s: %w", run.key, err)
	}
	return nil
}

// writeMCPStatus writes the MCP's status once per sync, and only when it changed.
func (o *Operand) writeMCPStatus(ctx context.Context, run *mcpRun, result *engine.Outcome) error {
	mcp := run.cr
	status := mcp.Status.DeepCopy()
	set := func(c engine.Condition) { meta.SetStatusCondition(&status.Conditions, c.MetaCondition(mcp.Generation)) }
	available, progressing, degraded, _ := deploymentConditions(run.applied, o.cachedDeployment(mcp, MCPNamesFor(mcp.Name).Deployment), result, "MCP server")
	set(available)
	set(progressing)
	set(degraded)
	status.Ready = available.Status
	status.URL = mcpURL(mcp)
	status.ObservedGeneration = mcp.Generation
	if run.applied != nil {
		resourcemerge.SetDeploymentGeneration(&status.Generations, run.applied)
	}
	if equality.Semantic.DeepEqual(status, &mcp.Status) {
		return nil
	}
	reportTransitions(run.recorder, mcp.Status.Conditions, status.Conditions)
	updated := mcp.DeepCopy()
	updated.Status = *status
	if _, err := o.client.CoreV1alpha1().MCPs(mcp.Namespace).UpdateStatus(ctx, updated, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("update status of MCP %s: %w", run.key, err)
	}
	return nil
}

// reportTransitions records an event when Available or Degraded changes: Normal Available,
// Warning with the reason of a Degraded condition or of a lost availability.
func reportTransitions(recorder eventRecorder, before, after []metav1.Condition) {
	changed := func(condType string) (*metav1.Condition, *metav1.Condition, bool) {
		now, old := meta.FindStatusCondition(after, condType), meta.FindStatusCondition(before, condType)
		if now == nil {
			return nil, nil, false
		}
		return now, old, old == nil || old.Status != now.Status || old.Reason != now.Reason
	}
	if now, old, ok := changed(v1alpha1.ConditionAvailable); ok {
		switch {
		case now.Status == metav1.ConditionTrue:
			recorder.Eventf("Available", "%s", now.Message)
		case old != nil && old.Status == metav1.ConditionTrue:
			recorder.Warningf("Unavailable", "%s", now.Message)
		}
	}
	if now, _, ok := changed(v1alpha1.ConditionDegraded); ok && now.Status == metav1.ConditionTrue {
		recorder.Warningf(now.Reason, "%s", now.Message)
	}
}

// eventRecorder is the part of library-go's recorder the status code uses.
type eventRecorder interface {
	Eventf(reason, messageFmt string, args ...interface{})
	Warningf(reason, messageFmt string, args ...interface{})
}
