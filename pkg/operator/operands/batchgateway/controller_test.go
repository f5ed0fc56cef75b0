package batchgateway

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/library-go/pkg/controller/factory"

	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// TestControllerFollowsEventsPerCR runs the real factory controller (not syncKey directly) on
// fake clients: CRs in two namespaces are installed from their own events, a deleted object
// is re-created because of its delete event, and library-go's periodic resync key reaches
// every CR.
func TestControllerFollowsEventsPerCR(t *testing.T) {
	env := newFakeEnv(t, withObjects(credentials(ns, "batch-gateway-secrets", nil), credentials("other", "batch-gateway-secrets", nil)))
	go env.controller.Run(env.ctx, 2)
	first := minimalCR(t, "gw")
	second := minimalCR(t, "gw")
	second.Namespace = "other"
	env.create(first)
	env.create(second)
	names := NamesFor("gw")
	for _, namespace := range []string{ns, "other"} {
		env.waitFor("the operand in "+namespace, func() bool { return env.object(podConfigMaps, namespace, names.GCConfig) != nil })
	}

	if err := env.kube.CoreV1().ConfigMaps("other").Delete(env.ctx, names.GCConfig, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	env.waitFor("the deleted ConfigMap to be re-created", func() bool { return env.object(podConfigMaps, "other", names.GCConfig) != nil })

	keys, err := env.op.keys()
	if err != nil || len(keys) != 2 {
		t.Fatalf("keys = %v, %v", keys, err)
	}
	// The periodic resync queues library-go's default key; it fans out to every CR.
	syncCtx := factory.NewSyncContext("fan-out", env.recorder)
	if err := engineKeyedSync(env)(env.ctx, syncCtx); err != nil {
		t.Fatal(err)
	}
	if got := syncCtx.Queue().Len(); got != 2 {
		t.Errorf("the resync key queued %d keys, want one per CR (2)", got)
	}
}

// engineKeyedSync is the operand's factory sync function, as New wires it.
func engineKeyedSync(env *fakeEnv) factory.SyncFunc {
	return func(ctx context.Context, syncCtx factory.SyncContext) error {
		// A context whose queue key is the default key, as the resync sends it.
		return engine.KeyedSync(OperandName, env.op.keys, env.op.syncKey)(ctx, defaultKeyContext{syncCtx})
	}
}

// defaultKeyContext is a sync context that reports library-go's default queue key.
type defaultKeyContext struct{ factory.SyncContext }

func (defaultKeyContext) QueueKey() string { return factory.DefaultQueueKey }
