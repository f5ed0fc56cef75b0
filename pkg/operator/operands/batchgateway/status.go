package batchgateway

import (
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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

// componentDeployment is a component's Deployment: as this sync applied it, else as cached.
func componentDeployment(run *syncRun, c component) *appsv1.Deployment {
	name := c.deployment(run.State.names)
	if d := run.Applied[name]; d != nil {
		return d
	}
	obj, err := run.Caches().Get(engine.Deployments, run.CR.Namespace, name)
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

// status sets the CR's status from the sync's outcome and the components' Deployments. This
// is the one place where this operand's step outcomes become conditions.
func status(run *syncRun, result *engine.Outcome, cr *batchv1alpha1.LLMBatchGateway) {
	status := &cr.Status
	gen := cr.Generation
	set := func(c engine.Condition) { meta.SetStatusCondition(&status.Conditions, c.MetaCondition(gen)) }
	status.ObservedGeneration = gen
	if !asyncEnabled(&cr.Spec) {
		meta.RemoveStatusCondition(&status.Conditions, batchv1alpha1.ConditionAsyncProcessorAvailable)
	}

	if run.Invalid != nil {
		// Upstream's ValidationFailed: every condition says so; the objects running stay.
		msg := run.Invalid.Message
		for _, c := range componentsOf(cr) {
			set(engine.Condition{Type: c.condition, Reason: batchv1alpha1.ReasonValidationFailed, Message: msg})
		}
		set(engine.Condition{Type: batchv1alpha1.ConditionReady, Reason: batchv1alpha1.ReasonValidationFailed, Message: msg})
		set(engine.Condition{Type: batchv1alpha1.ConditionProgressing, Reason: batchv1alpha1.ReasonValidationFailed, Message: msg})
		set(engine.Condition{Type: batchv1alpha1.ConditionDegraded, Status: true, Reason: batchv1alpha1.ReasonValidationFailed, Message: msg})
		return
	}

	allAvailable := true
	var notReady, rolling []string
	replicas := &batchv1alpha1.ComponentStatus{}
	for _, c := range componentsOf(cr) {
		d := componentDeployment(run, c)
		cond, rollingOut := componentCondition(c, d, cr.Namespace, c.deployment(run.State.names))
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

	run.RecordGenerations(&status.Generations)
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

// transitionEvents announces transitions of Ready and Degraded (status or reason) with upstream's
// reasons: Normal Ready, Warning NotReady, and a Warning named after the reason of a
// configuration problem. A new CR is not ready until its pods start: only losing readiness is
// a warning.
func transitionEvents(t engine.Transition) (engine.Event, bool) {
	switch now := t.After; now.Type {
	case batchv1alpha1.ConditionReady:
		switch {
		case now.Status == metav1.ConditionTrue:
			return engine.Event{Reason: "Ready"}, true
		case now.Reason == batchv1alpha1.ReasonComponentsNotReady:
			return engine.Event{Warning: true, Reason: "NotReady"}, t.Before != nil
		default:
			return engine.Event{Warning: true, Reason: now.Reason}, true
		}
	case batchv1alpha1.ConditionDegraded:
		// An invalid spec is reported by Ready's event already.
		if now.Status == metav1.ConditionTrue && now.Reason != batchv1alpha1.ReasonValidationFailed {
			return engine.Event{Warning: true, Reason: now.Reason}, true
		}
	}
	return engine.Event{}, false
}
