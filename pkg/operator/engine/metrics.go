package engine

import (
	"context"
	"sort"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"

	"github.com/openshift/library-go/pkg/controller/factory"
)

// Operator metrics, served on the operator's /metrics with controllercmd's delegated
// authentication and authorization. They count what logs cannot: how often each operand syncs
// and how long a sync takes (the benchmarks use them as their sync marker, since a quiet sync
// sends no request that an audit log would show), which steps fail and why, what the operator
// writes, and which CRs are Degraded. deploy/monitoring/prometheusrule.yaml alerts on them.
//
// Cardinality is bounded: operand, step, reason, resource and verb each take a few values fixed
// by the code. Only llm_infra_operator_degraded names CRs (namespace and name): there is one CR
// per gateway the cluster runs, a few at most per namespace, and its series are computed at
// scrape time from the informer caches, so a deleted CR leaves no series behind.
const metricsNamespace = "llm_infra_operator"

var (
	syncsTotal = metrics.NewCounterVec(&metrics.CounterOpts{
		Namespace:      metricsNamespace,
		Name:           "syncs_total",
		Help:           "Syncs of each operand, by result (ok or error).",
		StabilityLevel: metrics.ALPHA,
	}, []string{"operand", "result"})
	syncDuration = metrics.NewHistogramVec(&metrics.HistogramOpts{
		Namespace:      metricsNamespace,
		Name:           "sync_duration_seconds",
		Help:           "How long a sync of each operand takes.",
		Buckets:        []float64{0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30},
		StabilityLevel: metrics.ALPHA,
	}, []string{"operand"})
	stepFailures = metrics.NewCounterVec(&metrics.CounterOpts{
		Namespace: metricsNamespace,
		Name:      "step_failures_total",
		Help: "Steps of an operand's table that failed in a sync, by step and condition reason " +
			"(a step waiting for something, Progressing, is not a failure).",
		StabilityLevel: metrics.ALPHA,
	}, []string{"operand", "step", "reason"})
	writesTotal = metrics.NewCounterVec(&metrics.CounterOpts{
		Namespace: metricsNamespace,
		Name:      "writes_total",
		Help: "Objects the operator created, updated or deleted for its operands (requests the API " +
			"server accepted), by resource (resource.group) and verb.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"operand", "resource", "verb"})

	// registered is every metric of the engine, registered once in init.
	registered = []metrics.Registerable{syncsTotal, syncDuration, stepFailures, writesTotal}
)

// DegradedMetric is the gauge of each CR's Degraded condition (see DegradedSource).
const DegradedMetric = metricsNamespace + "_degraded"

const degradedHelp = "1 while a CR's Degraded condition is True, else 0, by operand, the CR's namespace (empty for " +
	"the cluster-scoped LeaderWorkerSetOperator) and name, and the condition's reason. A CR " +
	"not synced yet has no series."

var degradedDesc = metrics.NewDesc(DegradedMetric, degradedHelp,
	[]string{"operand", "cr_namespace", "cr_name", "reason"}, nil, metrics.ALPHA, "")

func init() {
	legacyregistry.MustRegister(registered...)
	legacyregistry.CustomMustRegister(degraded)
}

// MetricNames are the names of the series the engine's metrics produce (a histogram's
// _bucket, _sum and _count): what alert rules and dashboards may refer to.
func MetricNames() []string {
	names := []string{DegradedMetric}
	for _, m := range registered {
		if _, ok := m.(*metrics.HistogramVec); ok {
			names = append(names, m.FQName()+"_bucket", m.FQName()+"_sum", m.FQName()+"_count")
			continue
		}
		names = append(names, m.FQName())
	}
	sort.Strings(names)
	return names
}

// operandKey carries the name of the operand a sync belongs to, for the metrics recorded deep
// inside it (a failed step, a write), which take the operand as a label.
type operandKey struct{}

// WithOperand returns a context for one sync of the named operand. MeasuredSync and KeyedSync
// set it for every sync.
func WithOperand(ctx context.Context, operand string) context.Context {
	return context.WithValue(ctx, operandKey{}, operand)
}

// operandOf is the operand of the sync ctx belongs to, "unknown" outside one.
func operandOf(ctx context.Context) string {
	if operand, ok := ctx.Value(operandKey{}).(string); ok {
		return operand
	}
	return "unknown"
}

// MeasuredSync wraps the sync of a single-key operand so that every run is counted and timed.
func MeasuredSync(operand string, sync factory.SyncFunc) factory.SyncFunc {
	return func(ctx context.Context, syncCtx factory.SyncContext) error {
		return measure(ctx, operand, func(ctx context.Context) error { return sync(ctx, syncCtx) })
	}
}

// measure runs one sync of an operand and records it.
func measure(ctx context.Context, operand string, sync func(context.Context) error) error {
	start := time.Now()
	err := sync(WithOperand(ctx, operand))
	syncDuration.WithLabelValues(operand).Observe(time.Since(start).Seconds())
	result := "ok"
	if err != nil {
		result = "error"
	}
	syncsTotal.WithLabelValues(operand, result).Inc()
	return err
}

// countStepFailure records a step's outcome when it is a failure: anything but a step that
// waits (Progressing) or only notes something.
func countStepFailure(ctx context.Context, step string, outcome *StepError) {
	if outcome.Condition == ConditionProgressing || outcome.Condition == ConditionNote {
		return
	}
	stepFailures.WithLabelValues(operandOf(ctx), step, outcome.Reason).Inc()
}

// countWrite records one write the API server accepted.
func countWrite(ctx context.Context, resource, verb string) {
	writesTotal.WithLabelValues(operandOf(ctx), resource, verb).Inc()
}

// DegradedState is one CR's Degraded condition as its status holds it.
type DegradedState struct {
	Namespace, Name string
	Degraded        bool
	Reason          string
}

// DegradedSource lists an operand's CRs that have a Degraded condition, from an informer's
// cache (no request: it runs at every scrape).
type DegradedSource func() []DegradedState

// DegradedFromStore is the DegradedSource of namespaced CRs with metav1.Conditions, read from
// the store of their informer.
func DegradedFromStore[T metav1.Object](store cache.Store, conditions func(T) []metav1.Condition) DegradedSource {
	return func() []DegradedState {
		var out []DegradedState
		for _, obj := range store.List() {
			cr, ok := obj.(T)
			if !ok {
				continue
			}
			c := meta.FindStatusCondition(conditions(cr), ConditionDegraded)
			if c == nil {
				continue
			}
			out = append(out, DegradedState{Namespace: cr.GetNamespace(), Name: cr.GetName(),
				Degraded: c.Status == metav1.ConditionTrue, Reason: c.Reason})
		}
		return out
	}
}

// degradedCollector computes llm_infra_operator_degraded at scrape time from each operand's
// DegradedSource.
type degradedCollector struct {
	metrics.BaseStableCollector
	mu      sync.RWMutex
	sources map[string]DegradedSource
}

var degraded = &degradedCollector{sources: map[string]DegradedSource{}}

// RegisterDegradedSource makes the operand's CRs appear in llm_infra_operator_degraded. A second
// source for the same operand replaces the first.
func RegisterDegradedSource(operand string, source DegradedSource) {
	degraded.mu.Lock()
	defer degraded.mu.Unlock()
	degraded.sources[operand] = source
}

func (c *degradedCollector) DescribeWithStability(ch chan<- *metrics.Desc) { ch <- degradedDesc }

func (c *degradedCollector) CollectWithStability(ch chan<- metrics.Metric) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	for operand, source := range c.sources {
		for _, s := range source() {
			value := 0.0
			if s.Degraded {
				value = 1
			}
			ch <- metrics.NewLazyConstMetric(degradedDesc, metrics.GaugeValue, value, operand, s.Namespace, s.Name, s.Reason)
		}
	}
}
