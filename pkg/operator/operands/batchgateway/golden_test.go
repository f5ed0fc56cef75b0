package batchgateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
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
// difference must be listed in intendedDifferences with its reason, keyed by what causes it (the
// objects' kind and component, a condition on the CR), never by a case's name; a listed
// difference that does not occur in an object it applies to fails too, so the list stays honest.
// The same CRs under other names and in another namespace must pass alike.
//
// Intended differences the golden CRs do not exercise are tested in render_test.go and
// config_test.go instead: the resources merge that never makes requests exceed limits and
// passes every resource name (TestMergeResources, reference §7.3), asyncConfig.replicas
// (TestFieldMappings, §7.11), default Certificate dnsNames (§7.9), the scrape label on the
// model-server PodMonitor, and the dashboards (dashboards_test.go). The alerts are compared here
// (extra-prometheus-rule-async): upstream's, every field of every rule, exactly.

const goldenDir = "../../../../test/golden/batch-gateway"

// goldenImages are the images the golden objects were rendered with (test/golden/README.md).
var goldenImages = Images{
	APIServer:      "registry.example/batch-gateway-apiserver:v0",
	Processor:      "registry.example/batch-gateway-processor:v0",
	GC:             "registry.example/batch-gateway-gc:v0",
	AsyncProcessor: "registry.example/llm-d-async:v0",
}

// goldenBackendCA is the certificate the comparisons' apiserver TLS Secret holds, as on a cluster
// where cert-manager or the user made it: the render writes the BackendTLSPolicy's CA ConfigMap
// only with a certificate (issue 33), and its content is this operator's alone (no upstream
// render has the ConfigMap).
const goldenBackendCA = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"

// absent stands for a field that one side does not have.
var absent = enginetest.Absent

// condition is when, by the CR's spec, an intended difference occurs.
type condition struct {
	says  string
	holds func(spec *batchv1alpha1.LLMBatchGatewaySpec) bool
}

var (
	everyCR = condition{"every CR", func(*batchv1alpha1.LLMBatchGatewaySpec) bool { return true }}
	// asyncDispatch: the async-processor chart is rendered.
	asyncDispatch = condition{"processor.dispatchMode: async", func(s *batchv1alpha1.LLMBatchGatewaySpec) bool {
		return s.Processor.DispatchMode == batchv1alpha1.DispatchModeAsync
	}}
	// asyncSingleQueue: upstream's chart falls back to its one queue request-sortedset.
	asyncSingleQueue = condition{"processor.dispatchMode: async without asyncConfig.redis.queuesConfig", func(s *batchv1alpha1.LLMBatchGatewaySpec) bool {
		a := s.Processor.AsyncConfig
		return s.Processor.DispatchMode == batchv1alpha1.DispatchModeAsync && a != nil && (a.Redis == nil || len(a.Redis.QueuesConfig) == 0)
	}}
	prometheusRuleOn           = condition{"prometheusRule.enabled", prometheusRuleEnabled}
	grafanaOn                  = condition{"grafana.enabled", grafanaEnabled}
	tlsOn                      = condition{"tls.enabled", tlsEnabled}
	certManagerWithoutDNSNames = condition{"tls.certManager without dnsNames", func(s *batchv1alpha1.LLMBatchGatewaySpec) bool {
		return certManagerEnabled(s) && len(s.TLS.CertManager.DNSNames) == 0
	}}
	fsStorage = condition{"fileStorage.fs is set", func(s *batchv1alpha1.LLMBatchGatewaySpec) bool {
		return s.FileStorage != nil && s.FileStorage.FS != nil
	}}
	asyncGrafana = condition{"processor.dispatchMode: async and grafana.enabled", func(s *batchv1alpha1.LLMBatchGatewaySpec) bool {
		return asyncEnabled(s) && grafanaEnabled(s)
	}}
	backendTLS           = condition{"tls.enabled and httpRoute.enabled", backendTLSWanted}
	modelServerMonitorOn = condition{"processor.dispatchMode: async and asyncConfig.modelServerMonitor.enabled", modelServerMonitorEnabled}
	asyncReplicasSet     = condition{"processor.dispatchMode: async with asyncConfig.replicas other than 1", func(s *batchv1alpha1.LLMBatchGatewaySpec) bool {
		return asyncEnabled(s) && s.Processor.AsyncConfig.Replicas != nil && *s.Processor.AsyncConfig.Replicas != 1
	}}
)

