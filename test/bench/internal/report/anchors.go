package report

import (
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// The measures of one side of an anchors workload (make bench-anchors), in the table's order.
const (
	AnchorRSSBefore    = "RSS before any CR (MiB)"
	AnchorTime         = "time to converged (s)"
	AnchorCPU          = "CPU to converge (CPU-s)"
	AnchorWrites       = "writes until converged (excl. events, leases)"
	AnchorEvents       = "events until converged"
	AnchorReads        = "API reads (get/list) until converged"
	AnchorConflicts    = "409 conflicts until converged"
	AnchorQuietWrites  = "writes while quiet"
	AnchorQuietReads   = "API reads while quiet"
	AnchorResyncWrites = "forced resync: writes"
	AnchorResyncReads  = "forced resync: API reads"
	AnchorDrift        = "drift repair: operand Deployment deleted -> back (s)"
	AnchorRSSConverged = "RSS converged (MiB, median of the quiet window)"
	AnchorRSSPeak      = "peak RSS (VmHWM, MiB)"
	// The anonymous part of the RSS (RssAnon: heap, stacks, the runtime's own), without the
	// pages of the binary itself, which are shared, clean, and reclaimable by the kernel. The two
	// binaries differ several-fold in size (this one links controllercmd's dependencies), so VmRSS
	// alone mixes what a process holds with how big its program is.
	AnchorAnonBefore    = "anonymous RSS before any CR (RssAnon, MiB)"
	AnchorAnonConverged = "anonymous RSS converged (RssAnon, MiB, end of the quiet window)"
	// This operator's syncs (its own metric; the anchors have no such counter): every sync
	// renders and applies the CR's objects, so syncs times the cost of one is most of the CPU
	// to converge.
	AnchorSyncs = "syncs per CR until converged (ours only)"
)

// AnchorMeasures are the measures in the table's order.
var AnchorMeasures = []string{AnchorRSSBefore, AnchorTime, AnchorCPU, AnchorWrites, AnchorEvents, AnchorReads,
	AnchorConflicts, AnchorQuietWrites, AnchorQuietReads, AnchorResyncWrites, AnchorResyncReads, AnchorDrift,
	AnchorRSSConverged, AnchorRSSPeak, AnchorAnonBefore, AnchorAnonConverged, AnchorSyncs}

// AnchorRow is one line of the anchors' table.
type AnchorRow struct {
	Workload string   `json:"workload"`
	Measure  string   `json:"measure"`
	Anchor   *float64 `json:"anchor"`
	Ours     *float64 `json:"ours"`
	// Ratio is ours/anchor (nil when either is missing or the anchor's is 0).
	Ratio *float64 `json:"ratio"`
}

// NewAnchorRow is the row of one measure, its ratio computed.
func NewAnchorRow(workload, measure string, anchor, ours *float64) AnchorRow {
	row := AnchorRow{Workload: workload, Measure: measure, Anchor: anchor, Ours: ours}
	if anchor != nil && ours != nil && *anchor != 0 {
		r := *ours / *anchor
		row.Ratio = &r
	}
	return row
}

// AnchorTable is the file make bench-anchors writes next to the bench's results
// (anchors-<commit>-<time>.json).
type AnchorTable struct {
	Commit   string            `json:"commit"`
	Started  time.Time         `json:"started"`
	Settings map[string]string `json:"settings"`
	// Anchors are the upstream operators' pins (hack/bench/anchors.tsv): name -> commit.
	Anchors map[string]string `json:"anchors"`
	Rows    []AnchorRow       `json:"rows"`
	// Failures say, per workload and side, how a side did not complete it.
	Failures []string `json:"failures,omitempty"`
}

// LoadAnchorTable reads a file written by make bench-anchors.
func LoadAnchorTable(path string) (*AnchorTable, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	t := &AnchorTable{}
	if err := json.Unmarshal(data, t); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(t.Rows) == 0 {
		return nil, fmt.Errorf("%s: no rows: not an anchors table (anchors-<commit>-<time>.json)", path)
	}
	return t, nil
}
