package batchgateway

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"regexp"
	"slices"
	"sort"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	batchv1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/batch/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/apis/batch/v1alpha1/testcases"
	"github.com/llm-infra/llm-infra-operator/pkg/apis/crdtest"
	"github.com/llm-infra/llm-infra-operator/test/differential"
)

// The differential test renders LLMBatchGateways generated from upstream's CRD with upstream's
// own renderer (hack/tools/upstreamrender) and with the operator, and compares every field of
// every object, as the golden test does for its fixed cases: after the equivalences of
// test/differential (Normalize), every difference must be an intended one (intendedDifferences,
// predicates over the CR with their reason), or the test fails and prints the smallest CR that
// shows it. Every intended difference must match at least once over the run.
//
// DIFFERENTIAL_CRS sets how many admitted CRs, DIFFERENTIAL_SEED the seed (test/differential.Size:
// the short form in make test, the full form in make test-differential).

// manifestCRDPath is the operator's own CRD of the kind.
const manifestCRDPath = "../../../../manifests/batch.llm-d.ai_llmbatchgateways.yaml"

// differentialPool is every value the golden CRs and the admission table's accepted CRs have,
// by path, for the generator's patterned strings.
func differentialPool(t *testing.T) differential.Pool {
	pool := differential.Pool{}
	for _, c := range slices.Concat(crdtest.GoldenCases(t, goldenDir, 12), testcases.Accepted) {
		obj := crdtest.Object(t, c)
		pool.Add(".spec", obj["spec"])
	}
	return pool
}

// diffOutcome is what one CR shows: the differences no intended one covers, keyed by object
// kind and path (list indices dropped), and the intended differences it matched.
type diffOutcome struct {
	unlisted map[string]fieldDiff
	matched  map[int]bool
}

type differentialRun struct {
	t        *testing.T
	upstream *differential.Upstream
	ours     *crdtest.CRD
	theirs   *crdtest.CRD
	// outcomes caches outcomeOf by the CR's JSON: shrinking tries the same CR more than once.
	outcomes map[string]cachedOutcome
}

type cachedOutcome struct {
	outcome  diffOutcome
	admitted bool
}

// outcomeOf admits and compares a CR, once per CR; false when either CRD refuses it or the
// comparison fails.
func (r *differentialRun) outcomeOf(cr map[string]interface{}) (diffOutcome, bool) {
	data, err := json.Marshal(cr)
	if err != nil {
		r.t.Fatal(err)
	}
	if c, ok := r.outcomes[string(data)]; ok {
		return c.outcome, c.admitted
	}
	var c cachedOutcome
	if oursCR, theirsCR, ok := r.admit(cr); ok {
		outcome, err := r.compare(oursCR, theirsCR)
		c = cachedOutcome{outcome: outcome, admitted: err == nil}
	}
	r.outcomes[string(data)] = c
	return c.outcome, c.admitted
}

// admit returns the CR as each CRD stores it, or false when either refuses it.
func (r *differentialRun) admit(cr map[string]interface{}) (ours, theirs map[string]interface{}, ok bool) {
	theirs, errs := r.theirs.Create(runtime.DeepCopyJSON(cr))
	if len(errs) > 0 {
		return nil, nil, false
	}
	ours, errs = r.ours.Create(runtime.DeepCopyJSON(cr))
	if len(errs) > 0 {
		return nil, nil, false
	}
	return ours, theirs, true
}

