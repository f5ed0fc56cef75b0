package inferencegatewayagents

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/llm-infra/llm-infra-operator/bindata"
	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine/enginetest"
)

// The golden test renders each Agent and Orchestrator of test/golden/inference-gateway-agents
// (the upstream operator's output, see test/golden/README.md) and compares every field of every
// object, and the status the operator computes from what it observed (for an Agent, the card read
// from a server that answers upstream's fixed card), with upstream's. Every difference must be
// listed in intendedDifferences with its reason; a listed difference that does not occur fails
// too. Env is compared as the kubelet reads it: by name, the last entry of a name winning, an
// empty value being a value.
//
// Intended differences the golden CRs do not exercise are tested in render_test.go: a spec.env
// entry replacing the operator's, the system prompt, and the receiver only with telemetry on.
// Rendering leaves out what the engine stamps when it applies an object: the operator's
// managed-by label and the controller owner reference to the CR, which upstream's Agent Service
// lacked (deleting the Agent left it behind).

const (
	goldenDir        = "../../../../test/golden/inference-gateway-agents"
	agentCRDPath     = "../../../../deploy/00_core.inference-gateway.com_agents.crd.yaml"
	orchestratorCRD  = "../../../../deploy/00_core.inference-gateway.com_orchestrators.crd.yaml"
	mcpCRDPath       = "../../../../deploy/00_core.inference-gateway.com_mcps.crd.yaml"
	statusKind       = "status"
	goldenGeneration = 1
)

var (
	agentCases = []string{"agent-server", "extra-agent-card-unavailable", "extra-agent-env-resources", "extra-agent-minimal", "samples-core_v1alpha1_agent"}
	orchCases  = []string{"extra-orchestrator-mcp-discovery-receiver", "extra-orchestrator-minimal", "extra-orchestrator-telegram-secrets", "orchestrator-05-orchestrator", "samples-core_v1alpha1_orchestrator"}
	// agentsWithCard are the Agent cases whose card was read.
	agentsWithCard = []string{"agent-server", "extra-agent-env-resources", "extra-agent-minimal", "samples-core_v1alpha1_agent"}
	// orchsWithDiscovery are the Orchestrator cases with MCP discovery (upstream's hash
	// annotation of mcp.yaml).
	orchsWithMCPFile = []string{"extra-orchestrator-mcp-discovery-receiver", "orchestrator-05-orchestrator"}
)

// absent stands for a field one side does not have.
var absent = &struct{ absent bool }{true}

// intendedDifference is a difference from upstream's objects or status that the operator means
// to make.
type intendedDifference struct {
	// cases it occurs in; nil means every case of its kinds' CRs.
	cases []string
	// kinds selects the objects ("status" is the CR's status); nil means every object.
	kinds []string
	// path is the field as enginetest.Flatten writes it (with "*" standing for any one segment);
	// "" is a whole object only one side has.
	path string
	// golden and ours, when not nil, are the values each side must have (absent for none).
	golden, ours any
	reason       string
}

var labelSet = []struct{ key, reason string }{
	{"app.kubernetes.io/name", "one label set on every object and pod (reference §7.18): upstream labelled them app only"},
	{"app.kubernetes.io/instance", "one label set on every object and pod (§7.18)"},
	{"app.kubernetes.io/component", "one label set on every object and pod (§7.18)"},
	{"app.kubernetes.io/part-of", "one label set on every object and pod (§7.18)"},
}

