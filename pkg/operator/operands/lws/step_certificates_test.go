package lws

import (
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/openshift/library-go/pkg/crypto"
	"github.com/openshift/library-go/pkg/operator/certrotation"

	"github.com/llm-infra/llm-infra-operator/bindata"
	lwsoperatorv1 "github.com/llm-infra/llm-infra-operator/pkg/apis/operator/v1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine/enginetest"
)

func TestAutomaticSource(t *testing.T) {
	tests := []struct {
		name                 string
		certManager, service bool
		want                 lwsoperatorv1.CertificateSource
	}{
		{name: "cert-manager installed, on OpenShift: cert-manager", certManager: true, service: true, want: lwsoperatorv1.CertificateSourceCertManager},
		{name: "cert-manager installed: cert-manager", certManager: true, want: lwsoperatorv1.CertificateSourceCertManager},
		{name: "OpenShift without cert-manager: the service CA", service: true, want: lwsoperatorv1.CertificateSourceServiceCA},
		{name: "neither: the operator's CA", want: lwsoperatorv1.CertificateSourceOperator},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := automaticSource(tt.certManager, tt.service); got != tt.want {
				t.Errorf("automaticSource(%v, %v) = %s, want %s", tt.certManager, tt.service, got, tt.want)
			}
		})
	}
}

func (e *fakeEnv) secretData(name string) *corev1.Secret {
	e.t.Helper()
	s, err := e.kube.CoreV1().Secrets(testNamespace).Get(e.ctx, name, metav1.GetOptions{})
	if err != nil {
		e.t.Fatalf("get Secret %s: %v", name, err)
	}
	return s
}

