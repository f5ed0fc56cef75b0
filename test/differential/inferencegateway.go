package differential

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	k8sruntime "k8s.io/apimachinery/pkg/runtime"

	"github.com/llm-infra/llm-infra-operator/pkg/apis/crdtest"
)

// goldenAgentCard is the card test/golden/inference-gateway-agents was rendered with.
func goldenAgentCard() string {
	return filepath.Join(repoDir(), "test", "golden", "inference-gateway-agents", "agent-card.json")
}

// AgentCardPath is the A2A card's current well-known path, the only one the golden card server
// answers.
const AgentCardPath = "/.well-known/agent-card.json"

// OfflineAgentHost starts the host of the Agent whose card server answers 404 on every path
// (the golden case extra-agent-card-unavailable).
const OfflineAgentHost = "offline-agent."

// GoldenAgentCardServer answers the golden agent card (test/golden/inference-gateway-agents/
// agent-card.json) at AgentCardPath for every host but OfflineAgentHost's, 404 elsewhere: the
// server the golden statuses were made with (test/golden/README.md), for upstream's reconcilers
// and the operator alike.
func GoldenAgentCardServer(tb testing.TB) *httptest.Server {
	tb.Helper()
	card, err := os.ReadFile(goldenAgentCard())
	if err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != AgentCardPath || strings.HasPrefix(r.Host, OfflineAgentHost) {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(card)
	}))
	tb.Cleanup(srv.Close)
	return srv
}

// InferenceGatewayCRDSet is upstream's CRDs of the core.inference-gateway.com kinds, by kind.
type InferenceGatewayCRDSet map[string]*crdtest.CRD

// InferenceGatewayCRDs loads upstream's CRDs (hack/tools/igwrender).
func InferenceGatewayCRDs(tb TB) InferenceGatewayCRDSet {
	tb.Helper()
	set := InferenceGatewayCRDSet{}
	for kind, plural := range map[string]string{"Gateway": "gateways", "Agent": "agents", "Orchestrator": "orchestrators", "MCP": "mcps", "GPU": "gpus"} {
		crd, err := crdtest.Load(InferenceGatewayCRDPath(plural))
		if err != nil {
			tb.Fatal(err)
		}
		set[kind] = crd
	}
	return set
}

// Stored returns cr as upstream's CRD stores it (defaulted, metadata.generation 1, as the API
// server sets on create), and the supporting objects: those of an upstream kind defaulted
// likewise (their status kept), the rest as written.
func (s InferenceGatewayCRDSet) Stored(cr map[string]interface{}, supporting []map[string]interface{}) (map[string]interface{}, []map[string]interface{}, error) {
	defaulted, err := s.store(cr)
	if err != nil {
		return nil, nil, err
	}
	metadata, _ := defaulted["metadata"].(map[string]interface{})
	metadata["generation"] = int64(1)
	var support []map[string]interface{}
	for _, obj := range supporting {
		if _, ours := s[fmt.Sprint(obj["kind"])]; !ours {
			support = append(support, obj)
			continue
		}
		stored, err := s.store(obj)
		if err != nil {
			return nil, nil, err
		}
		if status, has := obj["status"]; has {
			stored["status"] = k8sruntime.DeepCopyJSONValue(status)
		}
		support = append(support, stored)
	}
	return defaulted, support, nil
}

func (s InferenceGatewayCRDSet) store(obj map[string]interface{}) (map[string]interface{}, error) {
	kind := fmt.Sprint(obj["kind"])
	crd, ok := s[kind]
	if !ok {
		return nil, fmt.Errorf("no upstream CRD of kind %s", kind)
	}
	copied := k8sruntime.DeepCopyJSON(obj)
	delete(copied, "status")
	stored, errs := crd.Create(copied)
	if len(errs) > 0 {
		return nil, fmt.Errorf("upstream's %s CRD refuses %v: %v", kind, obj["metadata"], errs.ToAggregate())
	}
	return stored, nil
}
