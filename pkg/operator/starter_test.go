package operator

import (
	"context"
	"testing"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

func TestWithClientLimitsCopies(t *testing.T) {
	original := &rest.Config{Host: "https://127.0.0.1:6443", QPS: 5, Burst: 10}
	got := withClientLimits(original)
	if got.QPS != 50 || got.Burst != 100 {
		t.Errorf("limits = %v/%d, want 50/100", got.QPS, got.Burst)
	}
	if original.QPS != 5 || original.Burst != 10 {
		t.Errorf("the caller's config was changed: %v/%d", original.QPS, original.Burst)
	}
	if got.Host != original.Host {
		t.Errorf("host = %q, want %q", got.Host, original.Host)
	}
}

// A stop during start-up must end the start function without an error: controllercmd exits at
// once on an error, without releasing the leader lease, and the next operator process waited
// 2m48s for it in the bench.
func TestCachesSyncedStopDuringStartUpIsNoError(t *testing.T) {
	synced := func() bool { return true }
	never := func() bool { return false }
	for _, tc := range []struct {
		name      string
		cancelled bool
		factories map[string]map[string]bool
		hasSynced []cache.InformerSynced
		wantErr   bool
	}{
		{name: "all synced", factories: map[string]map[string]bool{"managed": {"Deployment": true}}, hasSynced: []cache.InformerSynced{synced}},
		{name: "stopped while a factory's informer syncs", cancelled: true,
			factories: map[string]map[string]bool{"custom resource": {"Gateway": false}}, hasSynced: []cache.InformerSynced{synced}},
		{name: "stopped while another informer syncs", cancelled: true,
			factories: map[string]map[string]bool{"managed": {"Deployment": true}}, hasSynced: []cache.InformerSynced{never}},
		{name: "a factory's informer did not sync, not stopping",
			factories: map[string]map[string]bool{"custom resource": {"Gateway": false}}, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancelled {
				cancel()
			}
			err := cachesSynced(ctx, tc.factories, tc.hasSynced)
			if (err != nil) != tc.wantErr {
				t.Errorf("cachesSynced = %v, want an error: %v", err, tc.wantErr)
			}
		})
	}
}
