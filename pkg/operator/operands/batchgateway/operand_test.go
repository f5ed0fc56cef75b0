package batchgateway

import (
	"maps"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	"github.com/llm-infra/llm-infra-operator/bindata"
	batchv1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/batch/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

const ns = "llm"

// minimalCR is the smallest CR that runs: a sync gateway on an fs PVC (golden case
// extra-minimal-sync-fs), with a name of the test's choosing.
func minimalCR(t *testing.T, name string) *batchv1alpha1.LLMBatchGateway {
	cr := goldenCR(t, "extra-minimal-sync-fs")
	cr.Name, cr.UID, cr.ResourceVersion = name, "", ""
	return cr
}

// wantedObjects renders the CR as the operand does and returns the wanted and unwanted objects.
func wantedObjects(t *testing.T, cr *batchv1alpha1.LLMBatchGateway) (wanted, unwanted []renderedObject) {
	t.Helper()
	objs, err := renderAll(renderInput{cr: cr, images: testImages, credentialsSecret: credentialsSecretFor(cr)})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		if o.wanted {
			wanted = append(wanted, o)
		} else {
			unwanted = append(unwanted, o)
		}
	}
	return wanted, unwanted
}

func (e *fakeEnv) objectOf(ro renderedObject) metav1.Object {
	m := metaOf(ro.obj)
	return e.object(engine.MustResourceFor(engine.KindOf(ro.obj)), m.GetNamespace(), m.GetName())
}

func TestAppliesEveryWantedObjectOwnedAndLabelled(t *testing.T) {
	env := newFakeEnv(t, withObjects(credentials(ns, "batch-gateway-secrets", nil)))
	cr := env.create(minimalCR(t, "gw"))
	if err := env.sync(ns, "gw"); err != nil {
		t.Fatalf("sync: %v", err)
	}
	wanted, unwanted := wantedObjects(t, cr)
	if len(wanted) != 10 {
		t.Errorf("%d wanted objects for a minimal sync CR, want 10 (3 ServiceAccounts, 3 ConfigMaps, 1 Service, 3 Deployments)", len(wanted))
	}
	for _, ro := range wanted {
		obj := env.objectOf(ro)
		if obj == nil {
			t.Errorf("%s was not applied", ro.asset)
			continue
		}
		if !engine.IsManaged(obj.GetLabels()) || obj.GetLabels()[PartOfLabel] != PartOfValue {
			t.Errorf("%s labels = %v", ro.asset, obj.GetLabels())
		}
		ref := metav1.GetControllerOfNoCopy(obj)
		if ref == nil || ref.UID != cr.UID || ref.Kind != "LLMBatchGateway" || !ptr.Deref(ref.BlockOwnerDeletion, false) {
			t.Errorf("%s controller = %+v, want the CR with blockOwnerDeletion", ro.asset, ref)
		}
	}
	for _, ro := range unwanted {
		if env.objectOf(ro) != nil {
			t.Errorf("%s exists although the CR does not ask for it", ro.asset)
		}
	}
	d := env.deployment(ns, NamesFor("gw").APIServer)
	if got := d.Spec.Template.Spec.Containers[0].Image; got != testImages.APIServer {
		t.Errorf("apiserver image = %q", got)
	}
	for _, key := range []string{engine.ConfigHashAnnotationPrefix + "configmap-" + NamesFor("gw").APIServerConfig, engine.ConfigHashAnnotationPrefix + "secret-batch-gateway-secrets"} {
		if d.Spec.Template.Annotations[key] == "" {
			t.Errorf("pod template lacks %s: %v", key, d.Spec.Template.Annotations)
		}
	}
	if sc := d.Spec.Template.Spec.SecurityContext; sc == nil || !ptr.Deref(sc.RunAsNonRoot, false) {
		t.Error("pods must meet the restricted profile")
	}

	// No pod runs under the fakes: nothing is ready yet, but nothing is wrong either.
	env.expectCondition(ns, "gw", batchv1alpha1.ConditionReady, metav1.ConditionFalse, batchv1alpha1.ReasonComponentsNotReady)
	env.expectCondition(ns, "gw", batchv1alpha1.ConditionAPIServerAvailable, metav1.ConditionFalse, batchv1alpha1.ReasonUnavailable)
	env.expectCondition(ns, "gw", engine.ConditionDegraded, metav1.ConditionFalse, engine.ReasonAsExpected)
	env.expectCondition(ns, "gw", engine.ConditionProgressing, metav1.ConditionTrue, engine.ReasonDeploymentRollingOut)
	if c := env.condition(ns, "gw", batchv1alpha1.ConditionAsyncProcessorAvailable); c != nil {
		t.Errorf("a sync gateway has no async-processor condition: %+v", c)
	}
	status := env.get(ns, "gw").Status
	if status.ObservedGeneration != cr.Generation || len(status.Generations) != 3 || status.ComponentStatus == nil || status.ComponentStatus.APIServer == nil {
		t.Errorf("status = %+v", status)
	}
}

