package inferencegateway

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/llm-infra/llm-infra-operator/pkg/apis/crdtest"
	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1/testcases"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine/enginetest"
	"github.com/llm-infra/llm-infra-operator/test/differential"
)

// The differential test renders Gateways generated from upstream's CRD with upstream's own
// GatewayReconciler (hack/tools/igwrender, on controller-runtime's fake client, as the golden
// objects were made) and with the operator, and compares every field of every object and the
// status fields upstream's status has too, as the golden test does (goldenAndOurs) for its fixed
// cases: every difference must be an intended one (the golden test's intendedDifferences and
// differentialDifferences below, predicates over the Gateway with their reason), or the test
// fails and prints the smallest Gateway that shows it; every intended difference must match at
// least once over the run. As in the golden cases, no provider Secrets and no MCP objects exist.
//
// DIFFERENTIAL_CRS sets how many admitted Gateways, DIFFERENTIAL_SEED the seed
// (test/differential.Size).

// differentialDifferences are intended differences that the golden Gateways do not show.
var differentialDifferences = []intendedDifference{}

var allIntendedDifferences = slices.Concat(intendedDifferences, differentialDifferences)

// TestDifferentialGateway: see the top of this file.
func TestDifferentialGateway(t *testing.T) {
	want, seed := differential.Size(t)
	ours, err := crdtest.Load(gatewayCRD)
	if err != nil {
		t.Fatal(err)
	}
	theirs := differential.InferenceGatewayCRDs(t)
	upstream := differential.StartInferenceGatewayUpstream(t, "")
	pool := differential.Pool{}
	for _, c := range slices.Concat(crdtest.GoldenCases(t, goldenDir, 6), testcases.GatewayAccepted) {
		pool.Add(".spec", crdtest.Object(t, c)["spec"])
	}
	var descriptions []string
	for _, d := range allIntendedDifferences {
		descriptions = append(descriptions, d.String())
	}
	run := &differential.Differential{
		APIVersion: "core.inference-gateway.com/v1alpha1", Kind: "Gateway", Namespace: "llm",
		Generator: &differential.Generator{Schema: theirs["Gateway"].Structural(), Pool: pool, Optional: 0.4},
		Admit: func(cr map[string]interface{}) (map[string]interface{}, map[string]interface{}, bool) {
			stored, _, err := theirs.Stored(cr, nil)
			if err != nil {
				return nil, nil, false
			}
			oursCR, errs := ours.Create(runtime.DeepCopyJSON(cr))
			if len(errs) > 0 {
				return nil, nil, false
			}
			return oursCR, stored, true
		},
		Intended: descriptions,
		Compare: func(oursCR, theirsCR map[string]interface{}) (differential.Outcome, error) {
			return compareGateway(t, upstream, oursCR, theirsCR)
		},
	}
	run.Run(t, want, seed)
}

// compareGateway renders an admitted Gateway both ways and returns what differs.
func compareGateway(t *testing.T, upstream *differential.InferenceGatewayUpstream, oursCR, theirsCR map[string]interface{}) (differential.Outcome, error) {
	out := differential.NewOutcome()
	gw := &v1alpha1.Gateway{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(oursCR, gw); err != nil {
		return out, err
	}
	objects, status, upErr := upstream.Render(theirsCR, nil)
	_, ourErr := renderAll(renderInput{cr: gw, mcpServers: mcpServerURLs(gw, nil)})
	if upErr != nil || ourErr != nil {
		if (upErr == nil) != (ourErr == nil) {
			out.Unlisted["render error"] = fmt.Sprintf("upstream %v, ours %v", upErr, ourErr)
		}
		return out, nil
	}
	var golden []*unstructured.Unstructured
	for _, o := range objects {
		golden = append(golden, &unstructured.Unstructured{Object: o})
	}
	goldenFlat, oursFlat := goldenAndOurs(t, goldenInput{cr: gw, golden: golden, status: status})
	objs := enginetest.GoldenObjects(goldenFlat, oursFlat)
	for _, d := range enginetest.DiffFlattened(goldenFlat, oursFlat) {
		if i := matchIntendedDifference(allIntendedDifferences, gw, objs[d.Object()], d); i >= 0 {
			out.Matched[i] = true
			continue
		}
		key := differential.DiffKey(d.Kind, d.Path)
		if d.Path == "" {
			key = d.Kind + " " + strings.ToLower(fmt.Sprintf("only %s", map[bool]string{true: "upstream", false: "ours"}[d.Ours == enginetest.Absent]))
		}
		out.Unlisted[key] = d.String()
	}
	return out, nil
}
