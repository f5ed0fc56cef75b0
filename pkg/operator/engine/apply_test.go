package engine

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/informers"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"

	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"

	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine/enginetest"
)

// applyEnv is an Applier on fake clients whose dynamic client shares the typed fake's objects,
// with informers on HPAs, ConfigMaps, ServiceAccounts, Services, Secrets and Deployments (their
// template dropped, as in production) registered in the caches.
type applyEnv struct {
	ctx     context.Context
	kube    *kubefake.Clientset
	dyn     *dynamicfake.FakeDynamicClient
	applier Applier
	synced  []cache.InformerSynced
}

func newApplyEnv(t *testing.T, adopt func(metav1.Object) bool, objs ...runtime.Object) *applyEnv {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	kube := kubefake.NewSimpleClientset(objs...)
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	dyn := dynamicfake.NewSimpleDynamicClient(scheme)
	enginetest.ServeBuiltInsFromTracker(dyn, kube.Tracker())
	caches := NewCaches()
	// As in production, the informers select the operator's label: an object without it is
	// never cached, and reading it always asks the API.
	factory := informers.NewSharedInformerFactoryWithOptions(kube, 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = ManagedBySelector() }))
	RegisterInformers(caches, nil,
		Informed{GroupResource: HorizontalPodAutoscalers, Informer: factory.Autoscaling().V2().HorizontalPodAutoscalers().Informer()},
		Informed{GroupResource: ConfigMaps, Informer: factory.Core().V1().ConfigMaps().Informer()},
		Informed{GroupResource: ServiceAccounts, Informer: factory.Core().V1().ServiceAccounts().Informer()},
		Informed{GroupResource: Services, Informer: factory.Core().V1().Services().Informer()},
		Informed{GroupResource: Secrets, Informer: factory.Core().V1().Secrets().Informer()},
		Informed{GroupResource: Deployments, Informer: factory.Apps().V1().Deployments().Informer(), Transform: managedTransform(Deployments)},
	)
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	return &applyEnv{ctx: ctx, kube: kube, dyn: dyn, applier: Applier{
		Clients:  &CachedClients{Kube: kube, Dynamic: dyn, Caches: caches},
		Cache:    resourceapply.NewResourceCache(),
		Recorder: events.NewInMemoryRecorder("test", clock.RealClock{}),
		Adopt:    adopt,
	}}
}

func hpa(maxReplicas int32) *autoscalingv2.HorizontalPodAutoscaler {
	return &autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: "gw-hpa", Namespace: "ns", Labels: map[string]string{ManagedByLabel: ManagedByValue}},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "gw"},
			MinReplicas:    ptr.To[int32](1),
			MaxReplicas:    maxReplicas,
		},
	}
}

// writes lists the writes either fake received since the last clear.
func (e *applyEnv) writes() []string {
	var out []string
	for _, a := range append(e.kube.Actions(), e.dyn.Actions()...) {
		switch a.GetVerb() {
		case "create", "update", "delete":
			out = append(out, a.GetVerb()+" "+a.GetResource().Resource)
		}
	}
	return out
}

func TestApplyHPAWithoutATypedFunction(t *testing.T) {
	env := newApplyEnv(t, nil)
	if err := env.applier.Apply(env.ctx, hpa(5)); err != nil {
		t.Fatalf("create: %v", err)
	}
	got, err := env.kube.AutoscalingV2().HorizontalPodAutoscalers("ns").Get(env.ctx, "gw-hpa", metav1.GetOptions{})
	if err != nil || got.Spec.MaxReplicas != 5 {
		t.Fatalf("HPA after create = %+v, %v", got, err)
	}
	waitCached(t, env.applier.Clients.Caches, HorizontalPodAutoscalers, "ns", "gw-hpa")

	env.kube.ClearActions()
	env.dyn.ClearActions()
	if err := env.applier.Apply(env.ctx, hpa(5)); err != nil {
		t.Fatal(err)
	}
	if w := env.writes(); len(w) != 0 {
		t.Errorf("an unchanged HPA was written: %v", w)
	}
	if err := env.applier.Apply(env.ctx, hpa(8)); err != nil {
		t.Fatal(err)
	}
	got, _ = env.kube.AutoscalingV2().HorizontalPodAutoscalers("ns").Get(env.ctx, "gw-hpa", metav1.GetOptions{})
	if got.Spec.MaxReplicas != 8 {
		t.Errorf("maxReplicas = %d after a changed apply, want 8", got.Spec.MaxReplicas)
	}
}

