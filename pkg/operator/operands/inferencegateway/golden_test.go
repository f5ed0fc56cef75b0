package inferencegateway

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"

	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine/enginetest"
)

// The golden test renders each Gateway of test/golden/inference-gateway (the upstream
// operator's output, see test/golden/README.md) and compares every field of every object, and
// the status fields rendering computes, with upstream's. Every difference must be listed in
// intendedDifferences with its reason; a listed difference that does not occur fails too, so
// the list stays honest. Env is compared as data, by name (its order changes nothing: no
// variable is set twice and none refers to another).
//
// Intended differences the golden CRs do not exercise are tested in render_test.go and
// env_test.go: TLS served with the referenced certificate on the server's port and HTTPS probes
// (§7.5), Service type and annotations (§7.6), guardrails failing closed (§7.1), no
// ROUTING_ENABLED without a source (§7.10), the Ingress, the ServiceMonitor's selector, Gateway
// API parentRefs, and the provider summary (§7.7).

const (
	goldenDir  = "../../../../test/golden/inference-gateway"
	gatewayCRD = "../../../../manifests/core.inference-gateway.com_gateways.yaml"
)

// absent stands for a field that one side does not have.
var absent = &struct{ absent bool }{true}

// intendedDifference is a difference from upstream's objects or status that the operator means
// to make.
type intendedDifference struct {
	// cases it occurs in; nil means every case. It must occur in each.
	cases []string
	// kinds selects the objects; nil means all ("status" is the Gateway's status).
	kinds []string
	// path is the field, as flatten writes it; "" is a whole object only one side has.
	path string
	// golden and ours, when not nil, are the values each side must have (absent for none).
	golden, ours interface{}
	reason       string
}

var (
	allCases = []string{
		"extra-empty-spec", "extra-hpa-ports-gatewayapi-tls", "gateway-minimal",
		"gateway-with-model-routing", "gpu", "orchestrator",
	}
	withoutHostname = []string{"extra-empty-spec", "gateway-minimal", "gateway-with-model-routing", "gpu", "orchestrator"}
)