// compare renders an admitted CR both ways and returns what differs.
func (r *differentialRun) compare(oursCR, theirsCR map[string]interface{}) (diffOutcome, error) {
	out := diffOutcome{unlisted: map[string]fieldDiff{}, matched: map[int]bool{}}
	upstreamObjects, upErr := r.upstream.Render(theirsCR)
	typed := &batchv1alpha1.LLMBatchGateway{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(oursCR, typed); err != nil {
		return out, err
	}
	rendered, ourErr := renderAll(renderInput{cr: typed, images: goldenImages, credentialsSecret: typed.Spec.SecretRef.Name, backendCA: goldenBackendCA})
	if upErr != nil || ourErr != nil {
		if (upErr == nil) != (ourErr == nil) {
			out.unlisted["render"] = fieldDiff{kind: "render", path: "error", golden: fmt.Sprint(upErr), ours: fmt.Sprint(ourErr)}
		}
		return out, nil
	}
	ours := map[string]map[string]interface{}{}
	for _, o := range rendered {
		if o.wanted {
			obj := normalize(r.t, o.obj)
			differential.Normalize(obj)
			ours[objectKeyOf(obj)] = obj
		}
	}
	golden := map[string]map[string]interface{}{}
	for _, o := range upstreamObjects {
		obj := normalize(r.t, &unstructured.Unstructured{Object: o})
		differential.Normalize(obj)
		golden[objectKeyOf(obj)] = obj
	}
	for _, key := range sortedKeys(golden, ours) {
		g, o := golden[key], ours[key]
		obj, name := goldenObjectOf(key, g, o)
		kind, component := obj.kind, obj.component
		var diffs []fieldDiff
		switch {
		case g == nil:
			diffs = []fieldDiff{{golden: absent, ours: "object"}}
		case o == nil:
			diffs = []fieldDiff{{golden: "object", ours: absent}}
		default:
			diffs = diffValues("", g, o)
		}
		for _, d := range diffs {
			d.kind, d.name, d.component = kind, name, component
			if i := matchDifference(allIntendedDifferences, typed, obj, d); i >= 0 {
				out.matched[i] = true
				continue
			}
			out.unlisted[kind+" "+resourceName.ReplaceAllString(listIndex.ReplaceAllString(d.path, "[]"), "resources.$1")] = d
		}
	}
	return out, nil
}

// shrinkBudget bounds the time spent shrinking CRs, so that a run that finds differences of
// many causes still ends in minutes (differential.Shrink also bounds each shrink).
const shrinkBudget = 2 * time.Minute

// specSize is the length of a CR's spec as JSON: the smaller the CR, the fewer fields shrinking
// tries to take away.
func specSize(cr map[string]interface{}) int {
	data, _ := json.Marshal(cr["spec"])
	return len(data)
}

// listIndex is a list index in a field path, dropped so one difference in any item counts once.
var listIndex = regexp.MustCompile(`\[[0-9]+\]`)

// resourceName is a resource's name in a field path, dropped so that one difference in any
// resource of a container counts once.
var resourceName = regexp.MustCompile(`resources\.(limits|requests)(\.[^.]+|\["[^"]*"\])$`)

// allIntendedDifferences are the golden test's and the differential test's own.
var allIntendedDifferences = slices.Concat(intendedDifferences, differentialDifferences)

func objectKeyOf(obj map[string]interface{}) string {
	u := unstructured.Unstructured{Object: obj}
	return u.GetKind() + "/" + u.GetName()
}

// TestDifferential: see the top of this file.
func TestDifferential(t *testing.T) {
	want, seed := differential.Size(t)
	ours, err := crdtest.Load(manifestCRDPath)
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := crdtest.Load(differential.UpstreamCRDPath())
	if err != nil {
		t.Fatal(err)
	}
	run := &differentialRun{t: t, upstream: differential.StartUpstream(t), ours: ours, theirs: theirs, outcomes: map[string]cachedOutcome{}}
	gen := &differential.Generator{Schema: theirs.Structural(), Pool: differentialPool(t), Optional: 0.4}
	rng := rand.New(rand.NewSource(seed))

	matched := map[int]int{}
	exampleCR := map[string]map[string]interface{}{}
	exampleDiff := map[string]fieldDiff{}
	admitted, refused := 0, 0
	for attempt := 0; admitted < want && attempt < 200*want; attempt++ {
		cr := map[string]interface{}{
			"apiVersion": "batch.llm-d.ai/v1alpha1", "kind": "LLMBatchGateway",
			"metadata": map[string]interface{}{"name": fmt.Sprintf("gen-%d", attempt), "namespace": "llm", "uid": "00000000-0000-0000-0000-000000000001"},
			"spec":     gen.Spec(rng),
		}
		oursCR, theirsCR, ok := run.admit(cr)
		if !ok {
			refused++
			continue
		}
		admitted++
		outcome, err := run.compare(oursCR, theirsCR)
		if err != nil {
			t.Fatal(err)
		}
		for i := range outcome.matched {
			matched[i]++
		}
		// The smallest CR that shows each difference (by its spec's JSON), where shrinking starts.
		size := specSize(cr)
		for key, d := range outcome.unlisted {
			if example, seen := exampleCR[key]; !seen || size < specSize(example) {
				exampleCR[key], exampleDiff[key] = cr, d
			}
		}
	}
	t.Logf("%d CRs admitted by both CRDs and compared (seed %d); %d generated CRs refused by either", admitted, seed, refused)
	if admitted < want {
		t.Errorf("only %d of %d CRs admitted", admitted, want)
	}
	keys := make([]string, 0, len(exampleCR))
	for k := range exampleCR {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	// DIFFERENTIAL_SHRINK=false lists the differences with the smallest CR that showed each, at
	// once; shrinking stops after shrinkBudget, and the differences left are listed so.
	shrink := os.Getenv("DIFFERENTIAL_SHRINK") != "false"
	shrinkUntil := time.Now().Add(shrinkBudget)
	// Each CR shrunk so far, with the differences it shows: a difference that one of them shows
	// already (a dashboard's many fields, an env var's name and value) is reported with it, not
	// shrunk again, so a run with many differences of one cause still ends in minutes.
	var shrunk []map[string]interface{}
	shrunkShows := []map[string]fieldDiff{}
	for _, key := range keys {
		smallest := -1
		for i, shows := range shrunkShows {
			if _, ok := shows[key]; ok {
				smallest = i
				break
			}
		}
		if smallest < 0 && (!shrink || time.Now().After(shrinkUntil)) {
			spec, _ := yaml.Marshal(exampleCR[key]["spec"])
			t.Errorf("unlisted difference %s, e.g. %s\nsmallest generated CR that shows it (not shrunk: DIFFERENTIAL_SHRINK=false or the %s of shrinking are spent), spec:\n%s", key, exampleDiff[key], shrinkBudget, spec)
			continue
		}
		if smallest < 0 {
			cr := differential.Shrink(exampleCR[key], func(cr map[string]interface{}) bool {
				outcome, ok := run.outcomeOf(cr)
				_, shows := outcome.unlisted[key]
				return ok && shows
			})
			outcome, _ := run.outcomeOf(cr)
			shrunk, shrunkShows = append(shrunk, cr), append(shrunkShows, outcome.unlisted)
			smallest = len(shrunk) - 1
		}
		spec, _ := yaml.Marshal(shrunk[smallest]["spec"])
		t.Errorf("unlisted difference %s, e.g. %s\nsmallest CR found that shows it (%d CRs tried in all), spec:\n%s", key, exampleDiff[key], len(run.outcomes), spec)
	}
	for i, d := range allIntendedDifferences {
		if matched[i] == 0 {
			t.Errorf("intended difference never matched over %d CRs: %s", admitted, d)
		}
	}
	if testing.Verbose() {
		counts, _ := json.Marshal(matched)
		t.Logf("intended differences matched (index: CRs): %s", counts)
	}
}
