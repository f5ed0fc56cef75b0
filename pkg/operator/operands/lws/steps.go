package lws

import (
	"github.com/llm-infra/llm-infra-operator/bindata"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// reconcileSteps is the operand, in the order it is applied. Later steps depend on earlier
// ones: nothing that needs a certificate is applied before the certificate source (cert-manager,
// the OpenShift service CA or the operator's own CA, step_certificates.go) has issued it.
// Removal walks the table backwards. The operand's ServiceAccount and RBAC are not here: they
// are installed with the operator (deploy/14_lws-operand-rbac.yaml, the bundle's permissions of
// lws-controller-manager), so the operator need not hold the rights they grant.
func reconcileSteps() []engine.Step[*syncRun] {
	return []engine.Step[*syncRun]{
		// Before anything else, and last on removal: a CR deleted right after an upgrade from a
		// release that made these objects would take them with it.
		{Name: "installed RBAC", Apply: checkInstalledRBAC, Remove: releaseInstalledRBAC},
		{Name: "certificate source", Apply: chooseCertificateSource, Remove: engine.NothingToRemove[*syncRun]},
		{Name: "Services", Assets: []string{bindata.LWSWebhookService, bindata.LWSMetricsService}, Apply: applyServices},
		{Name: "cert-manager Issuer", Assets: []string{bindata.LWSIssuer}, Apply: applyIssuer},
		{Name: "cert-manager Certificates", Assets: []string{bindata.LWSWebhookCertificate, bindata.LWSMetricsCertificate}, Apply: applyCertificates, Remove: removeCertificatesThenSecrets},
		{Name: "operator CA", Apply: applyOperatorCA, Remove: removeOperatorCA},
		{Name: "certificate Secrets", Apply: waitForCertificateSecrets, Remove: engine.NothingToRemove[*syncRun]},
		{Name: "LeaderWorkerSet CRD", Assets: []string{bindata.LWSCRD}, Apply: applyCRD, Remove: disableCRDConversionWebhook},
		// One version each, no conversion webhook: applied as they are, and kept on removal
		// (deleting them would delete every user's DisaggregatedSet).
		{Name: "DisaggregatedSet CRDs", Assets: []string{bindata.LWSDisaggregatedSetCRD, bindata.LWSRoleScalerCRD}, Remove: engine.NothingToRemove[*syncRun]},
		{Name: "webhook configurations", Assets: []string{bindata.LWSMutatingWebhookConfiguration, bindata.LWSValidatingWebhookConfiguration}, Apply: applyWebhookConfigurations},
		{Name: "operand ConfigMap", Apply: applyOperandConfigMap, Remove: removeOperandConfigMap},
		{Name: "ServiceMonitor", Assets: []string{bindata.LWSServiceMonitor}, Apply: applyServiceMonitor, Remove: removeServiceMonitor},
		// Before the pods it isolates, so none runs without it once it is asked for.
		{Name: "operand NetworkPolicy", Assets: []string{bindata.LWSNetworkPolicy}, Apply: applyNetworkPolicy},
		{Name: "operand Deployment", Assets: []string{bindata.LWSDeployment}, Apply: applyDeployment},
		{Name: "certificate source switch", Apply: finishCertificateSwitch, Remove: engine.NothingToRemove[*syncRun]},
	}
}

// Assets is the operand's one list of embedded manifests, in the order they are applied: for
// code, tests, e2e and benchmarks alike.
func Assets() []string { return engine.AllAssets(reconcileSteps()) }
