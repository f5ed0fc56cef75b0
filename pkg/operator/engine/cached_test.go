package engine

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// storeWith is an informer store holding ServiceAccounts of the given names in namespace "ns".
func storeWith(t *testing.T, names ...string) cache.Store {
	t.Helper()
	store := cache.NewStore(cache.MetaNamespaceKeyFunc)
	for _, name := range names {
		if err := store.Add(&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}); err != nil {
			t.Fatal(err)
		}
	}
	return store
}

// An operand's layer answers from its own informers and the shared ones, never from another
// operand's: a lagging informer of another operand must not answer for an object that this
// operand's informer already saw deleted.
func TestCachesLayerReadsOwnAndSharedOnly(t *testing.T) {
	shared := NewCaches()
	lws, batch := shared.Layer(), shared.Layer()
	lws.Add(ServiceAccounts, IndexerLookup(ServiceAccounts, storeWith(t, "lws-only")))
	batch.Add(ServiceAccounts, IndexerLookup(ServiceAccounts, storeWith(t, "batch-only", "lws-only-stale")))
	// Registered after the layers exist, as an optional API's informer is when its CRD appears.
	shared.Add(ServiceAccounts, IndexerLookup(ServiceAccounts, storeWith(t, "shared")))

	for _, tc := range []struct {
		caches *Caches
		layer  string
		name   string
		found  bool
	}{
		{lws, "lws", "lws-only", true},
		{lws, "lws", "shared", true},
		{lws, "lws", "batch-only", false},
		{lws, "lws", "lws-only-stale", false},
		{batch, "batch", "batch-only", true},
		{batch, "batch", "shared", true},
		{batch, "batch", "lws-only", false},
		{shared, "shared", "shared", true},
		{shared, "shared", "lws-only", false},
	} {
		_, err := tc.caches.Get(ServiceAccounts, "ns", tc.name)
		switch {
		case tc.found && err != nil:
			t.Errorf("%s layer: Get(%s): %v, want it found", tc.layer, tc.name, err)
		case !tc.found && !apierrors.IsNotFound(err):
			t.Errorf("%s layer: Get(%s): %v, want NotFound", tc.layer, tc.name, err)
		}
	}
}
