package bindata

// Inference gateway operand manifests (assets/inferencegateway): one object per file, authored
// from the objects the upstream inference-gateway/operator creates for a Gateway and an MCP
// (core.inference-gateway.com/v1alpha1), with upstream's names and selectors. Each manifest is
// what an empty spec yields; pkg/operator/operands/inferencegateway applies the CR's fields.
//
// Placeholders stand inside YAML string values only and are substituted after the manifest is
// parsed, value by value (engine.Renderer), so a substituted value can never change the
// structure of an object:
//
//	${NAMESPACE}        the CR's namespace
//	${INSTANCE}         the Gateway's or MCP's name: the Deployment, the Service (an MCP's is
//	                    ${INSTANCE}-service), the app label upstream selects pods by
//	${SERVICE_ACCOUNT}  the ServiceAccount the gateway's pods run as (spec.serviceAccount.name,
//	                    or the Gateway's name)
//	${IMAGE}            the container image (spec.image, or the API's default)
//
// Names derived from the instance (the routing ConfigMap "-routing", the HorizontalPodAutoscaler
// "-hpa") are written out in the manifests from these placeholders.
const (
	InferenceGatewayInstancePlaceholder       = "${INSTANCE}"
	InferenceGatewayServiceAccountPlaceholder = "${SERVICE_ACCOUNT}"
	InferenceGatewayImagePlaceholder          = "${IMAGE}"
)

// Inference gateway manifests of a Gateway.
const (
	InferenceGatewayServiceAccount   = "assets/inferencegateway/serviceaccount.yaml"
	InferenceGatewayRoutingConfigMap = "assets/inferencegateway/routing-configmap.yaml"
	InferenceGatewayBackendCA        = "assets/inferencegateway/backend-ca-configmap.yaml"
	InferenceGatewayService          = "assets/inferencegateway/service.yaml"
	InferenceGatewayDeployment       = "assets/inferencegateway/deployment.yaml"
	InferenceGatewayHPA              = "assets/inferencegateway/hpa.yaml"
	InferenceGatewayPDB              = "assets/inferencegateway/poddisruptionbudget.yaml"
	InferenceGatewayNetworkPolicy    = "assets/inferencegateway/networkpolicy.yaml"
	InferenceGatewayIngress          = "assets/inferencegateway/ingress.yaml"
	// InferenceGatewayGatewayAPIGateway is a gateway.networking.k8s.io Gateway, not this API's.
	InferenceGatewayGatewayAPIGateway = "assets/inferencegateway/gateway.yaml"
	InferenceGatewayHTTPRoute         = "assets/inferencegateway/httproute.yaml"
	InferenceGatewayBackendTLSPolicy  = "assets/inferencegateway/backendtlspolicy.yaml"
	InferenceGatewayServiceMonitor    = "assets/inferencegateway/servicemonitor.yaml"
)

// Inference gateway manifests of an MCP server.
const (
	MCPService       = "assets/inferencegateway/mcp-service.yaml"
	MCPDeployment    = "assets/inferencegateway/mcp-deployment.yaml"
	MCPHPA           = "assets/inferencegateway/mcp-hpa.yaml"
	MCPPDB           = "assets/inferencegateway/mcp-poddisruptionbudget.yaml"
	MCPNetworkPolicy = "assets/inferencegateway/mcp-networkpolicy.yaml"
)

// InferenceGatewayAssets is every manifest of a Gateway in apply order: the ServiceAccount
// before the pods that run as it (upstream created it after the Deployment, so the first pods
// could be refused), the ConfigMap they mount, the Service and the Deployment, its
// HorizontalPodAutoscaler, PodDisruptionBudget, Ingress and NetworkPolicy, then the kinds whose CRDs are optional (Gateway API,
// Prometheus operator). Removal walks it backwards. Code and tests use this one list.
var InferenceGatewayAssets = []string{
	InferenceGatewayServiceAccount,
	InferenceGatewayRoutingConfigMap,
	InferenceGatewayBackendCA,
	InferenceGatewayService,
	InferenceGatewayDeployment,
	InferenceGatewayHPA,
	InferenceGatewayPDB,
	InferenceGatewayIngress,
	InferenceGatewayNetworkPolicy,
	InferenceGatewayGatewayAPIGateway,
	InferenceGatewayHTTPRoute,
	InferenceGatewayBackendTLSPolicy,
	InferenceGatewayServiceMonitor,
}

// MCPAssets is every manifest of an MCP in apply order: the Service, the Deployment, its
// HorizontalPodAutoscaler, its PodDisruptionBudget and its NetworkPolicy.
var MCPAssets = []string{
	MCPService,
	MCPDeployment,
	MCPHPA,
	MCPPDB,
	MCPNetworkPolicy,
}
