package manifests

import (
	"testing"

	igwv1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
)

// TestInferenceGatewayAccess proves that the operator's ClusterRole grants every request the
// inference gateway operand makes for Gateways and MCP servers, and not more than the table
// says.
func TestInferenceGatewayAccess(t *testing.T) {
	const igw = igwv1alpha1.GroupName
	const gatewayAPI = "gateway.networking.k8s.io"
	checkOperandAccess(t, []access{
		{"the Gateway informer (every namespace)", igw, "gateways", []string{"list", "watch"}, true},
		{"the MCP informer (every namespace; MCP service discovery reads it too)", igw, "mcps", []string{"list", "watch"}, true},
		{"writeGatewayStatus: UpdateStatus", igw, "gateways/status", []string{"update"}, true},
		{"writeMCPStatus: UpdateStatus", igw, "mcps/status", []string{"update"}, true},
		{"owner references with blockOwnerDeletion (OwnerReferencesPermissionEnforcement)", igw, "gateways/finalizers", []string{"update"}, true},
		{"owner references with blockOwnerDeletion (OwnerReferencesPermissionEnforcement)", igw, "mcps/finalizers", []string{"update"}, true},
		{"the operand's objects", "", "serviceaccounts", objectVerbs, true},
		{"the operand's objects (the routing ConfigMap)", "", "configmaps", objectVerbs, true},
		{"the operand's objects", "", "services", objectVerbs, true},
		{"the operand's objects", "apps", "deployments", objectVerbs, true},
		{"spec.hpa", "autoscaling", "horizontalpodautoscalers", objectVerbs, true},
		{"spec.ingress", "networking.k8s.io", "ingresses", objectVerbs, true},
		{"ConfigMaps the pods read (one informer each, by metadata.name)", "", "configmaps", []string{"list", "watch"}, true},
		{"Secrets the pods read (one informer each, by metadata.name)", "", "secrets", []string{"list", "watch"}, true},
		{"events on the CR (library-go's plain recorder creates)", "", "events", []string{"create"}, true},
		{"spec.gatewayAPI", gatewayAPI, "gateways", objectVerbs, true},
		{"spec.gatewayAPI", gatewayAPI, "httproutes", objectVerbs, true},
		{"spec.server.tls with spec.gatewayAPI", gatewayAPI, "backendtlspolicies", objectVerbs, true},
		{"spec.telemetry.metrics", "monitoring.coreos.com", "servicemonitors", objectVerbs, true},

		// Nothing the operand does not do.
		{"the CRs are read from the informers; spec and metadata are the user's", igw, "gateways", []string{"get", "create", "update", "patch", "delete"}, false},
		{"the CRs are read from the informers; spec and metadata are the user's", igw, "mcps", []string{"get", "create", "update", "patch", "delete"}, false},
		{"status is updated, not patched", igw, "gateways/status", []string{"patch"}, false},
		{"status is updated, not patched", igw, "mcps/status", []string{"patch"}, false},
		{"resourceapply never patches", "autoscaling", "horizontalpodautoscalers", []string{"patch"}, false},
		{"resourceapply never patches", "networking.k8s.io", "ingresses", []string{"patch"}, false},
		{"resourceapply never patches", gatewayAPI, "gateways", []string{"patch"}, false},
		{"resourceapply never patches Secrets", "", "secrets", []string{"patch", "deletecollection"}, false},
		{"no collection deletes", "autoscaling", "horizontalpodautoscalers", []string{"deletecollection"}, false},
		{"no collection deletes", "networking.k8s.io", "ingresses", []string{"deletecollection"}, false},
		{"no collection deletes", gatewayAPI, "gateways", []string{"deletecollection"}, false},
		{"status of the objects is their controllers'", "networking.k8s.io", "ingresses/status", []string{"update", "patch"}, false},
		{"status of the objects is their controllers'", "autoscaling", "horizontalpodautoscalers/status", []string{"update", "patch"}, false},
		{"status of the objects is their controllers'", gatewayAPI, "gateways/status", []string{"update", "patch"}, false},
		{"GatewayClasses are the cluster administrator's", gatewayAPI, "gatewayclasses", []string{"get", "list", "create", "update"}, false},
		{"IngressClasses are the cluster administrator's", "networking.k8s.io", "ingressclasses", []string{"get", "list", "create", "update"}, false},
		{"no namespaces", "", "namespaces", []string{"get", "list", "create"}, false},
	})
}