// intendedDifference is a difference from upstream's objects that the operator means to make,
// keyed by what causes it: the objects it concerns (kinds, components) and the condition on the
// CR under which it occurs. It must occur in every object it applies to, in every CR, whatever
// its name.
type intendedDifference struct {
	// kinds and components select the objects (by upstream's component label); nil means all.
	kinds      []string
	components []string
	when       condition
	// path is the field, as fieldDiff writes it; "" is a whole object only one side has.
	path string
	// under: the difference is any field below path (the CR's values decide which), not path
	// itself.
	under bool
	// golden and ours, when not nil, are the values each side must have (absent for none).
	golden, ours interface{}
	reason       string
}

var batchComponents = []string{componentAPIServer, componentProcessor, componentGC}

var intendedDifferences = []intendedDifference{
	{when: everyCR, path: `metadata.labels["helm.sh/chart"]`, ours: absent,
		reason: "no Helm artefacts: the objects are not made by Helm"},
	{when: everyCR, path: `metadata.labels["app.kubernetes.io/managed-by"]`, golden: "Helm", ours: absent,
		reason: "the engine stamps app.kubernetes.io/managed-by: llm-infra-operator when it applies"},
	{when: everyCR, path: `metadata.labels["app.kubernetes.io/version"]`, ours: absent,
		reason: "no chart version on objects: the images, not the manifests, carry the version"},
	{when: everyCR, path: `metadata.labels["app.kubernetes.io/part-of"]`, golden: absent, ours: PartOfValue,
		reason: "one label set on every object (reference §7.8)"},
	{when: everyCR, path: `metadata.ownerReferences`, ours: absent,
		reason: "the engine sets the owner reference to the CR when it applies"},

	{kinds: []string{"Deployment"}, components: batchComponents, when: everyCR,
		path: `spec.template.metadata.labels["helm.sh/chart"]`, ours: absent,
		reason: "no Helm artefacts in pod templates"},
	{kinds: []string{"Deployment"}, components: batchComponents, when: everyCR,
		path: `spec.template.metadata.labels["app.kubernetes.io/managed-by"]`, golden: "Helm", ours: absent,
		reason: "no Helm artefacts in pod templates; managed-by belongs to the objects the operator applies, not to pods"},
	{kinds: []string{"Deployment"}, components: batchComponents, when: everyCR,
		path: `spec.template.metadata.labels["app.kubernetes.io/version"]`, ours: absent,
		reason: "no chart version in pod templates"},
	{kinds: []string{"Deployment"}, when: everyCR,
		path: `spec.template.metadata.labels["app.kubernetes.io/part-of"]`, golden: absent, ours: PartOfValue,
		reason: "one label set on every pod template (reference §7.8)"},
	{kinds: []string{"Deployment"}, components: batchComponents, when: everyCR,
		path: `spec.template.metadata.annotations`, ours: absent,
		reason: "no checksum/config: the engine's Deployment hooks add operator.llm-infra.io/hash-* annotations over the data of every mounted ConfigMap and Secret"},
	{kinds: []string{"Deployment"}, components: []string{componentAsyncProcessor}, when: asyncDispatch,
		path: `spec.template.metadata.labels["app.kubernetes.io/component"]`, golden: absent, ours: componentAsyncProcessor,
		reason: "the async-processor's pods carry the component label like every other pod (reference §7.8); not in the selector, which stays upstream's"},
	{kinds: []string{"Deployment"}, components: []string{componentAsyncProcessor}, when: asyncDispatch,
		path: `spec.template.spec.automountServiceAccountToken`, golden: absent, ours: true,
		reason: "llm-d-async builds a Kubernetes client at start-up and exits without a token (issue 16, defect 5): the pod asks for it whatever the ServiceAccount says"},
	{kinds: []string{"ServiceAccount"}, components: []string{componentAsyncProcessor}, when: asyncDispatch,
		path: `automountServiceAccountToken`, golden: absent, ours: true,
		reason: "the async processor needs its token (issue 16, defect 5), said as the other ServiceAccounts say it"},
	{kinds: []string{"Deployment"}, components: batchComponents, when: fsStorage,
		path: `spec.template.spec.securityContext.fsGroup`, golden: absent,
		reason: "a root-owned fs storage volume must be writable (issue 16, defect 4); on OpenShift the SCC sets it instead"},
	{kinds: []string{"Deployment"}, components: batchComponents, when: fsStorage,
		path: `spec.template.spec.securityContext.fsGroupChangePolicy`, golden: absent, ours: "OnRootMismatch",
		reason: "the volume's group is changed only when its root lacks it, not walked at every start"},
	// The batch chart's PrometheusRule carries only Helm's labels; its alerts (spec) are kept
	// exactly (issue 31).
	{kinds: []string{"PrometheusRule"}, components: []string{""}, when: prometheusRuleOn,
		path: `metadata.labels["app.kubernetes.io/name"]`, golden: absent, ours: batchChartName,
		reason: "one label set on every object (reference §7.8): the batch chart labels its PrometheusRule with Helm's labels only"},
	{kinds: []string{"PrometheusRule"}, components: []string{""}, when: prometheusRuleOn,
		path: `metadata.labels["app.kubernetes.io/instance"]`, golden: absent,
		reason: "one label set on every object (reference §7.8): the CR's name, as on every other object"},
	{kinds: []string{"PrometheusRule"}, components: []string{""}, when: prometheusRuleOn,
		path: `metadata.labels["app.kubernetes.io/component"]`, golden: absent, ours: "monitoring",
		reason: "one label set on every object (reference §7.8); the alert rules are the batch components' monitoring"},
	{kinds: []string{"Deployment"}, components: []string{componentAsyncProcessor}, when: asyncSingleQueue,
		path:   `spec.template.spec.containers[0].args`,
		reason: "single-queue mode consumed the chart's queue request-sortedset, which nobody writes to (reference §7.1): one queue llm-d-async:requests:<pool> per inference pool of modelGateways, with the gate of asyncConfig.redis"},
}

