// Package gotest reads what a Go test binary reported, as the JSON events of `go tool test2json`
// (the format of `go test -json`, documented by `go doc cmd/test2json`), and checks each test's
// verdict against a list of tests expected to fail or be skipped. test/operands runs upstream's
// batch-gateway e2e suite this way: every test it expects not to pass is listed by its full name,
// with why, and with what in the test's own output shows that this is the cause.
package gotest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Verdict is how a test ended.
type Verdict string

const (
	Pass Verdict = "pass"
	Fail Verdict = "fail"
	Skip Verdict = "skip"
	// None: the test started and never ended (the binary timed out or crashed).
	None Verdict = "none"
)

// Result is one test's verdict and the output it printed itself (its subtests' not included).
type Result struct {
	Name    string
	Verdict Verdict
	Output  string
}

// Run is what one run of a test binary reported.
type Run struct {
	// Tests are every test, in the order they started.
	Tests []Result
	// Output is the run's whole output, as `go test -v` prints it.
	Output string
}

// event is one line of test2json's output (cmd/test2json's TestEvent, the fields read here).
type event struct {
	Action string
	Test   string
	Output string
}

// Parse reads test2json's event stream.
func Parse(stream []byte) (Run, error) {
	var run Run
	var out strings.Builder
	index := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(stream))
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	for line := 1; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return run, fmt.Errorf("test2json line %d: %w: %q", line, err, sc.Text())
		}
		out.WriteString(e.Output)
		if e.Test == "" {
			continue
		}
		i, seen := index[e.Test]
		if !seen {
			i = len(run.Tests)
			index[e.Test] = i
			run.Tests = append(run.Tests, Result{Name: e.Test, Verdict: None})
		}
		switch e.Action {
		case "output":
			run.Tests[i].Output += e.Output
		case string(Pass), string(Fail), string(Skip):
			run.Tests[i].Verdict = Verdict(e.Action)
		}
	}
	run.Output = out.String()
	return run, sc.Err()
}

// Leaves are the tests whose verdict is their own: those without subtests, and a parent that
// failed although none of its subtests did (it failed itself, in its own code or a cleanup). A
// parent's verdict otherwise only sums up its subtests'.
func (r Run) Leaves() []Result {
	var leaves []Result
	for _, t := range r.Tests {
		children, childFailed := false, false
		for _, o := range r.Tests {
			if strings.HasPrefix(o.Name, t.Name+"/") {
				children = true
				childFailed = childFailed || o.Verdict == Fail || o.Verdict == None
			}
		}
		if !children || (t.Verdict == Fail && !childFailed) {
			leaves = append(leaves, t)
		}
	}
	return leaves
}

// Expected is a test that cannot pass where the suite runs, and why.
type Expected struct {
	// Verdict is Fail or Skip.
	Verdict Verdict
	// Why it cannot pass here.
	Why string
	// Evidence is a regular expression that the test's own output matches when Why is the cause:
	// a test that fails or skips for another reason is not excused.
	Evidence string
}

// Summary is the verdict of a suite against its expectations.
type Summary struct {
	Passed, Failed, Skipped []string
	// Problems are the tests that ended otherwise than expected, one sentence each: a failure or
	// skip that is not listed, a listed test that passed (the list must shrink), ended with the
	// other verdict or without the evidence, or did not run at all. None means the suite is as
	// expected.
	Problems []string
}

// Check compares the leaves of a suite's runs with the tests expected not to pass. Names match
// exactly: there are no prefixes or patterns, so an expectation covers one test.
func Check(leaves []Result, expected map[string]Expected) Summary {
	var s Summary
	ran := map[string]bool{}
	for _, t := range leaves {
		ran[t.Name] = true
		exp, listed := expected[t.Name]
		switch t.Verdict {
		case Pass:
			s.Passed = append(s.Passed, t.Name)
			if listed {
				s.Problems = append(s.Problems, fmt.Sprintf("%s passed, but is listed as expected to %s (%s): remove it from the list", t.Name, exp.Verdict, exp.Why))
			}
			continue
		case Skip:
			s.Skipped = append(s.Skipped, t.Name)
		default:
			s.Failed = append(s.Failed, t.Name)
		}
		switch {
		case !listed:
			s.Problems = append(s.Problems, fmt.Sprintf("%s: %s, not expected:\n%s", t.Name, describe(t.Verdict), tail(t.Output, 15)))
		case exp.Verdict != t.Verdict:
			s.Problems = append(s.Problems, fmt.Sprintf("%s: %s, but expected to %s (%s):\n%s", t.Name, describe(t.Verdict), exp.Verdict, exp.Why, tail(t.Output, 15)))
		default:
			re, err := regexp.Compile(exp.Evidence)
			switch {
			case exp.Evidence == "" || err != nil:
				s.Problems = append(s.Problems, fmt.Sprintf("%s: its expectation's evidence %q is not a regular expression that can be checked: %v", t.Name, exp.Evidence, err))
			case !re.MatchString(t.Output):
				s.Problems = append(s.Problems, fmt.Sprintf("%s: %s, but not as expected (%s): its output does not match %q:\n%s", t.Name, describe(t.Verdict), exp.Why, exp.Evidence, tail(t.Output, 15)))
			}
		}
	}
	var names []string
	for name := range expected {
		if !ran[name] {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		s.Problems = append(s.Problems, fmt.Sprintf("%s is listed as expected to %s, but did not run as a test of its own: remove it or name the test exactly", name, expected[name].Verdict))
	}
	return s
}

func describe(v Verdict) string {
	switch v {
	case Fail:
		return "failed"
	case Skip:
		return "skipped"
	case None:
		return "never ended (the binary timed out or crashed)"
	}
	return string(v)
}

// tail is the last n lines of out.
func tail(out string, n int) string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
