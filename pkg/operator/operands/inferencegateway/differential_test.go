package inferencegateway

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

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
// TestDifferentialMCP does the same for MCPs with upstream's MCPReconciler (golden_mcp_test.go's
// mcpIntendedDifferences and mcpDifferentialDifferences below), on the same machinery
// (differentialKind over the golden test's goldenKind).
//
// DIFFERENTIAL_CRS sets how many admitted CRs of each kind, DIFFERENTIAL_SEED the seed
// (test/differential.Size).

// differentialDifference is an intended difference that the golden CRs do not show, with its
// reason (docs/differences-from-upstream.md lists each; the § numbers are those of the list of
// upstream's known bugs that golden_test.go cites, not sections of that page): every field of
// kinds whose path matches, whatever the values, when the condition on the CR's spec (S) holds
// ("" matches an object only one side has). render_test.go, env_test.go and mcp_test.go test the
// values.
type differentialDifference[S any] struct {
	kinds  []string
	when   crCondition[S]
	path   *regexp.Regexp
	reason string
}

func (d differentialDifference[S]) String() string {
	return fmt.Sprintf("%s of %v when %s (%s)", d.path, d.kinds, d.when.says, d.reason)
}

var (
	serverTLS         = condition{"spec.server.tls is enabled", serverTLSEnabled}
	serverTimeoutsSet = condition{"spec.server.timeouts is set", func(s *v1alpha1.GatewaySpec) bool {
		return s.Server != nil && s.Server.Timeouts != nil
	}}
	guardrailsOn = condition{"spec.guardrails.enabled", func(s *v1alpha1.GatewaySpec) bool {
		return s.Guardrails != nil && s.Guardrails.Enabled
	}}
	serviceAnnotated = condition{"spec.service.annotations is set", func(s *v1alpha1.GatewaySpec) bool {
		return s.Service != nil && len(s.Service.Annotations) > 0
	}}
	hpaWithoutMetrics = condition{"spec.hpa is enabled without metrics", func(s *v1alpha1.GatewaySpec) bool {
		return s.HPA != nil && s.HPA.Enabled && (s.HPA.Config == nil || len(s.HPA.Config.Metrics) == 0)
	}}
	serverHostSet = condition{"spec.server.host is set, not 0.0.0.0, without TLS", func(s *v1alpha1.GatewaySpec) bool {
		return s.Server != nil && s.Server.Host != "" && s.Server.Host != "0.0.0.0" && !serverTLSEnabled(s)
	}}
	metricsWithoutServer = condition{"spec.telemetry.metrics is on and spec.server unset", func(s *v1alpha1.GatewaySpec) bool {
		return metricsOn.holds(s) && s.Server == nil
	}}
	// Upstream's HTTPRoute then named port 8443, which its Service did not have (gatewayServicePort).
	listenerTLSOnDefaultPorts = condition{"spec.gatewayAPI.gateway.tls is enabled and neither spec.service.port nor spec.server.port is set", func(s *v1alpha1.GatewaySpec) bool {
		listenerTLS := s.GatewayAPI != nil && s.GatewayAPI.Gateway != nil && s.GatewayAPI.Gateway.TLS != nil && s.GatewayAPI.Gateway.TLS.Enabled
		return listenerTLS && (s.Service == nil || s.Service.Port == 0) && (s.Server == nil || s.Server.Port == 0)
	}}
	listenerTLSWithoutHostname = condition{"spec.gatewayAPI is enabled with listener TLS and no HTTPRoute hostname", func(s *v1alpha1.GatewaySpec) bool {
		g := s.GatewayAPI
		return g != nil && g.Enabled && g.Gateway != nil && g.Gateway.TLS != nil && g.Gateway.TLS.Enabled &&
			(g.HTTPRoute == nil || len(g.HTTPRoute.Hostnames) == 0)
	}}
	providerWithoutEnv = condition{"a provider has no env", func(s *v1alpha1.GatewaySpec) bool {
		return slices.ContainsFunc(s.Providers, func(p v1alpha1.ProviderSpec) bool { return p.Env == nil })
	}}
	keylessProvider = condition{"an enabled provider needs no key (knownProviders)", func(s *v1alpha1.GatewaySpec) bool {
		return slices.ContainsFunc(s.Providers, func(p v1alpha1.ProviderSpec) bool {
			needsKey, known := knownProviders[strings.ToLower(p.Name)]
			return p.Enabled && known && !needsKey
		})
	}}
	wildcardFirstHostname = condition{"spec.gatewayAPI's first HTTPRoute hostname is a wildcard", func(s *v1alpha1.GatewaySpec) bool {
		g := s.GatewayAPI
		return g != nil && g.Enabled && g.HTTPRoute != nil && len(g.HTTPRoute.Hostnames) > 0 && strings.HasPrefix(string(g.HTTPRoute.Hostnames[0]), "*")
	}}
	issuerWithoutListenerTLS = condition{"spec.gatewayAPI.gateway.tls.issuer is set and tls is not enabled", func(s *v1alpha1.GatewaySpec) bool {
		g := s.GatewayAPI
		return g != nil && g.Gateway != nil && g.Gateway.TLS != nil && g.Gateway.TLS.Issuer != "" && !g.Gateway.TLS.Enabled
	}}
	hpaWithoutMinReplicas = condition{"spec.hpa is enabled without config.minReplicas", func(s *v1alpha1.GatewaySpec) bool {
		return s.HPA != nil && s.HPA.Enabled && (s.HPA.Config == nil || s.HPA.Config.MinReplicas == nil)
	}}
	serviceAccountNotCreated = condition{"spec.serviceAccount.create is false", func(s *v1alpha1.GatewaySpec) bool {
		return s.ServiceAccount != nil && !s.ServiceAccount.Create
	}}
)