// differentialDifferences are intended differences under conditions that no golden CR meets,
// found by the differential test (differential_test.go, issue 31), which checks them with
// intendedDifferences; the golden test, which requires each entry to occur in a golden case,
// does not.
var differentialDifferences = []intendedDifference{
	{kinds: []string{"Service"}, components: []string{componentAPIServer}, when: tlsOn,
		path: `spec.ports[0].appProtocol`, golden: absent, ours: "https",
		reason: "whatever routes to the apiserver's TLS port learns it speaks HTTPS (issue 16, defect 2)"},
	{kinds: []string{"Certificate"}, when: certManagerWithoutDNSNames,
		path: `spec.dnsNames`, golden: absent,
		reason: "without dnsNames in the CR, the apiserver Service's DNS names, which upstream left to the user to guess (reference §7.9)"},
	{kinds: []string{"ConfigMap"}, components: []string{""}, when: grafanaOn,
		path: `metadata.labels["app.kubernetes.io/name"]`, golden: absent, ours: batchChartName,
		reason: "one label set on every object (reference §7.8): the chart labels its dashboards ConfigMap with Helm's labels only"},
	{kinds: []string{"ConfigMap"}, components: []string{""}, when: grafanaOn,
		path: `metadata.labels["app.kubernetes.io/instance"]`, golden: absent,
		reason: "one label set on every object (reference §7.8)"},
	{kinds: []string{"ConfigMap"}, components: []string{""}, when: grafanaOn,
		path: `metadata.labels["app.kubernetes.io/component"]`, golden: absent, ours: "monitoring",
		reason: "one label set on every object (reference §7.8)"},
	{kinds: []string{"ConfigMap"}, components: []string{""}, when: grafanaOn,
		path: `data["llm-infra-additions.json"]`, golden: absent,
		reason: "this operator's dashboards, beside upstream's (kept as shipped): the AIMD panels by inference endpoint and what upstream's lack (docs/batch-gateway.md)"},
	{kinds: []string{"ConfigMap"}, components: []string{componentAsyncProcessor}, when: asyncGrafana,
		path: `data["llm-infra-additions.json"]`, golden: absent,
		reason: "this operator's async-processor dashboard, beside upstream's async-processor.json (kept as shipped): the worker limit by pool and the dispatch budget, which upstream's lacks (docs/batch-gateway.md)"},
	{kinds: []string{"BackendTLSPolicy"}, components: []string{componentAPIServer}, when: backendTLS,
		path: "", golden: absent, ours: "object",
		reason: "the HTTPRoute's backend, the apiserver, serves HTTPS: the Gateway API implementation verifies it with this policy; upstream sent plain HTTP to the HTTPS port (issue 16, defect 2)"},
	{kinds: []string{"ConfigMap"}, components: []string{componentAPIServer}, when: backendTLS,
		path: "", golden: absent, ours: "object",
		reason: "the CA the BackendTLSPolicy verifies the apiserver with, copied from its certificate's Secret (issue 16, defect 2)"},
	{kinds: []string{"Deployment"}, components: []string{componentAsyncProcessor}, when: asyncReplicasSet,
		path: `spec.replicas`, golden: int64(1),
		reason: "llm-d-async v0.7.3's chart writes replicas: 1 whatever its values say (upstream's operator passes replicaCount, its comment says, for when the chart templates it): asyncConfig.replicas takes effect (reference §7.11, TestFieldMappings)"},
	{kinds: []string{"ServiceAccount"}, components: []string{componentAsyncProcessor}, when: asyncDispatch,
		path: `imagePullSecrets`, under: true,
		reason: "llm-d-async v0.7.3's chart (the renderer's, hack/operands/sources.tsv; the golden objects, of upstream's pin dc30b7bb, lack it: test/golden/README.md) writes one entry named {{ .Values.ap.imagePullSecret | default \"\" }}, a value upstream's operator never sets (it sets ap.imagePullSecrets, which the chart does not read): an entry without a name, and never the CR's; ours are spec.imagePullSecrets, as on the other ServiceAccounts"},
	{kinds: []string{"PodMonitor"}, components: []string{componentAsyncProcessor}, when: modelServerMonitorOn,
		path: `metadata.labels["` + scrapeLabel + `"]`, golden: absent, ours: "true",
		reason: "every monitor carries the scrape label (render_test.go): OpenShift AI's monitoring stack scrapes only labelled monitors, so without it the model servers' metrics that the prometheus-budget and -saturation gates read are never collected; upstream's chart labels only the async processor's own PodMonitor"},
	{kinds: []string{"Deployment"}, components: []string{componentAPIServer}, when: condition{"apiServer resources are set", func(s *batchv1alpha1.LLMBatchGatewaySpec) bool { return s.APIServer.Resources != nil }},
		path: `spec.template.spec.containers[0].resources`, under: true,
		reason: "every resource name the CR gives is passed (upstream kept only cpu and memory), and a chart default never makes requests exceed limits (reference §7.3, TestMergeResources)"},
	{kinds: []string{"Deployment"}, components: []string{componentProcessor}, when: condition{"processor resources are set", func(s *batchv1alpha1.LLMBatchGatewaySpec) bool { return s.Processor.Resources != nil }},
		path: `spec.template.spec.containers[0].resources`, under: true,
		reason: "every resource name the CR gives is passed (upstream kept only cpu and memory), and a chart default never makes requests exceed limits (reference §7.3, TestMergeResources)"},
	{kinds: []string{"Deployment"}, components: []string{componentGC}, when: condition{"gc resources are set", func(s *batchv1alpha1.LLMBatchGatewaySpec) bool { return s.GC.Resources != nil }},
		path: `spec.template.spec.containers[0].resources`, under: true,
		reason: "every resource name the CR gives is passed (upstream kept only cpu and memory), and a chart default never makes requests exceed limits (reference §7.3, TestMergeResources)"},
}

