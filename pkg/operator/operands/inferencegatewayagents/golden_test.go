package inferencegatewayagents

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/llm-infra/llm-infra-operator/bindata"
	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine/enginetest"
	"github.com/llm-infra/llm-infra-operator/test/differential"
)

// The golden test renders each Agent and Orchestrator of test/golden/inference-gateway-agents
// (the upstream operator's output, see test/golden/README.md) and compares every field of every
// object, and the status the operator computes from what it observed (for an Agent, the card read
// from a server that answers upstream's fixed card), with upstream's. Every difference must be
// listed in intendedDifferences with its reason, keyed by what causes it (the object's kind, a
// condition on the CR), never by a case's name; a listed difference that does not occur in an
// object it applies to fails too, so the list stays honest. Env is compared as the kubelet reads it: by name, the last entry of a name winning, an
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

// absent stands for a field one side does not have.
var absent = enginetest.Absent

// goldenCR is a case's CR, defaulted as stored: an Agent or an Orchestrator.
type goldenCR struct {
	agent *v1alpha1.Agent
	orch  *v1alpha1.Orchestrator
}

// crCondition is when, by the case's CR, an intended difference occurs.
type crCondition struct {
	says  string
	holds func(cr goldenCR) bool
}

// fromCR stands for a value that follows from the CR.
type fromCR func(cr goldenCR) any

// userEnv is the value of the CR's spec.env entry name (the last one of that name), or "".
func userEnv(cr goldenCR, name string) string {
	var env *[]corev1.EnvVar
	if cr.agent != nil {
		env = cr.agent.Spec.Env
	} else {
		env = cr.orch.Spec.Env
	}
	value := ""
	if env != nil {
		for _, e := range *env {
			if e.Name == name {
				value = e.Value
			}
		}
	}
	return value
}

func agentPortString(cr goldenCR) any { return strconv.Itoa(int(agentPort(&cr.agent.Spec))) }
func agentURLOf(cr goldenCR) any      { return AgentURL(cr.agent) }

var (
	anAgent         = crCondition{"an Agent", func(cr goldenCR) bool { return cr.agent != nil }}
	anOrchestrator  = crCondition{"an Orchestrator", func(cr goldenCR) bool { return cr.orch != nil }}
	envReplacesPort = crCondition{"spec.env sets PORT to another value than spec.port", func(cr goldenCR) bool {
		return cr.agent != nil && userEnv(cr, "PORT") != "" && userEnv(cr, "PORT") != agentPortString(cr)
	}}
	envReplacesAgentURL = crCondition{"spec.env sets A2A_AGENT_URL to another URL than the Agent's", func(cr goldenCR) bool {
		return cr.agent != nil && userEnv(cr, "A2A_AGENT_URL") != "" && userEnv(cr, "A2A_AGENT_URL") != AgentURL(cr.agent)
	}}
	mcpDiscovery   = crCondition{"MCP discovery is on", func(cr goldenCR) bool { return cr.orch != nil && mcpsDiscoveryOn(&cr.orch.Spec) }}
	agentDiscovery = crCondition{"A2A discovery is on", func(cr goldenCR) bool { return cr.orch != nil && agentsDiscoveryOn(&cr.orch.Spec) }}
	mcpFile        = crCondition{"mcp.yaml has listed or discovered servers", func(cr goldenCR) bool { return cr.orch != nil && mcpFileWanted(&cr.orch.Spec) }}
	mcpListedOnly  = crCondition{"MCP servers are listed and neither kind's discovery is on", func(cr goldenCR) bool {
		return cr.orch != nil && mcpFileWanted(&cr.orch.Spec) && !mcpsDiscoveryOn(&cr.orch.Spec) && !agentsDiscoveryOn(&cr.orch.Spec)
	}}
	receiver = crCondition{"the receiver listens (telemetry and receiver enabled)", func(cr goldenCR) bool { return cr.orch != nil && receiverOn(&cr.orch.Spec) }}
)

// intendedDifference is a difference from upstream's objects or status that the operator means
// to make, keyed by what causes it (the object's kind, a condition on the CR), never by a case's
// name.
type intendedDifference struct {
	// kinds selects the objects ("status" is the CR's status); nil means every object but the
	// status. notKinds leaves kinds out.
	kinds []string
	when  crCondition
	// path is the field as enginetest.Flatten writes it (with "*" standing for any one segment);
	// "" is a whole object only one side has.
	path string
	// golden and ours, when not nil, are the values each side must have: a value, absent for
	// none, or a fromCR.
	golden, ours any
	reason       string
}

