package lws

import (
	"context"
	"fmt"

	operatorv1 "github.com/openshift/api/operator/v1"

	"github.com/openshift/library-go/pkg/operator/resource/resourcemerge"
	"github.com/openshift/library-go/pkg/operator/v1helpers"

	lwsoperatorv1 "github.com/llm-infra/llm-infra-operator/pkg/apis/operator/v1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// managedConditions turns a reconcile's outcome and the Deployment's state into the three
// conditions. This is the one place where this operand's step outcomes become conditions.
func managedConditions(run *syncRun, result *engine.Outcome) []engine.Condition {
	degraded, _ := engine.FromOutcome(result, engine.ConditionDegraded, engine.ReasonAsExpected, "")
	progressing, waiting := engine.FromOutcome(result, engine.ConditionProgressing, engine.ReasonAsExpected, "")
	if !waiting {
		if rollout := engine.Rollout(run.deployment); rollout.Exists && !rollout.Complete {
			progressing = engine.Condition{Type: engine.ConditionProgressing, Status: true, Reason: engine.ReasonDeploymentRollingOut,
				Message: fmt.Sprintf("the Deployment %s/%s is rolling out: %d of %d replicas updated, %d available",
					run.namespace, deploymentName, rollout.Updated, rollout.Desired, rollout.AvailableReplicas)}
		}
	}
	conds := []engine.Condition{availableCondition(run), degraded, progressing}
	if c, ok := servingCertificatesCondition(run); ok {
		conds = append(conds, c)
	}
	return conds
}

// servingCertificatesCondition names the certificate source the pods serve with. A sync that
// stopped before the certificates were settled leaves the condition as it was (false only
// before the first certificates were issued): it is also how the next sync knows which source
// the running pods trust.
func servingCertificatesCondition(run *syncRun) (engine.Condition, bool) {
	if run.servingSource == "" {
		if servingSourceOf(run.cr) != "" {
			return engine.Condition{}, false
		}
		return engine.Condition{Type: lwsoperatorv1.ConditionServingCertificates, Reason: lwsoperatorv1.ReasonWaitingForCertificates,
			Message: "the webhook and metrics serving certificates are not issued yet; Progressing and Degraded say why"}, true
	}
	return engine.Condition{Type: lwsoperatorv1.ConditionServingCertificates, Status: true, Reason: string(run.servingSource),
		Message: fmt.Sprintf("the webhook and metrics serving certificates come from %s (spec.certificates.source %s)",
			describeSource(run.servingSource), run.cr.Spec.Certificates.SourceOrDefault())}, true
}

// availableCondition says whether the controller serves: at least one replica available.
func availableCondition(run *syncRun) engine.Condition {
	rollout := engine.Rollout(run.deployment)
	switch {
	case !rollout.Exists:
		return engine.Condition{Type: engine.ConditionAvailable, Reason: engine.ReasonNotDeployed,
			Message: fmt.Sprintf("the Deployment %s/%s does not exist yet; Progressing and Degraded say why", run.namespace, deploymentName)}
	case !rollout.Available:
		return engine.Condition{Type: engine.ConditionAvailable, Reason: engine.ReasonDeploymentUnavailable,
			Message: fmt.Sprintf("no replica of the Deployment %s/%s is available yet; look at its pods (kubectl get pods -n %s)", run.namespace, deploymentName, run.namespace)}
	default:
		return engine.Condition{Type: engine.ConditionAvailable, Status: true, Reason: engine.ReasonAsExpected,
			Message: fmt.Sprintf("%d of %d replicas of the LeaderWorkerSet controller are available", rollout.AvailableReplicas, rollout.Desired)}
	}
}

func removedConditions(result *engine.Outcome) []engine.Condition {
	degraded, _ := engine.FromOutcome(result, engine.ConditionDegraded, lwsoperatorv1.ReasonRemoved, "")
	return []engine.Condition{
		{Type: engine.ConditionAvailable, Reason: lwsoperatorv1.ReasonRemoved,
			Message: "managementState is Removed: the LeaderWorkerSet controller is removed; the LeaderWorkerSet CRD and users' LeaderWorkerSets are kept"},
		{Type: engine.ConditionProgressing, Reason: lwsoperatorv1.ReasonRemoved},
		degraded,
	}
}

func unmanagedConditions(run *syncRun) []engine.Condition {
	const message = "managementState is Unmanaged: the operator makes no change to the LeaderWorkerSet controller's objects"
	return []engine.Condition{
		availableCondition(run),
		{Type: engine.ConditionProgressing, Reason: lwsoperatorv1.ReasonUnmanaged, Message: message},
		{Type: engine.ConditionDegraded, Reason: lwsoperatorv1.ReasonUnmanaged, Message: message},
	}
}

// writeStatus writes conditions, observedGeneration, readyReplicas and the Deployment's
// generation in one update, and only when something changed.
func (o *Operand) writeStatus(ctx context.Context, run *syncRun, conds []engine.Condition) error {
	_, _, err := v1helpers.UpdateStatus(ctx, o.operatorClient, func(status *operatorv1.OperatorStatus) error {
		for _, c := range conds {
			v1helpers.SetOperatorCondition(&status.Conditions, c.OperatorCondition())
		}
		status.ObservedGeneration = run.cr.Generation
		status.ReadyReplicas = engine.Rollout(run.deployment).Ready
		if run.appliedDeployment != nil {
			resourcemerge.SetDeploymentGeneration(&status.Generations, run.appliedDeployment)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("update status: %w", err)
	}
	return nil
}
