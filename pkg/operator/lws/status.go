package lws

import (
	"context"
	"fmt"

	operatorv1 "github.com/openshift/api/operator/v1"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/openshift/library-go/pkg/operator/resource/resourcemerge"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
)

// Condition reasons. Messages say what to do; reasons are for machines and dashboards.
const (
	reasonAsExpected            = "AsExpected"
	reasonDeploymentUnavailable = "DeploymentUnavailable"
	reasonDeploymentRollingOut  = "DeploymentRollingOut"
	reasonNotDeployed           = "NotDeployed"
	reasonRemoved               = "Removed"
	reasonUnmanaged             = "Unmanaged"
)

func condition(condType string, status operatorv1.ConditionStatus, reason, message string) operatorv1.OperatorCondition {
	return operatorv1.OperatorCondition{Type: condType, Status: status, Reason: reason, Message: message}
}

// managedConditions turns a reconcile's outcome and the Deployment's state into the three
// conditions. This is the one place where step outcomes become conditions.
func managedConditions(run *syncRun, result *outcome) []operatorv1.OperatorCondition {
	conds := []operatorv1.OperatorCondition{availableCondition(run)}

	if degraded, message := result.first(operatorv1.OperatorStatusTypeDegraded); degraded != nil {
		conds = append(conds, condition(operatorv1.OperatorStatusTypeDegraded, operatorv1.ConditionTrue, degraded.reason, message))
	} else {
		conds = append(conds, condition(operatorv1.OperatorStatusTypeDegraded, operatorv1.ConditionFalse, reasonAsExpected, ""))
	}

	if waiting, message := result.first(operatorv1.OperatorStatusTypeProgressing); waiting != nil {
		conds = append(conds, condition(operatorv1.OperatorStatusTypeProgressing, operatorv1.ConditionTrue, waiting.reason, message))
	} else if msg, rolling := rollingOut(run); rolling {
		conds = append(conds, condition(operatorv1.OperatorStatusTypeProgressing, operatorv1.ConditionTrue, reasonDeploymentRollingOut, msg))
	} else {
		conds = append(conds, condition(operatorv1.OperatorStatusTypeProgressing, operatorv1.ConditionFalse, reasonAsExpected, ""))
	}
	return conds
}

// availableCondition says whether the controller serves: at least one replica available.
func availableCondition(run *syncRun) operatorv1.OperatorCondition {
	d := run.deployment
	switch {
	case d == nil:
		return condition(operatorv1.OperatorStatusTypeAvailable, operatorv1.ConditionFalse, reasonNotDeployed,
			fmt.Sprintf("the Deployment %s/%s does not exist yet; Progressing and Degraded say why", run.namespace, deploymentName))
	case d.Status.AvailableReplicas == 0:
		return condition(operatorv1.OperatorStatusTypeAvailable, operatorv1.ConditionFalse, reasonDeploymentUnavailable,
			fmt.Sprintf("no replica of the Deployment %s/%s is available yet; look at its pods (kubectl get pods -n %s)", run.namespace, deploymentName, run.namespace))
	default:
		return condition(operatorv1.OperatorStatusTypeAvailable, operatorv1.ConditionTrue, reasonAsExpected,
			fmt.Sprintf("%d of %d replicas of the LeaderWorkerSet controller are available", d.Status.AvailableReplicas, desiredReplicas(d)))
	}
}

// rollingOut says whether the Deployment has not yet caught up with its latest spec.
func rollingOut(run *syncRun) (string, bool) {
	d := run.deployment
	if d == nil {
		return "", false
	}
	want := desiredReplicas(d)
	if d.Status.ObservedGeneration < d.Generation || d.Status.UpdatedReplicas < want || d.Status.AvailableReplicas < want {
		return fmt.Sprintf("the Deployment %s/%s is rolling out: %d of %d replicas updated, %d available",
			run.namespace, deploymentName, d.Status.UpdatedReplicas, want, d.Status.AvailableReplicas), true
	}
	return "", false
}

func desiredReplicas(d *appsv1.Deployment) int32 {
	if d.Spec.Replicas != nil {
		return *d.Spec.Replicas
	}
	return 1
}

func removedConditions(result *outcome) []operatorv1.OperatorCondition {
	conds := []operatorv1.OperatorCondition{
		condition(operatorv1.OperatorStatusTypeAvailable, operatorv1.ConditionFalse, reasonRemoved,
			"managementState is Removed: the LeaderWorkerSet controller is removed; the LeaderWorkerSet CRD and users' LeaderWorkerSets are kept"),
		condition(operatorv1.OperatorStatusTypeProgressing, operatorv1.ConditionFalse, reasonRemoved, ""),
	}
	if failed, message := result.first(operatorv1.OperatorStatusTypeDegraded); failed != nil {
		conds = append(conds, condition(operatorv1.OperatorStatusTypeDegraded, operatorv1.ConditionTrue, failed.reason, message))
	} else {
		conds = append(conds, condition(operatorv1.OperatorStatusTypeDegraded, operatorv1.ConditionFalse, reasonRemoved, ""))
	}
	return conds
}

func unmanagedConditions(run *syncRun) []operatorv1.OperatorCondition {
	const message = "managementState is Unmanaged: the operator makes no change to the LeaderWorkerSet controller's objects"
	return []operatorv1.OperatorCondition{
		availableCondition(run),
		condition(operatorv1.OperatorStatusTypeProgressing, operatorv1.ConditionFalse, reasonUnmanaged, message),
		condition(operatorv1.OperatorStatusTypeDegraded, operatorv1.ConditionFalse, reasonUnmanaged, message),
	}
}

// writeStatus writes conditions, observedGeneration, readyReplicas and the Deployment's
// generation in one update, and only when something changed.
func (r *TargetConfigReconciler) writeStatus(ctx context.Context, run *syncRun, conds []operatorv1.OperatorCondition) error {
	_, _, err := v1helpers.UpdateStatus(ctx, r.operatorClient, func(status *operatorv1.OperatorStatus) error {
		for _, c := range conds {
			v1helpers.SetOperatorCondition(&status.Conditions, c)
		}
		status.ObservedGeneration = run.cr.Generation
		status.ReadyReplicas = 0
		if run.deployment != nil {
			status.ReadyReplicas = run.deployment.Status.ReadyReplicas
		}
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
