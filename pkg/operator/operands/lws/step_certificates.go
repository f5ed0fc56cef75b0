package lws

import (
	"context"
	"fmt"
	"slices"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/llm-infra/llm-infra-operator/bindata"

	lwsoperatorv1 "github.com/llm-infra/llm-infra-operator/pkg/apis/operator/v1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// OpenShift's service CA contract (the service-ca operator): a Service annotated with
// servingCertSecretAnnotation gets a TLS Secret of that name signed by the service CA; an
// admission webhook configuration or CRD annotated with injectCABundleAnnotation gets the service
// CA in its caBundle. OpenShift publishes the service CA in every namespace as the ConfigMap
// openshift-service-ca.crt (key service-ca.crt, filled by the same injection): its presence with
// a CA in the operand namespace is how the operator knows the contract is honoured here.
const (
	servingCertSecretAnnotation = "service.beta.openshift.io/serving-cert-secret-name"
	injectCABundleAnnotation    = "service.beta.openshift.io/inject-cabundle"
	serviceCAConfigMap          = "openshift-service-ca.crt"
	serviceCAKey                = "service-ca.crt"

	// certManagerInjectAnnotation asks cert-manager's cainjector to fill the caBundle.
	certManagerInjectAnnotation = "cert-manager.io/inject-ca-from"
	// removeAnnotation suffixes an annotation key to have resourceapply remove it.
	removeAnnotation = "-"

	// The operator's own CA (source Operator): its signing Secret and its bundle ConfigMap.
	operatorCASecretName = "lws-operator-ca"
	operatorCABundleName = "lws-operator-ca-bundle"
)

// servingCertificates are the operand's serving certificates: the Secret the Deployment mounts
// and the Service whose DNS names it carries. Every source writes the same Secrets, so the
// Deployment is the same in every mode except for the hash of the Secrets' data.
var servingCertificates = []struct{ secret, service string }{
	{webhookSecretName, webhookServiceName},
	{metricsSecretName, metricsServiceName},
}

var (
	secretsGVR    = engine.Secrets.WithVersion("v1")
	configMapsGVR = engine.ConfigMaps.WithVersion("v1")
)

// certificateSecrets are the names of the serving certificates' Secrets.
var certificateSecrets = []string{webhookSecretName, metricsSecretName}

// certificates is what the certificate steps found and decided in one sync.
type certificates struct {
	// wanted is the source the spec asks for, Automatic resolved.
	wanted lwsoperatorv1.CertificateSource
	// serving is the source the running pods serve with, from status; wanted when unknown.
	serving lwsoperatorv1.CertificateSource
	// ca is the wanted source's CA bundle, once known: before it issues anything for the
	// service CA and the operator's CA, after it issued the webhook certificate for cert-manager
	// (a self-signed certificate is its own CA).
	ca []byte
	// trusted says every live caBundle already holds ca (only computed while switching).
	trusted bool
	// written are Secrets this sync wrote, newer than the caches.
	written map[string]*corev1.Secret
	// fromWanted says the mounted Secrets are the wanted source's.
	fromWanted bool
	// bundle is the caBundle the operator writes into the webhook configurations and the CRD;
	// nil leaves it to the source's injector (cert-manager's cainjector, the service CA).
	bundle []byte
}

// switching says the pods serve with another source than the one wanted.
func (c *certificates) switching() bool { return c.serving != c.wanted }

// mayIssue says whether the wanted source may write the serving Secrets now. While switching to
// a source whose CA is known in advance, not before every caBundle trusts that CA: the pods
// may pick up a new certificate as soon as its Secret changes.
func (c *certificates) mayIssue() bool { return !c.switching() || c.ca == nil || c.trusted }

// automaticSource is what source Automatic means on this cluster: cert-manager when its CRDs
// are established, else the service CA when OpenShift publishes it, else the operator's own.
func automaticSource(certManagerInstalled, serviceCAPresent bool) lwsoperatorv1.CertificateSource {
	switch {
	case certManagerInstalled:
		return lwsoperatorv1.CertificateSourceCertManager
	case serviceCAPresent:
		return lwsoperatorv1.CertificateSourceServiceCA
	default:
		return lwsoperatorv1.CertificateSourceOperator
	}
}

// servingSourceOf reads the source in use from the CR's ServingCertificates condition.
func servingSourceOf(cr *lwsoperatorv1.LeaderWorkerSetOperator) lwsoperatorv1.CertificateSource {
	for _, c := range cr.Status.Conditions {
		if c.Type != lwsoperatorv1.ConditionServingCertificates || c.Status != "True" {
			continue
		}
		switch s := lwsoperatorv1.CertificateSource(c.Reason); s {
		case lwsoperatorv1.CertificateSourceCertManager, lwsoperatorv1.CertificateSourceServiceCA, lwsoperatorv1.CertificateSourceOperator:
			return s
		}
	}
	return ""
}

// chooseCertificateSource resolves the wanted source and checks that it is there.
func chooseCertificateSource(_ context.Context, run *syncRun, _ []string) error {
	c := &run.certs
	serviceCA := run.serviceCA()
	certManager := run.optional.Installed(engine.IssuerGVR, engine.CertificateGVR)
	c.wanted = run.cr.Spec.Certificates.SourceOrDefault()
	if c.wanted == lwsoperatorv1.CertificateSourceAutomatic {
		c.wanted = automaticSource(certManager == nil, serviceCA != nil)
	}
	c.serving = servingSourceOf(run.cr)
	if c.serving == "" {
		c.serving = c.wanted
	}
	switch c.wanted {
	case lwsoperatorv1.CertificateSourceCertManager:
		if certManager != nil {
			return engine.MissingDependency(lwsoperatorv1.ReasonCertManagerMissing,
				"cert-manager is not installed (%v): install cert-manager, or set spec.certificates.source to Automatic or Operator; the LeaderWorkerSet controller needs certificates for its webhooks and metrics, and the operator continues by itself once cert-manager is installed", certManager)
		}
	case lwsoperatorv1.CertificateSourceServiceCA:
		if serviceCA == nil {
			return engine.MissingDependency(lwsoperatorv1.ReasonServiceCAMissing,
				"spec.certificates.source is ServiceCA but this cluster has no OpenShift service CA (no ConfigMap %s with %s in namespace %s): use Automatic, CertManager or Operator",
				serviceCAConfigMap, serviceCAKey, run.namespace)
		}
		c.ca = serviceCA
		c.trusted = run.liveBundlesTrust(serviceCA)
	}
	return nil
}

// serviceCA is the OpenShift service CA published in the operand namespace, or nil.
func (run *syncRun) serviceCA() []byte {
	obj, err := run.clients.Caches.Get(engine.ConfigMaps, run.namespace, serviceCAConfigMap)
	if err != nil {
		return nil
	}
	cm, ok := obj.(*corev1.ConfigMap)
	if !ok || cm.Data[serviceCAKey] == "" {
		return nil
	}
	return []byte(cm.Data[serviceCAKey])
}

// liveCABundles are the caBundles the API server uses now to call the operand: every webhook
// of both configurations and the CRD's conversion webhook, from the caches.
func (run *syncRun) liveCABundles() [][]byte {
	var bundles [][]byte
	if obj, err := run.clients.Caches.Get(engine.MutatingWebhookConfigurations, "", mutatingWebhookName); err == nil {
		if m, ok := obj.(*admissionregistrationv1.MutatingWebhookConfiguration); ok {
			for _, w := range m.Webhooks {
				bundles = append(bundles, w.ClientConfig.CABundle)
			}
		}
	}
	if obj, err := run.clients.Caches.Get(engine.ValidatingWebhookConfigurations, "", validatingWebhookName); err == nil {
		if v, ok := obj.(*admissionregistrationv1.ValidatingWebhookConfiguration); ok {
			for _, w := range v.Webhooks {
				bundles = append(bundles, w.ClientConfig.CABundle)
			}
		}
	}
	if cfg := conversionClientConfig(run.crd.Get()); cfg != nil {
		bundles = append(bundles, cfg.CABundle)
	}
	return bundles
}

// liveBundlesTrust says whether every live caBundle holds the CA.
func (run *syncRun) liveBundlesTrust(ca []byte) bool {
	bundles := run.liveCABundles()
	if len(bundles) == 0 {
		return false
	}
	for _, b := range bundles {
		if !BundleTrusts(b, ca) {
			return false
		}
	}
	return true
}

// applyServices applies the Services, annotated for the service CA when it is the source that
// may issue now. The annotation is removed otherwise, so the service CA stops writing the
// Secrets as soon as another source is wanted.
func applyServices(ctx context.Context, run *syncRun, assets []string) error {
	issueWithServiceCA := run.certs.wanted == lwsoperatorv1.CertificateSourceServiceCA && run.certs.mayIssue()
	if issueWithServiceCA && run.certs.switching() {
		if err := deleteSecretsNotFrom(ctx, run, run.certs.ca); err != nil {
			return err
		}
	}
	var errs []error
	for _, asset := range assets {
		svc, err := engine.RenderTyped[corev1.Service](run.render, asset)
		if err != nil {
			return err
		}
		for _, sc := range servingCertificates {
			if sc.service != svc.Name {
				continue
			}
			if svc.Annotations == nil {
				svc.Annotations = map[string]string{}
			}
			if issueWithServiceCA {
				svc.Annotations[servingCertSecretAnnotation] = sc.secret
			} else {
				svc.Annotations[servingCertSecretAnnotation+removeAnnotation] = ""
			}
		}
		if err := run.applier.Apply(ctx, svc); err != nil {
			errs = append(errs, err)
		}
	}
	return engine.MergeErrors(errs)
}

// applyIssuer applies cert-manager's Issuer when cert-manager is the source, and deletes the
// operator's Issuer once nothing served uses it any more. The Certificates are asked for only
// once cert-manager has marked the Issuer Ready: an Issuer made in the same moment as its
// Certificates has cert-manager's key manager reconcile each Certificate twice at once (for the
// Certificate and for the Issuer), which can leave a request signed by a private key it then
// deletes, and the Certificate is not issued (seen in CI; cert-manager/cert-manager#6331 and
// #9097).
func applyIssuer(ctx context.Context, run *syncRun, assets []string) error {
	c := &run.certs
	if c.wanted == lwsoperatorv1.CertificateSourceCertManager {
		if err := engine.ApplyAssets(ctx, run, assets); err != nil {
			return err
		}
		return waitForIssuerReady(ctx, run, assets)
	}
	if c.serving == lwsoperatorv1.CertificateSourceCertManager {
		return nil
	}
	return removeCertManagerObjects(ctx, run, assets)
}

// waitForIssuerReady holds the later steps until the Issuer says Ready. It reads through the
// caches: the read that misses them (the Issuer just made) asks the API once; cert-manager's
// status update that follows triggers the next sync.
func waitForIssuerReady(ctx context.Context, run *syncRun, assets []string) error {
	for _, asset := range assets {
		want, err := run.render.Object(asset)
		if err != nil {
			return err
		}
		issuer, err := run.clients.DynamicClient().Resource(engine.IssuerGVR).Namespace(want.GetNamespace()).Get(ctx, want.GetName(), metav1.GetOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("get Issuer %s/%s: %w", want.GetNamespace(), want.GetName(), err)
		}
		if err == nil && issuerReady(issuer) {
			continue
		}
		return engine.WaitingFor(lwsoperatorv1.ReasonWaitingForCertificates,
			"waiting for cert-manager to mark the Issuer %s/%s Ready before asking it for the serving certificates", want.GetNamespace(), want.GetName())
	}
	return nil
}

// issuerReady says whether cert-manager has marked an Issuer Ready (status.conditions, in the
// shape of metav1.Condition).
func issuerReady(issuer *unstructured.Unstructured) bool {
	var status struct {
		Conditions []metav1.Condition `json:"conditions"`
	}
	raw, _, _ := unstructured.NestedMap(issuer.Object, "status")
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(raw, &status); err != nil {
		return false
	}
	return meta.IsStatusConditionTrue(status.Conditions, "Ready")
}

// applyCertificates applies cert-manager's Certificates when cert-manager is the source, and
// deletes them as soon as another source is wanted: cert-manager would otherwise overwrite
// the new source's Secrets. Switching to cert-manager, a Secret still holding another source's
// certificate is deleted first, so cert-manager issues a new one instead of adopting it.
func applyCertificates(ctx context.Context, run *syncRun, assets []string) error {
	c := &run.certs
	if c.wanted != lwsoperatorv1.CertificateSourceCertManager {
		return removeCertManagerObjects(ctx, run, assets)
	}
	if c.switching() {
		for _, name := range certificateSecrets {
			secret, err := run.secret(name)
			if err != nil {
				return err
			}
			if secret != nil && !issuedByCertManager(secret) {
				if err := run.applier.DeleteOwned(ctx, secretsGVR, run.namespace, name, run.ownsSecret, engine.FromCache); err != nil {
					return err
				}
			}
		}
	}
	return engine.ApplyAssets(ctx, run, assets)
}

// issuedByCertManager: cert-manager's self-signed Issuer writes the certificate as its own CA
// (ca.crt); a Secret another source wrote has no ca.crt, or one that did not sign tls.crt.
func issuedByCertManager(secret *corev1.Secret) bool {
	return CertificateSignedBy(secret, secret.Data["ca.crt"])
}

// removeCertManagerObjects deletes the operator's cert-manager objects, looked up in the
// caches (nothing to read when they are gone; nothing exists without cert-manager's CRDs).
func removeCertManagerObjects(ctx context.Context, run *syncRun, assets []string) error {
	if run.optional.Installed(engine.IssuerGVR, engine.CertificateGVR) != nil {
		return nil
	}
	var errs []error
	for _, asset := range assets {
		obj, err := run.render.Object(asset)
		if err != nil {
			return err
		}
		if err := run.applier.DeleteObject(ctx, obj, engine.ManagedByOperator, engine.FromCache); err != nil {
			errs = append(errs, err)
		}
	}
	return engine.MergeErrors(errs)
}

// operatorCA is the operator's own CA for this operand.
func (run *syncRun) operatorCA() OperatorCA {
	return OperatorCA{
		Namespace:        run.namespace,
		SignerSecret:     operatorCASecretName,
		BundleConfigMap:  operatorCABundleName,
		Owner:            run.caOwner(),
		Description:      "CA of the LeaderWorkerSet controller's webhook and metrics serving certificates (spec.certificates.source Operator)",
		Secrets:          run.secretLister,
		ConfigMaps:       run.configMapLister,
		SecretClient:     run.clients.Kube.CoreV1(),
		ConfigMapsClient: run.clients.Kube.CoreV1(),
		Recorder:         run.recorder,
	}
}

// applyOperatorCA keeps the operator's CA and its serving certificates when the operator is the
// source, renewing them before they expire, and deletes the CA once nothing served uses it.
func applyOperatorCA(ctx context.Context, run *syncRun, _ []string) error {
	c := &run.certs
	if c.wanted != lwsoperatorv1.CertificateSourceOperator {
		if c.serving == lwsoperatorv1.CertificateSourceOperator {
			return nil
		}
		return deleteOperatorCA(ctx, run, engine.FromCache)
	}
	ca, err := run.operatorCA().Ensure(ctx)
	if err != nil {
		return err
	}
	c.ca = ca.Bundle
	if c.switching() {
		c.trusted = run.liveBundlesTrust(ca.Bundle)
	}
	if !c.mayIssue() {
		return nil
	}
	for _, sc := range servingCertificates {
		hostnames := []string{sc.service + "." + run.namespace + ".svc", sc.service + "." + run.namespace + ".svc.cluster.local"}
		secret, err := run.operatorCA().EnsureServingCertificate(ctx, ca, sc.secret, hostnames)
		if err != nil {
			return err
		}
		if c.written == nil {
			c.written = map[string]*corev1.Secret{}
		}
		c.written[sc.secret] = secret
	}
	return nil
}

func removeOperatorCA(ctx context.Context, run *syncRun, _ []string) error {
	return deleteOperatorCA(ctx, run, engine.FromAPI)
}

// deleteOperatorCA deletes the CA's Secret and bundle, if this CR's operator made them.
func deleteOperatorCA(ctx context.Context, run *syncRun, mode engine.LookupMode) error {
	if err := run.applier.DeleteOwned(ctx, secretsGVR, run.namespace, operatorCASecretName, run.ownsSecret, mode); err != nil {
		return err
	}
	return run.applier.DeleteOwned(ctx, configMapsGVR, run.namespace, operatorCABundleName, run.ownsSecret, mode)
}

// caOwner is the owner reference certrotation sets on what it writes. Not a controller
// reference: certrotation compares references as structs, pointers included, so one with
// pointer fields would never match and every sync would rewrite the objects.
func (run *syncRun) caOwner() *metav1.OwnerReference {
	return &metav1.OwnerReference{APIVersion: run.render.Owner.APIVersion, Kind: run.render.Owner.Kind, Name: run.cr.Name, UID: run.cr.UID}
}

// ownsSecret is the ownership test of the certificate objects: the operator's label (what
// cert-manager's secretTemplate sets), or an owner reference to the CR (what certrotation
// sets).
func (run *syncRun) ownsSecret(existing metav1.Object) bool {
	for _, ref := range existing.GetOwnerReferences() {
		if ref.UID == run.cr.UID {
			return true
		}
	}
	return engine.ManagedByOperator(existing)
}

// deleteSecretsNotFrom deletes the serving Secrets whose certificate the CA did not sign, so
// that the new source issues them.
func deleteSecretsNotFrom(ctx context.Context, run *syncRun, ca []byte) error {
	for _, name := range certificateSecrets {
		secret, err := run.secret(name)
		if err != nil {
			return err
		}
		if secret != nil && !CertificateSignedBy(secret, ca) {
			if err := run.applier.DeleteOwned(ctx, secretsGVR, run.namespace, name, run.ownsSecret, engine.FromCache); err != nil {
				return err
			}
		}
	}
	return nil
}

// secret is a serving Secret as this sync last wrote it or the cache holds it; nil if absent.
func (run *syncRun) secret(name string) (*corev1.Secret, error) {
	if s := run.certs.written[name]; s != nil {
		return s, nil
	}
	obj, err := run.clients.Caches.Get(engine.Secrets, run.namespace, name)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("get Secret %s/%s: %w", run.namespace, name, err)
	}
	s, ok := obj.(*corev1.Secret)
	if !ok {
		return nil, fmt.Errorf("unexpected %T in the Secret cache", obj)
	}
	return s, nil
}

