package operator

import (
	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	batchv1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/batch/v1alpha1"
	igwv1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	lwsoperatorv1 "github.com/llm-infra/llm-infra-operator/pkg/apis/operator/v1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/operands/batchgateway"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/operands/inferencegateway"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/operands/lws"
)

// registerDegradedSources makes every operand's CRs appear in llm_infra_operator_degraded,
// read from the informers the controllers use (a scrape sends no request).
func registerDegradedSources(lwsClient v1helpers.OperatorClient, batch, gateways, mcps cache.Store) {
	engine.RegisterDegradedSource(lws.OperandName, lwsDegraded(lwsClient))
	engine.RegisterDegradedSource(batchgateway.OperandName, engine.DegradedFromStore(batch,
		func(cr *batchv1alpha1.LLMBatchGateway) []metav1.Condition { return cr.Status.Conditions }))
	engine.RegisterDegradedSource(inferencegateway.GatewayOperandName, engine.DegradedFromStore(gateways,
		func(cr *igwv1alpha1.Gateway) []metav1.Condition { return cr.Status.Conditions }))
	engine.RegisterDegradedSource(inferencegateway.MCPOperandName, engine.DegradedFromStore(mcps,
		func(cr *igwv1alpha1.MCP) []metav1.Condition { return cr.Status.Conditions }))
}

// lwsDegraded reports the singleton LeaderWorkerSetOperator's Degraded condition (an
// OperatorCondition), once the CR exists and has one.
func lwsDegraded(client v1helpers.OperatorClient) engine.DegradedSource {
	return func() []engine.DegradedState {
		_, status, _, err := client.GetOperatorState()
		if err != nil || status == nil {
			return nil
		}
		c := v1helpers.FindOperatorCondition(status.Conditions, engine.ConditionDegraded)
		if c == nil {
			return nil
		}
		return []engine.DegradedState{{Name: lwsoperatorv1.SingletonName, Degraded: c.Status == operatorv1.ConditionTrue, Reason: c.Reason}}
	}
}
