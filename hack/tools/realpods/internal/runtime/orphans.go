package runtime

import (
	"context"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
)

// OrphanSweepInterval is how often the runtime compares its pods with the API's. A pod the API
// no longer has may still be a consumer of its queues, a holder of its leases, a backend
// listening on its ports: every interval it runs on costs the test that replaced it. 10 s keeps
// that short (an orphan lives 10-20 s: two sweeps) while a sweep reads only the informer's cache,
// so it costs the API server nothing.
const OrphanSweepInterval = 10 * time.Second

// SweepOrphans stops, every OrphanSweepInterval until ctx ends, the pods whose objects the API no
// longer has. virtual-kubelet calls DeletePod for a deleted pod, except when the pod is deleted
// while its creation is still in its queue: it then logs `forgetting "<ns>/<pod>/<uid>" as told
// to forget while in progress` and the provider never hears of it (a pod force-deleted
// milliseconds after its creation, as `kubectl delete --grace-period=0 --force` racing a
// ReplicaSet's scale-up does), and its processes would run on with no pod object.
func (r *Runtime) SweepOrphans(ctx context.Context) {
	t := time.NewTicker(OrphanSweepInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		for _, p := range r.sweep() {
			go r.stopOrphan(p)
		}
	}
}

// sweep returns the pods to stop as orphans, already marked terminating (so that a DeletePod
// arriving now leaves them to the sweep): those absent from the API in this sweep and in the
// previous one. One absence is not enough: the pod informer the sweep reads (every pod of the
// cluster) and the per-node informer virtual-kubelet creates pods from are two watches, so a pod
// can reach the runtime before the sweep's cache has it; a pod created between two sweeps is
// absent from the cache at most once, as long as the cache lags by less than an interval.
// A pod is present when the API has its namespace and name with its UID: the same name with
// another UID is a pod recreated under that name (a StatefulSet's), and the old one is an orphan.
func (r *Runtime) sweep() []*Pod {
	r.mu.Lock()
	pods := make([]*Pod, 0, len(r.pods))
	for _, p := range r.pods {
		pods = append(pods, p)
	}
	previous := r.absent
	r.mu.Unlock()

	absent := map[types.UID]bool{}
	var orphans []*Pod
	for _, p := range pods {
		if r.inAPI(p) {
			continue
		}
		if !previous[p.uid] {
			absent[p.uid] = true
			continue
		}
		p.mu.Lock()
		already := p.terminating // DeletePod or Shutdown is stopping it
		p.terminating = true
		p.mu.Unlock()
		if !already {
			orphans = append(orphans, p)
		}
	}
	r.mu.Lock()
	r.absent = absent
	r.mu.Unlock()
	return orphans
}

// inAPI says whether the API (the pod informer's cache) has the pod. An error other than "not
// found" counts as present: only a pod known to be gone is stopped.
func (r *Runtime) inAPI(p *Pod) bool {
	obj, err := r.cfg.Pods.Pods(p.key.Namespace).Get(p.key.Name)
	if apierrors.IsNotFound(err) {
		return false
	}
	return err != nil || obj.UID == p.uid
}

// stopOrphan stops a pod the API no longer has, as DeletePod does (TERM, the pod's grace period,
// KILL, then the runtime forgets it), without deleting it from the API: its object is gone, and a
// pod of the same name there is another pod.
func (r *Runtime) stopOrphan(p *Pod) {
	p.mu.Lock()
	grace := gracePeriod(p.pod)
	p.mu.Unlock()
	p.logf("uid %s is no longer in the API (deleted before its creation reached the provider?): stopping its processes, grace %s", p.uid, grace)
	p.stop(grace, false)
	r.forget(p)
}