// countingCache is a resourceapply.ResourceCache that counts its uses and never skips.
type countingCache struct{ uses int }

func (c *countingCache) UpdateCachedResourceMetadata(runtime.Object, runtime.Object) { c.uses++ }
func (c *countingCache) SafeToSkipApply(runtime.Object, runtime.Object) bool         { c.uses++; return false }

// The core kinds are compared field by field with what the caches hold, never through the
// resource cache (whose hash of the whole object cost more than the comparison): an unchanged
// apply sends nothing, a changed one updates, and the resource cache is not used.
func TestApplyCoreKindsWithoutTheResourceCache(t *testing.T) {
	managed := map[string]string{ManagedByLabel: ManagedByValue}
	meta := func() metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: "gw", Namespace: "ns", Labels: maps.Clone(managed)}
	}
	for _, tc := range []struct {
		gr       schema.GroupResource
		resource string
		// object is the rendered object; changed differs from it where the kind's apply compares.
		object, changed func() runtime.Object
	}{
		{ServiceAccounts, "serviceaccounts",
			func() runtime.Object { return &corev1.ServiceAccount{ObjectMeta: meta()} },
			func() runtime.Object {
				m := meta()
				m.Annotations = map[string]string{"a": "b"}
				return &corev1.ServiceAccount{ObjectMeta: m}
			}},
		{ConfigMaps, "configmaps",
			func() runtime.Object { return &corev1.ConfigMap{ObjectMeta: meta(), Data: map[string]string{"k": "v"}} },
			func() runtime.Object { return &corev1.ConfigMap{ObjectMeta: meta(), Data: map[string]string{"k": "w"}} }},
		{Services, "services",
			func() runtime.Object {
				return &corev1.Service{ObjectMeta: meta(), Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "gw"}}}
			},
			func() runtime.Object {
				return &corev1.Service{ObjectMeta: meta(), Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "other"}}}
			}},
		// Typed as the API server defaults it (the fake does not, and resourceapply replaces a
		// Secret whose type changed).
		{Secrets, "secrets",
			func() runtime.Object {
				return &corev1.Secret{ObjectMeta: meta(), Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"k": []byte("v")}}
			},
			func() runtime.Object {
				return &corev1.Secret{ObjectMeta: meta(), Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"k": []byte("w")}}
			}},
	} {
		t.Run(tc.resource, func(t *testing.T) {
			env := newApplyEnv(t, nil)
			counting := &countingCache{}
			env.applier.Cache = counting
			if err := env.applier.Apply(env.ctx, tc.object()); err != nil {
				t.Fatalf("create: %v", err)
			}
			waitCached(t, env.applier.Clients.Caches, tc.gr, "ns", "gw")

			env.kube.ClearActions()
			env.dyn.ClearActions()
			if err := env.applier.Apply(env.ctx, tc.object()); err != nil {
				t.Fatal(err)
			}
			if w, r := env.writes(), env.reads(); len(w) != 0 || len(r) != 0 {
				t.Errorf("an unchanged apply sent writes %v and reads %v, want none", w, r)
			}
			if err := env.applier.Apply(env.ctx, tc.changed()); err != nil {
				t.Fatal(err)
			}
			if w := env.writes(); !slices.Equal(w, []string{"update " + tc.resource}) {
				t.Errorf("a changed apply wrote %v, want one update", w)
			}
			if counting.uses != 0 {
				t.Errorf("the resource cache was used %d times, want 0", counting.uses)
			}
		})
	}
	// The unstructured apply (an HPA here) still uses it: a spec the API server defaults would
	// otherwise be written on every sync.
	env := newApplyEnv(t, nil)
	counting := &countingCache{}
	env.applier.Cache = counting
	if err := env.applier.Apply(env.ctx, hpa(5)); err != nil {
		t.Fatal(err)
	}
	if counting.uses == 0 {
		t.Error("the HPA's apply did not use the resource cache")
	}
}

