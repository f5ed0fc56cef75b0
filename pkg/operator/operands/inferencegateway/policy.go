package inferencegateway

import (
	"cmp"
	"context"
	"maps"
	"slices"

	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// What a Gateway names that the administrator's allowlists (engine.Policy) govern: the
// GatewayClass of the Gateway API Gateway the operator creates, and the ClusterIssuers that
// cert-manager's annotations on that Gateway and on the Ingress name. The render leaves out
// what a list refuses (the Gateway API Gateway, an issuer annotation) and the step below reports
// it; both ask notAllowed, so they cannot disagree.

// defaultGatewayClass is the class of the created Gateway API Gateway when the spec names none
// (upstream's default).
const defaultGatewayClass = "envoy"

// gatewayClassOf is the class of the Gateway API Gateway the operator creates.
func gatewayClassOf(spec *v1alpha1.GatewaySpec) string {
	if g := spec.GatewayAPI; g != nil && g.Gateway != nil {
		return cmp.Or(g.Gateway.GatewayClassName, defaultGatewayClass)
	}
	return defaultGatewayClass
}

// listenerTLSOf is the TLS of the created Gateway API Gateway's listener, nil without.
func listenerTLSOf(spec *v1alpha1.GatewaySpec) *v1alpha1.RoutingTLSSpec {
	if g := spec.GatewayAPI; g != nil && g.Gateway != nil && g.Gateway.TLS != nil && g.Gateway.TLS.Enabled {
		return g.Gateway.TLS
	}
	return nil
}

// ingressAnnotationsOf are the Ingress's annotations before the policy: the spec's, with
// spec.ingress.tls.issuer as cert-manager's cluster-issuer annotation.
func ingressAnnotationsOf(spec *v1alpha1.GatewaySpec) map[string]string {
	annotations := map[string]string{}
	maps.Copy(annotations, spec.Ingress.Annotations)
	if tls := spec.Ingress.TLS; tls != nil && tls.Enabled && tls.Issuer != "" {
		annotations[engine.CertManagerClusterIssuerAnnotation] = tls.Issuer
	}
	return annotations
}

// notAllowed lists what the spec names that the policy refuses, in the order of the objects.
func notAllowed(gw *v1alpha1.Gateway, policy engine.Policy) []engine.NotAllowed {
	spec := &gw.Spec
	names := NamesFor(gw)
	var out []engine.NotAllowed
	if ingressEnabled(spec) {
		annotations := ingressAnnotationsOf(spec)
		for _, key := range slices.Sorted(maps.Keys(engine.AnnotatedClusterIssuers(annotations))) {
			issuer := annotations[key]
			if policy.ClusterIssuers.Allows(issuer) {
				continue
			}
			field := "spec.ingress.annotations[" + key + "]"
			if tls := spec.Ingress.TLS; key == engine.CertManagerClusterIssuerAnnotation && tls != nil && tls.Enabled && tls.Issuer == issuer {
				field = "spec.ingress.tls.issuer"
			}
			out = append(out, engine.NotAllowed{Field: field, Kind: "ClusterIssuer", Name: issuer, List: policy.ClusterIssuers,
				Skipped: "the Ingress " + gw.Namespace + "/" + names.Gateway + " gets no " + key + " annotation, so cert-manager issues nothing for it"})
		}
	}
	if gatewayAPIEnabled(spec) && len(parentRefsOf(spec.GatewayAPI)) == 0 {
		class := gatewayClassOf(spec)
		if !policy.GatewayClasses.Allows(class) {
			return append(out, engine.NotAllowed{Field: "spec.gatewayAPI.gateway.gatewayClassName", Kind: "GatewayClass", Name: class, List: policy.GatewayClasses,
				Skipped: "the Gateway API Gateway " + gw.Namespace + "/" + names.Gateway + " is not created (nor kept)"})
		}
		if tls := listenerTLSOf(spec); tls != nil && tls.Issuer != "" && !policy.ClusterIssuers.Allows(tls.Issuer) {
			out = append(out, engine.NotAllowed{Field: "spec.gatewayAPI.gateway.tls.issuer", Kind: "ClusterIssuer", Name: tls.Issuer, List: policy.ClusterIssuers,
				Skipped: "the Gateway API Gateway " + gw.Namespace + "/" + names.Gateway + " gets no " + engine.CertManagerClusterIssuerAnnotation + " annotation, so cert-manager issues nothing for it"})
		}
	}
	return out
}

// checkPolicy reports what the spec names that the administrator's allowlists refuse: Degraded
// (GatewayClassNotAllowed, ClusterIssuerNotAllowed) with a Warning event, not blocking; the
// render leaves those parts out.
func checkPolicy(_ context.Context, run *gatewayRun, _ []string) error {
	if problem := engine.NotAllowedProblem(notAllowed(run.CR, run.State.policy)); problem != nil {
		return problem
	}
	return nil
}
