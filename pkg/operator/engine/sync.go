package engine

import (
	"context"
	"fmt"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/openshift/library-go/pkg/controller/factory"
)

// ReasonValidationFailed is the reason of a CR whose spec breaks its kind's Validate.
const ReasonValidationFailed = "ValidationFailed"

// sync reconciles one CR: validate, walk the table, write the status.
func (c *Namespaced[T, S]) sync(ctx context.Context, _ factory.SyncContext, key string) error {
	obj, exists, err := c.crs.GetByKey(key)
	if err != nil {
		return err
	}
	cr, ok := obj.(T)
	if ok && exists && cr.GetDeletionTimestamp() != nil && c.kind.Finalizer != "" && c.kind.hasFinalizer(cr) {
		return c.finalize(ctx, cr, key)
	}
	if !exists || !ok || cr.GetDeletionTimestamp() != nil {
		// Garbage collection deletes what the CR owns; only its watches are left to release.
		c.forget(key)
		return nil
	}
	if c.kind.Finalizer != "" && !c.kind.hasFinalizer(cr) {
		// The update's event brings the sync that walks the table.
		return c.setFinalizer(ctx, cr, true)
	}
	run := c.newRun(cr.DeepCopyObject().(T), key)
	result := c.reconcile(ctx, run)
	if result.Postponed() {
		// The status would say what a watch that has not listed yet cannot tell.
		return result.RetryError()
	}
	if err := c.writeStatus(ctx, run, result); err != nil {
		return err
	}
	c.requeue(run)
	return result.RetryError()
}

// newRun prepares the sync of one CR (a copy the sync may change).
func (c *Namespaced[T, S]) newRun(cr T, key string) *Run[T, S] {
	recorder := c.events(c.kind.GVK, cr)
	run := &Run[T, S]{
		CR:       cr,
		Key:      key,
		Recorder: recorder,
		Applier: Applier{
			Clients:  c.clients,
			Cache:    c.cache,
			Recorder: recorder,
			Adopt:    ControlledBy(cr),
			// Annotations rendered from a CR's spec: one taken out of the spec is removed.
			TrackAnnotations: true,
		},
		Stamp:       c.kind.stamp(cr),
		Rendered:    map[string]Rendered{},
		Applied:     map[string]*appsv1.Deployment{},
		kind:        c.kind,
		platform:    c.platform,
		assets:      c.assets,
		optional:    c.optional,
		references:  c.references,
		generations: c.generations,
	}
	run.State = c.kind.NewState(cr)
	return run
}

// forget releases what a CR that is gone referenced.
func (c *Namespaced[T, S]) forget(key string) {
	for _, w := range c.references {
		w.Forget(key)
	}
	c.generations.forget(key)
}

// reconcile validates the CR and walks the table. An invalid spec (stored before the CRD's
// rules existed, or a rule CEL cannot express) changes nothing: what runs keeps running.
func (c *Namespaced[T, S]) reconcile(ctx context.Context, run *Run[T, S]) *Outcome {
	result := &Outcome{}
	if c.kind.Validate != nil {
		if errs := c.kind.Validate(run.CR); len(errs) > 0 {
			reason := ReasonValidationFailed
			if c.kind.InvalidReason != nil {
				reason = c.kind.InvalidReason(errs)
			}
			run.Invalid = MissingDependency(reason, "the spec is invalid, nothing was changed: %v", errs.ToAggregate())
			result.Add(run.Invalid)
			return result
		}
	}
	if c.kind.Precondition != nil {
		if se := c.kind.Precondition(run); se != nil {
			result.Add(se)
			return result
		}
	}
	return Walk(ctx, c.steps, run)
}

// writeStatus writes the status once per sync, and only when it changed; the transitions of
// its conditions become events on the CR.
func (c *Namespaced[T, S]) writeStatus(ctx context.Context, run *Run[T, S], result *Outcome) error {
	updated := run.CR.DeepCopyObject().(T)
	c.kind.Status(run, result, updated)
	if equality.Semantic.DeepEqual(updated, run.CR) {
		return nil
	}
	policy := c.kind.Events
	if policy == nil {
		policy = AvailabilityEvents
	}
	ReportTransitions(run.Recorder, policy, c.kind.Conditions(run.CR), c.kind.Conditions(updated))
	written, err := c.kind.Client(run.CR.GetNamespace()).UpdateStatus(ctx, updated, metav1.UpdateOptions{})
	if err != nil {
		return fmt.Errorf("update status of %s %s: %w", c.kind.GVK.Kind, run.Key, err)
	}
	c.wrote(written)
	return nil
}

