package engine

import (
	"errors"
	"fmt"
	"strings"
)

// Condition types every operand reports (the same strings in openshift/api's OperatorStatus and
// in metav1.Conditions).
const (
	ConditionAvailable   = "Available"
	ConditionProgressing = "Progressing"
	ConditionDegraded    = "Degraded"
)

// Condition reasons the engine and its operands use. Messages say what to do; reasons are for
// machines and dashboards. Reasons that only one operand's API defines live in that API package.
const (
	ReasonAsExpected            = "AsExpected"
	ReasonApplyFailed           = "ApplyFailed"
	ReasonRemovalFailed         = "RemovalFailed"
	ReasonDeploymentRollingOut  = "DeploymentRollingOut"
	ReasonDeploymentUnavailable = "DeploymentUnavailable"
	ReasonNotDeployed           = "NotDeployed"
	ReasonCRDMissing            = "CRDNotInstalled"
	ReasonImageMissing          = "ImageNotConfigured"
	ReasonObjectNotOwned        = "ObjectNotOwned"
	ReasonSecretMissing         = "SecretMissing"
	ReasonSecretKeysMissing     = "SecretMissingKeys"
	// ReasonReferenceNotPermitted: a CR discovers objects of another namespace that no
	// ReferenceGrant there allows, or the ReferenceGrant CRD is not installed.
	ReasonReferenceNotPermitted = "ReferenceNotPermitted"
)

// StepError says what a failed or unfinished step means for the CR's conditions. Steps return
// it (or a plain error, which becomes ApplyFailed); the operand turns the collected StepErrors
// into conditions in one place.
type StepError struct {
	// Condition is the condition type this outcome sets: Degraded or Progressing (True), or an
	// operand's own type.
	Condition string
	// Reason is a CamelCase word for the condition's reason.
	Reason string
	// Message is for a person: what is wrong and what to do.
	Message string
	// Blocking stops the steps after this one, because they depend on it.
	Blocking bool
	// Retry is the error that makes the controller retry with back-off; nil when an informer
	// event will bring the next sync (a watched Secret or CRD appearing).
	Retry error
}

func (e *StepError) Error() string {
	if e.Retry != nil {
		return fmt.Sprintf("%s: %v", e.Message, e.Retry)
	}
	return e.Message
}

func (e *StepError) Unwrap() error { return e.Retry }

// WaitingFor reports a step that cannot finish until something appears; the informers bring the
// next sync when it does, so this is progress, not an error.
func WaitingFor(reason, format string, args ...any) *StepError {
	return &StepError{Condition: ConditionProgressing, Reason: reason, Message: fmt.Sprintf(format, args...), Blocking: true}
}

// MissingDependency reports something the administrator must install or fix; it blocks the
// later steps and is watched, so no retry loop is needed.
func MissingDependency(reason, format string, args ...any) *StepError {
	return &StepError{Condition: ConditionDegraded, Reason: reason, Message: fmt.Sprintf(format, args...), Blocking: true}
}

// ConditionNote is the "condition" of an outcome that changes no condition's status: something
// an administrator may want to know (an optional integration skipped), carried in the message
// of a condition that is fine (Degraded=False).
const ConditionNote = "Note"

// Note reports something worth knowing that is not a problem.
func Note(format string, args ...any) *StepError {
	return &StepError{Condition: ConditionNote, Message: fmt.Sprintf(format, args...)}
}

// Notes joins the messages of the outcome's notes ("" when there is none).
func (o *Outcome) Notes() string {
	_, message := o.First(ConditionNote)
	return message
}

// ConditionPostponed is the "condition" of a sync that cannot tell yet what is there: a watch
// it reads has not listed yet (ErrNotSynced). It sets no condition: the sync writes no status
// and applies nothing after it, and the controller retries with back-off. Acting on "absent"
// instead would apply Deployments without the hash of a Secret they mount and roll every pod
// again a moment later, and report a Secret missing that exists.
const ConditionPostponed = "Postponed"

// ReasonWatchNotSynced is the reason of a postponed sync.
const ReasonWatchNotSynced = "WatchNotSynced"

// Postponed reports a sync that must wait for a watch to list (err wraps ErrNotSynced).
func Postponed(err error) *StepError {
	return &StepError{Condition: ConditionPostponed, Reason: ReasonWatchNotSynced, Message: err.Error(), Blocking: true, Retry: err}
}

// Postponed says whether a step could not tell yet what is there: the sync writes no status.
func (o *Outcome) Postponed() bool {
	first, _ := o.First(ConditionPostponed)
	return first != nil
}

// Problem reports something wrong that does not stop the other steps and that a watch will
// bring back (a foreign object in the way, a missing optional CRD the CR asked for).
func Problem(reason, format string, args ...any) *StepError {
	return &StepError{Condition: ConditionDegraded, Reason: reason, Message: fmt.Sprintf(format, args...)}
}

// AsStepError turns whatever a step returned into a StepError. Plain errors are API failures:
// the other steps still run, and the controller retries with back-off.
func AsStepError(stepName, failureReason string, err error) *StepError {
	var se *StepError
	if errors.As(err, &se) {
		return se
	}
	if IsNotSynced(err) {
		return Postponed(fmt.Errorf("%s: %w", stepName, err))
	}
	return &StepError{
		Condition: ConditionDegraded,
		Reason:    failureReason,
		Message:   fmt.Sprintf("%s: %v", stepName, err),
		Retry:     fmt.Errorf("%s: %w", stepName, err),
	}
}

// Outcome collects the results of one sync's steps.
type Outcome struct {
	errs []*StepError
}

// Add records a step's result.
func (o *Outcome) Add(e *StepError) { o.errs = append(o.errs, e) }

// First returns the first result that sets the given condition, and the messages of all of
// them joined, so one condition tells about every failed step.
func (o *Outcome) First(condition string) (*StepError, string) {
	var first *StepError
	var messages []string
	for _, e := range o.errs {
		if e.Condition != condition {
			continue
		}
		if first == nil {
			first = e
		}
		messages = append(messages, e.Message)
	}
	return first, strings.Join(messages, "; ")
}

// Empty says whether every step succeeded.
func (o *Outcome) Empty() bool { return len(o.errs) == 0 }

// RetryError joins the errors that ask for a retry; nil when the sync needs none.
func (o *Outcome) RetryError() error {
	var errs []error
	for _, e := range o.errs {
		if e.Retry != nil {
			errs = append(errs, e.Retry)
		}
	}
	return errors.Join(errs...)
}
