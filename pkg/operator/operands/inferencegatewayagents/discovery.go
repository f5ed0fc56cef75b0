package inferencegatewayagents

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// An Orchestrator's discovery of Agents and MCPs, on the engine's LabelSelection as a Gateway's
// discovery of MCPs: the objects of the discovery's namespace (the Orchestrator's own when
// unset) whose labels match its selector (every object when unset). The Agent and MCP informers'
// events queue every Orchestrator that selects the object before or after the event
// (engine.SelectingKeys with agentSelections or mcpSelections), so adding, relabelling or
// removing one reaches the Orchestrators that list it at once.

// agentSelection is what an Orchestrator's Agent discovery selects; on is false while a2a or its
// discovery is off.
func agentSelection(o *v1alpha1.Orchestrator) (selection engine.LabelSelection, on bool, err error) {
	if !agentsDiscoveryOn(&o.Spec) {
		return engine.LabelSelection{}, false, nil
	}
	sd := &o.Spec.A2A.ServiceDiscovery
	selection, err = engine.NewLabelSelection(o.Namespace, sd.Namespace, sd.Selector, "spec.a2a.serviceDiscovery.selector")
	return selection, err == nil, err
}

// mcpSelection is what an Orchestrator's MCP discovery selects; on is false while mcp or its
// discovery is off.
func mcpSelection(o *v1alpha1.Orchestrator) (selection engine.LabelSelection, on bool, err error) {
	if !mcpsDiscoveryOn(&o.Spec) {
		return engine.LabelSelection{}, false, nil
	}
	sd := &o.Spec.MCP.ServiceDiscovery
	selection, err = engine.NewLabelSelection(o.Namespace, sd.Namespace, sd.Selector, "spec.mcp.serviceDiscovery.selector")
	return selection, err == nil, err
}

// agentSelections and mcpSelections are the selections engine.SelectingKeys maps an Agent's or
// an MCP's events with.
func agentSelections(o *v1alpha1.Orchestrator) []engine.LabelSelection {
	return selections(agentSelection(o))
}

func mcpSelections(o *v1alpha1.Orchestrator) []engine.LabelSelection {
	return selections(mcpSelection(o))
}

// discoverySelections are both: a ReferenceGrant's event reaches the Orchestrators that discover
// Agents or MCPs in its namespace.
func discoverySelections(o *v1alpha1.Orchestrator) []engine.LabelSelection {
	return append(agentSelections(o), mcpSelections(o)...)
}

func selections(s engine.LabelSelection, on bool, _ error) []engine.LabelSelection {
	if !on {
		return nil
	}
	return []engine.LabelSelection{s}
}

// selected keeps the objects a selection matches.
func selected[T any, PT interface {
	*T
	metav1.Object
}](s engine.LabelSelection, objs []T) []T {
	var out []T
	for i := range objs {
		if s.Matches(PT(&objs[i])) {
			out = append(out, objs[i])
		}
	}
	return out
}
