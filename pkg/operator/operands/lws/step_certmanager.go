package lws

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// certificateSecrets are the Secrets cert-manager issues for the operand: the webhook server's
// and the metrics server's serving certificates.
var certificateSecrets = []string{webhookSecretName, metricsSecretName}

// applyCertManagerObjects applies the Issuer or the Certificates, once cert-manager is installed.
// Without cert-manager the operand cannot serve its webhooks, so the later steps wait.
func applyCertManagerObjects(ctx context.Context, run *syncRun, assets []string) error {
	if err := run.optional.Installed(engine.IssuerGVR, engine.CertificateGVR); err != nil {
		return engine.MissingDependency(engine.ReasonCertManagerMissing,
			"cert-manager is not installed (%v): install cert-manager; the LeaderWorkerSet controller needs it for its webhook and metrics certificates, and the operator continues by itself once it is installed", err)
	}
	return engine.ApplyAssets(ctx, run, assets)
}

// waitForCertificateSecrets holds the later steps until cert-manager has issued both Secrets:
// a Deployment that mounts a missing Secret would not start, and webhooks without a CA bundle
// would reject every LeaderWorkerSet.
func waitForCertificateSecrets(_ context.Context, run *syncRun, _ []string) error {
	issued, missing, err := engine.IssuedTLSSecrets(run.clients.Caches, run.namespace, certificateSecrets...)
	if err != nil {
		return err
	}
	if len(missing) > 0 {
		return engine.WaitingFor(engine.ReasonWaitingForCertificates,
			"waiting for cert-manager to issue the Secrets %v in namespace %s; check the Certificates there (kubectl get certificates -n %s) if this lasts",
			missing, run.namespace, run.namespace)
	}
	run.mountedSecrets = append(run.mountedSecrets, issued...)
	return nil
}

// removeCertificatesThenSecrets deletes the Certificates, then the Secrets they issued.
// cert-manager leaves Secrets behind when a Certificate is deleted, and re-issues a deleted
// Secret while its Certificate exists, so the order matters. The Certificates label the Secrets
// (secretTemplate), so only Secrets the operator asked for are deleted.
func removeCertificatesThenSecrets(ctx context.Context, run *syncRun, assets []string) error {
	if err := engine.RemoveAssets(ctx, run, assets); err != nil {
		return err
	}
	for _, name := range certificateSecrets {
		if err := run.applier.DeleteOwned(ctx, schema.GroupVersionResource{Version: "v1", Resource: "secrets"}, run.namespace, name, engine.ManagedByOperator, engine.FromAPI); err != nil {
			return err
		}
	}
	return nil
}
