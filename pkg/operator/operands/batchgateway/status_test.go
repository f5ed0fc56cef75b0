package batchgateway

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	batchv1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/batch/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// deploymentState builds a Deployment of replicas with the given status; a rollout in progress
// has a generation the controller has not observed or replicas not yet updated.
type deploymentState struct {
	replicas, updated, available int32
	observed                     bool
	maxUnavailable               *intstr.IntOrString
	recreate, stalled            bool
}

func (s deploymentState) deployment() *appsv1.Deployment {
	d := &appsv1.Deployment{}
	d.Generation = 2
	d.Spec.Replicas = ptr.To(s.replicas)
	d.Spec.Strategy.Type = appsv1.RollingUpdateDeploymentStrategyType
	if s.maxUnavailable != nil {
		d.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{MaxUnavailable: s.maxUnavailable}
	}
	if s.recreate {
		d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	}
	d.Status = appsv1.DeploymentStatus{Replicas: s.replicas, UpdatedReplicas: s.updated, AvailableReplicas: s.available, ReadyReplicas: s.available, ObservedGeneration: 1}
	if s.observed {
		d.Status.ObservedGeneration = 2
	}
	if s.stalled {
		d.Status.Conditions = []appsv1.DeploymentCondition{{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse, Reason: deploymentProgressDeadlineExceeded}}
	}
	return d
}

// What a careful admin expects of a component's condition: available while it serves (at
// least its minimum of available replicas), during a rollout too; the rollout reported apart
// (Progressing), a stalled one as well (Degraded).
func TestComponentCondition(t *testing.T) {
	pct := func(s string) *intstr.IntOrString { v := intstr.FromString(s); return &v }
	num := func(i int32) *intstr.IntOrString { v := intstr.FromInt32(i); return &v }
	cases := []struct {
		name      string
		d         *appsv1.Deployment
		available bool
		rolling   bool
		stalled   bool
		message   string
	}{
		{name: "no Deployment yet", d: nil, message: "does not exist yet"},
		{name: "scaled to 0", d: deploymentState{replicas: 0, observed: true}.deployment(), message: "spec.apiServer.replicas is 0"},
		{name: "rollout complete", d: deploymentState{replicas: 2, updated: 2, available: 2, observed: true}.deployment(), available: true, message: "2 of 2 replicas ready and up to date"},
		{name: "new spec not yet observed, old pod serves", d: deploymentState{replicas: 1, updated: 1, available: 1}.deployment(), available: true, rolling: true, message: "serves with 1 of 1"},
		{name: "rolling, old pods serve", d: deploymentState{replicas: 1, updated: 0, available: 1, observed: true}.deployment(), available: true, rolling: true},
		{name: "rolling, at the minimum (4 replicas, 25%)", d: deploymentState{replicas: 4, updated: 2, available: 3, observed: true}.deployment(), available: true, rolling: true},
		{name: "rolling, below the minimum (4 replicas, 25%)", d: deploymentState{replicas: 4, updated: 2, available: 2, observed: true}.deployment(), rolling: true, message: "fewer than its minimum of 3"},
		{name: "rolling, maxUnavailable 2 of 4", d: deploymentState{replicas: 4, updated: 2, available: 2, observed: true, maxUnavailable: num(2)}.deployment(), available: true, rolling: true},
		{name: "rolling, maxUnavailable 100%: still needs one", d: deploymentState{replicas: 2, updated: 0, available: 0, observed: true, maxUnavailable: pct("100%")}.deployment(), rolling: true, message: "minimum of 1"},
		{name: "Recreate: nothing available while it recreates", d: deploymentState{replicas: 1, updated: 1, available: 0, observed: true, recreate: true}.deployment(), rolling: true},
		{name: "no replica available, no rollout", d: deploymentState{replicas: 1, updated: 1, available: 0, observed: true}.deployment(), rolling: true, message: "0 available replicas"},
		{name: "stalled rollout, old pods serve", d: deploymentState{replicas: 2, updated: 1, available: 2, observed: true, stalled: true}.deployment(), available: true, rolling: true, stalled: true},
		{name: "stalled rollout, nothing serves", d: deploymentState{replicas: 1, updated: 1, available: 0, observed: true, stalled: true}.deployment(), rolling: true, stalled: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := componentCondition(components[0], tc.d, "ns", "gw-apiserver")
			if got.condition.Type != batchv1alpha1.ConditionAPIServerAvailable {
				t.Errorf("type = %s", got.condition.Type)
			}
			wantReason := batchv1alpha1.ReasonUnavailable
			if tc.available {
				wantReason = batchv1alpha1.ReasonAvailable
			}
			if got.condition.Status != tc.available || got.condition.Reason != wantReason {
				t.Errorf("condition = %v %s (%s), want %v %s", got.condition.Status, got.condition.Reason, got.condition.Message, tc.available, wantReason)
			}
			if (got.rolling != "") != tc.rolling {
				t.Errorf("rolling = %q, want a rollout: %v", got.rolling, tc.rolling)
			}
			if (got.stalled != "") != tc.stalled {
				t.Errorf("stalled = %q, want stalled: %v", got.stalled, tc.stalled)
			}
			if !strings.Contains(got.condition.Message, tc.message) {
				t.Errorf("message %q lacks %q", got.condition.Message, tc.message)
			}
		})
	}
}

