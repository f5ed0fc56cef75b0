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
