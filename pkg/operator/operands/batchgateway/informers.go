package batchgateway

import (
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// OptionalAPIs are the optional APIs this operand uses, in every namespace: the objects it
// creates of them, and users' ReferenceGrants (all of them: they carry no label of ours).
func OptionalAPIs() []engine.OptionalAPI {
	return []engine.OptionalAPI{
		{GVR: engine.CertificateGVR},
		{GVR: HTTPRouteGVR},
		{GVR: BackendTLSPolicyGVR},
		{GVR: ServiceMonitorGVR},
		{GVR: PodMonitorGVR},
		{GVR: PrometheusRuleGVR},
		engine.ReferenceGrantAPI,
	}
}

// Optional APIs of the operand's objects.
var (
	HTTPRouteGVR        = engine.HTTPRouteGVR
	BackendTLSPolicyGVR = engine.BackendTLSPolicyGVR
	ServiceMonitorGVR   = engine.ServiceMonitorGVR
	PodMonitorGVR       = engine.PodMonitorGVR
	PrometheusRuleGVR   = engine.PrometheusRuleGVR
)
