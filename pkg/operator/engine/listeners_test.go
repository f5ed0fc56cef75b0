package engine

import (
	"context"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
)

// countingInformer counts the handlers registered on the informer itself.
type countingInformer struct {
	cache.SharedIndexInformer
	mu         sync.Mutex
	registered int
}

func (c *countingInformer) AddEventHandler(h cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
	c.mu.Lock()
	c.registered++
	c.mu.Unlock()
	return c.SharedIndexInformer.AddEventHandler(h)
}

// seenEvents records what one handler was told, by verb and name.
type seenEvents struct {
	mu   sync.Mutex
	seen map[string]int
}

func (s *seenEvents) record(verb string, obj any) {
	_, m, ok := ObjectOf(obj)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen[verb+" "+m.GetName()]++
}

func (s *seenEvents) count(key string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seen[key]
}

func (s *seenEvents) handler() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { s.record("add", obj) },
		UpdateFunc: func(_, obj any) { s.record("update", obj) },
		DeleteFunc: func(obj any) { s.record("delete", obj) },
	}
}

// Handlers added through Listeners share one listener of the informer, each still gets every
// event, and one added after the informer listed gets the objects it holds first.
func TestListenersShareOneListenerPerInformer(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	existing := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "existing", Namespace: "ns"}}
	kube := kubefake.NewSimpleClientset(existing)
	informer := &countingInformer{SharedIndexInformer: coreinformers.NewConfigMapInformer(kube, metav1.NamespaceAll, 0, cache.Indexers{})}
	listeners := NewListeners()
	early := []*seenEvents{{seen: map[string]int{}}, {seen: map[string]int{}}}
	for _, s := range early {
		if _, err := listeners.For(informer).AddEventHandler(s.handler()); err != nil {
			t.Fatal(err)
		}
	}
	go informer.Run(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), listeners.For(informer).HasSynced) {
		t.Fatal("never synced")
	}
	late := &seenEvents{seen: map[string]int{}}
	if _, err := listeners.For(informer).AddEventHandler(late.handler()); err != nil {
		t.Fatal(err)
	}
	if late.count("add existing") != 1 {
		t.Errorf("a handler added after the list got %v, want the existing ConfigMap once", late.seen)
	}

	created := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "created", Namespace: "ns"}}
	if _, err := kube.CoreV1().ConfigMaps("ns").Create(ctx, created, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	created.Labels = map[string]string{"changed": "yes"}
	if _, err := kube.CoreV1().ConfigMaps("ns").Update(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := kube.CoreV1().ConfigMaps("ns").Delete(ctx, "created", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	all := append(early, late)
	waitUntil(t, "every handler told of the create, the update and the delete", func() bool {
		for _, s := range all {
			if s.count("add created") != 1 || s.count("update created") != 1 || s.count("delete created") != 1 {
				return false
			}
		}
		return true
	})
	for i, s := range early {
		if s.count("add existing") != 1 {
			t.Errorf("handler %d: the existing ConfigMap was added %d times, want 1", i, s.count("add existing"))
		}
	}
	informer.mu.Lock()
	defer informer.mu.Unlock()
	if informer.registered != 1 {
		t.Errorf("listeners registered on the informer = %d, want 1 for 3 handlers", informer.registered)
	}
}

// Without Listeners, handlers go to the informer itself, one listener each, as in client-go.
func TestNilListenersAreTheInformer(t *testing.T) {
	informer := coreinformers.NewConfigMapInformer(kubefake.NewSimpleClientset(), metav1.NamespaceAll, 0, cache.Indexers{})
	var l *Listeners
	if got := l.For(informer); got != informer {
		t.Errorf("nil Listeners gave %T, want the informer", got)
	}
}
