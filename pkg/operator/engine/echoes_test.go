package engine

import (
	"fmt"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
)

// wrote records a write that returned obj, as the Applier's writes are recorded.
func wrote(e *Echoes, gr schema.GroupResource, obj *corev1.ConfigMap) {
	e.Writing(gr, obj.Namespace, obj.Name)(obj)
}

func configMapAt(resourceVersion string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "cm", ResourceVersion: resourceVersion}}
}

// trackedCaches is a Caches whose ConfigMap "cache" holds *cached (nil: nothing), with
// ConfigMaps tracked as RegisterInformers tracks them, on a clock the test moves.
func trackedCaches(cached **corev1.ConfigMap, now *time.Time) *Caches {
	caches := NewCaches()
	caches.echoes.now = func() time.Time { return *now }
	caches.echoes.track(ConfigMaps)
	caches.Add(ConfigMaps, func(namespace, name string) (runtime.Object, error) {
		if *cached == nil {
			return nil, apierrors.NewNotFound(ConfigMaps, name)
		}
		return *cached, nil
	})
	return caches
}

// The event of the operator's own write queues nothing; any other event does.
func TestEchoesSkipOnlyTheEchoOfAWrite(t *testing.T) {
	for _, tc := range []struct {
		name   string
		wrote  string // the resourceVersion the write returned; "" is no write
		gr     schema.GroupResource
		later  time.Duration // time between the write and the event
		event  func(h cache.ResourceEventHandler)
		queued bool
	}{
		{name: "the add of the write", wrote: "10", event: func(h cache.ResourceEventHandler) { h.OnAdd(configMapAt("10"), false) }},
		{name: "the update of the write", wrote: "10", event: func(h cache.ResourceEventHandler) { h.OnUpdate(configMapAt("9"), configMapAt("10")) }},
		{name: "no write", event: func(h cache.ResourceEventHandler) { h.OnAdd(configMapAt("10"), false) }, queued: true},
		{name: "someone else's later write", wrote: "10", event: func(h cache.ResourceEventHandler) { h.OnUpdate(configMapAt("10"), configMapAt("11")) }, queued: true},
		{name: "an earlier version on its way", wrote: "10", event: func(h cache.ResourceEventHandler) { h.OnUpdate(configMapAt("8"), configMapAt("9")) }, queued: true},
		{name: "the write, delivered after the memory", wrote: "10", later: echoMemory + time.Second,
			event: func(h cache.ResourceEventHandler) { h.OnAdd(configMapAt("10"), false) }, queued: true},
		{name: "a delete", wrote: "10", event: func(h cache.ResourceEventHandler) { h.OnDelete(configMapAt("10")) }, queued: true},
		{name: "a write of a resource no informer tracks", wrote: "10", gr: Secrets,
			event: func(h cache.ResourceEventHandler) { h.OnAdd(configMapAt("10"), false) }, queued: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)
			var cached *corev1.ConfigMap
			caches := trackedCaches(&cached, &now)
			if tc.wrote != "" {
				gr := ConfigMaps
				if !tc.gr.Empty() {
					gr = tc.gr
				}
				wrote(caches.Echoes(), gr, configMapAt(tc.wrote))
			}
			now = now.Add(tc.later)
			queued := false
			// A kind's handler goes through its own layer; the record is the one its writes went to.
			tc.event(caches.Layer().Echoes().Skipping(ConfigMaps, cache.ResourceEventHandlerFuncs{
				AddFunc:    func(any) { queued = true },
				UpdateFunc: func(any, any) { queued = true },
				DeleteFunc: func(any) { queued = true },
			}))
			if queued != tc.queued {
				t.Errorf("queued = %v, want %v", queued, tc.queued)
			}
		})
	}
}

