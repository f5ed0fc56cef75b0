package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/tools/cache"
)

// ReferenceSource is where the operator learns of the objects CRs reference (a credentials
// Secret in any namespace, say): one informer of the resource in every namespace that keeps
// only each object's identity and resourceVersion (a metadata-only watch in the operator, see
// NewClusterReferenceSources), and a read of one object's content by name. So the watches are
// one per resource, whatever the number of CRs and references, and the operator holds the
// content only of the objects referenced, not of every Secret of the cluster.
//
// One source serves every controller that references the resource. Its informer starts when the
// first object is referenced, so an operator without such CRs opens no watch for it.
type ReferenceSource struct {
	gr       schema.GroupResource
	informer cache.SharedIndexInformer
	read     func(ctx context.Context, namespace, name string) (runtime.Object, error)
	start    sync.Once
}

// NewReferenceSource builds the source of gr from an informer of the resource in every
// namespace (not started: the source starts it when first needed) and a read of one object.
// The informer's objects are cut down to their identity (KeepIdentity).
func NewReferenceSource(gr schema.GroupResource, informer cache.SharedIndexInformer, read func(ctx context.Context, namespace, name string) (runtime.Object, error)) *ReferenceSource {
	_ = informer.SetTransform(KeepIdentity)
	return &ReferenceSource{gr: gr, informer: informer, read: read}
}

// run starts the informer once, for the life of ctx.
func (s *ReferenceSource) run(ctx context.Context) {
	s.start.Do(func() { go s.informer.Run(ctx.Done()) })
}

// KeepIdentity is the transform of a reference source's informer: of each object only its
// namespace, name, UID and resourceVersion are kept, which is all the source needs to say
// whether an object exists and whether the content it read is still current. A metadata-only
// watch still carries labels and annotations (kubectl's last-applied-configuration holds a whole
// Secret), and there is one entry per object of the cluster.
func KeepIdentity(obj any) (any, error) {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		return tombstone, nil
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return obj, nil
	}
	return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
		Namespace: m.GetNamespace(), Name: m.GetName(), UID: m.GetUID(), ResourceVersion: m.GetResourceVersion(),
	}}, nil
}

// ReferenceWatches follow exactly the objects that one controller's CRs reference, through
// the resource's ReferenceSource: an event of a referenced object queues the keys of the CRs
// that reference it, and Get returns the object's content, read once per resourceVersion and
// kept until no CR references it.
type ReferenceWatches struct {
	ctx    context.Context
	gr     schema.GroupResource
	source *ReferenceSource
	queue  func(key string)
	// syncTimeout bounds how long Set waits for the source's first list, so a sync sees a
	// newly referenced object without a second pass.
	syncTimeout time.Duration
	// reads merges concurrent reads of one object (two workers syncing CRs that share a
	// Secret) into one request.
	reads singleflight.Group

	mu         sync.Mutex
	watches    map[types.NamespacedName]*referenceWatch
	byReferrer map[string]sets.Set[types.NamespacedName]
}

type referenceWatch struct {
	referrers sets.Set[string]
	// content is the object as last read, nil before the first read.
	content runtime.Object
}

// NewReferenceWatches builds an empty set of watches over source; queue receives the keys of
// the CRs that reference an object that changed. Reads and the source's informer end with ctx.
// Its handler goes on the source's informer through listeners.
func NewReferenceWatches(ctx context.Context, source *ReferenceSource, listeners *Listeners, queue func(key string)) *ReferenceWatches {
	w := &ReferenceWatches{
		ctx:         ctx,
		gr:          source.gr,
		source:      source,
		queue:       queue,
		syncTimeout: 10 * time.Second,
		watches:     map[types.NamespacedName]*referenceWatch{},
		byReferrer:  map[string]sets.Set[types.NamespacedName]{},
	}
	_, _ = listeners.For(source.informer).AddEventHandler(QueueingHandler(w.referrersOf, queue))
	return w
}

