package inferencegateway

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine/enginetest"
)

// The golden test renders each Gateway of test/golden/inference-gateway (the upstream
// operator's output, see test/golden/README.md) and compares every field of every object, and
// the status fields upstream's status has too (specStatus: url, serviceAccountName,
// providerSummary, mcpServers, mcpServerCount), with upstream's. Every difference must be listed
// in intendedDifferences with its reason, keyed by what causes it (the object's kind, a
// condition on the Gateway), never by a case's name; a listed difference that does not occur in
// an object it applies to fails too, so the list stays honest. The same Gateways under other
// names and in another namespace must pass alike. Env is compared as data, by name (its order
// changes nothing: no variable is set twice and none refers to another).
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
var absent = enginetest.Absent

// statusKind is the kind the CR's status is compared under.
const statusKind = "status"

// crCondition is when, by a CR's spec (S: GatewaySpec, MCPSpec), an intended difference occurs.
type crCondition[S any] struct {
	says  string
	holds func(spec *S) bool
}

// crValue stands for a value that follows from the CR (C: Gateway, MCP), such as a port it
// declares.
type crValue[C any] func(cr *C) interface{}

// The Gateway's.
type (
	condition          = crCondition[v1alpha1.GatewaySpec]
	fromCR             = crValue[v1alpha1.Gateway]
	intendedDifference = listedDifference[v1alpha1.Gateway, v1alpha1.GatewaySpec]
)

// declaredServerPort and declaredServicePort are the ports the spec declares, with the CRD's
// default and the Service's fallback to the server's port.
func declaredServerPort(spec *v1alpha1.GatewaySpec) int32 {
	if spec.Server != nil && spec.Server.Port != 0 {
		return spec.Server.Port
	}
	return 8080
}

func declaredServicePort(spec *v1alpha1.GatewaySpec) int32 {
	if spec.Service != nil && spec.Service.Port != 0 {
		return spec.Service.Port
	}
	return declaredServerPort(spec)
}

var (
	everyGateway = condition{"every Gateway", func(*v1alpha1.GatewaySpec) bool { return true }}
	// Upstream's gateway always listened on 8080, whatever spec.server.port said.
	serverOnUpstreamsPort = condition{"spec.server.port is 8080 (or unset)", func(s *v1alpha1.GatewaySpec) bool {
		return declaredServerPort(s) == 8080
	}}
	serverOnOtherPort = condition{"spec.server.port is not 8080", func(s *v1alpha1.GatewaySpec) bool {
		return declaredServerPort(s) != 8080
	}}
	serviceOnServerPort = condition{"the Service's port is the server's", func(s *v1alpha1.GatewaySpec) bool {
		return declaredServicePort(s) == declaredServerPort(s)
	}}
	serviceOnOtherPort = condition{"spec.service.port differs from the server's", func(s *v1alpha1.GatewaySpec) bool {
		return declaredServicePort(s) != declaredServerPort(s)
	}}
	serviceTypeSet = condition{"spec.service.type is set", func(s *v1alpha1.GatewaySpec) bool {
		return s.Service != nil && s.Service.Type != ""
	}}
	telemetryOn = condition{"spec.telemetry.enabled", func(s *v1alpha1.GatewaySpec) bool {
		return s.Telemetry != nil && s.Telemetry.Enabled
	}}
	metricsOn = condition{"spec.telemetry.enabled and spec.telemetry.metrics.enabled", func(s *v1alpha1.GatewaySpec) bool {
		return s.Telemetry != nil && s.Telemetry.Enabled && s.Telemetry.Metrics != nil && s.Telemetry.Metrics.Enabled
	}}
	mcpOn = condition{"spec.mcp.enabled", func(s *v1alpha1.GatewaySpec) bool { return s.MCP != nil && s.MCP.Enabled }}
	// exposedByService: no Ingress or HTTPRoute host names the gateway, so status.url is the
	// Service's.
	exposedByService = condition{"no Ingress host and no HTTPRoute hostname", func(s *v1alpha1.GatewaySpec) bool {
		if s.Ingress != nil && s.Ingress.Enabled && s.Ingress.Host != "" {
			return false
		}
		return !(s.GatewayAPI != nil && s.GatewayAPI.Enabled && s.GatewayAPI.HTTPRoute != nil && len(s.GatewayAPI.HTTPRoute.Hostnames) > 0)
	}}
)

