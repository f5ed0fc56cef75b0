package inferencegatewayagents

import (
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// TestOrchestratorDiscoveryEvents: an Agent's or MCP's add, relabel or removal reaches exactly
// the Orchestrators that select it before or after the change (engine.QueueingHandler over
// engine.SelectingKeys), and a selector that does not parse selects nothing.
func TestOrchestratorDiscoveryEvents(t *testing.T) {
	orchs := []*v1alpha1.Orchestrator{
		orchestrator(t, `{metadata: {name: group1}, spec: {a2a: {enabled: true, serviceDiscovery: {enabled: true, namespace: agents, selector: {matchLabels: {group: g1}}}}, mcp: {enabled: true, serviceDiscovery: {enabled: true, namespace: mcp}}}}`),
		orchestrator(t, `{metadata: {name: group2}, spec: {a2a: {enabled: true, serviceDiscovery: {enabled: true, namespace: agents, selector: {matchLabels: {group: g2}}}}}}`),
		orchestrator(t, `{metadata: {name: off}, spec: {a2a: {enabled: false, serviceDiscovery: {enabled: true, namespace: agents}}}}`),
		orchestrator(t, `{metadata: {name: broken}, spec: {a2a: {enabled: true, serviceDiscovery: {enabled: true, namespace: agents, selector: {matchExpressions: [{key: group, operator: Gt}]}}}}}`),
	}
	list := func() ([]*v1alpha1.Orchestrator, error) { return orchs, nil }
	var queued []string
	queue := func(key string) { queued = append(queued, key) }
	agents := engine.QueueingHandler(engine.SelectingKeys(list, agentSelections), queue)
	mcps := engine.QueueingHandler(engine.SelectingKeys(list, mcpSelections), queue)

	agent := func(group string) *v1alpha1.Agent {
		return &v1alpha1.Agent{ObjectMeta: metav1.ObjectMeta{Name: "calendar", Namespace: "agents", Labels: map[string]string{"group": group}}}
	}
	expect := func(what string, want ...string) {
		t.Helper()
		slices.Sort(queued)
		if !slices.Equal(queued, want) {
			t.Errorf("%s queued %v, want %v", what, queued, want)
		}
		queued = nil
	}
	agents.OnAdd(agent("g1"), false)
	expect("adding a g1 agent", "llm/group1")
	agents.OnUpdate(agent("g1"), agent("g2"))
	expect("relabelling it g2", "llm/group1", "llm/group2")
	agents.OnDelete(cache.DeletedFinalStateUnknown{Key: "agents/calendar", Obj: agent("g2")})
	expect("deleting it", "llm/group2")
	mcps.OnAdd(&v1alpha1.MCP{ObjectMeta: metav1.ObjectMeta{Name: "time", Namespace: "mcp"}}, false)
	expect("adding an MCP", "llm/group1")
	mcps.OnAdd(&v1alpha1.MCP{ObjectMeta: metav1.ObjectMeta{Name: "time", Namespace: "elsewhere"}}, false)
	expect("adding an MCP elsewhere")

	if _, on, err := agentSelection(orchs[3]); on || err == nil {
		t.Errorf("a broken selector: on %v, err %v", on, err)
	}
}
