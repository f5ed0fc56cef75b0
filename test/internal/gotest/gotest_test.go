package gotest

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// stream is a test2json event stream: each event is action, test, and for "output" its text.
func stream(t *testing.T, events ...[3]string) []byte {
	t.Helper()
	var b []byte
	for _, e := range events {
		line, err := json.Marshal(map[string]string{"Action": e[0], "Test": e[1], "Output": e[2]})
		if err != nil {
			t.Fatal(err)
		}
		b = append(append(b, line...), '\n')
	}
	return b
}

// test is the events of one test that prints out and ends with verdict ("" for none), as
// test2json reports them: the "=== RUN" and "--- PASS" lines are the test's output events.
func test(name, out, verdict string) [][3]string {
	e := [][3]string{{"run", name, ""}, {"output", name, "=== RUN   " + name + "\n"}}
	if out != "" {
		e = append(e, [3]string{"output", name, out})
	}
	if verdict != "" {
		e = append(e, [3]string{"output", name, "--- " + strings.ToUpper(verdict) + ": " + name + " (0.00s)\n"}, [3]string{verdict, name, ""})
	}
	return e
}

func events(parts ...[][3]string) [][3]string {
	var all [][3]string
	for _, p := range parts {
		all = append(all, p...)
	}
	return all
}

func TestCheck(t *testing.T) {
	gcFails := Expected{Verdict: Fail, Why: "no PostgreSQL pod", Evidence: `kubectl exec psql failed`}
	jaegerSkips := Expected{Verdict: Skip, Why: "no Jaeger", Evidence: `Jaeger not reachable`}
	for _, tc := range []struct {
		name     string
		events   [][3]string
		expected map[string]Expected
		passed   []string
		failed   []string
		skipped  []string
		// problems: one substring of each problem, in order.
		problems []string
	}{{
		name: "every leaf passes, nothing listed: the parents are not counted",
		events: events(
			test("TestE2E", "", ""),
			test("TestE2E/Files", "", ""),
			test("TestE2E/Files/Lifecycle", "    files_test.go:40: created\n", "pass"),
			test("TestE2E/Files/List", "", "pass"),
			[][3]string{{"pass", "TestE2E/Files", ""}, {"pass", "TestE2E", ""}},
		),
		passed: []string{"TestE2E/Files/Lifecycle", "TestE2E/Files/List"},
	}, {
		name: "a listed failure with its evidence, and a listed skip with its evidence",
		events: events(
			test("TestE2E/GC/CollectsExpiredFile", "    gc_test.go:60: kubectl exec psql failed: exit status 1\n", "fail"),
			test("TestE2E/Observability/OtelTraces", "    observability_test.go:47: Jaeger not reachable at http://localhost:16686\n", "skip"),
			[][3]string{{"fail", "TestE2E/GC", ""}, {"fail", "TestE2E", ""}},
		),
		expected: map[string]Expected{"TestE2E/GC/CollectsExpiredFile": gcFails, "TestE2E/Observability/OtelTraces": jaegerSkips},
		failed:   []string{"TestE2E/GC/CollectsExpiredFile"},
		skipped:  []string{"TestE2E/Observability/OtelTraces"},
	}, {
		name:     "a listed test passed: the list must shrink",
		events:   test("TestE2E/GC/CollectsExpiredFile", "", "pass"),
		expected: map[string]Expected{"TestE2E/GC/CollectsExpiredFile": gcFails},
		passed:   []string{"TestE2E/GC/CollectsExpiredFile"},
		problems: []string{"TestE2E/GC/CollectsExpiredFile passed, but is listed as expected to fail (no PostgreSQL pod): remove it"},
	}, {
		name:     "an unlisted failure, with its output",
		events:   test("TestE2E/Batches/Cancel/InProgress", "    batches_test.go:88: batch b1 reached terminal status \"completed\"\n", "fail"),
		failed:   []string{"TestE2E/Batches/Cancel/InProgress"},
		problems: []string{"TestE2E/Batches/Cancel/InProgress: failed, not expected:\n=== RUN   TestE2E/Batches/Cancel/InProgress\n    batches_test.go:88: batch b1 reached terminal status"},
	}, {
		name:     "an unlisted skip",
		events:   test("TestE2E/Observability/Pprof/APIServer", "    observability_test.go:101: pprof not enabled\n", "skip"),
		skipped:  []string{"TestE2E/Observability/Pprof/APIServer"},
		problems: []string{"TestE2E/Observability/Pprof/APIServer: skipped, not expected"},
	}, {
		name:     "a listed failure that fails for another reason",
		events:   test("TestE2E/GC/CollectsExpiredFile", "    gc_test.go:99: create file failed: 500\n", "fail"),
		expected: map[string]Expected{"TestE2E/GC/CollectsExpiredFile": gcFails},
		failed:   []string{"TestE2E/GC/CollectsExpiredFile"},
		problems: []string{`failed, but not as expected (no PostgreSQL pod): its output does not match "kubectl exec psql failed"`},
	}, {
		name:     "a test listed as skipped that failed",
		events:   test("TestE2E/Observability/OtelTraces", "    observability_test.go:47: Jaeger not reachable\n", "fail"),
		expected: map[string]Expected{"TestE2E/Observability/OtelTraces": jaegerSkips},
		failed:   []string{"TestE2E/Observability/OtelTraces"},
		problems: []string{"TestE2E/Observability/OtelTraces: failed, but expected to skip (no Jaeger)"},
	}, {
		name:   "a prefix is no expectation: the tests under it are unexpected and the prefix did not run",
		events: test("TestE2E/AIMD/Recovery", "    aimd_test.go:300: POST failed\n", "fail"),
		expected: map[string]Expected{
			"TestE2E/AIMD/": {Verdict: Fail, Why: "no simulator", Evidence: "POST"},
		},
		failed: []string{"TestE2E/AIMD/Recovery"},
		problems: []string{
			"TestE2E/AIMD/Recovery: failed, not expected",
			"TestE2E/AIMD/ is listed as expected to fail, but did not run as a test of its own",
		},
	}, {
		name: "a parent that fails itself while its subtests pass counts as a failure",
		events: events(
			test("TestE2E/AIMD", "", ""),
			test("TestE2E/AIMD/Recovery", "", "pass"),
			[][3]string{{"output", "TestE2E/AIMD", "    aimd_test.go:46: cleanup: delete pod failed\n"}, {"fail", "TestE2E/AIMD", ""}},
		),
		passed:   []string{"TestE2E/AIMD/Recovery"},
		failed:   []string{"TestE2E/AIMD"},
		problems: []string{"TestE2E/AIMD: failed, not expected:\n=== RUN   TestE2E/AIMD\n    aimd_test.go:46: cleanup: delete pod failed"},
	}, {
		name: "a parent that skips before its subtests run is a leaf",
		events: events(
			test("TestE2E/FlowControl/GIE", "    flow_control_test.go:60: GIE EPP not deployed\n", "skip"),
		),
		expected: map[string]Expected{"TestE2E/FlowControl/GIE": {Verdict: Skip, Why: "no EPP", Evidence: "GIE EPP not deployed"}},
		skipped:  []string{"TestE2E/FlowControl/GIE"},
	}, {
		name: "a test that never ended (the binary timed out), even when listed",
		events: events(
			test("TestE2E/Observability/Processor", "    observability_test.go:110: port-forward\n", ""),
			[][3]string{{"output", "", "panic: test timed out after 11m0s\n"}},
		),
		expected: map[string]Expected{"TestE2E/Observability/Processor": {Verdict: Fail, Why: "hangs", Evidence: "port-forward"}},
		failed:   []string{"TestE2E/Observability/Processor"},
		problems: []string{"TestE2E/Observability/Processor: never ended (the binary timed out or crashed), but expected to fail (hangs)"},
	}, {
		name:     "an expectation without evidence cannot be checked",
		events:   test("TestE2E/GC/CollectsExpiredBatch", "    gc_test.go:60: kubectl exec psql failed\n", "fail"),
		expected: map[string]Expected{"TestE2E/GC/CollectsExpiredBatch": {Verdict: Fail, Why: "no PostgreSQL pod"}},
		failed:   []string{"TestE2E/GC/CollectsExpiredBatch"},
		problems: []string{`its expectation's evidence "" is not a regular expression that can be checked`},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			run, err := Parse(stream(t, tc.events...))
			if err != nil {
				t.Fatal(err)
			}
			s := Check(run.Leaves(), tc.expected)
			for _, c := range []struct {
				what      string
				got, want []string
			}{{"passed", s.Passed, tc.passed}, {"failed", s.Failed, tc.failed}, {"skipped", s.Skipped, tc.skipped}} {
				if !slices.Equal(c.got, c.want) {
					t.Errorf("%s = %q, want %q", c.what, c.got, c.want)
				}
			}
			if len(s.Problems) != len(tc.problems) {
				t.Fatalf("problems = %q, want %d containing %q", s.Problems, len(tc.problems), tc.problems)
			}
			for i, want := range tc.problems {
				if !strings.Contains(s.Problems[i], want) {
					t.Errorf("problem %d = %q, want it to contain %q", i, s.Problems[i], want)
				}
			}
		})
	}
}

