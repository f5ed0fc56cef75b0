package main

import (
	"strings"
	"testing"

	"github.com/llm-infra/llm-infra-operator/test/reliability/result"
)

func TestPrintShowsEverySuiteMetricAndFailure(t *testing.T) {
	run := Run{Commit: "0123456789abcdef", CPUs: 2, Suites: []result.Suite{
		{Name: "faults", Passed: true, Metrics: []result.Metric{{Name: "faults injected", Value: 20}, {Name: "worst time to converge after the fault", Value: 7.25, Unit: "s"}}},
		{Name: "admission", Passed: false, Metrics: []result.Metric{{Name: "CRs tried", Value: 40}}, Failures: []string{"a CR was admitted"}},
	}}
	var out strings.Builder
	Print(&out, run)
	for _, want := range []string{"0123456789ab", "faults injected", " 20\n", "7.2 s", "FAILED (1)", "! a CR was admitted", "CRs tried"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the table lacks %q:\n%s", want, out.String())
		}
	}
}
