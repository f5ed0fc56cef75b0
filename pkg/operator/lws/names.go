// Package lws manages the LeaderWorkerSet controller (sigs.k8s.io/lws): it renders the embedded
// operand manifests for the LeaderWorkerSetOperator named "cluster" and keeps them applied.
package lws

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
)

const (
	// ControllerName prefixes the per-controller conditions library-go writes
	// (LWSTargetConfigControllerDegraded).
	ControllerName = "LWSTargetConfigController"

	// Finalizer keeps the LeaderWorkerSetOperator until its operand objects are cleaned up.
	Finalizer = "operator.llm-infra.io/lws-cleanup"

	// ManagedByLabel marks every object the operator creates. Cluster-scoped informers select
	// on it, so their memory does not grow with objects the operator does not manage, and
	// removal deletes only objects that carry it.
	ManagedByLabel = "app.kubernetes.io/managed-by"
	// ManagedByValue is ManagedByLabel's value.
	ManagedByValue = "llm-infra-operator"
	// PartOfLabel groups the operand's objects for administrators (`kubectl get -l`).
	PartOfLabel = "app.kubernetes.io/part-of"
	// PartOfValue is PartOfLabel's value.
	PartOfValue = "leaderworkerset"

	// Names of operand objects that code refers to (the manifests name the rest).
	deploymentName      = "lws-controller-manager"
	configMapName       = "lws-manager-config"
	configMapKey        = "controller_manager_config.yaml"
	webhookSecretName   = "webhook-server-cert"
	metricsSecretName   = "metrics-server-cert"
	lwsCRDName          = "leaderworkersets.leaderworkerset.x-k8s.io"
	managerContainer    = "manager"
	zapLogLevelArgument = "--zap-log-level="

	// configHashAnnotationPrefix prefixes pod-template annotations that carry a hash of the
	// data of each mounted ConfigMap and Secret: a change of data rolls the pods, a change of
	// metadata does not.
	configHashAnnotationPrefix = "operator.llm-infra.io/hash-"
)

// Optional APIs the operand uses when they are installed. Their CRDs are watched by name.
var (
	issuerGVR         = schema.GroupVersionResource{Group: "cert-manager.io", Version: "v1", Resource: "issuers"}
	certificateGVR    = schema.GroupVersionResource{Group: "cert-manager.io", Version: "v1", Resource: "certificates"}
	serviceMonitorGVR = schema.GroupVersionResource{Group: "monitoring.coreos.com", Version: "v1", Resource: "servicemonitors"}
)

// crdName is the name of the CustomResourceDefinition that serves gvr.
func crdName(gvr schema.GroupVersionResource) string {
	return gvr.Resource + "." + gvr.Group
}
