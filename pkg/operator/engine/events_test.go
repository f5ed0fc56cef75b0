package engine

import (
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/clock"

	"github.com/openshift/library-go/pkg/operator/events"
)

func TestLogNormalEventsKeepsOnlyWarnings(t *testing.T) {
	inner := events.NewInMemoryRecorder("test", clock.RealClock{})
	for _, r := range []events.Recorder{
		LogNormalEvents(inner),
		LogNormalEvents(inner).WithComponentSuffix("x"),
		LogNormalEvents(inner).ForComponent("y"),
		LogNormalEvents(LogNormalEvents(inner)),
	} {
		r.Eventf("ConfigMapCreated", "Created ConfigMap/%s", "cm")
		r.Event("DeploymentUpdated", "Updated Deployment")
		r.Warningf("ConfigMapCreateFailed", "Failed to create ConfigMap/%s", "cm")
	}
	var reasons []string
	for _, e := range inner.Events() {
		if e.Type != corev1.EventTypeWarning {
			t.Errorf("Normal event %s reached the recorder", e.Reason)
		}
		reasons = append(reasons, e.Reason)
	}
	if len(reasons) != 4 {
		t.Errorf("events = %v, want the 4 warnings", reasons)
	}
	if LogNormalEvents(nil) != nil {
		t.Error("no recorder must stay no recorder")
	}
}

// An Applier's writes of objects record no Normal event on the CR (about ten per CR coming
// up), but a failed write still records its Warning there.
func TestApplyRecordsOnlyFailedWritesAsEvents(t *testing.T) {
	env := newApplyEnv(t, nil)
	recorder := events.NewInMemoryRecorder("test", clock.RealClock{})
	env.applier.Recorder = recorder
	managed := map[string]string{ManagedByLabel: ManagedByValue}
	cm := func(name string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", Labels: managed}, Data: map[string]string{"k": "v"}}
	}
	if err := env.applier.Apply(env.ctx, cm("created")); err != nil {
		t.Fatal(err)
	}
	if _, err := env.applier.ApplyDeployment(env.ctx, testDeployment(), nil); err != nil {
		t.Fatal(err)
	}
	if n := len(recorder.Events()); n != 0 {
		t.Errorf("creates recorded %d events on the CR: %v", n, recorder.Events())
	}
	env.kube.PrependReactor("create", "configmaps", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New("injected failure")
	})
	if err := env.applier.Apply(env.ctx, cm("failing")); err == nil {
		t.Fatal("the failed create reported no error")
	}
	got := recorder.Events()
	if len(got) != 1 || got[0].Type != corev1.EventTypeWarning {
		t.Errorf("events after a failed create = %v, want one Warning", got)
	}
}
