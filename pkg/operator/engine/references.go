package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/tools/cache"
)

// ReferenceWatches watch exactly the objects that CRs reference (a credentials Secret in any
// namespace, say): one informer per referenced object, selected by namespace and name, so the
// operator caches those objects and not every Secret of the cluster. Each watch knows which
// CRs reference it: an event of the object queues their keys, and a watch that no CR
// references any more is stopped.
type ReferenceWatches struct {
	ctx context.Context
	gr  schema.GroupResource
	// newInformer builds the informer of one object (a field selector on its name, in its
	// namespace).
	newInformer func(namespace, name string) cache.SharedIndexInformer
	queue       func(key string)
	// syncTimeout bounds how long Set waits for a new watch's first list, so a sync sees a
	// newly referenced object without a second pass.
	syncTimeout time.Duration

	mu         sync.Mutex
	watches    map[types.NamespacedName]*referenceWatch
	byReferrer map[string]sets.Set[types.NamespacedName]
}

type referenceWatch struct {
	informer  cache.SharedIndexInformer
	stop      context.CancelFunc
	referrers sets.Set[string]
}

// NewReferenceWatches builds an empty set of watches of one group-resource; queue receives the
// keys of the CRs that reference an object that changed.
// Watches end with ctx.
func NewReferenceWatches(ctx context.Context, gr schema.GroupResource, newInformer func(namespace, name string) cache.SharedIndexInformer, queue func(key string)) *ReferenceWatches {
	return &ReferenceWatches{
		ctx:         ctx,
		gr:          gr,
		newInformer: newInformer,
		queue:       queue,
		syncTimeout: 10 * time.Second,
		watches:     map[types.NamespacedName]*referenceWatch{},
		byReferrer:  map[string]sets.Set[types.NamespacedName]{},
	}
}

// Set records that referrer (a CR's queue key) references exactly refs now: watches of new
// references start (Set waits, within a bound, for their first list), and references it no
// longer makes are released.
func (w *ReferenceWatches) Set(ctx context.Context, referrer string, refs ...types.NamespacedName) {
	want := sets.New(refs...)
	var started []cache.SharedIndexInformer
	w.mu.Lock()
	old := w.byReferrer[referrer]
	for ref := range want {
		watch, ok := w.watches[ref]
		if !ok {
			watch = w.start(ref)
		}
		if !watch.informer.HasSynced() {
			// A watch another CR started a moment ago may still be listing: wait for it
			// too, or this CR's sync would read nothing from it (see ErrNotSynced).
			started = append(started, watch.informer)
		}
		watch.referrers.Insert(referrer)
	}
	for ref := range old.Difference(want) {
		w.release(ref, referrer)
	}
	if want.Len() == 0 {
		delete(w.byReferrer, referrer)
	} else {
		w.byReferrer[referrer] = want
	}
	w.mu.Unlock()

	if len(started) == 0 {
		return
	}
	waitCtx, cancel := context.WithTimeout(ctx, w.syncTimeout)
	defer cancel()
	synced := make([]cache.InformerSynced, 0, len(started))
	for _, inf := range started {
		synced = append(synced, inf.HasSynced)
	}
	cache.WaitForCacheSync(waitCtx.Done(), synced...)
}

// Forget releases every reference of a referrer (its CR is gone).
func (w *ReferenceWatches) Forget(referrer string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for ref := range w.byReferrer[referrer] {
		w.release(ref, referrer)
	}
	delete(w.byReferrer, referrer)
}

// ErrNotSynced is the error of a read from a watch that has not listed yet: the object may
// well exist. A sync that meets it must not act on "absent" (apply a Deployment without the
// hash of a Secret it mounts, report the Secret missing): it is postponed (Postponed) and
// retried, without a status write.
var ErrNotSynced = errors.New("has not synced yet")

// IsNotSynced says whether err comes from a watch that has not synced yet.
func IsNotSynced(err error) bool { return errors.Is(err, ErrNotSynced) }

// Get returns a referenced object from its watch. It fails with NotFound when the object does
// not exist, with ErrNotSynced while its watch has not listed it yet (Set waits for that
// within a bound, so this is rare), and with another error when it is not watched (Set was
// not called for it; a run without a cluster).
func (w *ReferenceWatches) Get(ref types.NamespacedName) (runtime.Object, error) {
	w.mu.Lock()
	watch, ok := w.watches[ref]
	w.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("%s %s is not watched", w.gr, ref)
	}
	if !watch.informer.HasSynced() {
		return nil, fmt.Errorf("the watch of %s %s %w", w.gr, ref, ErrNotSynced)
	}
	obj, exists, err := watch.informer.GetStore().GetByKey(ref.Namespace + "/" + ref.Name)
	if err != nil {
		return nil, err
	}
	if !exists {
		return nil, apierrors.NewNotFound(w.gr, ref.Name)
	}
	return obj.(runtime.Object), nil
}

// Find is Get for a reader that goes on without a missing object (the hashes of what the
// pods mount): nil when the object does not exist or is not watched (a run without a
// cluster); it fails only while the watch has not synced (ErrNotSynced), where "absent" would
// be a guess.
func (w *ReferenceWatches) Find(ref types.NamespacedName) (runtime.Object, error) {
	obj, err := w.Get(ref)
	if IsNotSynced(err) {
		return nil, err
	}
	if err != nil {
		return nil, nil
	}
	return obj, nil
}

// Len is the number of objects watched.
func (w *ReferenceWatches) Len() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.watches)
}

// start begins watching ref; w.mu is held.
func (w *ReferenceWatches) start(ref types.NamespacedName) *referenceWatch {
	informer := w.newInformer(ref.Namespace, ref.Name)
	_ = informer.SetTransform(DropManagedFields)
	watch := &referenceWatch{informer: informer, referrers: sets.New[string]()}
	_, _ = informer.AddEventHandler(QueueingHandler(func(any) []string {
		w.mu.Lock()
		defer w.mu.Unlock()
		return sets.List(watch.referrers)
	}, w.queue))
	ctx, cancel := context.WithCancel(w.ctx)
	watch.stop = cancel
	go informer.Run(ctx.Done())
	w.watches[ref] = watch
	return watch
}

// release drops referrer from ref's watch and stops the watch when nobody references it; w.mu
// is held.
func (w *ReferenceWatches) release(ref types.NamespacedName, referrer string) {
	watch, ok := w.watches[ref]
	if !ok {
		return
	}
	watch.referrers.Delete(referrer)
	if watch.referrers.Len() == 0 {
		watch.stop()
		delete(w.watches, ref)
	}
}

// SingleObjectListOptions narrows a list/watch to one object by name.
func SingleObjectListOptions(name string) func(*metav1.ListOptions) {
	return func(o *metav1.ListOptions) { o.FieldSelector = "metadata.name=" + name }
}

// unwatched are the reference watches of a run without a cluster: nothing is watched, every
// Get fails.
func unwatched(gr schema.GroupResource) *ReferenceWatches {
	return &ReferenceWatches{gr: gr, watches: map[types.NamespacedName]*referenceWatch{}, byReferrer: map[string]sets.Set[types.NamespacedName]{}}
}
