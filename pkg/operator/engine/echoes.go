package engine

import (
	"strconv"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	"github.com/openshift/library-go/pkg/controller/factory"
)

// Echoes lets the caches answer with the operator's own writes, and recognises the informer
// events that only bring those writes back.
//
// A sync that creates or updates an object gets the object back from the API, and its informer
// then delivers the same object (the same resourceVersion) as an event: the write's echo. The
// echo queued one more sync of the owner, which rendered and applied everything and found
// nothing to do. It was needed only because the caches lag behind the API: the sync that wrote
// the object, or another one before the echo, read the object from the informer as it was
// before the write (the status of a Gateway read its Deployment back right after creating it,
// and found none). So until the informer delivers a write, a read through the Caches gets the
// object as the write returned it; every sync then decides on what the echo would bring, and
// the echo queues nothing. The events of anyone else's writes (a newer resourceVersion) and
// deletes queue as before.
//
// Only the group-resources whose informers deliver their events through Skipping are recorded
// (RegisterInformers tracks them): a delete forgets the write there, so that a read never
// answers with an object that is gone. A write is remembered for echoMemory at most: an
// informer that never delivers it (it relisted past a create and a delete) then answers again.
type Echoes struct {
	mu      sync.Mutex
	tracked map[schema.GroupResource]bool
	written map[objectRef]*writtenObject
	// now is the clock of echoMemory.
	now       func() time.Time
	lastSweep time.Time
}

// writtenObject is the operator's last write of one object.
type writtenObject struct {
	resourceVersion string
	at              time.Time
	// obj is the object as the write returned it, until its informer holds that version (nil
	// since): reads get it rather than the older version, or the absence, the informer holds.
	obj runtime.Object
}

// echoMemory is how long a write is remembered (its echo normally comes within milliseconds).
// It bounds the record to the writes of the last minute.
const echoMemory = time.Minute

// NewEchoes returns an empty record, one per process: the informers are shared by every
// operand, so a write by one kind's sync and its echo at another kind's handler meet here.
func NewEchoes() *Echoes {
	return &Echoes{tracked: map[schema.GroupResource]bool{}, written: map[objectRef]*writtenObject{}, now: time.Now}
}

// track records the writes of gr from now on: its informers deliver their events through
// Skipping.
func (e *Echoes) track(gr schema.GroupResource) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.tracked[gr] = true
}

// Wrote records the object a write returned, in the form its informer caches (typed for a
// built-in kind), without its managedFields as every informer drops them. A transform that
// drops more (DropPodTemplate) is not applied: what it drops nobody reads, and the record holds
// the object for milliseconds. The caller must not change obj afterwards.
func (e *Echoes) Wrote(gr schema.GroupResource, obj runtime.Object) {
	if e == nil || obj == nil {
		return
	}
	m, err := meta.Accessor(obj)
	if err != nil || m.GetResourceVersion() == "" {
		return
	}
	m.SetManagedFields(nil)
	now := e.now()
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.tracked[gr] {
		return
	}
	if now.Sub(e.lastSweep) > echoMemory {
		for ref, w := range e.written {
			if now.Sub(w.at) > echoMemory {
				delete(e.written, ref)
			}
		}
		e.lastSweep = now
	}
	e.written[objectRef{gr: gr, namespace: m.GetNamespace(), name: m.GetName()}] = &writtenObject{resourceVersion: m.GetResourceVersion(), at: now, obj: obj}
}

// newer is what a read through the Caches answers: the object an informer holds (or its
// NotFound), unless the operator wrote a newer version that the informer has not delivered yet.
func (e *Echoes) newer(gr schema.GroupResource, namespace, name string, cached runtime.Object, err error) (runtime.Object, error) {
	if e == nil || (err != nil && !apierrors.IsNotFound(err)) {
		return cached, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	w, ok := e.written[objectRef{gr: gr, namespace: namespace, name: name}]
	if !ok || w.obj == nil || e.now().Sub(w.at) > echoMemory {
		return cached, err
	}
	if err == nil && !olderThan(cached, w.resourceVersion) {
		w.obj = nil // the informer has it: no need to keep it twice
		return cached, nil
	}
	return w.obj, nil
}

// olderThan says whether obj's resourceVersion is below resourceVersion. resourceVersions are
// opaque to clients, but the API server's are etcd revisions, which client-go's mutation cache
// compares as integers too; one that is not an integer is taken for current.
func olderThan(obj runtime.Object, resourceVersion string) bool {
	m, err := meta.Accessor(obj)
	if err != nil {
		return false
	}
	have, err := strconv.ParseUint(m.GetResourceVersion(), 10, 64)
	if err != nil {
		return false
	}
	want, err := strconv.ParseUint(resourceVersion, 10, 64)
	return err == nil && have < want
}

// delivered takes note of an informer's add or update of obj and says whether it is the echo of
// the operator's last write of it. Every handler of the informer asks about the same event and
// gets the same answer: the write's resourceVersion is kept.
func (e *Echoes) delivered(gr schema.GroupResource, obj any) bool {
	if e == nil {
		return false
	}
	ro, m, ok := ObjectOf(obj)
	if !ok {
		return false
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	w, ok := e.written[objectRef{gr: gr, namespace: m.GetNamespace(), name: m.GetName()}]
	if !ok {
		return false
	}
	if !olderThan(ro, w.resourceVersion) {
		w.obj = nil
	}
	return w.resourceVersion == m.GetResourceVersion() && e.now().Sub(w.at) <= echoMemory
}

// forget drops the record of an object its informer deleted.
func (e *Echoes) forget(gr schema.GroupResource, obj any) {
	if e == nil {
		return
	}
	_, m, ok := ObjectOf(obj)
	if !ok {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.written, objectRef{gr: gr, namespace: m.GetNamespace(), name: m.GetName()})
}

// Skipping is handler without the adds and updates of gr's objects that are echoes of the
// operator's writes. A delete forgets the write before it reaches handler.
func (e *Echoes) Skipping(gr schema.GroupResource, handler cache.ResourceEventHandler) cache.ResourceEventHandler {
	return cache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(obj any, isInInitialList bool) {
			if !e.delivered(gr, obj) {
				handler.OnAdd(obj, isInInitialList)
			}
		},
		UpdateFunc: func(oldObj, newObj any) {
			if !e.delivered(gr, newObj) {
				handler.OnUpdate(oldObj, newObj)
			}
		},
		DeleteFunc: func(obj any) {
			e.forget(gr, obj)
			handler.OnDelete(obj)
		},
	}
}

// echoSkippingInformer is an informer of one group-resource as a controller registers on it:
// every handler added gets the informer's events without the echoes of the operator's writes.
type echoSkippingInformer struct {
	gr       schema.GroupResource
	informer factory.Informer
	echoes   *Echoes
}

func (i echoSkippingInformer) AddEventHandler(handler cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
	return i.informer.AddEventHandler(i.echoes.Skipping(i.gr, handler))
}

func (i echoSkippingInformer) HasSynced() bool { return i.informer.HasSynced() }
