package batchgateway

import (
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

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

// componentDeployment is a component's Deployment: as this sync applied or scaled it, else as
// cached.
func componentDeployment(run *syncRun, c component) *appsv1.Deployment {
	name := c.deployment(run.State.names)
	if d := run.Applied[name]; d != nil {
		return d
	}
	if d := run.State.scaledToZero[name]; d != nil {
		return d
	}
	obj, err := run.Caches().Get(engine.Deployments, run.CR.Namespace, name)
	if err != nil {
		return nil
	}
	d, _ := obj.(*appsv1.Deployment)
	return d
}

// minimumAvailable is how many available replicas a Deployment keeps during a rollout, as the
// Deployment controller computes it (replicas minus maxUnavailable, rounded down; the
// controller's Available condition says the same), but never fewer than one: a component with
// no available replica serves nothing, whatever its strategy allows.
func minimumAvailable(d *appsv1.Deployment) int32 {
	desired := engine.DesiredReplicas(d)
	maxUnavailable := intstr.FromString("25%") // the API server's default
	switch s := d.Spec.Strategy; {
	case s.Type == appsv1.RecreateDeploymentStrategyType:
		maxUnavailable = intstr.FromInt32(desired)
	case s.RollingUpdate != nil && s.RollingUpdate.MaxUnavailable != nil:
		maxUnavailable = *s.RollingUpdate.MaxUnavailable
	}
	unavailable, err := intstr.GetScaledValueFromIntOrPercent(&maxUnavailable, int(desired), false)
	if err != nil {
		unavailable = 0
	}
	return max(1, desired-int32(min(unavailable, int(desired))))
}

// rolloutStalled is the Deployment controller's verdict that the rollout made no progress
// within progressDeadlineSeconds.
func rolloutStalled(d *appsv1.Deployment) bool {
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentProgressing {
			return c.Status == corev1.ConditionFalse && c.Reason == deploymentProgressDeadlineExceeded
		}
	}
	return false
}

// deploymentProgressDeadlineExceeded is the reason the Deployment controller gives a stalled
// rollout (k8s.io/kubernetes/pkg/controller/deployment/util.TimedOutReason, not vendored).
const deploymentProgressDeadlineExceeded = "ProgressDeadlineExceeded"

// componentRollout is what a component's Deployment says, for the CR's conditions.
type componentRollout struct {
	// condition is the component's *Available condition.
	condition engine.Condition
	// rolling is the rollout in progress, for Progressing; empty when there is none.
	rolling string
	// stalled is a rollout the Deployment controller gave up waiting for, for Degraded.
	stalled string
}

// componentCondition says whether a component serves: its Deployment has at least its minimum
// of available replicas (minimumAvailable). A rollout in progress does not stop it serving,
// so Ready stays True while a new spec rolls out (an operator upgrade or a spec change) and
// Progressing shows the rollout; a rollout that took the component below its minimum makes it
// unavailable, and a stalled one (old pods still serving) is Degraded.
func componentCondition(c component, d *appsv1.Deployment, namespace, name string) componentRollout {
	rollout := engine.Rollout(d)
	out := componentRollout{condition: engine.Condition{Type: c.condition, Reason: batchv1alpha1.ReasonUnavailable}}
	cond := &out.condition
	if rollout.Exists && rollout.Desired > 0 && !rollout.Complete {
		out.rolling = fmt.Sprintf("%s is rolling out: %d of %d replicas updated, %d available (Deployment %s/%s)",
			c.title, rollout.Updated, rollout.Desired, rollout.AvailableReplicas, namespace, name)
		if rolloutStalled(d) {
			out.stalled = fmt.Sprintf("%s's rollout exceeded its progress deadline: %d of %d replicas updated (Deployment %s/%s); its events and pods say why",
				c.title, rollout.Updated, rollout.Desired, namespace, name)
		}
	}
	switch {
	case !rollout.Exists:
		cond.Message = fmt.Sprintf("%s has no ready replicas: its Deployment %s/%s does not exist yet", c.title, namespace, name)
	case rollout.Desired == 0:
		cond.Message = fmt.Sprintf("%s has no ready replicas: %s is 0", c.title, c.replicasField)
	case rollout.Complete:
		cond.Status = true
		cond.Reason = batchv1alpha1.ReasonAvailable
		cond.Message = fmt.Sprintf("%s has %d of %d replicas ready and up to date", c.title, rollout.Ready, rollout.Desired)
	case rollout.AvailableReplicas >= minimumAvailable(d):
		cond.Status = true
		cond.Reason = batchv1alpha1.ReasonAvailable
		cond.Message = fmt.Sprintf("%s serves with %d of %d replicas available while rolling out (%d updated)",
			c.title, rollout.AvailableReplicas, rollout.Desired, rollout.Updated)
	default:
		cond.Message = fmt.Sprintf("%s has %d available replicas, fewer than its minimum of %d (Deployment %s/%s; %d of %d updated)",
			c.title, rollout.AvailableReplicas, minimumAvailable(d), namespace, name, rollout.Updated, rollout.Desired)
	}
	return out
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

	withdrawn := credentialsWithdrawn(result)
	allAvailable := true
	var notReady, rolling, stalled []string
	replicas := &batchv1alpha1.ComponentStatus{}
	for _, c := range componentsOf(cr) {
		d := componentDeployment(run, c)
		r := componentCondition(c, d, cr.Namespace, c.deployment(run.State.names))
		if withdrawn && d != nil && engine.DesiredReplicas(d) == 0 {
			// At 0 whatever the CR's replicas (withdrawCredentials): not the spec's doing.
			r.condition.Message = fmt.Sprintf("%s has no ready replicas: its Deployment %s/%s is scaled to 0 until a ReferenceGrant allows spec.secretRef (see Ready)",
				c.title, cr.Namespace, c.deployment(run.State.names))
		}
		set(r.condition)
		if !r.condition.Status {
			allAvailable = false
			notReady = append(notReady, c.title)
		}
		if r.rolling != "" {
			rolling = append(rolling, r.rolling)
		}
		if r.stalled != "" {
			stalled = append(stalled, r.stalled)
		}
		setComponentReplicas(replicas, c.name, d)
	}
	status.ComponentStatus = replicas

	ready := engine.Condition{Type: batchv1alpha1.ConditionReady, Status: true, Reason: batchv1alpha1.ReasonAllComponentsReady,
		Message: "All components have their replicas ready and up to date"}
	if len(rolling) > 0 {
		ready.Message = "All components serve; a rollout is in progress (see Progressing)"
	}
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
	if !degraded.Status && len(stalled) > 0 {
		degraded = engine.Condition{Type: engine.ConditionDegraded, Status: true, Reason: batchv1alpha1.ReasonRolloutStalled, Message: strings.Join(stalled, "; ")}
	}
	set(degraded)

	run.RecordGenerations(&status.Generations)
}

// credentialsWithdrawn says whether the sync found spec.secretRef not permitted, so that
// withdrawCredentials scaled the Deployments to 0.
func credentialsWithdrawn(result *engine.Outcome) bool {
	problem, _ := result.First(conditionReady)
	return problem != nil && problem.Reason == batchv1alpha1.ReasonReferenceNotPermitted
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