// An object the operator may not take over is never written: its create (the caches, which
// select the operator's label, do not hold it) finds the name taken, the object is read, and
// the apply stops there.
func TestApplyRefusesAnObjectItMayNotAdopt(t *testing.T) {
	foreign := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "ns"}, Data: map[string]string{"theirs": "1"}}
	env := newApplyEnv(t, func(m metav1.Object) bool { return IsManaged(m.GetLabels()) }, foreign)
	mine := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "ns"}, Data: map[string]string{"mine": "1"}}
	err := env.applier.Apply(env.ctx, mine)
	if err == nil || !strings.Contains(err.Error(), "ConfigMap ns/cm exists") {
		t.Fatalf("err = %v, want a refusal naming the ConfigMap", err)
	}
	if se, ok := err.(*StepError); !ok || se.Reason != ReasonObjectNotOwned || se.Blocking {
		t.Errorf("err = %#v, want a non-blocking ObjectNotOwned problem", err)
	}
	if w := env.writes(); len(w) != 1 || w[0] != "create configmaps" {
		t.Errorf("writes = %v, want only the create that found the name taken", w)
	}
	live, err := env.kube.CoreV1().ConfigMaps("ns").Get(env.ctx, "cm", metav1.GetOptions{})
	if err != nil || live.Data["theirs"] != "1" || live.Data["mine"] != "" {
		t.Errorf("the foreign ConfigMap changed: %+v, %v", live, err)
	}
}

// reads lists the reads either fake received since the last clear.
func (e *applyEnv) reads() []string {
	var out []string
	for _, a := range append(e.kube.Actions(), e.dyn.Actions()...) {
		switch a.GetVerb() {
		case "get", "list":
			out = append(out, a.GetVerb()+" "+a.GetResource().Resource)
		}
	}
	return out
}

// Creating an object costs no read: the caches, synced, say it is absent, so it is created
// without asking the API. Only a create that finds the name taken (an object the caches do not
// hold: no operator label) reads it, once, before applying over it; the create's failure is
// no event on the CR. The answers are not kept: the next apply asks the caches again.
func TestApplyReadsOnlyAfterAlreadyExists(t *testing.T) {
	managed := map[string]string{ManagedByLabel: ManagedByValue}
	for _, tc := range []struct {
		name       string
		existing   []runtime.Object
		wantReads  []string
		wantWrites []string
	}{
		{"new object", nil, nil, []string{"create configmaps"}},
		// Without the operator's label, so no informer holds it; the test adopts anything.
		{"an existing object the caches do not hold", []runtime.Object{&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "uncached", Namespace: "ns"}}},
			[]string{"get configmaps"}, []string{"create configmaps", "update configmaps"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newApplyEnv(t, func(metav1.Object) bool { return true }, tc.existing...)
			recorder := events.NewInMemoryRecorder("test", clock.RealClock{})
			env.applier.Recorder = recorder
			env.kube.ClearActions()
			env.dyn.ClearActions()
			name := "new"
			if len(tc.existing) > 0 {
				name = "uncached"
			}
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", Labels: managed}, Data: map[string]string{"k": "v"}}
			if err := env.applier.Apply(env.ctx, cm); err != nil {
				t.Fatal(err)
			}
			if r := env.reads(); !slices.Equal(r, tc.wantReads) {
				t.Errorf("reads = %v, want %v", r, tc.wantReads)
			}
			if w := env.writes(); !slices.Equal(w, tc.wantWrites) {
				t.Errorf("writes = %v, want %v", w, tc.wantWrites)
			}
			live, err := env.kube.CoreV1().ConfigMaps("ns").Get(env.ctx, name, metav1.GetOptions{})
			if err != nil || live.Data["k"] != "v" || !IsManaged(live.Labels) {
				t.Errorf("after the apply: %+v, %v", live, err)
			}
			if n := len(recorder.Events()); n != 0 {
				t.Errorf("events on the CR: %v", recorder.Events())
			}
			if env.applier.Clients.reads != nil {
				t.Error("the Applier's own clients keep an earlier apply's reads")
			}
		})
	}
}

