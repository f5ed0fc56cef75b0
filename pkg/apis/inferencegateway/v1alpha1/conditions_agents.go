package v1alpha1

// The condition types and reasons of Agent, Orchestrator and GPU that only this API defines.
// Ready, with upstream's reasons, is what users of upstream's operator wait for (kubectl wait
// --for=condition=Ready); Available, Progressing and Degraded (conditions.go) are the operator's,
// as on a Gateway and an MCP.

// ConditionReady is upstream's condition of an Agent (its card was read), an Orchestrator (its
// Deployment has an available replica) and a GPU (its endpoint answered the readiness probe).
const ConditionReady = "Ready"

// Reasons of an Agent's Ready condition.
const (
	// ReasonCardFetched: the agent's card was read into status.card.
	ReasonCardFetched = "CardFetched"
	// ReasonCardFetchFailed: reading the card failed; the message names the last URL tried and
	// the error. The operator tries again with back-off; status.card keeps the card read before.
	ReasonCardFetchFailed = "CardFetchFailed"
	// ReasonCardPending: no replica of the agent is available yet, or the first read of its card
	// has not finished.
	ReasonCardPending = "CardPending"
	// ReasonInvalidSpec: the spec breaks a rule (Agent.ValidateSpec); nothing was changed.
	ReasonInvalidSpec = "InvalidSpec"
)

// Condition types and reasons of an Orchestrator.
const (
	// ReasonDeploymentAvailable: Ready=True, the Deployment has an available replica.
	ReasonDeploymentAvailable = "DeploymentAvailable"
	// ReasonDeploymentNotAvailable: Ready=False, it has none (yet).
	ReasonDeploymentNotAvailable = "DeploymentNotAvailable"

	// ConditionDiscovered is set while spec.a2a.serviceDiscovery is on: True with
	// AgentsDiscovered and the count, False with DiscoveryFailed.
	ConditionDiscovered = "Discovered"
	// ReasonAgentsDiscovered: the Agent objects discovery selects were listed.
	ReasonAgentsDiscovered = "AgentsDiscovered"
	// ConditionMCPsDiscovered is set while spec.mcp.serviceDiscovery is on: True with
	// MCPsDiscovered and the count, False with DiscoveryFailed.
	ConditionMCPsDiscovered = "MCPsDiscovered"
	// ReasonMCPsDiscovered: the MCP objects discovery selects were listed.
	ReasonMCPsDiscovered = "MCPsDiscovered"
	// ReasonDiscoveryFailed: the selector does not parse (an object stored before the CRD
	// checked it); the message says why. The listed agents or servers are still configured.
	ReasonDiscoveryFailed = "DiscoveryFailed"

	// ConditionReceiverPortContention is True when the telemetry receiver and the channels are
	// both on: the agents the channels-manager starts contend for the receiver's port.
	ConditionReceiverPortContention = "ReceiverPortContention"
	// ReasonChannelsAndReceiverEnabled: ReceiverPortContention=True.
	ReasonChannelsAndReceiverEnabled = "ChannelsAndReceiverEnabled"
	// ReasonNoContention: ReceiverPortContention=False.
	ReasonNoContention = "NoContention"
)

// Reasons of a GPU's Ready condition: upstream's, one per step of the allocation's life.
const (
	ReasonGPUProvisioning           = "Provisioning"
	ReasonGPUInfrastructureStarting = "InfrastructureStarting"
	ReasonGPUEndpointPending        = "EndpointPending"
	ReasonGPUEndpointNotReady       = "EndpointNotReady"
	ReasonGPUEndpointReady          = "EndpointReady"
	ReasonGPUExpired                = "Expired"
	ReasonGPUTerminationFailed      = "TerminationFailed"
	ReasonGPUCleanupBlocked         = "CleanupBlocked"
	ReasonGPUCleanupFailed          = "CleanupFailed"
	ReasonGPUProviderUnavailable    = "ProviderUnavailable"
	ReasonGPUConnectionSecretError  = "ConnectionSecretError"
	ReasonGPUProvisionFailed        = "ProvisionFailed"
	ReasonGPUAllocationLost         = "AllocationLost"
	ReasonGPUProviderError          = "ProviderError"
	ReasonGPUProviderFailed         = "ProviderFailed"
	ReasonGPUAllocationTerminated   = "AllocationTerminated"
	// ReasonGPUAllocationAbandoned is the Warning event's reason (not a condition's) when a
	// deleted GPU's allocation could not be released within the operator's bound and the
	// finalizer went anyway; the message names the allocation. A copy, naming the GPU, goes to
	// the operator's namespace, since a namespace being deleted refuses new events.
	ReasonGPUAllocationAbandoned = "AllocationAbandoned"
	// ReasonGPUPending: nothing leased yet (the spec is invalid, or the first sync has not
	// finished).
	ReasonGPUPending = "Pending"
)

// GPUFinalizer is upstream's finalizer on a GPU: the operator releases the allocation before it
// removes it.
const GPUFinalizer = "core.inference-gateway.com/gpu-cleanup"
