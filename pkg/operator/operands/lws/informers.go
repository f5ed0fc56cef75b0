package lws

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/openshift/library-go/pkg/controller/factory"

	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// RegisterInformers registers in the caches the informers of every built-in kind the operand
// applies, and returns them for its controller to watch: their events bring the sync that
// repairs drift. namespaced watches the operand namespace; clusterScoped must select on the
// operator's managed-by label, so memory does not grow with the cluster's other ClusterRoles
// and webhooks.
func RegisterInformers(caches *engine.Caches, namespaced, clusterScoped informers.SharedInformerFactory) []factory.Informer {
	kinds := []struct {
		gr       schema.GroupResource
		informer cache.SharedIndexInformer
	}{
		{engine.Deployments, namespaced.Apps().V1().Deployments().Informer()},
		{engine.Services, namespaced.Core().V1().Services().Informer()},
		{engine.ServiceAccounts, namespaced.Core().V1().ServiceAccounts().Informer()},
		{engine.ConfigMaps, namespaced.Core().V1().ConfigMaps().Informer()},
		{engine.Secrets, namespaced.Core().V1().Secrets().Informer()},
		{engine.Roles, namespaced.Rbac().V1().Roles().Informer()},
		{engine.RoleBindings, namespaced.Rbac().V1().RoleBindings().Informer()},
		{engine.ClusterRoles, clusterScoped.Rbac().V1().ClusterRoles().Informer()},
		{engine.ClusterRoleBindings, clusterScoped.Rbac().V1().ClusterRoleBindings().Informer()},
		{engine.MutatingWebhookConfigurations, clusterScoped.Admissionregistration().V1().MutatingWebhookConfigurations().Informer()},
		{engine.ValidatingWebhookConfigurations, clusterScoped.Admissionregistration().V1().ValidatingWebhookConfigurations().Informer()},
	}
	watched := make([]factory.Informer, 0, len(kinds))
	for _, k := range kinds {
		_ = k.informer.SetTransform(engine.DropManagedFields)
		caches.AddInformer(k.gr, k.informer)
		watched = append(watched, k.informer)
	}
	return watched
}
