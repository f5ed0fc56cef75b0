package differential

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// InferenceGatewayRenderEnv names a prebuilt igw-render binary; unset, the test builds it once
// per change of its sources (CachedToolBinary).
const InferenceGatewayRenderEnv = "IGW_RENDER"

// inferenceGatewayModuleDir is upstream's inference-gateway operator module, copied into
// hack/tools/igwrender.
func inferenceGatewayModuleDir() string {
	return filepath.Join(upstreamRenderDir(), "..", "igwrender", "third_party", "inference-gateway-operator")
}

// InferenceGatewayCRDPath is upstream's CRD of a core.inference-gateway.com kind ("gateways",
// "agents", "orchestrators", "mcps", "gpus") at the pinned operator commit.
func InferenceGatewayCRDPath(plural string) string {
	return filepath.Join(inferenceGatewayModuleDir(), "crds", "core.inference-gateway.com_"+plural+".yaml")
}

// InferenceGatewayUpstream is the upstream inference-gateway operator's reconcilers
// (hack/tools/igwrender), unchanged, run against controller-runtime's fake client until a pass
// changes nothing, as a process answering one CR at a time.
type InferenceGatewayUpstream struct{ tool *toolProcess }

// StartInferenceGatewayUpstream builds (unless IGW_RENDER names a binary; kept, CachedToolBinary)
// and starts upstream's
// reconcilers; every *.svc.cluster.local address they dial reaches cardAddress (host:port; ""
// for none). It stops when the test ends.
func StartInferenceGatewayUpstream(tb TB, cardAddress string) *InferenceGatewayUpstream {
	tb.Helper()
	return StartInferenceGatewayUpstreamWith(tb, UpstreamOptions{CardAddress: cardAddress})
}

// UpstreamOptions are what upstream's reconcilers reach: the agent-card server, and for GPUs the
// fake RunPod API, the stand-in for RunPod's proxy, and the clock. Every address is loopback.
type UpstreamOptions struct {
	// CardAddress answers every *.svc.cluster.local address (host:port; "" for none).
	CardAddress string
	// RunPodAPI is the base URL of the fake RunPod API upstream's RunPod driver calls; "" lets
	// no GPU be rendered.
	RunPodAPI string
	// RunPodProxy answers every *.proxy.runpod.net address (upstream's readiness probe).
	RunPodProxy *RunPodProxy
}

// StartInferenceGatewayUpstreamWith is StartInferenceGatewayUpstream with GPUs too: upstream's
// GPUReconciler leases from opts.RunPodAPI, probes through opts.RunPodProxy, and its clock stands
// at GPUClock.
func StartInferenceGatewayUpstreamWith(tb TB, opts UpstreamOptions) *InferenceGatewayUpstream {
	tb.Helper()
	binary := os.Getenv(InferenceGatewayRenderEnv)
	if binary == "" {
		var err error
		if binary, err = CachedToolBinary(inferenceGatewayModuleDir(), "./cmd/igw-render", "igw-render"); err != nil {
			tb.Fatalf("upstream's reconcilers: %v", err)
		}
	}
	args := []string{"-card-address", opts.CardAddress, "-clock", GPUClock.Format(time.RFC3339)}
	if opts.RunPodAPI != "" {
		args = append(args, "-runpod-api", opts.RunPodAPI)
	}
	if opts.RunPodProxy != nil {
		args = append(args, "-runpod-proxy-address", opts.RunPodProxy.Address, "-runpod-proxy-ca", opts.RunPodProxy.CAFile)
	}
	return &InferenceGatewayUpstream{tool: startTool(tb, "igw-render", binary, args...)}
}

// Render returns the objects upstream's reconciler of the CR's kind creates for cr (defaulted
// by upstream's CRD, metadata.generation set) with supporting in the store before, and the CR's
// status after the last pass (condition times 1970-01-01T00:00:00Z); or the error a pass
// returned.
func (u *InferenceGatewayUpstream) Render(cr map[string]interface{}, supporting []map[string]interface{}) ([]map[string]interface{}, map[string]interface{}, error) {
	return u.tool.render(map[string]interface{}{"cr": cr, "supporting": supporting})
}

// toolProcess is a renderer of upstream's code running as a process of the request/response
// protocol of cmd/igw-render and cmd/lws-render: one JSON request a line in, one JSON line
// {"objects", "status"} or {"error"} out.
type toolProcess struct {
	name string
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
}

// startTool starts binary with args; it stops when the test ends.
func startTool(tb TB, name, binary string, args ...string) *toolProcess {
	tb.Helper()
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
	p := &toolProcess{name: name, cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	tb.Cleanup(func() {
		_ = p.in.Close()
		_ = p.cmd.Wait()
	})
	return p
}

// render sends one request and returns the objects and status of the answer, or its error.
func (p *toolProcess) render(request map[string]interface{}) ([]map[string]interface{}, map[string]interface{}, error) {
	data, err := json.Marshal(request)
	if err != nil {
		return nil, nil, err
	}
	if _, err := p.in.Write(append(data, '\n')); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", p.name, err)
	}
	line, err := p.out.ReadBytes('\n')
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", p.name, err)
	}
	var res struct {
		Objects []map[string]interface{} `json:"objects"`
		Status  map[string]interface{}   `json:"status"`
		Error   string                   `json:"error"`
	}
	// Integral numbers as int64, as the API server and the operator's side have them.
	if err := utiljson.Unmarshal(line, &res); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", p.name, err)
	}
	if res.Error != "" {
		return nil, nil, fmt.Errorf("upstream: %s", res.Error)
	}
	return res.Objects, res.Status, nil
}