// A gateway that serves stays Ready while a new spec rolls out (an operator upgrade rolls every
// component whose manifest changed): the rollout is Progressing, not a loss of readiness.
func TestReadyWhileEveryComponentServes(t *testing.T) {
	env := newFakeEnv(t, withObjects(credentials(ns, "batch-gateway-secrets", nil)))
	env.create(minimalCR(t, "gw"))
	if err := env.sync(ns, "gw"); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(env.eventReasons(), "NotReady") {
		t.Errorf("a new CR is not ready until its pods start: no warning for that; events: %v", env.eventReasons())
	}
	names := NamesFor("gw")
	for _, d := range []string{names.APIServer, names.Processor, names.GC} {
		env.makeAvailable(ns, d)
	}
	env.waitFor("available Deployments cached", func() bool {
		obj, err := env.caches.Get(engine.Deployments, ns, names.GC)
		return err == nil && obj.(*appsv1.Deployment).Status.AvailableReplicas == 1
	})
	if err := env.sync(ns, "gw"); err != nil {
		t.Fatal(err)
	}
	env.expectCondition(ns, "gw", batchv1alpha1.ConditionReady, metav1.ConditionTrue, batchv1alpha1.ReasonAllComponentsReady)
	env.expectCondition(ns, "gw", engine.ConditionProgressing, metav1.ConditionFalse, engine.ReasonAsExpected)
	if !slices.Contains(env.eventReasons(), "Ready") {
		t.Errorf("becoming ready is an event; events: %v", env.eventReasons())
	}

	// A spec change rolls the apiserver: its ready pod of the old spec still serves, so the
	// component stays available and the gateway Ready; Progressing shows the rollout.
	env.update(ns, "gw", func(cr *batchv1alpha1.LLMBatchGateway) {
		cr.Spec.APIServer.Config = &batchv1alpha1.APIServerConfigSpec{EnablePprof: true}
	})
	if err := env.sync(ns, "gw"); err != nil {
		t.Fatal(err)
	}
	env.expectCondition(ns, "gw", batchv1alpha1.ConditionAPIServerAvailable, metav1.ConditionTrue, batchv1alpha1.ReasonAvailable)
	env.expectCondition(ns, "gw", batchv1alpha1.ConditionReady, metav1.ConditionTrue, batchv1alpha1.ReasonAllComponentsReady)
	c := env.expectCondition(ns, "gw", engine.ConditionProgressing, metav1.ConditionTrue, engine.ReasonDeploymentRollingOut)
	if !strings.Contains(c.Message, "API server is rolling out") {
		t.Errorf("Progressing message %q should name the component rolling out", c.Message)
	}
	if slices.Contains(env.eventReasons(), "NotReady") {
		t.Errorf("a rollout of a serving gateway is no loss of readiness; events: %v", env.eventReasons())
	}

	// apiServer.replicas 0 suspends the API server, and the gateway is not ready (as upstream).
	env.update(ns, "gw", func(cr *batchv1alpha1.LLMBatchGateway) { cr.Spec.APIServer.Replicas = ptr.To[int32](0) })
	if err := env.sync(ns, "gw"); err != nil {
		t.Fatal(err)
	}
	env.makeAvailable(ns, names.APIServer)
	env.waitFor("scaled Deployment cached", func() bool {
		obj, err := env.caches.Get(engine.Deployments, ns, names.APIServer)
		d, _ := obj.(*appsv1.Deployment)
		return err == nil && d.Status.ObservedGeneration == d.Generation
	})
	if err := env.sync(ns, "gw"); err != nil {
		t.Fatal(err)
	}
	env.expectCondition(ns, "gw", batchv1alpha1.ConditionReady, metav1.ConditionFalse, batchv1alpha1.ReasonComponentsNotReady)
	if !slices.Contains(env.eventReasons(), "NotReady") {
		t.Errorf("losing readiness is a warning event; events: %v", env.eventReasons())
	}
	c = env.expectCondition(ns, "gw", batchv1alpha1.ConditionAPIServerAvailable, metav1.ConditionFalse, batchv1alpha1.ReasonUnavailable)
	if !strings.Contains(c.Message, "spec.apiServer.replicas is 0") {
		t.Errorf("message %q should name the field", c.Message)
	}
}