// waitForCertificateSecrets holds the later steps until the serving Secrets exist: a Deployment
// that mounts a missing Secret would not start, and webhooks without a CA bundle would reject
// every LeaderWorkerSet. It then decides the caBundle: while switching, the union of what the
// API server trusts now and the new source's CA, so both the pods still serving the old
// certificate and those serving the new one are trusted; with the operator's CA, its bundle;
// otherwise the source's injector's.
func waitForCertificateSecrets(_ context.Context, run *syncRun, _ []string) error {
	c := &run.certs
	var issued []*corev1.Secret
	var missing []string
	for _, name := range certificateSecrets {
		secret, err := run.secret(name)
		if err != nil {
			return err
		}
		if secret == nil || len(secret.Data[corev1.TLSCertKey]) == 0 || len(secret.Data[corev1.TLSPrivateKeyKey]) == 0 {
			missing = append(missing, name)
			continue
		}
		issued = append(issued, secret)
	}
	if len(missing) > 0 {
		return engine.WaitingFor(lwsoperatorv1.ReasonWaitingForCertificates,
			"waiting for %s to issue the Secrets %v in namespace %s%s", describeSource(c.wanted), missing, run.namespace, waitingHint(c.wanted, run.namespace))
	}
	c.fromWanted = !c.switching() || !slices.ContainsFunc(issued, func(s *corev1.Secret) bool { return !c.issuedByWanted(s) })
	if c.wanted == lwsoperatorv1.CertificateSourceCertManager && c.fromWanted {
		c.ca = issued[0].Data["ca.crt"]
	}
	switch {
	case c.switching():
		bundle, err := MergeCABundles(append(run.liveCABundles(), c.ca)...)
		if err != nil {
			return err
		}
		c.bundle = bundle
		if c.mayIssue() && !c.fromWanted {
			return engine.WaitingFor(lwsoperatorv1.ReasonWaitingForCertificates,
				"switching certificates to %s: waiting for it to issue the Secrets %v in namespace %s%s", describeSource(c.wanted), certificateSecrets, run.namespace, waitingHint(c.wanted, run.namespace))
		}
	case c.wanted == lwsoperatorv1.CertificateSourceOperator:
		c.bundle = c.ca
	case !run.injectorAsked():
		// Handing the bundle to the injector (after a switch, or on first install): once,
		// with the source's CA alone. cert-manager's cainjector merges into the bundle it
		// finds rather than replacing it, so the old source's CA would otherwise stay until
		// it expires.
		c.bundle = c.ca
	}
	run.mountedSecrets = append(run.mountedSecrets, issued...)
	return nil
}