// listedDifference is a difference from upstream's objects or status that the operator means
// to make, keyed by what causes it: the objects it concerns (kinds, or every kind but
// notKinds) and the condition on the CR's spec under which it occurs. It must occur in every
// object it applies to, in every CR, whatever its name.
type listedDifference[C, S any] struct {
	// kinds selects the objects (statusKind is the CR's status); nil means all but notKinds.
	kinds, notKinds []string
	when            crCondition[S]
	// path is the field, as flatten writes it; "" is a whole object only one side has.
	path string
	// golden and ours, when not nil, are the values each side must have: a value, absent for
	// none, or a crValue[C].
	golden, ours interface{}
	reason       string
}

var (
	// labelledByUpstream: upstream gave the app.kubernetes.io labels to its ServiceAccount only.
	labelledByUpstream = []string{"ServiceAccount", statusKind}
	objectsOnly        = []string{statusKind}
)

func serverPortString(gw *v1alpha1.Gateway) interface{} {
	return fmt.Sprint(declaredServerPort(&gw.Spec))
}

var intendedDifferences = []intendedDifference{
	// One label set on every object and pod template (reference §7.18).
	{notKinds: labelledByUpstream, when: everyGateway, path: `metadata.labels["app.kubernetes.io/name"]`, golden: absent, ours: nameValue,
		reason: "one label set on every object (§7.18): upstream labelled only the ServiceAccount; upstream's app label stays"},
	{notKinds: labelledByUpstream, when: everyGateway, path: `metadata.labels["app.kubernetes.io/instance"]`, golden: absent,
		reason: "one label set on every object (§7.18)"},
	{notKinds: labelledByUpstream, when: everyGateway, path: `metadata.labels["app.kubernetes.io/component"]`, golden: absent, ours: componentGateway,
		reason: "one label set on every object (§7.18)"},
	{notKinds: objectsOnly, when: everyGateway, path: `metadata.labels["app.kubernetes.io/part-of"]`, golden: absent, ours: PartOfValue,
		reason: "one label set on every object (§7.18), part-of included"},
	{kinds: []string{"ServiceAccount"}, when: everyGateway, path: `metadata.labels["app.kubernetes.io/managed-by"]`, golden: "inference-gateway-operator", ours: absent,
		reason: "the engine stamps app.kubernetes.io/managed-by: llm-infra-operator on every object it applies"},
	{notKinds: objectsOnly, when: everyGateway, path: `metadata.ownerReferences[0].apiVersion`, ours: absent, reason: "the engine sets the owner reference to the CR when it applies"},
	{notKinds: objectsOnly, when: everyGateway, path: `metadata.ownerReferences[0].blockOwnerDeletion`, ours: absent, reason: "the engine sets the owner reference"},
	{notKinds: objectsOnly, when: everyGateway, path: `metadata.ownerReferences[0].controller`, ours: absent, reason: "the engine sets the owner reference"},
	{notKinds: objectsOnly, when: everyGateway, path: `metadata.ownerReferences[0].kind`, ours: absent, reason: "the engine sets the owner reference"},
	{notKinds: objectsOnly, when: everyGateway, path: `metadata.ownerReferences[0].name`, ours: absent, reason: "the engine sets the owner reference"},
	{notKinds: objectsOnly, when: everyGateway, path: `metadata.ownerReferences[0].uid`, ours: absent, reason: "the engine sets the owner reference"},
	{kinds: []string{"Deployment"}, when: everyGateway, path: `spec.template.metadata.labels["app.kubernetes.io/name"]`, golden: absent, ours: nameValue,
		reason: "the pods carry the label set too (§7.18); the selector stays upstream's app label"},
	{kinds: []string{"Deployment"}, when: everyGateway, path: `spec.template.metadata.labels["app.kubernetes.io/instance"]`, golden: absent,
		reason: "the pods carry the label set too (§7.18)"},
	{kinds: []string{"Deployment"}, when: everyGateway, path: `spec.template.metadata.labels["app.kubernetes.io/component"]`, golden: absent, ours: componentGateway,
		reason: "the pods carry the label set too (§7.18)"},
	{kinds: []string{"Deployment"}, when: everyGateway, path: `spec.template.metadata.labels["app.kubernetes.io/part-of"]`, golden: absent, ours: PartOfValue,
		reason: "the pods carry the label set too (§7.18)"},

	// The environment contract (env.go).
	{kinds: []string{"Deployment"}, when: everyGateway, path: `spec.template.spec.containers[0].env.SERVER_HOST.value`, golden: absent, ours: "0.0.0.0",
		reason: "SERVER_HOST is set: the gateway's own default is 127.0.0.1 since v0.4x, and only the image's ENV made it reachable (§7.17)"},
	{kinds: []string{"Deployment"}, when: serverOnUpstreamsPort, path: `spec.template.spec.containers[0].env.SERVER_PORT.value`, golden: absent, ours: "8080",
		reason: "SERVER_PORT is set, so the gateway listens where the container port, the probes and the Service point (§7.2)"},
	{kinds: []string{"Deployment"}, when: serverOnOtherPort, path: `spec.template.spec.containers[0].env.SERVER_PORT.value`, golden: absent, ours: fromCR(serverPortString),
		reason: "SERVER_PORT is set: upstream's gateway listened on 8080 while the container port and the probes said spec.server.port, so the pod never became ready (§7.2)"},
	{kinds: []string{"Deployment"}, when: everyGateway, path: `spec.template.spec.containers[0].env.SERVER_READ_TIMEOUT.value`, golden: absent, ours: "60s",
		reason: "the server timeouts are passed, with the API's documented defaults (§7.4)"},
	{kinds: []string{"Deployment"}, when: everyGateway, path: `spec.template.spec.containers[0].env.SERVER_WRITE_TIMEOUT.value`, golden: absent, ours: "60s",
		reason: "the server timeouts are passed: the gateway's own 30s cut long streamed completions (§7.4)"},
	{kinds: []string{"Deployment"}, when: everyGateway, path: `spec.template.spec.containers[0].env.SERVER_IDLE_TIMEOUT.value`, golden: absent, ours: "300s",
		reason: "the server timeouts are passed (§7.4)"},
	{kinds: []string{"Deployment"}, when: telemetryOn, path: `spec.template.spec.containers[0].env.TELEMETRY_METRICS_PORT.value`, golden: absent,
		ours:   fromCR(func(gw *v1alpha1.Gateway) interface{} { return fmt.Sprint(metricsPortOf(&gw.Spec)) }),
		reason: "TELEMETRY_METRICS_PORT follows spec.telemetry.metrics.port, where the container and the Service declare it (§7.3)"},
	{kinds: []string{"Deployment"}, when: mcpOn, path: `spec.template.spec.containers[0].env.MCP_REQUEST_TIMEOUT.value`, golden: absent,
		reason: "MCP_REQUEST_TIMEOUT is passed like the other MCP timeouts (§7.4); without spec.mcp.timeouts, the gateway's own default"},

	// Ports.
	{kinds: []string{"Service"}, when: serviceOnServerPort, path: `spec.ports[0].targetPort`,
		golden: fromCR(func(gw *v1alpha1.Gateway) interface{} { return int64(declaredServicePort(&gw.Spec)) }), ours: portHTTP,
		reason: "the Service targets the container's port by name, so it always reaches the port the gateway listens on (§7.6)"},
	{kinds: []string{"Service"}, when: serviceOnOtherPort, path: `spec.ports[0].targetPort`,
		golden: fromCR(func(gw *v1alpha1.Gateway) interface{} { return int64(declaredServicePort(&gw.Spec)) }), ours: portHTTP,
		reason: "upstream's targetPort was the Service's port, where nothing listens (the gateway is on spec.server.port): the Service targets the container port http (§7.6)"},
	{kinds: []string{"Service"}, when: metricsOn, path: `spec.ports[1].targetPort`,
		golden: fromCR(func(gw *v1alpha1.Gateway) interface{} { return int64(metricsPortOf(&gw.Spec)) }), ours: portMetrics,
		reason: "the metrics port targets the container's port by name, like http"},
	{kinds: []string{"Service"}, when: serviceTypeSet, path: `spec.type`, golden: absent,
		ours:   fromCR(func(gw *v1alpha1.Gateway) interface{} { return string(gw.Spec.Service.Type) }),
		reason: "spec.service.type is honoured (§7.6); the API defaults it to ClusterIP, which the API server would also choose"},

	// Objects upstream does not create.
	{kinds: []string{"ServiceMonitor"}, when: metricsOn, golden: absent,
		reason: "a ServiceMonitor scrapes the metrics port the spec declares (§7.15; upstream's users wrote their own)"},

	// Status.
	{kinds: []string{statusKind}, when: exposedByService, path: "url",
		golden: fromCR(func(gw *v1alpha1.Gateway) interface{} {
			return fmt.Sprintf("http://%s.%s.svc.cluster.local", gw.Name, gw.Namespace)
		}),
		reason: "status.url carries the Service's port: upstream's had none, so it did not work as written (§7.11)"},
}

