package inferencegatewayagents

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
)

// TestMCPsYAMLKeepsEveryPathAValue: the Orchestrator's mcp.yaml holds each discovered MCP's path
// as one value, whatever it holds (issue 33: an MCP's path may hold "%0A", which the URL decodes
// to a line break, ": " and "#"; written as text, they added keys and servers to the CLI's file).
// The plain case keeps upstream's text byte for byte.
func TestMCPsYAMLKeepsEveryPathAValue(t *testing.T) {
	discovered := func(url string) []v1alpha1.MCP {
		return []v1alpha1.MCP{{ObjectMeta: metav1.ObjectMeta{Name: "mem", Namespace: "llm"}, Status: v1alpha1.MCPStatus{URL: url}}}
	}
	for _, tc := range []struct {
		name, url, wantPath string
	}{
		{name: "plain", url: "http://mem.llm.svc:8080/mcp", wantPath: "/mcp"},
		{name: "an encoded line break and a key", url: "http://mem.llm.svc:8080/a%0A    enabled:%20false%0A%20%20-%20name:%20evil", wantPath: "/a\n    enabled: false\n  - name: evil"},
		{name: "a colon and a space", url: "http://mem.llm.svc:8080/a:%20b", wantPath: "/a: b"},
		{name: "an encoded hash", url: "http://mem.llm.svc:8080/a%20%23b", wantPath: "/a #b"},
		{name: "a comma and quotes", url: "http://mem.llm.svc:8080/a,'b%22", wantPath: `/a,'b"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, err := mcpsYAML(nil, discovered(tc.url))
			if err != nil {
				t.Fatal(err)
			}
			var file struct {
				Enabled bool `json:"enabled"`
				Servers []struct {
					Name    string `json:"name"`
					Enabled bool   `json:"enabled"`
					Scheme  string `json:"scheme"`
					Host    string `json:"host"`
					Port    int    `json:"port"`
					Path    string `json:"path"`
				} `json:"servers"`
			}
			if err := yaml.UnmarshalStrict([]byte(text), &file); err != nil {
				t.Fatalf("mcp.yaml does not parse as the CLI's form: %v\n%s", err, text)
			}
			if len(file.Servers) != 1 || file.Servers[0].Name != "mem" || !file.Servers[0].Enabled ||
				file.Servers[0].Host != "mem.llm.svc" || file.Servers[0].Port != 8080 || file.Servers[0].Path != tc.wantPath {
				t.Errorf("mcp.yaml read back as %+v, want one server mem at mem.llm.svc:8080 path %q:\n%s", file.Servers, tc.wantPath, text)
			}
		})
	}

	// Upstream's text (its Fprintf) for the plain case, byte for byte.
	text, err := mcpsYAML([]string{"https://tools.example.com/mcp"}, discovered("http://mem.llm.svc:8080/mcp"))
	if err != nil {
		t.Fatal(err)
	}
	const upstream = "enabled: true\nservers:\n" +
		"  - name: static-mcp-0\n    enabled: true\n    scheme: https\n    host: tools.example.com\n    port: 443\n    path: /mcp\n" +
		"  - name: mem\n    enabled: true\n    scheme: http\n    host: mem.llm.svc\n    port: 8080\n    path: /mcp\n"
	if text != upstream {
		t.Errorf("mcp.yaml:\n%s\nwant upstream's text:\n%s", text, upstream)
	}
	if text, _ := mcpsYAML(nil, nil); text != "enabled: true\nservers:\n" {
		t.Errorf("no servers: %q", text)
	}
}

// TestAgentsYAMLIsUpstreamsText: agents.yaml as upstream wrote it, byte for byte.
func TestAgentsYAMLIsUpstreamsText(t *testing.T) {
	agents := []v1alpha1.Agent{{ObjectMeta: metav1.ObjectMeta{Name: "mock", Namespace: "agents"}}}
	text, err := agentsYAML([]string{"http://a.example.com:8080"}, agents)
	if err != nil {
		t.Fatal(err)
	}
	want := "agents:\n" +
		"  - name: static-agent-0\n    url: http://a.example.com:8080\n    enabled: true\n    run: false\n" +
		"  - name: mock\n    url: " + AgentURL(&agents[0]) + "\n    enabled: true\n    run: false\n"
	if text != want {
		t.Errorf("agents.yaml:\n%s\nwant:\n%s", text, want)
	}
	if text, _ := agentsYAML(nil, nil); text != "agents:\n" {
		t.Errorf("no agents: %q", text)
	}
}
