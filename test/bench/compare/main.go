// Command compare prints two `make bench` results side by side:
//
//	go run ./test/bench/compare OLD.json NEW.json     (make bench-compare OLD=... NEW=...)
//
// For each metric: old median, new median, new/old ratio, and a verdict. A change is called
// better or worse only when the metric has a direction, the medians differ by at least 10% and
// the two runs' [min, max] ranges do not overlap (single-sample metrics: at least 25%, marked
// "(n=1)"); otherwise it is "~". Metrics present in only one file are listed
// with "-" on the other side.
package main

import (
	"fmt"
	"math"
	"os"

	"github.com/llm-infra/llm-infra-operator/test/bench/internal/report"
)

func main() {
	if len(os.Args) != 3 || os.Args[1] == "" || os.Args[2] == "" {
		fmt.Fprintln(os.Stderr, "usage: compare OLD.json NEW.json   (make bench-compare OLD=_output/bench/... NEW=_output/bench/...)")
		os.Exit(2)
	}
	oldRes, err := report.Load(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	newRes, err := report.Load(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("old: %s  commit %s%s  %s  runs %d\n", os.Args[1], short(oldRes.Commit), dirty(oldRes.Dirty), oldRes.Started.Format("2006-01-02 15:04Z"), oldRes.Runs)
	fmt.Printf("new: %s  commit %s%s  %s  runs %d\n", os.Args[2], short(newRes.Commit), dirty(newRes.Dirty), newRes.Started.Format("2006-01-02 15:04Z"), newRes.Runs)
	for k, v := range newRes.Settings {
		if ov, ok := oldRes.Settings[k]; ok && ov != v && k != "audit log" {
			fmt.Printf("note: setting %s differs: old %q, new %q\n", k, ov, v)
		}
	}

	// Metrics grouped by scenario, scenarios and metrics in the order they first appear (new
	// file first, so the current layout wins; metrics only in the old file follow).
	var scenarios []string
	byScenario := map[string][]string{}
	seen := map[string]bool{}
	for _, m := range append(append([]*report.Metric(nil), newRes.Metrics...), oldRes.Metrics...) {
		if seen[m.Key()] {
			continue
		}
		seen[m.Key()] = true
		if _, ok := byScenario[m.Scenario]; !ok {
			scenarios = append(scenarios, m.Scenario)
		}
		byScenario[m.Scenario] = append(byScenario[m.Scenario], m.Key())
	}
	var keys []string
	for _, sc := range scenarios {
		keys = append(keys, byScenario[sc]...)
	}
	scenario := ""
	var rows [][]string
	flush := func() {
		if len(rows) > 0 {
			report.PrintRows(os.Stdout, []string{"metric", "old median", "new median", "ratio", "unit", "verdict"}, rows, "lrrrll")
		}
		rows = nil
	}
	for _, k := range keys {
		o, n := oldRes.Find(k), newRes.Find(k)
		m := n
		if m == nil {
			m = o
		}
		if m.Scenario != scenario {
			flush()
			scenario = m.Scenario
			fmt.Printf("\n== %s\n", scenario)
		}
		rows = append(rows, []string{m.Name, median(o), median(n), ratio(o, n), m.Unit, verdict(o, n)})
	}
	flush()
}

func short(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}

func dirty(d bool) string {
	if d {
		return "-dirty"
	}
	return ""
}

func median(m *report.Metric) string {
	if m == nil || len(m.Samples) == 0 {
		return "-"
	}
	return report.FormatValue(m.Median)
}

func ratio(o, n *report.Metric) string {
	if o == nil || n == nil || len(o.Samples) == 0 || len(n.Samples) == 0 {
		return "-"
	}
	switch {
	case o.Median == 0 && n.Median == 0:
		return "1.00"
	case o.Median == 0:
		return "+inf"
	}
	r := n.Median / o.Median
	if math.IsNaN(r) {
		return "-"
	}
	return fmt.Sprintf("%.2f", r)
}

func verdict(o, n *report.Metric) string {
	if o == nil {
		return "new metric"
	}
	if n == nil {
		return "gone"
	}
	if len(o.Samples) == 0 || len(n.Samples) == 0 {
		return "-"
	}
	if o.Better == "" {
		if n.Median == o.Median {
			return "="
		}
		return ""
	}
	// A change counts when it is at least minChange of the old value (or, from 0, at least 1),
	// and, with two or more samples each, the min..max ranges do not overlap. With a single
	// sample there is no spread to go by: the threshold is higher and the verdict says so.
	rel := math.Inf(1)
	if o.Median != 0 {
		rel = math.Abs(n.Median-o.Median) / math.Abs(o.Median)
	} else if math.Abs(n.Median) < 1 {
		rel = 0
	}
	single := len(o.Samples) < 2 || len(n.Samples) < 2
	threshold, suffix := minChange, ""
	if single {
		threshold, suffix = minChangeSingle, " (n=1)"
	}
	if rel < threshold || (!single && !(n.Min > o.Max || n.Max < o.Min)) {
		return "~"
	}
	if (o.Better == "lower") == (n.Median > o.Median) {
		return "WORSE" + suffix
	}
	return "better" + suffix
}

const (
	minChange       = 0.10
	minChangeSingle = 0.25
)
