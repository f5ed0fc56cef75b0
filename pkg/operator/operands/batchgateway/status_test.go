package batchgateway

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"

	batchv1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/batch/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

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
