package differential

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine/enginetest"
)

// inferenceGatewayGoldenDirs are the inference-gateway golden folders and how many cases each
// holds (test/golden/README.md).
var inferenceGatewayGoldenDirs = map[string]int{
	"../golden/inference-gateway":        9,
	"../golden/inference-gateway-agents": 10,
}

// TestUpstreamRendersInferenceGatewayGolden: upstream's reconcilers, built from the pinned
// sources (hack/tools/igwrender) and run as test/golden/README.md says, with the golden test's
// agent-card server, render every case of test/golden/inference-gateway and
// inference-gateway-agents byte for byte as its objects.yaml and status.yaml, so the golden tests
// and the differential tests compare with one upstream. UPDATE_GOLDEN=true rewrites them.
func TestUpstreamRendersInferenceGatewayGolden(t *testing.T) {
	if testing.Short() {
		// It builds upstream's operator (its own module) once: minutes on a new machine.
		t.Skip("-short: it builds upstream's reconcilers")
	}
	card := GoldenAgentCardServer(t)
	upstream := StartInferenceGatewayUpstream(t, strings.TrimPrefix(card.URL, "http://"))
	crds := InferenceGatewayCRDs(t)
	for dir, want := range inferenceGatewayGoldenDirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		cases := 0
		for _, e := range entries {
			if !e.IsDir() || e.Name() == "crds" {
				continue
			}
			cases++
			caseDir := filepath.Join(dir, e.Name())
			t.Run(filepath.Base(dir)+"/"+e.Name(), func(t *testing.T) {
				cr := readYAMLObject(t, filepath.Join(caseDir, "cr.yaml"))
				var supporting []map[string]interface{}
				if _, err := os.Stat(filepath.Join(caseDir, "supporting.yaml")); err == nil {
					for _, obj := range enginetest.ReadObjects(t, filepath.Join(caseDir, "supporting.yaml")) {
						supporting = append(supporting, obj.Object)
					}
				}
				defaulted, support, err := crds.Stored(cr, supporting)
				if err != nil {
					t.Fatal(err)
				}
				objects, status, err := upstream.Render(defaulted, support)
				if err != nil {
					t.Fatal(err)
				}
				got, err := GoldenYAML(objects)
				if err != nil {
					t.Fatal(err)
				}
				gotStatus, err := yaml.Marshal(status)
				if err != nil {
					t.Fatal(err)
				}
				for file, data := range map[string][]byte{"objects.yaml": got, "status.yaml": gotStatus} {
					path := filepath.Join(caseDir, file)
					if os.Getenv(updateGoldenEnv) == "true" {
						if err := os.WriteFile(path, data, 0o644); err != nil {
							t.Fatal(err)
						}
						continue
					}
					want, err := os.ReadFile(path)
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(data, want) {
						t.Errorf("upstream's reconcilers do not render %s as the golden file (UPDATE_GOLDEN=true rewrites it):\n%s", path, data)
					}
				}
			})
		}
		if cases != want {
			t.Errorf("%d cases in %s, want %d", cases, dir, want)
		}
	}
}

func readYAMLObject(t *testing.T, path string) map[string]interface{} {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]interface{}
	if err := yaml.Unmarshal(raw, &obj); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return obj
}
