package lws

import (
	"errors"
	"fmt"
	"strings"

	operatorv1 "github.com/openshift/api/operator/v1"
)

// stepError says what a failed or unfinished step means for the CR's conditions. Steps return
// it (or a plain error, which becomes ApplyFailed); reportConditions turns the collected
// stepErrors into conditions in one place.
type stepError struct {
	// condition is the condition type this outcome sets to True: Degraded or Progressing.
	condition string
	// reason is a CamelCase word for the condition's reason.
	reason string
	// message is for a person: what is wrong and what to do.
	message string
	// blocking stops the steps after this one, because they depend on it.
	blocking bool
	// retry is the error that makes the controller retry with back-off; nil when an informer
	// event will bring the next sync (a watched Secret or CRD appearing).
	retry error
}

func (e *stepError) Error() string {
	if e.retry != nil {
		return fmt.Sprintf("%s: %v", e.message, e.retry)
	}
	return e.message
}

func (e *stepError) Unwrap() error { return e.retry }

// waitingFor reports a step that cannot finish until something appears; the informers bring the
// next sync when it does, so this is progress, not an error.
func waitingFor(reason, format string, args ...any) *stepError {
	return &stepError{condition: operatorv1.OperatorStatusTypeProgressing, reason: reason, message: fmt.Sprintf(format, args...), blocking: true}
}

// missingDependency reports something the administrator must install; it blocks the later steps
// and is watched, so no retry loop is needed.
func missingDependency(reason, format string, args ...any) *stepError {
	return &stepError{condition: operatorv1.OperatorStatusTypeDegraded, reason: reason, message: fmt.Sprintf(format, args...), blocking: true}
}

// asStepError turns whatever a step returned into a stepError. Plain errors are API failures:
// the other steps still run, and the controller retries with back-off.
func asStepError(stepName string, err error) *stepError {
	var se *stepError
	if errors.As(err, &se) {
		return se
	}
	return &stepError{
		condition: operatorv1.OperatorStatusTypeDegraded,
		reason:    "ApplyFailed",
		message:   fmt.Sprintf("%s: %v", stepName, err),
		retry:     fmt.Errorf("%s: %w", stepName, err),
	}
}

// outcome collects the results of one sync's steps.
type outcome struct {
	errs []*stepError
}

func (o *outcome) add(e *stepError) { o.errs = append(o.errs, e) }

// first returns the first outcome that sets the given condition, and the messages of all of
// them joined, so one condition tells about every failed step.
func (o *outcome) first(condition string) (*stepError, string) {
	var first *stepError
	var messages []string
	for _, e := range o.errs {
		if e.condition != condition {
			continue
		}
		if first == nil {
			first = e
		}
		messages = append(messages, e.message)
	}
	return first, strings.Join(messages, "; ")
}

// retryError joins the errors that ask for a retry; nil when the sync needs none.
func (o *outcome) retryError() error {
	var errs []error
	for _, e := range o.errs {
		if e.retry != nil {
			errs = append(errs, e.retry)
		}
	}
	return errors.Join(errs...)
}