var differentialDifferences = []differentialDifference[v1alpha1.GatewaySpec]{
	{kinds: []string{"Gateway"}, when: issuerWithoutListenerTLS, path: regexp.MustCompile(`^metadata\.annotations\["cert-manager\.io/cluster-issuer"\]$`),
		reason: "the Gateway API Gateway asks cert-manager for a certificate only when its listener serves TLS: upstream annotated it with the issuer for a plain-HTTP listener too, so cert-manager issued a certificate nothing used"},
	{kinds: []string{"HorizontalPodAutoscaler"}, when: hpaWithoutMinReplicas, path: regexp.MustCompile(`^spec\.minReplicas$`),
		reason: "minReplicas is written as 1, the value the API server defaults an autoscaling/v2 HPA's minReplicas to: upstream's fake-client store, which applies no defaults, kept none (the same HPA on a cluster)"},
	{kinds: []string{statusKind}, when: keylessProvider, path: regexp.MustCompile(`^providerSummary$`),
		reason: "status.providerSummary lists a provider that needs no key (ollama and the like) as configured (§7.7); upstream listed only providers whose key Secret it found"},
	{kinds: []string{statusKind}, when: wildcardFirstHostname, path: regexp.MustCompile(`^url$`),
		reason: "status.url names the first hostname that is an address: upstream's took the first, a wildcard (http://*.example.com), which is no URL one can call (§7.11)"},
	{kinds: []string{renderKind}, when: providerWithoutEnv, path: regexp.MustCompile(`^error$`),
		reason: "a provider without env is rendered (its key comes from the providers' Secret, §7.7): upstream's reconciler dereferenced the nil spec.providers[].env and panicked on every pass, so the Gateway got no status"},
	{kinds: []string{statusKind}, when: listenerTLSWithoutHostname, path: regexp.MustCompile(`^url$`),
		reason: "without a hostname status.url is the Service's, which serves http (§7.11): upstream wrote https:// for the Service's name, where nothing serves TLS"},
	{kinds: []string{"Deployment"}, when: serverHostSet, path: regexp.MustCompile(`^spec\.template\.spec\.containers\[0\]\.env\.SERVER_HOST\.value$`),
		reason: "spec.server.host reaches the gateway as SERVER_HOST (§7.17); upstream never passed it"},
	{kinds: []string{"Deployment"}, when: metricsWithoutServer, path: regexp.MustCompile(`^spec\.template\.spec\.containers\[0\]\.ports\[1\]\.(containerPort|name)$`),
		reason: "the metrics container port is declared (named metrics, which the Service and the ServiceMonitor target) whether or not spec.server is set; upstream declared it only with a spec.server"},
	{kinds: []string{"HTTPRoute"}, when: listenerTLSOnDefaultPorts, path: regexp.MustCompile(`^spec\.rules\[[0-9]+\]\.backendRefs\[[0-9]+\]\.port$`),
		reason: "the route's backend is the Service's port: upstream's named 8443, a port its Service did not have, so the route had no backend"},
	{kinds: []string{"Deployment"}, when: serverTLS,
		path:   regexp.MustCompile(`^spec\.template\.spec\.(containers\[0\]\.(env\.(SERVER_TLS_CERT_PATH|SERVER_TLS_KEY_PATH|SSL_CERT_DIR|SERVER_HOST)\.value|(liveness|readiness)Probe\.httpGet\.scheme|ports\[[12]\]\.\w+|volumeMounts\[[0-9]+\]\.\w+)|volumes\[[0-9]+\]\..+|hostAliases\[0\]\..+)$`),
		reason: "TLS is served with the referenced certificate on the server's port, probed over HTTPS, SERVER_HOST the Service's name (resolved to the pod by a host alias) so the certificate's name matches (§7.5): upstream added a second port 8443 with a Secret of its own naming"},
	{kinds: []string{"Service"}, when: serverTLS, path: regexp.MustCompile(`^spec\.ports\[[0-9]\]\.\w+$`),
		reason: "one port serves TLS, appProtocol https (§7.5): upstream's Service had a second port 8443"},
	{kinds: []string{"BackendTLSPolicy", "ConfigMap"}, when: serverTLS, path: regexp.MustCompile(`^$`),
		reason: "with TLS to the backend, the Gateway API implementation verifies it with the server certificate's CA (a BackendTLSPolicy and the CA's ConfigMap, §7.5)"},
	{kinds: []string{statusKind}, when: serverTLS, path: regexp.MustCompile(`^url$`),
		reason: "status.url carries the Service's port (§7.11), https with TLS"},
	{kinds: []string{"Deployment"}, when: serverTimeoutsSet, path: regexp.MustCompile(`^spec\.template\.spec\.containers\[0\]\.env\.SERVER_(READ|WRITE|IDLE)_TIMEOUT\.value$`),
		reason: "spec.server.timeouts reach the gateway (§7.4); upstream passed none"},
	{kinds: []string{"Deployment"}, when: guardrailsOn, path: regexp.MustCompile(`^spec\.template\.spec\.containers\[0\]\.env\.GUARDRAILS_(FAIL_MODE|POLICY_DIR)\.value$`),
		reason: "guardrails' fail mode is the gateway's own spelling (deny→closed, allow→open), failing closed by default, and the policy directory is set only with a policy ConfigMap mounted (§7.1)"},
	{kinds: []string{"Service"}, when: serviceAnnotated, path: regexp.MustCompile(`^metadata\.annotations(\.[^.]+|\["[^"]+"\])$`),
		reason: "spec.service.annotations are honoured (§7.6)"},
	{kinds: []string{"HorizontalPodAutoscaler"}, when: hpaWithoutMetrics, path: regexp.MustCompile(`^spec\.metrics\[0\]\..+$`),
		reason: "an HPA without metrics scales on CPU at 80% (the autoscaling/v2 default the API server applies to an HPA created without metrics); upstream's store kept none"},
	{kinds: []string{statusKind}, when: serviceAccountNotCreated, path: regexp.MustCompile(`^serviceAccountName$`),
		reason: "status.serviceAccountName is the ServiceAccount the pods run as, one the user made too; upstream wrote it only after creating one"},
}

