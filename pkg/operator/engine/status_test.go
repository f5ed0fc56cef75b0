package engine

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func TestDeploymentConditions(t *testing.T) {
	deployment := func(generation, observed int64, replicas, updated, available int32) *appsv1.Deployment {
		return &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "ns", Generation: generation},
			Spec:       appsv1.DeploymentSpec{Replicas: ptr.To(replicas)},
			Status:     appsv1.DeploymentStatus{ObservedGeneration: observed, UpdatedReplicas: updated, AvailableReplicas: available},
		}
	}
	failed := &Outcome{}
	failed.Add(Problem(ReasonApplyFailed, "the Service could not be written"))
	invalid := MissingDependency(ReasonValidationFailed, "the spec is invalid")
	type want struct {
		available, progressing, degraded bool
		reasons                          [3]string
	}
	tests := []struct {
		name            string
		applied, cached *appsv1.Deployment
		result          *Outcome
		invalid         *StepError
		want            want
	}{
		{name: "no Deployment yet", result: &Outcome{},
			want: want{reasons: [3]string{ReasonNotDeployed, ReasonAsExpected, ReasonAsExpected}}},
		{name: "cached, complete", cached: deployment(1, 1, 1, 1, 1), result: &Outcome{},
			want: want{available: true, reasons: [3]string{ReasonAsExpected, ReasonAsExpected, ReasonAsExpected}}},
		{name: "applied wins over cached: rolling out", applied: deployment(2, 2, 2, 1, 1), cached: deployment(1, 1, 1, 1, 1), result: &Outcome{},
			want: want{available: true, progressing: true, reasons: [3]string{ReasonAsExpected, ReasonDeploymentRollingOut, ReasonAsExpected}}},
		{name: "nothing available", cached: deployment(1, 1, 1, 1, 0), result: &Outcome{},
			want: want{progressing: true, reasons: [3]string{ReasonDeploymentUnavailable, ReasonDeploymentRollingOut, ReasonAsExpected}}},
		{name: "a step failed", cached: deployment(1, 1, 1, 1, 1), result: failed,
			want: want{available: true, degraded: true, reasons: [3]string{ReasonAsExpected, ReasonAsExpected, ReasonApplyFailed}}},
		{name: "invalid spec: Available as the Deployment says", cached: deployment(1, 1, 1, 1, 1), result: &Outcome{}, invalid: invalid,
			want: want{available: true, degraded: true, reasons: [3]string{ReasonAsExpected, ReasonValidationFailed, ReasonValidationFailed}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			available, progressing, degraded, d := DeploymentConditions(tt.applied, tt.cached, tt.result, tt.invalid, "test")
			got := want{available.Status, progressing.Status, degraded.Status, [3]string{available.Reason, progressing.Reason, degraded.Reason}}
			if got != tt.want {
				t.Errorf("conditions = %+v, want %+v", got, tt.want)
			}
			wantD := tt.applied
			if wantD == nil {
				wantD = tt.cached
			}
			if d != wantD {
				t.Errorf("the Deployment read is %v, want the applied one, else the cached one", d)
			}
			types := [3]string{available.Type, progressing.Type, degraded.Type}
			if types != [3]string{ConditionAvailable, ConditionProgressing, ConditionDegraded} {
				t.Errorf("condition types = %v", types)
			}
		})
	}
}
