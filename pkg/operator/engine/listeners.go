package engine

import (
	"sync"

	"k8s.io/client-go/tools/cache"

	"github.com/openshift/library-go/pkg/controller/factory"
)

// Listeners give each informer one listener for every handler the operator's controllers add
// to it. client-go gives each handler its own listener: a ring buffer of 1,024 notifications
// allocated up front (16 KiB) and two goroutines, whatever the traffic. Six namespaced kinds,
// each watching its CRs, a dozen managed-by kinds and ten CRDs, and the LWS operand made about
// 230 listeners: 3.6 MiB of a 15 MiB heap before any CR existed (bench-anchors' heap profile),
// and their goroutines' stacks besides. The handlers only map an event to queue keys and add
// them to a work queue, so calling them one after the other from one listener loses nothing
// worth having.
type Listeners struct {
	mu   sync.Mutex
	outs map[cache.SharedInformer]*fanOut
}

// NewListeners returns an empty set; one is shared by every controller of the process.
func NewListeners() *Listeners {
	return &Listeners{outs: map[cache.SharedInformer]*fanOut{}}
}

// For is informer as controllers register on it: handlers added through it share one
// listener. A nil Listeners gives the informer itself (each handler its own listener).
func (l *Listeners) For(informer cache.SharedInformer) factory.Informer {
	if l == nil {
		return informer
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	out, ok := l.outs[informer]
	if !ok {
		out = &fanOut{informer: informer}
		l.outs[informer] = out
	}
	return out
}

// ForAll is For of each informer.
func (l *Listeners) ForAll(informers ...factory.Informer) []factory.Informer {
	out := make([]factory.Informer, len(informers))
	for i, informer := range informers {
		shared, ok := informer.(cache.SharedInformer)
		if !ok {
			out[i] = informer
			continue
		}
		out[i] = l.For(shared)
	}
	return out
}

// fanOut is one informer's listener, calling every handler added to it in turn.
type fanOut struct {
	informer cache.SharedInformer

	mu       sync.RWMutex
	handlers []cache.ResourceEventHandler
	// registration is the one listener's, nil until the first handler is added.
	registration cache.ResourceEventHandlerRegistration
}

// AddEventHandler adds handler to the informer's one listener, registered with the first. A
// handler added after that gets the informer's current objects as adds first, as client-go
// gives a handler added to a running informer: under the write lock, so no notification
// reaches the other handlers in between (one may reach it twice, which a queue absorbs).
func (f *fanOut) AddEventHandler(handler cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.registration == nil {
		registration, err := f.informer.AddEventHandler(cache.ResourceEventHandlerDetailedFuncs{
			AddFunc: func(obj any, isInInitialList bool) {
				for _, h := range f.current() {
					h.OnAdd(obj, isInInitialList)
				}
			},
			UpdateFunc: func(oldObj, newObj any) {
				for _, h := range f.current() {
					h.OnUpdate(oldObj, newObj)
				}
			},
			DeleteFunc: func(obj any) {
				for _, h := range f.current() {
					h.OnDelete(obj)
				}
			},
		})
		if err != nil {
			return nil, err
		}
		f.registration = registration
	} else {
		for _, obj := range f.informer.GetStore().List() {
			handler.OnAdd(obj, true)
		}
	}
	f.handlers = append(f.handlers, handler)
	return f.registration, nil
}

// current are the handlers to call: the slice is only ever appended to under the write lock,
// so the prefix read here does not change under the caller.
func (f *fanOut) current() []cache.ResourceEventHandler {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.handlers
}

// HasSynced says whether the informer has listed.
func (f *fanOut) HasSynced() bool { return f.informer.HasSynced() }