// metricsPortOf is the metrics port the spec declares, with the CRD's default.
func metricsPortOf(spec *v1alpha1.GatewaySpec) int32 {
	if t := spec.Telemetry; t != nil && t.Metrics != nil && t.Metrics.Port != 0 {
		return t.Metrics.Port
	}
	return 9464
}

func (d listedDifference[C, S]) String() string {
	return fmt.Sprintf("%q of %v (not %v) when %s (%s)", d.path, d.kinds, d.notKinds, d.when.says, d.reason)
}

// appliesTo says whether d applies to an object of a case: its kinds, and its condition on the
// CR's spec. A field difference applies to objects both sides have, a whole-object one to
// objects only one side has.
func (d listedDifference[C, S]) appliesTo(spec *S, o enginetest.GoldenObject) bool {
	return (d.kinds == nil || slices.Contains(d.kinds, o.Kind)) && !slices.Contains(d.notKinds, o.Kind) &&
		(d.path == "") == o.OneSided && d.when.holds(spec)
}

// goldenKind is what the golden and differential tests need of one kind of
// test/golden/inference-gateway: its CRD, how many golden cases it has, its intended
// differences, and how the operator renders a CR of it.
type goldenKind[C, S any] struct {
	kind string
	// cases is how many golden cases of the kind there are (test/golden/README.md), so that a
	// case folder lost in a copy is noticed.
	cases       int
	crd         string
	differences []listedDifference[C, S]
	spec        func(cr *C) *S
	// render is what the operator renders for cr without a cluster (the objects it wants) and
	// the status fields upstream's status has too; an error when it cannot render the CR.
	render func(cr *C) (objects []runtime.Object, status interface{}, err error)
}