// caBundles returns every caBundle the API server would use: each webhook's and the CRD's.
func (e *fakeEnv) caBundles() map[string][]byte {
	e.t.Helper()
	bundles := map[string][]byte{}
	m, err := e.kube.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(e.ctx, mutatingWebhookName, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	for _, w := range m.Webhooks {
		bundles["mutating "+w.Name] = w.ClientConfig.CABundle
	}
	v, err := e.kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(e.ctx, validatingWebhookName, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	for _, w := range v.Webhooks {
		bundles["validating "+w.Name] = w.ClientConfig.CABundle
	}
	crd, err := e.apiext.ApiextensionsV1().CustomResourceDefinitions().Get(e.ctx, lwsCRDName, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	bundles["CRD conversion"] = crd.Spec.Conversion.Webhook.ClientConfig.CABundle
	return bundles
}

// expectBundles checks that every caBundle trusts each CA of trust and none of distrust.
func (e *fakeEnv) expectBundles(trust, distrust [][]byte) {
	e.t.Helper()
	for where, bundle := range e.caBundles() {
		for _, ca := range trust {
			if !BundleTrusts(bundle, ca) {
				e.t.Errorf("%s caBundle does not trust a CA it must trust", where)
			}
		}
		for _, ca := range distrust {
			if BundleTrusts(bundle, ca) {
				e.t.Errorf("%s caBundle still trusts a CA it must not", where)
			}
		}
	}
}

// annotations returns the annotations of the mutating webhook configuration and of the CRD.
func (e *fakeEnv) injectionAnnotations() []map[string]string {
	e.t.Helper()
	m, err := e.kube.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(e.ctx, mutatingWebhookName, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	crd, err := e.apiext.ApiextensionsV1().CustomResourceDefinitions().Get(e.ctx, lwsCRDName, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	return []map[string]string{m.Annotations, crd.Annotations}
}

// injectCA does what an injector (cert-manager's cainjector, the service CA) does for the
// objects that carry its annotation: it writes its CA into their caBundles.
func (e *fakeEnv) injectCA(annotation string, ca []byte) {
	e.t.Helper()
	m, err := e.kube.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(e.ctx, mutatingWebhookName, metav1.GetOptions{})
	if err == nil {
		if _, ok := m.Annotations[annotation]; ok {
			for i := range m.Webhooks {
				m.Webhooks[i].ClientConfig.CABundle = ca
			}
			if _, err := e.kube.AdmissionregistrationV1().MutatingWebhookConfigurations().Update(e.ctx, m, metav1.UpdateOptions{}); err != nil {
				e.t.Fatal(err)
			}
		}
	}
	v, err := e.kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(e.ctx, validatingWebhookName, metav1.GetOptions{})
	if err == nil {
		if _, ok := v.Annotations[annotation]; ok {
			for i := range v.Webhooks {
				v.Webhooks[i].ClientConfig.CABundle = ca
			}
			if _, err := e.kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Update(e.ctx, v, metav1.UpdateOptions{}); err != nil {
				e.t.Fatal(err)
			}
		}
	}
	crd, err := e.apiext.ApiextensionsV1().CustomResourceDefinitions().Get(e.ctx, lwsCRDName, metav1.GetOptions{})
	if err == nil {
		if _, ok := crd.Annotations[annotation]; ok {
			crd.Spec.Conversion.Webhook.ClientConfig.CABundle = ca
			if _, err := e.apiext.ApiextensionsV1().CustomResourceDefinitions().Update(e.ctx, crd, metav1.UpdateOptions{}); err != nil {
				e.t.Fatal(err)
			}
		}
	}
	e.settleWebhooks()
}

// serveLikeTheServiceCA is a fake of OpenShift's service CA operator on the fake clientset: for
// every Service annotated with serving-cert-secret-name it creates the TLS Secret signed by
// the service CA (owned by the Service), unless one exists, and injects the CA into every
// object annotated with inject-cabundle.
func (e *fakeEnv) serveLikeTheServiceCA(ca *crypto.CA, caPEM []byte) {
	e.t.Helper()
	services, err := e.kube.CoreV1().Services(testNamespace).List(e.ctx, metav1.ListOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	for _, svc := range services.Items {
		name := svc.Annotations[servingCertSecretAnnotation]
		if name == "" {
			continue
		}
		if _, err := e.kube.CoreV1().Secrets(testNamespace).Get(e.ctx, name, metav1.GetOptions{}); err == nil {
			continue
		}
		cert, err := ca.MakeServerCertForDuration(sets.New(svc.Name+"."+testNamespace+".svc"), time.Hour)
		if err != nil {
			e.t.Fatal(err)
		}
		crt, key, err := cert.GetPEMBytes()
		if err != nil {
			e.t.Fatal(err)
		}
		secret := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: testNamespace,
				Annotations:     map[string]string{"service.beta.openshift.io/originating-service-name": svc.Name},
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Service", Name: svc.Name, UID: svc.UID}}},
			Type: corev1.SecretTypeTLS,
			Data: map[string][]byte{"tls.crt": crt, "tls.key": key},
		}
		if _, err := e.kube.CoreV1().Secrets(testNamespace).Create(e.ctx, secret, metav1.CreateOptions{}); err != nil {
			e.t.Fatal(err)
		}
	}
	e.injectCA(injectCABundleAnnotation, caPEM)
	e.settle()
}

// settleWebhooks waits until the caches hold the webhook configurations and CRD as the fakes do.
func (e *fakeEnv) settleWebhooks() {
	e.t.Helper()
	e.waitFor("webhook configurations in the caches", func() bool {
		for _, gr := range []struct {
			cached func() (metav1.Object, error)
			live   func() (metav1.Object, error)
		}{
			{func() (metav1.Object, error) {
				return e.caches.GetMeta(engine.MutatingWebhookConfigurations, "", mutatingWebhookName)
			},
				func() (metav1.Object, error) {
					return e.kube.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(e.ctx, mutatingWebhookName, metav1.GetOptions{})
				}},
			{func() (metav1.Object, error) {
				return e.caches.GetMeta(engine.ValidatingWebhookConfigurations, "", validatingWebhookName)
			}, func() (metav1.Object, error) {
				return e.kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(e.ctx, validatingWebhookName, metav1.GetOptions{})
			}},
		} {
			live, err := gr.live()
			if err != nil {
				continue
			}
			cached, err := gr.cached()
			if err != nil || cached.GetResourceVersion() != live.GetResourceVersion() {
				return false
			}
		}
		return e.cachedMatchesAPI()
	})
}

// rollOut marks the Deployment's current template as rolled out on every replica.
func (e *fakeEnv) rollOut() {
	e.t.Helper()
	d := e.deployment()
	n := *d.Spec.Replicas
	d.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: n, UpdatedReplicas: n, ReadyReplicas: n, AvailableReplicas: n}
	if _, err := e.kube.AppsV1().Deployments(testNamespace).UpdateStatus(e.ctx, d, metav1.UpdateOptions{}); err != nil {
		e.t.Fatal(err)
	}
	e.waitFor("rolled-out Deployment in the cache", func() bool {
		cached := e.op.cachedDeployment()
		return cached != nil && cached.Status.ObservedGeneration == d.Generation && cached.Status.UpdatedReplicas == n
	})
}

func (e *fakeEnv) operatorCABundle() []byte {
	e.t.Helper()
	cm, err := e.kube.CoreV1().ConfigMaps(testNamespace).Get(e.ctx, operatorCABundleName, metav1.GetOptions{})
	if err != nil {
		e.t.Fatalf("the operator's CA bundle: %v", err)
	}
	return []byte(cm.Data["ca-bundle.crt"])
}

func (e *fakeEnv) mustSync() {
	e.t.Helper()
	if err := e.sync(); err != nil {
		e.t.Fatal(err)
	}
	e.settleWebhooks()
}

func TestAutomaticWithoutCertManagerIssuesWithTheOperatorsCA(t *testing.T) {
	env := newFakeEnv(t)
	env.mustSync()

	bundle := env.operatorCABundle()
	for _, name := range certificateSecrets {
		if s := env.secretData(name); !CertificateSignedBy(s, bundle) {
			t.Errorf("Secret %s is not signed by the operator's CA", name)
		}
	}
	env.expectBundles([][]byte{bundle}, nil)
	for _, a := range env.injectionAnnotations() {
		if _, ok := a[certManagerInjectAnnotation]; ok {
			t.Errorf("no cert-manager: its injection annotation must not be set: %v", a)
		}
	}
	if !env.exists(bindata.LWSDeployment) {
		t.Fatal("the Deployment should be applied once the operator issued the certificates")
	}
	env.expectCondition(lwsoperatorv1.ConditionServingCertificates, operatorv1.ConditionTrue, string(lwsoperatorv1.CertificateSourceOperator))
	env.expectCondition(operatorv1.OperatorStatusTypeDegraded, operatorv1.ConditionFalse, engine.ReasonAsExpected)
	if env.exists(bindata.LWSIssuer) {
		t.Error("no cert-manager Issuer without cert-manager")
	}

	// Converged: a sync with nothing changed writes nothing (the rotation is not due).
	env.mustSync()
	env.clearActions()
	if err := env.op.sync(env.ctx, env.syncCtx); err != nil {
		t.Fatal(err)
	}
	if w := env.writes(); len(w) > 0 {
		t.Errorf("a sync with nothing changed wrote: %v", w)
	}
}

func TestServiceCAFollowsTheAnnotationContract(t *testing.T) {
	serviceCA, serviceCAPEM := enginetest.NewCA(t, "openshift-service-serving-signer")
	published := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: serviceCAConfigMap, Namespace: testNamespace},
		Data: map[string]string{serviceCAKey: string(serviceCAPEM)}}
	env := newFakeEnv(t, withObjects(published))

	// Automatic picks the service CA: the Services ask it for the Secrets, and the operand
	// waits for them.
	env.mustSync()
	env.expectCondition(operatorv1.OperatorStatusTypeProgressing, operatorv1.ConditionTrue, lwsoperatorv1.ReasonWaitingForCertificates)
	for _, sc := range servingCertificates {
		svc, err := env.kube.CoreV1().Services(testNamespace).Get(env.ctx, sc.service, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := svc.Annotations[servingCertSecretAnnotation]; got != sc.secret {
			t.Errorf("Service %s annotation %s = %q, want %q", sc.service, servingCertSecretAnnotation, got, sc.secret)
		}
	}

	// The service CA issues; the next sync installs the rest with its injection annotation.
	env.serveLikeTheServiceCA(serviceCA, serviceCAPEM)
	env.mustSync()
	for _, a := range env.injectionAnnotations() {
		if a[injectCABundleAnnotation] != "true" {
			t.Errorf("annotation %s missing: %v", injectCABundleAnnotation, a)
		}
		if _, ok := a[certManagerInjectAnnotation]; ok {
			t.Errorf("cert-manager's annotation must not be set: %v", a)
		}
	}
	env.serveLikeTheServiceCA(serviceCA, serviceCAPEM)
	env.expectBundles([][]byte{serviceCAPEM}, nil)
	if !env.exists(bindata.LWSDeployment) {
		t.Fatal("the Deployment should be applied once the service CA issued the certificates")
	}
	env.expectCondition(lwsoperatorv1.ConditionServingCertificates, operatorv1.ConditionTrue, string(lwsoperatorv1.CertificateSourceServiceCA))

	// The injected bundle is the service CA's: the operator's apply keeps it.
	env.mustSync()
	env.expectBundles([][]byte{serviceCAPEM}, nil)
}

func TestServiceCAChosenWithoutOneIsDegraded(t *testing.T) {
	env := newFakeEnv(t, withCertificateSource(lwsoperatorv1.CertificateSourceServiceCA))
	if err := env.sync(); err != nil {
		t.Fatalf("a missing service CA is reported, not retried: %v", err)
	}
	env.expectCondition(operatorv1.OperatorStatusTypeDegraded, operatorv1.ConditionTrue, lwsoperatorv1.ReasonServiceCAMissing)
	if env.exists(bindata.LWSDeployment) {
		t.Error("the Deployment must wait for a certificate source")
	}
}

// A switch from cert-manager to the operator's CA: the webhooks trust both CAs from before the
// new certificates are written until the Deployment has rolled out with them; then only the new
// CA, and cert-manager's objects are gone.
func TestSwitchingSourcesTrustsBothCAsUntilTheRolloutIsDone(t *testing.T) {
	env := newFakeEnv(t, fullyInstalled()...)
	env.mustSync()
	certManagerCA := env.secretData(webhookSecretName).Data["ca.crt"]
	env.injectCA(certManagerInjectAnnotation, certManagerCA)
	env.rollOut()
	env.mustSync()
	env.expectCondition(lwsoperatorv1.ConditionServingCertificates, operatorv1.ConditionTrue, string(lwsoperatorv1.CertificateSourceCertManager))
	hashKey := engine.ConfigHashAnnotationPrefix + "secret-" + webhookSecretName
	certManagerHash := env.deployment().Spec.Template.Annotations[hashKey]

	env.setCertificateSource(lwsoperatorv1.CertificateSourceOperator)

	// First the webhooks learn the new CA; the Secrets and the pods are untouched.
	env.mustSync()
	operatorCA := env.operatorCABundle()
	env.expectBundles([][]byte{certManagerCA, operatorCA}, nil)
	if !CertificateSignedBy(env.secretData(webhookSecretName), certManagerCA) {
		t.Error("the Secret must not change before every caBundle trusts the new CA")
	}
	if got := env.deployment().Spec.Template.Annotations[hashKey]; got != certManagerHash {
		t.Error("the pods must not roll before every caBundle trusts the new CA")
	}
	env.expectCondition(operatorv1.OperatorStatusTypeProgressing, operatorv1.ConditionTrue, lwsoperatorv1.ReasonSwitchingCertificateSource)
	if env.exists(bindata.LWSWebhookCertificate) {
		t.Error("cert-manager's Certificates must go at once: cert-manager would overwrite the new Secrets")
	}
	for _, a := range env.injectionAnnotations() {
		if _, ok := a[certManagerInjectAnnotation]; ok {
			t.Errorf("cainjector would replace the bundle of both CAs: its annotation must go during the switch: %v", a)
		}
	}

	// Then the new certificates; the pods roll; both CAs stay trusted.
	env.mustSync()
	if !CertificateSignedBy(env.secretData(webhookSecretName), operatorCA) {
		t.Fatal("the operator should have issued the webhook certificate")
	}
	if got := env.deployment().Spec.Template.Annotations[hashKey]; got == certManagerHash {
		t.Error("the new certificate should roll the pods")
	}
	env.expectBundles([][]byte{certManagerCA, operatorCA}, nil)
	env.expectCondition(lwsoperatorv1.ConditionServingCertificates, operatorv1.ConditionTrue, string(lwsoperatorv1.CertificateSourceCertManager))
	if !env.exists(bindata.LWSIssuer) {
		t.Error("the old source's Issuer stays until the switch is done")
	}

	// Rolled out: status names the new source; then the old CA and cert-manager's objects go.
	env.rollOut()
	env.mustSync()
	env.expectCondition(lwsoperatorv1.ConditionServingCertificates, operatorv1.ConditionTrue, string(lwsoperatorv1.CertificateSourceOperator))
	env.mustSync()
	env.expectBundles([][]byte{operatorCA}, [][]byte{certManagerCA})
	if env.exists(bindata.LWSIssuer) {
		t.Error("the Issuer should be removed after the switch")
	}
	env.expectCondition(operatorv1.OperatorStatusTypeProgressing, operatorv1.ConditionFalse, engine.ReasonAsExpected)

	// And back to cert-manager: the operator's Secrets are replaced by cert-manager's (here
	// the test issues them, as cert-manager would), then the operator's CA goes.
	env.setCertificateSource(lwsoperatorv1.CertificateSourceCertManager)
	env.mustSync()
	for _, name := range certificateSecrets {
		if _, err := env.kube.CoreV1().Secrets(testNamespace).Get(env.ctx, name, metav1.GetOptions{}); err == nil {
			t.Errorf("the operator's Secret %s should be deleted for cert-manager to issue its own", name)
		}
	}
	for _, obj := range issuedSecrets() {
		if _, err := env.kube.CoreV1().Secrets(testNamespace).Create(env.ctx, obj.(*corev1.Secret), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	env.settle()
	newCertManagerCA := env.secretData(webhookSecretName).Data["ca.crt"]
	env.mustSync()
	env.expectBundles([][]byte{operatorCA, newCertManagerCA}, nil)
	env.rollOut()
	env.mustSync()
	env.expectCondition(lwsoperatorv1.ConditionServingCertificates, operatorv1.ConditionTrue, string(lwsoperatorv1.CertificateSourceCertManager))
	env.mustSync()
	for _, a := range env.injectionAnnotations() {
		if a[certManagerInjectAnnotation] == "" {
			t.Errorf("back on cert-manager, cainjector's annotation returns: %v", a)
		}
	}
	// Handed back to cainjector with cert-manager's CA alone: cainjector merges into what it
	// finds, so the operator's CA would otherwise stay.
	env.expectBundles([][]byte{newCertManagerCA}, [][]byte{operatorCA})
	if _, err := env.kube.CoreV1().Secrets(testNamespace).Get(env.ctx, operatorCASecretName, metav1.GetOptions{}); err == nil {
		t.Error("the operator's CA should be removed after the switch")
	}
}

func TestWithMetricsCA(t *testing.T) {
	tests := []struct {
		source   lwsoperatorv1.CertificateSource
		wantKind string
		wantName string
		wantKey  string
	}{
		{source: lwsoperatorv1.CertificateSourceCertManager, wantKind: "secret", wantName: metricsSecretName, wantKey: "ca.crt"},
		{source: lwsoperatorv1.CertificateSourceOperator, wantKind: "configMap", wantName: operatorCABundleName, wantKey: "ca-bundle.crt"},
		{source: lwsoperatorv1.CertificateSourceServiceCA, wantKind: "configMap", wantName: serviceCAConfigMap, wantKey: serviceCAKey},
	}
	for _, tt := range tests {
		t.Run(string(tt.source), func(t *testing.T) {
			monitor, err := testRenderer().Object(bindata.LWSServiceMonitor)
			if err != nil {
				t.Fatal(err)
			}
			if err := withMetricsCA(monitor, tt.source); err != nil {
				t.Fatal(err)
			}
			endpoints, _, _ := unstructured.NestedSlice(monitor.Object, "spec", "endpoints")
			ca, _, _ := unstructured.NestedMap(endpoints[0].(map[string]any), "tlsConfig", "ca", tt.wantKind)
			if len(ca) != 2 || ca["name"] != tt.wantName || ca["key"] != tt.wantKey {
				t.Errorf("tlsConfig.ca.%s = %v, want name %s key %s", tt.wantKind, ca, tt.wantName, tt.wantKey)
			}
		})
	}
}

// The operator's serving certificates are renewed when due (certrotation reads the validity
// from the Secret's annotations), and the renewal rolls the pods.
func TestOperatorCARenewsADueCertificate(t *testing.T) {
	env := newFakeEnv(t, withCertificateSource(lwsoperatorv1.CertificateSourceOperator))
	env.mustSync()
	before := env.secretData(webhookSecretName)
	hashKey := engine.ConfigHashAnnotationPrefix + "secret-" + webhookSecretName
	hashBefore := env.deployment().Spec.Template.Annotations[hashKey]

	// Near its end: certrotation's annotations say it is past 80% of its validity.
	due := before.DeepCopy()
	due.Annotations[certrotation.CertificateNotBeforeAnnotation] = time.Now().Add(-89 * 24 * time.Hour).Format(time.RFC3339)
	due.Annotations[certrotation.CertificateNotAfterAnnotation] = time.Now().Add(24 * time.Hour).Format(time.RFC3339)
	if _, err := env.kube.CoreV1().Secrets(testNamespace).Update(env.ctx, due, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.settle()
	env.mustSync()
	after := env.secretData(webhookSecretName)
	if string(after.Data["tls.crt"]) == string(before.Data["tls.crt"]) {
		t.Fatal("a certificate past its refresh time should be renewed")
	}
	if !CertificateSignedBy(after, env.operatorCABundle()) {
		t.Error("the renewed certificate should be signed by the operator's CA")
	}
	if got := env.deployment().Spec.Template.Annotations[hashKey]; got == hashBefore {
		t.Error("the renewed certificate should roll the pods")
	}
}