// The API server's watch often delivers a write's echo before the client has the write's
// response: an event of an object being written waits for the write to return, and is dropped
// only if it is that write's echo.
func TestEchoesHoldTheEventsOfAnObjectBeingWritten(t *testing.T) {
	for _, tc := range []struct {
		name     string
		event    func(h cache.ResourceEventHandler)
		returned *corev1.ConfigMap // what the write returned; nil: it failed or sent nothing
		queued   int
	}{
		{name: "the echo, before the response", event: func(h cache.ResourceEventHandler) { h.OnAdd(configMapAt("10"), false) },
			returned: configMapAt("10")},
		{name: "someone else's version, during the write", event: func(h cache.ResourceEventHandler) { h.OnUpdate(configMapAt("8"), configMapAt("9")) },
			returned: configMapAt("10"), queued: 1},
		{name: "an event during a write that failed", event: func(h cache.ResourceEventHandler) { h.OnAdd(configMapAt("10"), false) }, queued: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)
			var cached *corev1.ConfigMap
			caches := trackedCaches(&cached, &now)
			queued := 0
			handler := caches.Echoes().Skipping(ConfigMaps, cache.ResourceEventHandlerFuncs{
				AddFunc:    func(any) { queued++ },
				UpdateFunc: func(any, any) { queued++ },
			})
			done := caches.Echoes().Writing(ConfigMaps, "ns", "cm")
			tc.event(handler)
			if queued != 0 {
				t.Fatalf("the event queued %d times while the write was under way", queued)
			}
			var returned runtime.Object
			if tc.returned != nil {
				returned = tc.returned
			}
			done(returned)
			if queued != tc.queued {
				t.Errorf("queued %d times once the write returned, want %d", queued, tc.queued)
			}
			// An apply that wrote nothing leaves no record behind.
			if _, recorded := caches.echoes.written[objectRef{gr: ConfigMaps, namespace: "ns", name: "cm"}]; recorded != (tc.returned != nil) {
				t.Errorf("recorded = %v after a write that returned %v", recorded, tc.returned != nil)
			}
		})
	}
}

// An object deleted while the operator was writing it is gone for every read, whenever the API
// made that write; the delete queues at once.
func TestEchoesADeleteDuringAWrite(t *testing.T) {
	now := time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)
	var cached *corev1.ConfigMap
	caches := trackedCaches(&cached, &now)
	deletes := 0
	handler := caches.Echoes().Skipping(ConfigMaps, cache.ResourceEventHandlerFuncs{DeleteFunc: func(any) { deletes++ }})
	done := caches.Echoes().Writing(ConfigMaps, "ns", "cm")
	handler.OnDelete(configMapAt("9"))
	if deletes != 1 {
		t.Errorf("the delete queued %d times during the write, want 1", deletes)
	}
	done(configMapAt("10"))
	if _, err := caches.Get(ConfigMaps, "ns", "cm"); !apierrors.IsNotFound(err) {
		t.Errorf("after the delete, the read gets %v, want NotFound", err)
	}
}

// Until its informer delivers a write, a read through the caches (any layer) gets the object as
// the write returned it; the informer's own version once it has that one or a newer one.
func TestCachesAnswerWithAWriteUntilItsInformerHasIt(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cached *corev1.ConfigMap
		later  time.Duration
		want   string // the resourceVersion read; "" is NotFound
	}{
		{name: "not cached yet", want: "10"},
		{name: "the version before cached", cached: configMapAt("9"), want: "10"},
		{name: "the write cached", cached: configMapAt("10"), want: "10"},
		{name: "a newer version cached", cached: configMapAt("11"), want: "11"},
		{name: "a version that is no integer", cached: configMapAt("x"), want: "x"},
		{name: "not cached after the memory", later: echoMemory + time.Second, want: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)
			cached := tc.cached
			caches := trackedCaches(&cached, &now)
			wrote(caches.Echoes(), ConfigMaps, configMapAt("10"))
			now = now.Add(tc.later)
			obj, err := caches.Layer().Get(ConfigMaps, "ns", "cm")
			got := ""
			if err == nil {
				got = obj.(*corev1.ConfigMap).ResourceVersion
			} else if !apierrors.IsNotFound(err) {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("read resourceVersion %q, want %q", got, tc.want)
			}
			// Once the informer has the write, the record stops holding the object twice.
			w := caches.echoes.written[objectRef{gr: ConfigMaps, namespace: "ns", name: "cm"}]
			if caughtUp := tc.cached != nil && tc.want == tc.cached.ResourceVersion; caughtUp && w.obj != nil {
				t.Error("the record still holds the object the informer has")
			}
		})
	}
}

// Once its informer has delivered the write, the record no longer answers for the object: a
// delete the informer sees after that is a delete for every read.
func TestCachesForgetAWriteItsInformerDeleted(t *testing.T) {
	now := time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)
	var cached *corev1.ConfigMap
	caches := trackedCaches(&cached, &now)
	wrote(caches.Echoes(), ConfigMaps, configMapAt("10"))
	var queued int
	handler := caches.Echoes().Skipping(ConfigMaps, cache.ResourceEventHandlerFuncs{DeleteFunc: func(any) { queued++ }})
	// The informer deletes the object before a read: the delete reaches the handler first.
	handler.OnDelete(configMapAt("10"))
	if _, err := caches.Get(ConfigMaps, "ns", "cm"); !apierrors.IsNotFound(err) {
		t.Errorf("after the delete, the read gets %v, want NotFound", err)
	}
	if queued != 1 {
		t.Errorf("the delete queued %d times, want 1", queued)
	}
}

