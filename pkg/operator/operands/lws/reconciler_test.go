package lws

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	"github.com/llm-infra/llm-infra-operator/bindata"
	lwsoperatorv1 "github.com/llm-infra/llm-infra-operator/pkg/apis/operator/v1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// exists reports whether the rendered object of an asset exists in the fakes.
func (e *fakeEnv) exists(asset string) bool {
	e.t.Helper()
	obj, err := testRenderer().Object(asset)
	if err != nil {
		e.t.Fatal(err)
	}
	if obj.GetKind() == "CustomResourceDefinition" {
		_, err := e.apiext.ApiextensionsV1().CustomResourceDefinitions().Get(e.ctx, obj.GetName(), metav1.GetOptions{})
		return err == nil
	}
	gvr, err := engine.ResourceFor(obj.GroupVersionKind())
	if err != nil {
		e.t.Fatal(err)
	}
	_, err = e.dynamic.Resource(gvr).Namespace(obj.GetNamespace()).Get(e.ctx, obj.GetName(), metav1.GetOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		e.t.Fatalf("get %s: %v", asset, err)
	}
	return err == nil
}

func (e *fakeEnv) deployment() *appsv1.Deployment {
	e.t.Helper()
	d, err := e.kube.AppsV1().Deployments(testNamespace).Get(e.ctx, deploymentName, metav1.GetOptions{})
	if err != nil {
		e.t.Fatalf("get Deployment: %v", err)
	}
	return d
}

// fullyInstalled is a cluster with every optional API, and a CR that asks for every object
// (spec.networkPolicy.enabled).
func fullyInstalled(extra ...envOption) []envOption {
	return append([]envOption{
		withCRDs(append(certManagerCRDs, engine.CRDName(ServiceMonitorGVR))...),
		withObjects(issuedSecrets()...),
		withNetworkPolicy(&lwsoperatorv1.NetworkPolicy{Enabled: true}),
	}, extra...)
}

func TestManagedInstallsEveryObjectAndConverges(t *testing.T) {
	env := newFakeEnv(t, fullyInstalled()...)
	if err := env.sync(); err != nil {
		t.Fatalf("first sync: %v", err)
	}
	for _, asset := range Assets() {
		if !env.exists(asset) {
			t.Errorf("%s was not applied", asset)
		}
	}
	cm, err := env.kube.CoreV1().ConfigMaps(testNamespace).Get(env.ctx, configMapName, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("operand ConfigMap: %v", err)
	}
	if !strings.Contains(cm.Data[configMapKey], "enable: false") {
		t.Errorf("operand config must turn internal cert management off:\n%s", cm.Data[configMapKey])
	}
	env.expectCondition(operatorv1.OperatorStatusTypeDegraded, operatorv1.ConditionFalse, engine.ReasonAsExpected)
	// The fake Deployment never becomes available.
	env.expectCondition(operatorv1.OperatorStatusTypeAvailable, operatorv1.ConditionFalse, engine.ReasonDeploymentUnavailable)
	env.expectCondition(operatorv1.OperatorStatusTypeProgressing, operatorv1.ConditionTrue, engine.ReasonDeploymentRollingOut)
	if got := env.deployment().Spec.Template.Spec.Containers[0].Image; got != testImage {
		t.Errorf("image = %q, want %q", got, testImage)
	}

	// A second sync settles what the first wrote (the generation recorded in status); from
	// then on, a sync with nothing changed must not write.
	if err := env.sync(); err != nil {
		t.Fatalf("second sync: %v", err)
	}
	_, _, rvBefore, _ := env.operator.GetOperatorState()
	env.waitFor("optional APIs' objects in the caches", func() bool {
		for _, asset := range []string{bindata.LWSIssuer, bindata.LWSWebhookCertificate, bindata.LWSServiceMonitor} {
			obj, err := testRenderer().Object(asset)
			if err != nil {
				t.Fatal(err)
			}
			gvr, err := engine.ResourceFor(obj.GroupVersionKind())
			if err != nil {
				t.Fatal(err)
			}
			if _, err := env.caches.Get(gvr.GroupResource(), obj.GetNamespace(), obj.GetName()); err != nil {
				return false
			}
		}
		return true
	})
	env.clearActions()
	// Syncs called directly: settle() reads from the fakes itself.
	for i := 0; i < 3; i++ {
		if err := env.op.sync(env.ctx, env.syncCtx); err != nil {
			t.Fatalf("resync %d: %v", i, err)
		}
	}
	if w := env.writes(); len(w) > 0 {
		t.Errorf("resyncs with nothing changed wrote to the API: %v", w)
	}
	if r := env.reads(); len(r) > 0 {
		t.Errorf("resyncs with nothing changed read from the API instead of the caches: %v", r)
	}
	if _, _, rvAfter, _ := env.operator.GetOperatorState(); rvAfter != rvBefore {
		t.Errorf("resyncs with nothing changed wrote the CR status (resourceVersion %s -> %s)", rvBefore, rvAfter)
	}
}

