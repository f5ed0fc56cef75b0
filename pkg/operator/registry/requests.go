package registry

import (
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// OperatorName is the operator's name: controllercmd's component name, whose leader election
// lock is OperatorName + "-lock" in the operator's namespace.
const OperatorName = "llm-infra-operator"

// OperatorRequests are the API requests the operator makes whatever kinds it serves, as RBAC
// rules (namespace is the operator's): controllercmd's leader election, event recorder and
// delegated authentication and authorization, and
// the starter's watch of every CRD a registered kind installs or uses (CRDWatch: one informer
// per CRD, field selector metadata.name, so restricted by name). With every kind's Requests,
// they are every right the operator needs: test/manifests fails on a right deploy/ grants
// beyond them, and on one of them deploy/ does not grant.
func OperatorRequests(all []Registration, namespace string) []Request {
	in := func(group, resource string, verbs []string, names ...string) Request {
		return Request{Namespace: namespace, PolicyRule: rbacv1.PolicyRule{
			APIGroups: []string{group}, Resources: []string{resource}, Verbs: verbs, ResourceNames: names}}
	}
	out := []Request{
		// Leader election (library-go's, a Lease): created once, then read and renewed by name.
		in("coordination.k8s.io", "leases", []string{"create"}),
		in("coordination.k8s.io", "leases", []string{"get", "update"}, OperatorName+"-lock"),
		// controllercmd's event recorder creates events; client-go's (leader election's) also
		// patches the count of a repeated one.
		in("", "events", []string{"create", "patch"}),
		// The event recorder names the operator's Deployment as the events' source: it reads its
		// own pod (POD_NAME, a generated name) and follows its owner, the ReplicaSet.
		in("", "pods", []string{"get"}),
		in("apps", "replicasets", []string{"get"}),
		// controllercmd's secure server (/healthz, /metrics) delegates the authentication and
		// authorization of its callers to the API server.
		{PolicyRule: rbacv1.PolicyRule{APIGroups: []string{"authentication.k8s.io"}, Resources: []string{"tokenreviews"}, Verbs: []string{"create"}}},
		{PolicyRule: rbacv1.PolicyRule{APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"subjectaccessreviews"}, Verbs: []string{"create"}}},
		// controllercmd reads OpenShift's Infrastructure "cluster" once at start to choose the
		// leader election's timings for the control plane's topology (longer leases on a single
		// node, whose API server restarts for longer than the HA renew deadline). Without the
		// right it warns at every start (event ControlPlaneTopology) and takes the HA timings.
		// The API exists only on OpenShift; elsewhere the read finds nothing, as before.
		{PolicyRule: rbacv1.PolicyRule{APIGroups: []string{"config.openshift.io"}, Resources: []string{"infrastructures"}, Verbs: []string{"get"}, ResourceNames: []string{"cluster"}}},
	}
	var crds []string
	for _, r := range all {
		crds = append(crds, r.CRDs...)
		if r.OptionalAPIs != nil {
			for _, api := range r.OptionalAPIs(namespace) {
				crds = append(crds, engine.CRDName(api.GVR))
			}
		}
	}
	if len(crds) > 0 {
		out = append(out, Request{PolicyRule: rbacv1.PolicyRule{
			APIGroups: []string{"apiextensions.k8s.io"}, Resources: []string{"customresourcedefinitions"},
			Verbs: []string{"list", "watch"}, ResourceNames: crds}})
	}
	return out
}