var gatewayGolden = goldenKind[v1alpha1.Gateway, v1alpha1.GatewaySpec]{
	kind: "Gateway", cases: 6, crd: gatewayCRD, differences: intendedDifferences,
	spec: func(gw *v1alpha1.Gateway) *v1alpha1.GatewaySpec { return &gw.Spec },
	render: func(gw *v1alpha1.Gateway) ([]runtime.Object, interface{}, error) {
		// No MCP objects and no provider Secrets existed when the golden objects were made.
		mcpServers := mcpServerURLs(gw, nil)
		rendered, err := renderAll(renderInput{cr: gw, mcpServers: mcpServers})
		if err != nil {
			return nil, nil, err
		}
		var status v1alpha1.GatewayStatus
		specStatus(&status, gw, mcpServers, func(string) *corev1.Secret { return nil })
		return wantedObjects(rendered), &status, nil
	},
}

func wantedObjects(rendered []renderedObject) []runtime.Object {
	var objs []runtime.Object
	for _, r := range rendered {
		if r.wanted {
			objs = append(objs, r.obj)
		}
	}
	return objs
}

// TestGolden: every difference between the rendering (and status) of each golden Gateway and
// upstream's is an intended one, and every intended difference occurs wherever its kind and
// condition say.
func TestGolden(t *testing.T) {
	gatewayGolden.check(t)
}

