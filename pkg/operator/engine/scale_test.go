package engine

import (
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"

	"github.com/openshift/library-go/pkg/operator/events"

	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine/enginetest"
)

// scaleOwner is the CR whose Deployments the ScaleToZero tests may scale.
var scaleOwner = &metav1.ObjectMeta{Name: "cr", Namespace: "ns", UID: types.UID("cr-uid")}

// controlledDeployment is Deployment ns/gw as the operator wrote it for the CR with uid, with
// the given replicas and labels (the operator's label makes the informer cache it).
func controlledDeployment(uid types.UID, replicas *int32, labels map[string]string) *appsv1.Deployment {
	d := restartedDeployment(labels)
	d.Spec.Replicas = replicas
	d.Generation = 1
	d.OwnerReferences = []metav1.OwnerReference{{APIVersion: "example.com/v1", Kind: "CR", Name: "cr", UID: uid, Controller: ptr.To(true)}}
	return d
}

// TestScaleToZero: only an existing Deployment the owner controls is scaled, only its replicas
// change (the pod template the cache drops is written back whole), and one already at 0 costs
// neither a read nor a write.
func TestScaleToZero(t *testing.T) {
	managed := map[string]string{ManagedByLabel: ManagedByValue}
	for _, tc := range []struct {
		name     string
		existing *appsv1.Deployment
		mode     LookupMode
		// whether ScaleToZero returns a written Deployment, what it sends, and the replicas
		// it leaves (nil: no Deployment)
		wantScaled   bool
		wantReads    []string
		wantWrites   []string
		wantReplicas *int32
		wantWarning  string
	}{
		{name: "owned: scaled to 0, the whole object read from the API once",
			existing: controlledDeployment(scaleOwner.UID, ptr.To[int32](3), managed), mode: FromCache,
			wantScaled: true, wantReads: []string{"get deployments"}, wantWrites: []string{"update deployments"}, wantReplicas: ptr.To[int32](0)},
		{name: "owned without replicas (the API server's default, 1): scaled to 0",
			existing: controlledDeployment(scaleOwner.UID, nil, managed), mode: FromCache,
			wantScaled: true, wantReads: []string{"get deployments"}, wantWrites: []string{"update deployments"}, wantReplicas: ptr.To[int32](0)},
		{name: "owned and at 0 already: no request",
			existing: controlledDeployment(scaleOwner.UID, ptr.To[int32](0), managed), mode: FromCache,
			wantReplicas: ptr.To[int32](0)},
		{name: "controlled by another CR: untouched and reported",
			existing: controlledDeployment("another-uid", ptr.To[int32](3), managed), mode: FromCache,
			wantReplicas: ptr.To[int32](3), wantWarning: "ScaleToZeroSkipped"},
		{name: "missing: nothing",
			mode: FromCache},
		{name: "owned, not cached (no operator label), looked up in the API: scaled",
			existing: controlledDeployment(scaleOwner.UID, ptr.To[int32](2), map[string]string{}), mode: FromAPI,
			wantScaled: true, wantReads: []string{"get deployments"}, wantWrites: []string{"update deployments"}, wantReplicas: ptr.To[int32](0)},
		{name: "someone else's, looked up in the API: untouched and reported",
			existing: restartedDeployment(map[string]string{}), mode: FromAPI,
			wantReads: []string{"get deployments"}, wantReplicas: ptr.To[int32](1), wantWarning: "ScaleToZeroSkipped"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var seeds []runtime.Object
			if tc.existing != nil {
				seeds = enginetest.Versioned(tc.existing)
			}
			env := newApplyEnv(t, nil, seeds...)
			enginetest.VersionObjects(env.kube)
			recorder := events.NewInMemoryRecorder("test", clock.RealClock{})
			env.applier.Recorder = recorder
			env.kube.ClearActions()
			env.dyn.ClearActions()

			scaled, err := env.applier.ScaleToZero(env.ctx, "ns", "gw", ControlledBy(scaleOwner), tc.mode)
			if err != nil {
				t.Fatal(err)
			}
			if (scaled != nil) != tc.wantScaled {
				t.Errorf("scaled = %v, want a Deployment returned: %v", scaled, tc.wantScaled)
			}
			if scaled != nil && ptr.Deref(scaled.Spec.Replicas, -1) != 0 {
				t.Errorf("the Deployment returned has replicas %d, want the 0 written", ptr.Deref(scaled.Spec.Replicas, -1))
			}
			if r := env.reads(); !slices.Equal(r, tc.wantReads) {
				t.Errorf("reads = %v, want %v", r, tc.wantReads)
			}
			if w := env.writes(); !slices.Equal(w, tc.wantWrites) {
				t.Errorf("writes = %v, want %v", w, tc.wantWrites)
			}
			var warnings []string
			for _, ev := range recorder.Events() {
				if ev.Type == corev1.EventTypeWarning {
					warnings = append(warnings, ev.Reason)
				}
			}
			if want := slices.DeleteFunc([]string{tc.wantWarning}, func(s string) bool { return s == "" }); !slices.Equal(warnings, want) {
				t.Errorf("warnings = %v, want %v", warnings, want)
			}
			if tc.existing == nil {
				return
			}
			live, err := env.kube.AppsV1().Deployments("ns").Get(env.ctx, "gw", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !equality.Semantic.DeepEqual(live.Spec.Replicas, tc.wantReplicas) {
				t.Errorf("replicas = %v, want %v", ptr.Deref(live.Spec.Replicas, -1), ptr.Deref(tc.wantReplicas, -1))
			}
			// Nothing but the replicas changed: the template (which the cache drops) is intact.
			want, got := tc.existing.Spec.DeepCopy(), live.Spec.DeepCopy()
			want.Replicas, got.Replicas = nil, nil
			if !equality.Semantic.DeepEqual(got, want) {
				t.Errorf("the spec changed beyond its replicas:\n%s", enginetest.Show(live.Spec))
			}
			if !equality.Semantic.DeepEqual(live.Labels, tc.existing.Labels) || !equality.Semantic.DeepEqual(live.Annotations, tc.existing.Annotations) {
				t.Errorf("metadata changed: labels %v, annotations %v", live.Labels, live.Annotations)
			}
		})
	}
}

