package engine

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/events"
)

// Condition is a condition computed by a sync, before it is written in the CR's own condition
// type (openshift/api's OperatorCondition or metav1.Condition).
type Condition struct {
	Type    string
	Status  bool
	Reason  string
	Message string
}

// OperatorCondition is the condition as openshift/api's OperatorStatus holds it.
func (c Condition) OperatorCondition() operatorv1.OperatorCondition {
	status := operatorv1.ConditionFalse
	if c.Status {
		status = operatorv1.ConditionTrue
	}
	return operatorv1.OperatorCondition{Type: c.Type, Status: status, Reason: c.Reason, Message: c.Message}
}

// MetaCondition is the condition as a metav1.Condition for the CR's generation.
func (c Condition) MetaCondition(generation int64) metav1.Condition {
	status := metav1.ConditionFalse
	if c.Status {
		status = metav1.ConditionTrue
	}
	return metav1.Condition{Type: c.Type, Status: status, Reason: c.Reason, Message: c.Message, ObservedGeneration: generation}
}

// FromOutcome is the condition of the given type that a sync's outcome sets: True with the
// first step's reason and every step's message when a step reported it, else False with
// okReason. This is how step outcomes become Degraded and Progressing.
func FromOutcome(result *Outcome, condType, okReason, okMessage string) (Condition, bool) {
	if first, message := result.First(condType); first != nil {
		return Condition{Type: condType, Status: true, Reason: first.Reason, Message: message}, true
	}
	return Condition{Type: condType, Status: false, Reason: okReason, Message: okMessage}, false
}

// DeploymentConditions are Available and Progressing from a Deployment (as this sync applied
// it, else as cached), and Degraded from the sync's outcome. A spec that is invalid leaves
// Available as the Deployment says, and Progressing False and Degraded True with the reason
// why. This is the one place where the outcomes of a kind that runs one Deployment (a Gateway, an
// MCP server, an Agent, an Orchestrator) become conditions.
func DeploymentConditions(applied, cached *appsv1.Deployment, result *Outcome, invalid *StepError, what string) (available, progressing, degraded Condition, d *appsv1.Deployment) {
	d = applied
	if d == nil {
		d = cached
	}
	rollout := Rollout(d)
	switch {
	case !rollout.Exists:
		available = Condition{Type: ConditionAvailable, Reason: ReasonNotDeployed,
			Message: fmt.Sprintf("the %s Deployment does not exist yet; Progressing and Degraded say why", what)}
	case !rollout.Available:
		available = Condition{Type: ConditionAvailable, Reason: ReasonDeploymentUnavailable,
			Message: fmt.Sprintf("no replica of the %s Deployment %s/%s is available yet", what, d.Namespace, d.Name)}
	default:
		available = Condition{Type: ConditionAvailable, Status: true, Reason: ReasonAsExpected,
			Message: fmt.Sprintf("%d of %d replicas of the %s are available", rollout.AvailableReplicas, rollout.Desired, what)}
	}
	if invalid != nil {
		progressing = Condition{Type: ConditionProgressing, Reason: invalid.Reason, Message: invalid.Message}
		degraded = Condition{Type: ConditionDegraded, Status: true, Reason: invalid.Reason, Message: invalid.Message}
		return available, progressing, degraded, d
	}
	progressing, waiting := FromOutcome(result, ConditionProgressing, ReasonAsExpected, "")
	if !waiting && rollout.Exists && !rollout.Complete {
		progressing = Condition{Type: ConditionProgressing, Status: true, Reason: ReasonDeploymentRollingOut,
			Message: fmt.Sprintf("the %s Deployment %s/%s is rolling out: %d of %d replicas updated, %d available",
				what, d.Namespace, d.Name, rollout.Updated, rollout.Desired, rollout.AvailableReplicas)}
	}
	degraded, _ = FromOutcome(result, ConditionDegraded, ReasonAsExpected, result.Notes())
	return available, progressing, degraded, d
}

// ReportTransitions records an event on the CR for every condition a status write changes
// (status or reason) that policy announces, in the order of the new conditions, with the
// condition's message.
func ReportTransitions(recorder events.Recorder, policy EventPolicy, before, after []metav1.Condition) {
	for i := range after {
		now := &after[i]
		old := meta.FindStatusCondition(before, now.Type)
		if old != nil && old.Status == now.Status && old.Reason == now.Reason {
			continue
		}
		e, ok := policy(Transition{Before: old, After: now})
		if !ok {
			continue
		}
		if e.Warning {
			recorder.Warningf(e.Reason, "%s", now.Message)
		} else {
			recorder.Eventf(e.Reason, "%s", now.Message)
		}
	}
}

// AvailabilityEvents is the event policy of a kind whose pods serve when Available is True:
// Normal Available when Available becomes True, Warning Unavailable when it stops being True,
// and a Warning named after the reason when Degraded becomes True or changes reason.
func AvailabilityEvents(t Transition) (Event, bool) {
	switch t.After.Type {
	case ConditionAvailable:
		switch {
		case t.After.Status == metav1.ConditionTrue:
			return Event{Reason: "Available"}, true
		case t.Before != nil && t.Before.Status == metav1.ConditionTrue:
			return Event{Warning: true, Reason: "Unavailable"}, true
		}
	case ConditionDegraded:
		if t.After.Status == metav1.ConditionTrue {
			return Event{Warning: true, Reason: t.After.Reason}, true
		}
	}
	return Event{}, false
}