// renderKind stands for the rendering itself: an error on one side only.
const renderKind = "render"

// differentialKind is a kind's differential test: the golden test's kind and the intended
// differences no golden CR shows.
type differentialKind[C, S any] struct {
	goldenKind[C, S]
	extra []differentialDifference[S]
}

// match returns the index (the golden differences first, then extra) of the difference d is,
// or -1.
func (k differentialKind[C, S]) match(cr *C, o enginetest.GoldenObject, d enginetest.FieldDiff) int {
	if i := k.goldenKind.match(cr, o, d); i >= 0 {
		return i
	}
	for i, want := range k.extra {
		if slices.Contains(want.kinds, o.Kind) && (d.Path == "") == o.OneSided && want.path.MatchString(d.Path) && want.when.holds(k.spec(cr)) {
			return len(k.differences) + i
		}
	}
	return -1
}

// descriptions name every intended difference, in match's order.
func (k differentialKind[C, S]) descriptions() []string {
	var out []string
	for _, d := range k.differences {
		out = append(out, d.String())
	}
	for _, d := range k.extra {
		out = append(out, d.String())
	}
	return out
}

var gatewayDifferential = differentialKind[v1alpha1.Gateway, v1alpha1.GatewaySpec]{gatewayGolden, differentialDifferences}

// TestDifferentialGateway: see the top of this file.
func TestDifferentialGateway(t *testing.T) {
	gatewayDifferential.run(t, testcases.GatewayAccepted)
}

