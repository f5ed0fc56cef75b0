// Package lws manages the LeaderWorkerSet controller (sigs.k8s.io/lws): it renders the embedded
// operand manifests for the LeaderWorkerSetOperator named "cluster" and keeps them applied, on
// the shared engine (pkg/operator/engine).
package lws

import (
	"github.com/llm-infra/llm-infra-operator/bindata"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

const (
	// ControllerName prefixes the per-controller conditions library-go writes
	// (LWSTargetConfigControllerDegraded).
	ControllerName = "LWSTargetConfigController"

	// Finalizer keeps the LeaderWorkerSetOperator until its operand objects are cleaned up.
	Finalizer = "operator.llm-infra.io/lws-cleanup"

	// OperandName labels the operand's metrics.
	OperandName = "lws"

	// PartOfValue is the part-of label value on every object of this operand.
	PartOfValue = "leaderworkerset"

	// Names of operand objects that code refers to (the manifests name the rest).
	deploymentName        = "lws-controller-manager"
	configMapName         = "lws-manager-config"
	configMapKey          = "controller_manager_config.yaml"
	webhookSecretName     = "webhook-server-cert"
	metricsSecretName     = "metrics-server-cert"
	webhookServiceName    = "lws-webhook-service"
	metricsServiceName    = "lws-controller-manager-metrics-service"
	mutatingWebhookName   = "lws-mutating-webhook-configuration"
	validatingWebhookName = "lws-validating-webhook-configuration"
	lwsCRDName            = "leaderworkersets.leaderworkerset.x-k8s.io"
	disaggregatedSetCRD   = "disaggregatedsets.disaggregatedset.x-k8s.io"
	roleScalerCRD         = "disaggregatedsetrolescalers.disaggregatedset.x-k8s.io"
	managerContainer      = "manager"
	zapLogLevelArgument   = "--zap-log-level="
)

// ServiceMonitorGVR is the Prometheus operator's ServiceMonitor.
var ServiceMonitorGVR = engine.ServiceMonitorGVR

// OptionalAPIs are the optional APIs this operand uses, all in its namespace. Of an API whose
// one object it uses, only that object is watched (by name), so that the operator's list and
// watch of it are granted by name too (requests).
func OptionalAPIs(namespace string) []engine.OptionalAPI {
	return []engine.OptionalAPI{
		{GVR: engine.IssuerGVR, Namespace: namespace, Name: assetName(bindata.LWSIssuer)},
		{GVR: engine.CertificateGVR, Namespace: namespace},
		{GVR: ServiceMonitorGVR, Namespace: namespace},
		// OpenShift's cluster configuration, which the operator reads and never makes.
		{GVR: APIServerGVR, Name: apiServerConfigName, AllObjects: true},
	}
}

// assetName is the name of the object an embedded manifest holds.
func assetName(asset string) string {
	obj, err := engine.DecodeManifest(bindata.MustAsset(asset))
	if err != nil {
		panic(err) // the embedded manifests are broken: every test fails
	}
	return obj.GetName()
}

// CRDName is the LeaderWorkerSet CRD, which the operand installs and watches.
const CRDName = lwsCRDName

// CRDNames are the CRDs the operand installs and watches by name (an event of one, a deletion
// say, triggers a sync). It never deletes them nor gives them an owner reference: garbage
// collection or removal would delete every user's object of their kinds with them.
var CRDNames = []string{lwsCRDName, disaggregatedSetCRD, roleScalerCRD}

// DisaggregatedSetCRDNames are the CRDs of CRDNames other than the LeaderWorkerSet's.
var DisaggregatedSetCRDNames = []string{disaggregatedSetCRD, roleScalerCRD}

var keptCRDs = map[string]bool{lwsCRDName: true, disaggregatedSetCRD: true, roleScalerCRD: true}
