package engine

import (
	"context"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/informers"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"

	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"

	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine/enginetest"
)

// fullDeployment is a Deployment as the API returns it: managedFields, a pod template with
// containers and volumes, every field the status code reads, and a status.
func fullDeployment(image string) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{
			Name: "gw", Namespace: "ns", Generation: 3, ResourceVersion: "7",
			Labels:      map[string]string{ManagedByLabel: ManagedByValue},
			Annotations: map[string]string{"operator.openshift.io/spec-hash": "abc", AppliedAnnotationsKey: "a"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Gateway", Name: "gw", UID: "uid",
				Controller: ptr.To(true)}},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "llm-infra-operator", Operation: metav1.ManagedFieldsOperationUpdate}},
		},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](2),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "gw"}},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{MaxUnavailable: ptr.To(intstr.FromInt32(1))}},
			MinReadySeconds:         5,
			ProgressDeadlineSeconds: ptr.To[int32](600),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "gw"},
					Annotations: map[string]string{ConfigHashAnnotationPrefix + "secret-tls": "123"}},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{{Name: "gw", Image: image, Args: []string{"--port=8000"}}},
					Volumes: []corev1.Volume{{Name: "tls", VolumeSource: corev1.VolumeSource{
						Secret: &corev1.SecretVolumeSource{SecretName: "tls"}}}},
				},
			},
		},
		Status: appsv1.DeploymentStatus{ObservedGeneration: 3, Replicas: 2, UpdatedReplicas: 2, ReadyReplicas: 2, AvailableReplicas: 2,
			Conditions: []appsv1.DeploymentCondition{{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue}}},
	}
}

// DropPodTemplate removes managedFields and the pod template, and nothing else: every field a
// reader of a cached Deployment uses stays. Other kinds lose only managedFields; tombstones
// pass unchanged.
func TestDropPodTemplate(t *testing.T) {
	stripped := func() *appsv1.Deployment {
		d := fullDeployment("gw:1")
		d.ManagedFields = nil
		d.Spec.Template = corev1.PodTemplateSpec{}
		return d
	}
	configMap := func(managedFields []metav1.ManagedFieldsEntry) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "ns", ManagedFields: managedFields},
			Data: map[string]string{"k": "v"}}
	}
	restarted := func(strip bool) *appsv1.Deployment {
		d := fullDeployment("gw:1")
		if strip {
			d = stripped()
		}
		if d.Spec.Template.Annotations == nil {
			d.Spec.Template.Annotations = map[string]string{}
		}
		d.Spec.Template.Annotations[RestartedAtAnnotation] = "2026-12-07T02:00:00Z"
		return d
	}
	tombstone := cache.DeletedFinalStateUnknown{Key: "ns/gw", Obj: fullDeployment("gw:1")}
	for _, tc := range []struct {
		name    string
		in, out any
	}{
		{"a Deployment", fullDeployment("gw:1"), stripped()},
		{"a Deployment already stripped (the transform is idempotent)", stripped(), stripped()},
		// The apply carries it over (applyDeploymentKeepingRestart), so it is read from the cache.
		{"a restarted Deployment keeps its template's restartedAt alone", restarted(false), restarted(true)},
		{"a restarted Deployment already stripped", restarted(true), restarted(true)},
		{"another kind loses only managedFields", configMap(fullDeployment("").ManagedFields), configMap(nil)},
		{"a tombstone passes unchanged", tombstone, cache.DeletedFinalStateUnknown{Key: "ns/gw", Obj: fullDeployment("gw:1")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DropPodTemplate(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if !equality.Semantic.DeepEqual(got, tc.out) {
				t.Errorf("got\n%s\nwant\n%s", enginetest.Show(got), enginetest.Show(tc.out))
			}
		})
	}

	// What the readers of a cached Deployment use, named one by one.
	d, _ := DropPodTemplate(fullDeployment("gw:1"))
	got := d.(*appsv1.Deployment)
	switch {
	case got.Generation != 3, got.Annotations["operator.openshift.io/spec-hash"] != "abc", got.Annotations[AppliedAnnotationsKey] != "a":
		t.Errorf("metadata that resourceapply compares is gone: %+v", got.ObjectMeta)
	case metav1.GetControllerOfNoCopy(got) == nil || !IsManaged(got.Labels):
		t.Errorf("the owner reference or the label that ownership tests read is gone: %+v", got.ObjectMeta)
	case DesiredReplicas(got) != 2, got.Spec.Strategy.RollingUpdate == nil, got.Spec.Selector == nil:
		t.Errorf("replicas, strategy or selector is gone: %+v", got.Spec)
	case !Rollout(got).Complete, len(got.Status.Conditions) != 1:
		t.Errorf("status is gone: %+v", got.Status)
	case len(got.Spec.Template.Spec.Containers) != 0, got.Spec.Template.Annotations != nil:
		t.Errorf("the pod template is still there: %+v", got.Spec.Template)
	}
}

