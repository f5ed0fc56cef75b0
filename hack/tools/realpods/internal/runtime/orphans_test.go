package runtime

import (
	"bytes"
	"log"
	"net"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/llm-infra/llm-infra-operator/hack/tools/realpods/internal/imagetable"
)

// TestSweepOrphans runs sweeps over one runtime pod (simulated: an empty image table, so it runs
// without a sandbox) while the API's pods change from sweep to sweep. The API is the informer's
// cache the sweep reads, here an indexer filled by the test: the sweep reads no client.
func TestSweepOrphans(t *testing.T) {
	const ns, name, uid = "ns", "worker-0", types.UID("uid-old")
	same := apiPod(ns, name, uid)
	recreated := apiPod(ns, name, "uid-new")
	other := apiPod(ns, "worker-1", "uid-other")
	cases := []struct {
		name string
		// api is what the API has at each sweep.
		api [][]*corev1.Pod
		// terminating: DeletePod is already stopping the pod.
		terminating bool
		stopped     bool
	}{
		{name: "present in the API: kept", api: [][]*corev1.Pod{{same}, {same}}},
		{name: "absent once: kept", api: [][]*corev1.Pod{{other}}},
		// A pod the runtime got before the sweep's cache did: absent, then there.
		{name: "absent, then present: kept", api: [][]*corev1.Pod{{}, {same}}},
		// The absences must be consecutive: the cache's lag at two sweeps is not a deletion.
		{name: "absent, present, absent: kept", api: [][]*corev1.Pod{{}, {same}, {}}},
		{name: "absent twice: stopped and forgotten", api: [][]*corev1.Pod{{other}, {other}}, stopped: true},
		{name: "recreated under the same name: the old one stopped", api: [][]*corev1.Pod{{recreated}, {recreated}}, stopped: true},
		{name: "absent twice while DeletePod stops it: left to DeletePod", api: [][]*corev1.Pod{{}, {}}, terminating: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
			var logs bytes.Buffer
			tb, _ := imagetable.Parse(strings.NewReader(""))
			_, podNet, _ := net.ParseCIDR("127.16.0.0/24")
			rt := New(Config{NodeIP: "127.16.0.1", Table: tb, IPAM: NewIPAM(podNet),
				Pods: corev1listers.NewPodLister(indexer), Log: log.New(&logs, "", 0)})
			rt.create(apiPod(ns, name, uid))
			p := rt.pods[uid]
			if tc.terminating {
				p.mu.Lock()
				p.terminating = true
				p.mu.Unlock()
			}

			var orphans []*Pod
			for _, api := range tc.api {
				items := make([]any, len(api))
				for i, pod := range api {
					items[i] = pod
				}
				if err := indexer.Replace(items, ""); err != nil {
					t.Fatal(err)
				}
				orphans = append(orphans, rt.sweep()...)
			}
			for _, o := range orphans {
				rt.stopOrphan(o) // synchronously: SweepOrphans runs it in a goroutine
			}

			if !tc.stopped {
				if len(orphans) != 0 || rt.pods[uid] != p || p.ctx.Err() != nil || logs.Len() != 0 {
					t.Errorf("want the pod kept: orphans %d, in the runtime %t, stopped %v, log %q",
						len(orphans), rt.pods[uid] == p, p.ctx.Err(), logs.String())
				}
				p.stop(0, false) // end its goroutine
				return
			}
			if len(orphans) != 1 || orphans[0] != p {
				t.Fatalf("orphans %v, want the pod once", orphans)
			}
			if _, ok := rt.pods[uid]; ok {
				t.Error("the stopped pod is still in the runtime")
			}
			if st := p.snapshot().Status.ContainerStatuses[0].State; st.Terminated == nil {
				t.Errorf("container state %+v, want terminated", st)
			}
			want := "pod ns/worker-0: uid uid-old is no longer in the API"
			if lines := strings.Split(strings.TrimSpace(logs.String()), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], want) {
				t.Errorf("log %q, want one line starting %q", logs.String(), want)
			}
		})
	}
}

func apiPod(ns, name string, uid types.UID) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: uid},
		Spec: corev1.PodSpec{NodeName: "realpods-node-0", Containers: []corev1.Container{{Name: "c", Image: "example.com/any:1"}}}}
}
