package engine

import (
	"context"
	"errors"
	"maps"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/component-base/metrics/testutil"

	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"k8s.io/utils/clock"
)

func TestSyncsAreCounted(t *testing.T) {
	fail := errors.New("boom")
	recorder := events.NewInMemoryRecorder("test", clock.RealClock{})
	ok := MeasuredSync("test-single", func(context.Context, factory.SyncContext) error { return nil })
	bad := MeasuredSync("test-single", func(context.Context, factory.SyncContext) error { return fail })
	syncCtx := factory.NewSyncContext("test", recorder)
	// The counters are the process's: count from what they hold now (go test -count=N).
	before := map[string]float64{}
	for _, result := range []string{"ok", "error"} {
		before[result], _ = testutil.GetCounterMetricValue(syncsTotal.WithLabelValues("test-single", result))
	}
	for i := 0; i < 3; i++ {
		if err := ok(context.Background(), syncCtx); err != nil {
			t.Fatal(err)
		}
	}
	if err := bad(context.Background(), syncCtx); !errors.Is(err, fail) {
		t.Fatalf("the sync's error must come through: %v", err)
	}
	for result, want := range map[string]float64{"ok": 3, "error": 1} {
		got, err := testutil.GetCounterMetricValue(syncsTotal.WithLabelValues("test-single", result))
		if got -= before[result]; err != nil || got != want {
			t.Errorf("syncs_total{result=%s} = %v (%v), want %v", result, got, err, want)
		}
	}
}

// stubRun is an AssetRun whose steps all bring their own Apply and Remove: Walk never calls it.
type stubRun struct{}

func (stubRun) ApplyAsset(context.Context, string) error  { return nil }
func (stubRun) RemoveAsset(context.Context, string) error { return nil }

// stepReturning is a table row whose Apply and Remove return err.
func stepReturning(name string, err error) Step[stubRun] {
	fn := func(context.Context, stubRun, []string) error { return err }
	return Step[stubRun]{Name: name, Apply: fn, Remove: fn}
}

// failureKey is one series of llm_infra_operator_step_failures_total.
type failureKey struct{ step, reason string }

func TestStepFailuresAreCountedByStepAndReason(t *testing.T) {
	const operand = "test-steps"
	for _, tc := range []struct {
		name  string
		steps []Step[stubRun]
		dir   Direction
		want  map[failureKey]float64
	}{
		{
			name:  "a step that succeeds is not counted",
			steps: []Step[stubRun]{stepReturning("ok", nil)},
			want:  map[failureKey]float64{{"ok", ReasonApplyFailed}: 0},
		},
		{
			name:  "a plain error is ApplyFailed",
			steps: []Step[stubRun]{stepReturning("plain", errors.New("boom"))},
			want:  map[failureKey]float64{{"plain", ReasonApplyFailed}: 1},
		},
		{
			name: "a problem counts with its reason and the next steps still run",
			steps: []Step[stubRun]{
				stepReturning("foreign", Problem(ReasonObjectNotOwned, "in the way")),
				stepReturning("after", errors.New("boom")),
			},
			want: map[failureKey]float64{{"foreign", ReasonObjectNotOwned}: 1, {"after", ReasonApplyFailed}: 1},
		},
		{
			name: "a blocking failure stops the walk: the later steps are not counted",
			steps: []Step[stubRun]{
				stepReturning("crd", MissingDependency("DependencyMissing", "install it")),
				stepReturning("never", errors.New("boom")),
			},
			want: map[failureKey]float64{{"crd", "DependencyMissing"}: 1, {"never", ReasonApplyFailed}: 0},
		},
		{
			name: "waiting and notes are not failures",
			steps: []Step[stubRun]{
				stepReturning("note", Note("skipped")),
				stepReturning("wait", WaitingFor("WaitingForSomething", "soon")),
			},
			want: map[failureKey]float64{{"note", ""}: 0, {"wait", "WaitingForSomething"}: 0},
		},
		{
			name:  "a failed removal is RemovalFailed",
			steps: []Step[stubRun]{stepReturning("gone", errors.New("boom"))},
			dir:   Backward,
			want:  map[failureKey]float64{{"gone", ReasonRemovalFailed}: 1},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The counters are the process's: count from what they hold now (go test -count=N).
			before := map[failureKey]float64{}
			for k := range tc.want {
				before[k], _ = testutil.GetCounterMetricValue(stepFailures.WithLabelValues(operand, k.step, k.reason))
			}
			ctx := WithOperand(context.Background(), operand)
			if tc.dir == Backward {
				WalkBackward(ctx, tc.steps, stubRun{})
			} else {
				Walk(ctx, tc.steps, stubRun{})
			}
			for k, want := range tc.want {
				got, err := testutil.GetCounterMetricValue(stepFailures.WithLabelValues(operand, k.step, k.reason))
				if got -= before[k]; err != nil || got != want {
					t.Errorf("step_failures_total{step=%q,reason=%q} grew by %v (%v), want %v", k.step, k.reason, got, err, want)
				}
			}
		})
	}
}

