package main

import (
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llm-infra/llm-infra-operator/test/bench/internal/report"
)

// wellFormed parses an SVG document and returns its texts.
func wellFormed(t *testing.T, doc string) []string {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(doc))
	var texts []string
	inText := false
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, doc)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			inText = tok.Name.Local == "text"
		case xml.EndElement:
			inText = false
		case xml.CharData:
			if inText {
				texts = append(texts, string(tok))
			}
		}
	}
	return texts
}

func containsText(texts []string, want string) bool {
	return slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(s, want) })
}

// wantTexts fails for each wanted text that no text element holds.
func wantTexts(t *testing.T, texts []string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !containsText(texts, want) {
			t.Errorf("no text %q in %q", want, texts)
		}
	}
}

// fixtureResult is a small scenario 8 run: 10 and 50 CRs of each gateway.
func fixtureResult() *report.Result {
	r := &report.Result{Schema: report.SchemaVersion, Commit: "0123456789abcdef", Started: time.Date(2026, 12, 5, 3, 9, 0, 0, time.UTC),
		Settings: map[string]string{"note": "a fixture"}}
	r.Add(report.PlatformStepScenario(10), "CRs created -> all Gateways Available", "s", "", "lower", 10)
	r.Add(report.PlatformStepScenario(50), "CRs created -> all Gateways Available", "s", "", "lower", 55)
	r.Add(report.PlatformStepScenario(10), "CRs created -> all MCPs Available", "s", "", "lower", 8)
	r.Add(report.PlatformStepScenario(50), "CRs created -> all MCPs Available", "s", "", "lower", 40)
	r.Add(report.PlatformStepScenario(10), "watches open at steady state", "watches", "", "lower", 41)
	r.Add(report.PlatformStepScenario(50), "watches open at steady state", "watches", "", "lower", 41)
	// Only in one step: not charted.
	r.Add(report.PlatformStepScenario(50), "heap in use by the profile (after a GC)", "MiB", "", "lower", 60)
	return r
}

func TestGrowthChart(t *testing.T) {
	doc, err := growthChart(fixtureResult())
	if err != nil {
		t.Fatal(err)
	}
	texts := wellFormed(t, doc)
	wantTexts(t, texts,
		"Growth from 10 to 50 CRs of each gateway",
		"commit 0123456, started 2026-12-05 03:09 UTC",
		"a fixture",
		"CRs created -> converged (s)",
		"Gateways: 10 at 10, 55 at 50; per CR x1.10",
		"MCPs: 8 at 10, 40 at 50; per CR x1.00",
		"watches: 41 at 10, 41 at 50; x1.00",
	)
	if containsText(texts, "memory (MiB)") {
		t.Error("a measure of one step only is charted")
	}
	// Two panels (time, watches): two panel frames besides the background.
	if n := strings.Count(doc, `stroke="#dddddd"`); n != 2 {
		t.Errorf("%d panels, want 2", n)
	}
}

func TestGrowthChartNeedsTwoSteps(t *testing.T) {
	r := &report.Result{Schema: report.SchemaVersion, Commit: "abc"}
	r.Add(report.PlatformStepScenario(200), "watches open at steady state", "watches", "", "lower", 41)
	if _, err := growthChart(r); err == nil || !strings.Contains(err.Error(), "two steps") {
		t.Errorf("err = %v, want one that asks for two steps", err)
	}
}

func ptr(v float64) *float64 { return &v }

func TestAnchorsChart(t *testing.T) {
	older := &report.AnchorTable{Commit: "1111111aaaa", Started: time.Date(2026, 12, 4, 17, 0, 0, 0, time.UTC),
		Anchors: map[string]string{"anchor-x": "fae5b925fd1d"},
		Rows: []report.AnchorRow{
			report.NewAnchorRow("gateway-500", report.AnchorCPU, ptr(9), ptr(9)),
			report.NewAnchorRow("lws", report.AnchorCPU, ptr(1), ptr(0.5)),
		}}
	newer := &report.AnchorTable{Commit: "2222222bbbb", Started: time.Date(2026, 12, 5, 5, 0, 0, 0, time.UTC),
		Settings: map[string]string{"note": "a fixture"},
		Rows: []report.AnchorRow{
			report.NewAnchorRow("gateway-500", report.AnchorCPU, ptr(8), ptr(6)),
			report.NewAnchorRow("gateway-500", report.AnchorWrites, ptr(4414), ptr(2499)),
			report.NewAnchorRow("gateway-500", report.AnchorReads, ptr(0), ptr(0)),
			report.NewAnchorRow("gateway-500", report.AnchorConflicts, ptr(0), ptr(3)),
			report.NewAnchorRow("gateway-500", report.AnchorRSSBefore, ptr(40), ptr(160)),
			report.NewAnchorRow("gateway-500", report.AnchorSyncs, nil, ptr(2.9)),
		}}
	doc, err := anchorsChart([]*report.AnchorTable{newer, older})
	if err != nil {
		t.Fatal(err)
	}
	texts := wellFormed(t, doc)
	wantTexts(t, texts,
		"anchors: anchor-x fae5b92", "a fixture",
		"lws   (commit 1111111, 2026-12-04 17:00 UTC)",
		"gateway-500   (commit 2222222, 2026-12-05 05:00 UTC)",
		"0.50  (ours 0.50, anchor 1)",
		"0.75  (ours 6, anchor 8)",
		"0.57  (ours 2,499, anchor 4,414)",
		"both 0",
		"anchor 0, ours 3",
		"4.00, beyond the axis  (ours 160, anchor 40)",
	)
	// The newer table wins for gateway-500; a measure of one side only is not drawn.
	for _, gone := range []string{"ours 9, anchor 9", "syncs per CR"} {
		if containsText(texts, gone) {
			t.Errorf("text %q drawn", gone)
		}
	}
	// lws comes first.
	if strings.Index(doc, ">lws ") > strings.Index(doc, ">gateway-500 ") {
		t.Error("lws is not the first workload")
	}
}

// TestCommittedChartsAreCurrent: docs/benchmarks/*.svg are what make bench-charts draws from
// docs/benchmarks/data/*.json, so the benchmarks page shows its data.
func TestCommittedChartsAreCurrent(t *testing.T) {
	const docs = "../../../docs/benchmarks"
	inputs, err := filepath.Glob(filepath.Join(docs, "data", "*.json"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no data in %s/data: %v", docs, err)
	}
	dir := t.TempDir()
	written, err := render(dir, inputs)
	if err != nil {
		t.Fatal(err)
	}
	committed, err := filepath.Glob(filepath.Join(docs, "*.svg"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, w := range written {
		name := filepath.Base(w)
		names = append(names, name)
		fresh, err := os.ReadFile(w)
		if err != nil {
			t.Fatal(err)
		}
		old, err := os.ReadFile(filepath.Join(docs, name))
		if err != nil || string(old) != string(fresh) {
			t.Errorf("docs/benchmarks/%s is not what its data draws: run make bench-charts-docs", name)
		}
	}
	for _, c := range committed {
		if !slices.Contains(names, filepath.Base(c)) {
			t.Errorf("docs/benchmarks/%s is drawn from no data: delete it or add its JSON", filepath.Base(c))
		}
	}
}
