package engine

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
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