func TestDeleteOwnedFromCacheLeavesForeignObjects(t *testing.T) {
	ours := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "ours", Namespace: "ns", Labels: map[string]string{ManagedByLabel: ManagedByValue}}}
	theirs := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "theirs", Namespace: "ns"}}
	env := newApplyEnv(t, nil, ours, theirs)
	for _, name := range []string{"ours", "theirs"} {
		if err := env.applier.DeleteObject(env.ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}}, ManagedByOperator, FromCache); err != nil {
			t.Fatal(err)
		}
	}
	if w := env.writes(); len(w) != 1 || w[0] != "delete configmaps" {
		t.Errorf("writes = %v, want exactly the delete of the operator's ConfigMap", w)
	}
	if _, err := env.kube.CoreV1().ConfigMaps("ns").Get(env.ctx, "theirs", metav1.GetOptions{}); err != nil {
		t.Errorf("the foreign ConfigMap is gone: %v", err)
	}
}

// waitCached waits until the caches hold an object (informers deliver asynchronously).
func waitCached(t *testing.T, caches *Caches, gr schema.GroupResource, namespace, name string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := caches.Get(gr, namespace, name); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s %s/%s never reached the caches", gr, namespace, name)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// ResourceFor maps a declared kind to its declared resource (Gateway API's Gateway is
// "gateways", which apimachinery's guess gets wrong) and refuses a kind nobody declared.
func TestResourceFor(t *testing.T) {
	for _, r := range Resources {
		got, err := ResourceFor(r.GVR.GroupVersion().WithKind(r.Kind))
		if err != nil || got != r.GVR {
			t.Errorf("ResourceFor(%s) = %v, %v; want %v", r.Kind, got, err, r.GVR)
		}
	}
	if got, err := ResourceFor(GatewayAPIGatewayGVR.GroupVersion().WithKind("Gateway")); err != nil || got.Resource != "gateways" {
		t.Errorf("Gateway API's Gateway = %v, %v", got, err)
	}
	if _, err := ResourceFor(schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}); err == nil {
		t.Error("an undeclared kind was mapped")
	}
}

