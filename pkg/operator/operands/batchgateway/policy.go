package batchgateway

import (
	"context"

	batchv1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/batch/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// What an LLMBatchGateway names that the administrator's allowlists (engine.Policy) govern: the
// ClusterIssuer of the apiserver's Certificate (spec.tls.certManager with issuerKind
// ClusterIssuer, the default). A namespaced Issuer is the namespace's own and is always
// allowed. The render leaves out the Certificate a list refuses and the step below reports it;
// both ask notAllowed.
func notAllowed(cr *batchv1alpha1.LLMBatchGateway, policy engine.Policy) []engine.NotAllowed {
	if !certManagerEnabled(&cr.Spec) {
		return nil
	}
	cm := cr.Spec.TLS.CertManager
	if cm.IssuerKind != "ClusterIssuer" || policy.ClusterIssuers.Allows(cm.IssuerName) {
		return nil
	}
	return []engine.NotAllowed{{Field: "spec.tls.certManager.issuerName", Kind: "ClusterIssuer", Name: cm.IssuerName, List: policy.ClusterIssuers,
		Skipped: "the Certificate " + cr.Namespace + "/" + NamesFor(cr.Name).APIServer + " is not created (nor kept), so the apiserver's TLS Secret is not issued; an Issuer of the namespace (issuerKind: Issuer) is always allowed"}}
}

// checkPolicy reports what the spec names that the administrator's allowlists refuse: Degraded
// (ClusterIssuerNotAllowed) with a Warning event, not blocking.
func checkPolicy(_ context.Context, run *syncRun, _ []string) error {
	if problem := engine.NotAllowedProblem(notAllowed(run.CR, run.State.policy)); problem != nil {
		return problem
	}
	return nil
}
