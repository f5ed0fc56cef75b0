package manifests

import (
	"testing"

	batchv1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/batch/v1alpha1"
)

// TestBatchGatewayAccess proves that the operator's ClusterRole grants every request the LLM
// batch gateway operand makes, and not more than the table says.
func TestBatchGatewayAccess(t *testing.T) {
	const batch = batchv1alpha1.GroupName
	checkOperandAccess(t, []access{
		{"the CR informer (every namespace)", batch, "llmbatchgateways", []string{"list", "watch"}, true},
		{"writeStatus: UpdateStatus", batch, "llmbatchgateways/status", []string{"update"}, true},
		{"owner references with blockOwnerDeletion (OwnerReferencesPermissionEnforcement)", batch, "llmbatchgateways/finalizers", []string{"update"}, true},
		{"the operand's objects", "apps", "deployments", objectVerbs, true},
		{"the operand's objects", "", "configmaps", objectVerbs, true},
		{"the operand's objects", "", "services", objectVerbs, true},
		{"the operand's objects", "", "serviceaccounts", objectVerbs, true},
		{"referenced Secrets (one informer each, any namespace) and the <cr>-credentials copy", "", "secrets", objectVerbs, true},
		{"events on the CR (library-go's plain recorder creates)", "", "events", []string{"create"}, true},
		{"spec.tls.certManager", "cert-manager.io", "certificates", objectVerbs, true},
		{"spec.httpRoute", "gateway.networking.k8s.io", "httproutes", objectVerbs, true},
		{"spec.tls with spec.httpRoute", "gateway.networking.k8s.io", "backendtlspolicies", objectVerbs, true},
		{"spec.monitoring", "monitoring.coreos.com", "servicemonitors", objectVerbs, true},
		{"spec.monitoring", "monitoring.coreos.com", "podmonitors", objectVerbs, true},
		{"spec.prometheusRule", "monitoring.coreos.com", "prometheusrules", objectVerbs, true},
		{"users' ReferenceGrants for a cross-namespace spec.secretRef", "gateway.networking.k8s.io", "referencegrants", []string{"list", "watch"}, true},

		// Nothing the operand does not do.
		{"the CR's spec and metadata are the user's", batch, "llmbatchgateways", []string{"create", "update", "patch", "delete"}, false},
		{"status is updated, not patched", batch, "llmbatchgateways/status", []string{"patch"}, false},
		{"ReferenceGrants are the user's", "gateway.networking.k8s.io", "referencegrants", []string{"get", "create", "update", "patch", "delete"}, false},
		{"resourceapply never patches Secrets", "", "secrets", []string{"patch", "deletecollection"}, false},
		{"no collection deletes", "apps", "deployments", []string{"deletecollection"}, false},
		{"no namespaces", "", "namespaces", []string{"get", "list", "create"}, false},
	})
}
