package differential

import (
	"os"
	"path/filepath"
	"testing"
)

// LWSRenderEnv names a prebuilt lws-render binary; unset, the test builds it once per change of
// its sources (CachedToolBinary).
const LWSRenderEnv = "LWS_RENDER"

// lwsModuleDir is openshift/lws-operator's module, copied into hack/tools/lwsrender.
func lwsModuleDir() string {
	return filepath.Join(upstreamRenderDir(), "..", "lwsrender", "third_party", "lws-operator")
}

// LWSCRDPath is openshift/lws-operator's LeaderWorkerSetOperator CRD at the pinned commit.
func LWSCRDPath() string {
	return filepath.Join(lwsModuleDir(), "manifests", "operator.openshift.io_leaderworkersetoperators.yaml")
}

// LWSUpstream is openshift/lws-operator's target-config reconciler (hack/tools/lwsrender),
// unchanged, run against client-go's fake clientsets until a pass changes nothing, as a process
// answering one LeaderWorkerSetOperator at a time.
type LWSUpstream struct{ tool *toolProcess }

// LWSRenderBinary returns lws-render built from hack/tools/lwsrender (CachedToolBinary), or the
// binary LWS_RENDER names.
func LWSRenderBinary() (string, error) {
	if binary := os.Getenv(LWSRenderEnv); binary != "" {
		return binary, nil
	}
	return CachedToolBinary(lwsModuleDir(), "./cmd/lws-render", "lws-render")
}

// StartLWSUpstream starts upstream's reconciler with the operand in namespace running image; it
// stops when the test ends.
func StartLWSUpstream(tb testing.TB, namespace, image string) *LWSUpstream {
	tb.Helper()
	binary, err := LWSRenderBinary()
	if err != nil {
		tb.Fatalf("upstream's reconciler: %v", err)
	}
	return &LWSUpstream{tool: startTool(tb, "lws-render", binary, "-namespace", namespace, "-image", image)}
}

// Render returns the objects upstream's reconciler creates for cr (as upstream's CRD stores it)
// and the CR's status after the last pass (condition times 1970-01-01T00:00:00Z), or the error
// of the last pass when it never settled.
func (u *LWSUpstream) Render(cr map[string]interface{}) ([]map[string]interface{}, map[string]interface{}, error) {
	return u.tool.render(map[string]interface{}{"cr": cr})
}