// TestGoldenUnderAnotherName: each golden Gateway, copied under another name and into another
// namespace, shows upstream's objects and status for that name (upstream's, renamed) with the
// same intended differences: nothing depends on the name of a case, of a Gateway or of its
// namespace.
func TestGoldenUnderAnotherName(t *testing.T) {
	gatewayGolden.checkUnderAnotherName(t)
}

// goldenInput is one case: the CR to render, upstream's objects and status, and how to name our
// objects back when the CR is a copy under another name (nil: compared as rendered).
type goldenInput[C any] struct {
	cr       *C
	golden   []*unstructured.Unstructured
	status   map[string]interface{}
	nameBack func(map[string]interface{}) map[string]interface{}
}

// check compares each golden case of the kind with upstream's.
func (k goldenKind[C, S]) check(t *testing.T) {
	k.checkCases(t, k.caseNames(t), func(t *testing.T, name string) goldenInput[C] {
		return goldenInput[C]{cr: k.cr(t, name), golden: readGoldenObjects(t, name), status: readGoldenStatus(t, name)}
	})
}

// checkUnderAnotherName compares each golden case, copied under another name and into another
// namespace, with upstream's objects and status of the original, renamed.
func (k goldenKind[C, S]) checkUnderAnotherName(t *testing.T) {
	var cases []string
	for _, name := range k.caseNames(t) {
		cases = append(cases, "copy-of-"+name)
	}
	k.checkCases(t, cases, func(t *testing.T, copyName string) goldenInput[C] {
		original := strings.TrimPrefix(copyName, "copy-of-")
		cr := k.cr(t, original)
		meta := objectOf(cr)
		renamed := enginetest.Renaming{From: meta.GetName(), To: "copied-" + meta.GetName(), FromNamespace: meta.GetNamespace(), ToNamespace: "golden-copy"}
		copied := objectOf(cr).DeepCopyObject().(metaObject)
		copied.SetName(renamed.To)
		copied.SetNamespace(renamed.ToNamespace)
		// Ours is rendered for the copy and named back; upstream's stays as it is, and the
		// conditions are read on the copy.
		return goldenInput[C]{cr: any(copied).(*C), golden: readGoldenObjects(t, original), status: readGoldenStatus(t, original), nameBack: renamed.Back}
	})
}

func (k goldenKind[C, S]) checkCases(t *testing.T, cases []string, input func(t *testing.T, name string) goldenInput[C]) {
	enginetest.CheckIntendedDifferences(t, cases, len(k.differences),
		func(t *testing.T, name string) enginetest.GoldenCase[enginetest.FieldDiff] {
			in := input(t, name)
			golden, ours := k.goldenAndOurs(t, in)
			// Conditions and values that follow from the CR are read on the CR as named back
			// (a copy's status.url names the original's Service).
			cr := in.cr
			if in.nameBack != nil {
				cr = namedBack(t, in.cr, in.nameBack)
			}
			return enginetest.FlattenedCase(golden, ours,
				func(o enginetest.GoldenObject, d enginetest.FieldDiff) int { return k.match(cr, o, d) },
				func(i int, o enginetest.GoldenObject) bool { return k.differences[i].appliesTo(k.spec(cr), o) })
		},
		func(i int) string { return k.differences[i].String() })
}

// metaObject is what the kinds' pointers are: a runtime.Object with metadata.
type metaObject interface {
	runtime.Object
	metav1.Object
}

func objectOf[C any](cr *C) metaObject { return any(cr).(metaObject) }

// namedBack is a copied CR named back as the original.
func namedBack[C any](t *testing.T, cr *C, nameBack func(map[string]interface{}) map[string]interface{}) *C {
	t.Helper()
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(cr)
	if err != nil {
		t.Fatal(err)
	}
	back := new(C)
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(nameBack(content), back); err != nil {
		t.Fatal(err)
	}
	return back
}

