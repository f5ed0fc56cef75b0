package inferencegateway

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"

	"github.com/openshift/library-go/pkg/controller/factory"

	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// Optional APIs of the operand's objects: Gateway API (the Gateway API Gateway, the HTTPRoute
// and, with server TLS, the BackendTLSPolicy) and the Prometheus operator's ServiceMonitor.
var (
	GatewayAPIGatewayGVR = schema.GroupVersionResource{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "gateways"}
	HTTPRouteGVR         = schema.GroupVersionResource{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "httproutes"}
	BackendTLSPolicyGVR  = schema.GroupVersionResource{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "backendtlspolicies"}
	ServiceMonitorGVR    = schema.GroupVersionResource{Group: "monitoring.coreos.com", Version: "v1", Resource: "servicemonitors"}
)

// OptionalAPIs are the optional APIs this operand uses, in every namespace.
func OptionalAPIs() []engine.OptionalAPI {
	return []engine.OptionalAPI{{GVR: GatewayAPIGatewayGVR}, {GVR: HTTPRouteGVR}, {GVR: BackendTLSPolicyGVR}, {GVR: ServiceMonitorGVR}}
}

// RegisterInformers registers in the caches the informers of every built-in kind the operand
// creates, and returns them for its controllers to watch. managed must select on the
// operator's managed-by label in every namespace. The factory shares one informer per kind
// with the batch gateway; each operand registers it in its own caches layer.
func RegisterInformers(caches *engine.Caches, managed informers.SharedInformerFactory) []factory.Informer {
	return engine.RegisterInformers(caches,
		engine.Informed{GroupResource: engine.Deployments, Informer: managed.Apps().V1().Deployments().Informer()},
		engine.Informed{GroupResource: engine.Services, Informer: managed.Core().V1().Services().Informer()},
		engine.Informed{GroupResource: engine.ServiceAccounts, Informer: managed.Core().V1().ServiceAccounts().Informer()},
		engine.Informed{GroupResource: engine.ConfigMaps, Informer: managed.Core().V1().ConfigMaps().Informer()},
		engine.Informed{GroupResource: engine.HorizontalPodAutoscalers, Informer: managed.Autoscaling().V2().HorizontalPodAutoscalers().Informer()},
		engine.Informed{GroupResource: engine.Ingresses, Informer: managed.Networking().V1().Ingresses().Informer()},
	)
}
