package inferencegatewayagents

import (
	"cmp"
	"fmt"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/llm-infra/llm-infra-operator/bindata"
	"github.com/llm-infra/llm-infra-operator/pkg/apis/crdtest"
	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1/testcases"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine/enginetest"
	"github.com/llm-infra/llm-infra-operator/test/differential"
)

// The differential tests render Agents and Orchestrators generated from upstream's CRDs with
// upstream's own AgentReconciler and OrchestratorReconciler (hack/tools/igwrender, on
// controller-runtime's fake client, as the golden objects were made, with the golden test's
// agent-card server answering every Agent) and with the operator, and compare every field of
// every object and the status as the golden test does: every difference must be one of the
// golden test's intendedDifferences (predicates over the CR with their reason), or the test
// fails and prints the smallest CR that shows it; every intended difference must match at least
// once over the run. No other Agents, MCPs or Secrets exist, so discovery finds nothing.
//
// DIFFERENTIAL_CRS sets how many admitted CRs per kind, DIFFERENTIAL_SEED the seed
// (test/differential.Size).

// differentialDifference is an intended difference the golden Agents and Orchestrators do not
// show, with its reason: the differences matches accepts, whatever the values, in CRs of kind
// ("" for both kinds).
// render_test.go tests the values.
type differentialDifference struct {
	kind, says string
	matches    func(cr goldenCR, o enginetest.GoldenObject, d enginetest.FieldDiff) bool
	reason     string
}

func (d differentialDifference) String() string {
	return fmt.Sprintf("%s: %s (%s)", d.kind, d.says, d.reason)
}

// deploymentEnv is the variable name of a Deployment's env field path.
var deploymentEnv = regexp.MustCompile(`^spec\.template\.spec\.containers\[0\]\.env\.([A-Za-z0-9_.-]+?)(\.value(From)?\..*|\.value|\.valueFrom)?$`)

// diffEnv is the variable d is about, in a Deployment both sides have; "" for another difference.
func diffEnv(o enginetest.GoldenObject, d enginetest.FieldDiff) string {
	if m := deploymentEnv.FindStringSubmatch(d.Path); o.Kind == "Deployment" && !o.OneSided && m != nil {
		return m[1]
	}
	return ""
}

// mcpFileMount is a field of mcp.yaml's volume or mount.
var mcpFileMount = regexp.MustCompile(`^spec\.template\.spec\.(volumes\[[0-9]+\]|containers\[0\]\.volumeMounts\[[0-9]+\])\..+$`)

// orchestratorOrAgentEnv is the CR's spec.env.
func (cr goldenCR) orchestratorOrAgentEnv() *[]corev1.EnvVar {
	if cr.agent != nil {
		return cr.agent.Spec.Env
	}
	return cr.orch.Spec.Env
}

// receiverWithoutTelemetry: upstream ran the receiver on spec.telemetry.receiver.enabled alone.
func receiverWithoutTelemetry(cr goldenCR) bool {
	t := cr.orch.Spec.Telemetry
	return t != nil && !t.Enabled && t.Receiver != nil && t.Receiver.Enabled
}