// writeKey is one series of llm_infra_operator_writes_total.
type writeKey struct{ resource, verb string }

// fakeWrites counts the writes the fake clients received, as the metric names them.
func (e *applyEnv) fakeWrites() map[writeKey]float64 {
	out := map[writeKey]float64{}
	for _, a := range append(e.kube.Actions(), e.dyn.Actions()...) {
		switch a.GetVerb() {
		case "create", "update", "delete":
			out[writeKey{a.GetResource().GroupResource().String(), a.GetVerb()}]++
		}
	}
	return out
}

func TestWritesAreCountedByResourceAndVerb(t *testing.T) {
	const operand = "test-writes"
	configMap := func(data string) *corev1.ConfigMap {
		return &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "ns", Labels: map[string]string{ManagedByLabel: ManagedByValue}},
			Data:       map[string]string{"k": data},
		}
	}
	existing := configMap("old")
	type op func(ctx context.Context, e *applyEnv) error
	apply := func(obj runtime.Object) op {
		return func(ctx context.Context, e *applyEnv) error { return e.applier.Apply(ctx, obj) }
	}
	for _, tc := range []struct {
		name     string
		existing []runtime.Object
		ops      []op
		want     map[writeKey]float64
	}{
		{
			name: "a missing object is created",
			ops:  []op{apply(configMap("v"))},
			want: map[writeKey]float64{{"configmaps", "create"}: 1},
		},
		{
			name:     "a changed object is updated",
			existing: []runtime.Object{existing},
			ops:      []op{apply(configMap("new"))},
			want:     map[writeKey]float64{{"configmaps", "update"}: 1},
		},
		{
			name:     "an unchanged object is not written",
			existing: []runtime.Object{existing},
			ops:      []op{apply(configMap("old"))},
			want:     map[writeKey]float64{},
		},
		{
			name: "a kind without a typed apply function (HPA, through the dynamic client)",
			ops:  []op{apply(hpa(5))},
			want: map[writeKey]float64{{"horizontalpodautoscalers.autoscaling", "create"}: 1},
		},
		{
			name:     "an owned object is deleted",
			existing: []runtime.Object{existing},
			ops: []op{func(ctx context.Context, e *applyEnv) error {
				return e.applier.DeleteObject(ctx, configMap("old"), ManagedByOperator, FromAPI)
			}},
			want: map[writeKey]float64{{"configmaps", "delete"}: 1},
		},
		{
			name: "a Deployment is created with ApplyDeployment",
			ops: []op{func(ctx context.Context, e *applyEnv) error {
				d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "ns"}}
				_, err := e.applier.ApplyDeployment(ctx, d, nil)
				return err
			}},
			want: map[writeKey]float64{{"deployments.apps", "create"}: 1},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newApplyEnv(t, nil, tc.existing...)
			for _, o := range tc.existing {
				m, _ := meta.Accessor(o)
				waitCached(t, env.applier.Clients.Caches, ConfigMaps, m.GetNamespace(), m.GetName())
			}
			env.kube.ClearActions()
			env.dyn.ClearActions()
			keys := []writeKey{{"configmaps", "create"}, {"configmaps", "update"}, {"configmaps", "delete"},
				{"horizontalpodautoscalers.autoscaling", "create"}, {"deployments.apps", "create"}}
			before := map[writeKey]float64{}
			for _, k := range keys {
				before[k], _ = testutil.GetCounterMetricValue(writesTotal.WithLabelValues(operand, k.resource, k.verb))
			}
			ctx := WithOperand(env.ctx, operand)
			for _, o := range tc.ops {
				if err := o(ctx, env); err != nil {
					t.Fatal(err)
				}
			}
			got := map[writeKey]float64{}
			for _, k := range keys {
				v, _ := testutil.GetCounterMetricValue(writesTotal.WithLabelValues(operand, k.resource, k.verb))
				if v -= before[k]; v != 0 {
					got[k] = v
				}
			}
			if !maps.Equal(got, tc.want) {
				t.Errorf("writes_total grew by %v, want %v", got, tc.want)
			}
			// The metric counts what the API received, no more, no less.
			if fake := env.fakeWrites(); !maps.Equal(got, fake) {
				t.Errorf("writes_total grew by %v, the fake clients received %v", got, fake)
			}
		})
	}
}

