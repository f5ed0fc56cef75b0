// Package inferencegatewayagents is the inference gateway's Agent, Orchestrator and GPU kinds
// (core.inference-gateway.com/v1alpha1): what each CR renders from the embedded manifests in
// bindata/assets/inferencegatewayagents (an Agent's Deployment and Service; an Orchestrator's
// Deployment, its agents.yaml and mcp.yaml ConfigMaps and its receiver Service; a GPU's
// connection Secret), each kind's environment contract, the Agent card fetcher, the
// Orchestrator's discovery of Agents and MCPs, and the GPU's lifecycle against a provider
// (package gpuprovider).
//
// Rendering is a pure function of the CR (and, for an Orchestrator, the Agent and MCP objects its
// discovery selects). Names and pod selectors are those of the upstream inference-gateway/operator,
// so that the operator adopts what upstream created; golden_test.go lists every intended
// difference from upstream's objects, each with its reason.
package inferencegatewayagents

import (
	"fmt"

	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
)

// Container names: upstream's.
const (
	agentContainer        = "agent"
	orchestratorContainer = "orchestrator"
)

// Port names of the containers; the Services target them by name.
const (
	portHTTP     = "http"
	portReceiver = "otlp-http"
)

// Files the Orchestrator's pod reads: upstream's paths and keys.
const (
	agentsKey       = "agents.yaml"
	mcpsKey         = "mcp.yaml"
	agentsMountPath = "/home/infer/.infer/agents.yaml"
	mcpsMountPath   = "/home/infer/.infer/mcp.yaml"
	agentsVolume    = "agents-config"
	mcpsVolume      = "mcps-config"
)

// Where the Orchestrator's CLI writes, since its root filesystem is read-only (issue 33): each
// an emptyDir with a size limit (withOrchestratorScratch).
const (
	// inferHome is the CLI image's home and working directory (its Dockerfile: user infer,
	// WORKDIR /home/infer). HOME is set to it: the pod's user (65532 on Kubernetes, the SCC's on
	// OpenShift) has no entry in the image's /etc/passwd, so HOME would be / and the CLI's
	// ~/.infer would be /.infer.
	inferHome = "/home/infer"
	// inferDirMountPath is ~/.infer, which is also the project directory .infer the CLI resolves
	// from its working directory: the daemon's pid file (run/), its log files (logs/; without a
	// writable log directory the CLI's logger discards everything, stdout included), telemetry,
	// the conversation and schedule storage, Telegram's downloaded images (tmp/). agents.yaml and
	// mcp.yaml are mounted inside it by subPath.
	inferDirMountPath = inferHome + "/.infer"
	inferDirVolume    = "infer"
	inferDirSizeLimit = "1Gi"
	// tmpMountPath is os.TempDir(): Telegram's voice messages and sub-agent state files.
	tmpMountPath = "/tmp"
	tmpVolume    = "tmp"
	tmpSizeLimit = "256Mi"
)

// OrchestratorNames are the names of an Orchestrator's objects: upstream's.
type OrchestratorNames struct {
	// Deployment is the Orchestrator's own name.
	Deployment string
	// AgentsConfigMap holds agents.yaml, MCPsConfigMap mcp.yaml.
	AgentsConfigMap, MCPsConfigMap string
	// ReceiverService is the OTLP receiver's Service.
	ReceiverService string
}

// OrchestratorNamesFor returns the object names of the Orchestrator named name.
func OrchestratorNamesFor(name string) OrchestratorNames {
	return OrchestratorNames{
		Deployment:      name,
		AgentsConfigMap: name + "-agents",
		MCPsConfigMap:   name + "-mcps",
		ReceiverService: name + "-receiver",
	}
}

// ConnectionSecretName is a GPU's connection Secret: upstream's <gpu>-connection.
func ConnectionSecretName(gpu string) string { return gpu + "-connection" }

// ProviderKeySecretName is a GPU's copy of its provider's key (gpu_operand.go: providerKeyWanted).
func ProviderKeySecretName(gpu string) string { return gpu + "-provider-key" }

// AgentURL is the Agent's URL in the cluster, http://<name>.<namespace>.svc.cluster.local:<port>:
// where Orchestrators call it, and the URL it advertises unless spec.card.url says otherwise.
func AgentURL(agent *v1alpha1.Agent) string {
	return fmt.Sprintf("http://%s.%s.svc.cluster.local:%d", agent.Name, agent.Namespace, agentPort(&agent.Spec))
}

// agentPort is spec.port, or the API's default for an object stored without it.
func agentPort(spec *v1alpha1.AgentSpec) int32 {
	if spec.Port > 0 {
		return spec.Port
	}
	return v1alpha1.DefaultAgentPort
}
