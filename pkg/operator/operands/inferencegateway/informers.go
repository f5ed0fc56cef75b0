package inferencegateway

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"

	"github.com/openshift/library-go/pkg/controller/factory"

	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// Optional APIs of the operand's objects: Gateway API (the Gateway API Gateway and the
// HTTPRoute) and the Prometheus operator's ServiceMonitor.
var (
	GatewayAPIGatewayGVR = schema.GroupVersionResource{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "gateways"}
	HTTPRouteGVR         = schema.GroupVersionResource{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "httproutes"}
	ServiceMonitorGVR    = schema.GroupVersionResource{Group: "monitoring.coreos.com", Version: "v1", Resource: "servicemonitors"}
)

// OptionalAPIs are the optional APIs this operand uses, in every namespace.
func OptionalAPIs() []engine.OptionalAPI {
	return []engine.OptionalAPI{{GVR: GatewayAPIGatewayGVR}, {GVR: HTTPRouteGVR}, {GVR: ServiceMonitorGVR}}
}

// RegisterInformers registers in the caches the informers of the built-in kinds the operand
// creates that the other operands do not (HorizontalPodAutoscalers, Ingresses), and returns
// them with those of the shared kinds for its controllers to watch. managed must select on the
// operator's managed-by label in every namespace.
func RegisterInformers(caches *engine.Caches, managed informers.SharedInformerFactory, shared []factory.Informer) []factory.Informer {
	own := engine.RegisterInformers(caches,
		engine.Informed{GroupResource: engine.HorizontalPodAutoscalers, Informer: managed.Autoscaling().V2().HorizontalPodAutoscalers().Informer()},
		engine.Informed{GroupResource: engine.Ingresses, Informer: managed.Networking().V1().Ingresses().Informer()},
	)
	return append(append([]factory.Informer{}, shared...), own...)
}
