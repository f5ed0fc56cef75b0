package operator

import (
	"context"
	"fmt"
	"sync"

	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/registry"
)

// onFirstObject runs gate (a watch of a kind's CRs) until it holds an object, then stops it and
// calls open once, in a goroutine of its own. A kind's controllers and informers cost memory
// and watches whether or not a CR of it exists (issue 19: before any CR, this operator held
// about twice the anchors' anonymous memory); the gate is what a kind costs until a user asks
// for it.
func onFirstObject(ctx context.Context, gate cache.SharedIndexInformer, open func()) error {
	ctx, stop := context.WithCancel(ctx)
	var once sync.Once
	if _, err := gate.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(any) {
		once.Do(func() {
			stop()
			go open()
		})
	}}); err != nil {
		stop()
		return err
	}
	go gate.Run(ctx.Done())
	return nil
}

// kindStarter starts one kind at a time: building a kind registers its informers in the shared
// factories and caches, and the factories' Start and WaitForCacheSync act on every informer
// registered so far.
type kindStarter struct {
	ctx context.Context
	mu  sync.Mutex
	// build starts a registration: its controllers, built with the registration's deps.
	build func(r registry.Registration) (*registry.Started, error)
	// factories are the shared informer factories, started after each build.
	factories []informerFactory
	// crdWatches are the CRD watches a registration needs (its own CRDs, its optional APIs').
	crdWatches func(r registry.Registration) []*engine.CRDWatch
	running    map[*engine.CRDWatch]bool
	// failed receives the error of a kind that could not start.
	failed chan error
}

// informerFactory is what the starter does with a shared informer factory.
type informerFactory struct {
	name  string
	start func(stop <-chan struct{})
	wait  func(stop <-chan struct{}) map[string]bool
}

// start builds r's controllers, starts what they watch, waits for those caches and runs the
// controllers. An error ends the operator (through failed): a kind that cannot be built is a
// broken build, as it was when every kind started at once.
func (s *kindStarter) start(r registry.Registration) {
	s.mu.Lock()
	err := s.startKind(r)
	s.mu.Unlock()
	if err != nil {
		s.failed <- fmt.Errorf("%s: %w", r.GVK.Kind, err)
	}
}

// startKind is start under the starter's lock.
func (s *kindStarter) startKind(r registry.Registration) error {
	started, err := s.build(r)
	if err != nil {
		return err
	}
	var hasSynced []cache.InformerSynced
	for _, w := range s.crdWatches(r) {
		if !s.running[w] {
			s.running[w] = true
			go w.Informer.Run(s.ctx.Done())
		}
		hasSynced = append(hasSynced, w.Informer.HasSynced)
	}
	for _, f := range s.factories {
		f.start(s.ctx.Done())
	}
	if started.Start != nil {
		started.Start(s.ctx.Done())
	}
	for _, informer := range started.Informers {
		hasSynced = append(hasSynced, informer.HasSynced)
	}
	// Controllers start only once every cache is filled, so the first sync sees the cluster
	// as it is and does not re-create what already exists.
	synced := map[string]map[string]bool{}
	for _, f := range s.factories {
		synced[f.name] = f.wait(s.ctx.Done())
	}
	if err := cachesSynced(s.ctx, synced, hasSynced); err != nil || s.ctx.Err() != nil {
		return err
	}
	engine.RegisterDegradedSource(r.Operand, started.Degraded)
	klog.Infof("Starting the controllers of %s: the first %s exists", r.Operand, r.GVK.Kind)
	for _, c := range started.Controllers {
		go c.Run(s.ctx, c.Workers)
	}
	return nil
}
