package inferencegateway

import (
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// Optional APIs of the operand's objects: Gateway API (the Gateway API Gateway, the HTTPRoute
// and, with server TLS, the BackendTLSPolicy) and the Prometheus operator's ServiceMonitor.
var (
	GatewayAPIGatewayGVR = engine.GatewayAPIGatewayGVR
	HTTPRouteGVR         = engine.HTTPRouteGVR
	BackendTLSPolicyGVR  = engine.BackendTLSPolicyGVR
	ServiceMonitorGVR    = engine.ServiceMonitorGVR
)

// OptionalAPIs are the optional APIs a Gateway uses, in every namespace, and users'
// ReferenceGrants, which allow the discovery of MCPs of another namespace.
func OptionalAPIs() []engine.OptionalAPI {
	return []engine.OptionalAPI{{GVR: GatewayAPIGatewayGVR}, {GVR: HTTPRouteGVR}, {GVR: BackendTLSPolicyGVR}, {GVR: ServiceMonitorGVR}, engine.ReferenceGrantAPI}
}
