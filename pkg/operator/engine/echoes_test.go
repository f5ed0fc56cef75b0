package engine

import (
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
)

func configMapAt(resourceVersion string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "cm", ResourceVersion: resourceVersion}}
}

// The event of the operator's own write queues nothing; any other event does, and so does the
// echo of a write that some read found the caches behind (that read's sync may have decided
// on the old object, and the echo's sync corrects it).
func TestEchoesSkipOnlyTheUnreadEchoOfAWrite(t *testing.T) {
	// cached is what the caches hold when a read happens: nil is nothing.
	type read struct{ cached *corev1.ConfigMap }
	for _, tc := range []struct {
		name    string
		wrote   string // the resourceVersion the write returned; "" is no write
		reads   []read
		later   time.Duration // time between the write and the event
		event   func(h cache.ResourceEventHandler)
		queued  bool
		comment string
	}{
		{name: "the add of the write", wrote: "10", event: func(h cache.ResourceEventHandler) { h.OnAdd(configMapAt("10"), false) }},
		{name: "the update of the write", wrote: "10", event: func(h cache.ResourceEventHandler) { h.OnUpdate(configMapAt("9"), configMapAt("10")) }},
		{name: "the write, read once the caches had it", wrote: "10", reads: []read{{configMapAt("10")}},
			event: func(h cache.ResourceEventHandler) { h.OnAdd(configMapAt("10"), false) }},
		{name: "no write", event: func(h cache.ResourceEventHandler) { h.OnAdd(configMapAt("10"), false) }, queued: true},
		{name: "someone else's later write", wrote: "10", event: func(h cache.ResourceEventHandler) { h.OnUpdate(configMapAt("10"), configMapAt("11")) }, queued: true},
		{name: "an earlier version on its way", wrote: "10", event: func(h cache.ResourceEventHandler) { h.OnUpdate(configMapAt("8"), configMapAt("9")) }, queued: true},
		{name: "the write, read while the caches held the version before", wrote: "10", reads: []read{{configMapAt("9")}},
			event: func(h cache.ResourceEventHandler) { h.OnUpdate(configMapAt("9"), configMapAt("10")) }, queued: true},
		{name: "the write, read while the caches lacked it", wrote: "10", reads: []read{{nil}},
			event: func(h cache.ResourceEventHandler) { h.OnAdd(configMapAt("10"), false) }, queued: true},
		{name: "the write, delivered after the memory", wrote: "10", later: echoMemory + time.Second,
			event: func(h cache.ResourceEventHandler) { h.OnAdd(configMapAt("10"), false) }, queued: true},
		{name: "a delete", wrote: "10", event: func(h cache.ResourceEventHandler) { h.OnDelete(configMapAt("10")) }, queued: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)
			caches := NewCaches()
			caches.echoes.now = func() time.Time { return now }
			var cached *corev1.ConfigMap
			caches.Add(ConfigMaps, func(namespace, name string) (runtime.Object, error) {
				if cached == nil {
					return nil, apierrors.NewNotFound(ConfigMaps, name)
				}
				return cached, nil
			})
			if tc.wrote != "" {
				caches.Echoes().Wrote(ConfigMaps, configMapAt(tc.wrote))
			}
			// A kind reads through its own layer; the record is the one its writes went to.
			layer := caches.Layer()
			for _, r := range tc.reads {
				cached = r.cached
				_, _ = layer.Get(ConfigMaps, "ns", "cm")
			}
			now = now.Add(tc.later)
			queued := false
			tc.event(layer.Echoes().Skipping(ConfigMaps, cache.ResourceEventHandlerFuncs{
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

// Every handler of an informer gets the same answer for one event: asking does not use the
// write up. Another resource's object of the same name is not an echo.
func TestIsEchoIsTheSameForEveryHandler(t *testing.T) {
	echoes := NewEchoes()
	echoes.Wrote(ConfigMaps, configMapAt("10"))
	for i := range 3 {
		if !echoes.IsEcho(ConfigMaps, configMapAt("10")) {
			t.Fatalf("handler %d: not an echo", i)
		}
	}
	if echoes.IsEcho(Secrets, &corev1.Secret{ObjectMeta: configMapAt("10").ObjectMeta}) {
		t.Error("a Secret of the same name and resourceVersion is taken for the ConfigMap's echo")
	}
}

// The record keeps the writes of the last echoMemory only: a write whose echo never came (an
// informer that relisted past it) is dropped at the next write after that.
func TestEchoesForgetOldWrites(t *testing.T) {
	now := time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)
	echoes := NewEchoes()
	echoes.now = func() time.Time { return now }
	for i := range 5 {
		cm := configMapAt("10")
		cm.Name = fmt.Sprintf("cm-%d", i)
		echoes.Wrote(ConfigMaps, cm)
	}
	now = now.Add(echoMemory + time.Second)
	echoes.Wrote(ConfigMaps, configMapAt("20"))
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
	if created.ResourceVersion != "1" || !echoes.IsEcho(ConfigMaps, created) {
		t.Fatalf("the create (resourceVersion %q) is not recorded", created.ResourceVersion)
	}
	waitCached(t, env.applier.Clients.Caches, ConfigMaps, "ns", "cm")
	if err := env.applier.Apply(env.ctx, required("b")); err != nil {
		t.Fatal(err)
	}
	updated := live()
	if updated.ResourceVersion == created.ResourceVersion || !echoes.IsEcho(ConfigMaps, updated) || echoes.IsEcho(ConfigMaps, created) {
		t.Errorf("after the update (resourceVersion %q), the record holds the create's", updated.ResourceVersion)
	}

	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "d", Labels: map[string]string{ManagedByLabel: ManagedByValue}}}
	if _, err := env.applier.ApplyDeployment(env.ctx, d, nil); err != nil {
		t.Fatal(err)
	}
	applied, err := env.kube.AppsV1().Deployments("ns").Get(env.ctx, "d", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !echoes.IsEcho(Deployments, applied) {
		t.Errorf("the Deployment's create (resourceVersion %q) is not recorded", applied.ResourceVersion)
	}
}
