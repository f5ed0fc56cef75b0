package batchgateway

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	batchv1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/batch/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// ReferenceGrantGVR is Gateway API's ReferenceGrant, which allows a cross-namespace
// spec.secretRef (as upstream).
var ReferenceGrantGVR = engine.ReferenceGrantGVR

// copiedFromAnnotation records, on the copy of a cross-namespace credentials Secret, where it
// was copied from (upstream's annotation).
const copiedFromAnnotation = "batch.llm-d.ai/copied-from"

// Keys of the credentials Secret the operand reads (upstream's names, files under
// /etc/.secrets).
const (
	keyRedisURL          = "redis-url"
	keyPostgreSQLURL     = "postgresql-url"
	keyS3SecretAccessKey = "s3-secret-access-key"
)

// requiredKeys are the credentials Secret's keys the spec's backends need.
func requiredKeys(spec *batchv1alpha1.LLMBatchGatewaySpec) []string {
	// The exchange is always Redis, whatever the metadata database.
	keys := []string{keyRedisURL}
	if spec.DBBackend == "" || spec.DBBackend == batchv1alpha1.DBBackendPostgreSQL {
		keys = append(keys, keyPostgreSQLURL)
	}
	if spec.FileStorage != nil && spec.FileStorage.S3 != nil {
		keys = append(keys, keyS3SecretAccessKey)
	}
	return keys
}

// credentialsSource is the Secret spec.secretRef names.
func credentialsSource(cr *batchv1alpha1.LLMBatchGateway) types.NamespacedName {
	ns := cr.Spec.SecretRef.Namespace
	if ns == "" {
		ns = cr.Namespace
	}
	return types.NamespacedName{Namespace: ns, Name: cr.Spec.SecretRef.Name}
}

// referencedSecrets are every Secret the CR's pods use: the credentials and TLS Secrets.
// They are watched one by one.
func referencedSecrets(cr *batchv1alpha1.LLMBatchGateway, names Names) []types.NamespacedName {
	refs := []types.NamespacedName{credentialsSource(cr)}
	for _, component := range []string{componentAPIServer, componentAsyncProcessor} {
		refs = append(refs, tlsSecretsFor(cr, names, component)...)
	}
	return refs
}

// tlsSecretsFor are the TLS Secrets a component mounts.
func tlsSecretsFor(cr *batchv1alpha1.LLMBatchGateway, names Names, component string) []types.NamespacedName {
	spec := &cr.Spec
	var name string
	switch component {
	case componentAPIServer:
		if spec.TLS != nil && spec.TLS.Enabled {
			name = spec.TLS.SecretName
			if spec.TLS.CertManager != nil {
				name = names.APIServerTLS
			}
		}
	case componentAsyncProcessor:
		if asyncEnabled(spec) && spec.Processor.AsyncConfig.TLS != nil {
			name = spec.Processor.AsyncConfig.TLS.SecretName
		}
	}
	if name == "" {
		return nil
	}
	return []types.NamespacedName{{Namespace: cr.Namespace, Name: name}}
}

// watchedSecret reads a referenced Secret from its watch.
func watchedSecret(run *syncRun, ref types.NamespacedName) (*corev1.Secret, error) {
	obj, err := run.References(engine.Secrets).Get(ref)
	if err != nil {
		return nil, err
	}
	secret, ok := obj.(*corev1.Secret)
	if !ok {
		return nil, fmt.Errorf("unexpected %T in the watch of Secret %s", obj, ref)
	}
	return secret, nil
}

// backendCA is the CA a client needs to verify the apiserver's certificate, from its TLS Secret
// (watched): ca.crt when it has one (cert-manager writes it), else tls.crt, the served chain (a
// self-signed certificate, or a chain that ends in its root). "" without TLS or while the
// Secret does not exist. Certificates are public; only their PEM blocks are kept
// (engine.CertificatesOnly), so nothing else a Secret holds reaches the ConfigMap.
func backendCA(run *syncRun) string {
	for _, ref := range tlsSecretsFor(run.CR, run.State.names, componentAPIServer) {
		s, err := watchedSecret(run, ref)
		if err != nil {
			return ""
		}
		if ca := s.Data[backendCAKey]; len(ca) > 0 {
			return engine.CertificatesOnly(ca)
		}
		return engine.CertificatesOnly(s.Data[corev1.TLSCertKey])
	}
	return ""
}