func (d intendedDifference) String() string {
	return fmt.Sprintf("%q of %v when %s (%s)", d.path, d.kinds, d.when.says, d.reason)
}

// appliesTo says whether d applies to an object of a case: its kinds, and its condition on the
// CR. A field difference applies to objects both sides have, a whole-object one to objects only
// one side has.
func (d intendedDifference) appliesTo(cr goldenCR, o enginetest.GoldenObject) bool {
	kindMatches := slices.Contains(d.kinds, o.Kind) || (d.kinds == nil && o.Kind != statusKind)
	return kindMatches && (d.path == "") == o.OneSided && d.when.holds(cr)
}

var labelSet = []struct{ key, reason string }{
	{"app.kubernetes.io/name", "one label set on every object and pod (reference §7.18): upstream labelled them app only"},
	{"app.kubernetes.io/instance", "one label set on every object and pod (§7.18)"},
	{"app.kubernetes.io/component", "one label set on every object and pod (§7.18)"},
	{"app.kubernetes.io/part-of", "one label set on every object and pod (§7.18)"},
}

var always = crCondition{"always", func(goldenCR) bool { return true }}

var intendedDifferences = func() []intendedDifference {
	var out []intendedDifference
	for _, l := range labelSet {
		out = append(out,
			intendedDifference{when: always, path: fmt.Sprintf("metadata.labels[%q]", l.key), golden: absent, reason: l.reason},
			intendedDifference{kinds: []string{"Deployment"}, when: always, path: fmt.Sprintf("spec.template.metadata.labels[%q]", l.key), golden: absent, reason: l.reason})
	}
	const ownerReference = "the engine sets the controller owner reference to the CR when it applies an object"
	out = append(out,
		// The engine stamps the owner reference when it applies; rendering leaves it out.
		// Upstream's Agent Service had none (deleting the Agent left it behind).
		intendedDifference{when: anOrchestrator, path: "metadata.ownerReferences[0].*", ours: absent, reason: ownerReference},
		intendedDifference{kinds: []string{"Deployment"}, when: anAgent, path: "metadata.ownerReferences[0].*", ours: absent, reason: ownerReference},

		// The Agent.
		intendedDifference{kinds: []string{"Deployment"}, when: anAgent, path: "spec.template.spec.containers[0].ports[0].name", golden: absent, ours: portHTTP,
			reason: "the port is named, so the Service and the readiness probe target it by name"},
		intendedDifference{kinds: []string{"Service"}, when: anAgent, path: "spec.ports[0].targetPort", ours: portHTTP,
			reason: "the Service targets the container's port by name, so it follows spec.port"},
		intendedDifference{kinds: []string{"Deployment"}, when: anAgent, path: "spec.template.spec.containers[0].readinessProbe.tcpSocket.port", golden: absent, ours: portHTTP,
			reason: "a pod is ready when the agent accepts connections, not when the container started: the card is read, and Orchestrators call it, only then"},
		intendedDifference{kinds: []string{"Deployment"}, when: envReplacesPort, path: "spec.template.spec.containers[0].env.PORT",
			golden: fromCR(agentPortString), ours: fromCR(func(cr goldenCR) any { return userEnv(cr, "PORT") }),
			reason: "spec.env's entries replace the operator's (upstream appended its PORT after the user's, so the user's had no effect); admission rejects such a CR, since PORT is spec.port's alone, and a stored one is reported (InvalidSpec), not deployed"},
		intendedDifference{kinds: []string{"Deployment"}, when: envReplacesAgentURL, path: "spec.template.spec.containers[0].env.A2A_AGENT_URL",
			golden: fromCR(agentURLOf), ours: fromCR(func(cr goldenCR) any { return userEnv(cr, "A2A_AGENT_URL") }),
			reason: "spec.env's A2A_AGENT_URL replaces the operator's (upstream appended its own after it, so the user's was silently lost)"},
		intendedDifference{kinds: []string{statusKind}, when: anAgent, path: "conditions[0].lastTransitionTime",
			reason: "the time of the transition; upstream's golden status has 1970-01-01 in its place"},
		intendedDifference{kinds: []string{statusKind}, when: anAgent, path: "conditions[0].observedGeneration", golden: absent, ours: int64(goldenGeneration),
			reason: "every condition says which generation it is about, as the Orchestrator's and GPU's did upstream"},

		// The Orchestrator.
		intendedDifference{kinds: []string{"Deployment"}, when: mcpDiscovery, path: `spec.template.metadata.annotations["inference-gateway.com/mcps-config-hash"]`, ours: absent,
			reason: "the pod template carries the engine's hash of each mounted ConfigMap's data (operator.llm-infra.io/hash-configmap-<name>), as every operand's pods do"},
		intendedDifference{kinds: []string{"Deployment"}, when: agentDiscovery, path: `spec.template.metadata.annotations["inference-gateway.com/agents-config-hash"]`, ours: absent,
			reason: "the engine's hash annotation, as above"},
		intendedDifference{kinds: []string{"Deployment"}, when: mcpFile, path: `spec.template.metadata.annotations["operator.llm-infra.io/hash-configmap-*-mcps"]`, golden: absent,
			reason: "the engine's hash of mcp.yaml: a change rolls the pod, since a file mounted by subPath is not updated in place"},
		intendedDifference{kinds: []string{"Deployment"}, when: agentDiscovery, path: `spec.template.metadata.annotations["operator.llm-infra.io/hash-configmap-*-agents"]`, golden: absent,
			reason: "the engine's hash of agents.yaml, as above"},
		intendedDifference{kinds: []string{"ConfigMap"}, when: mcpListedOnly, path: "",
			reason: "spec.mcp.servers reach the CLI without discovery too: upstream wrote mcp.yaml only with discovery on, so listed servers alone were silently dropped"},
		intendedDifference{kinds: []string{"Deployment"}, when: mcpListedOnly, path: "spec.template.spec.volumes[0].*", golden: absent,
			reason: "mcp.yaml is mounted, as above"},
		intendedDifference{kinds: []string{"Deployment"}, when: mcpListedOnly, path: "spec.template.spec.containers[0].volumeMounts[0].*", golden: absent,
			reason: "mcp.yaml is mounted, as above"},
	)
	// A read-only root filesystem (issue 33; the engine sets readOnlyRootFilesystem after
	// rendering, so it is not compared here): the CLI writes to emptyDirs at ~/.infer and /tmp,
	// with HOME the image's home, since the pod's user has none in the image's /etc/passwd.
	const readOnlyRoot = "the root filesystem is read-only (issue 33): the CLI writes its pid file, logs, storage and Telegram's files to ~/.infer and os.TempDir(), emptyDirs with a size limit"
	for _, v := range []struct{ name, path, size string }{{inferDirVolume, inferDirMountPath, inferDirSizeLimit}, {tmpVolume, tmpMountPath, tmpSizeLimit}} {
		out = append(out,
			intendedDifference{kinds: []string{"Deployment"}, when: anOrchestrator, path: "spec.template.spec.volumes[*].name", golden: absent, ours: v.name, reason: readOnlyRoot},
			intendedDifference{kinds: []string{"Deployment"}, when: anOrchestrator, path: "spec.template.spec.volumes[*].emptyDir.sizeLimit", golden: absent, ours: v.size, reason: readOnlyRoot},
			intendedDifference{kinds: []string{"Deployment"}, when: anOrchestrator, path: "spec.template.spec.containers[0].volumeMounts[*].name", golden: absent, ours: v.name, reason: readOnlyRoot},
			intendedDifference{kinds: []string{"Deployment"}, when: anOrchestrator, path: "spec.template.spec.containers[0].volumeMounts[*].mountPath", golden: absent, ours: v.path, reason: readOnlyRoot})
	}
	return append(out,
		intendedDifference{kinds: []string{"Deployment"}, when: anOrchestrator, path: "spec.template.spec.containers[0].env.HOME", golden: absent, ours: inferHome,
			reason: "HOME is the CLI image's home, where ~/.infer is mounted: the pod's user (65532, or the SCC's) has no entry in the image's /etc/passwd, so HOME was /, which is read-only"},
		intendedDifference{kinds: []string{"Service"}, when: receiver, path: "spec.ports[0].targetPort",
			golden: fromCR(func(cr goldenCR) any { return int64(receiverPort(&cr.orch.Spec)) }), ours: portReceiver,
			reason: "the receiver's Service targets the container's port by name"},
		intendedDifference{kinds: []string{statusKind}, when: anOrchestrator, path: "conditions[*].lastTransitionTime",
			reason: "the time of the transition; upstream's golden status has 1970-01-01 in its place"},
	)
}()

