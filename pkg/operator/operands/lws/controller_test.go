package lws

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/llm-infra/llm-infra-operator/bindata"
)

// TestControllerRepairsDriftFromWatchEvents runs the real factory controller (not sync directly)
// on fake clients: it must start once its informers have synced, install the operand, and
// re-create a deleted object because of the delete event, long before any resync.
func TestControllerRepairsDriftFromWatchEvents(t *testing.T) {
	env := newFakeEnv(t, fullyInstalled()...)
	env.webhooks.Start(env.ctx.Done())
	go env.controller.Run(env.ctx, 1)
	// The fake operator client brings no CR events; a first event from a watched kind does.
	trigger := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "trigger", Namespace: testNamespace}}
	if _, err := env.kube.CoreV1().ConfigMaps(testNamespace).Create(env.ctx, trigger, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.waitFor("the operand Deployment", func() bool { return env.exists(bindata.LWSDeployment) })

	if err := env.kube.CoreV1().Services(testNamespace).Delete(env.ctx, "lws-webhook-service", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	env.waitFor("the deleted Service to be re-created", func() bool { return env.exists(bindata.LWSWebhookService) })
}
