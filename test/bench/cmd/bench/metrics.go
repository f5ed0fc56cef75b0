package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/llm-infra/llm-infra-operator/test/internal/live"
)

// The operator's own metrics (pkg/operator/engine/metrics.go): a sync that changes nothing
// sends no request, so the audit log cannot count syncs; these counters can.
const (
	syncsMetric        = "llm_infra_operator_syncs_total"
	syncDurationMetric = "llm_infra_operator_sync_duration_seconds"
	heapInUseMetric    = "go_memstats_heap_inuse_bytes"

	// The operand label values of the sync metrics (lws.OperandName, batchgateway.OperandName;
	// the inference gateway's is operandInferenceGateway).
	operandLWS          = "lws"
	operandBatchGateway = "batch-gateway"
)

// operatorMetrics is one scrape of the operator's /metrics, by metric family name.
type operatorMetrics map[string]*dto.MetricFamily

// scrape reads the operator's /metrics (controllercmd's secure server) with the admin's bearer
// token: the operator authenticates and authorizes it by delegation (a TokenReview and a
// SubjectAccessReview, counted apart as "reviews" in the audit log). Its certificate is
// self-signed; the server is on loopback.
func (b *bench) scrape(ctx context.Context) (operatorMetrics, error) {
	raw, err := b.fetch(ctx, "/metrics")
	if err != nil {
		return nil, fmt.Errorf("scrape: %w", err)
	}
	return parseMetrics(bytes.NewReader(raw))
}

// parseMetrics reads the Prometheus text format.
func parseMetrics(r io.Reader) (operatorMetrics, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(r)
	if err != nil {
		return nil, fmt.Errorf("parse /metrics: %w", err)
	}
	return operatorMetrics(families), nil
}

// matches says whether a sample carries every label of want.
func matches(m *dto.Metric, want map[string]string) bool {
	for k, v := range want {
		found := false
		for _, l := range m.GetLabel() {
			if l.GetName() == k && l.GetValue() == v {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// sum adds up the counter or gauge samples of a family that carry the labels of want; NaN when
// the family is missing.
func (om operatorMetrics) sum(name string, want map[string]string) float64 {
	mf, ok := om[name]
	if !ok {
		return math.NaN()
	}
	total := 0.0
	for _, m := range mf.GetMetric() {
		if !matches(m, want) {
			continue
		}
		switch {
		case m.Counter != nil:
			total += m.GetCounter().GetValue()
		case m.Gauge != nil:
			total += m.GetGauge().GetValue()
		case m.Untyped != nil:
			total += m.GetUntyped().GetValue()
		}
	}
	return total
}

// histogram returns the sum and count of a histogram family's samples that carry the labels
// of want.
func (om operatorMetrics) histogram(name string, want map[string]string) (sum, count float64) {
	mf, ok := om[name]
	if !ok {
		return 0, 0
	}
	for _, m := range mf.GetMetric() {
		if h := m.GetHistogram(); h != nil && matches(m, want) {
			sum += h.GetSampleSum()
			count += float64(h.GetSampleCount())
		}
	}
	return sum, count
}

// syncStats are an operand's sync counters at one moment.
type syncStats struct {
	at       time.Time
	syncs    float64 // llm_infra_operator_syncs_total, every result
	errors   float64 // of which result="error"
	duration float64 // sum of llm_infra_operator_sync_duration_seconds
	timed    float64 // count of llm_infra_operator_sync_duration_seconds
}

// syncStats scrapes an operand's sync counters. A counter the operand has not touched yet is
// absent from /metrics: it counts as 0.
func (b *bench) syncStats(ctx context.Context, operand string) (syncStats, error) {
	om, err := b.scrape(ctx)
	if err != nil {
		return syncStats{}, err
	}
	return om.syncStats(operand), nil
}

func (om operatorMetrics) syncStats(operand string) syncStats {
	zeroIfNaN := func(v float64) float64 {
		if math.IsNaN(v) {
			return 0
		}
		return v
	}
	s := syncStats{
		at:     time.Now(),
		syncs:  zeroIfNaN(om.sum(syncsMetric, map[string]string{"operand": operand})),
		errors: zeroIfNaN(om.sum(syncsMetric, map[string]string{"operand": operand, "result": "error"})),
	}
	s.duration, s.timed = om.histogram(syncDurationMetric, map[string]string{"operand": operand})
	return s
}

// since is what happened between two scrapes: syncs, failed syncs, and the mean duration of a
// sync (NaN without syncs).
func (s syncStats) since(before syncStats) (syncs, errors, meanDuration float64) {
	syncs = s.syncs - before.syncs
	errors = s.errors - before.errors
	meanDuration = math.NaN()
	if n := s.timed - before.timed; n > 0 {
		meanDuration = (s.duration - before.duration) / n
	}
	return syncs, errors, meanDuration
}

// waitSyncs polls an operand's sync counter until it has counted at least want syncs since
// before and then stayed put for settle (so late syncs of the same burst are counted too), or
// until timeout. It returns the last scrape and when the counter first reached want (zero if
// it never did).
func (b *bench) waitSyncs(ctx context.Context, operand string, before syncStats, want float64, settle, timeout time.Duration) (syncStats, time.Time, error) {
	var last syncStats
	var reached, changed time.Time
	err := live.Poll(ctx, 200*time.Millisecond, timeout, func() (bool, error) {
		s, err := b.syncStats(ctx, operand)
		if err != nil {
			return false, err
		}
		if s.syncs != last.syncs {
			changed = s.at
		}
		last = s
		if s.syncs-before.syncs < want {
			return false, nil
		}
		if reached.IsZero() {
			reached = s.at
		}
		return time.Since(changed) >= settle, nil
	})
	if err != nil && !reached.IsZero() {
		err = nil // every sync was counted; only the settling was cut short
	}
	return last, reached, err
}

// heapInUse is go_memstats_heap_inuse_bytes in MiB, NaN when it cannot be scraped.
func (b *bench) heapInUse(ctx context.Context) float64 {
	om, err := b.scrape(ctx)
	if err != nil {
		logf("%v", err)
		return math.NaN()
	}
	v := om.sum(heapInUseMetric, nil)
	if math.IsNaN(v) {
		logf("scrape /metrics: no %s", heapInUseMetric)
	}
	return v / (1 << 20)
}
