package main

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/llm-infra/llm-infra-operator/bindata"
	igwv1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/operands/inferencegateway"
	"github.com/llm-infra/llm-infra-operator/test/bench/internal/report"
)

// Scenario 8: both gateways at platform scale. BENCH_SCALE LLMBatchGateways and as many
// Gateways, with half as many MCPs, in BENCH_SCALE/10 namespaces, LWS managed too, all created
// at once; first the same at BENCH_SCALE_BASE (200), in the same run, so that growth is a ratio
// of the two steps (per CR: time, CPU, memory; goal flat or falling). The operator is restarted
// before each step, so each step's peak RSS is its own.

const (
	scPlatformScale = report.PlatformScaleScenario
	// mcpCRManifest is the MCP every MCP is made from.
	mcpCRManifest = "test/bench/manifests/mcp.yaml"
)

var mcpGVR = igwv1alpha1.GroupVersion.WithResource("mcps")

// mcpKind is the MCP: its objects are named after it, listed by bindata.MCPAssets.
func mcpKind() *scaleKind {
	return &scaleKind{
		kind:      "MCP",
		gvr:       mcpGVR,
		operand:   inferencegateway.MCPOperandName,
		manifest:  mcpCRManifest,
		condition: igwv1alpha1.ConditionAvailable,
		partOf:    inferencegateway.PartOfLabel + "=" + inferencegateway.PartOfValue,
		secrets:   func(*unstructured.Unstructured) ([]*corev1.Secret, error) { return nil, nil },
		candidates: func(cr *unstructured.Unstructured) ([]objRef, error) {
			image, _, _ := unstructured.NestedString(cr.Object, "spec", "image")
			return renderRefs(bindata.MCPAssets, map[string]string{
				bindata.NamespacePlaceholder:                cr.GetNamespace(),
				bindata.InferenceGatewayInstancePlaceholder: cr.GetName(),
				bindata.InferenceGatewayImagePlaceholder:    image,
			})
		},
	}
}

// platformStep is one step of scenario 8: n CRs of each gateway, n/2 MCPs, n/10 namespaces.
type platformStep struct{ n int }

func (p platformStep) id() string { return report.PlatformStepScenario(p.n) }

func (p platformStep) namespaces() int { return max(1, p.n/10) }

// platformSteps are the steps of scenario 8: BENCH_SCALE_BASE, then BENCH_SCALE when larger.
func platformSteps(base, scale int) []platformStep {
	if scale < 1 {
		scale = 1
	}
	if base < 1 || base >= scale {
		return []platformStep{{scale}}
	}
	return []platformStep{{base}, {scale}}
}

// scenarioPlatformScale is scenario 8.
func (b *bench) scenarioPlatformScale(ctx context.Context) error {
	steps := platformSteps(b.platformBase, b.platformScale)
	var failed []string
	for _, st := range steps {
		titles[st.id()] = fmt.Sprintf("8. Both gateways at scale: %d LLMBatchGateways, %d Gateways, %d MCPs in %d namespaces (LWS managed too)",
			st.n, st.n, st.n/2, st.namespaces())
		logf("scenario 8, step %d: %d LLMBatchGateways, %d Gateways, %d MCPs in %d namespaces", st.n, st.n, st.n, st.n/2, st.namespaces())
		// A fresh process per step: its peak RSS, CPU and heap are the step's alone.
		if err := b.restartOperator(ctx); err != nil {
			return err
		}
		batch, gateway, mcp := batchKind(), gatewayKind(), mcpKind()
		err := b.runScale(ctx, &scaleScenario{
			sc:              st.id(),
			namespacePrefix: fmt.Sprintf("bench-p%d", st.n),
			namespaces:      st.namespaces(),
			kinds:           []*scaleKind{gateway, batch, mcp},
			counts:          []int{st.n, st.n, st.n / 2},
			resync:          []*scaleKind{gateway, batch, mcp},
		})
		if err != nil {
			// The next step still runs: a step that did not converge reports what it reached.
			logf("scenario 8, step %d: %v", st.n, err)
			failed = append(failed, fmt.Sprintf("step %d: %v", st.n, err))
		}
	}
	if len(steps) == 2 {
		b.platformGrowth(steps[0], steps[1])
	}
	if len(failed) > 0 {
		return fmt.Errorf("%s", strings.Join(failed, "; "))
	}
	return nil
}

// platformGrowth adds, for each measure both steps have, the ratio large/small: per CR for
// totals (goal <= 1: flat or falling), as is for memory and watches (with the CR ratio noted).
func (b *bench) platformGrowth(small, large platformStep) {
	sc := scPlatformScale + "-growth"
	titles[sc] = fmt.Sprintf("8. Growth from %d to %d of each gateway (ratio of the two steps)", small.n, large.n)
	crs := func(st platformStep) float64 { return float64(2*st.n + st.n/2) }
	for _, m := range report.GrowthMeasures {
		a, b2 := b.res.Find(small.id()+"/"+m.Name), b.res.Find(large.id()+"/"+m.Name)
		if a == nil || b2 == nil || a.Median == 0 || math.IsNaN(a.Median) || math.IsNaN(b2.Median) {
			continue
		}
		ratio := b2.Median / a.Median
		name, goal := m.Name+": large/small", fmt.Sprintf("<= %.1f (the CRs' ratio)", crs(large)/crs(small))
		if m.PerCR {
			ratio = (b2.Median / crs(large)) / (a.Median / crs(small))
			name, goal = m.Name+": per CR, large/small", "<= 1 (flat or falling)"
		}
		b.res.Add(sc, name, "ratio", goal, "lower", ratio).Note =
			fmt.Sprintf("%s at %d: %s; at %d: %s", m.Name, small.n, strconv.FormatFloat(a.Median, 'g', 4, 64), large.n, strconv.FormatFloat(b2.Median, 'g', 4, 64))
	}
}

// restartOperator stops the operator and starts it again, waiting until it is healthy.
func (b *bench) restartOperator(ctx context.Context) error {
	b.stopOperator()
	p, err := b.startOperator()
	if err != nil {
		return err
	}
	b.op = p
	if _, err := b.operator().WaitHealthy(ctx, p, 2*time.Minute); err != nil {
		return err
	}
	logf("  operator restarted (pid %d)", p.Pid)
	return nil
}
