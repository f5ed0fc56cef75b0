package inferencegatewayagents

import (
	"encoding/json"
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/llm-infra/llm-infra-operator/bindata"
	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1/testcases"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine/enginetest"
)

// The fuzz targets of the three kinds' rendering (hack/fuzz.sh runs them): any spec, however
// odd, renders without a panic, the same way twice, and, when the name is one the API server
// admits, into objects it would accept (well-formed names, labels and namespaces).

// specSeeds are the specs of the admission table's accepted objects of one kind.
func specSeeds(f *testing.F, cases []testcases.Case) [][]byte {
	var out [][]byte
	for _, c := range cases {
		obj, err := c.Object()
		if err != nil {
			f.Fatal(err)
		}
		spec, _ := json.Marshal(obj["spec"])
		out = append(out, spec)
	}
	return out
}

func FuzzRenderAgent(f *testing.F) {
	for _, seed := range specSeeds(f, testcases.AgentAccepted) {
		f.Add(seed, "calendar")
	}
	f.Add([]byte("{}"), "a")
	f.Fuzz(func(t *testing.T, specJSON []byte, name string) {
		var spec v1alpha1.AgentSpec
		if err := json.Unmarshal(specJSON, &spec); err != nil {
			return
		}
		agent := &v1alpha1.Agent{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}, Spec: spec}
		_ = agent.ValidateSpec()
		first, err1 := renderAgent(agent)
		second, err2 := renderAgent(agent.DeepCopy())
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("errors differ: %v, %v", err1, err2)
		}
		if err1 != nil {
			return
		}
		sameObjects(t, []runtime.Object{first.service, first.deployment}, []runtime.Object{second.service, second.deployment})
		if !enginetest.AdmittedName(name, 63) {
			return
		}
		for _, obj := range []runtime.Object{first.service, first.deployment} {
			if err := enginetest.WellFormed(obj, "ns"); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func FuzzRenderOrchestrator(f *testing.F) {
	for _, seed := range specSeeds(f, testcases.OrchestratorAccepted) {
		f.Add(seed, "orchestrator", []byte(`[{"metadata": {"name": "a", "namespace": "agents"}, "spec": {"port": 8080}}]`), []byte(`[{"metadata": {"name": "m", "namespace": "mcp"}}]`))
	}
	f.Fuzz(func(t *testing.T, specJSON []byte, name string, agentsJSON, mcpsJSON []byte) {
		var spec v1alpha1.OrchestratorSpec
		var agents []v1alpha1.Agent
		var mcps []v1alpha1.MCP
		if json.Unmarshal(specJSON, &spec) != nil || json.Unmarshal(agentsJSON, &agents) != nil || json.Unmarshal(mcpsJSON, &mcps) != nil {
			return
		}
		o := &v1alpha1.Orchestrator{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}, Spec: spec}
		_ = o.ValidateSpec()
		_ = agentSelections(o)
		_ = mcpSelections(o)
		in := orchestratorInput{cr: o, agents: agents, mcps: mcps}
		first, err1 := renderOrchestrator(in)
		second, err2 := renderOrchestrator(orchestratorInput{cr: o.DeepCopy(), agents: agents, mcps: mcps})
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("errors differ: %v, %v", err1, err2)
		}
		if err1 != nil {
			return
		}
		_ = orchestratorConditions(&o.Spec, first, true, nil, nil, 1)
		var a, b []runtime.Object
		for _, asset := range bindata.OrchestratorAssets {
			if first.want[asset] != second.want[asset] {
				t.Fatalf("%s wanted differently from the same input", asset)
			}
			a, b = append(a, first.object(asset)), append(b, second.object(asset))
		}
		sameObjects(t, a, b)
		if !enginetest.AdmittedName(name, 54) {
			return
		}
		for _, obj := range a {
			if err := enginetest.WellFormed(obj, "ns"); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func FuzzRenderGPUConnectionSecret(f *testing.F) {
	for _, seed := range specSeeds(f, testcases.GPUAccepted) {
		f.Add(seed, "ornith", "https://pod1-8000.proxy.runpod.net", "token")
	}
	f.Fuzz(func(t *testing.T, specJSON []byte, name, url, token string) {
		var spec v1alpha1.GPUSpec
		if json.Unmarshal(specJSON, &spec) != nil {
			return
		}
		g := &v1alpha1.GPU{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}, Spec: spec}
		_ = g.ValidateSpec()
		secret, err := renderConnectionSecret(g, url, token)
		if err != nil {
			return
		}
		if string(secret.Data[connectionURLKey]) != url || string(secret.Data[connectionTokenKey]) != token {
			t.Fatalf("data %q", secret.Data)
		}
		if enginetest.AdmittedName(name, 63) && len(name) <= 253-len("-connection") {
			if err := enginetest.WellFormed(secret, "ns"); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// sameObjects fails t unless two renderings of one input are equal.
func sameObjects(t *testing.T, a, b []runtime.Object) {
	t.Helper()
	for i := range a {
		if !reflect.DeepEqual(a[i], b[i]) {
			t.Fatalf("%T renders differently from the same input", a[i])
		}
	}
}