// crWriteMemory is how long the controller remembers a CR it wrote, for the informer to
// deliver the write (normally milliseconds).
const crWriteMemory = time.Minute

// wrote remembers a CR as this controller wrote it (see Namespaced.crs).
func (c *Namespaced[T, S]) wrote(cr T) {
	if c.crs == nil || any(cr) == nil {
		return
	}
	m, err := meta.Accessor(cr)
	if err != nil || m.GetResourceVersion() == "" {
		return
	}
	m.SetManagedFields(nil)
	c.crs.Mutation(cr)
}

// requeue syncs the run's CR again after the delay its steps asked for, if any.
func (c *Namespaced[T, S]) requeue(run *Run[T, S]) {
	if run.RequeueAfter > 0 {
		c.syncCtx.Queue().AddAfter(run.Key, run.RequeueAfter)
	}
}

// Updater writes a CR's metadata (its finalizers). The generated typed client of the kind in one
// namespace satisfies it.
type Updater[T Object] interface {
	Update(ctx context.Context, cr T, opts metav1.UpdateOptions) (T, error)
}

// A kind whose CRs hold something outside the cluster (a GPU leased from a provider) keeps a
// finalizer on them: the engine adds Kind.Finalizer before a CR's first sync walks the table,
// and on a deleted CR calls Kind.Finalize (no render, nothing applied) until it says the CR may
// go, writing the status after each call; then it removes the finalizer. Garbage collection
// deletes the CR's objects afterwards, as for any other kind.

// hasFinalizer says whether cr carries the kind's finalizer.
func (k *Kind[T, S]) hasFinalizer(cr T) bool {
	return slices.Contains(cr.GetFinalizers(), k.Finalizer)
}

// setFinalizer adds (on) or removes the kind's finalizer with an update of the CR.
func (c *Namespaced[T, S]) setFinalizer(ctx context.Context, cr T, on bool) error {
	updated := cr.DeepCopyObject().(T)
	finalizers := slices.DeleteFunc(slices.Clone(updated.GetFinalizers()), func(f string) bool { return f == c.kind.Finalizer })
	if on {
		finalizers = append(finalizers, c.kind.Finalizer)
	}
	updated.SetFinalizers(finalizers)
	written, err := c.kind.Update(cr.GetNamespace()).Update(ctx, updated, metav1.UpdateOptions{})
	if err != nil {
		return fmt.Errorf("update the finalizers of %s %s/%s: %w", c.kind.GVK.Kind, cr.GetNamespace(), cr.GetName(), err)
	}
	c.wrote(written)
	return nil
}

// finalize is the sync of a deleted CR that still has the kind's finalizer.
func (c *Namespaced[T, S]) finalize(ctx context.Context, cr T, key string) error {
	run := c.newRun(cr.DeepCopyObject().(T), key)
	done, err := c.kind.Finalize(ctx, run)
	if werr := c.writeStatus(ctx, run, &Outcome{}); werr != nil {
		return werr
	}
	if err != nil {
		return err
	}
	if !done {
		c.requeue(run)
		return nil
	}
	if err := c.setFinalizer(ctx, cr, false); err != nil {
		return err
	}
	c.forget(key)
	return nil
}

// Sync reconciles the CR of one queue key, as a worker does: for tests that drive the
// controller one sync at a time.
func (c *Namespaced[T, S]) Sync(ctx context.Context, key string) error {
	return c.sync(WithOperand(ctx, c.kind.Operand), nil, key)
}

// NewRun prepares the sync of cr without running it: for tests of single steps.
func (c *Namespaced[T, S]) NewRun(cr T) *Run[T, S] {
	key, _ := cache.MetaNamespaceKeyFunc(cr)
	return c.newRun(cr, key)
}
