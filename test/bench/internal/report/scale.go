package report

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// PlatformScaleScenario is scenario 8 (make bench-scale): its steps are the scenarios
// "<PlatformScaleScenario>-<n>" (n CRs of each gateway, n/2 MCPs), its growth between the two
// "<PlatformScaleScenario>-growth".
const PlatformScaleScenario = "8-platform-scale"

// PlatformStepScenario is the scenario id of the step with n CRs of each gateway.
func PlatformStepScenario(n int) string { return fmt.Sprintf("%s-%d", PlatformScaleScenario, n) }

// PlatformSteps are the sizes of the scenario 8 steps a result holds, smallest first.
func (r *Result) PlatformSteps() []int {
	var steps []int
	seen := map[int]bool{}
	for _, m := range r.Metrics {
		rest, ok := strings.CutPrefix(m.Scenario, PlatformScaleScenario+"-")
		if !ok {
			continue
		}
		n, err := strconv.Atoi(rest)
		if err != nil || seen[n] {
			continue
		}
		seen[n] = true
		steps = append(steps, n)
	}
	sort.Ints(steps)
	return steps
}

// GrowthMeasure is a figure of a scenario 8 step that is compared between the two steps.
type GrowthMeasure struct {
	// Name is the metric's name in a step.
	Name string
	// PerCR: the growth is per CR (a total, goal flat); otherwise the figure as it is (memory,
	// watches: the CRs' ratio is the bound).
	PerCR bool
	// Panel and Label place it in make bench-charts' growth chart: measures of one panel share
	// its axis.
	Panel, Label string
}

// GrowthMeasures are the figures scenario 8 compares between its steps, and charts.
var GrowthMeasures = []GrowthMeasure{
	{"CRs created -> all Gateways Available", true, "CRs created -> converged (s)", "Gateways"},
	{"CRs created -> all LLMBatchGateways Ready", true, "CRs created -> converged (s)", "LLMBatchGateways"},
	{"CRs created -> all MCPs Available", true, "CRs created -> converged (s)", "MCPs"},
	{"operator CPU from the first CR's creation until all converged", true, "operator CPU until converged (CPU-s)", "CPU"},
	{"operator writes until all converged (excl. events, leases)", true, "operator writes until converged", "writes"},
	{"operator API reads (get/list) until all converged", true, "operator API reads until converged", "reads"},
	{"events emitted until all converged", true, "events until converged", "events"},
	{"peak RSS (VmHWM) after convergence", false, "memory (MiB)", "peak RSS (VmHWM)"},
	{"heap in use by the profile (after a GC)", false, "memory (MiB)", "heap in use (after a GC)"},
	{"watches open at steady state", false, "watches open at steady state", "watches"},
}
