package lws

import (
	"context"

	"github.com/llm-infra/llm-infra-operator/bindata"
)

// step is one row of the reconcile table: a named piece of the operand, the manifests it owns
// and how it is applied. Removal walks the same table backwards.
type step struct {
	// name says what the step manages; it appears in conditions and events.
	name string
	// assets are the embedded manifests of the objects this step owns.
	assets []string
	// apply makes the objects of this step match the CR. Nil means: apply every asset as is.
	apply func(ctx context.Context, run *syncRun) error
	// remove undoes the step when the operand is removed. Nil means: delete every asset's
	// object, if the operator owns it.
	remove func(ctx context.Context, run *syncRun) error
}

// reconcileSteps is the operand, in the order it is applied. Later steps depend on earlier
// ones: nothing that needs a certificate is applied before cert-manager has issued it.
func reconcileSteps() []step {
	return []step{
		{name: "operand ServiceAccount", assets: []string{bindata.LWSServiceAccount}},
		{name: "operand ClusterRole", assets: []string{bindata.LWSClusterRole, bindata.LWSClusterRoleBinding}},
		{name: "metrics authentication ClusterRole", assets: []string{bindata.LWSMetricsAuthClusterRole, bindata.LWSMetricsAuthClusterRoleBinding, bindata.LWSMetricsReaderClusterRole}},
		{name: "leader election Role", assets: []string{bindata.LWSLeaderElectionRole, bindata.LWSLeaderElectionRoleBinding}},
		{name: "Services", assets: []string{bindata.LWSWebhookService, bindata.LWSMetricsService}},
		{name: "cert-manager Issuer", assets: []string{bindata.LWSIssuer}, apply: applyCertManagerObjects},
		{name: "cert-manager Certificates", assets: []string{bindata.LWSWebhookCertificate, bindata.LWSMetricsCertificate}, apply: applyCertManagerObjects, remove: removeCertificatesThenSecrets},
		{name: "certificate Secrets", apply: waitForCertificateSecrets, remove: nothingToRemove},
		{name: "LeaderWorkerSet CRD", assets: []string{bindata.LWSCRD}, apply: applyCRD, remove: disableCRDConversionWebhook},
		{name: "webhook configurations", assets: []string{bindata.LWSMutatingWebhookConfiguration, bindata.LWSValidatingWebhookConfiguration}},
		{name: "operand ConfigMap", apply: applyOperandConfigMap, remove: removeOperandConfigMap},
		{name: "ServiceMonitor", assets: []string{bindata.LWSServiceMonitor}, apply: applyServiceMonitor, remove: removeServiceMonitor},
		{name: "operand Deployment", assets: []string{bindata.LWSDeployment}, apply: applyDeployment},
	}
}

// nothingToRemove is the removal of a step that creates nothing itself.
func nothingToRemove(context.Context, *syncRun) error { return nil }