func (d intendedDifference) String() string {
	return fmt.Sprintf("%s of %v %v when %s (%s)", d.path, d.kinds, d.components, d.when.says, d.reason)
}

// appliesTo says whether d applies to an object of a case: its kinds and components, and its
// condition on the CR. A field difference applies to objects both sides have, a whole-object one
// to objects only one side has.
func (d intendedDifference) appliesTo(cr *batchv1alpha1.LLMBatchGateway, o goldenObject) bool {
	return (d.kinds == nil || slices.Contains(d.kinds, o.kind)) &&
		(d.components == nil || slices.Contains(d.components, o.component)) &&
		(d.path == "") == o.oneSided && d.when.holds(&cr.Spec)
}

// TestGolden: every difference between the rendering of each golden CR and upstream's objects is
// an intended one, and every intended difference occurs wherever its shape and condition say.
func TestGolden(t *testing.T) {
	checkGolden(t, goldenCases(t), func(t *testing.T, name string) goldenInput {
		return goldenInput{cr: goldenCR(t, name), golden: readGoldenObjects(t, name)}
	})
}

// TestGoldenUnderAnotherName: each golden CR, copied under another name and into another
// namespace, shows upstream's objects for that name (upstream's, renamed) with the same intended
// differences: nothing depends on the name of a case, of a CR or of its namespace.
func TestGoldenUnderAnotherName(t *testing.T) {
	var cases []string
	for _, name := range goldenCases(t) {
		cases = append(cases, "copy-of-"+name)
	}
	checkGolden(t, cases, func(t *testing.T, copyName string) goldenInput {
		cr := goldenCR(t, strings.TrimPrefix(copyName, "copy-of-"))
		golden := readGoldenObjects(t, strings.TrimPrefix(copyName, "copy-of-"))
		renamed := enginetest.Renaming{From: cr.Name, To: "copied-" + cr.Name, FromNamespace: cr.Namespace, ToNamespace: "golden-copy"}
		copied := cr.DeepCopy()
		copied.Name, copied.Namespace = renamed.To, renamed.ToNamespace
		// Ours is rendered for the copy and named back; upstream's stays as it is.
		return goldenInput{cr: copied, golden: golden, nameBack: renamed.Back}
	})
}