func TestQuietSyncMakesNoRequest(t *testing.T) {
	env := newFakeEnv(t, withCRDs(optionalCRDs...), withObjects(credentials(ns, "batch-gateway-secrets", nil)))
	cr := minimalCR(t, "gw")
	cr.Spec.Monitoring = &batchv1alpha1.MonitoringSpec{Enabled: true}
	cr.Spec.Grafana = &batchv1alpha1.GrafanaSpec{Enabled: true}
	env.create(cr)
	for i := 0; i < 2; i++ { // the second settles the generations recorded in status
		if err := env.sync(ns, "gw"); err != nil {
			t.Fatal(err)
		}
	}
	env.waitFor("monitors in the caches", func() bool {
		_, err := env.caches.Get(PodMonitorGVR.GroupResource(), ns, NamesFor("gw").GC)
		return err == nil
	})
	env.clearActions()
	for i := 0; i < 3; i++ {
		// Called directly: settle() reads from the fakes itself.
		if err := env.op.syncKey(env.ctx, env.syncCtx, ns+"/gw"); err != nil {
			t.Fatal(err)
		}
	}
	if w := env.writes(); len(w) > 0 {
		t.Errorf("quiet syncs wrote: %v", w)
	}
	if r := env.reads(); len(r) > 0 {
		t.Errorf("quiet syncs read from the API instead of the caches: %v", r)
	}
	// The managed-by informer holds Deployments without their pod template
	// (engine.DropPodTemplate), which the quiet syncs above did not take for a difference; the
	// API's copy keeps its template.
	obj, err := env.caches.Get(engine.Deployments, ns, NamesFor("gw").GC)
	if d, _ := obj.(*appsv1.Deployment); err != nil || d == nil || len(d.Spec.Template.Spec.Containers) != 0 {
		t.Errorf("the cached Deployment should have no pod template: %v", err)
	}
	live, err := env.kube.AppsV1().Deployments(ns).Get(env.ctx, NamesFor("gw").GC, metav1.GetOptions{})
	if err != nil || len(live.Spec.Template.Spec.Containers) == 0 {
		t.Errorf("the live Deployment lost its pod template: %v", err)
	}
}

func TestValidationFailedLeavesRunningObjectsAlone(t *testing.T) {
	env := newFakeEnv(t, withObjects(credentials(ns, "batch-gateway-secrets", nil)))
	env.create(minimalCR(t, "gw"))
	if err := env.sync(ns, "gw"); err != nil {
		t.Fatal(err)
	}
	before := env.deployment(ns, NamesFor("gw").Processor)
	// Stored before the CRD's rules: both a global gateway and per-model gateways.
	env.update(ns, "gw", func(cr *batchv1alpha1.LLMBatchGateway) {
		cr.Spec.Processor.ModelGateways = map[string]batchv1alpha1.InferenceGatewaySpec{"m": {URL: "http://m:8000"}}
		cr.Spec.Processor.Config = &batchv1alpha1.ProcessorConfigSpec{NumWorkers: 99}
	})
	env.clearActions()
	if err := env.sync(ns, "gw"); err != nil {
		t.Fatal(err)
	}
	for _, w := range env.writes() {
		if !strings.HasPrefix(w, "update llmbatchgateways") {
			t.Errorf("an invalid spec changed an object: %s", w)
		}
	}
	for _, condType := range []string{batchv1alpha1.ConditionReady, batchv1alpha1.ConditionAPIServerAvailable, batchv1alpha1.ConditionProcessorAvailable, batchv1alpha1.ConditionGCAvailable} {
		c := env.expectCondition(ns, "gw", condType, metav1.ConditionFalse, batchv1alpha1.ReasonValidationFailed)
		if !strings.Contains(c.Message, "spec.processor") {
			t.Errorf("%s message %q should name the field", condType, c.Message)
		}
	}
	if after := env.deployment(ns, NamesFor("gw").Processor); after.ResourceVersion != before.ResourceVersion {
		t.Error("the running processor was changed by an invalid spec")
	}
	if !slices.Contains(env.eventReasons(), batchv1alpha1.ReasonValidationFailed) {
		t.Errorf("want a ValidationFailed event; events: %v", env.eventReasons())
	}
}

