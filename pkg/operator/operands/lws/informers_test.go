package lws

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"

	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// TestWebhookInformersWatchOneObjectByName: each webhook configuration's informer lists and
// watches only the operand's object of that kind, by its name (and the operator's label): the
// API server authorizes that by the name, which is what lets deploy/ grant the list and watch
// with resourceNames (issue 33). requests asks them so (watchedByName).
func TestWebhookInformersWatchOneObjectByName(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	kube := kubefake.NewSimpleClientset()
	webhooks := NewWebhookFactories(kube, 0)
	informers := webhooks.Informers()
	webhooks.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), informers[0].HasSynced, informers[1].HasSynced) {
		t.Fatal("the webhook informers did not sync")
	}
	// A reflector starts its watch after the list that synced it.
	watching := func() bool {
		n := 0
		for _, a := range kube.Actions() {
			if _, ok := watchedByName[a.GetResource()]; ok && a.GetVerb() == "watch" {
				n++
			}
		}
		return n >= len(watchedByName)
	}
	if err := wait.PollUntilContextTimeout(ctx, 5*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) { return watching(), nil }); err != nil {
		t.Fatalf("the webhook informers did not start their watches: %v", err)
	}
	for gvr, name := range watchedByName {
		t.Run(gvr.Resource, func(t *testing.T) {
			for _, verb := range []string{"list", "watch"} {
				var seen int
				for _, a := range kube.Actions() {
					if a.GetVerb() != verb || a.GetResource() != gvr {
						continue
					}
					seen++
					var labels, fields string
					switch a := a.(type) {
					case clienttesting.ListAction:
						labels, fields = a.GetListRestrictions().Labels.String(), a.GetListRestrictions().Fields.String()
					case clienttesting.WatchAction:
						labels, fields = a.GetWatchRestrictions().Labels.String(), a.GetWatchRestrictions().Fields.String()
					}
					if labels != engine.ManagedBySelector() || fields != "metadata.name="+name {
						t.Errorf("%s with labels %q, fields %q; want %q, metadata.name=%s", verb, labels, fields, engine.ManagedBySelector(), name)
					}
				}
				if seen == 0 {
					t.Errorf("no %s of %s", verb, gvr.Resource)
				}
			}
		})
	}
	if len(watchedByName) != len(informers) {
		t.Errorf("%d kinds watched by name, %d informers", len(watchedByName), len(informers))
	}
}