var differentialDifferences = []differentialDifference{
	{"Agent", "spec.agent.llm.systemPrompt is set: A2A_AGENT_CLIENT_SYSTEM_PROMPT", func(cr goldenCR, o enginetest.GoldenObject, d enginetest.FieldDiff) bool {
		return cr.agent.Spec.Agent.LLM.SystemPrompt != "" && diffEnv(o, d) == "A2A_AGENT_CLIENT_SYSTEM_PROMPT"
	}, "the system prompt reaches the agent; upstream ignored spec.agent.llm.systemPrompt"},
	{"", "spec.env sets a variable the operator sets: that variable", func(cr goldenCR, o enginetest.GoldenObject, d enginetest.FieldDiff) bool {
		env, userEnv := diffEnv(o, d), cr.orchestratorOrAgentEnv()
		return env != "" && userEnv != nil && slices.ContainsFunc(*userEnv, func(e corev1.EnvVar) bool { return e.Name == env })
	}, "spec.env's entries replace the operator's, in any form (a value, an empty value, valueFrom): upstream appended its own after the user's, so the user's had no effect"},
	{"Orchestrator", "MCP servers are listed and MCP discovery is off: mcp.yaml's ConfigMap, volume and mount", func(cr goldenCR, o enginetest.GoldenObject, d enginetest.FieldDiff) bool {
		return mcpFileWanted(&cr.orch.Spec) && !mcpsDiscoveryOn(&cr.orch.Spec) &&
			(o.Kind == "ConfigMap" && o.OneSided || o.Kind == "Deployment" && mcpFileMount.MatchString(d.Path))
	}, "spec.mcp.servers reach the CLI without MCP discovery too, whether or not A2A discovery is on: upstream wrote mcp.yaml only with MCP discovery on, so listed servers alone were silently dropped"},
	{"Orchestrator", "spec.telemetry.receiver.enabled without spec.telemetry.enabled: the receiver's Service, container port and contention condition", func(cr goldenCR, o enginetest.GoldenObject, d enginetest.FieldDiff) bool {
		return receiverWithoutTelemetry(cr) && (o.Kind == "Service" && o.OneSided ||
			o.Kind == "Deployment" && strings.HasPrefix(d.Path, "spec.template.spec.containers[0].ports[") ||
			o.Kind == statusKind && regexp.MustCompile(`^conditions\[[0-9]+\]\.(status|reason|message)$`).MatchString(d.Path))
	}, "the receiver runs only with telemetry on, as every other telemetry setting: upstream declared its port and Service (and reported contention with the channels) with telemetry off too, while the CLI, told INFER_TELEMETRY_ENABLED=false and no receiver address, listened on nothing"},
}

// matchDifferential returns the index of the difference d is among intendedDifferences and,
// after them, differentialDifferences; or -1.
func matchDifferential(cr goldenCR, o enginetest.GoldenObject, d enginetest.FieldDiff) int {
	if i := matchIntendedDifference(cr, o, d); i >= 0 {
		return i
	}
	for i, want := range differentialDifferences {
		if (want.kind == "" || (want.kind == "Agent") == (cr.agent != nil)) && want.matches(cr, o, d) {
			return len(intendedDifferences) + i
		}
	}
	return -1
}

// notOfKind are the conditions of intendedDifferences that hold for one kind only: the other's
// run does not require them to match.
var notOfKind = map[string][]string{
	"Agent":        {anOrchestrator.says, mcpDiscovery.says, agentDiscovery.says, mcpFile.says, mcpListedOnly.says, receiver.says},
	"Orchestrator": {anAgent.says, envReplacesPort.says, envReplacesAgentURL.says},
}

// notAdmitted are intended differences whose condition this operator's CRD refuses, so no
// admitted CR shows them, by condition, with the reason.
var notAdmitted = map[string]string{
	envReplacesPort.says: "admission refuses an Agent whose spec.env sets PORT (testcases.AgentsGoldenRefused): only the golden test, which decodes the CR without admission, shows it",
}

// TestDifferentialAgent: see the top of this file.
func TestDifferentialAgent(t *testing.T) {
	runAgentsDifferential(t, "Agent", agentCRDPath, testcases.AgentAccepted)
}

// TestDifferentialOrchestrator: see the top of this file.
func TestDifferentialOrchestrator(t *testing.T) {
	runAgentsDifferential(t, "Orchestrator", orchestratorCRD, testcases.OrchestratorAccepted)
}