// issuedByWanted says whether the wanted source wrote the Secret.
func (c *certificates) issuedByWanted(secret *corev1.Secret) bool {
	if c.wanted == lwsoperatorv1.CertificateSourceCertManager {
		return issuedByCertManager(secret)
	}
	return CertificateSignedBy(secret, c.ca)
}

func describeSource(s lwsoperatorv1.CertificateSource) string {
	switch s {
	case lwsoperatorv1.CertificateSourceCertManager:
		return "cert-manager"
	case lwsoperatorv1.CertificateSourceServiceCA:
		return "the OpenShift service CA"
	default:
		return "the operator's CA"
	}
}

func waitingHint(s lwsoperatorv1.CertificateSource, namespace string) string {
	switch s {
	case lwsoperatorv1.CertificateSourceCertManager:
		return fmt.Sprintf("; check the Certificates there (kubectl get certificates -n %s) if this lasts", namespace)
	case lwsoperatorv1.CertificateSourceServiceCA:
		return "; check the annotation service.beta.openshift.io/serving-cert-generation-error on the Services there if this lasts"
	default:
		return ""
	}
}

// injector is the annotation that asks the wanted source's injector for the caBundle; "" while
// switching and for the operator's CA, when the operator writes the bundle itself (an injector
// would replace the bundle of both CAs with its own CA).
func (c *certificates) injector() string {
	if c.switching() {
		return ""
	}
	switch c.wanted {
	case lwsoperatorv1.CertificateSourceCertManager:
		return certManagerInjectAnnotation
	case lwsoperatorv1.CertificateSourceServiceCA:
		return injectCABundleAnnotation
	}
	return ""
}

