package v1

// ConditionServingCertificates is True once the controller's serving certificates are issued;
// its reason is the CertificateSource they come from (CertManager, ServiceCA or Operator), so
// status says which source is in use. During a switch it keeps naming the source the running
// pods serve with until the rollout onto the new source's certificates is complete.
const ConditionServingCertificates = "ServingCertificates"

// Condition reasons only the LeaderWorkerSetOperator API defines (the engine's shared reasons
// are in pkg/operator/engine/outcome.go).
const (
	// ReasonSwitchingCertificateSource: Progressing=True while the controller moves from one
	// certificate source to another (the webhooks trust both CAs meanwhile).
	ReasonSwitchingCertificateSource = "SwitchingCertificateSource"
	// ReasonServiceCAMissing: Degraded=True because spec.certificates.source is ServiceCA and
	// the cluster has no OpenShift service CA.
	ReasonServiceCAMissing = "ServiceCAMissing"
	// ReasonCertManagerMissing: Degraded=True because spec.certificates.source is CertManager
	// and cert-manager's CRDs are not established.
	ReasonCertManagerMissing = "CertManagerMissing"
	// ReasonOperandServiceAccountMissing: Degraded=True because the LeaderWorkerSet controller's
	// ServiceAccount, installed with the operator (deploy/14_lws-operand-rbac.yaml, or OLM from
	// the bundle), is not in the operator's namespace: its pods could not be created.
	ReasonOperandServiceAccountMissing = "OperandServiceAccountMissing"
	// ReasonWaitingForCertificates: Progressing=True until the serving certificates are issued.
	ReasonWaitingForCertificates = "WaitingForCertificates"
	// ReasonRemoved and ReasonUnmanaged: the conditions of managementState Removed and
	// Unmanaged.
	ReasonRemoved   = "Removed"
	ReasonUnmanaged = "Unmanaged"
)
