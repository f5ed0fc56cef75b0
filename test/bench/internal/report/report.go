// Package report holds the result of a `make bench` run: the metrics with their samples and
// summary statistics, the JSON file they are saved in, and the tables printed from them (by the
// bench itself and by `make bench-compare`).
package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"
	"time"
)

// SchemaVersion changes when the JSON layout changes incompatibly.
const SchemaVersion = 1

// Result is one bench run: what was measured, where, and every metric.
type Result struct {
	Schema    int       `json:"schema"`
	Commit    string    `json:"commit"`
	Dirty     bool      `json:"dirty"`
	Started   time.Time `json:"started"`
	Finished  time.Time `json:"finished"`
	Runs      int       `json:"runs"`
	Cluster   string    `json:"cluster"`
	GoVersion string    `json:"goVersion"`
	CPUs      int       `json:"cpus"`
	// Settings are the knobs the run used (env values), so two files can be compared knowingly.
	Settings map[string]string `json:"settings"`
	Metrics  []*Metric         `json:"metrics"`
	// Findings are plain-text observations backed by evidence (audit-log lines), e.g. writes
	// where the goal is none.
	Findings []string `json:"findings,omitempty"`
	// Details carries per-scenario evidence: audit-log breakdowns of writes by verb and object.
	Details map[string]any `json:"details,omitempty"`
}

// Metric is one measured quantity with all its samples.
type Metric struct {
	Scenario string `json:"scenario"`
	Name     string `json:"name"`
	Unit     string `json:"unit"`
	// Goal is the target, in words ("0", "<= 20", "as low as possible"); printed next to the figure.
	Goal string `json:"goal,omitempty"`
	// Better is "lower" or "higher" when a direction is meaningful (bench-compare uses it).
	Better  string    `json:"better,omitempty"`
	Note    string    `json:"note,omitempty"`
	Samples []float64 `json:"samples"`
	Median  float64   `json:"median"`
	Min     float64   `json:"min"`
	Max     float64   `json:"max"`
	P25     float64   `json:"p25"`
	P75     float64   `json:"p75"`
}

// Key identifies a metric across runs.
func (m *Metric) Key() string { return m.Scenario + "/" + m.Name }

// Summarize fills Median, Min, Max, P25 and P75 from Samples (NaN samples are dropped).
func (m *Metric) Summarize() {
	var s []float64
	for _, v := range m.Samples {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			s = append(s, v)
		}
	}
	m.Samples = s
	if len(s) == 0 {
		m.Median, m.Min, m.Max, m.P25, m.P75 = math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()
		return
	}
	sorted := append([]float64(nil), s...)
	sort.Float64s(sorted)
	m.Min = sorted[0]
	m.Max = sorted[len(sorted)-1]
	m.Median = quantile(sorted, 0.5)
	m.P25 = quantile(sorted, 0.25)
	m.P75 = quantile(sorted, 0.75)
}

// quantile interpolates linearly between the closest ranks of sorted.
func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 1 {
		return sorted[0]
	}
	pos := q * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	hi := int(math.Ceil(pos))
	frac := pos - float64(lo)
	return sorted[lo] + (sorted[hi]-sorted[lo])*frac
}

// MarshalJSON writes NaN (a metric without samples) as null-free zero with an empty sample list.
func (m *Metric) MarshalJSON() ([]byte, error) {
	type plain Metric
	c := plain(*m)
	for _, p := range []*float64{&c.Median, &c.Min, &c.Max, &c.P25, &c.P75} {
		if math.IsNaN(*p) {
			*p = 0
		}
	}
	if c.Samples == nil {
		c.Samples = []float64{}
	}
	return json.Marshal(c)
}

// Add appends a metric built from samples and returns it.
func (r *Result) Add(scenario, name, unit, goal, better string, samples ...float64) *Metric {
	m := &Metric{Scenario: scenario, Name: name, Unit: unit, Goal: goal, Better: better, Samples: samples}
	m.Summarize()
	r.Metrics = append(r.Metrics, m)
	return m
}

// Find returns the metric with the given key, or nil.
func (r *Result) Find(key string) *Metric {
	for _, m := range r.Metrics {
		if m.Key() == key {
			return m
		}
	}
	return nil
}

// Save writes the result as indented JSON.
func (r *Result) Save(path string) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// Load reads a result written by Save.
func Load(path string) (*Result, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r := &Result{}
	if err := json.Unmarshal(data, r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if r.Schema != SchemaVersion {
		return nil, fmt.Errorf("%s: schema %d, this program reads schema %d", path, r.Schema, SchemaVersion)
	}
	return r, nil
}

// FormatValue prints a figure with a precision that suits its size.
func FormatValue(v float64) string {
	switch {
	case math.IsNaN(v):
		return "n/a"
	case v == math.Trunc(v) && math.Abs(v) < 1e9:
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 100:
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}

// PrintTable prints every metric, grouped by scenario in the order they were added.
func (r *Result) PrintTable(w io.Writer, titles map[string]string) {
	var order []string
	seen := map[string]bool{}
	for _, m := range r.Metrics {
		if !seen[m.Scenario] {
			seen[m.Scenario] = true
			order = append(order, m.Scenario)
		}
	}
	for _, sc := range order {
		title := titles[sc]
		if title == "" {
			title = sc
		}
		fmt.Fprintf(w, "\n== %s\n", title)
		var rows [][]string
		for _, m := range r.Metrics {
			if m.Scenario != sc {
				continue
			}
			goal := ""
			if m.Goal != "" {
				goal = "goal: " + m.Goal
			}
			rows = append(rows, []string{m.Name, FormatValue(m.Median), FormatValue(m.Min), FormatValue(m.Max),
				fmt.Sprint(len(m.Samples)), m.Unit, goal})
		}
		PrintRows(w, []string{"metric", "median", "min", "max", "n", "unit", ""}, rows, "lrrrrll")
		for _, m := range r.Metrics {
			if m.Scenario == sc && m.Note != "" {
				fmt.Fprintf(w, "  * %s: %s\n", m.Name, m.Note)
			}
		}
	}
	if len(r.Findings) > 0 {
		fmt.Fprintf(w, "\n== Findings\n")
		for _, f := range r.Findings {
			fmt.Fprintf(w, "  - %s\n", strings.ReplaceAll(f, "\n", "\n    "))
		}
	}
}

// PrintRows prints an aligned table; align has one letter per column, l(eft) or r(ight).
func PrintRows(w io.Writer, header []string, rows [][]string, align string) {
	width := make([]int, len(header))
	for _, row := range append([][]string{header}, rows...) {
		for i, c := range row {
			if len(c) > width[i] {
				width[i] = len(c)
			}
		}
	}
	line := func(row []string) {
		var b strings.Builder
		b.WriteString("  ")
		for i, c := range row {
			if i > 0 {
				b.WriteString("  ")
			}
			pad := strings.Repeat(" ", width[i]-len(c))
			if align[i] == 'r' {
				b.WriteString(pad + c)
			} else if i == len(row)-1 {
				b.WriteString(c)
			} else {
				b.WriteString(c + pad)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	line(header)
	for _, row := range rows {
		line(row)
	}
}
