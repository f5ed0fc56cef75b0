// Package result is the contract between the reliability suites (hack/test-reliability.sh) and
// their report: each suite writes one Suite as <dir>/<name>.json, and the report reads every file
// of the run's directory, prints one table and keeps the JSON next to the bench's.
package result

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// Metric is one row of the report: a count, a time or a ratio, with the unit it is in ("" for a
// count, "s" for seconds).
type Metric struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit,omitempty"`
}

// Suite is what one suite found. Passed is false when any check of the suite failed; Failures
// says which, one line each, so the report can print them without the suite's log.
type Suite struct {
	Name     string   `json:"name"`
	Passed   bool     `json:"passed"`
	Metrics  []Metric `json:"metrics"`
	Failures []string `json:"failures,omitempty"`
}

// Add appends a metric.
func (s *Suite) Add(name string, value float64, unit string) {
	s.Metrics = append(s.Metrics, Metric{Name: name, Value: value, Unit: unit})
}

// Fail records a failed check and marks the suite failed.
func (s *Suite) Fail(format string, args ...any) {
	s.Passed = false
	s.Failures = append(s.Failures, fmt.Sprintf(format, args...))
}

// Write stores s as dir/<s.Name>.json.
func (s Suite) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, s.Name+".json"), append(data, '\n'), 0o644)
}

// ReadAll reads every suite result in dir, by name.
func ReadAll(dir string) ([]Suite, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	suites := make([]Suite, 0, len(files))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var s Suite
		if err := json.Unmarshal(data, &s); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		suites = append(suites, s)
	}
	sort.Slice(suites, func(i, j int) bool { return suites[i].Name < suites[j].Name })
	return suites, nil
}
