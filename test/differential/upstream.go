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
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"

	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// UpstreamRenderEnv names a prebuilt upstream-render binary; unset, the test builds it.
const UpstreamRenderEnv = "UPSTREAM_RENDER"

// repoDir is the clone the test runs in: found from the working directory up (a test's is its
// package's), not from a source file's name, which -trimpath (make's GOFLAGS) turns into the
// module's path.
func repoDir() string {
	dir, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "hack", "tools", "upstreamrender")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			panic("hack/tools/upstreamrender is in no folder above the working directory")
		}
		dir = parent
	}
}

// upstreamRenderDir is hack/tools/upstreamrender of the clone the test runs in.
func upstreamRenderDir() string { return filepath.Join(repoDir(), "hack", "tools", "upstreamrender") }

// UpstreamCRDPath is upstream's LLMBatchGateway CRD at the pinned operator commit.
func UpstreamCRDPath() string {
	return filepath.Join(upstreamRenderDir(), "third_party", "llm-d-batch-gateway-operator", "batch.llm-d.ai_llmbatchgateways.yaml")
}

// TB is what starting a renderer needs of a test: a testing.TB, or Ginkgo's GinkgoT() (the
// operands' suite renders upstream's objects for the switch under load), which cannot be one
// (testing.TB has an unexported method).
type TB interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
	Cleanup(func())
}

// Upstream is upstream's renderer of LLMBatchGateways (hack/tools/upstreamrender): the
// upstream operator's values mapping and Helm over the charts of the pinned commits, built from
// their sources, running as a process that answers one CR at a time.
type Upstream struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

// StartUpstream starts upstream's renderer: the binary UPSTREAM_RENDER names, or the one built
// from hack/tools/upstreamrender (UpstreamRenderBinary); it stops when the test ends. Its images
// are the renderer's placeholders (registry.example/..., test/golden/README.md).
func StartUpstream(tb TB) *Upstream {
	tb.Helper()
	return StartUpstreamWith(tb, UpstreamImages{})
}

// UpstreamImages are the images upstream's operator renders, which it takes from its own
// Deployment's environment (LLM_D_BATCH_GATEWAY_APISERVER_IMAGE, ..._PROCESSOR_IMAGE,
// ..._GC_IMAGE, LLM_D_ASYNC_IMAGE); an empty one keeps the renderer's placeholder.
type UpstreamImages struct {
	APIServer, Processor, GC, Async string
}

// args are upstream-render's flags for the images set.
func (i UpstreamImages) args() []string {
	var out []string
	for _, f := range []struct{ flag, image string }{
		{"-apiserver-image", i.APIServer}, {"-processor-image", i.Processor}, {"-gc-image", i.GC}, {"-async-image", i.Async},
	} {
		if f.image != "" {
			out = append(out, f.flag, f.image)
		}
	}
	return out
}

// StartUpstreamWith is StartUpstream rendering images.
func StartUpstreamWith(tb TB, images UpstreamImages) *Upstream {
	tb.Helper()
	dir := upstreamRenderDir()
	binary := os.Getenv(UpstreamRenderEnv)
	if binary == "" {
		var err error
		if binary, err = UpstreamRenderBinary(); err != nil {
			tb.Fatal(err)
		}
	}
	charts := filepath.Join(dir, "third_party", "charts")
	args := append([]string{"-batch-chart", filepath.Join(charts, "batch-gateway"), "-async-chart", filepath.Join(charts, "async-processor")}, images.args()...)
	cmd := exec.Command(binary, args...)
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

// UpstreamRenderBinary returns upstream's renderer built from hack/tools/upstreamrender
// (CachedToolBinary).
func UpstreamRenderBinary() (string, error) {
	module := filepath.Join(upstreamRenderDir(), "third_party", "llm-d-batch-gateway-operator")
	return CachedToolBinary(module, "./cmd/upstream-render", "upstream-render")
}

// CachedToolBinary returns the program pkg of the Go module in dir (upstream's code, its own
// module), built and kept outside the clone as hack/install-tools.sh keeps the code generators:
// in TOOLS_CACHE [${XDG_CACHE_HOME:-$HOME/.cache}/llm-infra-operator/tools], under the sha256 of
// the Go version and of every file of the module, so a clone (CI's, another worktree's) builds
// it once per change of its sources. A build from a cold Go cache compiles Kubernetes' client
// libraries (and Helm, for the batch gateway): minutes; from the cache it is a stat.
func CachedToolBinary(dir, pkg, name string) (string, error) {
	sum := sha256.New()
	fmt.Fprintln(sum, runtime.Version(), pkg)
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		fmt.Fprintf(sum, "%s %d\n", rel, len(data))
		sum.Write(data)
		return nil
	})
	if err != nil {
		return "", err
	}
	cache := os.Getenv("TOOLS_CACHE")
	if cache == "" {
		userCache, err := os.UserCacheDir()
		if err != nil {
			return "", err
		}
		cache = filepath.Join(userCache, "llm-infra-operator", "tools")
	}
	binary := filepath.Join(cache, fmt.Sprintf("%s-%x", name, sum.Sum(nil)[:12]), name)
	if _, err := os.Stat(binary); err == nil {
		return binary, nil
	}
	if err := os.MkdirAll(filepath.Dir(binary), 0o755); err != nil {
		return "", err
	}
	// Built beside and renamed: a concurrent test never runs half a binary.
	tmp := fmt.Sprintf("%s.tmp.%d", binary, os.Getpid())
	build := exec.Command("go", "build", "-o", tmp, pkg)
	build.Dir = dir
	// Its own module, with upstream's go.mod: not the operator's vendor directory. -trimpath and no
	// cgo as the tools modules are built (hack/build-cluster-binaries.sh): the build cache keys a
	// package by both, so only then do the dependencies they share compile once.
	build.Env = append(os.Environ(), "GOFLAGS=-mod=mod -trimpath", "GOWORK=off", "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		_ = os.Remove(tmp)
		return "", fmt.Errorf("building %s in %s: %v\n%s", pkg, dir, err, out)
	}
	return binary, os.Rename(tmp, binary)
}
