package engine

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"sync/atomic"
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

// fakeSecretsSource is a Secrets source over a fake clientset that counts its reads.
func fakeSecretsSource(kube *kubefake.Clientset, informer cache.SharedIndexInformer, reads *atomic.Int32) *ReferenceSource {
	return NewReferenceSource(Secrets, informer, func(ctx context.Context, ns, name string) (runtime.Object, error) {
		reads.Add(1)
		return kube.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{})
	})
}

func TestReferenceWatches(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The fake clientset keeps the resourceVersions it is given; the API server sets them.
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "creds", Namespace: "a", ResourceVersion: "1"}, Data: map[string][]byte{"k": []byte("v")}}
	other := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "unrelated", Namespace: "a", ResourceVersion: "2"}}
	kube := kubefake.NewSimpleClientset(secret, other)
	var reads atomic.Int32
	source := fakeSecretsSource(kube, coreinformers.NewSecretInformer(kube, metav1.NamespaceAll, 0, cache.Indexers{}), &reads)
	queued := &recordedKeys{keys: map[string]int{}}
	w := NewReferenceWatches(ctx, source, nil, queued.add)

	creds := types.NamespacedName{Namespace: "a", Name: "creds"}
	missing := types.NamespacedName{Namespace: "b", Name: "absent"}
	if _, err := w.Get(creds); err == nil {
		t.Error("Get of an unwatched object must fail")
	}
	if source.informer.HasSynced() {
		t.Fatal("the source must not start before an object is referenced")
	}

	w.Set(ctx, "a/gw1", creds, missing)
	w.Set(ctx, "a/gw2", creds)
	got, err := w.Get(creds)
	if err != nil || got.(*corev1.Secret).Name != "creds" || string(got.(*corev1.Secret).Data["k"]) != "v" {
		t.Fatalf("Get right after Set = %v, %v; want the Secret with its data (Set waits for the first list)", got, err)
	}
	if _, err := w.Get(creds); err != nil || reads.Load() != 1 {
		t.Errorf("a second Get of an unchanged Secret = %v with %d reads; want 1 read in all", err, reads.Load())
	}
	if _, err := w.Get(missing); !apierrors.IsNotFound(err) {
		t.Errorf("Get of a referenced object that does not exist = %v, want NotFound", err)
	}
	if reads.Load() != 1 {
		t.Errorf("reads = %d after a Get of an absent object, want 1: the source says it is absent", reads.Load())
	}
	if w.Len() != 2 {
		t.Errorf("referenced objects = %d, want 2", w.Len())
	}
	// What the source caches of each object is its identity, not its data.
	for _, obj := range source.informer.GetStore().List() {
		if _, ok := obj.(*metav1.PartialObjectMetadata); !ok {
			t.Errorf("the source caches a %T, want only PartialObjectMetadata", obj)
		}
	}

	// A change of the object queues every CR that references it, and the next Get reads it
	// again; a change of an object no CR references queues nothing.
	before1, before2 := queued.count("a/gw1"), queued.count("a/gw2")
	secret.Data["k"] = []byte("rotated")
	secret.ResourceVersion = "3"
	if _, err := kube.CoreV1().Secrets("a").Update(ctx, secret, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	other.Labels = map[string]string{"changed": "yes"}
	other.ResourceVersion = "4"
	if _, err := kube.CoreV1().Secrets("a").Update(ctx, other, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "both referrers queued", func() bool {
		return queued.count("a/gw1") > before1 && queued.count("a/gw2") > before2
	})
	waitUntil(t, "the rotated Secret read", func() bool {
		got, err := w.Get(creds)
		return err == nil && string(got.(*corev1.Secret).Data["k"]) == "rotated"
	})
	if n := queued.count("a/unrelated"); n != 0 {
		t.Errorf("an unreferenced Secret's change queued %d keys", n)
	}

	// References dropped: "missing" is forgotten; "creds" stays while gw2 holds it.
	w.Set(ctx, "a/gw1")
	if w.Len() != 1 {
		t.Errorf("referenced objects after gw1 dropped its references = %d, want 1", w.Len())
	}
	w.Forget("a/gw2")
	if w.Len() != 0 {
		t.Errorf("referenced objects after every referrer left = %d, want 0", w.Len())
	}
	if _, err := w.Get(creds); err == nil {
		t.Error("Get of an object no CR references any more must fail")
	}
}

// Concurrent Gets of one object (workers syncing CRs that share a Secret) read it once.
func TestReferenceWatchesMergeConcurrentReads(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	kube := kubefake.NewSimpleClientset(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "creds", Namespace: "a", ResourceVersion: "1"}})
	var reads atomic.Int32
	release := make(chan struct{})
	source := NewReferenceSource(Secrets, coreinformers.NewSecretInformer(kube, metav1.NamespaceAll, 0, cache.Indexers{}), func(ctx context.Context, ns, name string) (runtime.Object, error) {
		reads.Add(1)
		<-release
		return kube.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{})
	})
	w := NewReferenceWatches(ctx, source, nil, func(string) {})
	creds := types.NamespacedName{Namespace: "a", Name: "creds"}
	w.Set(ctx, "a/gw1", creds)
	w.Set(ctx, "a/gw2", creds)

	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Go(func() {
			_, err := w.Get(creds)
			errs <- err
		})
	}
	waitUntil(t, "the first read to start", func() bool { return reads.Load() > 0 })
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("Get = %v", err)
		}
	}
	// A Get that came after the first read ended reads from what it kept; one that came while
	// it ran shares it.
	if reads.Load() != 1 {
		t.Errorf("reads = %d, want 1", reads.Load())
	}
}

