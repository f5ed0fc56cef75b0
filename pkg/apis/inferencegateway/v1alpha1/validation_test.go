package v1alpha1

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/llm-infra/llm-infra-operator/pkg/apis/crdtest"
	networkpolicyv1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/networkpolicy/v1alpha1"
)

// The table in testcases checks ValidateSpec against the CRDs. These cases are objects the API
// server never stores (defaults not applied, empty blocks) that only a Go caller builds, where
// ValidateSpec must not panic on a nil pointer and must not invent errors.
func TestValidateSpecOfSparseObjects(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec GatewaySpec
		want []string
	}{
		{"nothing set", GatewaySpec{}, nil},
		{"empty blocks", GatewaySpec{
			Telemetry:  &TelemetrySpec{Traces: &TracesSpec{Exporter: &TracesExporterSpec{}}, Metrics: &MetricsSpec{}, Receiver: &ReceiverSpec{}},
			Server:     &ServerSpec{TLS: &TLSConfig{}},
			Auth:       &AuthSpec{},
			Providers:  []ProviderSpec{{Name: "openai"}},
			MCP:        &MCPServersSpec{Servers: []MCPServer{{Name: "s", URL: "http://s"}}},
			Resources:  &ResourceRequirements{},
			Service:    &ServiceSpec{},
			Ingress:    &IngressSpec{},
			GatewayAPI: &RoutingSpec{Gateway: &RoutingGatewaySpec{}},
			Routing:    &ModelRoutingSpec{},
			HPA:        &HPASpec{Config: &CustomHorizontalPodAutoscalerSpec{}},
			Guardrails: &GuardrailsSpec{},
		}, nil},
		{"switches on with empty blocks", GatewaySpec{
			Server:     &ServerSpec{TLS: &TLSConfig{Enabled: true}},
			Auth:       &AuthSpec{Enabled: true},
			Ingress:    &IngressSpec{Enabled: true},
			Routing:    &ModelRoutingSpec{Enabled: true},
			Guardrails: &GuardrailsSpec{Enabled: true},
		}, []string{MessageServerTLSNeedsRefs, MessageAuthNeedsOIDC, MessageIngressNeedsHost, MessageRoutingNeedsConfig, MessageGuardrailsNeedPolicies}},
		{"empty reference names", GatewaySpec{
			Server:     &ServerSpec{TLS: &TLSConfig{KeyRef: &corev1.SecretKeySelector{Key: "tls.key"}}},
			Auth:       &AuthSpec{OIDC: &OIDCSpec{CACertRef: &corev1.ConfigMapKeySelector{Key: "ca.crt"}}},
			Routing:    &ModelRoutingSpec{ConfigMapRef: &corev1.ConfigMapKeySelector{}},
			Guardrails: &GuardrailsSpec{ConfigMapRef: &corev1.LocalObjectReference{}},
		}, []string{MessageServerTLSRefNames, MessageOIDCRefNames, MessageRoutingConfigMapName, MessageGuardrailsConfigMapName}},
		{"requests only: the defaults of the limits apply", GatewaySpec{
			Resources: &ResourceRequirements{Requests: &ResourceList{CPU: "2500m", Memory: "1Gi"}},
		}, []string{MessageCPURequestAboveLimit}},
		{"a value that is no quantity is the schema's to report", GatewaySpec{
			Resources: &ResourceRequirements{Requests: &ResourceList{CPU: "lots"}, Limits: &ResourceList{Memory: "1GB"}},
		}, nil},
		{"a peer that selects nothing", GatewaySpec{NetworkPolicy: &networkpolicyv1alpha1.ServingNetworkPolicy{From: []networkpolicyv1alpha1.NetworkPolicyPeer{{}}}}, []string{networkpolicyv1alpha1.MessageNetworkPolicyPeer}},
		{"hpa min above max", GatewaySpec{HPA: &HPASpec{Config: &CustomHorizontalPodAutoscalerSpec{MinReplicas: ptr.To[int32](3), MaxReplicas: 2}}}, []string{MessageHPAMinAboveMax}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gateway := &Gateway{ObjectMeta: metav1.ObjectMeta{Name: "gw"}, Spec: tc.spec}
			if errs := gateway.ValidateSpec(); !sameDetails(errs, tc.want) {
				t.Errorf("ValidateSpec = %q, want %q", crdtest.Details(errs), tc.want)
			}
		})
	}
	for _, tc := range []struct {
		name string
		spec MCPSpec
		want []string
	}{
		{"nothing set", MCPSpec{}, nil},
		{"empty blocks", MCPSpec{Server: &MCPServerSpec{}, HPA: &HPASpec{Config: &CustomHorizontalPodAutoscalerSpec{ScaleTargetRef: &CrossVersionObjectReference{Kind: "Deployment", Name: "memory"}}}}, nil},
		{"timeout and scaleTargetRef", MCPSpec{
			Server: &MCPServerSpec{Timeout: "1m"},
			HPA:    &HPASpec{Config: &CustomHorizontalPodAutoscalerSpec{ScaleTargetRef: &CrossVersionObjectReference{Kind: "Deployment", Name: "gw"}}},
		}, []string{MessageMCPServerTimeout, MessageMCPScaleTargetRef}},
		{"a peer that selects nothing", MCPSpec{NetworkPolicy: &networkpolicyv1alpha1.ServingNetworkPolicy{From: []networkpolicyv1alpha1.NetworkPolicyPeer{
			{PodSelector: &metav1.LabelSelector{}}, {},
		}}}, []string{networkpolicyv1alpha1.MessageNetworkPolicyPeer}},
	} {
		t.Run("MCP "+tc.name, func(t *testing.T) {
			mcp := &MCP{ObjectMeta: metav1.ObjectMeta{Name: "memory"}, Spec: tc.spec}
			if errs := mcp.ValidateSpec(); !sameDetails(errs, tc.want) {
				t.Errorf("ValidateSpec = %q, want %q", crdtest.Details(errs), tc.want)
			}
		})
	}
}

