package lws

import (
	"k8s.io/client-go/informers"

	"github.com/openshift/library-go/pkg/controller/factory"

	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// RegisterInformers registers in the caches the informers of every built-in kind the operand
// applies, and returns them for its controller to watch: their events bring the sync that
// repairs drift. namespaced watches the operand namespace; clusterScoped must select on the
// operator's managed-by label, so memory does not grow with the cluster's other webhooks. Their events reach the controller through listeners, without the echoes of the
// operator's own writes (engine.RegisterInformers).
func RegisterInformers(caches *engine.Caches, listeners *engine.Listeners, namespaced, clusterScoped informers.SharedInformerFactory) []factory.Informer {
	return engine.RegisterInformers(caches, listeners,
		engine.Informed{GroupResource: engine.Deployments, Informer: namespaced.Apps().V1().Deployments().Informer()},
		engine.Informed{GroupResource: engine.Services, Informer: namespaced.Core().V1().Services().Informer()},
		// Not applied: read, so that the sync that finds the installed ServiceAccount missing
		// runs again as soon as it is installed (releaseInstalledRBAC).
		engine.Informed{GroupResource: engine.ServiceAccounts, Informer: namespaced.Core().V1().ServiceAccounts().Informer()},
		engine.Informed{GroupResource: engine.ConfigMaps, Informer: namespaced.Core().V1().ConfigMaps().Informer()},
		engine.Informed{GroupResource: engine.NetworkPolicies, Informer: namespaced.Networking().V1().NetworkPolicies().Informer()},
		engine.Informed{GroupResource: engine.Secrets, Informer: namespaced.Core().V1().Secrets().Informer()},
		engine.Informed{GroupResource: engine.MutatingWebhookConfigurations, Informer: clusterScoped.Admissionregistration().V1().MutatingWebhookConfigurations().Informer()},
		engine.Informed{GroupResource: engine.ValidatingWebhookConfigurations, Informer: clusterScoped.Admissionregistration().V1().ValidatingWebhookConfigurations().Informer()},
	)
}