// Only the managed-by informers' Deployments lose their template.
func TestManagedTransform(t *testing.T) {
	for _, tc := range []struct {
		gr       schema.GroupResource
		stripped bool
	}{
		{Deployments, true},
		{Services, false},
		{ConfigMaps, false},
	} {
		obj, _ := managedTransform(tc.gr)(fullDeployment("gw:1"))
		d := obj.(*appsv1.Deployment)
		if d.ManagedFields != nil {
			t.Errorf("%s: managedFields kept", tc.gr)
		}
		if got := len(d.Spec.Template.Spec.Containers) == 0; got != tc.stripped {
			t.Errorf("%s: template stripped = %v, want %v", tc.gr, got, tc.stripped)
		}
	}
}

// The update path: resourceapply reads the Deployment from a cache without its template, and
// the template never reaches the API from there. An unchanged apply writes nothing (the
// missing template is no difference: resourceapply compares the spec hash and the
// generation); an apply after someone else's edit, or of a changed spec, sends the whole
// required spec.
func TestApplyDeploymentOverACacheWithoutTemplates(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	kube := kubefake.NewSimpleClientset()
	enginetest.VersionObjects(kube)
	caches := NewCaches()
	factory := informers.NewSharedInformerFactoryWithOptions(kube, 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = ManagedBySelector() }))
	informer := factory.Apps().V1().Deployments().Informer()
	RegisterInformers(caches, nil, Informed{GroupResource: Deployments, Informer: informer,
		Transform: managedTransform(Deployments)})
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	applier := Applier{
		Clients:  &CachedClients{Kube: kube, Caches: caches},
		Cache:    resourceapply.NewResourceCache(),
		Recorder: events.NewInMemoryRecorder("test", clock.RealClock{}),
	}
	required := func(image string) *appsv1.Deployment {
		d := fullDeployment(image)
		d.ObjectMeta = metav1.ObjectMeta{Name: "gw", Namespace: "ns", Labels: map[string]string{ManagedByLabel: ManagedByValue}}
		d.Status = appsv1.DeploymentStatus{}
		return d
	}
	cachedAt := func(generation int64) *appsv1.Deployment {
		t.Helper()
		var d *appsv1.Deployment
		// The informer's own store: until it delivers a write, the caches answer with the write.
		enginetest.WaitFor(t, "the cached Deployment at its latest generation", func() bool {
			obj, exists, err := informer.GetStore().GetByKey("ns/gw")
			d, _ = obj.(*appsv1.Deployment)
			return err == nil && exists && d.Generation == generation
		})
		return d
	}
	updates := func() []*appsv1.Deployment {
		var out []*appsv1.Deployment
		for _, a := range kube.Actions() {
			if u, ok := a.(clienttesting.UpdateAction); ok && a.GetResource().Resource == "deployments" {
				out = append(out, u.GetObject().(*appsv1.Deployment))
			}
		}
		return out
	}
	liveTemplate := func() corev1.PodTemplateSpec {
		t.Helper()
		live, err := kube.AppsV1().Deployments("ns").Get(ctx, "gw", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return live.Spec.Template
	}

	applied, err := applier.applyDeployment(ctx, required("gw:1"), -1)
	if err != nil {
		t.Fatal(err)
	}
	if c := cachedAt(applied.Generation); len(c.Spec.Template.Spec.Containers) != 0 {
		t.Fatalf("the cache holds the pod template: %+v", c.Spec.Template)
	}

	kube.ClearActions()
	if _, err := applier.applyDeployment(ctx, required("gw:1"), applied.Generation); err != nil {
		t.Fatal(err)
	}
	if n := len(kube.Actions()); n != 0 {
		t.Errorf("an unchanged apply over a cached copy without a template sent %d requests: %v", n, kube.Actions())
	}

	// Someone scales the Deployment by hand: a new generation, which the apply reverts.
	edited, err := kube.AppsV1().Deployments("ns").Get(ctx, "gw", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	edited.Spec.Replicas = ptr.To[int32](7)
	if edited, err = kube.AppsV1().Deployments("ns").Update(ctx, edited, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	cachedAt(edited.Generation)
	for _, step := range []struct {
		what  string
		image string
	}{
		{"revert of a hand edit", "gw:1"},
		{"changed image", "gw:2"},
	} {
		kube.ClearActions()
		if _, err := applier.applyDeployment(ctx, required(step.image), applied.Generation); err != nil {
			t.Fatal(err)
		}
		u := updates()
		if len(u) != 1 {
			t.Fatalf("%s: updates = %d, want 1", step.what, len(u))
		}
		want := required(step.image).Spec
		if !equality.Semantic.DeepEqual(u[0].Spec, want) {
			t.Errorf("%s: the update's spec is not the required one:\n%s\nwant\n%s", step.what, enginetest.Show(u[0].Spec), enginetest.Show(want))
		}
		if tmpl := liveTemplate(); !slices.Equal(containerImages(tmpl), []string{step.image}) || len(tmpl.Spec.Volumes) != 1 {
			t.Errorf("%s: the live template lost its content: %+v", step.what, tmpl)
		}
		live, err := kube.AppsV1().Deployments("ns").Get(ctx, "gw", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		applied = cachedAt(live.Generation)
	}
}

func containerImages(t corev1.PodTemplateSpec) []string {
	var out []string
	for _, c := range t.Spec.Containers {
		out = append(out, c.Image)
	}
	return out
}

// An optional API's CRD is cached for its Established condition: the schemas, printer columns
// and annotations (kubectl's last-applied copy of the whole CRD) go, what Established and the
// served versions need stays.
func TestDropCRDSchemas(t *testing.T) {
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{
			Name:          "httproutes.gateway.networking.k8s.io",
			Annotations:   map[string]string{"kubectl.kubernetes.io/last-applied-configuration": `{"spec":{}}`},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}},
		},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "gateway.networking.k8s.io",
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema:                   &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object"}},
				AdditionalPrinterColumns: []apiextensionsv1.CustomResourceColumnDefinition{{Name: "Age", JSONPath: ".metadata.creationTimestamp"}},
			}},
		},
		Status: apiextensionsv1.CustomResourceDefinitionStatus{Conditions: []apiextensionsv1.CustomResourceDefinitionCondition{
			{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue},
		}},
	}
	obj, err := DropCRDSchemas(crd)
	if err != nil {
		t.Fatal(err)
	}
	got := obj.(*apiextensionsv1.CustomResourceDefinition)
	v := got.Spec.Versions[0]
	switch {
	case got.Annotations != nil, got.ManagedFields != nil:
		t.Errorf("annotations or managedFields kept: %+v", got.ObjectMeta)
	case v.Schema != nil, v.AdditionalPrinterColumns != nil:
		t.Errorf("the version's schema or printer columns kept: %+v", v)
	case got.Name != "httproutes.gateway.networking.k8s.io", v.Name != "v1", !v.Served, got.Spec.Group == "":
		t.Errorf("the name, group or served versions are gone: %+v", got)
	case len(got.Status.Conditions) != 1:
		t.Errorf("the conditions are gone: %+v", got.Status)
	}
	tombstone := cache.DeletedFinalStateUnknown{Key: "x", Obj: crd}
	if obj, _ := DropCRDSchemas(tombstone); obj != tombstone {
		t.Errorf("a tombstone was changed: %+v", obj)
	}
}