// injectorAsked says whether every webhook configuration and the CRD already carry the
// source's injection annotation, as the caches hold them.
func (run *syncRun) injectorAsked() bool {
	annotation := run.certs.injector()
	if annotation == "" {
		return false
	}
	for _, ref := range []struct {
		gr   schema.GroupResource
		name string
	}{{engine.MutatingWebhookConfigurations, mutatingWebhookName}, {engine.ValidatingWebhookConfigurations, validatingWebhookName}} {
		obj, err := run.clients.Caches.GetMeta(ref.gr, "", ref.name)
		if err != nil {
			return false
		}
		if _, ok := obj.GetAnnotations()[annotation]; !ok {
			return false
		}
	}
	crd := run.crd.Get()
	if crd == nil {
		return false
	}
	_, ok := crd.Annotations[annotation]
	return ok
}

// injectCABundle sets, on a webhook configuration or the CRD, the annotation that asks the
// source's injector for the caBundle and removes the other injector's; none while the operator
// writes the bundle itself (switching, or the operator's CA).
func (c *certificates) injectCABundle(obj metav1.Object) {
	annotations := obj.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	certManager := annotations[certManagerInjectAnnotation]
	delete(annotations, certManagerInjectAnnotation)
	annotations[certManagerInjectAnnotation+removeAnnotation] = ""
	annotations[injectCABundleAnnotation+removeAnnotation] = ""
	switch c.injector() {
	case certManagerInjectAnnotation:
		delete(annotations, certManagerInjectAnnotation+removeAnnotation)
		annotations[certManagerInjectAnnotation] = certManager
	case injectCABundleAnnotation:
		delete(annotations, injectCABundleAnnotation+removeAnnotation)
		annotations[injectCABundleAnnotation] = "true"
	}
	obj.SetAnnotations(annotations)
}