func TestParse(t *testing.T) {
	// Output interleaved between two tests is each test's own; the run's output is all of it in
	// order, the binary's own lines (no test) included.
	run, err := Parse(stream(t,
		[3]string{"start", "", ""},
		[3]string{"run", "TestA", ""},
		[3]string{"output", "TestA", "=== RUN   TestA\n"},
		[3]string{"run", "TestA/x", ""},
		[3]string{"output", "TestA/x", "=== RUN   TestA/x\n"},
		[3]string{"output", "TestA/x", "    a_test.go:1: in x\n"},
		[3]string{"output", "TestA", "    a_test.go:2: in A\n"},
		[3]string{"output", "TestA/x", "--- PASS: TestA/x (0.00s)\n"},
		[3]string{"pass", "TestA/x", ""},
		[3]string{"output", "TestA", "--- FAIL: TestA (0.00s)\n"},
		[3]string{"fail", "TestA", ""},
		[3]string{"output", "", "FAIL\n"},
	))
	if err != nil {
		t.Fatal(err)
	}
	want := []Result{
		{Name: "TestA", Verdict: Fail, Output: "=== RUN   TestA\n    a_test.go:2: in A\n--- FAIL: TestA (0.00s)\n"},
		{Name: "TestA/x", Verdict: Pass, Output: "=== RUN   TestA/x\n    a_test.go:1: in x\n--- PASS: TestA/x (0.00s)\n"},
	}
	if !slices.Equal(run.Tests, want) {
		t.Errorf("tests = %+v, want %+v", run.Tests, want)
	}
	if wantOut := "=== RUN   TestA\n=== RUN   TestA/x\n    a_test.go:1: in x\n    a_test.go:2: in A\n--- PASS: TestA/x (0.00s)\n--- FAIL: TestA (0.00s)\nFAIL\n"; run.Output != wantOut {
		t.Errorf("output = %q, want %q", run.Output, wantOut)
	}
	if _, err := Parse([]byte("=== RUN   TestA\n")); err == nil {
		t.Error("Parse of plain text: no error, want one (the stream is test2json's)")
	}
}