// A sync that starts before the CR informer has delivered the previous status write (an event
// of a Deployment brings it, say) writes the next status over the resourceVersion it wrote,
// not the informer's older one: no 409 conflict, no retry.
func TestStatusWriteUsesTheVersionItWroteLast(t *testing.T) {
	env := newFakeEnv(t, withObjects(credentials(ns, "batch-gateway-secrets", nil)))
	// The fakes accept any resourceVersion; the API server refuses an older one.
	var statusWriteVersions []string
	env.crs.PrependReactor("update", "llmbatchgateways", func(action clienttesting.Action) (bool, runtime.Object, error) {
		update := action.(clienttesting.UpdateAction)
		if update.GetSubresource() != "status" {
			return false, nil, nil
		}
		m, _ := meta.Accessor(update.GetObject())
		statusWriteVersions = append(statusWriteVersions, m.GetResourceVersion())
		current, err := env.crs.Tracker().Get(action.GetResource(), action.GetNamespace(), m.GetName())
		if err != nil {
			return false, nil, nil
		}
		if cm, _ := meta.Accessor(current); cm.GetResourceVersion() != m.GetResourceVersion() {
			return true, nil, apierrors.NewConflict(action.GetResource().GroupResource(), m.GetName(), nil)
		}
		return false, nil, nil
	})
	before := env.create(minimalCR(t, "gw"))
	if err := env.sync(ns, "gw"); err != nil {
		t.Fatal(err)
	}
	written := env.get(ns, "gw").ResourceVersion
	if written == before.ResourceVersion {
		t.Fatal("the first sync wrote no status")
	}
	// The informer has not seen that write yet.
	if err := env.crInformer.GetStore().Update(before); err != nil {
		t.Fatal(err)
	}

	names := NamesFor("gw")
	for _, d := range []string{names.APIServer, names.Processor, names.GC} {
		env.makeAvailable(ns, d)
	}
	env.waitFor("available Deployments cached", func() bool {
		obj, err := env.caches.Get(engine.Deployments, ns, names.GC)
		return err == nil && obj.(*appsv1.Deployment).Status.AvailableReplicas == 1
	})
	statusWriteVersions = nil
	if err := env.op.syncKey(env.ctx, env.syncCtx, ns+"/gw"); err != nil {
		t.Fatalf("the second sync failed: %v", err)
	}
	if len(statusWriteVersions) != 1 || statusWriteVersions[0] != written {
		t.Errorf("status writes carried resourceVersions %v, want one over %s (the first write's)", statusWriteVersions, written)
	}
	env.expectCondition(ns, "gw", batchv1alpha1.ConditionReady, metav1.ConditionTrue, batchv1alpha1.ReasonAllComponentsReady)
}
