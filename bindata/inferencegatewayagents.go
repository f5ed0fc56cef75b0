package bindata

// Manifests of the inference gateway's Agent, Orchestrator and GPU kinds
// (assets/inferencegatewayagents): one object per file, authored from the objects the upstream
// inference-gateway/operator creates, with upstream's names and selectors. Each manifest is what
// a minimal CR yields; pkg/operator/operands/inferencegatewayagents applies the CR's fields. The
// placeholders are the inference gateway's (${NAMESPACE}, ${INSTANCE}: the CR's name, ${IMAGE}:
// spec.image), substituted inside string values after the manifest is parsed.

// An Agent's manifests, in apply order: the Service, the Deployment, its NetworkPolicy.
const (
	AgentService       = "assets/inferencegatewayagents/agent-service.yaml"
	AgentDeployment    = "assets/inferencegatewayagents/agent-deployment.yaml"
	AgentNetworkPolicy = "assets/inferencegatewayagents/agent-networkpolicy.yaml"
)

// An Orchestrator's manifests, in apply order: the ConfigMaps its pod mounts, the receiver's
// Service, its Deployment, its NetworkPolicy.
const (
	OrchestratorAgentsConfigMap = "assets/inferencegatewayagents/orchestrator-agents-configmap.yaml"
	OrchestratorMCPsConfigMap   = "assets/inferencegatewayagents/orchestrator-mcps-configmap.yaml"
	OrchestratorDeployment      = "assets/inferencegatewayagents/orchestrator-deployment.yaml"
	OrchestratorReceiverService = "assets/inferencegatewayagents/orchestrator-receiver-service.yaml"
	OrchestratorNetworkPolicy   = "assets/inferencegatewayagents/orchestrator-networkpolicy.yaml"
)

// A GPU's manifests: its connection Secret, <gpu>-connection, and its copy of the provider's
// key, <gpu>-provider-key.
const (
	GPUConnectionSecret  = "assets/inferencegatewayagents/gpu-connection-secret.yaml"
	GPUProviderKeySecret = "assets/inferencegatewayagents/gpu-provider-key-secret.yaml"
)

// AgentAssets is every manifest of an Agent, in apply order.
var AgentAssets = []string{AgentService, AgentDeployment, AgentNetworkPolicy}

// OrchestratorAssets is every manifest of an Orchestrator, in apply order.
var OrchestratorAssets = []string{OrchestratorAgentsConfigMap, OrchestratorMCPsConfigMap, OrchestratorReceiverService, OrchestratorDeployment, OrchestratorNetworkPolicy}

// GPUAssets is every manifest of a GPU.
var GPUAssets = []string{GPUConnectionSecret, GPUProviderKeySecret}
