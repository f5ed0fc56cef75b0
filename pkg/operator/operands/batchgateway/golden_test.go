package batchgateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	batchv1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/batch/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine/enginetest"
)

// The golden test renders each CR of test/golden/batch-gateway (upstream's operator's output,
// see test/golden/README.md) and compares every object, field by field, with upstream's. Every
// difference must be listed in intendedDifferences with its reason; a listed difference that
// no longer occurs fails too, so the list stays honest.
//
// Intended differences the golden CRs do not exercise are tested in render_test.go and
// config_test.go instead: the resources merge that never makes requests exceed limits and
// passes every resource name (TestMergeResources, reference §7.3), asyncConfig.replicas
// (TestFieldMappings, §7.11), default Certificate dnsNames (§7.9), the scrape label on the
// model-server PodMonitor, and the dashboards and alert texts, which are our own.

const goldenDir = "../../../../test/golden/batch-gateway"

// goldenImages are the images the golden objects were rendered with (test/golden/README.md).
var goldenImages = Images{
	APIServer:      "registry.example/batch-gateway-apiserver:v0",
	Processor:      "registry.example/batch-gateway-processor:v0",
	GC:             "registry.example/batch-gateway-gc:v0",
	AsyncProcessor: "registry.example/llm-d-async:v0",
}

// absent stands for a field that one side does not have.
var absent = &struct{ absent bool }{true}

// intendedDifference is a difference from upstream's object that the operator means to make.
type intendedDifference struct {
	// cases it occurs in; nil means every case. It must occur in each.
	cases []string
	// kinds and components select the objects (by upstream's component label); nil means all.
	kinds      []string
	components []string
	// path is the field, as fieldDiff writes it.
	path string
	// golden and ours, when not nil, are the values each side must have (absent for none).
	golden, ours interface{}
	reason       string
}

var (
	asyncCases = []string{
		"batch_v1alpha1_llmbatchgateway_async", "dev-async", "dev-async-gate-endpoint-scrape",
		"dev-async-gate-prometheus-budget", "dev-async-gate-prometheus-query", "dev-async-gate-redis",
	}
	batchComponents = []string{componentAPIServer, componentProcessor, componentGC}
	fsCases         = []string{"dev-sync-fs", "extra-minimal-sync-fs"}
)

var intendedDifferences = []intendedDifference{
	{path: `metadata.labels["helm.sh/chart"]`, ours: absent,
		reason: "no Helm artefacts: the objects are not made by Helm"},
	{path: `metadata.labels["app.kubernetes.io/managed-by"]`, golden: "Helm", ours: absent,
		reason: "the engine stamps app.kubernetes.io/managed-by: llm-infra-operator when it applies"},
	{path: `metadata.labels["app.kubernetes.io/version"]`, ours: absent,
		reason: "no chart version on objects: the images, not the manifests, carry the version"},
	{path: `metadata.labels["app.kubernetes.io/part-of"]`, golden: absent, ours: PartOfValue,
		reason: "one label set on every object (reference §7.8)"},
	{path: `metadata.ownerReferences`, ours: absent,
		reason: "the engine sets the owner reference to the CR when it applies"},

	{kinds: []string{"Deployment"}, components: batchComponents,
		path: `spec.template.metadata.labels["helm.sh/chart"]`, ours: absent,
		reason: "no Helm artefacts in pod templates"},
	{kinds: []string{"Deployment"}, components: batchComponents,
		path: `spec.template.metadata.labels["app.kubernetes.io/managed-by"]`, golden: "Helm", ours: absent,
		reason: "no Helm artefacts in pod templates; managed-by belongs to the objects the operator applies, not to pods"},
	{kinds: []string{"Deployment"}, components: batchComponents,
		path: `spec.template.metadata.labels["app.kubernetes.io/version"]`, ours: absent,
		reason: "no chart version in pod templates"},
	{kinds: []string{"Deployment"},
		path: `spec.template.metadata.labels["app.kubernetes.io/part-of"]`, golden: absent, ours: PartOfValue,
		reason: "one label set on every pod template (reference §7.8)"},
	{kinds: []string{"Deployment"}, components: batchComponents,
		path: `spec.template.metadata.annotations`, ours: absent,
		reason: "no checksum/config: the engine's Deployment hooks add operator.llm-infra.io/hash-* annotations over the data of every mounted ConfigMap and Secret"},
	{cases: asyncCases, kinds: []string{"Deployment"}, components: []string{componentAsyncProcessor},
		path: `spec.template.metadata.labels["app.kubernetes.io/component"]`, golden: absent, ours: componentAsyncProcessor,
		reason: "the async-processor's pods carry the component label like every other pod (reference §7.8); not in the selector, which stays upstream's"},
	{cases: asyncCases, kinds: []string{"Deployment"}, components: []string{componentAsyncProcessor},
		path: `spec.template.spec.automountServiceAccountToken`, golden: absent,
		reason: "llm-d-async builds a Kubernetes client at start-up and exits without a token (issue 16, defect 5): the pod asks for it whatever the ServiceAccount says"},
	{cases: asyncCases, kinds: []string{"ServiceAccount"}, components: []string{componentAsyncProcessor},
		path: `automountServiceAccountToken`, golden: absent,
		reason: "the async processor needs its token (issue 16, defect 5), said as the other ServiceAccounts say it"},
	{cases: fsCases, kinds: []string{"Deployment"}, components: batchComponents,
		path: `spec.template.spec.securityContext.fsGroup`, golden: absent,
		reason: "a root-owned fs storage volume must be writable (issue 16, defect 4); on OpenShift the SCC sets it instead"},
	{cases: fsCases, kinds: []string{"Deployment"}, components: batchComponents,
		path: `spec.template.spec.securityContext.fsGroupChangePolicy`, golden: absent, ours: "OnRootMismatch",
		reason: "the volume's group is changed only when its root lacks it, not walked at every start"},
	{cases: []string{"batch_v1alpha1_llmbatchgateway_async"}, kinds: []string{"Deployment"}, components: []string{componentAsyncProcessor},
		path:   `spec.template.spec.containers[0].args`,
		reason: "single-queue mode consumed the chart's queue request-sortedset, which nobody writes to (reference §7.1): one queue llm-d-async:requests:<pool> per inference pool of modelGateways, with the gate of asyncConfig.redis"},
}

