package main

import (
	"math"
	"strings"
	"testing"
)

// A scrape as the operator serves it (component-base's registry), trimmed.
const sampleMetrics = `# HELP llm_infra_operator_syncs_total [ALPHA] Syncs of each operand, by result (ok or error).
# TYPE llm_infra_operator_syncs_total counter
llm_infra_operator_syncs_total{operand="batch-gateway",result="error"} 2
llm_infra_operator_syncs_total{operand="batch-gateway",result="ok"} 400
llm_infra_operator_syncs_total{operand="lws",result="ok"} 21
# HELP llm_infra_operator_sync_duration_seconds [ALPHA] How long a sync of each operand takes.
# TYPE llm_infra_operator_sync_duration_seconds histogram
llm_infra_operator_sync_duration_seconds_bucket{operand="lws",le="0.001"} 0
llm_infra_operator_sync_duration_seconds_bucket{operand="lws",le="+Inf"} 21
llm_infra_operator_sync_duration_seconds_sum{operand="lws"} 0.42
llm_infra_operator_sync_duration_seconds_count{operand="lws"} 21
llm_infra_operator_sync_duration_seconds_bucket{operand="batch-gateway",le="+Inf"} 402
llm_infra_operator_sync_duration_seconds_sum{operand="batch-gateway"} 4.02
llm_infra_operator_sync_duration_seconds_count{operand="batch-gateway"} 402
# HELP go_memstats_heap_inuse_bytes Number of heap bytes that are in use.
# TYPE go_memstats_heap_inuse_bytes gauge
go_memstats_heap_inuse_bytes 4.194304e+07
`

func TestSyncStats(t *testing.T) {
	om, err := parseMetrics(strings.NewReader(sampleMetrics))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		operand                   string
		syncs, errors, sum, count float64
	}{
		{operandLWS, 21, 0, 0.42, 21},
		{operandBatchGateway, 402, 2, 4.02, 402},
		{"absent", 0, 0, 0, 0},
	} {
		s := om.syncStats(tc.operand)
		if s.syncs != tc.syncs || s.errors != tc.errors || s.duration != tc.sum || s.timed != tc.count {
			t.Errorf("%s: got syncs %v errors %v duration %v/%v, want %v %v %v/%v", tc.operand, s.syncs, s.errors, s.duration, s.timed, tc.syncs, tc.errors, tc.sum, tc.count)
		}
	}
	if got := om.sum(heapInUseMetric, nil); got != 40<<20 {
		t.Errorf("heap in use: got %v, want %v", got, 40<<20)
	}
	if got := om.sum("missing_metric", nil); !math.IsNaN(got) {
		t.Errorf("a missing family: got %v, want NaN", got)
	}
}

func TestSyncStatsSince(t *testing.T) {
	before := syncStats{syncs: 10, errors: 1, duration: 1, timed: 10}
	after := syncStats{syncs: 30, errors: 1, duration: 3, timed: 30}
	syncs, errors, mean := after.since(before)
	if syncs != 20 || errors != 0 || mean != 0.1 {
		t.Errorf("got %v syncs, %v errors, mean %v; want 20, 0, 0.1", syncs, errors, mean)
	}
	if _, _, mean := before.since(before); !math.IsNaN(mean) {
		t.Errorf("no syncs: mean %v, want NaN", mean)
	}
}