// referrersOf are the keys of the CRs that reference obj (none for the many objects of the
// source that no CR references).
func (w *ReferenceWatches) referrersOf(obj any) []string {
	_, m, ok := ObjectOf(obj)
	if !ok {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	watch, ok := w.watches[types.NamespacedName{Namespace: m.GetNamespace(), Name: m.GetName()}]
	if !ok {
		return nil
	}
	return sets.List(watch.referrers)
}

// Set records that referrer (a CR's queue key) references exactly refs now; references it no
// longer makes are released. The first reference starts the source, and Set waits, within a
// bound, for its first list.
func (w *ReferenceWatches) Set(ctx context.Context, referrer string, refs ...types.NamespacedName) {
	want := sets.New(refs...)
	w.mu.Lock()
	old := w.byReferrer[referrer]
	for ref := range want {
		watch, ok := w.watches[ref]
		if !ok {
			watch = &referenceWatch{referrers: sets.New[string]()}
			w.watches[ref] = watch
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

	if want.Len() == 0 || w.source == nil {
		return
	}
	w.source.run(w.ctx)
	if w.source.informer.HasSynced() {
		return
	}
	waitCtx, cancel := context.WithTimeout(ctx, w.syncTimeout)
	defer cancel()
	cache.WaitForCacheSync(waitCtx.Done(), w.source.informer.HasSynced)
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

// Get returns a referenced object. It fails with NotFound when the object does not exist, with
// ErrNotSynced while the source has not listed yet (Set waits for that within a bound, so this
// is rare), with the read's error when reading the content failed, and with another error when
// the object is not referenced (Set was not called for it; a run without a cluster).
//
// The source says whether the object exists and which resourceVersion it has; the content is
// read from the API when that resourceVersion is not the one last read, so an object costs one
// read per change, and none while it stays as it is.
func (w *ReferenceWatches) Get(ref types.NamespacedName) (runtime.Object, error) {
	w.mu.Lock()
	watch, ok := w.watches[ref]
	var content runtime.Object
	if ok {
		content = watch.content
	}
	w.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("%s %s is not watched", w.gr, ref)
	}
	if !w.source.informer.HasSynced() {
		return nil, fmt.Errorf("the watch of %s %w", w.gr, ErrNotSynced)
	}
	current, exists, err := w.source.informer.GetStore().GetByKey(ref.Namespace + "/" + ref.Name)
	if err != nil {
		return nil, err
	}
	if !exists {
		return nil, apierrors.NewNotFound(w.gr, ref.Name)
	}
	if content != nil && resourceVersion(content) == resourceVersion(current) {
		return content, nil
	}
	read, err, _ := w.reads.Do(ref.String(), func() (any, error) {
		ctx, cancel := context.WithTimeout(w.ctx, 30*time.Second)
		defer cancel()
		return w.source.read(ctx, ref.Namespace, ref.Name)
	})
	if err != nil {
		return nil, err
	}
	obj := read.(runtime.Object)
	w.mu.Lock()
	// Keep what was read only while a CR still references it, and never replace a newer read.
	if watch, ok := w.watches[ref]; ok && (watch.content == nil || resourceVersion(watch.content) != resourceVersion(obj)) {
		watch.content = obj
	}
	w.mu.Unlock()
	return obj, nil
}

// resourceVersion of a cached object ("" when it has none).
func resourceVersion(obj any) string {
	m, err := meta.Accessor(obj)
	if err != nil {
		return ""
	}
	return m.GetResourceVersion()
}

// Find is Get for a reader that goes on without a missing object (the hashes of what the
// pods mount): nil when the object does not exist or is not watched (a run without a
// cluster); it fails while the source has not synced (ErrNotSynced), where "absent" would be a
// guess, and when reading the content failed.
func (w *ReferenceWatches) Find(ref types.NamespacedName) (runtime.Object, error) {
	obj, err := w.Get(ref)
	switch {
	case err == nil:
		return obj, nil
	case IsNotSynced(err):
		return nil, err
	case apierrors.IsNotFound(err) || w.notWatched(ref):
		return nil, nil
	default:
		return nil, err
	}
}

// FindAll is Find of each ref, for a reader that must not go on without some of them (a
// Deployment whose pods mount them: WaitForMountedSecrets): the objects that exist, and the
// refs that are watched and do not exist. A run without a cluster watches nothing, so it misses
// nothing. It fails as Find does.
func (w *ReferenceWatches) FindAll(refs []types.NamespacedName) (found []runtime.Object, missing []types.NamespacedName, err error) {
	for _, ref := range refs {
		obj, err := w.Get(ref)
		switch {
		case err == nil:
			found = append(found, obj)
		case IsNotSynced(err):
			return nil, nil, err
		case apierrors.IsNotFound(err):
			missing = append(missing, ref)
		case w.notWatched(ref):
		default:
			return nil, nil, err
		}
	}
	return found, missing, nil
}

// notWatched says whether no CR references ref.
func (w *ReferenceWatches) notWatched(ref types.NamespacedName) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, ok := w.watches[ref]
	return !ok
}

// Len is the number of objects referenced.
func (w *ReferenceWatches) Len() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.watches)
}

// release drops referrer from ref's watch and forgets the object when nobody references it;
// w.mu is held.
func (w *ReferenceWatches) release(ref types.NamespacedName, referrer string) {
	watch, ok := w.watches[ref]
	if !ok {
		return
	}
	watch.referrers.Delete(referrer)
	if watch.referrers.Len() == 0 {
		delete(w.watches, ref)
	}
}

// unwatched are the reference watches of a run without a cluster: nothing is watched, every
// Get fails.
func unwatched(gr schema.GroupResource) *ReferenceWatches {
	return &ReferenceWatches{gr: gr, watches: map[types.NamespacedName]*referenceWatch{}, byReferrer: map[string]sets.Set[types.NamespacedName]{}}
}