// TestProviderEnvUnique: the rule only ValidateSpec checks. The API server admits these objects
// (testcases has one); the operator reports them.
func TestProviderEnvUnique(t *testing.T) {
	env := func(names ...string) []corev1.EnvVar {
		var out []corev1.EnvVar
		for _, name := range names {
			out = append(out, corev1.EnvVar{Name: name, Value: "x"})
		}
		return out
	}
	for _, tc := range []struct {
		name      string
		providers []ProviderSpec
		want      []string
	}{
		{"distinct names", []ProviderSpec{{Name: "a", Enabled: true, Env: env("A_API_KEY", "A_API_URL")}, {Name: "b", Enabled: true, Env: env("B_API_KEY")}}, nil},
		{"across providers", []ProviderSpec{{Name: "a", Enabled: true, Env: env("ALLOWED_MODELS", "A_API_KEY")}, {Name: "b", Enabled: true, Env: env("B_API_KEY", "ALLOWED_MODELS")}},
			[]string{"spec.providers[1].env[1].name"}},
		{"within a provider, three times", []ProviderSpec{{Name: "a", Enabled: true, Env: env("A_API_KEY", "A_API_KEY", "A_API_KEY")}},
			[]string{"spec.providers[0].env[1].name", "spec.providers[0].env[2].name"}},
		{"a disabled provider does not count", []ProviderSpec{{Name: "a", Enabled: false, Env: env("A_API_KEY")}, {Name: "b", Enabled: true, Env: env("A_API_KEY")}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, err := range (&Gateway{Spec: GatewaySpec{Providers: tc.providers}}).ValidateSpec() {
				if err.Detail != MessageProviderEnvDuplicate || err.Type != field.ErrorTypeDuplicate {
					t.Errorf("unexpected error %v", err)
				}
				got = append(got, err.Field)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("errors at %q, want %q", got, tc.want)
			}
		})
	}
}

func TestReasonFor(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec GatewaySpec
		want string
	}{
		{"routing enabled without a configuration", GatewaySpec{Routing: &ModelRoutingSpec{Enabled: true}, Auth: &AuthSpec{Provider: AuthProviderJWT}}, ReasonRoutingMovedToGatewayAPI},
		{"another rule", GatewaySpec{Auth: &AuthSpec{Provider: AuthProviderJWT}}, ReasonValidationFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ReasonFor((&Gateway{Spec: tc.spec}).ValidateSpec()); got != tc.want {
				t.Errorf("ReasonFor = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestGatewayFailMode(t *testing.T) {
	for failMode, want := range map[string]string{
		"":       "closed",
		"deny":   "closed",
		"closed": "closed",
		"allow":  "open",
		"open":   "open",
	} {
		if got := GatewayFailMode(failMode); got != want {
			t.Errorf("GatewayFailMode(%q) = %q, want %q", failMode, got, want)
		}
	}
}

func TestPhaseOf(t *testing.T) {
	condition := func(conditionType string, status metav1.ConditionStatus, message string) metav1.Condition {
		return metav1.Condition{Type: conditionType, Status: status, Message: message}
	}
	for _, tc := range []struct {
		name                 string
		conditions           []metav1.Condition
		wantPhase, wantWords string
	}{
		{"no conditions", nil, PhaseUnknown, ""},
		{"only Progressing", []metav1.Condition{condition(ConditionProgressing, metav1.ConditionTrue, "rolling out")}, PhaseUnknown, ""},
		{"available", []metav1.Condition{condition(ConditionAvailable, metav1.ConditionTrue, "ok"), condition(ConditionProgressing, metav1.ConditionTrue, "rolling out")}, PhaseRunning, "ok"},
		{"available though degraded", []metav1.Condition{condition(ConditionAvailable, metav1.ConditionTrue, "ok"), condition(ConditionDegraded, metav1.ConditionTrue, "apply failed")}, PhaseRunning, "ok"},
		{"degraded and unavailable", []metav1.Condition{condition(ConditionAvailable, metav1.ConditionFalse, "no pods"), condition(ConditionDegraded, metav1.ConditionTrue, "invalid spec")}, PhaseFailed, "invalid spec"},
		{"degraded, Available not written yet", []metav1.Condition{condition(ConditionDegraded, metav1.ConditionTrue, "invalid spec")}, PhaseFailed, "invalid spec"},
		{"unavailable, not degraded", []metav1.Condition{condition(ConditionAvailable, metav1.ConditionFalse, "waiting for pods"), condition(ConditionDegraded, metav1.ConditionFalse, "")}, PhasePending, "waiting for pods"},
		{"availability unknown", []metav1.Condition{condition(ConditionAvailable, metav1.ConditionUnknown, "")}, PhasePending, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if phase, message := PhaseOf(tc.conditions); phase != tc.wantPhase || message != tc.wantWords {
				t.Errorf("PhaseOf = %s %q, want %s %q", phase, message, tc.wantPhase, tc.wantWords)
			}
		})
	}
}

// sameDetails reports whether errs carry exactly the messages want, in any order.
func sameDetails(errs field.ErrorList, want []string) bool {
	return slices.Equal(crdtest.Details(errs), slices.Sorted(slices.Values(want)))
}
