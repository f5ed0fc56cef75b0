// Package differential compares what the operator renders with what upstream's own renderer
// renders for the same custom resources, generated from the CRD's schema: the CR generator
// (Generator), the admission of each CR by the CRDs (crdtest), upstream's renderer run as a
// process built from the pinned sources (Upstream), the equivalences under which two objects
// mean the same to their consumer (Normalize), and the shrinking of a CR that shows a
// difference to the smallest one that still does (Shrink). The kinds' tests wire them up
// (pkg/operator/operands/batchgateway/differential_test.go).
package differential

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// UpstreamRenderEnv names a prebuilt upstream-render binary; unset, the test builds it.
const UpstreamRenderEnv = "UPSTREAM_RENDER"

// upstreamRenderDir is hack/tools/upstreamrender, from this file.
func upstreamRenderDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "hack", "tools", "upstreamrender")
}

// UpstreamCRDPath is upstream's LLMBatchGateway CRD at the pinned operator commit.
func UpstreamCRDPath() string {
	return filepath.Join(upstreamRenderDir(), "third_party", "llm-d-batch-gateway-operator", "batch.llm-d.ai_llmbatchgateways.yaml")
}

// Upstream is upstream's renderer of LLMBatchGateways (hack/tools/upstreamrender): the
// upstream operator's values mapping and Helm over the charts of the pinned commits, built from
// their sources, running as a process that answers one CR at a time.
type Upstream struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

// StartUpstream builds (unless UPSTREAM_RENDER names a binary) and starts upstream's renderer;
// it stops when the test ends.
func StartUpstream(tb testing.TB) *Upstream {
	tb.Helper()
	dir := upstreamRenderDir()
	binary := os.Getenv(UpstreamRenderEnv)
	if binary == "" {
		binary = filepath.Join(tb.TempDir(), "upstream-render")
		build := exec.Command("go", "build", "-o", binary, "./cmd/upstream-render")
		build.Dir = filepath.Join(dir, "third_party", "llm-d-batch-gateway-operator")
		// Its own module, with upstream's go.mod: not the operator's vendor directory.
		build.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
		if out, err := build.CombinedOutput(); err != nil {
			tb.Fatalf("building upstream's renderer in %s: %v\n%s", build.Dir, err, out)
		}
	}
	charts := filepath.Join(dir, "third_party", "charts")
	cmd := exec.Command(binary, "-batch-chart", filepath.Join(charts, "batch-gateway"), "-async-chart", filepath.Join(charts, "async-processor"))
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	u := &Upstream{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	tb.Cleanup(func() {
		_ = u.in.Close()
		_ = u.cmd.Wait()
	})
	return u
}

// Render returns upstream's objects for a CR (defaulted by upstream's CRD), or the error
// upstream's reconciler would report.
func (u *Upstream) Render(cr map[string]interface{}) ([]map[string]interface{}, error) {
	data, err := json.Marshal(cr)
	if err != nil {
		return nil, err
	}
	if _, err := u.in.Write(append(data, '\n')); err != nil {
		return nil, fmt.Errorf("upstream-render: %w", err)
	}
	line, err := u.out.ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("upstream-render: %w", err)
	}
	var res struct {
		Objects []map[string]interface{} `json:"objects"`
		Error   string                   `json:"error"`
	}
	// Integral numbers as int64, as the API server and the operator's side have them.
	if err := utiljson.Unmarshal(line, &res); err != nil {
		return nil, fmt.Errorf("upstream-render: %w", err)
	}
	if res.Error != "" {
		return nil, fmt.Errorf("upstream: %s", res.Error)
	}
	return res.Objects, nil
}