// run compares generated CRs of the kind (from upstream's CRD, with values from the golden CRs
// and accepted, the admission table's valid objects; kept when both CRDs admit them).
func (k differentialKind[C, S]) run(t *testing.T, accepted []testcases.Case) {
	want, seed := differential.Size(t)
	ours, err := crdtest.Load(k.crd)
	if err != nil {
		t.Fatal(err)
	}
	theirs := differential.InferenceGatewayCRDs(t)
	upstream := differential.StartInferenceGatewayUpstream(t, "")
	pool := differential.Pool{}
	for _, name := range k.caseNames(t) {
		pool.Add(".spec", readYAML(t, filepath.Join(goldenDir, name, "cr.yaml"))["spec"])
	}
	for _, c := range accepted {
		pool.Add(".spec", crdtest.Object(t, c)["spec"])
	}
	run := &differential.Differential{
		APIVersion: "core.inference-gateway.com/v1alpha1", Kind: k.kind, Namespace: "llm",
		Generator: &differential.Generator{Schema: theirs[k.kind].Structural(), Pool: pool, Optional: 0.4},
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
		Intended: k.descriptions(),
		Compare: func(oursCR, theirsCR map[string]interface{}) (differential.Outcome, error) {
			return k.compare(t, upstream, oursCR, theirsCR)
		},
	}
	run.Run(t, want, seed)
}

// readYAML reads one object.
func readYAML(t *testing.T, path string) map[string]interface{} {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]interface{}
	if err := yaml.Unmarshal(data, &obj); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return obj
}

// compare renders an admitted CR both ways and returns what differs.
func (k differentialKind[C, S]) compare(t *testing.T, upstream *differential.InferenceGatewayUpstream, oursCR, theirsCR map[string]interface{}) (differential.Outcome, error) {
	out := differential.NewOutcome()
	cr := new(C)
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(oursCR, cr); err != nil {
		return out, err
	}
	name := objectOf(cr).GetName()
	objects, status, upErr := upstream.Render(theirsCR, nil)
	_, _, ourErr := k.render(cr)
	if upErr != nil || ourErr != nil {
		if (upErr == nil) != (ourErr == nil) {
			d := enginetest.FieldDiff{Kind: renderKind, Name: name, Path: "error", Golden: fmt.Sprint(upErr), Ours: fmt.Sprint(ourErr)}
			if i := k.match(cr, enginetest.GoldenObject{Kind: renderKind}, d); i >= 0 {
				out.Matched[i] = true
			} else {
				out.Unlisted[differential.DiffKey(d.Kind, d.Path)] = d.String()
			}
		}
		return out, nil
	}
	var golden []*unstructured.Unstructured
	for _, o := range objects {
		golden = append(golden, &unstructured.Unstructured{Object: o})
	}
	goldenFlat, oursFlat := k.goldenAndOurs(t, goldenInput[C]{cr: cr, golden: golden, status: status})
	objs := enginetest.GoldenObjects(goldenFlat, oursFlat)
	for _, d := range enginetest.DiffFlattened(goldenFlat, oursFlat) {
		if i := k.match(cr, objs[d.Object()], d); i >= 0 {
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

// mcpDifferentialDifferences are the MCP's intended differences that no golden MCP shows.
var mcpDifferentialDifferences = []differentialDifference[v1alpha1.MCPSpec]{
	{kinds: []string{"HorizontalPodAutoscaler"}, when: mcpHPAWithoutMinReplicas, path: regexp.MustCompile(`^spec\.minReplicas$`),
		reason: "minReplicas is written as 1, the value the API server defaults an autoscaling/v2 HPA's minReplicas to: upstream's fake-client store, which applies no defaults, kept none when spec.hpa.config set none (the same HPA on a cluster)"},
}

var mcpHPAWithoutMinReplicas = mcpCondition{"spec.hpa is enabled with a config without minReplicas", func(s *v1alpha1.MCPSpec) bool {
	return hpaEnabled(s.HPA) && s.HPA.Config != nil && s.HPA.Config.MinReplicas == nil
}}

var mcpDifferential = differentialKind[v1alpha1.MCP, v1alpha1.MCPSpec]{mcpGolden, mcpDifferentialDifferences}

// TestDifferentialMCP: TestDifferentialGateway's comparison for generated MCPs.
func TestDifferentialMCP(t *testing.T) {
	mcpDifferential.run(t, testcases.MCPAccepted)
}
