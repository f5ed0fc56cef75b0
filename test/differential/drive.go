package differential

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"regexp"
	"sort"
	"strconv"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine/enginetest"
)

// Sizes of a differential run: DIFFERENTIAL_CRS admitted CRs per kind (ShortCRs in the short
// form, FullCRs in make test-differential), generated from DIFFERENTIAL_SEED.
const (
	ShortCRs    = 200
	FullCRs     = 2000
	defaultSeed = 31
)

// Size is the run's size and seed: DIFFERENTIAL_CRS admitted CRs per kind (unset, ShortCRs:
// the short form of make test; make test-differential sets FullCRs), DIFFERENTIAL_SEED the seed;
// under -short the test is skipped.
func Size(t *testing.T) (int, int64) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the differential test renders hundreds of CRs with upstream's code")
	}
	n, seed := ShortCRs, int64(defaultSeed)
	var err error
	if v := os.Getenv("DIFFERENTIAL_CRS"); v != "" {
		if n, err = strconv.Atoi(v); err != nil {
			t.Fatalf("DIFFERENTIAL_CRS=%q: %v", v, err)
		}
	}
	if v := os.Getenv("DIFFERENTIAL_SEED"); v != "" {
		if seed, err = strconv.ParseInt(v, 10, 64); err != nil {
			t.Fatalf("DIFFERENTIAL_SEED=%q: %v", v, err)
		}
	}
	return n, seed
}

// Outcome is what one CR shows: the differences no intended difference covers, keyed so that
// one difference counts once over the run (DiffKey), each with a description; and the indices
// of the intended differences it matched.
type Outcome struct {
	Unlisted map[string]string
	Matched  map[int]bool
}

// NewOutcome is an empty Outcome.
func NewOutcome() Outcome { return Outcome{Unlisted: map[string]string{}, Matched: map[int]bool{}} }

// listIndex is a list index in a field path, dropped so one difference in any item counts once.
var listIndex = regexp.MustCompile(`\[[0-9]+\]`)

// DiffKey is the key of a difference of a field of an object of kind: its path without list
// indices.
func DiffKey(kind, path string) string { return kind + " " + listIndex.ReplaceAllString(path, "[]") }

// Classify compares upstream's flattened objects (golden) with the operator's (ours) and records
// each field difference in out: as the intended difference match returns (its index, or -1 for
// none), else as unlisted, keyed by DiffKey (an object only one side has by its kind).
func Classify(out Outcome, golden, ours map[string]map[string]any, match func(enginetest.GoldenObject, enginetest.FieldDiff) int) {
	objs := enginetest.GoldenObjects(golden, ours)
	for _, d := range enginetest.DiffFlattened(golden, ours) {
		if i := match(objs[d.Object()], d); i >= 0 {
			out.Matched[i] = true
			continue
		}
		key := DiffKey(d.Kind, d.Path)
		if d.Path == "" {
			key = d.Kind + " object on one side"
		}
		out.Unlisted[key] = d.String()
	}
}

// Differential is one kind's differential run: CRs generated from upstream's schema (Generator,
// over a CR of APIVersion and Kind named Name, or gen-<n> when Name is empty, in Namespace, none
// for a cluster-scoped kind), those both CRDs admit (Admit: the CR as each stores it) rendered
// both ways and compared (Compare), against Intended (the intended differences' descriptions, by
// the indices Compare reports; "" for one that this kind cannot show, which is then not required
// to match). Distinct counts only CRs unlike every earlier one as each side stores them: for a
// kind whose specs are few (a singleton's settings), so that the CRs compared are that many
// different ones.
type Differential struct {
	APIVersion, Kind, Name, Namespace string
	Generator                         *Generator
	Admit                             func(cr map[string]interface{}) (ours, theirs map[string]interface{}, ok bool)
	Compare                           func(ours, theirs map[string]interface{}) (Outcome, error)
	Intended                          []string
	Distinct                          bool
}