func runAgentsDifferential(t *testing.T, kind, oursCRDPath string, accepted []testcases.Case) {
	want, seed := differential.Size(t)
	ours, err := crdtest.Load(oursCRDPath)
	if err != nil {
		t.Fatal(err)
	}
	theirs := differential.InferenceGatewayCRDs(t)
	card := goldenCardServer(t)
	upstream := differential.StartInferenceGatewayUpstream(t, strings.TrimPrefix(card.URL, "http://"))
	pool := differential.Pool{}
	for _, c := range slices.Concat(crdtest.GoldenCases(t, goldenDir, 10), accepted) {
		obj := crdtest.Object(t, c)
		if obj["kind"] == kind {
			pool.Add(".spec", obj["spec"])
		}
	}
	var descriptions []string
	for _, d := range intendedDifferences {
		if slices.Contains(notOfKind[kind], d.when.says) || notAdmitted[d.when.says] != "" {
			descriptions = append(descriptions, "")
			continue
		}
		descriptions = append(descriptions, d.String())
	}
	for _, d := range differentialDifferences {
		if d.kind != "" && d.kind != kind {
			descriptions = append(descriptions, "")
			continue
		}
		descriptions = append(descriptions, d.String())
	}
	run := &differential.Differential{
		APIVersion: "core.inference-gateway.com/v1alpha1", Kind: kind, Namespace: "llm",
		Generator: &differential.Generator{Schema: theirs[kind].Structural(), Pool: pool, Optional: 0.4},
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
			return compareAgentsKind(t, upstream, card, oursCR, theirsCR)
		},
	}
	run.Run(t, want, seed)
}

// compareAgentsKind renders an admitted Agent or Orchestrator both ways and returns what differs.
func compareAgentsKind(t *testing.T, upstream *differential.InferenceGatewayUpstream, card *httptest.Server, oursCR, theirsCR map[string]interface{}) (differential.Outcome, error) {
	out := differential.NewOutcome()
	objects, upstreamStatus, upErr := upstream.Render(theirsCR, nil)
	var cr goldenCR
	var rendered []runtime.Object
	var status map[string]any
	var ourErr error
	if theirsCR["kind"] == "Agent" {
		agent := &v1alpha1.Agent{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(oursCR, agent); err != nil {
			return out, err
		}
		agent.Generation = goldenGeneration
		cr.agent = agent
		var objs agentObjects
		if objs, ourErr = renderAgent(agent); ourErr == nil {
			rendered = []runtime.Object{objs.service, objs.deployment}
			status = agentGoldenStatus(t, agent, card)
		}
	} else {
		orch := &v1alpha1.Orchestrator{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(oursCR, orch); err != nil {
			return out, err
		}
		orch.Generation = goldenGeneration
		cr.orch = orch
		// The selectors are parsed as the golden test does (discovery finds nothing: no Agents
		// or MCPs exist).
		_, _, agentsErr := agentSelection(orch)
		_, _, mcpsErr := mcpSelection(orch)
		ourErr = cmp.Or(agentsErr, mcpsErr)
		var objs orchestratorObjects
		if ourErr != nil {
		} else if objs, ourErr = renderOrchestrator(orchestratorInput{cr: orch}); ourErr == nil {
			for _, asset := range bindata.OrchestratorAssets {
				if objs.want[asset] {
					rendered = append(rendered, objs.object(asset))
				}
			}
			status = orchestratorGoldenStatus(t, orch, objs)
		}
	}
	if upErr != nil || ourErr != nil {
		if (upErr == nil) != (ourErr == nil) {
			out.Unlisted["render error"] = fmt.Sprintf("upstream %v, ours %v", upErr, ourErr)
		}
		return out, nil
	}
	ours := map[string]map[string]any{}
	for _, obj := range rendered {
		content := normalize(t, obj)
		ours[enginetest.ObjectKey(content)] = enginetest.Flatten(content)
	}
	golden := map[string]map[string]any{}
	for _, o := range objects {
		content := normalize(t, &unstructured.Unstructured{Object: o})
		golden[enginetest.ObjectKey(content)] = enginetest.Flatten(content)
	}
	golden[statusKind+"/cr"] = enginetest.Flatten(upstreamStatus)
	ours[statusKind+"/cr"] = enginetest.Flatten(status)
	differential.Classify(out, golden, ours, func(o enginetest.GoldenObject, d enginetest.FieldDiff) int {
		return matchDifferential(cr, o, d)
	})
	return out, nil
}