// Two controllers' watches over one source: one watch of the resource in all, each queues its
// own CRs.
func TestReferenceWatchesShareTheirSource(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "creds", Namespace: "a"}}
	kube := kubefake.NewSimpleClientset(secret)
	var reads atomic.Int32
	source := fakeSecretsSource(kube, coreinformers.NewSecretInformer(kube, metav1.NamespaceAll, 0, cache.Indexers{}), &reads)
	batch, gateways := &recordedKeys{keys: map[string]int{}}, &recordedKeys{keys: map[string]int{}}
	listeners := NewListeners()
	wb, wg := NewReferenceWatches(ctx, source, listeners, batch.add), NewReferenceWatches(ctx, source, listeners, gateways.add)
	creds := types.NamespacedName{Namespace: "a", Name: "creds"}
	wb.Set(ctx, "a/lbg", creds)
	wg.Set(ctx, "a/gw", creds)
	secret.Labels = map[string]string{"rotated": "yes"}
	if _, err := kube.CoreV1().Secrets("a").Update(ctx, secret, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "both controllers' CRs queued", func() bool { return batch.count("a/lbg") > 0 && gateways.count("a/gw") > 0 })
	if batch.count("a/gw") != 0 || gateways.count("a/lbg") != 0 {
		t.Error("a controller was queued the other's CR")
	}
	watches := 0
	for _, a := range kube.Actions() {
		if a.GetVerb() == "watch" && a.GetResource().Resource == "secrets" {
			watches++
		}
	}
	if watches != 1 {
		t.Errorf("watches of secrets = %d, want 1 (one source for both controllers)", watches)
	}
}

// A source that has not listed yet cannot say an object is absent: Get and Find fail with
// ErrNotSynced (not NotFound, which a sync would take for a missing Secret), and the sync of a
// second CR that references an object waits for the list too.
func TestReferenceWatchesNotSyncedIsNotAbsent(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "creds", Namespace: "a"}}
	kube := kubefake.NewSimpleClientset(secret)
	release := make(chan struct{})
	var reads atomic.Int32
	informer := cache.NewSharedIndexInformer(cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			<-release
			return kube.CoreV1().Secrets(metav1.NamespaceAll).List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return kube.CoreV1().Secrets(metav1.NamespaceAll).Watch(ctx, o)
		},
	}, kube), &corev1.Secret{}, 0, cache.Indexers{})
	w := NewReferenceWatches(ctx, fakeSecretsSource(kube, informer, &reads), nil, func(string) {})
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
	if reads.Load() != 0 {
		t.Errorf("reads before the first list = %d, want 0", reads.Load())
	}

	// The second referrer's Set waits for the list the first one started.
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

// A read that fails is the sync's error, not a missing object.
func TestReferenceWatchesReadErrorIsNotAbsent(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	kube := kubefake.NewSimpleClientset(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "creds", Namespace: "a"}})
	refused := apierrors.NewForbidden(Secrets, "creds", errors.New("no"))
	source := NewReferenceSource(Secrets, coreinformers.NewSecretInformer(kube, metav1.NamespaceAll, 0, cache.Indexers{}), func(context.Context, string, string) (runtime.Object, error) {
		return nil, refused
	})
	w := NewReferenceWatches(ctx, source, nil, func(string) {})
	creds := types.NamespacedName{Namespace: "a", Name: "creds"}
	w.Set(ctx, "a/gw1", creds)
	if _, err := w.Get(creds); !apierrors.IsForbidden(err) {
		t.Errorf("Get = %v, want the read's error", err)
	}
	if obj, err := w.Find(creds); !apierrors.IsForbidden(err) || obj != nil {
		t.Errorf("Find = %v, %v; want the read's error", obj, err)
	}
}

func TestKeepIdentity(t *testing.T) {
	full := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "n", UID: "u", ResourceVersion: "7",
			Labels: map[string]string{"l": "v"}, Annotations: map[string]string{"kubectl.kubernetes.io/last-applied-configuration": "{...}"}},
		Data: map[string][]byte{"password": []byte("p")},
	}
	tombstone := cache.DeletedFinalStateUnknown{Key: "n/s", Obj: full}
	for _, tc := range []struct {
		name string
		in   any
		want any
	}{
		{"a Secret keeps its identity only", full, &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "n", UID: "u", ResourceVersion: "7"}}},
		{"metadata keeps its identity only", &metav1.PartialObjectMetadata{ObjectMeta: full.ObjectMeta}, &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "n", UID: "u", ResourceVersion: "7"}}},
		{"a tombstone is kept as it is", tombstone, tombstone},
		{"what has no metadata is kept as it is", "x", "x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := KeepIdentity(tc.in)
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("KeepIdentity = %#v, %v; want %#v", got, err, tc.want)
			}
		})
	}
	if len(full.Data) != 1 || len(full.Labels) != 1 {
		t.Error("KeepIdentity changed its input")
	}
}