// TestGolden: every difference between the rendering (and status) of each golden Agent and
// Orchestrator and upstream's is an intended one, and every intended difference occurs wherever
// its kind and condition say.
func TestGolden(t *testing.T) {
	entries, err := os.ReadDir(goldenDir)
	if err != nil {
		t.Fatal(err)
	}
	var cases []string
	for _, e := range entries {
		if e.IsDir() && e.Name() != "crds" {
			cases = append(cases, e.Name())
		}
	}
	if len(cases) != 10 {
		t.Fatalf("%d golden cases in %s, want the 10 copied from upstream (test/golden/README.md)", len(cases), goldenDir)
	}
	card := goldenCardServer(t)
	enginetest.CheckIntendedDifferences(t, cases, len(intendedDifferences),
		func(t *testing.T, name string) enginetest.GoldenCase[enginetest.FieldDiff] {
			cr, golden, ours := goldenAndOurs(t, name, card)
			return enginetest.FlattenedCase(golden, ours,
				func(o enginetest.GoldenObject, d enginetest.FieldDiff) int { return matchIntendedDifference(cr, o, d) },
				func(i int, o enginetest.GoldenObject) bool { return intendedDifferences[i].appliesTo(cr, o) })
		},
		func(i int) string { return intendedDifferences[i].String() })
}

