package inferencegateway

import (
	"slices"
	"strings"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/llm-infra/llm-infra-operator/bindata"
	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// policyOf is a Policy with the given lists set (nil: that variable unset).
func policyOf(classes, issuers *string) engine.Policy {
	return engine.PolicyFromEnv(func(env string) (string, bool) {
		switch {
		case env == engine.AllowedGatewayClassesEnv && classes != nil:
			return *classes, true
		case env == engine.AllowedClusterIssuersEnv && issuers != nil:
			return *issuers, true
		}
		return "", false
	})
}

func str(s string) *string { return &s }

// TestPolicyOfGateway: what a Gateway names that the administrator's allowlists refuse is left
// out of the render (the Gateway API Gateway, cert-manager's issuer annotations) and reported
// by field, one refusal each; what they allow renders as before (issue 33).
func TestPolicyOfGateway(t *testing.T) {
	gatewayAPI := func(class, issuer string) *v1alpha1.RoutingSpec {
		g := &v1alpha1.RoutingGatewaySpec{GatewayClassName: class}
		if issuer != "" {
			g.TLS = &v1alpha1.RoutingTLSSpec{Enabled: true, Issuer: issuer}
		}
		return &v1alpha1.RoutingSpec{Enabled: true, Gateway: g}
	}
	ingress := func(issuer string, annotations map[string]string) *v1alpha1.IngressSpec {
		ing := &v1alpha1.IngressSpec{Enabled: true, Host: "api.example.com", Annotations: annotations}
		if issuer != "" {
			ing.TLS = &v1alpha1.IngressTLSSpec{Enabled: true, Issuer: issuer}
		}
		return ing
	}
	tests := []struct {
		name   string
		spec   v1alpha1.GatewaySpec
		policy engine.Policy
		// refused are the fields reported; gateway: the Gateway API Gateway is wanted;
		// gatewayIssuer, ingressIssuers: the issuer annotations left on them.
		refused        []string
		gateway        bool
		gatewayIssuer  string
		ingressIssuers map[string]string
	}{
		{name: "no lists: everything, as upstream", spec: v1alpha1.GatewaySpec{GatewayAPI: gatewayAPI("public", "le"), Ingress: ingress("le", nil)},
			gateway: true, gatewayIssuer: "le", ingressIssuers: map[string]string{engine.CertManagerClusterIssuerAnnotation: "le"}},
		{name: "allowed class and issuer", spec: v1alpha1.GatewaySpec{GatewayAPI: gatewayAPI("public", "le")}, policy: policyOf(str("public"), str("le")),
			gateway: true, gatewayIssuer: "le"},
		{name: "the default class, not listed", spec: v1alpha1.GatewaySpec{GatewayAPI: gatewayAPI("", "")}, policy: policyOf(str("public"), nil),
			refused: []string{"spec.gatewayAPI.gateway.gatewayClassName"}},
		{name: "a refused class: no Gateway, so no issuer either", spec: v1alpha1.GatewaySpec{GatewayAPI: gatewayAPI("public", "le")}, policy: policyOf(str("internal"), str("")),
			refused: []string{"spec.gatewayAPI.gateway.gatewayClassName"}},
		{name: "a refused listener issuer: the Gateway without the annotation", spec: v1alpha1.GatewaySpec{GatewayAPI: gatewayAPI("public", "le")}, policy: policyOf(nil, str("internal-ca")),
			refused: []string{"spec.gatewayAPI.gateway.tls.issuer"}, gateway: true},
		{name: "parentRefs: no Gateway is created, no class to check", policy: policyOf(str(""), nil),
			spec: v1alpha1.GatewaySpec{GatewayAPI: &v1alpha1.RoutingSpec{Enabled: true, Gateway: &v1alpha1.RoutingGatewaySpec{ParentRefs: []v1alpha1.ParentReference{{Name: "shared"}}}}}},
		{name: "a refused Ingress tls.issuer", spec: v1alpha1.GatewaySpec{Ingress: ingress("le", nil)}, policy: policyOf(nil, str("internal-ca")),
			refused: []string{"spec.ingress.tls.issuer"}, ingressIssuers: map[string]string{}},
		{name: "a refused issuer in the Ingress's annotations, both forms", policy: policyOf(nil, str("internal-ca")),
			spec: v1alpha1.GatewaySpec{Ingress: ingress("", map[string]string{engine.CertManagerClusterIssuerAnnotation: "le",
				engine.CertManagerIssuerAnnotation: "other", engine.CertManagerIssuerKindAnnotation: "ClusterIssuer"})},
			refused: []string{"spec.ingress.annotations[cert-manager.io/cluster-issuer]", "spec.ingress.annotations[cert-manager.io/issuer]"}, ingressIssuers: map[string]string{}},
		{name: "a namespaced Issuer in the annotations stays", policy: policyOf(nil, str("")),
			spec:           v1alpha1.GatewaySpec{Ingress: ingress("", map[string]string{engine.CertManagerIssuerAnnotation: "mine"})},
			ingressIssuers: map[string]string{engine.CertManagerIssuerAnnotation: "mine"}},
		{name: "an allowed Ingress issuer", spec: v1alpha1.GatewaySpec{Ingress: ingress("le", nil)}, policy: policyOf(nil, str("le")),
			ingressIssuers: map[string]string{engine.CertManagerClusterIssuerAnnotation: "le"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gw := testGateway(tt.spec)
			var fields []string
			for _, n := range notAllowed(gw, tt.policy) {
				fields = append(fields, n.Field)
				if !strings.Contains(n.Message(), n.List.Env) {
					t.Errorf("message %q does not say where the list is set", n.Message())
				}
			}
			if !slices.Equal(fields, tt.refused) {
				t.Errorf("refused %v, want %v", fields, tt.refused)
			}
			objs, err := renderAll(renderInput{cr: gw, mcpServers: mcpServerURLs(gw, nil), policy: tt.policy})
			if err != nil {
				t.Fatal(err)
			}
			byAsset := byAsset(objs)
			g := byAsset[bindata.InferenceGatewayGatewayAPIGateway]
			if g.wanted != tt.gateway {
				t.Errorf("Gateway API Gateway wanted %v, want %v", g.wanted, tt.gateway)
			}
			if got := g.obj.(*unstructured.Unstructured).GetAnnotations()[engine.CertManagerClusterIssuerAnnotation]; g.wanted && got != tt.gatewayIssuer {
				t.Errorf("Gateway API Gateway's issuer %q, want %q", got, tt.gatewayIssuer)
			}
			if tt.ingressIssuers != nil {
				ing := byAsset[bindata.InferenceGatewayIngress].obj.(*networkingv1.Ingress)
				got := map[string]string{}
				for _, key := range []string{engine.CertManagerClusterIssuerAnnotation, engine.CertManagerIssuerAnnotation} {
					if v, ok := ing.Annotations[key]; ok {
						got[key] = v
					}
				}
				if len(got) != len(tt.ingressIssuers) {
					t.Errorf("Ingress issuer annotations %v, want %v", got, tt.ingressIssuers)
				}
				for k, v := range tt.ingressIssuers {
					if got[k] != v {
						t.Errorf("Ingress annotation %s = %q, want %q", k, got[k], v)
					}
				}
			}
		})
	}
}