// TestApplyDeploymentRestoresReplicasAfterScaleToZero: a Deployment scaled to 0 gets its
// rendered replicas back from the next apply with the generation the operator recorded before
// the scale, which changed it; the apply after that writes nothing.
func TestApplyDeploymentRestoresReplicasAfterScaleToZero(t *testing.T) {
	managed := map[string]string{ManagedByLabel: ManagedByValue}
	env := newApplyEnv(t, ControlledBy(scaleOwner))
	enginetest.VersionObjects(env.kube)
	rendered := controlledDeployment(scaleOwner.UID, ptr.To[int32](3), managed)
	rendered.Generation = 0
	applied, err := env.applier.applyDeployment(env.ctx, rendered, -1)
	if err != nil {
		t.Fatal(err)
	}
	recorded := applied.Generation
	waitDeploymentCached(t, env, applied.ResourceVersion)

	if scaled, err := env.applier.ScaleToZero(env.ctx, "ns", "gw", ControlledBy(scaleOwner), FromCache); err != nil || scaled == nil {
		t.Fatalf("ScaleToZero = %v, %v; want a scale", scaled, err)
	}
	atZero, err := env.kube.AppsV1().Deployments("ns").Get(env.ctx, "gw", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ptr.Deref(atZero.Spec.Replicas, -1) != 0 || atZero.Generation == recorded {
		t.Fatalf("after the scale: replicas %v, generation %d (recorded %d): want 0 and a new generation",
			ptr.Deref(atZero.Spec.Replicas, -1), atZero.Generation, recorded)
	}
	waitDeploymentCached(t, env, atZero.ResourceVersion)

	restored, err := env.applier.applyDeployment(env.ctx, rendered, recorded)
	if err != nil {
		t.Fatal(err)
	}
	if got := ptr.Deref(restored.Spec.Replicas, -1); got != 3 {
		t.Errorf("replicas after the apply = %d, want the rendered 3", got)
	}
	waitDeploymentCached(t, env, restored.ResourceVersion)
	env.kube.ClearActions()
	env.dyn.ClearActions()
	if _, err := env.applier.applyDeployment(env.ctx, rendered, restored.Generation); err != nil {
		t.Fatal(err)
	}
	if w := env.writes(); len(w) != 0 {
		t.Errorf("the apply after the restore wrote again: %v", w)
	}
}
