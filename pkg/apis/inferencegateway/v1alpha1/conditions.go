package v1alpha1

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Condition types of status.conditions, for Gateway and MCP.
const (
	// ConditionAvailable is True when the Deployment has its minimum of available replicas.
	ConditionAvailable = "Available"
	// ConditionProgressing is True while the Deployment has not caught up with its spec.
	ConditionProgressing = "Progressing"
	// ConditionDegraded is True when the operator could not apply the spec, or the spec breaks
	// a rule (reason ValidationFailed).
	ConditionDegraded = "Degraded"
)

// Condition reasons only this API sets. The reasons every operand shares (AsExpected,
// ApplyFailed, DeploymentRollingOut, DeploymentUnavailable, CRDNotInstalled, ObjectNotOwned,
// ...) are the engine's.
const (
	// ReasonValidationFailed: Degraded=True and Available=False because the spec breaks a rule
	// of ValidateSpec (an object stored before the CRD enforced it); nothing is deployed.
	ReasonValidationFailed = "ValidationFailed"
	// ReasonRoutingMovedToGatewayAPI: Degraded=True because spec.routing.enabled is true without
	// a routing configuration, which is what an object written for upstream before 0.21.0 (when
	// spec.routing held the Gateway API settings, now spec.gatewayAPI) turns into once stored.
	// The message says how to migrate; existing HTTPRoutes are left alone.
	ReasonRoutingMovedToGatewayAPI = "RoutingMovedToGatewayAPI"
	// ReasonServerCertificateInvalid: Degraded=True because spec.server.tls's certificate is
	// not a PEM certificate valid for <gateway>.<namespace>.svc, the name the gateway calls
	// itself by for every provider request: the pods would run and serve no model. The message
	// names the Secret and the names the certificate is valid for, never its content.
	ReasonServerCertificateInvalid = "ServerCertificateInvalid"
)

// PhaseOf derives status.phase from the conditions: Running when Available is True, Failed when
// Degraded is True (and Available is not), Pending when Available is False or Unknown, and
// Unknown before the operator wrote an Available condition. It also returns the message of the
// condition that decided, for status.message.
func PhaseOf(conditions []metav1.Condition) (phase, message string) {
	available := meta.FindStatusCondition(conditions, ConditionAvailable)
	degraded := meta.FindStatusCondition(conditions, ConditionDegraded)
	switch {
	case available != nil && available.Status == metav1.ConditionTrue:
		return PhaseRunning, available.Message
	case degraded != nil && degraded.Status == metav1.ConditionTrue:
		return PhaseFailed, degraded.Message
	case available != nil:
		return PhasePending, available.Message
	default:
		return PhaseUnknown, ""
	}
}
