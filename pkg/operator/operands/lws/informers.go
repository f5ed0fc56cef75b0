package lws

import (
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/openshift/library-go/pkg/controller/factory"

	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// RegisterInformers registers in the caches the informers of every built-in kind the operand
// applies, and returns them for its controller to watch: their events bring the sync that
// repairs drift. namespaced watches the operand namespace; webhooks the two webhook
// configurations, each by its name. Their events reach the controller through listeners,
// without the echoes of the operator's own writes (engine.RegisterInformers).
func RegisterInformers(caches *engine.Caches, listeners *engine.Listeners, namespaced informers.SharedInformerFactory, webhooks WebhookFactories) []factory.Informer {
	return engine.RegisterInformers(caches, listeners,
		engine.Informed{GroupResource: engine.Deployments, Informer: namespaced.Apps().V1().Deployments().Informer()},
		engine.Informed{GroupResource: engine.Services, Informer: namespaced.Core().V1().Services().Informer()},
		// Not applied: read, so that the sync that finds the installed ServiceAccount missing
		// runs again as soon as it is installed (releaseInstalledRBAC).
		engine.Informed{GroupResource: engine.ServiceAccounts, Informer: namespaced.Core().V1().ServiceAccounts().Informer()},
		engine.Informed{GroupResource: engine.ConfigMaps, Informer: namespaced.Core().V1().ConfigMaps().Informer()},
		engine.Informed{GroupResource: engine.NetworkPolicies, Informer: namespaced.Networking().V1().NetworkPolicies().Informer()},
		engine.Informed{GroupResource: engine.Secrets, Informer: namespaced.Core().V1().Secrets().Informer()},
		engine.Informed{GroupResource: engine.MutatingWebhookConfigurations, Informer: webhooks.Mutating.Admissionregistration().V1().MutatingWebhookConfigurations().Informer()},
		engine.Informed{GroupResource: engine.ValidatingWebhookConfigurations, Informer: webhooks.Validating.Admissionregistration().V1().ValidatingWebhookConfigurations().Informer()},
	)
}

// watchedByName are the cluster-scoped kinds of which the operand applies one object and
// watches only it: the webhook configurations. requests asks their list and watch by name.
var watchedByName = map[schema.GroupVersionResource]string{
	admissionregistrationv1.SchemeGroupVersion.WithResource("mutatingwebhookconfigurations"):   mutatingWebhookName,
	admissionregistrationv1.SchemeGroupVersion.WithResource("validatingwebhookconfigurations"): validatingWebhookName,
}

// WebhookFactories are the informer factories of the operand's two webhook configurations, each
// limited to its one object (the operator's label and a field selector on its name): the API
// server authorizes such a list and watch by the name, so RBAC grants them with resourceNames
// rather than over every webhook configuration of the cluster (issue 33).
type WebhookFactories struct {
	Mutating, Validating informers.SharedInformerFactory
}

// NewWebhookFactories builds (but does not start) the two factories.
func NewWebhookFactories(kube kubernetes.Interface, resync time.Duration) WebhookFactories {
	byName := func(name string) informers.SharedInformerFactory {
		return informers.NewSharedInformerFactoryWithOptions(kube, resync, informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.LabelSelector = engine.ManagedBySelector()
			o.FieldSelector = fields.OneTermEqualSelector("metadata.name", name).String()
		}))
	}
	return WebhookFactories{Mutating: byName(mutatingWebhookName), Validating: byName(validatingWebhookName)}
}

// Start starts the informers asked for so far.
func (w WebhookFactories) Start(stop <-chan struct{}) {
	w.Mutating.Start(stop)
	w.Validating.Start(stop)
}

// Informers are the two informers, for a starter that waits for them to sync.
func (w WebhookFactories) Informers() []cache.SharedIndexInformer {
	return []cache.SharedIndexInformer{
		w.Mutating.Admissionregistration().V1().MutatingWebhookConfigurations().Informer(),
		w.Validating.Admissionregistration().V1().ValidatingWebhookConfigurations().Informer(),
	}
}
