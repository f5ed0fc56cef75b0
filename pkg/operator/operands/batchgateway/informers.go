package batchgateway

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"

	"github.com/openshift/library-go/pkg/controller/factory"

	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// OptionalAPIs are the optional APIs this operand uses, in every namespace: the objects it
// creates of them, and users' ReferenceGrants (all of them: they carry no label of ours).
func OptionalAPIs() []engine.OptionalAPI {
	return []engine.OptionalAPI{
		{GVR: engine.CertificateGVR},
		{GVR: HTTPRouteGVR},
		{GVR: BackendTLSPolicyGVR},
		{GVR: ServiceMonitorGVR},
		{GVR: PodMonitorGVR},
		{GVR: PrometheusRuleGVR},
		{GVR: ReferenceGrantGVR, AllObjects: true},
	}
}

// Optional APIs of the operand's objects.
var (
	HTTPRouteGVR        = schema.GroupVersionResource{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "httproutes"}
	BackendTLSPolicyGVR = schema.GroupVersionResource{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "backendtlspolicies"}
	ServiceMonitorGVR   = schema.GroupVersionResource{Group: "monitoring.coreos.com", Version: "v1", Resource: "servicemonitors"}
	PodMonitorGVR       = schema.GroupVersionResource{Group: "monitoring.coreos.com", Version: "v1", Resource: "podmonitors"}
	PrometheusRuleGVR   = schema.GroupVersionResource{Group: "monitoring.coreos.com", Version: "v1", Resource: "prometheusrules"}
)

// RegisterInformers registers in the caches the informers of every built-in kind the operand
// creates, and returns them for its controller to watch. managed must select on the
// operator's managed-by label in every namespace: the operand's objects live in its CRs'
// namespaces, and memory must not grow with the cluster's other objects.
func RegisterInformers(caches *engine.Caches, managed informers.SharedInformerFactory) []factory.Informer {
	return engine.RegisterInformers(caches,
		engine.Informed{GroupResource: engine.Deployments, Informer: managed.Apps().V1().Deployments().Informer()},
		engine.Informed{GroupResource: engine.Services, Informer: managed.Core().V1().Services().Informer()},
		engine.Informed{GroupResource: engine.ServiceAccounts, Informer: managed.Core().V1().ServiceAccounts().Informer()},
		engine.Informed{GroupResource: engine.ConfigMaps, Informer: managed.Core().V1().ConfigMaps().Informer()},
		engine.Informed{GroupResource: engine.Secrets, Informer: managed.Core().V1().Secrets().Informer()},
	)
}
