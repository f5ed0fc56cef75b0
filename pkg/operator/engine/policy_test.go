package engine

import (
	"maps"
	"strings"
	"testing"
)

func TestAllowlistFromEnv(t *testing.T) {
	tests := []struct {
		name    string
		value   *string // nil: unset
		allowed []string
		refused []string
		text    string
	}{
		{name: "unset: every name, as upstream", allowed: []string{"envoy", "anything"}, text: "any (ALLOWED_GATEWAY_CLASSES unset)"},
		{name: "a list", value: ptrTo("envoy, istio ,"), allowed: []string{"envoy", "istio"}, refused: []string{"", "cilium", "envoy,istio"}, text: "[envoy istio]"},
		{name: "duplicates once", value: ptrTo("envoy,envoy"), allowed: []string{"envoy"}, text: "[envoy]"},
		{name: "set and empty: none", value: ptrTo(""), refused: []string{"envoy", ""}, text: "none (ALLOWED_GATEWAY_CLASSES empty)"},
		{name: "only commas and spaces: none", value: ptrTo(" , "), refused: []string{"envoy"}, text: "none (ALLOWED_GATEWAY_CLASSES empty)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lookup := func(env string) (string, bool) {
				if env != AllowedGatewayClassesEnv || tt.value == nil {
					return "", false
				}
				return *tt.value, true
			}
			list := AllowlistFromEnv(AllowedGatewayClassesEnv, lookup)
			for _, name := range tt.allowed {
				if !list.Allows(name) {
					t.Errorf("%q refused", name)
				}
			}
			for _, name := range tt.refused {
				if list.Allows(name) {
					t.Errorf("%q allowed", name)
				}
			}
			if got := list.String(); got != tt.text {
				t.Errorf("String() = %q, want %q", got, tt.text)
			}
		})
	}
	if !(Policy{}).GatewayClasses.Allows("x") || !(Policy{}).ClusterIssuers.Allows("x") {
		t.Error("the zero Policy (a render without a cluster) must allow every name")
	}
	p := PolicyFromEnv(func(env string) (string, bool) { return "letsencrypt", env == AllowedClusterIssuersEnv })
	if !p.GatewayClasses.Allows("x") || !p.ClusterIssuers.Allows("letsencrypt") || p.ClusterIssuers.Allows("internal-ca") {
		t.Errorf("PolicyFromEnv reads each list from its variable: %+v", p)
	}
}

func ptrTo(s string) *string { return &s }

// TestNotAllowedProblem: refused names are Degraded with the first one's reason, not blocking
// (the rest of the CR is applied); the message names the field, the name, the list and where
// the administrator sets it, and what is not created.
func TestNotAllowedProblem(t *testing.T) {
	if NotAllowedProblem(nil) != nil {
		t.Error("nothing refused: no problem")
	}
	list := AllowlistFromEnv(AllowedGatewayClassesEnv, func(string) (string, bool) { return "envoy", true })
	issuers := AllowlistFromEnv(AllowedClusterIssuersEnv, func(string) (string, bool) { return "", true })
	p := NotAllowedProblem([]NotAllowed{
		{Field: "spec.gatewayAPI.gateway.gatewayClassName", Kind: "GatewayClass", Name: "public-lb", List: list, Skipped: "the Gateway API Gateway llm/gw is not created"},
		{Field: "spec.tls.certManager.issuerName", Kind: "ClusterIssuer", Name: "letsencrypt", List: issuers, Skipped: "the Certificate is not created"},
	})
	if p == nil || p.Condition != ConditionDegraded || p.Reason != "GatewayClassNotAllowed" || p.Blocking || p.Retry != nil {
		t.Fatalf("problem %+v, want Degraded GatewayClassNotAllowed, not blocking, no retry", p)
	}
	for _, want := range []string{`spec.gatewayAPI.gateway.gatewayClassName names the GatewayClass "public-lb"`, "allowed: [envoy]", "ALLOWED_GATEWAY_CLASSES", "the Gateway API Gateway llm/gw is not created",
		`the ClusterIssuer "letsencrypt"`, "allowed: none (ALLOWED_CLUSTER_ISSUERS empty)", "spec.config.env"} {
		if !strings.Contains(p.Message, want) {
			t.Errorf("message %q lacks %q", p.Message, want)
		}
	}
}

func TestAnnotatedClusterIssuers(t *testing.T) {
	tests := []struct {
		name        string
		annotations map[string]string
		want        map[string]string
	}{
		{name: "none", annotations: map[string]string{"nginx.ingress.kubernetes.io/backend-protocol": "HTTPS"}, want: map[string]string{}},
		{name: "cluster-issuer", annotations: map[string]string{CertManagerClusterIssuerAnnotation: "le"}, want: map[string]string{CertManagerClusterIssuerAnnotation: "le"}},
		{name: "a namespaced issuer", annotations: map[string]string{CertManagerIssuerAnnotation: "mine"}, want: map[string]string{}},
		{name: "issuer with kind ClusterIssuer", annotations: map[string]string{CertManagerIssuerAnnotation: "le", CertManagerIssuerKindAnnotation: "ClusterIssuer"},
			want: map[string]string{CertManagerIssuerAnnotation: "le"}},
		{name: "issuer with kind ClusterIssuer of cert-manager's group", annotations: map[string]string{CertManagerIssuerAnnotation: "le", CertManagerIssuerKindAnnotation: "ClusterIssuer", CertManagerIssuerGroupAnnotation: "cert-manager.io"},
			want: map[string]string{CertManagerIssuerAnnotation: "le"}},
		{name: "an external issuer's kind", annotations: map[string]string{CertManagerIssuerAnnotation: "x", CertManagerIssuerKindAnnotation: "ClusterIssuer", CertManagerIssuerGroupAnnotation: "awspca.cert-manager.io"},
			want: map[string]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := AnnotatedClusterIssuers(tt.annotations); !maps.Equal(got, tt.want) {
				t.Errorf("AnnotatedClusterIssuers = %v, want %v", got, tt.want)
			}
		})
	}
}
