package lws

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// certificateSecrets are the Secrets cert-manager issues for the operand: the webhook server's
// and the metrics server's serving certificates.
var certificateSecrets = []string{webhookSecretName, metricsSecretName}

// applyCertManagerObjects applies the Issuer or the Certificates, once cert-manager is installed.
// Without cert-manager the operand cannot serve its webhooks, so the later steps wait.
func applyCertManagerObjects(ctx context.Context, run *syncRun) error {
	if err := run.optional.installed(issuerGVR, certificateGVR); err != nil {
		return missingDependency("CertManagerMissing",
			"cert-manager is not installed (%v): install cert-manager; the LeaderWorkerSet controller needs it for its webhook and metrics certificates, and the operator continues by itself once it is installed", err)
	}
	return applyAssets(ctx, run, run.step.assets)
}

// waitForCertificateSecrets holds the later steps until cert-manager has issued both Secrets:
// a Deployment that mounts a missing Secret would not start, and webhooks without a CA bundle
// would reject every LeaderWorkerSet.
func waitForCertificateSecrets(ctx context.Context, run *syncRun) error {
	var missing []string
	for _, name := range certificateSecrets {
		secret, err := run.secrets.Secrets(run.namespace).Get(name)
		if apierrors.IsNotFound(err) {
			missing = append(missing, name)
			continue
		}
		if err != nil {
			return fmt.Errorf("get Secret %s: %w", name, err)
		}
		if len(secret.Data[corev1.TLSCertKey]) == 0 || len(secret.Data[corev1.TLSPrivateKeyKey]) == 0 {
			missing = append(missing, name)
			continue
		}
		run.mountedSecrets = append(run.mountedSecrets, secret)
	}
	if len(missing) > 0 {
		return waitingFor("WaitingForCertificates",
			"waiting for cert-manager to issue the Secrets %v in namespace %s; check the Certificates there (kubectl get certificates -n %s) if this lasts",
			missing, run.namespace, run.namespace)
	}
	return nil
}

// removeCertificatesThenSecrets deletes the Certificates, then the Secrets they issued.
// cert-manager leaves Secrets behind when a Certificate is deleted, and re-issues a deleted
// Secret while its Certificate exists, so the order matters. The Certificates label the Secrets
// (secretTemplate), so only Secrets the operator asked for are deleted.
func removeCertificatesThenSecrets(ctx context.Context, run *syncRun) error {
	if err := removeAssets(ctx, run, run.step.assets); err != nil {
		return err
	}
	for _, name := range certificateSecrets {
		if err := run.deleteOwned(ctx, schema.GroupVersionResource{Version: "v1", Resource: "secrets"}, run.namespace, name); err != nil {
			return err
		}
	}
	return nil
}