// With TrackAnnotations, an annotation the rendered object no longer has is removed if an
// earlier apply set it; one someone else set stays.
func TestApplyRemovesDroppedAnnotations(t *testing.T) {
	env := newApplyEnv(t, ManagedByOperator)
	env.applier.TrackAnnotations = true
	render := func(annotations map[string]string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "ns",
			Labels: map[string]string{ManagedByLabel: ManagedByValue}, Annotations: annotations}}
	}
	// cached waits until the caches hold the ConfigMap as the API does (the next apply reads it
	// there), and returns it.
	cached := func() *corev1.ConfigMap {
		t.Helper()
		live, err := env.kube.CoreV1().ConfigMaps("ns").Get(env.ctx, "cm", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			// The fake sets no resourceVersion: compare what the next apply reads.
			if c, err := env.applier.Clients.Caches.GetMeta(ConfigMaps, "ns", "cm"); err == nil && maps.Equal(c.GetAnnotations(), live.Annotations) {
				return live
			}
			if time.Now().After(deadline) {
				t.Fatal("the ConfigMap never reached the caches as it is")
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	applyAndCache := func(cm *corev1.ConfigMap) *corev1.ConfigMap {
		t.Helper()
		if err := env.applier.Apply(env.ctx, cm); err != nil {
			t.Fatal(err)
		}
		return cached()
	}
	live := applyAndCache(render(map[string]string{"example.com/a": "1", "example.com/b": "2"}))
	live.Annotations["example.com/by-hand"] = "kept"
	if _, err := env.kube.CoreV1().ConfigMaps("ns").Update(env.ctx, live, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	cached()
	for _, step := range []struct {
		render map[string]string
		want   map[string]string
	}{
		{map[string]string{"example.com/a": "1"}, map[string]string{"example.com/a": "1", "example.com/by-hand": "kept", AppliedAnnotationsKey: "example.com/a"}},
		{nil, map[string]string{"example.com/by-hand": "kept"}},
	} {
		got := applyAndCache(render(step.render)).Annotations
		if !maps.Equal(got, step.want) {
			t.Errorf("rendered %v: annotations %v, want %v", step.render, got, step.want)
		}
	}
}

// Deleting a Certificate deletes the CertificateRequests it controlled (cert-manager names a
// Certificate's first request after it, so one left to the garbage collector blocks a Certificate
// made again under the same name) and leaves every other request alone.
func TestDeleteOwnedDeletesTheRequestsOfACertificate(t *testing.T) {
	labelled := map[string]any{ManagedByLabel: ManagedByValue}
	object := func(kind, name, uid string, labels map[string]any, owner string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "cert-manager.io/v1", "kind": kind,
			"metadata": map[string]any{"name": name, "namespace": "ns", "uid": uid},
		}}
		if labels != nil {
			_ = unstructured.SetNestedMap(u.Object, labels, "metadata", "labels")
		}
		if owner != "" {
			u.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "cert-manager.io/v1", Kind: "Certificate", Name: "serving", UID: types.UID(owner), Controller: ptr.To(true)}})
		}
		return u
	}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{CertificateGVR: "CertificateList", CertificateRequestGVR: "CertificateRequestList"},
		object("Certificate", "serving", "cert-uid", labelled, ""),
		object("Certificate", "other", "other-uid", labelled, ""),
		object("CertificateRequest", "serving-1", "req-1", labelled, "cert-uid"),
		object("CertificateRequest", "serving-2", "req-2", labelled, "cert-uid"),
		// An earlier Certificate of that name's request: the garbage collector's, not this delete's.
		object("CertificateRequest", "serving-old", "req-old", labelled, "earlier-uid"),
		object("CertificateRequest", "other-1", "req-other", labelled, "other-uid"),
		// Without the operator's label: cert-manager did not make it from a Certificate of ours.
		object("CertificateRequest", "unlabelled", "req-unlabelled", nil, "cert-uid"),
	)
	applier := Applier{
		Clients:  &CachedClients{Dynamic: dyn, Caches: NewCaches()},
		Recorder: events.NewInMemoryRecorder("test", clock.RealClock{}),
	}
	ctx := context.Background()
	if err := applier.DeleteOwned(ctx, CertificateGVR, "ns", "serving", ManagedByOperator, FromAPI); err != nil {
		t.Fatal(err)
	}
	list, err := dyn.Resource(CertificateRequestGVR).Namespace("ns").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, r := range list.Items {
		left = append(left, r.GetName())
	}
	slices.Sort(left)
	if want := []string{"other-1", "serving-old", "unlabelled"}; !slices.Equal(left, want) {
		t.Errorf("CertificateRequests left = %v, want %v", left, want)
	}
	if _, err := dyn.Resource(CertificateGVR).Namespace("ns").Get(ctx, "other", metav1.GetOptions{}); err != nil {
		t.Errorf("the other Certificate: %v", err)
	}

	// A Certificate that is already gone costs no list: nothing was deleted, so nothing to follow.
	dyn.ClearActions()
	if err := applier.DeleteOwned(ctx, CertificateGVR, "ns", "gone", ManagedByOperator, FromAPI); err != nil {
		t.Fatal(err)
	}
	for _, a := range dyn.Actions() {
		if a.GetVerb() == "list" {
			t.Errorf("a Certificate that was not there made a %s of %s", a.GetVerb(), a.GetResource().Resource)
		}
	}
}

// restartedDeployment is the Deployment "gw" as rendered: one container of image gw:1 and a
// pod-template annotation of the operator's own.
func restartedDeployment(labels map[string]string) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "gw", Namespace: "ns", Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "gw"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "gw"},
					Annotations: map[string]string{ConfigHashAnnotationPrefix + "cm": "1"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "gw", Image: "gw:1"}}},
			},
		},
	}
}

