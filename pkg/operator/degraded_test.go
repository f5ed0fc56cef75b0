package operator

import (
	"reflect"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/v1helpers"

	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

func TestLWSDegradedFromTheFakeOperatorClient(t *testing.T) {
	for _, tc := range []struct {
		name       string
		conditions []operatorv1.OperatorCondition
		want       []engine.DegradedState
	}{
		{name: "not synced yet: no series", want: nil},
		{
			name: "Degraded",
			conditions: []operatorv1.OperatorCondition{
				{Type: engine.ConditionAvailable, Status: operatorv1.ConditionFalse, Reason: engine.ReasonNotDeployed},
				{Type: engine.ConditionDegraded, Status: operatorv1.ConditionTrue, Reason: engine.ReasonCertManagerMissing},
			},
			want: []engine.DegradedState{{Name: "cluster", Degraded: true, Reason: engine.ReasonCertManagerMissing}},
		},
		{
			name:       "not Degraded",
			conditions: []operatorv1.OperatorCondition{{Type: engine.ConditionDegraded, Status: operatorv1.ConditionFalse, Reason: engine.ReasonAsExpected}},
			want:       []engine.DegradedState{{Name: "cluster", Reason: engine.ReasonAsExpected}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := v1helpers.NewFakeOperatorClient(&operatorv1.OperatorSpec{ManagementState: operatorv1.Managed},
				&operatorv1.OperatorStatus{Conditions: tc.conditions}, nil)
			if got := lwsDegraded(client)(); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}