// goldenInput is one case: the CR to render, upstream's objects, and how to name our objects
// back when the CR is a copy under another name (nil: they are compared as rendered).
type goldenInput struct {
	cr       *batchv1alpha1.LLMBatchGateway
	golden   []*unstructured.Unstructured
	nameBack func(map[string]interface{}) map[string]interface{}
}

func checkGolden(t *testing.T, cases []string, input func(t *testing.T, name string) goldenInput) {
	enginetest.CheckIntendedDifferences(t, cases, len(intendedDifferences),
		func(t *testing.T, name string) enginetest.GoldenCase[fieldDiff] {
			in := input(t, name)
			diffs, objects := diffGoldenCase(t, in)
			keys := slices.Sorted(maps.Keys(objects))
			return enginetest.GoldenCase[fieldDiff]{
				Diffs:   diffs,
				Objects: keys,
				Listed: func(d fieldDiff) (int, string) {
					return matchIntendedDifference(in.cr, objects[d.kind+"/"+d.name], d), d.kind + "/" + d.name
				},
				Applies: func(i int, key string) bool { return intendedDifferences[i].appliesTo(in.cr, objects[key]) },
			}
		},
		func(i int) string { return intendedDifferences[i].String() })
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
	if len(cases) != 12 {
		tb.Fatalf("found %d golden cases, want 12", len(cases))
	}
	return cases
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
	return fmt.Sprintf("%s %s (component %q) %s: upstream %s, ours %s", d.kind, d.name, d.component, d.path, enginetest.Show(d.golden), enginetest.Show(d.ours))
}

