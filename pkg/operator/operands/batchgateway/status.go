package batchgateway

import (
	"context"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/library-go/pkg/operator/resource/resourcemerge"

	batchv1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/batch/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// conditionReady is the condition type of step outcomes that make the gateway not ready
// whatever its pods do: a spec or a reference that cannot work.
const conditionReady = batchv1alpha1.ConditionReady

// reasonRenderFailed is upstream's reason for a spec that cannot be rendered.
const reasonRenderFailed = batchv1alpha1.ReasonRenderFailed

// component is one Deployment of the operand and the condition that reports it.
type component struct {
	name      string
	condition string
	// title is how messages name it.
	title string
	// deployment is the Deployment's name for a CR.
	deployment func(Names) string
	// replicas is where the CR sets its replicas, for messages.
	replicasField string
}

var components = []component{
	{componentAPIServer, batchv1alpha1.ConditionAPIServerAvailable, "API server", func(n Names) string { return n.APIServer }, "spec.apiServer.replicas"},
	{componentProcessor, batchv1alpha1.ConditionProcessorAvailable, "Processor", func(n Names) string { return n.Processor }, "spec.processor.replicas"},
	{componentGC, batchv1alpha1.ConditionGCAvailable, "GC", func(n Names) string { return n.GC }, "spec.gc.replicas"},
	{componentAsyncProcessor, batchv1alpha1.ConditionAsyncProcessorAvailable, "Async processor", func(n Names) string { return n.AsyncProcessor }, "spec.processor.asyncConfig.replicas"},
}

// componentsOf are the components a CR runs: the async-processor only in async mode.
func componentsOf(cr *batchv1alpha1.LLMBatchGateway) []component {
	if asyncEnabled(&cr.Spec) {
		return components
	}
	return components[:3]
}

// deploymentOf is a component's Deployment: as this sync applied it, else as cached.
func (run *syncRun) deploymentOf(c component) *appsv1.Deployment {
	if d := run.applied[c.name]; d != nil {
		return d
	}
	obj, err := run.clients.Caches.Get(engine.Deployments, run.cr.Namespace, c.deployment(run.names))
	if err != nil {
		return nil
	}
	d, _ := obj.(*appsv1.Deployment)
	return d
}

// componentCondition says whether a component serves: its rollout is complete (the latest
// spec observed, every replica updated and available) and at least one replica is available.
// One ready pod of an old spec is not enough: a broken rollout must not look ready.
func componentCondition(c component, d *appsv1.Deployment, namespace, name string) (engine.Condition, bool) {
	rollout := engine.Rollout(d)
	cond := engine.Condition{Type: c.condition, Reason: batchv1alpha1.ReasonUnavailable}
	switch {
	case !rollout.Exists:
		cond.Message = fmt.Sprintf("%s has no ready replicas: its Deployment %s/%s does not exist yet", c.title, namespace, name)
	case rollout.Desired == 0:
		cond.Message = fmt.Sprintf("%s has no ready replicas: %s is 0", c.title, c.replicasField)
	case !rollout.Complete:
		cond.Message = fmt.Sprintf("%s is rolling out: %d of %d replicas updated, %d available (Deployment %s/%s)",
			c.title, rollout.Updated, rollout.Desired, rollout.AvailableReplicas, namespace, name)
	default:
		cond.Status = true
		cond.Reason = batchv1alpha1.ReasonAvailable
		cond.Message = fmt.Sprintf("%s has %d of %d replicas ready and up to date", c.title, rollout.Ready, rollout.Desired)
	}
	return cond, rollout.Exists && !rollout.Complete
}

// statusFor computes the CR's status from the sync's outcome and the components' Deployments.
// This is the one place where this operand's step outcomes become conditions.
func (run *syncRun) statusFor(result *engine.Outcome) *batchv1alpha1.LLMBatchGatewayStatus {
	cr := run.cr
	status := cr.Status.DeepCopy()
	gen := cr.Generation
	set := func(c engine.Condition) { meta.SetStatusCondition(&status.Conditions, c.MetaCondition(gen)) }
	status.ObservedGeneration = gen
	if !asyncEnabled(&cr.Spec) {
		meta.RemoveStatusCondition(&status.Conditions, batchv1alpha1.ConditionAsyncProcessorAvailable)
	}

	if run.invalid != nil {
		// Upstream's ValidationFailed: every condition says so; the objects running stay.
		msg := fmt.Sprintf("the spec is invalid, nothing was changed: %v", run.invalid)
		for _, c := range componentsOf(cr) {
			set(engine.Condition{Type: c.condition, Reason: batchv1alpha1.ReasonValidationFailed, Message: msg})
		}
		set(engine.Condition{Type: batchv1alpha1.ConditionReady, Reason: batchv1alpha1.ReasonValidationFailed, Message: msg})
		set(engine.Condition{Type: batchv1alpha1.ConditionProgressing, Reason: batchv1alpha1.ReasonValidationFailed, Message: msg})
		set(engine.Condition{Type: batchv1alpha1.ConditionDegraded, Status: true, Reason: batchv1alpha1.ReasonValidationFailed, Message: msg})
		return status
	}

	allAvailable := true
	var notReady, rolling []string
	replicas := &batchv1alpha1.ComponentStatus{}
	for _, c := range componentsOf(cr) {
		d := run.deploymentOf(c)
		cond, rollingOut := componentCondition(c, d, cr.Namespace, c.deployment(run.names))
		set(cond)
		if !cond.Status {
			allAvailable = false
			notReady = append(notReady, c.title)
		}
		if rollingOut {
			rolling = append(rolling, cond.Message)
		}
		setComponentReplicas(replicas, c.name, d)
	}
	status.ComponentStatus = replicas

	ready := engine.Condition{Type: batchv1alpha1.ConditionReady, Status: true, Reason: batchv1alpha1.ReasonAllComponentsReady,
		Message: "All components have their replicas ready and up to date"}
	if problem, message := result.First(conditionReady); problem != nil {
		ready = engine.Condition{Type: batchv1alpha1.ConditionReady, Reason: problem.Reason, Message: message}
	} else if !allAvailable {
		ready = engine.Condition{Type: batchv1alpha1.ConditionReady, Reason: batchv1alpha1.ReasonComponentsNotReady,
			Message: "Not ready: " + strings.Join(notReady, ", ") + "; the component conditions say why"}
	}
	set(ready)

	progressing, waiting := engine.FromOutcome(result, engine.ConditionProgressing, engine.ReasonAsExpected, "")
	if !waiting && len(rolling) > 0 {
		progressing = engine.Condition{Type: engine.ConditionProgressing, Status: true, Reason: engine.ReasonDeploymentRollingOut, Message: strings.Join(rolling, "; ")}
	}
	set(progressing)
	degraded, _ := engine.FromOutcome(result, engine.ConditionDegraded, engine.ReasonAsExpected, "")
	set(degraded)

	for _, d := range run.applied {
		resourcemerge.SetDeploymentGeneration(&status.Generations, d)
	}
	return status
}

func setComponentReplicas(s *batchv1alpha1.ComponentStatus, name string, d *appsv1.Deployment) {
	r := &batchv1alpha1.ComponentReplicaStatus{}
	if d != nil {
		r.Replicas, r.ReadyReplicas = d.Status.Replicas, d.Status.ReadyReplicas
	}
	switch name {
	case componentAPIServer:
		s.APIServer = r
	case componentProcessor:
		s.Processor = r
	case componentGC:
		s.GC = r
	case componentAsyncProcessor:
		s.AsyncProcessor = r
	}
}

// writeStatus writes the status once per sync, and only when it changed; events mark
// transitions of Ready and Degraded.
func (o *Operand) writeStatus(ctx context.Context, run *syncRun, result *engine.Outcome) error {
	status := run.statusFor(result)
	if equality.Semantic.DeepEqual(status, &run.cr.Status) {
		return nil
	}
	reportTransitions(run, &run.cr.Status, status)
	updated := run.cr.DeepCopy()
	updated.Status = *status
	if _, err := o.client.BatchV1alpha1().LLMBatchGateways(updated.Namespace).UpdateStatus(ctx, updated, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("update status of LLMBatchGateway %s: %w", run.key, err)
	}
	return nil
}

// reportTransitions records an event when Ready or Degraded changes (status or reason), with
// upstream's reasons: Normal Ready, Warning NotReady, and a Warning named after the reason of
// a configuration problem.
func reportTransitions(run *syncRun, old, updated *batchv1alpha1.LLMBatchGatewayStatus) {
	changed := func(condType string) (now *metav1.Condition, first, ok bool) {
		now = meta.FindStatusCondition(updated.Conditions, condType)
		before := meta.FindStatusCondition(old.Conditions, condType)
		if now == nil {
			return nil, false, false
		}
		return now, before == nil, before == nil || before.Status != now.Status || before.Reason != now.Reason
	}
	if ready, first, ok := changed(batchv1alpha1.ConditionReady); ok {
		switch {
		case ready.Status == metav1.ConditionTrue:
			run.recorder.Eventf("Ready", "%s", ready.Message)
		case ready.Reason == batchv1alpha1.ReasonComponentsNotReady:
			// A new CR is not ready until its pods start: only losing readiness is a warning.
			if !first {
				run.recorder.Warningf("NotReady", "%s", ready.Message)
			}
		default:
			run.recorder.Warningf(ready.Reason, "%s", ready.Message)
		}
	}
	if degraded, _, ok := changed(batchv1alpha1.ConditionDegraded); ok && degraded.Status == metav1.ConditionTrue && degraded.Reason != batchv1alpha1.ReasonValidationFailed {
		run.recorder.Warningf(degraded.Reason, "%s", degraded.Message)
	}
}