var intendedDifferences = func() []intendedDifference {
	var out []intendedDifference
	for _, l := range labelSet {
		out = append(out,
			intendedDifference{path: fmt.Sprintf("metadata.labels[%q]", l.key), golden: absent, reason: l.reason},
			intendedDifference{kinds: []string{"Deployment"}, path: fmt.Sprintf("spec.template.metadata.labels[%q]", l.key), golden: absent, reason: l.reason})
	}
	return append(out,
		// The engine stamps the owner reference when it applies; rendering leaves it out.
		intendedDifference{path: "metadata.ownerReferences[0].*", ours: absent,
			reason: "the engine sets the controller owner reference to the CR when it applies an object"},

		// The Agent.
		intendedDifference{cases: agentCases, kinds: []string{"Deployment"}, path: "spec.template.spec.containers[0].ports[0].name", golden: absent, ours: portHTTP,
			reason: "the port is named, so the Service and the readiness probe target it by name"},
		intendedDifference{cases: agentCases, kinds: []string{"Service"}, path: "spec.ports[0].targetPort", ours: portHTTP,
			reason: "the Service targets the container's port by name, so it follows spec.port"},
		intendedDifference{cases: agentCases, kinds: []string{"Deployment"}, path: "spec.template.spec.containers[0].readinessProbe.tcpSocket.port", golden: absent, ours: portHTTP,
			reason: "a pod is ready when the agent accepts connections, not when the container started: the card is read, and Orchestrators call it, only then"},
		intendedDifference{cases: []string{"extra-agent-env-resources"}, kinds: []string{"Deployment"}, path: "spec.template.spec.containers[0].env.PORT", golden: "8080", ours: "7000",
			reason: "spec.env's entries replace the operator's (upstream appended its PORT after the user's, so the user's had no effect); admission rejects this CR, since PORT is spec.port's alone, and a stored one is reported (InvalidSpec), not deployed"},
		intendedDifference{cases: []string{"agent-server"}, kinds: []string{"Deployment"}, path: "spec.template.spec.containers[0].env.A2A_AGENT_URL",
			golden: "http://google-calendar-agent.llm.svc.cluster.local:8080", ours: "http://google-calendar-agent.agents.svc.cluster.local:8080",
			reason: "spec.env's A2A_AGENT_URL replaces the operator's (upstream appended its own after it, so the user's was silently lost; in the example's namespace, agents, the two are equal)"},
		intendedDifference{cases: agentCases, kinds: []string{statusKind}, path: "conditions[0].lastTransitionTime",
			reason: "the time of the transition; upstream's golden status has 1970-01-01 in its place"},
		intendedDifference{cases: agentCases, kinds: []string{statusKind}, path: "conditions[0].observedGeneration", golden: absent, ours: int64(goldenGeneration),
			reason: "every condition says which generation it is about, as the Orchestrator's and GPU's did upstream"},

		// The Orchestrator.
		intendedDifference{cases: orchsWithMCPFile, kinds: []string{"Deployment"}, path: `spec.template.metadata.annotations["inference-gateway.com/mcps-config-hash"]`, ours: absent,
			reason: "the pod template carries the engine's hash of each mounted ConfigMap's data (operator.llm-infra.io/hash-configmap-<name>), as every operand's pods do"},
		intendedDifference{cases: []string{"orchestrator-05-orchestrator"}, kinds: []string{"Deployment"}, path: `spec.template.metadata.annotations["inference-gateway.com/agents-config-hash"]`, ours: absent,
			reason: "the engine's hash annotation, as above"},
		intendedDifference{cases: append([]string{"extra-orchestrator-telegram-secrets"}, orchsWithMCPFile...), kinds: []string{"Deployment"}, path: `spec.template.metadata.annotations["operator.llm-infra.io/hash-configmap-*-mcps"]`, golden: absent,
			reason: "the engine's hash of mcp.yaml: a change rolls the pod, since a file mounted by subPath is not updated in place"},
		intendedDifference{cases: []string{"orchestrator-05-orchestrator"}, kinds: []string{"Deployment"}, path: `spec.template.metadata.annotations["operator.llm-infra.io/hash-configmap-*-agents"]`, golden: absent,
			reason: "the engine's hash of agents.yaml, as above"},
		intendedDifference{cases: []string{"extra-orchestrator-telegram-secrets"}, kinds: []string{"ConfigMap"}, path: "",
			reason: "spec.mcp.servers reach the CLI without discovery too: upstream wrote mcp.yaml only with discovery on, so listed servers alone were silently dropped"},
		intendedDifference{cases: []string{"extra-orchestrator-telegram-secrets"}, kinds: []string{"Deployment"}, path: "spec.template.spec.volumes[0].*", golden: absent,
			reason: "mcp.yaml is mounted, as above"},
		intendedDifference{cases: []string{"extra-orchestrator-telegram-secrets"}, kinds: []string{"Deployment"}, path: "spec.template.spec.containers[0].volumeMounts[0].*", golden: absent,
			reason: "mcp.yaml is mounted, as above"},
		intendedDifference{cases: []string{"extra-orchestrator-mcp-discovery-receiver"}, kinds: []string{"Service"}, path: "spec.ports[0].targetPort", golden: int64(4318), ours: portReceiver,
			reason: "the receiver's Service targets the container's port by name"},
		intendedDifference{cases: orchCases, kinds: []string{statusKind}, path: "conditions[*].lastTransitionTime",
			reason: "the time of the transition; upstream's golden status has 1970-01-01 in its place"},
	)
}()

