package engine

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// QueueingHandler queues the keys an object maps to on every event; an update queues those of
// the old object as well, so a CR an object stopped mapping to hears of it.
func TestQueueingHandlerQueuesOldAndNewKeys(t *testing.T) {
	// An object maps to the key its "selected-by" label names.
	keys := func(obj any) []string {
		if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = tombstone.Obj
		}
		if v := obj.(metav1.Object).GetLabels()["selected-by"]; v != "" {
			return []string{"ns/" + v}
		}
		return nil
	}
	labelled := func(v string) *corev1.ConfigMap {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "cm"}}
		if v != "" {
			cm.Labels = map[string]string{"selected-by": v}
		}
		return cm
	}
	for _, tc := range []struct {
		name  string
		event func(h cache.ResourceEventHandler)
		want  []string
	}{
		{"add", func(h cache.ResourceEventHandler) { h.OnAdd(labelled("a"), false) }, []string{"ns/a"}},
		{"update that moves the object", func(h cache.ResourceEventHandler) { h.OnUpdate(labelled("a"), labelled("b")) }, []string{"ns/a", "ns/b"}},
		{"update that unselects it", func(h cache.ResourceEventHandler) { h.OnUpdate(labelled("a"), labelled("")) }, []string{"ns/a"}},
		{"delete, tombstone", func(h cache.ResourceEventHandler) {
			h.OnDelete(cache.DeletedFinalStateUnknown{Key: "ns/cm", Obj: labelled("a")})
		}, []string{"ns/a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var queued []string
			tc.event(QueueingHandler(keys, func(k string) { queued = append(queued, k) }))
			slices.Sort(queued)
			queued = slices.Compact(queued)
			if !slices.Equal(queued, tc.want) {
				t.Errorf("queued %v, want %v", queued, tc.want)
			}
		})
	}
}

// A CR update that changed only its status is the controller's own status write coming back;
// anything a sync reads besides the status queues the CR.
func TestSkippingStatusUpdates(t *testing.T) {
	base := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
		Namespace: "team-a", Name: "gw", Generation: 1, ResourceVersion: "10",
		Labels: map[string]string{"team": "a"}, Annotations: map[string]string{"note": "x"},
		Finalizers: []string{"example.com/cleanup"},
	}}
	now := metav1.Now()
	for _, tc := range []struct {
		name   string
		change func(*corev1.ConfigMap)
		queued bool
	}{
		{"status only (resourceVersion and managedFields change with any write)", func(c *corev1.ConfigMap) {
			c.ResourceVersion = "11"
			c.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "llm-infra-operator", Subresource: "status"}}
		}, false},
		{"the informer's resync: nothing changed", func(*corev1.ConfigMap) {}, false},
		{"spec (generation)", func(c *corev1.ConfigMap) { c.Generation = 2 }, true},
		{"a label", func(c *corev1.ConfigMap) { c.Labels["team"] = "b" }, true},
		{"an annotation (the bench's forced resync)", func(c *corev1.ConfigMap) { c.Annotations["touch"] = "1" }, true},
		{"a finalizer removed", func(c *corev1.ConfigMap) { c.Finalizers = nil }, true},
		{"an owner reference", func(c *corev1.ConfigMap) { c.OwnerReferences = []metav1.OwnerReference{{Name: "x"}} }, true},
		{"deleted (deletionTimestamp set)", func(c *corev1.ConfigMap) { c.DeletionTimestamp = &now }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			newer := base.DeepCopy()
			tc.change(newer)
			if got := OnlyStatusChanged(base, newer); got == tc.queued {
				t.Errorf("OnlyStatusChanged = %v, want %v", got, !tc.queued)
			}
			var queued []string
			handler := SkippingStatusUpdates(QueueingHandler(func(obj any) []string {
				_, m, _ := ObjectOf(obj)
				return []string{m.GetNamespace() + "/" + m.GetName()}
			}, func(key string) { queued = append(queued, key) }))
			handler.OnUpdate(base, newer)
			if got := len(queued) > 0; got != tc.queued {
				t.Errorf("queued %v, want queued: %v", queued, tc.queued)
			}
			// Adds and deletes always queue.
			queued = nil
			handler.OnAdd(newer, false)
			handler.OnDelete(cache.DeletedFinalStateUnknown{Key: "team-a/gw", Obj: newer})
			if len(queued) != 2 {
				t.Errorf("an add and a delete queued %v, want the key twice", queued)
			}
		})
	}
	if OnlyStatusChanged("not an object", base) {
		t.Errorf("an update of something that is not an object was skipped")
	}
}
