package engine

import (
	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/events"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
