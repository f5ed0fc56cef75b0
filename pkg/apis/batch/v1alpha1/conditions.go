package v1alpha1

// Condition types of status.conditions. Ready and the four *Available types are upstream's, so
// `kubectl wait --for=condition=Ready` and the printer columns keep working; Progressing and
// Degraded are added.
const (
	// ConditionReady is True when every component that should run has a ready replica.
	ConditionReady = "Ready"
	// ConditionAPIServerAvailable is True when the apiserver Deployment has a ready replica.
	ConditionAPIServerAvailable = "APIServerAvailable"
	// ConditionProcessorAvailable is True when the processor Deployment has a ready replica.
	ConditionProcessorAvailable = "ProcessorAvailable"
	// ConditionGCAvailable is True when the gc Deployment has a ready replica.
	ConditionGCAvailable = "GCAvailable"
	// ConditionAsyncProcessorAvailable is True when the async-processor Deployment has a ready
	// replica. Present only in async mode.
	ConditionAsyncProcessorAvailable = "AsyncProcessorAvailable"
	// ConditionProgressing is True while a Deployment has not caught up with its spec.
	ConditionProgressing = "Progressing"
	// ConditionDegraded is True when the operator could not apply or remove something.
	ConditionDegraded = "Degraded"
)

// Condition reasons upstream sets, kept so that tools that read them keep working.
const (
	// ReasonAllComponentsReady: Ready=True.
	ReasonAllComponentsReady = "AllComponentsReady"
	// ReasonComponentsNotReady: Ready=False because a component has no ready replica.
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
