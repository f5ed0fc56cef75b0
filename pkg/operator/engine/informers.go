package engine

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	"github.com/openshift/library-go/pkg/controller/factory"
)

// DropManagedFields is an informer transform that removes managedFields before an object is
// cached: the operator never reads them, and they are often the largest part of an object's
// metadata. An update sent from a cached copy without them leaves the server's managedFields
// as they are.
func DropManagedFields(obj any) (any, error) {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		return tombstone, nil
	}
	if m, ok := obj.(metav1.Object); ok {
		m.SetManagedFields(nil)
	}
	return obj, nil
}

// Informed is an informer of one group-resource an operand applies.
type Informed struct {
	GroupResource schema.GroupResource
	Informer      cache.SharedIndexInformer
}

// RegisterInformers gives each informer the DropManagedFields transform, registers it in the
// caches (the engine's reads come from there) and returns them all, for the operand's
// controller to be triggered by their events. Call it before the informers start.
func RegisterInformers(caches *Caches, informed ...Informed) []factory.Informer {
	watched := make([]factory.Informer, 0, len(informed))
	for _, i := range informed {
		_ = i.Informer.SetTransform(DropManagedFields)
		caches.AddInformer(i.GroupResource, i.Informer)
		watched = append(watched, i.Informer)
	}
	return watched
}