var intendedDifferences = []intendedDifference{
	// One label set on every object and pod template (reference §7.18).
	{kinds: []string{"Deployment", "Service"}, path: `metadata.labels["app.kubernetes.io/name"]`, golden: absent, ours: nameValue,
		reason: "one label set on every object (§7.18): upstream labelled only the ServiceAccount"},
	{kinds: []string{"Deployment", "Service"}, path: `metadata.labels["app.kubernetes.io/instance"]`, golden: absent,
		reason: "one label set on every object (§7.18)"},
	{kinds: []string{"Deployment", "Service"}, path: `metadata.labels["app.kubernetes.io/component"]`, golden: absent, ours: componentGateway,
		reason: "one label set on every object (§7.18)"},
	{cases: []string{"gateway-with-model-routing"}, kinds: []string{"ConfigMap"}, path: `metadata.labels["app.kubernetes.io/name"]`, golden: absent, ours: nameValue,
		reason: "one label set on every object (§7.18); upstream's app label stays"},
	{cases: []string{"gateway-with-model-routing"}, kinds: []string{"ConfigMap"}, path: `metadata.labels["app.kubernetes.io/instance"]`, golden: absent,
		reason: "one label set on every object (§7.18)"},
	{cases: []string{"gateway-with-model-routing"}, kinds: []string{"ConfigMap"}, path: `metadata.labels["app.kubernetes.io/component"]`, golden: absent, ours: componentGateway,
		reason: "one label set on every object (§7.18)"},
	{cases: []string{"extra-hpa-ports-gatewayapi-tls"}, kinds: []string{"HorizontalPodAutoscaler", "Gateway", "HTTPRoute"},
		path: `metadata.labels["app.kubernetes.io/name"]`, golden: absent, ours: nameValue,
		reason: "one label set on every object (§7.18); upstream's app label stays"},
	{cases: []string{"extra-hpa-ports-gatewayapi-tls"}, kinds: []string{"HorizontalPodAutoscaler", "Gateway", "HTTPRoute"},
		path: `metadata.labels["app.kubernetes.io/instance"]`, golden: absent,
		reason: "one label set on every object (§7.18)"},
	{cases: []string{"extra-hpa-ports-gatewayapi-tls"}, kinds: []string{"HorizontalPodAutoscaler", "Gateway", "HTTPRoute"},
		path: `metadata.labels["app.kubernetes.io/component"]`, golden: absent, ours: componentGateway,
		reason: "one label set on every object (§7.18)"},
	{path: `metadata.labels["app.kubernetes.io/part-of"]`, golden: absent, ours: PartOfValue,
		reason: "one label set on every object (§7.18), part-of included"},
	{kinds: []string{"ServiceAccount"}, path: `metadata.labels["app.kubernetes.io/managed-by"]`, golden: "inference-gateway-operator", ours: absent,
		reason: "the engine stamps app.kubernetes.io/managed-by: llm-infra-operator on every object it applies"},
	{path: `metadata.ownerReferences[0].apiVersion`, ours: absent, reason: "the engine sets the owner reference to the CR when it applies"},
	{path: `metadata.ownerReferences[0].blockOwnerDeletion`, ours: absent, reason: "the engine sets the owner reference"},
	{path: `metadata.ownerReferences[0].controller`, ours: absent, reason: "the engine sets the owner reference"},
	{path: `metadata.ownerReferences[0].kind`, ours: absent, reason: "the engine sets the owner reference"},
	{path: `metadata.ownerReferences[0].name`, ours: absent, reason: "the engine sets the owner reference"},
	{path: `metadata.ownerReferences[0].uid`, ours: absent, reason: "the engine sets the owner reference"},
	{kinds: []string{"Deployment"}, path: `spec.template.metadata.labels["app.kubernetes.io/name"]`, golden: absent, ours: nameValue,
		reason: "the pods carry the label set too (§7.18); the selector stays upstream's app label"},
	{kinds: []string{"Deployment"}, path: `spec.template.metadata.labels["app.kubernetes.io/instance"]`, golden: absent,
		reason: "the pods carry the label set too (§7.18)"},
	{kinds: []string{"Deployment"}, path: `spec.template.metadata.labels["app.kubernetes.io/component"]`, golden: absent, ours: componentGateway,
		reason: "the pods carry the label set too (§7.18)"},
	{kinds: []string{"Deployment"}, path: `spec.template.metadata.labels["app.kubernetes.io/part-of"]`, golden: absent, ours: PartOfValue,
		reason: "the pods carry the label set too (§7.18)"},

	// The environment contract (env.go).
	{kinds: []string{"Deployment"}, path: `spec.template.spec.containers[0].env.SERVER_HOST.value`, golden: absent, ours: "0.0.0.0",
		reason: "SERVER_HOST is set: the gateway's own default is 127.0.0.1 since v0.4x, and only the image's ENV made it reachable (§7.17)"},
	{cases: withoutHostname, kinds: []string{"Deployment"}, path: `spec.template.spec.containers[0].env.SERVER_PORT.value`, golden: absent, ours: "8080",
		reason: "SERVER_PORT is set, so the gateway listens where the container port, the probes and the Service point (§7.2)"},
	{cases: []string{"extra-hpa-ports-gatewayapi-tls"}, kinds: []string{"Deployment"}, path: `spec.template.spec.containers[0].env.SERVER_PORT.value`, golden: absent, ours: "8081",
		reason: "SERVER_PORT is set: upstream's gateway listened on 8080 while the container port and the probes said 8081, so the pod never became ready (§7.2)"},
	{kinds: []string{"Deployment"}, path: `spec.template.spec.containers[0].env.SERVER_READ_TIMEOUT.value`, golden: absent, ours: "60s",
		reason: "the server timeouts are passed, with the API's documented defaults (§7.4)"},
	{kinds: []string{"Deployment"}, path: `spec.template.spec.containers[0].env.SERVER_WRITE_TIMEOUT.value`, golden: absent, ours: "60s",
		reason: "the server timeouts are passed: the gateway's own 30s cut long streamed completions (§7.4)"},
	{kinds: []string{"Deployment"}, path: `spec.template.spec.containers[0].env.SERVER_IDLE_TIMEOUT.value`, golden: absent, ours: "300s",
		reason: "the server timeouts are passed (§7.4)"},
	{cases: []string{"gateway-minimal"}, kinds: []string{"Deployment"}, path: `spec.template.spec.containers[0].env.TELEMETRY_METRICS_PORT.value`, golden: absent, ours: "9464",
		reason: "TELEMETRY_METRICS_PORT follows spec.telemetry.metrics.port, where the container and the Service declare it (§7.3)"},
	{cases: []string{"orchestrator"}, kinds: []string{"Deployment"}, path: `spec.template.spec.containers[0].env.MCP_REQUEST_TIMEOUT.value`, golden: absent, ours: "5s",
		reason: "MCP_REQUEST_TIMEOUT is passed like the other MCP timeouts (§7.4); without spec.mcp.timeouts, the gateway's own default"},

	// Ports.
	{cases: withoutHostname, kinds: []string{"Service"}, path: `spec.ports[0].targetPort`, golden: int64(8080), ours: portHTTP,
		reason: "the Service targets the container's port by name, so it always reaches the port the gateway listens on (§7.6)"},
	{cases: []string{"extra-hpa-ports-gatewayapi-tls"}, kinds: []string{"Service"}, path: `spec.ports[0].targetPort`, golden: int64(9000), ours: portHTTP,
		reason: "upstream's targetPort was the Service's port 9000, where nothing listens (the gateway is on 8081): the Service targets the container port http (§7.6)"},
	{cases: []string{"gateway-minimal"}, kinds: []string{"Service"}, path: `spec.ports[1].targetPort`, golden: int64(9464), ours: portMetrics,
		reason: "the metrics port targets the container's port by name, like http"},

	{cases: []string{"extra-hpa-ports-gatewayapi-tls"}, kinds: []string{"Service"}, path: `spec.type`, golden: absent, ours: "ClusterIP",
		reason: "spec.service.type is honoured (§7.6); the API defaults it to ClusterIP, which the API server would also choose"},

	// Objects upstream does not create.
	{cases: []string{"gateway-minimal"}, kinds: []string{"ServiceMonitor"}, golden: absent,
		reason: "a ServiceMonitor scrapes the metrics port the spec declares (§7.15; upstream's users wrote their own)"},

	// Status.
	{cases: withoutHostname, kinds: []string{"status"}, path: "url",
		reason: "status.url carries the Service's port: upstream's had none, so it did not work as written (§7.11)"},
}

