package engine

import (
	"context"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	coreinformers "k8s.io/client-go/informers/core/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
)

// recordedKeys collects the keys a watch queues.
type recordedKeys struct {
	mu   sync.Mutex
	keys map[string]int
}

func (r *recordedKeys) add(key string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.keys[key]++
}

func (r *recordedKeys) count(key string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.keys[key]
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestReferenceWatches(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "creds", Namespace: "a"}, Data: map[string][]byte{"k": []byte("v")}}
	kube := kubefake.NewSimpleClientset(secret)
	queued := &recordedKeys{keys: map[string]int{}}
	w := NewReferenceWatches(ctx, Secrets, func(ns, name string) cache.SharedIndexInformer {
		return coreinformers.NewFilteredSecretInformer(kube, ns, 0, cache.Indexers{}, SingleObjectListOptions(name))
	}, queued.add)

	creds := types.NamespacedName{Namespace: "a", Name: "creds"}
	missing := types.NamespacedName{Namespace: "b", Name: "absent"}
	if _, err := w.Get(creds); err == nil {
		t.Error("Get of an unwatched object must fail")
	}

	w.Set(ctx, "a/gw1", creds, missing)
	w.Set(ctx, "a/gw2", creds)
	if got, err := w.Get(creds); err != nil || got.(*corev1.Secret).Name != "creds" {
		t.Fatalf("Get right after Set = %v, %v; want the Secret (Set waits for the first list)", got, err)
	}
	if _, err := w.Get(missing); !apierrors.IsNotFound(err) {
		t.Errorf("Get of a watched object that does not exist = %v, want NotFound", err)
	}
	if w.Len() != 2 {
		t.Errorf("watches = %d, want 2", w.Len())
	}

	// A change of the object queues every CR that references it.
	before1, before2 := queued.count("a/gw1"), queued.count("a/gw2")
	secret.Data["k"] = []byte("rotated")
	if _, err := kube.CoreV1().Secrets("a").Update(ctx, secret, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "both referrers queued", func() bool {
		return queued.count("a/gw1") > before1 && queued.count("a/gw2") > before2
	})

	// References dropped: the watch of "missing" stops; "creds" stays while gw2 holds it.
	w.Set(ctx, "a/gw1")
	if w.Len() != 1 {
		t.Errorf("watches after gw1 dropped its references = %d, want 1", w.Len())
	}
	w.Forget("a/gw2")
	if w.Len() != 0 {
		t.Errorf("watches after every referrer left = %d, want 0", w.Len())
	}
}

// A watch that has not listed yet cannot say an object is absent: Get and Find fail with
// ErrNotSynced (not NotFound, which a sync would take for a missing Secret), and the sync of a
// second CR that references the same object waits for the list too.
func TestReferenceWatchesNotSyncedIsNotAbsent(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "creds", Namespace: "a"}}
	kube := kubefake.NewSimpleClientset(secret)
	release := make(chan struct{})
	w := NewReferenceWatches(ctx, Secrets, func(ns, name string) cache.SharedIndexInformer {
		tweak := SingleObjectListOptions(name)
		return cache.NewSharedIndexInformer(cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{
			ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
				<-release
				tweak(&o)
				return kube.CoreV1().Secrets(ns).List(ctx, o)
			},
			WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
				tweak(&o)
				return kube.CoreV1().Secrets(ns).Watch(ctx, o)
			},
		}, kube), &corev1.Secret{}, 0, cache.Indexers{})
	}, func(string) {})
	w.syncTimeout = 10 * time.Millisecond
	creds := types.NamespacedName{Namespace: "a", Name: "creds"}

	w.Set(ctx, "a/gw1", creds) // gives up waiting: the list is held
	if _, err := w.Get(creds); !IsNotSynced(err) || apierrors.IsNotFound(err) {
		t.Errorf("Get before the first list = %v, want ErrNotSynced", err)
	}
	if obj, err := w.Find(creds); !IsNotSynced(err) || obj != nil {
		t.Errorf("Find before the first list = %v, %v; want ErrNotSynced", obj, err)
	}
	if _, err := w.Find(types.NamespacedName{Namespace: "a", Name: "unwatched"}); err != nil {
		t.Errorf("Find of an unwatched object = %v, want nil (a run without a cluster)", err)
	}

	// The second referrer's Set waits for the watch the first one started.
	w.syncTimeout = 10 * time.Second
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.Set(ctx, "a/gw2", creds)
	}()
	close(release)
	<-done
	if got, err := w.Get(creds); err != nil || got.(*corev1.Secret).Name != "creds" {
		t.Errorf("Get right after the second Set = %v, %v; want the Secret", got, err)
	}
}
