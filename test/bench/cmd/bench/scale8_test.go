package main

import (
	"bytes"
	"reflect"
	"testing"
	"time"

	"github.com/google/pprof/profile"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/llm-infra/llm-infra-operator/test/bench/internal/report"
)

func TestPlatformSteps(t *testing.T) {
	for _, tc := range []struct {
		base, scale int
		want        []int
	}{
		{200, 1000, []int{200, 1000}},
		{100, 200, []int{100, 200}},
		{200, 200, []int{200}},
		{500, 200, []int{200}},
		{0, 300, []int{300}},
	} {
		var got []int
		for _, s := range platformSteps(tc.base, tc.scale) {
			got = append(got, s.n)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("platformSteps(%d, %d) = %v, want %v", tc.base, tc.scale, got, tc.want)
		}
	}
	if st := (platformStep{1000}); st.namespaces() != 100 || st.id() != "8-platform-scale-1000" {
		t.Errorf("step 1000: %d namespaces, id %q; want 100, 8-platform-scale-1000", st.namespaces(), st.id())
	}
}

func TestConvergeTimeout(t *testing.T) {
	for _, tc := range []struct {
		crs  int
		want time.Duration
	}{
		{500, 20 * time.Minute},
		{1000, 20 * time.Minute},
		{2500, 20*time.Minute + 1800*time.Second},
	} {
		if got := convergeTimeout(tc.crs, 20, 1.2); got != tc.want {
			t.Errorf("convergeTimeout(%d) = %s, want %s", tc.crs, got, tc.want)
		}
	}
}

// TestPlatformGrowth checks the ratios between the two steps: per CR for totals, as is for
// memory.
func TestPlatformGrowth(t *testing.T) {
	b := &bench{res: &report.Result{}}
	small, large := platformStep{200}, platformStep{1000}
	b.res.Add(small.id(), "operator CPU from the first CR's creation until all converged", "CPU-s", "", "", 20)
	b.res.Add(large.id(), "operator CPU from the first CR's creation until all converged", "CPU-s", "", "", 150)
	b.res.Add(small.id(), "peak RSS (VmHWM) after convergence", "MiB", "", "", 150)
	b.res.Add(large.id(), "peak RSS (VmHWM) after convergence", "MiB", "", "", 300)
	b.platformGrowth(small, large)
	cpu := b.res.Find(scPlatformScale + "-growth/operator CPU from the first CR's creation until all converged: per CR, large/small")
	if cpu == nil || cpu.Median != 1.5 {
		t.Fatalf("CPU per CR ratio = %+v, want 1.5 (150/2500 over 20/500)", cpu)
	}
	rss := b.res.Find(scPlatformScale + "-growth/peak RSS (VmHWM) after convergence: large/small")
	if rss == nil || rss.Median != 2 {
		t.Fatalf("RSS ratio = %+v, want 2", rss)
	}
	if n := len(b.res.Metrics); n != 6 {
		t.Errorf("%d metrics, want 6 (4 figures, 2 ratios: a measure one step lacks has none)", n)
	}
}

func TestConvergeTracker(t *testing.T) {
	k := batchKind()
	s := &scaleScenario{kinds: []*scaleKind{k}, counts: []int{2}}
	tr := newConvergeTracker(s)
	cr := func(status string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"status": map[string]any{"conditions": []any{
			map[string]any{"type": k.condition, "status": status, "reason": "Waiting"}}}}}
	}
	tr.observe(k, "a/x", cr("True"))
	tr.observe(k, "a/y", cr("False"))
	if tr.complete() {
		t.Fatal("complete with one of two CRs converged")
	}
	if got := tr.pending(); !reflect.DeepEqual(got, map[string]int{"LLMBatchGateway Waiting": 1}) {
		t.Errorf("pending = %v", got)
	}
	tr.observe(k, "a/y", cr("True"))
	if !tr.complete() {
		t.Fatal("not complete with both CRs converged")
	}
	// Once seen converged, a kind stays so: the time measured is the first moment.
	tr.observe(k, "a/y", nil)
	if !tr.complete() {
		t.Error("a deletion after convergence undid it")
	}

	d := deploymentsOf()
	dep := func(available int64) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"status": map[string]any{"availableReplicas": available}}}
	}
	if d.isConverged(dep(0)) || !d.isConverged(dep(1)) {
		t.Error("a Deployment converges with an available replica, not before")
	}
}

func TestTopConsumers(t *testing.T) {
	fn := func(id uint64, name string) *profile.Function { return &profile.Function{ID: id, Name: name} }
	alloc, decode, informer, rt := fn(1, "encoding/json.(*decodeState).object"), fn(2, "sigs.k8s.io/yaml.Unmarshal"),
		fn(3, "k8s.io/client-go/tools/cache.(*threadSafeMap).Add"), fn(4, "runtime.main")
	loc := func(id uint64, f *profile.Function) *profile.Location {
		return &profile.Location{ID: id, Line: []profile.Line{{Function: f}}}
	}
	lAlloc, lDecode, lInformer, lRT := loc(1, alloc), loc(2, decode), loc(3, informer), loc(4, rt)
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "inuse_objects", Unit: "count"}, {Type: "inuse_space", Unit: "bytes"}},
		Sample: []*profile.Sample{
			{Location: []*profile.Location{lAlloc, lDecode, lRT}, Value: []int64{1, 3 << 20}},
			{Location: []*profile.Location{lInformer, lRT}, Value: []int64{1, 5 << 20}},
		},
		Location: []*profile.Location{lAlloc, lDecode, lInformer, lRT},
		Function: []*profile.Function{alloc, decode, informer, rt},
	}
	// Through its wire form, as the operator serves it.
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		t.Fatal(err)
	}
	parsed, err := profile.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	tops, err := topConsumers(parsed, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := heapTops{
		InUseMiB: 8,
		Flat:     []heapConsumer{{informer.Name, 5}, {alloc.Name, 3}},
		Cum:      []heapConsumer{{informer.Name, 5}, {alloc.Name, 3}},
	}
	if !reflect.DeepEqual(tops, want) {
		t.Errorf("topConsumers = %+v\nwant %+v", tops, want)
	}
	if tops, _ := topConsumers(parsed, 10); len(tops.Cum) != 3 {
		t.Errorf("cumulative: %+v, want 3 functions (the runtime's frame left out)", tops.Cum)
	}
}