func TestGolden(t *testing.T) {
	cases := slices.Concat(agentCases, orchCases)
	entries, err := os.ReadDir(goldenDir)
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, e := range entries {
		if e.IsDir() && e.Name() != "crds" {
			dirs = append(dirs, e.Name())
		}
	}
	if !reflect.DeepEqual(dirs, slices.Sorted(slices.Values(cases))) {
		t.Fatalf("golden cases %v, want %v", dirs, cases)
	}
	card := goldenCardServer(t)
	enginetest.CheckListedDifferences(t, cases, len(intendedDifferences), func(t *testing.T, name string) []fieldDiff {
		return diffGoldenCase(t, name, card)
	}, matchIntendedDifference,
		func(i int) []string {
			d := intendedDifferences[i]
			if d.cases != nil {
				return d.cases
			}
			return cases
		},
		func(i int) string {
			d := intendedDifferences[i]
			return fmt.Sprintf("%s %q (%s)", d.kinds, d.path, d.reason)
		})
}

// goldenCardServer answers upstream's fixed card at the current path, 404 elsewhere, as the
// server the golden statuses were made with.
func goldenCardServer(t *testing.T) *httptest.Server {
	card, err := os.ReadFile(filepath.Join(goldenDir, "agent-card.json"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != CardPaths[0] || strings.HasPrefix(r.Host, "offline-agent.") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(card)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// fieldDiff is one field that differs between upstream's object and ours.
type fieldDiff struct {
	kind, name   string
	path         string
	golden, ours any
}

func (d fieldDiff) String() string {
	return fmt.Sprintf("%s %s %s: upstream %s, ours %s", d.kind, d.name, d.path, show(d.golden), show(d.ours))
}

func show(v any) string {
	if v == absent {
		return "<absent>"
	}
	data, _ := json.Marshal(v)
	return string(data)
}

// diffGoldenCase renders a case and returns every field that differs from upstream's objects and
// status, and every object only one side has (path "").
func diffGoldenCase(t *testing.T, name string, cardServer *httptest.Server) []fieldDiff {
	t.Helper()
	dir := filepath.Join(goldenDir, name)
	var objs []runtime.Object
	var status map[string]any
	crYAML, err := os.ReadFile(filepath.Join(dir, "cr.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(crYAML), "kind: Agent") {
		agent := enginetest.DefaultedCR[v1alpha1.Agent](t, agentCRDPath, filepath.Join(dir, "cr.yaml"))
		agent.Generation = goldenGeneration
		rendered, err := renderAgent(agent)
		if err != nil {
			t.Fatalf("renderAgent: %v", err)
		}
		objs = []runtime.Object{rendered.service, rendered.deployment}
		status = agentGoldenStatus(t, agent, cardServer)
	} else {
		orch := enginetest.DefaultedCR[v1alpha1.Orchestrator](t, orchestratorCRD, filepath.Join(dir, "cr.yaml"))
		orch.Generation = goldenGeneration
		in := orchestratorInput{cr: orch}
		agents, mcps := supporting(t, dir)
		if s, on, err := agentSelection(orch); err != nil {
			t.Fatal(err)
		} else if on {
			in.agents = selected(s, agents)
		}
		if s, on, err := mcpSelection(orch); err != nil {
			t.Fatal(err)
		} else if on {
			in.mcps = selected(s, mcps)
		}
		rendered, err := renderOrchestrator(in)
		if err != nil {
			t.Fatalf("renderOrchestrator: %v", err)
		}
		for _, asset := range bindata.OrchestratorAssets {
			if rendered.want[asset] {
				objs = append(objs, rendered.object(asset))
			}
		}
		status = orchestratorGoldenStatus(t, orch, rendered)
	}

	ours := map[string]map[string]any{}
	for _, obj := range objs {
		content := normalize(t, obj)
		ours[objectKey(content)] = enginetest.Flatten(content)
	}
	golden := map[string]map[string]any{}
	for _, obj := range enginetest.ReadObjects(t, filepath.Join(dir, "objects.yaml")) {
		content := normalize(t, obj)
		golden[objectKey(content)] = enginetest.Flatten(content)
	}
	golden[statusKind+"/"+name] = enginetest.Flatten(readStatus(t, dir))
	ours[statusKind+"/"+name] = enginetest.Flatten(status)

	var diffs []fieldDiff
	for _, key := range slices.Sorted(func(yield func(string) bool) {
		for k := range golden {
			if !yield(k) {
				return
			}
		}
		for k := range ours {
			if _, ok := golden[k]; !ok && !yield(k) {
				return
			}
		}
	}) {
		g, o := golden[key], ours[key]
		kind, objName, _ := strings.Cut(key, "/")
		switch {
		case g == nil:
			diffs = append(diffs, fieldDiff{kind: kind, name: objName, golden: absent, ours: "object"})
		case o == nil:
			diffs = append(diffs, fieldDiff{kind: kind, name: objName, golden: "object", ours: absent})
		default:
			paths := map[string]bool{}
			for p := range g {
				paths[p] = true
			}
			for p := range o {
				paths[p] = true
			}
			for _, p := range slices.Sorted(func(yield func(string) bool) {
				for k := range paths {
					if !yield(k) {
						return
					}
				}
			}) {
				gv, gok := g[p]
				ov, ook := o[p]
				if !gok {
					gv = absent
				}
				if !ook {
					ov = absent
				}
				if !reflect.DeepEqual(gv, ov) {
					diffs = append(diffs, fieldDiff{kind: kind, name: objName, path: p, golden: gv, ours: ov})
				}
			}
		}
	}
	return diffs
}

// agentGoldenStatus is the status the operator computes for an Agent whose Deployment has an
// available replica (so its card is read), with the card read from cardServer as its Service.
func agentGoldenStatus(t *testing.T, agent *v1alpha1.Agent, cardServer *httptest.Server) map[string]any {
	t.Helper()
	fetcher := NewCardFetcher(CardFetcherConfig{}, func(string) {})
	target := CardTarget{BaseURL: AgentURL(agent), Address: strings.TrimPrefix(cardServer.URL, "http://")}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	card, err := fetcher.fetch(ctx, target)
	cond, statusCard := agentReady(agentCardObservation{available: true, result: &CardResult{Card: card, Err: err}}, v1alpha1.Card{}, agent.Generation)
	status := v1alpha1.AgentStatus{ObservedGeneration: agent.Generation, Card: statusCard, Ready: cond.Status == "True"}
	status.Conditions = append(status.Conditions, cond)
	return toMap(t, status)
}

// orchestratorGoldenStatus is the status the operator computes for an Orchestrator whose
// Deployment has no available replica (no Deployment controller ran for the golden objects).
func orchestratorGoldenStatus(t *testing.T, orch *v1alpha1.Orchestrator, rendered orchestratorObjects) map[string]any {
	t.Helper()
	status := v1alpha1.OrchestratorStatus{
		ObservedGeneration:   orch.Generation,
		Conditions:           orchestratorConditions(&orch.Spec, rendered, false, nil, nil, orch.Generation),
		DiscoveredAgents:     rendered.discoveredAgents,
		DiscoveredAgentCount: int32(len(rendered.discoveredAgents)),
		DiscoveredMCPs:       rendered.discoveredMCPs,
		DiscoveredMCPCount:   int32(len(rendered.discoveredMCPs)),
	}
	return toMap(t, status)
}

// supporting are the Agents and MCPs of a case's supporting.yaml, defaulted as stored.
func supporting(t *testing.T, dir string) ([]v1alpha1.Agent, []v1alpha1.MCP) {
	t.Helper()
	path := filepath.Join(dir, "supporting.yaml")
	if _, err := os.Stat(path); os.IsNotExist(err) {
		return nil, nil
	}
	var agents []v1alpha1.Agent
	var mcps []v1alpha1.MCP
	for i, obj := range enginetest.ReadObjects(t, path) {
		raw, err := obj.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(t.TempDir(), fmt.Sprintf("%d.yaml", i))
		if err := os.WriteFile(file, raw, 0o600); err != nil {
			t.Fatal(err)
		}
		switch obj.GetKind() {
		case "Agent":
			agents = append(agents, *enginetest.DefaultedCR[v1alpha1.Agent](t, agentCRDPath, file))
		case "MCP":
			mcps = append(mcps, *enginetest.DefaultedCR[v1alpha1.MCP](t, mcpCRDPath, file))
		}
	}
	return agents, mcps
}

func readStatus(t *testing.T, dir string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "status.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var status map[string]any
	if err := yaml.Unmarshal(data, &status); err != nil {
		t.Fatal(err)
	}
	return status
}

func toMap(t *testing.T, v any) map[string]any {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func objectKey(obj map[string]any) string {
	u := unstructured.Unstructured{Object: obj}
	return u.GetKind() + "/" + u.GetName()
}

// emptyValue marks an env entry whose value is empty: for the kubelet it is set, so it must
// not vanish in the comparison as an empty string does.
const emptyValue = "<empty>"

// normalize brings an object to the form both sides are compared in: built-in kinds through
// their Go types, each container's env as the kubelet reads it (by name, the last entry of a name
// winning, an empty value kept).
func normalize(t *testing.T, obj runtime.Object) map[string]any {
	t.Helper()
	content := enginetest.TypedContent(t, obj)
	containers, _, _ := unstructured.NestedSlice(content, "spec", "template", "spec", "containers")
	for _, c := range containers {
		c := c.(map[string]any)
		env, _ := c["env"].([]any)
		byName := map[string]any{}
		for _, e := range env {
			e := e.(map[string]any)
			if from, ok := e["valueFrom"]; ok {
				byName[e["name"].(string)] = map[string]any{"valueFrom": from}
				continue
			}
			value, _ := e["value"].(string)
			byName[e["name"].(string)] = orDefault(value, emptyValue)
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
		if !pathMatches(want.path, d.path) ||
			(want.cases != nil && !slices.Contains(want.cases, caseName)) ||
			(want.kinds != nil && !slices.Contains(want.kinds, d.kind)) ||
			!valueMatches(want.golden, d.golden) || !valueMatches(want.ours, d.ours) {
			continue
		}
		return i
	}
	return -1
}

// pathMatches: want's "*" stands for any one path segment (or, at the end, the rest of the
// path).
func pathMatches(want, got string) bool {
	if !strings.Contains(want, "*") {
		return want == got
	}
	prefix, suffix, _ := strings.Cut(want, "*")
	if !strings.HasPrefix(got, prefix) || !strings.HasSuffix(got, suffix) {
		return false
	}
	middle := got[len(prefix) : len(got)-len(suffix)]
	return suffix == "" || !strings.ContainsAny(middle, ".[")
}

func valueMatches(want, got any) bool {
	return want == nil || want == got || reflect.DeepEqual(want, got)
}