// metadata is the metadata of the attempt-th generated CR.
func (d *Differential) metadata(attempt int) map[string]interface{} {
	m := map[string]interface{}{"name": d.Name, "uid": "00000000-0000-0000-0000-000000000001"}
	if d.Name == "" {
		m["name"] = fmt.Sprintf("gen-%d", attempt)
	}
	if d.Namespace != "" {
		m["namespace"] = d.Namespace
	}
	return m
}

// Run compares want admitted CRs from seed: every unlisted difference fails with the smallest
// CR (Shrink) that still shows it (DIFFERENTIAL_SHRINK=false: the first CR that did), and so
// does, in the full form (want >= FullCRs), every intended difference that never matched.
func (d *Differential) Run(t *testing.T, want int, seed int64) {
	t.Helper()
	rng := rand.New(rand.NewSource(seed))
	matched := map[int]int{}
	firstCR := map[string]map[string]interface{}{}
	firstDiff := map[string]string{}
	admitted, refused, repeated := 0, 0, 0
	seen := map[string]bool{}
	for attempt := 0; admitted < want && attempt < 200*want; attempt++ {
		cr := map[string]interface{}{
			"apiVersion": d.APIVersion, "kind": d.Kind,
			"metadata": d.metadata(attempt),
			"spec":     d.Generator.Spec(rng),
		}
		ours, theirs, ok := d.Admit(cr)
		if !ok {
			refused++
			continue
		}
		if d.Distinct {
			key, err := json.Marshal([]interface{}{ours["spec"], theirs["spec"]})
			if err != nil {
				t.Fatal(err)
			}
			if seen[string(key)] {
				repeated++
				continue
			}
			seen[string(key)] = true
		}
		admitted++
		outcome, err := d.Compare(ours, theirs)
		if err != nil {
			t.Fatal(err)
		}
		for i := range outcome.Matched {
			matched[i]++
		}
		for key, diff := range outcome.Unlisted {
			if _, seen := firstCR[key]; !seen {
				firstCR[key], firstDiff[key] = cr, diff
			}
		}
	}
	t.Logf("%s: %d CRs admitted by both CRDs and compared (seed %d); %d generated CRs refused by either", d.Kind, admitted, seed, refused)
	if d.Distinct {
		t.Logf("%s: %d generated CRs left out as repeats of earlier ones", d.Kind, repeated)
	}
	if admitted < want {
		t.Errorf("only %d of %d CRs admitted", admitted, want)
	}
	keys := make([]string, 0, len(firstCR))
	for k := range firstCR {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	shrink := os.Getenv("DIFFERENTIAL_SHRINK") != "false"
	for _, key := range keys {
		cr, says := firstCR[key], "first CR that shows it (not shrunk)"
		if shrink {
			cr = Shrink(cr, func(cr map[string]interface{}) bool {
				ours, theirs, ok := d.Admit(cr)
				if !ok {
					return false
				}
				outcome, err := d.Compare(ours, theirs)
				_, shows := outcome.Unlisted[key]
				return err == nil && shows
			})
			says = "smallest CR that shows it"
		}
		spec, _ := yaml.Marshal(cr["spec"])
		t.Errorf("unlisted difference %s, e.g. %s\n%s, spec:\n%s", key, firstDiff[key], says, spec)
	}
	// Some intended differences need rare CRs (a field set with another unset): the full form
	// requires each to match, the short form only reports the ones that did not.
	for i, desc := range d.Intended {
		switch {
		case desc == "" || matched[i] > 0:
		case want >= FullCRs:
			t.Errorf("intended difference never matched over %d CRs: %s", admitted, desc)
		default:
			t.Logf("intended difference not matched over %d CRs (the full form, %d, requires it): %s", admitted, FullCRs, desc)
		}
	}
	t.Logf("intended differences matched (index: CRs): %v", matched)
}