func TestMissingImageIsAConditionNotACrash(t *testing.T) {
	env := newFakeEnv(t, withImages(Images{APIServer: "a", Processor: "p", GC: "g"}), withObjects(credentials(ns, "batch-gateway-secrets", nil)))
	env.create(goldenCR(t, "dev-async"))
	name := goldenCR(t, "dev-async").Name
	if err := env.sync(ns, name); err != nil {
		t.Fatal(err)
	}
	c := env.expectCondition(ns, name, batchv1alpha1.ConditionReady, metav1.ConditionFalse, engine.ReasonImageMissing)
	if !strings.Contains(c.Message, AsyncProcessorImageEnv) {
		t.Errorf("message %q should name the variable to set", c.Message)
	}
}

func TestFeatureOffDeletesExactlyItsObjects(t *testing.T) {
	env := newFakeEnv(t, withCRDs(optionalCRDs...), withObjects(credentials(ns, "batch-gateway-secrets", nil)))
	on := func(cr *batchv1alpha1.LLMBatchGateway) {
		cr.Spec.Monitoring = &batchv1alpha1.MonitoringSpec{Enabled: true}
		cr.Spec.Grafana = &batchv1alpha1.GrafanaSpec{Enabled: true}
	}
	for _, name := range []string{"one", "two"} {
		cr := minimalCR(t, name)
		on(cr)
		env.create(cr)
		if err := env.sync(ns, name); err != nil {
			t.Fatal(err)
		}
	}
	one, two := NamesFor("one"), NamesFor("two")
	if env.object(PodMonitorGVR, ns, one.GC) == nil || env.object(podConfigMaps, ns, one.Dashboards) == nil {
		t.Fatal("monitoring and dashboards were not applied")
	}

	env.update(ns, "one", func(cr *batchv1alpha1.LLMBatchGateway) { cr.Spec.Monitoring, cr.Spec.Grafana = nil, nil })
	env.clearActions()
	if err := env.sync(ns, "one"); err != nil {
		t.Fatal(err)
	}
	var deleted []string
	for _, w := range env.writes() {
		if strings.HasPrefix(w, "delete") {
			deleted = append(deleted, w)
		}
	}
	// ServiceMonitor, 2 PodMonitors, dashboards ConfigMap.
	if len(deleted) != 4 {
		t.Errorf("deletes = %v, want the 4 objects of monitoring and dashboards", deleted)
	}
	if env.object(PodMonitorGVR, ns, one.GC) != nil || env.object(podConfigMaps, ns, one.Dashboards) != nil {
		t.Error("turned-off objects of 'one' are still there")
	}
	if env.object(PodMonitorGVR, ns, two.GC) == nil || env.object(podConfigMaps, ns, two.Dashboards) == nil {
		t.Error("the objects of another CR in the namespace were deleted")
	}
}

