package engine

import (
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	"github.com/openshift/library-go/pkg/controller/factory"
)

// Echoes recognises the informer events that only bring back the operator's own writes.
//
// A sync that creates or updates an object gets the object back from the API, and its informer
// then delivers the same object (the same resourceVersion) as an event: the write's echo. The
// echo queued one more sync of the owner, which rendered and applied everything and found
// nothing to do. The sync that wrote the object knew all the echo carries, unless some sync
// read the object from the Caches after the write and before the informer had it, and so saw
// the object as it was before the write (or absent): that sync may have decided on the old
// state (a status saying the Deployment does not exist yet), and the echo's sync corrects it.
// So an echo is skipped only when no read through the Caches found the object behind the write;
// reads are recorded by Caches.Get, writes by the Applier.
//
// The record of a write is kept for echoMemory: an informer that delivers a write later than
// that (it was relisting, say) queues a sync as for any other event.
type Echoes struct {
	mu      sync.Mutex
	written map[objectRef]*writtenObject
	// now is the clock of echoMemory.
	now       func() time.Time
	lastSweep time.Time
}

// writtenObject is the operator's last write of one object.
type writtenObject struct {
	resourceVersion string
	at              time.Time
	// readBehind is set when a read through the Caches found the object older than this write
	// (or absent) before its informer delivered it.
	readBehind bool
}

// echoMemory is how long a write's record waits for its echo (normally milliseconds). It bounds
// the records to the writes of the last minute.
const echoMemory = time.Minute

// NewEchoes returns an empty record, one per process: the informers are shared by every
// operand, so a write by one kind's sync and its echo at another kind's handler meet here.
func NewEchoes() *Echoes {
	return &Echoes{written: map[objectRef]*writtenObject{}, now: time.Now}
}

// Wrote records the object a write returned. A nil Echoes records nothing.
func (e *Echoes) Wrote(gr schema.GroupResource, obj metav1.Object) {
	if e == nil || obj == nil || obj.GetResourceVersion() == "" {
		return
	}
	now := e.now()
	e.mu.Lock()
	defer e.mu.Unlock()
	if now.Sub(e.lastSweep) > echoMemory {
		for ref, w := range e.written {
			if now.Sub(w.at) > echoMemory {
				delete(e.written, ref)
			}
		}
		e.lastSweep = now
	}
	e.written[objectRef{gr: gr, namespace: obj.GetNamespace(), name: obj.GetName()}] = &writtenObject{resourceVersion: obj.GetResourceVersion(), at: now}
}

// read records what a read through the Caches found: nil for an object they do not hold.
func (e *Echoes) read(gr schema.GroupResource, namespace, name string, found metav1.Object) {
	if e == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	w, ok := e.written[objectRef{gr: gr, namespace: namespace, name: name}]
	if !ok || w.readBehind {
		return
	}
	if found == nil || found.GetResourceVersion() != w.resourceVersion {
		w.readBehind = true
	}
}

// IsEcho says whether obj, as an informer of gr delivers it, is the operator's own last write
// of it that no read found the caches behind. It does not forget the write: every handler of
// the informer asks about the same event.
func (e *Echoes) IsEcho(gr schema.GroupResource, obj any) bool {
	if e == nil {
		return false
	}
	_, m, ok := ObjectOf(obj)
	if !ok {
		return false
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	w, ok := e.written[objectRef{gr: gr, namespace: m.GetNamespace(), name: m.GetName()}]
	return ok && !w.readBehind && w.resourceVersion == m.GetResourceVersion() && e.now().Sub(w.at) <= echoMemory
}

// Skipping is handler without the adds and updates of gr's objects that are echoes. Deletes
// always pass: the operator's deletes are not recorded.
func (e *Echoes) Skipping(gr schema.GroupResource, handler cache.ResourceEventHandler) cache.ResourceEventHandler {
	return cache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(obj any, isInInitialList bool) {
			if !e.IsEcho(gr, obj) {
				handler.OnAdd(obj, isInInitialList)
			}
		},
		UpdateFunc: func(oldObj, newObj any) {
			if !e.IsEcho(gr, newObj) {
				handler.OnUpdate(oldObj, newObj)
			}
		},
		DeleteFunc: handler.OnDelete,
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
