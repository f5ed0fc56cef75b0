package engine

import (
	"context"
	"time"

	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"

	"github.com/openshift/library-go/pkg/controller/factory"
)

// Operator metrics, served on the operator's /metrics with controllercmd's delegated
// authentication and authorization. They count what logs cannot: how often each operand syncs
// and how long a sync takes (the benchmarks use them as their sync marker, since a quiet sync
// sends no request that an audit log would show).
var (
	syncsTotal = metrics.NewCounterVec(&metrics.CounterOpts{
		Namespace:      "llm_infra_operator",
		Name:           "syncs_total",
		Help:           "Syncs of each operand, by result (ok or error).",
		StabilityLevel: metrics.ALPHA,
	}, []string{"operand", "result"})
	syncDuration = metrics.NewHistogramVec(&metrics.HistogramOpts{
		Namespace:      "llm_infra_operator",
		Name:           "sync_duration_seconds",
		Help:           "How long a sync of each operand takes.",
		Buckets:        []float64{0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30},
		StabilityLevel: metrics.ALPHA,
	}, []string{"operand"})
)

func init() {
	legacyregistry.MustRegister(syncsTotal, syncDuration)
}

// MeasuredSync wraps the sync of a single-key operand so that every run is counted and timed.
func MeasuredSync(operand string, sync factory.SyncFunc) factory.SyncFunc {
	return func(ctx context.Context, syncCtx factory.SyncContext) error {
		return measure(operand, func() error { return sync(ctx, syncCtx) })
	}
}

// measure runs one sync of an operand and records it.
func measure(operand string, sync func() error) error {
	start := time.Now()
	err := sync()
	syncDuration.WithLabelValues(operand).Observe(time.Since(start).Seconds())
	result := "ok"
	if err != nil {
		result = "error"
	}
	syncsTotal.WithLabelValues(operand, result).Inc()
	return err
}