func TestGolden(t *testing.T) {
	cases := goldenCases(t)
	enginetest.CheckListedDifferences(t, cases, len(intendedDifferences), diffGoldenCase, matchIntendedDifference,
		func(i int) []string { return casesOf(intendedDifferences[i], cases) },
		func(i int) string { d := intendedDifferences[i]; return fmt.Sprintf("%s (%s)", d.path, d.reason) })
}

func goldenCases(tb testing.TB) []string {
	tb.Helper()
	entries, err := os.ReadDir(goldenDir)
	if err != nil {
		tb.Fatal(err)
	}
	var cases []string
	for _, e := range entries {
		if e.IsDir() {
			cases = append(cases, e.Name())
		}
	}
	if len(cases) != 11 {
		tb.Fatalf("found %d golden cases, want 11", len(cases))
	}
	return cases
}

func casesOf(d intendedDifference, all []string) []string {
	if d.cases == nil {
		return all
	}
	return d.cases
}

// goldenCR reads a case's CR. Strict decoding also checks that the API types take every field
// of upstream's YAML.
func goldenCR(tb testing.TB, name string) *batchv1alpha1.LLMBatchGateway {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join(goldenDir, name, "cr.yaml"))
	if err != nil {
		tb.Fatal(err)
	}
	cr := &batchv1alpha1.LLMBatchGateway{}
	if err := yaml.UnmarshalStrict(data, cr); err != nil {
		tb.Fatalf("cr.yaml: %v", err)
	}
	return cr
}

// fieldDiff is one field that differs between upstream's object and ours.
type fieldDiff struct {
	kind, name, component string
	path                  string
	golden, ours          interface{}
}

func (d fieldDiff) String() string {
	return fmt.Sprintf("%s %s (component %q) %s: upstream %s, ours %s", d.kind, d.name, d.component, d.path, show(d.golden), show(d.ours))
}

func show(v interface{}) string {
	if v == absent {
		return "<absent>"
	}
	data, _ := json.Marshal(v)
	return string(data)
}

// diffGoldenCase renders a case and returns every field that differs from upstream's objects,
// and every object only one side has (path "").
func diffGoldenCase(t *testing.T, name string) []fieldDiff {
	t.Helper()
	cr := goldenCR(t, name)
	rendered, err := renderAll(renderInput{cr: cr, images: goldenImages, credentialsSecret: cr.Spec.SecretRef.Name})
	if err != nil {
		t.Fatalf("renderAll: %v", err)
	}
	ours := map[string]map[string]interface{}{}
	for _, r := range rendered {
		if r.wanted {
			obj := normalize(t, r.obj)
			ours[objectKey(obj)] = obj
		}
	}
	golden := map[string]map[string]interface{}{}
	for _, obj := range readGoldenObjects(t, name) {
		normalized := normalize(t, obj)
		golden[objectKey(normalized)] = normalized
	}
	var diffs []fieldDiff
	for _, key := range sortedKeys(golden, ours) {
		g, o := golden[key], ours[key]
		kind, objName, _ := strings.Cut(key, "/")
		switch {
		case g == nil:
			diffs = append(diffs, fieldDiff{kind: kind, name: objName, golden: absent, ours: "object"})
		case o == nil:
			diffs = append(diffs, fieldDiff{kind: kind, name: objName, golden: "object", ours: absent})
		default:
			component, _, _ := unstructured.NestedString(g, "metadata", "labels", componentLabel)
			for _, d := range diffValues("", g, o) {
				d.kind, d.name, d.component = kind, objName, component
				diffs = append(diffs, d)
			}
		}
	}
	return diffs
}

func objectKey(obj map[string]interface{}) string {
	u := unstructured.Unstructured{Object: obj}
	return u.GetKind() + "/" + u.GetName()
}