func TestGolden(t *testing.T) {
	cases := goldenCases(t)
	enginetest.CheckListedDifferences(t, cases, len(intendedDifferences), diffGoldenCase, matchIntendedDifference,
		func(i int) []string { return casesOf(intendedDifferences[i]) },
		func(i int) string {
			d := intendedDifferences[i]
			return fmt.Sprintf("%s %q (%s)", d.kinds, d.path, d.reason)
		})
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
	if !reflect.DeepEqual(cases, allCases) {
		tb.Fatalf("golden cases %v, want %v", cases, allCases)
	}
	return cases
}

func casesOf(d intendedDifference) []string {
	if d.cases == nil {
		return allCases
	}
	return d.cases
}

// goldenCR reads a case's Gateway with the CRD's defaults applied, as the API server stores it
// and as upstream's controller saw it.
func goldenCR(tb testing.TB, name string) *v1alpha1.Gateway {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join(goldenDir, name, "cr.yaml"))
	if err != nil {
		tb.Fatal(err)
	}
	var obj map[string]interface{}
	if err := yaml.Unmarshal(data, &obj); err != nil {
		tb.Fatalf("cr.yaml: %v", err)
	}
	structuraldefaulting.Default(obj, gatewaySchema(tb))
	defaulted, err := json.Marshal(obj)
	if err != nil {
		tb.Fatal(err)
	}
	cr := &v1alpha1.Gateway{}
	if err := yaml.UnmarshalStrict(defaulted, cr); err != nil {
		tb.Fatalf("cr.yaml: %v", err)
	}
	return cr
}

// gatewaySchema is the structural schema of the generated Gateway CRD, which the API server
// defaults objects with.
func gatewaySchema(tb testing.TB) *structuralschema.Structural {
	tb.Helper()
	raw, err := os.ReadFile(gatewayCRD)
	if err != nil {
		tb.Fatal(err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(raw, crd); err != nil {
		tb.Fatal(err)
	}
	internal := &apiextensionsinternal.CustomResourceValidation{}
	if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(crd.Spec.Versions[0].Schema, internal, nil); err != nil {
		tb.Fatal(err)
	}
	schema, err := structuralschema.NewStructural(internal.OpenAPIV3Schema)
	if err != nil {
		tb.Fatal(err)
	}
	return schema
}

// fieldDiff is one field that differs between upstream's object and ours.
type fieldDiff struct {
	kind, name   string
	path         string
	golden, ours interface{}
}

func (d fieldDiff) String() string {
	return fmt.Sprintf("%s %s %s: upstream %s, ours %s", d.kind, d.name, d.path, show(d.golden), show(d.ours))
}

func show(v interface{}) string {
	if v == absent {
		return "<absent>"
	}
	data, _ := json.Marshal(v)
	return string(data)
}

// diffGoldenCase renders a case and returns every field that differs from upstream's objects
// and status, and every object only one side has (path "").
func diffGoldenCase(t *testing.T, name string) []fieldDiff {
	t.Helper()
	cr := goldenCR(t, name)
	// No MCP objects existed when the golden objects were made.
	rendered, err := renderAll(renderInput{cr: cr, mcpServers: mcpServerURLs(cr, nil)})
	if err != nil {
		t.Fatalf("renderAll: %v", err)
	}
	ours := map[string]map[string]interface{}{}
	for _, r := range rendered {
		if r.wanted {
			obj := normalize(t, r.obj)
			ours[objectKey(obj)] = enginetest.Flatten(obj)
		}
	}
	golden := map[string]map[string]interface{}{}
	for _, obj := range readGoldenObjects(t, name) {
		normalized := normalize(t, obj)
		golden[objectKey(normalized)] = enginetest.Flatten(normalized)
	}
	golden["status/"+cr.Name] = enginetest.Flatten(readGoldenStatus(t, name))
	ours["status/"+cr.Name] = enginetest.Flatten(statusOf(cr))

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
			for _, path := range sortedKeys(g, o) {
				gv, gok := g[path]
				ov, ook := o[path]
				if !gok {
					gv = absent
				}
				if !ook {
					ov = absent
				}
				if !reflect.DeepEqual(gv, ov) {
					diffs = append(diffs, fieldDiff{kind: kind, name: objName, path: path, golden: gv, ours: ov})
				}
			}
		}
	}
	return diffs
}

