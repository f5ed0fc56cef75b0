package engine

import (
	"context"
	"errors"
	"testing"

	"k8s.io/component-base/metrics/testutil"

	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"k8s.io/utils/clock"
)

func TestSyncsAreCounted(t *testing.T) {
	fail := errors.New("boom")
	recorder := events.NewInMemoryRecorder("test", clock.RealClock{})
	ok := MeasuredSync("test-single", func(context.Context, factory.SyncContext) error { return nil })
	bad := MeasuredSync("test-single", func(context.Context, factory.SyncContext) error { return fail })
	syncCtx := factory.NewSyncContext("test", recorder)
	// The counters are the process's: count from what they hold now (go test -count=N).
	before := map[string]float64{}
	for _, result := range []string{"ok", "error"} {
		before[result], _ = testutil.GetCounterMetricValue(syncsTotal.WithLabelValues("test-single", result))
	}
	for i := 0; i < 3; i++ {
		if err := ok(context.Background(), syncCtx); err != nil {
			t.Fatal(err)
		}
	}
	if err := bad(context.Background(), syncCtx); !errors.Is(err, fail) {
		t.Fatalf("the sync's error must come through: %v", err)
	}
	for result, want := range map[string]float64{"ok": 3, "error": 1} {
		got, err := testutil.GetCounterMetricValue(syncsTotal.WithLabelValues("test-single", result))
		if got -= before[result]; err != nil || got != want {
			t.Errorf("syncs_total{result=%s} = %v (%v), want %v", result, got, err, want)
		}
	}
}