// applyWebhookConfigurations applies both webhook configurations with the certificate source's
// caBundle injection. resourceapply keeps an injected caBundle when the operator sets none.
func applyWebhookConfigurations(ctx context.Context, run *syncRun, assets []string) error {
	var errs []error
	for _, asset := range assets {
		var err error
		switch asset {
		case bindata.LWSMutatingWebhookConfiguration:
			err = applyWebhookConfiguration(ctx, run, asset, func(w *admissionregistrationv1.MutatingWebhookConfiguration) {
				for i := range w.Webhooks {
					w.Webhooks[i].ClientConfig.CABundle = run.certs.bundle
				}
			})
		case bindata.LWSValidatingWebhookConfiguration:
			err = applyWebhookConfiguration(ctx, run, asset, func(w *admissionregistrationv1.ValidatingWebhookConfiguration) {
				for i := range w.Webhooks {
					w.Webhooks[i].ClientConfig.CABundle = run.certs.bundle
				}
			})
		default:
			err = fmt.Errorf("%s is not a webhook configuration", asset)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return engine.MergeErrors(errs)
}

// applyWebhookConfiguration renders one webhook configuration, sets its caBundle and the
// injection annotations, and applies it.
func applyWebhookConfiguration[T any, PT interface {
	*T
	metav1.Object
	runtime.Object
}](ctx context.Context, run *syncRun, asset string, setBundle func(PT)) error {
	obj, err := engine.RenderTyped[T](run.render, asset)
	if err != nil {
		return err
	}
	typed := PT(obj)
	run.certs.injectCABundle(typed)
	setBundle(typed)
	return run.applier.Apply(ctx, typed)
}

// finishCertificateSwitch ends a switch once the pods serve the new source's certificates: the
// Secrets are the new source's and the Deployment applied with their hash has rolled out, no
// pod of the old template left. From then on status names the new source, and the next sync
// drops the old CA from the caBundle and removes the old source's objects.
func finishCertificateSwitch(_ context.Context, run *syncRun, _ []string) error {
	c := &run.certs
	if !c.switching() {
		run.servingSource = c.wanted
		return nil
	}
	run.servingSource = c.serving
	if c.fromWanted && run.appliedDeployment != nil && rolledOut(run.deployment) {
		run.servingSource = c.wanted
		run.recorder.Eventf("CertificateSourceSwitched", "The LeaderWorkerSet controller serves certificates from %s (was %s)", describeSource(c.wanted), describeSource(c.serving))
		return nil
	}
	return &engine.StepError{Condition: engine.ConditionProgressing, Reason: lwsoperatorv1.ReasonSwitchingCertificateSource,
		Message: fmt.Sprintf("switching the serving certificates from %s to %s: the webhooks trust both CAs until the Deployment %s/%s has rolled out with the new certificates",
			describeSource(c.serving), describeSource(c.wanted), run.namespace, deploymentName)}
}

// rolledOut says the Deployment's latest template runs on every replica and no older pod is
// left.
func rolledOut(d *appsv1.Deployment) bool {
	r := engine.Rollout(d)
	return r.Exists && r.Complete && d.Status.Replicas == d.Status.UpdatedReplicas
}

// removeCertificatesThenSecrets deletes the Certificates, then the serving Secrets. cert-manager
// leaves Secrets behind when a Certificate is deleted, and re-issues a deleted Secret while its
// Certificate exists, so the order matters. Only Secrets the operator asked for are deleted:
// labelled through the Certificates' secretTemplate, or controlled by the CR (the operator's CA);
// the service CA's Secrets go with their Services.
func removeCertificatesThenSecrets(ctx context.Context, run *syncRun, assets []string) error {
	if err := engine.RemoveAssets(ctx, run, assets); err != nil {
		return err
	}
	for _, name := range certificateSecrets {
		if err := run.applier.DeleteOwned(ctx, secretsGVR, run.namespace, name, run.ownsSecret, engine.FromAPI); err != nil {
			return err
		}
	}
	return nil
}
