package v1alpha1

// Condition types of status.conditions. Ready and the four *Available types are upstream's, so
// `kubectl wait --for=condition=Ready` and the printer columns keep working; Progressing and
// Degraded are added.
const (
	// ConditionReady is True when every component that should run serves (its *Available
	// condition is True), also while a rollout is in progress: an operator upgrade or a spec
	// change that rolls pods does not make a serving gateway not ready.
	ConditionReady = "Ready"
	// ConditionAPIServerAvailable is True when the apiserver Deployment has at least its minimum
	// of available replicas (replicas minus maxUnavailable, at least one), during a rollout too.
	ConditionAPIServerAvailable = "APIServerAvailable"
	// ConditionProcessorAvailable: as ConditionAPIServerAvailable, for the processor.
	ConditionProcessorAvailable = "ProcessorAvailable"
	// ConditionGCAvailable: as ConditionAPIServerAvailable, for the gc.
	ConditionGCAvailable = "GCAvailable"
	// ConditionAsyncProcessorAvailable: as ConditionAPIServerAvailable, for the async-processor.
	// Present only in async mode.
	ConditionAsyncProcessorAvailable = "AsyncProcessorAvailable"
	// ConditionProgressing is True while a Deployment has not caught up with its spec (reason
	// DeploymentRollingOut, the message names each component rolling out).
	ConditionProgressing = "Progressing"
	// ConditionDegraded is True when the operator could not apply or remove something, or a
	// rollout stalled (ReasonRolloutStalled).
	ConditionDegraded = "Degraded"
)

// Condition reasons upstream sets, kept so that tools that read them keep working.
const (
	// ReasonAllComponentsReady: Ready=True.
	ReasonAllComponentsReady = "AllComponentsReady"
	// ReasonComponentsNotReady: Ready=False because a component has fewer available replicas
	// than its minimum.
	ReasonComponentsNotReady = "ComponentsNotReady"
	// ReasonValidationFailed: Ready and the *Available conditions are False because the spec
	// breaks a rule of ValidateSpec (an object stored before the CRD enforced it).
	ReasonValidationFailed = "ValidationFailed"
	// ReasonReferenceNotPermitted: Ready=False because no ReferenceGrant allows the
	// cross-namespace spec.secretRef.
	ReasonReferenceNotPermitted = "ReferenceNotPermitted"
	// ReasonSecretRefImmutable: Ready=False because spec.secretRef changed after its Secret was
	// copied.
	ReasonSecretRefImmutable = "SecretRefImmutable"
	// ReasonRenderFailed: Ready=False because the operand's objects could not be built from the
	// spec.
	ReasonRenderFailed = "RenderFailed"
	// ReasonAvailable: a *Available condition is True.
	ReasonAvailable = "Available"
	// ReasonUnavailable: a *Available condition is False.
	ReasonUnavailable = "Unavailable"
)

// Condition reasons of this operator's own.
const (
	// ReasonRolloutStalled: Degraded=True because a component's rollout exceeded its
	// Deployment's progress deadline; its old pods may still serve (Ready says whether).
	ReasonRolloutStalled = "RolloutStalled"
)
