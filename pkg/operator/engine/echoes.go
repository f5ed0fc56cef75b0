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
// delivers the same object (the same resourceVersion) as an event: the write's echo. The echo
// queued one more sync of the owner, which rendered and applied everything and found nothing to
// do. It was needed only because the caches lag behind the API: the sync that wrote the object,
// or another one before the echo, read the object from the informer as it was before the write
// (the status of a Gateway read its Deployment back right after creating it, and found none).
// So until the informer delivers a write, a read through the Caches gets the object as the
// write returned it; every sync then decides on what the echo would bring, and the echo queues
// nothing. The events of anyone else's writes (another resourceVersion) and deletes queue as
// before.
//
// The API server's watch usually delivers the echo before the client has the write's response
// (a local cluster measured it so for every write), so an event of an object being written is
// held until the write returns: dropped if it is that write's echo, passed on otherwise (and
// when the write fails or sends nothing).
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

// writtenObject is the operator's last write of one object, and the writes under way.
type writtenObject struct {
	resourceVersion string
	at              time.Time
	// obj is the object as the write returned it, until its informer holds that version (nil
	// since): reads get it rather than the older version, or the absence, the informer holds.
	obj runtime.Object
	// writing counts the writes of the object under way; held are the events of the object
	// that arrived meanwhile, each with the handler call it was held from.
	writing int
	held    []heldEvent
	// deleted is set when the informer deleted the object while a write was under way: that
	// write, whenever the API made it, must not answer reads.
	deleted bool
}

type heldEvent struct {
	resourceVersion string
	pass            func()
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

// Writing marks a write of one object as under way, and returns the function to call when it
// returns: with the object the write returned, or nil when it failed or sent nothing. The
// object is recorded in the form its informer caches (typed for a built-in kind), without its
// managedFields as every informer drops them; a transform that drops more (DropPodTemplate) is
// not applied: what it drops nobody reads, and the record holds the object for milliseconds.
// The caller must not change the object afterwards.
func (e *Echoes) Writing(gr schema.GroupResource, namespace, name string) (done func(written runtime.Object)) {
	if e == nil {
		return func(runtime.Object) {}
	}
	ref := objectRef{gr: gr, namespace: namespace, name: name}
	e.mu.Lock()
	if !e.tracked[gr] {
		e.mu.Unlock()
		return func(runtime.Object) {}
	}
	now := e.now()
	if now.Sub(e.lastSweep) > echoMemory {
		for r, w := range e.written {
			if w.writing == 0 && now.Sub(w.at) > echoMemory {
				delete(e.written, r)
			}
		}
		e.lastSweep = now
	}
	w, ok := e.written[ref]
	if !ok {
		w = &writtenObject{at: now}
		e.written[ref] = w
	}
	w.writing++
	e.mu.Unlock()
	return func(written runtime.Object) { e.wrote(ref, w, written) }
}

// wrote ends one write of ref: records what it returned, then drops the held events that are
// its echo and passes the others on.
func (e *Echoes) wrote(ref objectRef, w *writtenObject, written runtime.Object) {
	e.mu.Lock()
	if m, err := meta.Accessor(written); written != nil && err == nil && m.GetResourceVersion() != "" {
		m.SetManagedFields(nil)
		w.resourceVersion, w.at, w.obj = m.GetResourceVersion(), e.now(), written
	}
	w.writing--
	var pass []func()
	if w.writing == 0 {
		for _, h := range w.held {
			if h.resourceVersion != w.resourceVersion {
				pass = append(pass, h.pass)
			} else if w.obj != nil {
				w.obj = nil // the informer has it: no need to keep it twice
			}
		}
		w.held = nil
	}
	if w.deleted {
		w.obj = nil
	}
	if w.writing == 0 && (w.deleted || w.resourceVersion == "") && e.written[ref] == w {
		// Nothing to remember: no write was made (an apply with nothing to change, most
		// syncs), or the object is gone.
		delete(e.written, ref)
	}
	e.mu.Unlock()
	for _, f := range pass {
		f()
	}
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

// delivered takes an informer's add or update of obj, about to be passed on by pass: it says
// whether the event is the echo of the operator's last write of the object, or was held until
// the write under way returns (pass is then called, or not, by that write's end). Every handler
// of the informer asks about the same event and gets the same answer: the write's
// resourceVersion is kept.
func (e *Echoes) delivered(gr schema.GroupResource, obj any, pass func()) (echoOrHeld bool) {
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
	if w.writing > 0 {
		w.held = append(w.held, heldEvent{resourceVersion: m.GetResourceVersion(), pass: pass})
		return true
	}
	if w.resourceVersion == "" {
		return false
	}
	if !olderThan(ro, w.resourceVersion) {
		w.obj = nil
	}
	return w.resourceVersion == m.GetResourceVersion() && e.now().Sub(w.at) <= echoMemory
}

// forget drops the record of an object its informer deleted. Events held for a write under way
// stay held until it returns.
func (e *Echoes) forget(gr schema.GroupResource, obj any) {
	if e == nil {
		return
	}
	_, m, ok := ObjectOf(obj)
	if !ok {
		return
	}
	ref := objectRef{gr: gr, namespace: m.GetNamespace(), name: m.GetName()}
	e.mu.Lock()
	defer e.mu.Unlock()
	if w, ok := e.written[ref]; ok {
		w.obj = nil
		if w.writing == 0 {
			delete(e.written, ref)
		} else {
			w.deleted = true
		}
	}
}

// Skipping is handler without the adds and updates of gr's objects that are echoes of the
// operator's writes; an event of an object being written waits for the write to return. A
// delete forgets the write before it reaches handler.
func (e *Echoes) Skipping(gr schema.GroupResource, handler cache.ResourceEventHandler) cache.ResourceEventHandler {
	return cache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(obj any, isInInitialList bool) {
			if !e.delivered(gr, obj, func() { handler.OnAdd(obj, isInInitialList) }) {
				handler.OnAdd(obj, isInInitialList)
			}
		},
		UpdateFunc: func(oldObj, newObj any) {
			if !e.delivered(gr, newObj, func() { handler.OnUpdate(oldObj, newObj) }) {
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