// TestApplyDeploymentKeepsARolloutRestartOnFakeClients: `kubectl rollout restart` sets the
// pod template's restartedAt and so bumps the generation; resourceapply then writes the rendered
// spec back, and without the live restartedAt that write would roll the pods again and undo the
// restart. The apply keeps the live value when the rendered template sets none, hashes only the
// rendered spec (a restart writes no metadata), and still reverts every other edit. Each row
// applies once with the generation the operator recorded, then once more with the generation
// that apply returned, which must write nothing: the operator does not loop. The fakes version
// objects like the API server (the generation grows only when an update changes the spec), so
// the generation after the first apply tells whether it changed the spec.
func TestApplyDeploymentKeepsARolloutRestartOnFakeClients(t *testing.T) {
	managed := map[string]string{ManagedByLabel: ManagedByValue}
	const restartedAt, renderedRestart = "2026-12-07T02:00:00Z", "2026-12-01T00:00:00Z"
	// written is the Deployment as the operator's apply of rendered left it at generation 1.
	written := func(rendered *appsv1.Deployment) *appsv1.Deployment {
		d := rendered.DeepCopy()
		if err := resourceapply.SetSpecHashAnnotation(&d.ObjectMeta, rendered.Spec); err != nil {
			t.Fatal(err)
		}
		d.Generation = 1
		return d
	}
	// Edits someone makes of the live Deployment: each bumps its generation, as the API server does.
	restart := func(d *appsv1.Deployment) {
		d.Spec.Template.Annotations[RestartedAtAnnotation] = restartedAt
		d.Generation++
	}
	editImage := func(d *appsv1.Deployment) {
		d.Spec.Template.Spec.Containers[0].Image = "gw:edited"
		d.Generation++
	}
	annotateTemplate := func(d *appsv1.Deployment) {
		d.Spec.Template.Annotations["example.com/by-hand"] = "x"
		d.Generation++
	}
	for _, tc := range []struct {
		name string
		// rendered changes the rendered Deployment; nil renders it as restartedDeployment does.
		rendered func(*appsv1.Deployment)
		// labels of the live Deployment (the rendered one has the operator's): without the
		// operator's label no informer holds it, and the create that finds the name taken reads it.
		labels map[string]string
		// live is what someone did to the written Deployment; absent: no live Deployment.
		live     []func(*appsv1.Deployment)
		absent   bool
		recorded int64
		// what the first apply sends and leaves
		wantWrites      []string
		wantReads       []string
		wantRestartedAt string
		wantImage       string
		wantByHand      bool
		wantGeneration  int64
	}{
		{name: "a restart is kept: one update of an unchanged spec",
			live: []func(*appsv1.Deployment){restart}, recorded: 1,
			wantWrites: []string{"update deployments"}, wantRestartedAt: restartedAt, wantImage: "gw:1", wantGeneration: 2},
		{name: "nothing changed since the restart was recorded: no write",
			live: []func(*appsv1.Deployment){restart}, recorded: 2,
			wantRestartedAt: restartedAt, wantImage: "gw:1", wantGeneration: 2},
		{name: "an image edit after a recorded restart is reverted, the restart kept",
			live: []func(*appsv1.Deployment){restart, editImage}, recorded: 2,
			wantWrites: []string{"update deployments"}, wantRestartedAt: restartedAt, wantImage: "gw:1", wantGeneration: 4},
		{name: "a restart and an edit of the template's annotations: the edit reverted, the restart kept",
			live: []func(*appsv1.Deployment){annotateTemplate, restart}, recorded: 1,
			wantWrites: []string{"update deployments"}, wantRestartedAt: restartedAt, wantImage: "gw:1", wantGeneration: 4},
		{name: "an image edit without a restart is reverted and no restartedAt added",
			live: []func(*appsv1.Deployment){editImage}, recorded: 1,
			wantWrites: []string{"update deployments"}, wantImage: "gw:1", wantGeneration: 3},
		{name: "the rendered template's own restartedAt wins over the live one",
			rendered: func(d *appsv1.Deployment) { d.Spec.Template.Annotations[RestartedAtAnnotation] = renderedRestart },
			live:     []func(*appsv1.Deployment){restart}, recorded: 1,
			wantWrites: []string{"update deployments"}, wantRestartedAt: renderedRestart, wantImage: "gw:1", wantGeneration: 3},
		{name: "an uncached Deployment (no operator label) is read once after the create and its restart kept",
			labels: map[string]string{}, live: []func(*appsv1.Deployment){restart}, recorded: 1,
			wantWrites: []string{"create deployments", "update deployments"}, wantReads: []string{"get deployments"},
			wantRestartedAt: restartedAt, wantImage: "gw:1", wantGeneration: 2},
		{name: "a new Deployment is created without a read and without restartedAt",
			absent: true, recorded: -1,
			wantWrites: []string{"create deployments"}, wantImage: "gw:1", wantGeneration: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			labels := managed
			if tc.labels != nil {
				labels = tc.labels
			}
			rendered := restartedDeployment(managed)
			if tc.rendered != nil {
				tc.rendered(rendered)
			}
			var seeds []runtime.Object
			var before *appsv1.Deployment
			if !tc.absent {
				before = written(restartedDeployment(labels))
				for _, edit := range tc.live {
					edit(before)
				}
				seeds = enginetest.Versioned(before)
			}
			env := newApplyEnv(t, func(metav1.Object) bool { return true }, seeds...)
			enginetest.VersionObjects(env.kube)
			env.kube.ClearActions()
			env.dyn.ClearActions()

			actual, err := env.applier.applyDeployment(env.ctx, rendered, tc.recorded)
			if err != nil {
				t.Fatal(err)
			}
			if w := env.writes(); !slices.Equal(w, tc.wantWrites) {
				t.Errorf("writes = %v, want %v", w, tc.wantWrites)
			}
			if r := env.reads(); !slices.Equal(r, tc.wantReads) {
				t.Errorf("reads = %v, want %v", r, tc.wantReads)
			}
			live, err := env.kube.AppsV1().Deployments("ns").Get(env.ctx, "gw", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			annotations := live.Spec.Template.Annotations
			if got, ok := annotations[RestartedAtAnnotation]; got != tc.wantRestartedAt || ok != (tc.wantRestartedAt != "") {
				t.Errorf("restartedAt = %q (set: %v), want %q", got, ok, tc.wantRestartedAt)
			}
			if got := live.Spec.Template.Spec.Containers[0].Image; got != tc.wantImage {
				t.Errorf("image = %q, want %q", got, tc.wantImage)
			}
			if _, ok := annotations["example.com/by-hand"]; ok != tc.wantByHand {
				t.Errorf("the template annotation set by hand is there: %v, want %v", ok, tc.wantByHand)
			}
			if annotations[ConfigHashAnnotationPrefix+"cm"] != "1" {
				t.Errorf("the rendered template annotation is gone: %v", annotations)
			}
			if live.Generation != tc.wantGeneration || actual.Generation != live.Generation {
				t.Errorf("generation = %d (returned %d), want %d", live.Generation, actual.Generation, tc.wantGeneration)
			}
			if before != nil && live.Generation == before.Generation && !equality.Semantic.DeepEqual(live.Spec, before.Spec) {
				t.Errorf("the spec changed without a new generation:\n%s", enginetest.Show(live.Spec))
			}
			want := restartedDeployment(managed)
			if tc.rendered != nil {
				tc.rendered(want)
			}
			if err := resourceapply.SetSpecHashAnnotation(&want.ObjectMeta, want.Spec); err != nil {
				t.Fatal(err)
			}
			if hash := "operator.openshift.io/spec-hash"; live.Annotations[hash] != want.Annotations[hash] {
				t.Errorf("spec hash = %s, want the rendered spec's %s", live.Annotations[hash], want.Annotations[hash])
			}

			// The next sync, with the generation this apply returned recorded, writes nothing.
			waitDeploymentCached(t, env, live.ResourceVersion)
			env.kube.ClearActions()
			env.dyn.ClearActions()
			if _, err := env.applier.applyDeployment(env.ctx, rendered, actual.Generation); err != nil {
				t.Fatal(err)
			}
			if w := env.writes(); len(w) != 0 {
				t.Errorf("the apply after it wrote again: %v", w)
			}
		})
	}
}

// waitDeploymentCached waits until the caches hold Deployment ns/gw at resourceVersion.
func waitDeploymentCached(t *testing.T, env *applyEnv, resourceVersion string) {
	t.Helper()
	enginetest.WaitFor(t, "Deployment ns/gw at resourceVersion "+resourceVersion+" in the caches", func() bool {
		c, err := env.applier.Clients.Caches.GetMeta(Deployments, "ns", "gw")
		return err == nil && c.GetResourceVersion() == resourceVersion
	})
}