// applyCredentials resolves spec.secretRef into the Secret the pods mount. A Secret in the
// CR's namespace is mounted as it is. One in another namespace needs a ReferenceGrant there
// (as upstream), and is copied into the CR's namespace as <cr>-credentials; when no grant
// allows it any more the copy is deleted and the CR's Deployments scaled to 0
// (withdrawCredentials). The copy keeps its source: a changed secretRef is refused
// (SecretRefImmutable). The keys the backends need are checked; values never leave the
// operator except in the copy.
func applyCredentials(ctx context.Context, run *syncRun, _ []string) error {
	cr := run.CR
	source := credentialsSource(cr)
	run.References(engine.Secrets).Set(ctx, run.Key, referencedSecrets(cr, run.State.names)...)

	// The Secret the pods mount (credentialsSecretFor, in the run's state) is the source or
	// its copy.
	crossNamespace := source.Namespace != cr.Namespace
	copyObj := &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Name: run.State.names.Credentials, Namespace: cr.Namespace},
	}
	if !crossNamespace {
		// A copy left from an earlier cross-namespace reference is not mounted any more.
		if err := run.Applier.DeleteObject(ctx, copyObj, engine.ControlledBy(cr), engine.FromCache); err != nil {
			return err
		}
	} else {
		if err := checkCopySource(run, source); err != nil {
			return err
		}
		if err := checkReferenceGrant(run, source); err != nil {
			var problem *engine.StepError
			if errors.As(err, &problem) && problem.Reason == batchv1alpha1.ReasonReferenceNotPermitted {
				return withdrawCredentials(ctx, run, copyObj, problem)
			}
			return err
		}
	}

	secret, err := watchedSecret(run, source)
	if apierrors.IsNotFound(err) {
		run.State.credentialsMissing = true
		return readyProblem(engine.ReasonSecretMissing, false,
			"the Secret %s named by spec.secretRef does not exist: create it with the keys %v; the pods start once it exists", source, requiredKeys(&cr.Spec))
	}
	if err != nil {
		return err
	}
	run.State.credentials = secret
	if crossNamespace {
		copyObj.Type = secret.Type
		copyObj.Data = secret.Data
		copyObj.Annotations = map[string]string{copiedFromAnnotation: source.String()}
		run.Stamp.Stamp(copyObj)
		if err := run.Applier.Apply(ctx, copyObj); err != nil {
			return err
		}
	}
	if missing := missingKeys(secret, requiredKeys(&cr.Spec)); len(missing) > 0 {
		return readyProblem(engine.ReasonSecretKeysMissing, false,
			"the Secret %s named by spec.secretRef lacks the keys %v, which the configured backends need (dbBackend %q, file storage): add them", source, missing, dbBackendOf(&cr.Spec))
	}
	return nil
}

// reasonDeploymentsScaledToZero is the reason of the Warning event that names the Deployments
// withdrawCredentials scaled to 0.
const reasonDeploymentsScaledToZero = "DeploymentsScaledToZero"

