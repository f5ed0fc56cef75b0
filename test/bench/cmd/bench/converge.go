package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
)

// Waiting for a scale scenario's CRs to converge watches them (one informer per kind, on the
// scale label) instead of listing them every half second: a list of 1,000 CRs every 500 ms is
// itself load on the apiserver the operator shares, and its latency blurred the time measured.
// The bench's watches are the admin's, never counted as the operator's.

// convergeTracker counts, per kind, the CRs whose condition is True, from watch events.
type convergeTracker struct {
	mu sync.Mutex
	// want is the number of CRs of each kind; done the keys of those converged; reasons the
	// condition's reason of each CR not converged (for the message of a timeout).
	want    map[*scaleKind]int
	done    map[*scaleKind]map[string]bool
	reasons map[*scaleKind]map[string]string
	// seen is when each kind was first seen with all its CRs converged.
	seen    map[*scaleKind]time.Time
	changed chan struct{}
}

func newConvergeTracker(s *scaleScenario) *convergeTracker {
	t := &convergeTracker{
		want: map[*scaleKind]int{}, done: map[*scaleKind]map[string]bool{}, reasons: map[*scaleKind]map[string]string{},
		seen: map[*scaleKind]time.Time{}, changed: make(chan struct{}, 1),
	}
	for i, k := range s.kinds {
		t.want[k] = s.counts[i]
		t.done[k] = map[string]bool{}
		t.reasons[k] = map[string]string{}
	}
	return t
}

// observe records one CR's state (nil after its deletion).
func (t *convergeTracker) observe(k *scaleKind, key string, cr *unstructured.Unstructured) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if cr != nil && k.isConverged(cr) {
		t.done[k][key] = true
		delete(t.reasons[k], key)
	} else {
		delete(t.done[k], key)
		if cr != nil {
			t.reasons[k][key] = conditionReason(cr, k.condition)
		} else {
			delete(t.reasons[k], key)
		}
	}
	if t.seen[k].IsZero() && len(t.done[k]) >= t.want[k] {
		t.seen[k] = time.Now()
	}
	select {
	case t.changed <- struct{}{}:
	default:
	}
}

// complete says whether every kind has been seen converged.
func (t *convergeTracker) complete() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.seen) == len(t.want)
}

// pending counts the CRs not converged, by kind and reason.
func (t *convergeTracker) pending() map[string]int {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := map[string]int{}
	for k, want := range t.want {
		if !t.seen[k].IsZero() {
			continue
		}
		for _, r := range t.reasons[k] {
			out[k.kind+" "+r]++
		}
		if missing := want - len(t.done[k]) - len(t.reasons[k]); missing > 0 {
			out[k.kind+" (not seen yet)"] += missing
		}
	}
	return out
}

// watchConverged starts one informer per kind of the scenario (the scale label) and returns
// the tracker they feed and a function that stops them. Start it before the CRs are created,
// so no transition is missed.
func (b *bench) watchConverged(ctx context.Context, s *scaleScenario) (*convergeTracker, func(), error) {
	t := newConvergeTracker(s)
	ctx, cancel := context.WithCancel(ctx)
	labeled := dynamicinformer.NewFilteredDynamicSharedInformerFactory(b.dyn, 0, metav1.NamespaceAll, func(o *metav1.ListOptions) {
		o.LabelSelector = scaleLabel + "=true"
	})
	all := dynamicinformer.NewDynamicSharedInformerFactory(b.dyn, 0)
	ours := func(obj any) (*unstructured.Unstructured, bool) {
		cr, ok := obj.(*unstructured.Unstructured)
		return cr, ok && strings.HasPrefix(cr.GetNamespace(), s.namespacePrefix+"-")
	}
	for _, k := range s.kinds {
		k := k
		factory := labeled
		if k.unlabeled {
			factory = all
		}
		inf := factory.ForResource(k.gvr).Informer()
		update := func(obj any) {
			if cr, ok := ours(obj); ok {
				t.observe(k, cr.GetNamespace()+"/"+cr.GetName(), cr)
			}
		}
		if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    update,
			UpdateFunc: func(_, obj any) { update(obj) },
			DeleteFunc: func(obj any) {
				if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
					obj = d.Obj
				}
				if cr, ok := ours(obj); ok {
					t.observe(k, cr.GetNamespace()+"/"+cr.GetName(), nil)
				}
			},
		}); err != nil {
			cancel()
			return nil, nil, err
		}
	}
	stop := func() { cancel(); labeled.Shutdown(); all.Shutdown() }
	for _, factory := range []dynamicinformer.DynamicSharedInformerFactory{labeled, all} {
		factory.Start(ctx.Done())
		for gvr, ok := range factory.WaitForCacheSync(ctx.Done()) {
			if !ok {
				stop()
				return nil, nil, fmt.Errorf("the bench's informer of %s did not sync", gvr.Resource)
			}
		}
	}
	return t, stop, nil
}

// waitConverged waits until the tracker has seen every kind's CRs all converged, and returns
// when each kind was first seen so.
func (b *bench) waitConverged(ctx context.Context, s *scaleScenario, t *convergeTracker, timeout time.Duration) (map[*scaleKind]time.Time, error) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for !t.complete() {
		select {
		case <-t.changed:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-deadline.C:
			return nil, fmt.Errorf("not all CRs converged within %s (not yet, by kind and reason: %v; pods not running in the scenario's namespaces: %s)",
				timeout, t.pending(), b.podsNotRunning(ctx, s))
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make(map[*scaleKind]time.Time, len(t.seen))
	for k, at := range t.seen {
		out[k] = at
	}
	return out, nil
}

// convergeTimeout is how long a scale scenario waits for its CRs: BENCH_CONVERGE_MINUTES [20],
// plus BENCH_CONVERGE_SECONDS_PER_CR [1.2] for each CR beyond the first 1,000.
func convergeTimeout(crs int, minutes int, perCR float64) time.Duration {
	d := time.Duration(minutes) * time.Minute
	if crs > 1000 {
		d += time.Duration(float64(crs-1000) * perCR * float64(time.Second))
	}
	return d
}