// caseNames are the golden cases whose CR is of the kind; tb fails unless there are k.cases.
func (k goldenKind[C, S]) caseNames(tb testing.TB) []string {
	tb.Helper()
	entries, err := os.ReadDir(goldenDir)
	if err != nil {
		tb.Fatal(err)
	}
	var cases []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(goldenDir, e.Name(), "cr.yaml"))
		if err != nil {
			tb.Fatal(err)
		}
		var meta metav1.TypeMeta
		if err := yaml.Unmarshal(data, &meta); err != nil {
			tb.Fatalf("%s: %v", e.Name(), err)
		}
		if meta.Kind == k.kind {
			cases = append(cases, e.Name())
		}
	}
	if len(cases) != k.cases {
		tb.Fatalf("found %d golden %ss %v, want %d", len(cases), k.kind, cases, k.cases)
	}
	return cases
}

// goldenCases are the golden Gateways.
func goldenCases(tb testing.TB) []string { return gatewayGolden.caseNames(tb) }

// cr reads a case's CR with the CRD's defaults applied, as the API server stores it and as
// upstream's controller saw it.
func (k goldenKind[C, S]) cr(tb testing.TB, name string) *C {
	tb.Helper()
	return enginetest.DefaultedCR[C](tb, k.crd, filepath.Join(goldenDir, name, "cr.yaml"))
}

// goldenCR reads a golden Gateway (goldenKind.cr).
func goldenCR(tb testing.TB, name string) *v1alpha1.Gateway { return gatewayGolden.cr(tb, name) }

// goldenGeneration is the metadata.generation of every golden CR (the API server's on create),
// which upstream's status records.
const goldenGeneration = 1

// goldenAndOurs renders a case's CR and returns upstream's objects and status and ours,
// flattened and keyed for enginetest.DiffFlattened.
func (k goldenKind[C, S]) goldenAndOurs(t *testing.T, in goldenInput[C]) (golden, ours map[string]map[string]interface{}) {
	t.Helper()
	stored := objectOf(in.cr).DeepCopyObject().(metaObject)
	stored.SetGeneration(goldenGeneration)
	objs, status, err := k.render(any(stored).(*C))
	if err != nil {
		t.Fatalf("render %s: %v", k.kind, err)
	}
	nameBack := in.nameBack
	if nameBack == nil {
		nameBack = func(obj map[string]interface{}) map[string]interface{} { return obj }
	}
	ours = map[string]map[string]interface{}{}
	for _, obj := range objs {
		content := nameBack(normalize(t, obj))
		ours[enginetest.ObjectKey(content)] = enginetest.Flatten(content)
	}
	golden = map[string]map[string]interface{}{}
	for _, obj := range in.golden {
		normalized := normalize(t, obj)
		golden[enginetest.ObjectKey(normalized)] = enginetest.Flatten(normalized)
	}
	statusContent, err := runtime.DefaultUnstructuredConverter.ToUnstructured(status)
	if err != nil {
		t.Fatal(err)
	}
	statusKey := statusKind + "/" + nameBack(map[string]interface{}{"name": stored.GetName()})["name"].(string)
	golden[statusKey] = enginetest.Flatten(in.status)
	ours[statusKey] = enginetest.Flatten(nameBack(statusContent))

	return golden, ours
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

func readGoldenObjects(t *testing.T, name string) []*unstructured.Unstructured {
	t.Helper()
	return enginetest.ReadObjects(t, filepath.Join(goldenDir, name, "objects.yaml"))
}

// normalize brings both sides to one form: built-in kinds go through their Go types (so "1000m"
// and "1" are one quantity), and each container's env becomes a map by name, compared as data.
func normalize(t *testing.T, obj runtime.Object) map[string]interface{} {
	t.Helper()
	content := enginetest.TypedContent(t, obj)
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

// match returns the index in k.differences of the difference d is, or -1: one that applies to d's
// object in this CR, at d's path, with d's values.
func (k goldenKind[C, S]) match(cr *C, o enginetest.GoldenObject, d enginetest.FieldDiff) int {
	for i, want := range k.differences {
		if want.path == d.Path && want.appliesTo(k.spec(cr), o) &&
			valueMatches(cr, want.golden, d.Golden) && valueMatches(cr, want.ours, d.Ours) {
			return i
		}
	}
	return -1
}

func valueMatches[C any](cr *C, want, got interface{}) bool {
	if f, ok := want.(crValue[C]); ok {
		want = f(cr)
	}
	return want == nil || want == got || reflect.DeepEqual(want, got)
}
