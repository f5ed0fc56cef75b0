// Command report prints one table over the suites of a `make test-reliability` run (every
// <suite>.json of -dir, test/reliability/result) and keeps them, with the commit and the
// machine, as <-out>/reliability-<commit>-<time>.json, next to the bench's _output/bench/.
// It exits non-zero when a suite failed or none is found.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/llm-infra/llm-infra-operator/test/reliability/result"
)

// Run is the saved file: the suites and what they ran on.
type Run struct {
	Commit   string         `json:"commit"`
	Dirty    bool           `json:"dirty"`
	Finished time.Time      `json:"finished"`
	CPUs     int            `json:"cpus"`
	Short    bool           `json:"short"`
	Suites   []result.Suite `json:"suites"`
}

func main() {
	dir := flag.String("dir", "", "the run's directory of <suite>.json files")
	out := flag.String("out", "_output/reliability", "where the run's JSON is saved")
	short := flag.Bool("short", false, "the run was the short form (recorded in the JSON)")
	flag.Parse()
	suites, err := result.ReadAll(*dir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "report: %v\n", err)
		os.Exit(1)
	}
	if len(suites) == 0 {
		fmt.Fprintf(os.Stderr, "report: no suite result in %s\n", *dir)
		os.Exit(1)
	}
	commit := git("rev-parse", "HEAD")
	run := Run{Commit: commit, Dirty: git("status", "--porcelain") != "", Finished: time.Now().UTC(), CPUs: runtime.NumCPU(), Short: *short, Suites: suites}
	Print(os.Stdout, run)
	short12 := commit
	if len(short12) > 12 {
		short12 = short12[:12]
	}
	if run.Dirty {
		short12 += "-dirty"
	}
	path := filepath.Join(*out, fmt.Sprintf("reliability-%s-%s.json", short12, run.Finished.Format("20060102T150405Z")))
	data, err := json.MarshalIndent(run, "", "  ")
	if err == nil {
		err = os.MkdirAll(*out, 0o755)
	}
	if err == nil {
		err = os.WriteFile(path, append(data, '\n'), 0o644)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "report: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("JSON: %s\n", path)
	for _, s := range suites {
		if !s.Passed {
			os.Exit(1)
		}
	}
}

// Print writes the table: one block per suite, its metrics one a line, then its failures.
func Print(w io.Writer, run Run) {
	fmt.Fprintf(w, "llm-infra-operator reliability: commit %.12s, %d CPUs\n", run.Commit, run.CPUs)
	fmt.Fprintf(w, "%-12s %-52s %12s\n", "suite", "metric", "value")
	for _, s := range run.Suites {
		verdict := "passed"
		if !s.Passed {
			verdict = fmt.Sprintf("FAILED (%d)", len(s.Failures))
		}
		fmt.Fprintf(w, "%-12s %-52s %12s\n", s.Name, "result", verdict)
		for _, m := range s.Metrics {
			fmt.Fprintf(w, "%-12s %-52s %12s\n", "", m.Name, format(m))
		}
		for _, f := range s.Failures {
			fmt.Fprintf(w, "%-12s   ! %s\n", "", f)
		}
	}
}

func format(m result.Metric) string {
	if m.Unit == "" && m.Value == float64(int64(m.Value)) {
		return fmt.Sprintf("%d", int64(m.Value))
	}
	return strings.TrimSpace(fmt.Sprintf("%.1f %s", m.Value, m.Unit))
}

func git(args ...string) string {
	out, err := exec.Command("git", args...).Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}