// goldenObject is an object of a case: its kind, upstream's component label (ours when upstream
// has no such object), and whether only one side has it.
type goldenObject struct {
	kind, component string
	oneSided        bool
}

// goldenObjectOf is the object of key ("Kind/name") as upstream (g) and the operator (o) render
// it, either nil when that side has none; its component label is read from whichever exists.
func goldenObjectOf(key string, g, o map[string]interface{}) (obj goldenObject, name string) {
	kind, name, _ := strings.Cut(key, "/")
	labelled := g
	if labelled == nil {
		labelled = o
	}
	component, _, _ := unstructured.NestedString(labelled, "metadata", "labels", componentLabel)
	return goldenObject{kind: kind, component: component, oneSided: g == nil || o == nil}, name
}

// diffGoldenCase renders a case's CR and returns every field that differs from upstream's
// objects, and every object only one side has (path ""), with the objects of either side.
func diffGoldenCase(t *testing.T, in goldenInput) ([]fieldDiff, map[string]goldenObject) {
	t.Helper()
	rendered, err := renderAll(renderInput{cr: in.cr, images: goldenImages, credentialsSecret: in.cr.Spec.SecretRef.Name, backendCA: goldenBackendCA})
	if err != nil {
		t.Fatalf("renderAll: %v", err)
	}
	ours := map[string]map[string]interface{}{}
	for _, r := range rendered {
		if r.wanted {
			obj := normalize(t, r.obj)
			if in.nameBack != nil {
				obj = in.nameBack(obj)
			}
			ours[enginetest.ObjectKey(obj)] = obj
		}
	}
	golden := map[string]map[string]interface{}{}
	for _, obj := range in.golden {
		normalized := normalize(t, obj)
		golden[enginetest.ObjectKey(normalized)] = normalized
	}
	var diffs []fieldDiff
	objects := map[string]goldenObject{}
	for _, key := range sortedKeys(golden, ours) {
		g, o := golden[key], ours[key]
		obj, objName := goldenObjectOf(key, g, o)
		kind, component := obj.kind, obj.component
		objects[key] = obj
		switch {
		case g == nil:
			diffs = append(diffs, fieldDiff{kind: kind, name: objName, component: component, golden: absent, ours: "object"})
		case o == nil:
			diffs = append(diffs, fieldDiff{kind: kind, name: objName, component: component, golden: "object", ours: absent})
		default:
			for _, d := range diffValues("", g, o) {
				d.kind, d.name, d.component = kind, objName, component
				diffs = append(diffs, d)
			}
		}
	}
	return diffs, objects
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

// matchIntendedDifference returns the index of the listed difference d is, or -1: one that
// applies to d's object in this CR, at d's path, with d's values.
func matchIntendedDifference(cr *batchv1alpha1.LLMBatchGateway, o goldenObject, d fieldDiff) int {
	return matchDifference(intendedDifferences, cr, o, d)
}

// matchDifference returns the index in list of the difference d is, or -1.
func matchDifference(list []intendedDifference, cr *batchv1alpha1.LLMBatchGateway, o goldenObject, d fieldDiff) int {
	for i, want := range list {
		if (want.path == d.path || want.under && isBelow(d.path, want.path)) && want.appliesTo(cr, o) &&
			valueMatches(want.golden, d.golden) && valueMatches(want.ours, d.ours) {
			return i
		}
	}
	return -1
}

func isBelow(path, parent string) bool {
	return strings.HasPrefix(path, parent+".") || strings.HasPrefix(path, parent+"[")
}

func valueMatches(want, got interface{}) bool {
	return want == nil || want == got || reflect.DeepEqual(want, got)
}
