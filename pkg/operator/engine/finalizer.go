package engine

import (
	"context"
	"fmt"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

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

// requeue syncs the run's CR again after the delay its steps asked for, if any.
func (c *Namespaced[T, S]) requeue(run *Run[T, S]) {
	if run.RequeueAfter > 0 {
		c.syncCtx.Queue().AddAfter(run.Key, run.RequeueAfter)
	}
}

// After asks for the CR to be synced again within d: what a kind whose state changes outside
// the cluster (a provider's allocation) needs, since no event announces it. The shortest of
// the delays asked for during one sync wins.
func (run *Run[T, S]) After(d time.Duration) {
	if d > 0 && (run.RequeueAfter == 0 || d < run.RequeueAfter) {
		run.RequeueAfter = d
	}
}