func TestObservedGenerationAndFinalizerAreSet(t *testing.T) {
	env := newFakeEnv(t, fullyInstalled()...)
	if err := env.sync(); err != nil {
		t.Fatal(err)
	}
	_, status, _, _ := env.operator.GetOperatorState()
	if status.ObservedGeneration != 1 {
		t.Errorf("observedGeneration = %d, want 1", status.ObservedGeneration)
	}
	meta, _ := env.operator.GetObjectMeta()
	if !slices.Contains(meta.Finalizers, Finalizer) {
		t.Errorf("finalizer %s not added: %v", Finalizer, meta.Finalizers)
	}
}

func TestCertManagerMissingIsDegradedAndRecovers(t *testing.T) {
	env := newFakeEnv(t, withObjects(issuedSecrets()...), withCertificateSource(lwsoperatorv1.CertificateSourceCertManager))
	if err := env.sync(); err != nil {
		t.Fatalf("a missing cert-manager is reported in status, not retried as an error: %v", err)
	}
	env.expectCondition(operatorv1.OperatorStatusTypeDegraded, operatorv1.ConditionTrue, "CertManagerMissing")
	if msg := env.condition(operatorv1.OperatorStatusTypeDegraded).Message; !strings.Contains(msg, "install cert-manager") {
		t.Errorf("message should say to install cert-manager: %q", msg)
	}
	if env.exists(bindata.LWSDeployment) {
		t.Error("the Deployment must wait for cert-manager")
	}

	// cert-manager gets installed: its CRDs appear and the next sync carries on.
	for _, name := range certManagerCRDs {
		if _, err := env.apiext.ApiextensionsV1().CustomResourceDefinitions().Create(env.ctx, establishedCRD(name), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	env.waitFor("cert-manager CRDs in the cache", func() bool { return env.optional.Installed(engine.IssuerGVR, engine.CertificateGVR) == nil })
	if err := env.sync(); err != nil {
		t.Fatal(err)
	}
	env.expectCondition(operatorv1.OperatorStatusTypeDegraded, operatorv1.ConditionFalse, engine.ReasonAsExpected)
	if !env.exists(bindata.LWSDeployment) {
		t.Error("the Deployment should be applied once cert-manager is installed")
	}
}

func TestWaitingForCertificatesIsProgressingNotError(t *testing.T) {
	env := newFakeEnv(t, withCRDs(certManagerCRDs...))
	if err := env.sync(); err != nil {
		t.Fatalf("waiting for certificates is not an error: %v", err)
	}
	env.expectCondition(operatorv1.OperatorStatusTypeProgressing, operatorv1.ConditionTrue, "WaitingForCertificates")
	env.expectCondition(operatorv1.OperatorStatusTypeDegraded, operatorv1.ConditionFalse, engine.ReasonAsExpected)
	if !env.exists(bindata.LWSWebhookCertificate) || !env.exists(bindata.LWSMetricsCertificate) {
		t.Error("the Certificates should be applied before waiting for their Secrets")
	}
	for _, asset := range []string{bindata.LWSCRD, bindata.LWSValidatingWebhookConfiguration, bindata.LWSDeployment} {
		if env.exists(asset) {
			t.Errorf("%s must wait for the certificates", asset)
		}
	}
}

// The Certificates are asked for only once cert-manager has marked the Issuer Ready: made in
// the same moment as the Issuer, cert-manager's key manager can race itself and never issue one
// (seen in CI; cert-manager/cert-manager#9097).
func TestCertificatesWaitForTheIssuerReady(t *testing.T) {
	env := newFakeEnv(t, withCRDs(certManagerCRDs...), withIssuerNotReady())
	if err := env.sync(); err != nil {
		t.Fatalf("waiting for the Issuer is not an error: %v", err)
	}
	env.expectCondition(operatorv1.OperatorStatusTypeProgressing, operatorv1.ConditionTrue, "WaitingForCertificates")
	if !env.exists(bindata.LWSIssuer) {
		t.Fatal("the Issuer was not applied")
	}
	if env.exists(bindata.LWSWebhookCertificate) || env.exists(bindata.LWSMetricsCertificate) {
		t.Error("a Certificate was applied before the Issuer was Ready")
	}

	issuer, err := env.dynamic.Resource(engine.IssuerGVR).Namespace(testNamespace).Get(env.ctx, "lws-selfsigned-issuer", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	markIssuerReady(issuer)
	if _, err := env.dynamic.Resource(engine.IssuerGVR).Namespace(testNamespace).UpdateStatus(env.ctx, issuer, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The operand reads the Issuer through its caches: the sync that follows cert-manager's
	// status update is the one the update's event brings, after the cache has it.
	cached := (&engine.CachedClients{Dynamic: env.dynamic, Caches: env.caches}).DynamicClient()
	env.waitFor("the Issuer's Ready in the operand's cache", func() bool {
		u, err := cached.Resource(engine.IssuerGVR).Namespace(testNamespace).Get(env.ctx, "lws-selfsigned-issuer", metav1.GetOptions{})
		return err == nil && issuerReady(u)
	})
	if err := env.sync(); err != nil {
		t.Fatal(err)
	}
	if !env.exists(bindata.LWSWebhookCertificate) || !env.exists(bindata.LWSMetricsCertificate) {
		t.Error("the Certificates were not applied once the Issuer was Ready")
	}
}

func TestServiceMonitorIsOptional(t *testing.T) {
	tests := []struct {
		name        string
		crds        []string
		wantMonitor bool
	}{
		{name: "no ServiceMonitor CRD: skipped, the operand still installs", crds: certManagerCRDs, wantMonitor: false},
		{name: "ServiceMonitor CRD installed", crds: append(append([]string{}, certManagerCRDs...), engine.CRDName(ServiceMonitorGVR)), wantMonitor: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newFakeEnv(t, withCRDs(tt.crds...), withObjects(issuedSecrets()...))
			if err := env.sync(); err != nil {
				t.Fatal(err)
			}
			if got := env.exists(bindata.LWSServiceMonitor); got != tt.wantMonitor {
				t.Errorf("ServiceMonitor applied = %v, want %v", got, tt.wantMonitor)
			}
			if !env.exists(bindata.LWSDeployment) {
				t.Error("the Deployment must not depend on the ServiceMonitor")
			}
			env.expectCondition(operatorv1.OperatorStatusTypeDegraded, operatorv1.ConditionFalse, engine.ReasonAsExpected)
		})
	}
}

func TestUnmanagedWritesNothingToOperandObjects(t *testing.T) {
	env := newFakeEnv(t, fullyInstalled()...)
	if err := env.sync(); err != nil {
		t.Fatal(err)
	}
	env.setState(operatorv1.Unmanaged)
	// An administrator scales the controller by hand while Unmanaged.
	d := env.deployment()
	d.Spec.Replicas = ptr.To[int32](3)
	d.Generation++ // the fake API does not bump generations itself
	if _, err := env.kube.AppsV1().Deployments(testNamespace).Update(env.ctx, d, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.waitFor("the hand-scaled Deployment in the cache", func() bool {
		cached := env.op.cachedDeployment()
		return cached != nil && *cached.Spec.Replicas == 3
	})
	env.clearActions()
	if err := env.sync(); err != nil {
		t.Fatal(err)
	}
	if w := env.writes(); len(w) > 0 {
		t.Errorf("Unmanaged wrote to operand objects: %v", w)
	}
	if got := *env.deployment().Spec.Replicas; got != 3 {
		t.Errorf("manual scaling was reverted while Unmanaged: replicas = %d", got)
	}
	env.expectCondition(operatorv1.OperatorStatusTypeProgressing, operatorv1.ConditionFalse, lwsoperatorv1.ReasonUnmanaged)

	// Back to Managed: the operator's spec returns.
	env.setState(operatorv1.Managed)
	if err := env.sync(); err != nil {
		t.Fatal(err)
	}
	if got := *env.deployment().Spec.Replicas; got != 2 {
		t.Errorf("back to Managed should restore replicas to 2, got %d", got)
	}
}

func TestRemovedNeverDeletesForeignObjects(t *testing.T) {
	// A webhook configuration with the name of one in the table, made by someone else.
	foreign := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "lws-validating-webhook-configuration"}}
	env := newFakeEnv(t, fullyInstalled(withObjects(foreign), withState(operatorv1.Removed))...)
	if err := env.sync(); err != nil {
		t.Fatal(err)
	}
	if _, err := env.kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(env.ctx, "lws-validating-webhook-configuration", metav1.GetOptions{}); err != nil {
		t.Errorf("an object the operator does not own was deleted: %v", err)
	}
	if !slices.ContainsFunc(env.recorder.Events(), func(e *corev1.Event) bool { return e.Reason == "RemovalSkipped" }) {
		t.Error("skipping a foreign object should be reported in an event")
	}
}

func TestRemovedDeletesOperandAndKeepsCRD(t *testing.T) {
	env := newFakeEnv(t, fullyInstalled()...)
	if err := env.sync(); err != nil {
		t.Fatal(err)
	}
	env.clearActions()
	env.setState(operatorv1.Removed)
	if err := env.sync(); err != nil {
		t.Fatal(err)
	}
	// Certificates go before their Secrets: cert-manager would re-issue a Secret whose
	// Certificate still exists.
	lastCertificateDelete, firstSecretDelete := -1, -1
	for i, a := range env.dynamic.Actions() {
		if a.GetVerb() != "delete" {
			continue
		}
		switch a.GetResource().Resource {
		case "certificates":
			lastCertificateDelete = i
		case "secrets":
			if firstSecretDelete < 0 {
				firstSecretDelete = i
			}
		}
	}
	if lastCertificateDelete < 0 || firstSecretDelete < 0 || firstSecretDelete < lastCertificateDelete {
		t.Errorf("want every Certificate deleted before the Secrets (last certificate delete #%d, first secret delete #%d)", lastCertificateDelete, firstSecretDelete)
	}
	for _, asset := range Assets() {
		switch asset {
		case bindata.LWSCRD, bindata.LWSDisaggregatedSetCRD, bindata.LWSRoleScalerCRD:
			if !env.exists(asset) {
				t.Errorf("%s deleted by Removed: every user's object of its kind goes with it", asset)
			}
			continue
		}
		if env.exists(asset) {
			t.Errorf("%s still exists after Removed", asset)
		}
	}
	for _, name := range append([]string{configMapName}, certificateSecrets...) {
		_, errCM := env.kube.CoreV1().ConfigMaps(testNamespace).Get(env.ctx, name, metav1.GetOptions{})
		_, errSecret := env.kube.CoreV1().Secrets(testNamespace).Get(env.ctx, name, metav1.GetOptions{})
		if errCM == nil || errSecret == nil {
			t.Errorf("%s still exists after Removed", name)
		}
	}
	crd, err := env.apiext.ApiextensionsV1().CustomResourceDefinitions().Get(env.ctx, lwsCRDName, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the LWS CRD must survive Removed: %v", err)
	}
	if crd.Spec.Conversion == nil || crd.Spec.Conversion.Strategy != apiextensionsv1.NoneConverter {
		t.Errorf("the CRD's conversion must no longer point at the deleted webhook Service: %+v", crd.Spec.Conversion)
	}
	env.expectCondition(operatorv1.OperatorStatusTypeAvailable, operatorv1.ConditionFalse, lwsoperatorv1.ReasonRemoved)
	env.expectCondition(operatorv1.OperatorStatusTypeDegraded, operatorv1.ConditionFalse, lwsoperatorv1.ReasonRemoved)

	// Back to Managed: cert-manager issues the Secrets again, and everything returns, the
	// CRD with its conversion webhook.
	for _, secret := range issuedSecrets() {
		if _, err := env.kube.CoreV1().Secrets(testNamespace).Create(env.ctx, secret.(*corev1.Secret), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	env.settle()
	env.setState(operatorv1.Managed)
	if err := env.sync(); err != nil {
		t.Fatal(err)
	}
	for _, asset := range Assets() {
		if !env.exists(asset) {
			t.Errorf("%s was not re-created after Removed -> Managed", asset)
		}
	}
	crd, _ = env.apiext.ApiextensionsV1().CustomResourceDefinitions().Get(env.ctx, lwsCRDName, metav1.GetOptions{})
	if crd.Spec.Conversion == nil || crd.Spec.Conversion.Strategy != apiextensionsv1.WebhookConverter {
		t.Errorf("conversion webhook not restored: %+v", crd.Spec.Conversion)
	}
}

func TestDeletingTheCRCleansUpAndReleasesIt(t *testing.T) {
	env := newFakeEnv(t, fullyInstalled()...)
	if err := env.sync(); err != nil {
		t.Fatal(err)
	}
	now := metav1.Now()
	env.deletion = &now
	if err := env.sync(); err != nil {
		t.Fatal(err)
	}
	if env.exists(bindata.LWSDeployment) || env.exists(bindata.LWSValidatingWebhookConfiguration) {
		t.Error("operand objects remain after the CR was deleted")
	}
	if !env.exists(bindata.LWSCRD) {
		t.Error("the LWS CRD must remain after the CR was deleted")
	}
	meta, _ := env.operator.GetObjectMeta()
	if slices.Contains(meta.Finalizers, Finalizer) {
		t.Errorf("finalizer not removed: %v", meta.Finalizers)
	}
}

func TestCRDCarriesNoOwnerReferenceOthersDo(t *testing.T) {
	env := newFakeEnv(t, fullyInstalled()...)
	if err := env.sync(); err != nil {
		t.Fatal(err)
	}
	crd, err := env.apiext.ApiextensionsV1().CustomResourceDefinitions().Get(env.ctx, lwsCRDName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(crd.OwnerReferences) != 0 {
		t.Errorf("the CRD must not be owned by the CR: %v", crd.OwnerReferences)
	}
	d := env.deployment()
	if len(d.OwnerReferences) != 1 || d.OwnerReferences[0].UID != "cr-uid" {
		t.Errorf("the Deployment should be owned by the CR: %v", d.OwnerReferences)
	}
}

func TestSecretDataChangeRollsTheDeployment(t *testing.T) {
	env := newFakeEnv(t, fullyInstalled()...)
	if err := env.sync(); err != nil {
		t.Fatal(err)
	}
	before := env.deployment().Spec.Template.Annotations

	// A metadata-only touch of a mounted Secret changes nothing.
	s, _ := env.kube.CoreV1().Secrets(testNamespace).Get(env.ctx, webhookSecretName, metav1.GetOptions{})
	s.Annotations = map[string]string{"touched": "yes"}
	if _, err := env.kube.CoreV1().Secrets(testNamespace).Update(env.ctx, s, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.waitFor("touched Secret in the cache", func() bool {
		cached, _ := env.namespaced.Core().V1().Secrets().Lister().Secrets(testNamespace).Get(webhookSecretName)
		return cached != nil && cached.Annotations["touched"] == "yes"
	})
	if err := env.sync(); err != nil {
		t.Fatal(err)
	}
	if got := env.deployment().Spec.Template.Annotations; !maps.Equal(got, before) {
		t.Errorf("a metadata-only change rolled the pods: %v -> %v", before, got)
	}

	// Rotated data rolls the pods.
	s, _ = env.kube.CoreV1().Secrets(testNamespace).Get(env.ctx, webhookSecretName, metav1.GetOptions{})
	s.Data["tls.crt"] = []byte("rotated")
	if _, err := env.kube.CoreV1().Secrets(testNamespace).Update(env.ctx, s, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.waitFor("rotated Secret in the cache", func() bool {
		cached, _ := env.namespaced.Core().V1().Secrets().Lister().Secrets(testNamespace).Get(webhookSecretName)
		return cached != nil && string(cached.Data["tls.crt"]) == "rotated"
	})
	if err := env.sync(); err != nil {
		t.Fatal(err)
	}
	key := engine.ConfigHashAnnotationPrefix + "secret-" + webhookSecretName
	if got := env.deployment().Spec.Template.Annotations[key]; got == before[key] || got == "" {
		t.Errorf("rotated Secret data should change %s (was %q, now %q)", key, before[key], got)
	}
}

func TestDeploymentFollowsTheCR(t *testing.T) {
	placement := &lwsoperatorv1.NodePlacement{
		NodeSelector: map[string]string{"node-role.kubernetes.io/infra": ""},
		Tolerations:  []corev1.Toleration{{Key: "node-role.kubernetes.io/infra", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
	}
	env := newFakeEnv(t, fullyInstalled(withCRLogLevel(operatorv1.Debug), withPlacement(placement))...)
	if err := env.sync(); err != nil {
		t.Fatal(err)
	}
	pod := env.deployment().Spec.Template.Spec
	if !slices.Contains(pod.Containers[0].Args, "--zap-log-level=4") {
		t.Errorf("logLevel Debug should set --zap-log-level=4: %v", pod.Containers[0].Args)
	}
	if pod.NodeSelector["node-role.kubernetes.io/infra"] != "" || len(pod.NodeSelector) != 1 {
		t.Errorf("nodeSelector = %v", pod.NodeSelector)
	}
	if len(pod.Tolerations) != 1 || pod.Tolerations[0].Key != "node-role.kubernetes.io/infra" {
		t.Errorf("tolerations = %v", pod.Tolerations)
	}

	// A manual edit of replicas is reverted.
	d := env.deployment()
	d.Spec.Replicas = ptr.To[int32](5)
	d.Generation++
	if _, err := env.kube.AppsV1().Deployments(testNamespace).Update(env.ctx, d, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := env.sync(); err != nil {
		t.Fatal(err)
	}
	if got := *env.deployment().Spec.Replicas; got != 2 {
		t.Errorf("manual replicas edit not reverted: %d", got)
	}
}

func TestAvailableFollowsTheDeployment(t *testing.T) {
	env := newFakeEnv(t, fullyInstalled()...)
	if err := env.sync(); err != nil {
		t.Fatal(err)
	}
	d := env.deployment()
	n := *d.Spec.Replicas
	d.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: n, UpdatedReplicas: n, ReadyReplicas: n, AvailableReplicas: n}
	if _, err := env.kube.AppsV1().Deployments(testNamespace).UpdateStatus(env.ctx, d, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.waitFor("available Deployment in the cache", func() bool {
		cached := env.op.cachedDeployment()
		return cached != nil && cached.Status.AvailableReplicas == n
	})
	if err := env.sync(); err != nil {
		t.Fatal(err)
	}
	env.expectCondition(operatorv1.OperatorStatusTypeAvailable, operatorv1.ConditionTrue, engine.ReasonAsExpected)
	env.expectCondition(operatorv1.OperatorStatusTypeProgressing, operatorv1.ConditionFalse, engine.ReasonAsExpected)
	if _, status, _, _ := env.operator.GetOperatorState(); status.ReadyReplicas != n {
		t.Errorf("readyReplicas = %d, want %d", status.ReadyReplicas, n)
	}
}

func TestApplyFailureIsDegradedAndOtherStepsRun(t *testing.T) {
	env := newFakeEnv(t, fullyInstalled()...)
	env.kube.PrependReactor("create", "validatingwebhookconfigurations", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(admissionregistrationv1.Resource("validatingwebhookconfigurations"), "lws-validating-webhook-configuration", errors.New("test: forbidden"))
	})
	err := env.sync()
	if err == nil {
		t.Fatal("a failed apply should return an error so the controller retries")
	}
	env.expectCondition(operatorv1.OperatorStatusTypeDegraded, operatorv1.ConditionTrue, "ApplyFailed")
	if msg := env.condition(operatorv1.OperatorStatusTypeDegraded).Message; !strings.Contains(msg, "webhook configurations") {
		t.Errorf("message should name the failed step: %q", msg)
	}
	if !env.exists(bindata.LWSDeployment) {
		t.Error("an unrelated step's failure must not stop the Deployment")
	}
}