// statusOf is the part of a Gateway's status that rendering computes, as upstream's status.yaml
// holds it. No provider Secret existed when the golden objects were made.
func statusOf(cr *v1alpha1.Gateway) map[string]interface{} {
	status := map[string]interface{}{
		"url":                gatewayURL(cr),
		"serviceAccountName": serviceAccountName(cr),
		"mcpServerCount":     int64(len(mcpServerURLs(cr, nil))),
	}
	if summary := providerSummary(&cr.Spec, func(string) *corev1.Secret { return nil }); summary != "" {
		status["providerSummary"] = summary
	}
	return status
}

func readGoldenStatus(t *testing.T, name string) map[string]interface{} {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(goldenDir, name, "status.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var status map[string]interface{}
	if err := yaml.Unmarshal(data, &status); err != nil {
		t.Fatal(err)
	}
	return status
}

func objectKey(obj map[string]interface{}) string {
	u := unstructured.Unstructured{Object: obj}
	return u.GetKind() + "/" + u.GetName()
}

func sortedKeys[V any](a, b map[string]V) []string {
	keys := maps.Clone(a)
	maps.Copy(keys, b)
	return slices.Sorted(maps.Keys(keys))
}

func readGoldenObjects(t *testing.T, name string) []*unstructured.Unstructured {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(goldenDir, name, "objects.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var objs []*unstructured.Unstructured
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return objs
		}
		if err != nil {
			t.Fatalf("objects.yaml: %v", err)
		}
		obj, err := engine.DecodeManifest(doc)
		if err != nil {
			t.Fatalf("objects.yaml: %v", err)
		}
		objs = append(objs, obj)
	}
}

// normalize brings both sides to one form: built-in kinds go through their Go types (so "1000m"
// and "1" are one quantity), and each container's env becomes a map by name, compared as data.
func normalize(t *testing.T, obj runtime.Object) map[string]interface{} {
	t.Helper()
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	gvk := (&unstructured.Unstructured{Object: content}).GroupVersionKind()
	if typed, err := clientgoscheme.Scheme.New(gvk); err == nil {
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(content, typed); err != nil {
			t.Fatal(err)
		}
		if content, err = runtime.DefaultUnstructuredConverter.ToUnstructured(typed); err != nil {
			t.Fatal(err)
		}
	}
	containers, _, _ := unstructured.NestedSlice(content, "spec", "template", "spec", "containers")
	for _, c := range containers {
		c := c.(map[string]interface{})
		env, _ := c["env"].([]interface{})
		byName := map[string]interface{}{}
		for _, e := range env {
			e := e.(map[string]interface{})
			name := e["name"].(string)
			delete(e, "name")
			byName[name] = e
		}
		if len(env) > 0 {
			c["env"] = byName
		}
	}
	if len(containers) > 0 {
		if err := unstructured.SetNestedSlice(content, containers, "spec", "template", "spec", "containers"); err != nil {
			t.Fatal(err)
		}
	}
	return content
}

// matchIntendedDifference returns the index of the listed difference d is, or -1.
func matchIntendedDifference(caseName string, d fieldDiff) int {
	for i, want := range intendedDifferences {
		if want.path != d.path ||
			(want.cases != nil && !slices.Contains(want.cases, caseName)) ||
			(want.kinds != nil && !slices.Contains(want.kinds, d.kind)) ||
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
