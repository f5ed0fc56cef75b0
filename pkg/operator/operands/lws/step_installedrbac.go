package lws

import (
	"context"
	"fmt"
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	lwsoperatorv1 "github.com/llm-infra/llm-infra-operator/pkg/apis/operator/v1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/registry"
)

// installedObject is one object of the controller's ServiceAccount and RBAC, which are installed
// with the operator (deploy/13_lws-manager-role.yaml, deploy/14_lws-operand-rbac.yaml; the
// bundle's permissions of lws-controller-manager), not made by it.
type installedObject struct {
	gvr        schema.GroupVersionResource
	namespaced bool
	name       string
}

// installedRBAC are the objects the releases before issue 33 made themselves, with the CR as
// their owner: the garbage collector would delete them, the install's now, with the CR. The
// operator reads each by name and drops that owner reference (releaseInstalledRBAC). Its names
// are those of deploy/ (test/manifests checks).
var installedRBAC = func() []installedObject {
	rbac := func(resource string, namespaced bool, name string) installedObject {
		return installedObject{rbacv1.SchemeGroupVersion.WithResource(resource), namespaced, name}
	}
	return []installedObject{
		{schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}, true, deploymentName},
		rbac("clusterroles", false, "lws-manager-role"),
		rbac("clusterrolebindings", false, "lws-manager-rolebinding"),
		rbac("clusterroles", false, "lws-metrics-auth-role"),
		rbac("clusterrolebindings", false, "lws-metrics-auth-rolebinding"),
		rbac("clusterroles", false, "lws-metrics-reader"),
		rbac("roles", true, "lws-leader-election-role"),
		rbac("rolebindings", true, "lws-leader-election-rolebinding"),
	}
}()

// installedRBACRequests are the reads and updates of releaseInstalledRBAC, by name.
func installedRBACRequests(namespace string) []registry.Request {
	var out []registry.Request
	for _, o := range installedRBAC {
		ns := ""
		if o.namespaced {
			ns = namespace
		}
		out = append(out, registry.Request{Namespace: ns, PolicyRule: rbacv1.PolicyRule{APIGroups: []string{o.gvr.Group},
			Resources: []string{o.gvr.Resource}, Verbs: []string{"get", "update"}, ResourceNames: []string{o.name}}})
	}
	return out
}

// checkInstalledRBAC stops the sync (Degraded, OperandServiceAccountMissing) while the
// controller's ServiceAccount is not installed: its pods could not be created, and the message
// says what to apply. (Its roles cannot be checked by name: OLM names them.) Then it releases
// the installed objects (releaseInstalledRBAC).
func checkInstalledRBAC(ctx context.Context, run *syncRun, assets []string) error {
	if _, err := run.clients.Caches.Get(engine.ServiceAccounts, run.namespace, deploymentName); apierrors.IsNotFound(err) {
		return engine.MissingDependency(lwsoperatorv1.ReasonOperandServiceAccountMissing,
			"the LeaderWorkerSet controller's ServiceAccount %s/%s is missing: it is installed with the operator (kubectl apply -f deploy/, or the bundle), not by it; apply deploy/13_lws-manager-role.yaml and deploy/14_lws-operand-rbac.yaml, or reinstall the operator",
			run.namespace, deploymentName)
	}
	return releaseInstalledRBAC(ctx, run, assets)
}

// releaseInstalledRBAC drops the CR's owner reference from each object of installedRBAC that
// carries one (made by a release before issue 33), once per operator process, on the way in
// and on the way out (a CR deleted right after an upgrade). It changes nothing else; RBAC
// escalation prevention lets a subject that does not hold a role's rights change no more than
// its owner references, finalizers, or take rules away, so these rights grant nothing. A
// missing object is left missing: it is the install's to make.
func releaseInstalledRBAC(ctx context.Context, run *syncRun, _ []string) error {
	if run.installedRBACReleased {
		return nil
	}
	for _, o := range installedRBAC {
		var client dynamic.ResourceInterface = run.clients.Dynamic.Resource(o.gvr)
		if o.namespaced {
			client = run.clients.Dynamic.Resource(o.gvr).Namespace(run.namespace)
		}
		obj, err := client.Get(ctx, o.name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return fmt.Errorf("read %s %s: %w", o.gvr.Resource, o.name, err)
		}
		refs := obj.GetOwnerReferences()
		kept := slices.DeleteFunc(slices.Clone(refs), ownedByCR)
		if len(kept) == len(refs) {
			continue
		}
		obj.SetOwnerReferences(kept)
		if _, err := client.Update(ctx, obj, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("drop the owner reference to the CR from %s %s: %w", o.gvr.Resource, o.name, err)
		}
		run.recorder.Eventf("InstalledObjectReleased", "%s %s is installed with the operator now: dropped its owner reference to the CR, so that deleting the CR keeps it", o.gvr.Resource, o.name)
	}
	run.installedRBACReleased = true
	return nil
}

// ownedByCR reports whether ref is an owner reference to a LeaderWorkerSetOperator.
func ownedByCR(ref metav1.OwnerReference) bool {
	return ref.Kind == "LeaderWorkerSetOperator" && ref.APIVersion == lwsoperatorv1.GroupVersion.String()
}
