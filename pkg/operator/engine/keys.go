package engine

import (
	"context"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	"github.com/openshift/library-go/pkg/controller/factory"
)

// Namespaced operands queue one key per CR: "namespace/name". library-go's periodic resync
// queues factory.DefaultQueueKey instead; KeyedSync turns that into every CR's key.

// KeyedSync returns a factory sync function for an operand with one queue key per CR. A real
// key is synced alone (and counted in the operand's sync metrics); the default key (the
// periodic resync) queues every key that list returns.
func KeyedSync(operand string, list func() ([]string, error), syncOne func(ctx context.Context, syncCtx factory.SyncContext, key string) error) factory.SyncFunc {
	return func(ctx context.Context, syncCtx factory.SyncContext) error {
		key := syncCtx.QueueKey()
		if key != factory.DefaultQueueKey {
			return measure(ctx, operand, func(ctx context.Context) error { return syncOne(ctx, syncCtx, key) })
		}
		keys, err := list()
		if err != nil {
			return err
		}
		for _, k := range keys {
			syncCtx.Queue().Add(k)
		}
		return nil
	}
}

// ControllerKey maps an object to the key of the CR of the given kind that controls it (its
// controller owner reference), for the informers of the kinds an operand creates. Objects
// controlled by something else map to no key.
func ControllerKey(ownerGK schema.GroupKind) factory.ObjectQueueKeysFunc {
	return func(obj runtime.Object) []string {
		_, m, ok := ObjectOf(obj)
		if !ok {
			return nil
		}
		ref := metav1.GetControllerOfNoCopy(m)
		if ref == nil || ref.Kind != ownerGK.Kind {
			return nil
		}
		gv, err := schema.ParseGroupVersion(ref.APIVersion)
		if err != nil || gv.Group != ownerGK.Group {
			return nil
		}
		return []string{m.GetNamespace() + "/" + ref.Name}
	}
}

// QueueingHandler is an informer event handler that queues the keys an object maps to. An
// update queues the keys of the object before and after it: an object that stops mapping to a
// key (an owner reference removed, labels that no longer match a selector) must reach the CR
// it left too.
func QueueingHandler(keys func(obj any) []string, queue func(key string)) cache.ResourceEventHandler {
	add := func(obj any) {
		for _, k := range keys(obj) {
			queue(k)
		}
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    add,
		UpdateFunc: func(old, obj any) { add(old); add(obj) },
		DeleteFunc: add,
	}
}

// OnlyStatusChanged says whether an update of a CR changed nothing a sync reads but its
// status: the generation (the spec, for a kind with a status subresource), labels,
// annotations, finalizers, owner references and deletion timestamp are all the same. The
// resourceVersion and managedFields change with any write.
func OnlyStatusChanged(oldObj, newObj any) bool {
	_, o, ok := ObjectOf(oldObj)
	if !ok {
		return false
	}
	_, n, ok := ObjectOf(newObj)
	if !ok {
		return false
	}
	return o.GetGeneration() == n.GetGeneration() &&
		maps.Equal(o.GetLabels(), n.GetLabels()) &&
		maps.Equal(o.GetAnnotations(), n.GetAnnotations()) &&
		slices.Equal(o.GetFinalizers(), n.GetFinalizers()) &&
		equality.Semantic.DeepEqual(o.GetOwnerReferences(), n.GetOwnerReferences()) &&
		equality.Semantic.DeepEqual(o.GetDeletionTimestamp(), n.GetDeletionTimestamp())
}

// SkippingStatusUpdates is handler without the updates that changed only the status
// (OnlyStatusChanged).
func SkippingStatusUpdates(handler cache.ResourceEventHandler) cache.ResourceEventHandler {
	return cache.ResourceEventHandlerDetailedFuncs{
		AddFunc: handler.OnAdd,
		UpdateFunc: func(oldObj, newObj any) {
			if !OnlyStatusChanged(oldObj, newObj) {
				handler.OnUpdate(oldObj, newObj)
			}
		},
		DeleteFunc: handler.OnDelete,
	}
}