func TestOptionalCRDMissingIsNamedAndPickedUpLater(t *testing.T) {
	env := newFakeEnv(t, withObjects(credentials(ns, "batch-gateway-secrets", nil)))
	cr := minimalCR(t, "gw")
	cr.Spec.Monitoring = &batchv1alpha1.MonitoringSpec{Enabled: true}
	env.create(cr)
	if err := env.sync(ns, "gw"); err != nil {
		t.Fatal(err)
	}
	c := env.expectCondition(ns, "gw", engine.ConditionDegraded, metav1.ConditionTrue, engine.ReasonCRDMissing)
	for _, want := range []string{"servicemonitors.monitoring.coreos.com", "podmonitors.monitoring.coreos.com", "spec.monitoring.enabled"} {
		if !strings.Contains(c.Message, want) {
			t.Errorf("message %q should name %s", c.Message, want)
		}
	}
	// The rest of the operand runs all the same.
	if env.deployment(ns, NamesFor("gw").APIServer) == nil {
		t.Error("a missing optional CRD must not stop the operand")
	}

	for _, crd := range optionalCRDs {
		if _, err := env.apiext.ApiextensionsV1().CustomResourceDefinitions().Create(env.ctx, establishedCRD(crd), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	env.waitFor("CRDs cached", func() bool { return env.optional.Installed(ServiceMonitorGVR, PodMonitorGVR) == nil })
	if err := env.sync(ns, "gw"); err != nil {
		t.Fatal(err)
	}
	env.expectCondition(ns, "gw", engine.ConditionDegraded, metav1.ConditionFalse, engine.ReasonAsExpected)
	if env.object(ServiceMonitorGVR, ns, NamesFor("gw").APIServer) == nil {
		t.Error("the ServiceMonitor was not created once its CRD appeared")
	}
}

func TestForeignObjectIsNeverOverwritten(t *testing.T) {
	names := NamesFor("gw")
	foreign := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: names.ProcessorConfig, Namespace: ns}, Data: map[string]string{"mine": "yes"}}
	env := newFakeEnv(t, withObjects(credentials(ns, "batch-gateway-secrets", nil), foreign))
	env.create(minimalCR(t, "gw"))
	if err := env.sync(ns, "gw"); err != nil {
		t.Fatal(err)
	}
	c := env.expectCondition(ns, "gw", engine.ConditionDegraded, metav1.ConditionTrue, engine.ReasonObjectNotOwned)
	if !strings.Contains(c.Message, "ConfigMap "+ns+"/"+names.ProcessorConfig) {
		t.Errorf("message %q should name the object", c.Message)
	}
	got, err := env.kube.CoreV1().ConfigMaps(ns).Get(env.ctx, names.ProcessorConfig, metav1.GetOptions{})
	if err != nil || !maps.Equal(got.Data, foreign.Data) || engine.IsManaged(got.Labels) {
		t.Errorf("the foreign ConfigMap was changed: %+v, %v", got, err)
	}
}

func TestAdoptsWhatUpstreamCreated(t *testing.T) {
	cr := minimalCR(t, "gw")
	cr.UID = "upstream-uid"
	names := NamesFor("gw")
	// The upstream operator's objects: Helm labels and a controller reference to the same CR.
	upstreamOwner := []metav1.OwnerReference{{APIVersion: "batch.llm-d.ai/v1alpha1", Kind: "LLMBatchGateway", Name: "gw", UID: "upstream-uid", Controller: ptr.To(true)}}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: names.APIServer, Namespace: ns, OwnerReferences: upstreamOwner,
		Labels: map[string]string{"app.kubernetes.io/managed-by": "Helm"}}}
	env := newFakeEnv(t, withObjects(credentials(ns, "batch-gateway-secrets", nil), sa))
	env.create(cr)
	if err := env.sync(ns, "gw"); err != nil {
		t.Fatal(err)
	}
	env.expectCondition(ns, "gw", engine.ConditionDegraded, metav1.ConditionFalse, engine.ReasonAsExpected)
	got, err := env.kube.CoreV1().ServiceAccounts(ns).Get(env.ctx, names.APIServer, metav1.GetOptions{})
	if err != nil || !engine.IsManaged(got.Labels) {
		t.Errorf("the upstream ServiceAccount was not adopted: %+v, %v", got, err)
	}
	list, _ := env.kube.CoreV1().ServiceAccounts(ns).List(env.ctx, metav1.ListOptions{})
	if len(list.Items) != 3 {
		t.Errorf("%d ServiceAccounts, want 3 (no duplicate)", len(list.Items))
	}
}

// podConfigMaps is the resource of ConfigMaps, for env.object.
var podConfigMaps = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

var _ = []any{unstructured.Unstructured{}, runtime.Object(nil), bindata.BatchGatewayAssets}
