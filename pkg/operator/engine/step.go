package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Step is one row of an operand's reconcile table: a named piece of the operand, the embedded
// manifests of the objects it owns, and how it is applied and removed. Applying walks the table
// forwards; removal walks the same table backwards.
type Step[R any] struct {
	// Name says what the step manages; it appears in conditions and events.
	Name string
	// Assets are the embedded manifests of the objects this step owns.
	Assets []string
	// Apply makes the step's objects match the CR. Nil applies every asset with the run's
	// ApplyAsset.
	Apply func(ctx context.Context, run R, assets []string) error
	// Remove undoes the step, for an operand that walks its table backwards (WalkBackward).
	// Nil removes every asset with the run's RemoveAsset, last first.
	Remove func(ctx context.Context, run R, assets []string) error
}

// AssetApplier is what the default apply of a step needs from an operand's sync.
type AssetApplier interface {
	// ApplyAsset renders one embedded manifest for the CR and applies it (or, where the CR
	// does not ask for the object, deletes it if the operator made it).
	ApplyAsset(ctx context.Context, asset string) error
}

// AssetRun is what an operand that walks its table backwards too (removal on managementState
// Removed, a finalizer) needs from its sync. Operands whose objects go by garbage collection
// never walk backwards and need only AssetApplier.
type AssetRun interface {
	AssetApplier
	// RemoveAsset deletes the object of one embedded manifest, if the operator made it.
	RemoveAsset(ctx context.Context, asset string) error
}

// Direction is the way a walk goes through the table.
type Direction int

const (
	// Forward applies the operand, first step first.
	Forward Direction = iota
	// Backward removes the operand, last step first.
	Backward
)

// Walk applies the table, first step first, and collects the steps' outcomes: a failing step
// is recorded and the next steps still run, unless it blocks them (their prerequisites are
// missing).
func Walk[R AssetApplier](ctx context.Context, steps []Step[R], run R) *Outcome {
	return walk(ctx, steps, Forward, func(s Step[R]) error {
		if s.Apply != nil {
			return s.Apply(ctx, run, s.Assets)
		}
		return ApplyAssets(ctx, run, s.Assets)
	})
}

// WalkBackward removes the operand, last step first. Every step runs: removal does as much as
// it can and reports what it could not do.
func WalkBackward[R AssetRun](ctx context.Context, steps []Step[R], run R) *Outcome {
	return walk(ctx, steps, Backward, func(s Step[R]) error {
		if s.Remove != nil {
			return s.Remove(ctx, run, s.Assets)
		}
		return RemoveAssets(ctx, run, s.Assets)
	})
}

// walk runs every step of the table in the given direction and collects their outcomes.
func walk[R any](ctx context.Context, steps []Step[R], dir Direction, run func(Step[R]) error) *Outcome {
	result := &Outcome{}
	for i := range steps {
		s := steps[i]
		if dir == Backward {
			s = steps[len(steps)-1-i]
		}
		if err := run(s); err != nil {
			var se *StepError
			if dir == Backward {
				se = &StepError{
					Condition: ConditionDegraded,
					Reason:    ReasonRemovalFailed,
					Message:   fmt.Sprintf("remove %s: %v", s.Name, err),
					Retry:     fmt.Errorf("remove %s: %w", s.Name, err),
				}
			} else {
				se = AsStepError(s.Name, ReasonApplyFailed, err)
			}
			// Every step's outcome passes here, named, before it becomes a condition.
			countStepFailure(ctx, s.Name, se)
			result.Add(se)
			if dir == Forward && se.Blocking {
				break
			}
		}
	}
	return result
}

// ApplyAssets applies every asset in order, each whatever happened to the others, and
// returns their failures merged (MergeErrors).
func ApplyAssets[R AssetApplier](ctx context.Context, run R, assets []string) error {
	var errs []error
	for _, asset := range assets {
		if err := run.ApplyAsset(ctx, asset); err != nil {
			errs = append(errs, err)
		}
	}
	return MergeErrors(errs)
}

// MergeErrors merges the failures of one step: outcomes of the same condition and reason
// become one outcome whose message names every object (three monitors whose CRDs are missing
// are one problem), anything else becomes one plain error with every message.
func MergeErrors(errs []error) error {
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errs[0]
	}
	for _, err := range errs {
		if IsNotSynced(err) {
			// The whole step waits for the watch; the other failures come back on the retry.
			return err
		}
	}
	messages := make([]string, len(errs))
	var merged *StepError
	same := true
	for i, err := range errs {
		messages[i] = err.Error()
		var se *StepError
		if !errors.As(err, &se) {
			same = false
			continue
		}
		if merged == nil {
			copied := *se
			merged = &copied
		} else if se.Condition != merged.Condition || se.Reason != merged.Reason {
			same = false
		} else {
			merged.Message += "; " + se.Message
			merged.Blocking = merged.Blocking || se.Blocking
			merged.Retry = errors.Join(merged.Retry, se.Retry)
		}
	}
	if same {
		return merged
	}
	return errors.New(strings.Join(messages, "; "))
}

// RemoveAssets removes every asset, last first, and stops at the first failure.
func RemoveAssets[R AssetRun](ctx context.Context, run R, assets []string) error {
	for i := len(assets) - 1; i >= 0; i-- {
		if err := run.RemoveAsset(ctx, assets[i]); err != nil {
			return err
		}
	}
	return nil
}

// NothingToRemove is the removal of a step that creates nothing itself.
func NothingToRemove[R AssetRun](context.Context, R, []string) error { return nil }

// AllAssets lists the assets of a table in step order: the operand's one list of manifests,
// for code, tests, e2e and benchmarks alike.
func AllAssets[R any](steps []Step[R]) []string {
	var out []string
	for _, s := range steps {
		out = append(out, s.Assets...)
	}
	return out
}
