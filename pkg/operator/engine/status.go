package engine

import (
	operatorv1 "github.com/openshift/api/operator/v1"
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