func TestDegradedGaugeFromSources(t *testing.T) {
	cr := func(ns, name string, status metav1.ConditionStatus, reason string) *corev1.ConfigMap {
		// A ConfigMap stands in for a CR: DegradedFromStore only needs metadata and conditions.
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name,
			Annotations: map[string]string{"status": string(status), "reason": reason}}}
	}
	conditions := func(cm *corev1.ConfigMap) []metav1.Condition {
		if cm.Annotations["status"] == "" {
			return nil
		}
		return []metav1.Condition{
			{Type: ConditionAvailable, Status: metav1.ConditionTrue, Reason: "Fine"},
			{Type: ConditionDegraded, Status: metav1.ConditionStatus(cm.Annotations["status"]), Reason: cm.Annotations["reason"]},
		}
	}
	store := cache.NewStore(cache.MetaNamespaceKeyFunc)
	for _, obj := range []*corev1.ConfigMap{
		cr("a", "broken", metav1.ConditionTrue, ReasonApplyFailed),
		cr("b", "fine", metav1.ConditionFalse, ReasonAsExpected),
		cr("c", "new", "", ""), // not synced yet: no condition, no series
	} {
		if err := store.Add(obj); err != nil {
			t.Fatal(err)
		}
	}
	collector := &degradedCollector{sources: map[string]DegradedSource{}}
	registry := metrics.NewKubeRegistry()
	registry.CustomMustRegister(collector)
	collector.sources["test-ns"] = DegradedFromStore(store, conditions)
	collector.sources["test-cluster"] = func() []DegradedState {
		return []DegradedState{{Name: "cluster", Degraded: true, Reason: "DependencyMissing"}}
	}
	want := `# HELP llm_infra_operator_degraded [ALPHA] ` + degradedHelp + `
# TYPE llm_infra_operator_degraded gauge
llm_infra_operator_degraded{cr_name="broken",cr_namespace="a",operand="test-ns",reason="ApplyFailed"} 1
llm_infra_operator_degraded{cr_name="fine",cr_namespace="b",operand="test-ns",reason="AsExpected"} 0
llm_infra_operator_degraded{cr_name="cluster",cr_namespace="",operand="test-cluster",reason="DependencyMissing"} 1
`
	if err := testutil.GatherAndCompare(registry, strings.NewReader(want), DegradedMetric); err != nil {
		t.Error(err)
	}
}

func TestMetricNamesAreRegistered(t *testing.T) {
	// Every name MetricNames gives is served by the registry /metrics reads, once its series exist.
	syncsTotal.WithLabelValues("test-names", "ok").Add(0)
	syncDuration.WithLabelValues("test-names").Observe(0)
	stepFailures.WithLabelValues("test-names", "s", "r").Add(0)
	writesTotal.WithLabelValues("test-names", "r", "v").Add(0)
	RegisterDegradedSource("test-names", func() []DegradedState { return []DegradedState{{Name: "x"}} })
	t.Cleanup(func() { RegisterDegradedSource("test-names", func() []DegradedState { return nil }) })
	families, err := legacyregistry.DefaultGatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]bool{}
	for _, f := range families {
		served[f.GetName()] = true
		for _, suffix := range []string{"_bucket", "_sum", "_count"} {
			if f.GetType().String() == "HISTOGRAM" {
				served[f.GetName()+suffix] = true
			}
		}
	}
	for _, name := range MetricNames() {
		if !served[name] {
			t.Errorf("%s is not served by the legacy registry", name)
		}
	}
}
