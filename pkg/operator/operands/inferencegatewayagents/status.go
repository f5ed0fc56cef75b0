package inferencegatewayagents

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
)

// The conditions upstream's controllers wrote, computed from what a sync saw: one function per
// kind, the one place where each kind's observations become its upstream conditions. The
// operator's Available, Progressing and Degraded come from the engine's step outcomes beside
// them.

// readyCondition is a condition of the given type, True or False.
func readyCondition(condType string, ok bool, reason, message string, generation int64) metav1.Condition {
	status := metav1.ConditionFalse
	if ok {
		status = metav1.ConditionTrue
	}
	return metav1.Condition{Type: condType, Status: status, Reason: reason, Message: message, ObservedGeneration: generation}
}

// agentCardObservation is what a sync knows of an Agent's card.
type agentCardObservation struct {
	// invalid is the spec's validation errors; nothing else counts then.
	invalid error
	// available: the agent's Deployment has an available replica, so its card can be read.
	available bool
	// result is the card fetcher's last result for the agent; nil while none is known.
	result *CardResult
	// noAddress: the agent's Service has no cluster IP (yet) to read the card from.
	noAddress bool
}

// agentReady is an Agent's Ready condition and the card for status.card: upstream's reasons
// (CardFetched, CardFetchFailed, InvalidSpec), and CardPending before a read could tell. A
// failed read keeps the card read before (prev), as upstream.
func agentReady(obs agentCardObservation, prev v1alpha1.Card, generation int64) (metav1.Condition, v1alpha1.Card) {
	switch {
	case obs.invalid != nil:
		return readyCondition(v1alpha1.ConditionReady, false, v1alpha1.ReasonInvalidSpec, obs.invalid.Error(), generation), prev
	case !obs.available:
		return readyCondition(v1alpha1.ConditionReady, false, v1alpha1.ReasonCardPending,
			"no replica of the agent is available yet; its card is read once one is", generation), prev
	case obs.noAddress:
		return readyCondition(v1alpha1.ConditionReady, false, v1alpha1.ReasonCardPending, "the agent's Service has no cluster IP yet; its card is read once it has", generation), prev
	case obs.result == nil:
		return readyCondition(v1alpha1.ConditionReady, false, v1alpha1.ReasonCardPending, "reading the agent's card", generation), prev
	case obs.result.Err != nil:
		return readyCondition(v1alpha1.ConditionReady, false, v1alpha1.ReasonCardFetchFailed, obs.result.Err.Error(), generation), prev
	default:
		return readyCondition(v1alpha1.ConditionReady, true, v1alpha1.ReasonCardFetched, "agent card retrieved successfully", generation), *obs.result.Card.DeepCopy()
	}
}

// orchestratorConditions are an Orchestrator's upstream conditions: Ready from its Deployment,
// Discovered and MCPsDiscovered while the kind's discovery is on (False, DiscoveryFailed, with
// the error when its selector does not parse), and ReceiverPortContention.
func orchestratorConditions(spec *v1alpha1.OrchestratorSpec, objs orchestratorObjects, available bool, agentsErr, mcpsErr error, generation int64) []metav1.Condition {
	conds := []metav1.Condition{}
	if available {
		conds = append(conds, readyCondition(v1alpha1.ConditionReady, true, v1alpha1.ReasonDeploymentAvailable, "orchestrator deployment is available", generation))
	} else {
		conds = append(conds, readyCondition(v1alpha1.ConditionReady, false, v1alpha1.ReasonDeploymentNotAvailable, "orchestrator deployment has no available replicas yet", generation))
	}
	discovered := func(condType, reason string, err error, count int, what string) metav1.Condition {
		if err != nil {
			return readyCondition(condType, false, v1alpha1.ReasonDiscoveryFailed, err.Error(), generation)
		}
		return readyCondition(condType, true, reason, fmt.Sprintf("discovered %d %s(s)", count, what), generation)
	}
	if agentsDiscoveryOn(spec) {
		conds = append(conds, discovered(v1alpha1.ConditionDiscovered, v1alpha1.ReasonAgentsDiscovered, agentsErr, len(objs.discoveredAgents), "agent"))
	}
	if mcpsDiscoveryOn(spec) {
		conds = append(conds, discovered(v1alpha1.ConditionMCPsDiscovered, v1alpha1.ReasonMCPsDiscovered, mcpsErr, len(objs.discoveredMCPs), "mcp"))
	}
	if receiverOn(spec) && spec.Channels.Telegram.Enabled {
		conds = append(conds, readyCondition(v1alpha1.ConditionReceiverPortContention, true, v1alpha1.ReasonChannelsAndReceiverEnabled,
			"telemetry.receiver.enabled and channels are both enabled - agent subprocesses spawned by channels-manager contend for the receiver port", generation))
	} else {
		conds = append(conds, readyCondition(v1alpha1.ConditionReceiverPortContention, false, v1alpha1.ReasonNoContention, "no port contention detected", generation))
	}
	return conds
}