// Every handler of an informer gets the same answer for one event: asking does not use the
// write up. Another resource's object of the same name is not an echo.
func TestEchoIsTheSameForEveryHandler(t *testing.T) {
	echoes := NewEchoes()
	echoes.track(ConfigMaps)
	echoes.track(Secrets)
	wrote(echoes, ConfigMaps, configMapAt("10"))
	for i := range 3 {
		if !echoes.delivered(ConfigMaps, configMapAt("10"), func() {}) {
			t.Fatalf("handler %d: not an echo", i)
		}
	}
	if echoes.delivered(Secrets, &corev1.Secret{ObjectMeta: configMapAt("10").ObjectMeta}, func() {}) {
		t.Error("a Secret of the same name and resourceVersion is taken for the ConfigMap's echo")
	}
}

// The record keeps the writes of the last echoMemory only: a write whose echo never came (an
// informer that relisted past it) is dropped at the next write after that.
func TestEchoesForgetOldWrites(t *testing.T) {
	now := time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)
	echoes := NewEchoes()
	echoes.now = func() time.Time { return now }
	echoes.track(ConfigMaps)
	for i := range 5 {
		cm := configMapAt("10")
		cm.Name = fmt.Sprintf("cm-%d", i)
		wrote(echoes, ConfigMaps, cm)
	}
	now = now.Add(echoMemory + time.Second)
	wrote(echoes, ConfigMaps, configMapAt("20"))
	if got := len(echoes.written); got != 1 {
		t.Errorf("%d writes recorded, want the last one only", got)
	}
}

// The Applier records what each write returned, and nothing for an apply that wrote nothing.
func TestApplierRecordsItsWrites(t *testing.T) {
	env := newApplyEnv(t, nil)
	// The fake API server gives no resourceVersions: this one counts writes, as etcd does.
	revision := 0
	stamp := func(action clienttesting.Action) (bool, runtime.Object, error) {
		if o, ok := action.(interface{ GetObject() runtime.Object }); ok {
			if m, err := meta.Accessor(o.GetObject()); err == nil {
				revision++
				m.SetResourceVersion(fmt.Sprint(revision))
			}
		}
		return false, nil, nil
	}
	env.kube.PrependReactor("create", "*", stamp)
	env.kube.PrependReactor("update", "*", stamp)
	env.dyn.PrependReactor("create", "*", stamp)
	env.dyn.PrependReactor("update", "*", stamp)
	echoes := env.applier.Clients.Caches.Echoes()
	live := func() *corev1.ConfigMap {
		cm, err := env.kube.CoreV1().ConfigMaps("ns").Get(env.ctx, "cm", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return cm
	}
	required := func(value string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "cm", Labels: map[string]string{ManagedByLabel: ManagedByValue}},
			Data: map[string]string{"k": value}}
	}

	if err := env.applier.Apply(env.ctx, required("a")); err != nil {
		t.Fatal(err)
	}
	created := live()
	if created.ResourceVersion != "1" || !echoes.delivered(ConfigMaps, created, func() {}) {
		t.Fatalf("the create (resourceVersion %q) is not recorded", created.ResourceVersion)
	}
	waitCached(t, env.applier.Clients.Caches, ConfigMaps, "ns", "cm")
	if err := env.applier.Apply(env.ctx, required("b")); err != nil {
		t.Fatal(err)
	}
	updated := live()
	if updated.ResourceVersion == created.ResourceVersion || !echoes.delivered(ConfigMaps, updated, func() {}) || echoes.delivered(ConfigMaps, created, func() {}) {
		t.Errorf("after the update (resourceVersion %q), the record holds the create's", updated.ResourceVersion)
	}

	// An HPA is applied unstructured (resourceapply has no typed function) and cached typed: it
	// is recorded typed, for the caches to answer with it.
	if err := env.applier.Apply(env.ctx, hpa(3)); err != nil {
		t.Fatal(err)
	}
	w, ok := echoes.written[objectRef{gr: HorizontalPodAutoscalers, namespace: "ns", name: "gw-hpa"}]
	if !ok {
		t.Fatal("the HPA's create is not recorded")
	}
	// Only a read that finds the informer caught up drops the object, and none was made.
	if _, typed := w.obj.(*autoscalingv2.HorizontalPodAutoscaler); !typed {
		t.Errorf("the HPA is recorded as %T", w.obj)
	}
}