// goldenCardServer answers upstream's fixed card at the current path, 404 elsewhere, as the
// server the golden statuses were made with: the one upstream's reconcilers are given too
// (differential.GoldenAgentCardServer).
func goldenCardServer(t *testing.T) *httptest.Server {
	if CardPaths[0] != differential.AgentCardPath {
		t.Fatalf("the card's current path is %q, the golden card server's %q", CardPaths[0], differential.AgentCardPath)
	}
	return differential.GoldenAgentCardServer(t)
}

// goldenAndOurs renders a case and returns its CR, and upstream's objects and status and ours,
// flattened and keyed for enginetest.DiffFlattened.
func goldenAndOurs(t *testing.T, name string, cardServer *httptest.Server) (cr goldenCR, golden, ours map[string]map[string]any) {
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
		cr.agent = agent
		rendered, err := renderAgent(agent)
		if err != nil {
			t.Fatalf("renderAgent: %v", err)
		}
		objs = []runtime.Object{rendered.service, rendered.deployment}
		status = agentGoldenStatus(t, agent, cardServer)
	} else {
		orch := enginetest.DefaultedCR[v1alpha1.Orchestrator](t, orchestratorCRD, filepath.Join(dir, "cr.yaml"))
		orch.Generation = goldenGeneration
		cr.orch = orch
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

	ours = map[string]map[string]any{}
	for _, obj := range objs {
		content := normalize(t, obj)
		ours[enginetest.ObjectKey(content)] = enginetest.Flatten(content)
	}
	golden = map[string]map[string]any{}
	for _, obj := range enginetest.ReadObjects(t, filepath.Join(dir, "objects.yaml")) {
		content := normalize(t, obj)
		golden[enginetest.ObjectKey(content)] = enginetest.Flatten(content)
	}
	golden[statusKind+"/"+name] = enginetest.Flatten(readStatus(t, dir))
	ours[statusKind+"/"+name] = enginetest.Flatten(status)

	return cr, golden, ours
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
			byName[e["name"].(string)] = cmp.Or(value, emptyValue)
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

// matchIntendedDifference returns the index of the listed difference d is, or -1: one that
// applies to d's object in this case, at d's path, with d's values.
func matchIntendedDifference(cr goldenCR, o enginetest.GoldenObject, d enginetest.FieldDiff) int {
	for i, want := range intendedDifferences {
		if pathMatches(want.path, d.Path) && want.appliesTo(cr, o) &&
			valueMatches(cr, want.golden, d.Golden) && valueMatches(cr, want.ours, d.Ours) {
			return i
		}
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

func valueMatches(cr goldenCR, want, got any) bool {
	if f, ok := want.(fromCR); ok {
		want = f(cr)
	}
	return want == nil || want == got || reflect.DeepEqual(want, got)
}