// withdrawCredentials ends every use of credentials the CR may no longer read, once no
// ReferenceGrant allows its cross-namespace spec.secretRef (the grant is gone, or was never
// there): the copy of the Secret is deleted, and every Deployment of the CR is scaled to 0,
// since its pods keep the credentials they read until they restart (issue 33, F5: deleting the
// grant withdraws the consent, and the pods running with it must stop too). Only Deployments
// the CR controls are scaled, and only their replicas change; the Warning event names them and
// the grant to create. The problem blocks the later steps, so nothing brings the pods back
// until a grant allows the reference again; then the Deployments step writes the rendered
// replicas back (the scale changed the generation status.generations recorded).
func withdrawCredentials(ctx context.Context, run *syncRun, copyObj *corev1.Secret, problem *engine.StepError) error {
	cr := run.CR
	if err := run.Applier.DeleteObject(ctx, copyObj, engine.ControlledBy(cr), engine.FromCache); err != nil {
		return err
	}
	var scaled []string
	var errs []error
	for _, c := range components {
		name := c.deployment(run.State.names)
		d, err := run.Applier.ScaleToZero(ctx, cr.Namespace, name, engine.ControlledBy(cr), engine.FromCache)
		if err != nil {
			errs = append(errs, err)
		}
		if d != nil {
			run.State.scaledToZero[name] = d
			scaled = append(scaled, cr.Namespace+"/"+name)
		}
	}
	if len(scaled) > 0 {
		run.Recorder.Warningf(reasonDeploymentsScaledToZero,
			"Scaled the Deployments %s to 0 replicas, so that no pod keeps credentials this LLMBatchGateway may no longer read: %s",
			strings.Join(scaled, ", "), problem.Message)
	}
	withdrawn := *problem
	if err := errors.Join(errs...); err != nil {
		withdrawn.Message += fmt.Sprintf("; scaling its Deployments to 0 failed and is retried: %v", err)
		withdrawn.Retry = err
	} else {
		withdrawn.Message += "; its Deployments are scaled to 0 replicas until a ReferenceGrant allows the reference again"
	}
	return &withdrawn
}

// checkCopySource refuses a secretRef that changed after its Secret was copied, as upstream.
func checkCopySource(run *syncRun, source types.NamespacedName) error {
	existing, err := run.Caches().GetMeta(engine.Secrets, run.CR.Namespace, run.State.names.Credentials)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if from := existing.GetAnnotations()[copiedFromAnnotation]; from != "" && from != source.String() {
		return readyProblem(batchv1alpha1.ReasonSecretRefImmutable, true,
			"spec.secretRef changed to %s after the Secret %s was copied to %s/%s: the reference cannot change; set it back, or delete the copy %s/%s to copy the new Secret",
			source, from, run.CR.Namespace, run.State.names.Credentials, run.CR.Namespace, run.State.names.Credentials)
	}
	return nil
}

// checkReferenceGrant looks for a ReferenceGrant in the Secret's namespace that lets
// LLMBatchGateways of the CR's namespace reference it (engine.ReferenceGrants).
func checkReferenceGrant(run *syncRun, source types.NamespacedName) error {
	ref := engine.Reference{From: groupKind, FromNamespace: run.CR.Namespace, To: schema.GroupKind{Kind: "Secret"}, ToNamespace: source.Namespace, Name: source.Name}
	grants, err := run.Optional().ReferenceGrants(source.Namespace)
	var missing *engine.MissingCRDsError
	switch {
	case errors.As(err, &missing):
		return readyProblem(batchv1alpha1.ReasonReferenceNotPermitted, true,
			"spec.secretRef names the Secret %s in another namespace, which needs a ReferenceGrant there, but Gateway API's ReferenceGrant CRD (%s) is not installed", source, engine.CRDName(ReferenceGrantGVR))
	case err != nil:
		return err
	}
	if grants.Allow(ref) {
		return nil
	}
	return readyProblem(batchv1alpha1.ReasonReferenceNotPermitted, true,
		"spec.secretRef names the Secret %s in another namespace, and no ReferenceGrant in %s allows it: create %s", source, source.Namespace, ref.GrantToCreate())
}

// missingKeys lists the keys the Secret lacks (or holds empty).
func missingKeys(secret *corev1.Secret, keys []string) []string {
	var missing []string
	for _, k := range keys {
		if len(secret.Data[k]) == 0 && secret.StringData[k] == "" {
			missing = append(missing, k)
		}
	}
	sort.Strings(missing)
	return missing
}

func dbBackendOf(spec *batchv1alpha1.LLMBatchGatewaySpec) string {
	if spec.DBBackend == "" {
		return batchv1alpha1.DBBackendPostgreSQL
	}
	return spec.DBBackend
}