func sortedKeys(maps ...map[string]map[string]interface{}) []string {
	set := map[string]bool{}
	for _, m := range maps {
		for k := range m {
			set[k] = true
		}
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func readGoldenObjects(t *testing.T, name string) []*unstructured.Unstructured {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(goldenDir, name, "objects.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var objs []*unstructured.Unstructured
	decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		obj := &unstructured.Unstructured{}
		if err := decoder.Decode(&obj.Object); err != nil {
			if errors.Is(err, io.EOF) {
				return objs
			}
			t.Fatalf("objects.yaml: %v", err)
		}
		if len(obj.Object) > 0 {
			objs = append(objs, obj)
		}
	}
}

// normalize brings both sides to one form: built-in kinds go through their Go types (so
// "1000m" and "1" are one quantity), and config files in ConfigMaps are parsed, so they compare
// as data (2.592e+06 equals 2592000; comments and key order do not count).
func normalize(t *testing.T, obj runtime.Object) map[string]interface{} {
	t.Helper()
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	var typed runtime.Object
	switch content["kind"] {
	case "Deployment":
		typed = &appsv1.Deployment{}
	case "Service":
		typed = &corev1.Service{}
	case "ServiceAccount":
		typed = &corev1.ServiceAccount{}
	case "ConfigMap":
		typed = &corev1.ConfigMap{}
	}
	if typed != nil {
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(content, typed); err != nil {
			t.Fatal(err)
		}
		if content, err = runtime.DefaultUnstructuredConverter.ToUnstructured(typed); err != nil {
			t.Fatal(err)
		}
	}
	if data, ok := content["data"].(map[string]interface{}); ok {
		for key, value := range data {
			data[key] = parseConfigFile(t, key, value.(string))
		}
	}
	return pruneEmpty(content).(map[string]interface{})
}

func parseConfigFile(t *testing.T, key, text string) interface{} {
	t.Helper()
	var parsed interface{}
	var err error
	if strings.HasSuffix(key, ".json") {
		err = json.Unmarshal([]byte(text), &parsed)
	} else {
		err = yaml.Unmarshal([]byte(text), &parsed)
	}
	if err != nil {
		t.Fatalf("data[%q]: %v", key, err)
	}
	return parsed
}

// pruneEmpty drops nulls and empty maps (creationTimestamp: null, status: {}), which mean "not
// set" on either side.
func pruneEmpty(v interface{}) interface{} {
	switch n := v.(type) {
	case map[string]interface{}:
		for k, e := range n {
			e = pruneEmpty(e)
			if m, ok := e.(map[string]interface{}); e == nil || (ok && len(m) == 0) {
				delete(n, k)
			} else {
				n[k] = e
			}
		}
	case []interface{}:
		for i, e := range n {
			n[i] = pruneEmpty(e)
		}
	}
	return v
}

var identifier = regexp.MustCompile(`^[A-Za-z0-9_]+$`)

// diffValues lists the fields that differ; lists of different lengths differ as a whole.
func diffValues(path string, golden, ours interface{}) []fieldDiff {
	gm, gIsMap := golden.(map[string]interface{})
	om, oIsMap := ours.(map[string]interface{})
	if gIsMap && oIsMap {
		var diffs []fieldDiff
		keys := map[string]bool{}
		for k := range gm {
			keys[k] = true
		}
		for k := range om {
			keys[k] = true
		}
		for _, k := range sortedStrings(keys) {
			sub := path + "." + k
			if !identifier.MatchString(k) {
				sub = fmt.Sprintf("%s[%q]", path, k)
			}
			g, gok := gm[k]
			o, ook := om[k]
			switch {
			case !gok:
				diffs = append(diffs, fieldDiff{path: strings.TrimPrefix(sub, "."), golden: absent, ours: o})
			case !ook:
				diffs = append(diffs, fieldDiff{path: strings.TrimPrefix(sub, "."), golden: g, ours: absent})
			default:
				diffs = append(diffs, diffValues(sub, g, o)...)
			}
		}
		return diffs
	}
	gl, gIsList := golden.([]interface{})
	ol, oIsList := ours.([]interface{})
	if gIsList && oIsList && len(gl) == len(ol) {
		var diffs []fieldDiff
		for i := range gl {
			diffs = append(diffs, diffValues(fmt.Sprintf("%s[%d]", path, i), gl[i], ol[i])...)
		}
		return diffs
	}
	if reflect.DeepEqual(golden, ours) {
		return nil
	}
	return []fieldDiff{{path: strings.TrimPrefix(path, "."), golden: golden, ours: ours}}
}

func sortedStrings(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// matchIntendedDifference returns the index of the listed difference d is, or -1.
func matchIntendedDifference(caseName string, d fieldDiff) int {
	for i, want := range intendedDifferences {
		if want.path != d.path ||
			(want.cases != nil && !contains(want.cases, caseName)) ||
			(want.kinds != nil && !contains(want.kinds, d.kind)) ||
			(want.components != nil && !contains(want.components, d.component)) ||
			!valueMatches(want.golden, d.golden) || !valueMatches(want.ours, d.ours) {
			continue
		}
		return i
	}
	return -1
}

func valueMatches(want, got interface{}) bool {
	return want == nil || want == got || reflect.DeepEqual(want, got)
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}
