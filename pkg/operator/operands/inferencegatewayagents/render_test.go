package inferencegatewayagents

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"

	"github.com/llm-infra/llm-infra-operator/bindata"
	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1/testcases"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine/enginetest"
)

// decodeCase is a table case's object as a T (the CRD's defaults are not applied: the tests set
// what they rely on).
func decodeCase[T any](t *testing.T, c testcases.Case) *T {
	t.Helper()
	obj, err := c.Object()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := yaml.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	out := new(T)
	if err := yaml.UnmarshalStrict(raw, out); err != nil {
		t.Fatal(err)
	}
	return out
}

func envOf(c *corev1.Container) map[string]corev1.EnvVar {
	out := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		out[e.Name] = e
	}
	return out
}

func names(env []corev1.EnvVar) []string {
	var out []string
	for _, e := range env {
		out = append(out, e.Name)
	}
	return out
}

// TestAgentEnvUserEntriesWin: an entry of spec.env replaces the operator's variable of that
// name, in the user's place, and every name appears once.
func TestAgentEnvUserEntriesWin(t *testing.T) {
	agent := decodeCase[v1alpha1.Agent](t, testcases.Case{Base: testcases.BaseAgent, Patch: `
spec:
  port: 9000
  env:
  - {name: A2A_AGENT_URL, value: "https://calendar.example.com"}
  - {name: LOG_LEVEL, value: debug}
  - {name: HOST, value: 127.0.0.1}
  - {name: EXTRA, value: x}
`})
	env := agentEnv(agent)
	got := names(env)
	if got[0] != "A2A_AGENT_URL" || got[1] != "LOG_LEVEL" || got[2] != "HOST" || got[3] != "EXTRA" {
		t.Errorf("spec.env does not come first, in its order: %v", got)
	}
	for _, name := range got {
		if n := strings.Count(" "+strings.Join(got, " ")+" ", " "+name+" "); n != 1 {
			t.Errorf("%s appears %d times", name, n)
		}
	}
	byName := envOf(&corev1.Container{Env: env})
	if byName["A2A_AGENT_URL"].Value != "https://calendar.example.com" || byName["LOG_LEVEL"].Value != "debug" || byName["HOST"].Value != "127.0.0.1" || byName["PORT"].Value != "9000" {
		t.Errorf("env %v", byName)
	}
}

// TestAgentEnvContract pins the variables of a spec that sets every field.
func TestAgentEnvContract(t *testing.T) {
	c := testcases.AgentAccepted[2]
	if c.Name != "every field set" {
		t.Fatalf("case %q", c.Name)
	}
	agent := decodeCase[v1alpha1.Agent](t, c)
	agent.Spec.Env = nil
	env := envOf(&corev1.Container{Env: agentEnv(agent)})
	for name, want := range map[string]string{
		"TIMEZONE": "Europe/Berlin", "PORT": "9000", "HOST": "0.0.0.0", "A2A_AGENT_URL": "https://calendar.example.com",
		"READ_TIMEOUT": "1m", "WRITE_TIMEOUT": "2m30s", "IDLE_TIMEOUT": "500ms", "LOG_LEVEL": "debug", "LOG_FORMAT": "text",
		"QUEUE_ENABLED": "true", "QUEUE_MAX_SIZE": "100", "QUEUE_CLEANUP_INTERVAL": "30s", "TLS_ENABLED": "false",
		"AGENT_ENABLED": "true", "AGENT_MAX_CONVERSATION_HISTORY": "20",
		"A2A_TELEMETRY_ENABLED": "true", "A2A_OTEL_TRACES_EXPORTER": "otlp", "A2A_OTEL_METRICS_EXPORTER": "otlp",
		"A2A_OTEL_EXPORTER_OTLP_ENDPOINT": "http://otel:4317", "A2A_OTEL_EXPORTER_OTLP_PROTOCOL": "grpc",
		"A2A_MCP_ENABLED": "true", "A2A_MCP_SERVERS": "http://mcp-a:8080,https://mcp-b.example.com", "A2A_MCP_ENDPOINT": "/sse",
		"A2A_MCP_REFRESH_INTERVAL": "1m", "A2A_MCP_DIAL_TIMEOUT": "5s", "A2A_MCP_CALL_TIMEOUT": "1m", "A2A_MCP_MAX_RETRIES": "4",
		"A2A_MCP_RETRY_INTERVAL": "1s", "A2A_MCP_RETRY_MAX_INTERVAL": "10s",
		"A2A_AGENT_CLIENT_PROVIDER": "anthropic", "A2A_AGENT_CLIENT_MODEL": "claude-sonnet",
		"A2A_AGENT_CLIENT_BASE_URL": "http://gw.llm.svc.cluster.local:8080/v1", "A2A_AGENT_CLIENT_MAX_TOKENS": "2048",
		"A2A_AGENT_CLIENT_TEMPERATURE": "0.2", "A2A_AGENT_CLIENT_SYSTEM_PROMPT": "You manage calendars.",
		"A2A_AGENT_CLIENT_MAX_CHAT_COMPLETION_ITERATIONS": "8", "A2A_AGENT_CLIENT_MAX_RETRIES": "2",
		"A2A_AGENT_CLIENT_CUSTOM_HEADER_0_NAME": "X-Team", "A2A_AGENT_CLIENT_CUSTOM_HEADER_0_VALUE": "calendar",
	} {
		if got := env[name]; got.Value != want {
			t.Errorf("%s = %q, want %q", name, got.Value, want)
		}
	}
	if ref := env["A2A_AGENT_CLIENT_API_KEY"].ValueFrom; ref == nil || ref.SecretKeyRef.Name != "llm" || ref.SecretKeyRef.Key != "api-key" {
		t.Errorf("A2A_AGENT_CLIENT_API_KEY %+v", env["A2A_AGENT_CLIENT_API_KEY"])
	}
}

// TestAgentTelemetryEnv: telemetry off passes only the switch; a Prometheus exporter passes its
// host and port.
func TestAgentTelemetryEnv(t *testing.T) {
	off := agentTelemetryEnv(&v1alpha1.AgentTelemetrySpec{Enabled: false, Traces: &v1alpha1.WorkloadTracesSpec{
		Exporter: &v1alpha1.WorkloadTracesExporterSpec{OTLP: &v1alpha1.WorkloadOTLPExporterSpec{Endpoint: "http://c:4318"}}}})
	if !slices.Equal(names(off), []string{"A2A_TELEMETRY_ENABLED"}) || off[0].Value != "false" {
		t.Errorf("off: %v", off)
	}
	prom := envOf(&corev1.Container{Env: agentTelemetryEnv(&v1alpha1.AgentTelemetrySpec{Enabled: true, Metrics: &v1alpha1.WorkloadMetricsSpec{
		Exporter: &v1alpha1.WorkloadMetricsExporterSpec{Prometheus: &v1alpha1.PrometheusExporterSpec{Host: "0.0.0.0", Port: 9100}}}})})
	if prom["A2A_OTEL_METRICS_EXPORTER"].Value != "prometheus" || prom["A2A_OTEL_TRACES_EXPORTER"].Value != "none" ||
		prom["A2A_OTEL_EXPORTER_PROMETHEUS_HOST"].Value != "0.0.0.0" || prom["A2A_OTEL_EXPORTER_PROMETHEUS_PORT"].Value != "9100" {
		t.Errorf("prometheus: %v", prom)
	}
	if _, ok := prom["A2A_OTEL_EXPORTER_OTLP_ENDPOINT"]; ok {
		t.Errorf("an OTLP endpoint without an OTLP exporter")
	}
}

// TestRenderAgentPort: spec.port reaches the container, the Service, PORT and the card's URL.
func TestRenderAgentPort(t *testing.T) {
	agent := decodeCase[v1alpha1.Agent](t, testcases.Case{Base: testcases.BaseAgent, Patch: `{spec: {port: 9000}}`})
	objs, err := renderAgent(agent)
	if err != nil {
		t.Fatal(err)
	}
	c := engine.ContainerOf(objs.deployment, agentContainer)
	env := envOf(c)
	if c.Ports[0].ContainerPort != 9000 || objs.service.Spec.Ports[0].Port != 9000 || objs.service.Spec.Ports[0].TargetPort != intstr.FromString(portHTTP) ||
		env["PORT"].Value != "9000" || env["A2A_AGENT_URL"].Value != "http://calendar.agents.svc.cluster.local:9000" {
		t.Errorf("container %+v, service %+v, env %v", c.Ports, objs.service.Spec.Ports, env)
	}
	if err := enginetest.WellFormed(objs.deployment, "agents"); err != nil {
		t.Error(err)
	}
	if err := enginetest.WellFormed(objs.service, "agents"); err != nil {
		t.Error(err)
	}
}

func orchestrator(t *testing.T, patch string) *v1alpha1.Orchestrator {
	t.Helper()
	return decodeCase[v1alpha1.Orchestrator](t, testcases.Case{Base: testcases.BaseOrchestrator, Patch: patch})
}

// TestOrchestratorListedMCPServersWithoutDiscovery: listed MCP servers reach the CLI in mcp.yaml
// without discovery too; discovered MCPs are ignored while discovery is off.
func TestOrchestratorListedMCPServersWithoutDiscovery(t *testing.T) {
	o := orchestrator(t, `{spec: {mcp: {enabled: true, servers: ["https://mcp.example.com/v1/mcp"]}}}`)
	objs, err := renderOrchestrator(orchestratorInput{cr: o, mcps: []v1alpha1.MCP{{ObjectMeta: metav1.ObjectMeta{Name: "ignored", Namespace: "llm"}}}})
	if err != nil {
		t.Fatal(err)
	}
	want := "enabled: true\nservers:\n  - name: static-mcp-0\n    enabled: true\n    scheme: https\n    host: mcp.example.com\n    port: 443\n    path: /v1/mcp\n"
	if !objs.want[bindata.OrchestratorMCPsConfigMap] || objs.mcpsConfigMap.Data[mcpsKey] != want || len(objs.discoveredMCPs) != 0 {
		t.Errorf("wanted %v, mcp.yaml:\n%s\ndiscovered %v", objs.want[bindata.OrchestratorMCPsConfigMap], objs.mcpsConfigMap.Data[mcpsKey], objs.discoveredMCPs)
	}
	if !mounts(objs.deployment, mcpsMountPath) {
		t.Error("mcp.yaml is not mounted")
	}
	if objs.want[bindata.OrchestratorAgentsConfigMap] || mounts(objs.deployment, agentsMountPath) {
		t.Error("agents.yaml without A2A discovery")
	}
}

// TestOrchestratorWritesOnlyToItsEmptyDirs: with the root read-only (issue 33), the CLI's pod
// has HOME at the image's home and a size-limited emptyDir at ~/.infer and /tmp, the places the
// CLI writes, with the config files mounted inside ~/.infer; nothing else is writable. A
// spec.env HOME replaces the operator's, like any managed variable.
func TestOrchestratorWritesOnlyToItsEmptyDirs(t *testing.T) {
	o := orchestrator(t, `{spec: {mcp: {enabled: true, servers: ["https://mcp.example.com/v1/mcp"]}}}`)
	objs, err := renderOrchestrator(orchestratorInput{cr: o})
	if err != nil {
		t.Fatal(err)
	}
	c := engine.ContainerOf(objs.deployment, orchestratorContainer)
	if home := envOf(c)["HOME"].Value; home != "/home/infer" {
		t.Errorf("HOME = %q, want the image's home /home/infer", home)
	}
	emptyDirs := map[string]string{}
	for _, v := range objs.deployment.Spec.Template.Spec.Volumes {
		if v.EmptyDir != nil {
			emptyDirs[v.Name] = v.EmptyDir.SizeLimit.String()
		}
	}
	writable := map[string]string{}
	for _, m := range c.VolumeMounts {
		if size, ok := emptyDirs[m.Name]; ok {
			writable[m.MountPath] = size
		}
	}
	if want := map[string]string{"/home/infer/.infer": "1Gi", "/tmp": "256Mi"}; !reflect.DeepEqual(writable, want) {
		t.Errorf("emptyDirs mounted at %v, want %v", writable, want)
	}
	if !mounts(objs.deployment, mcpsMountPath) || !strings.HasPrefix(mcpsMountPath, inferDirMountPath+"/") {
		t.Errorf("mcp.yaml at %s, not inside the ~/.infer emptyDir", mcpsMountPath)
	}

	o.Spec.Env = &[]corev1.EnvVar{{Name: "HOME", Value: "/data"}}
	if objs, err = renderOrchestrator(orchestratorInput{cr: o}); err != nil {
		t.Fatal(err)
	}
	if home := envOf(engine.ContainerOf(objs.deployment, orchestratorContainer))["HOME"].Value; home != "/data" {
		t.Errorf("spec.env HOME: HOME = %q, want /data", home)
	}
}

func mounts(d *appsv1.Deployment, path string) bool {
	for _, m := range engine.ContainerOf(d, orchestratorContainer).VolumeMounts {
		if m.MountPath == path {
			return true
		}
	}
	return false
}

// TestOrchestratorReceiverNeedsTelemetry: the receiver's port, address and Service exist only
// while telemetry is on, when the CLI listens.
func TestOrchestratorReceiverNeedsTelemetry(t *testing.T) {
	for _, tc := range []struct {
		patch string
		on    bool
	}{
		{`{spec: {telemetry: {enabled: false, receiver: {enabled: true, port: 14318}}}}`, false},
		{`{spec: {telemetry: {enabled: true, receiver: {enabled: true, port: 14318}}}}`, true},
	} {
		o := orchestrator(t, tc.patch)
		objs, err := renderOrchestrator(orchestratorInput{cr: o})
		if err != nil {
			t.Fatal(err)
		}
		c := engine.ContainerOf(objs.deployment, orchestratorContainer)
		env := envOf(c)
		_, address := env["INFER_TELEMETRY_RECEIVER_ADDRESS"]
		if objs.want[bindata.OrchestratorReceiverService] != tc.on || (len(c.Ports) == 1) != tc.on || address != tc.on {
			t.Errorf("%s: Service %v, ports %v, address %v", tc.patch, objs.want[bindata.OrchestratorReceiverService], c.Ports, address)
		}
		if tc.on && (objs.receiver.Spec.Ports[0].Port != 14318 || c.Ports[0].ContainerPort != 14318 || env["INFER_TELEMETRY_RECEIVER_ADDRESS"].Value != "0.0.0.0:14318") {
			t.Errorf("port: Service %v, container %v, env %v", objs.receiver.Spec.Ports, c.Ports, env["INFER_TELEMETRY_RECEIVER_ADDRESS"])
		}
		conds := orchestratorConditions(&o.Spec, objs, false, nil, nil, 1)
		contention := conds[len(conds)-1]
		if contention.Type != v1alpha1.ConditionReceiverPortContention || (contention.Status == metav1.ConditionTrue) != tc.on {
			t.Errorf("%s: %+v", tc.patch, contention)
		}
	}
}

// TestOrchestratorConfigChangeRollsThePod: a change of agents.yaml changes the pod template's
// hash annotation (a file mounted by subPath is not updated in place).
func TestOrchestratorConfigChangeRollsThePod(t *testing.T) {
	o := orchestrator(t, `{spec: {a2a: {enabled: true, serviceDiscovery: {enabled: true}}}}`)
	agent := func(name string) v1alpha1.Agent {
		return v1alpha1.Agent{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "llm"}, Spec: v1alpha1.AgentSpec{Port: 8080}}
	}
	one, err := renderOrchestrator(orchestratorInput{cr: o, agents: []v1alpha1.Agent{agent("a")}})
	if err != nil {
		t.Fatal(err)
	}
	two, err := renderOrchestrator(orchestratorInput{cr: o, agents: []v1alpha1.Agent{agent("b"), agent("a")}})
	if err != nil {
		t.Fatal(err)
	}
	if len(one.deployment.Spec.Template.Annotations) != 1 || annotationsYAML(one.deployment.Spec.Template.Annotations) == annotationsYAML(two.deployment.Spec.Template.Annotations) {
		t.Errorf("annotations %v and %v", one.deployment.Spec.Template.Annotations, two.deployment.Spec.Template.Annotations)
	}
	if !slices.Equal(two.discoveredAgents, []string{"http://a.llm.svc.cluster.local:8080", "http://b.llm.svc.cluster.local:8080"}) {
		t.Errorf("discovered %v", two.discoveredAgents)
	}
}

func annotationsYAML(m map[string]string) string {
	raw, _ := yaml.Marshal(m)
	return string(raw)
}

// TestSplitMCPURL pins upstream's defaults for what a URL lacks.
func TestSplitMCPURL(t *testing.T) {
	for _, tc := range []struct {
		url    string
		scheme string
		host   string
		port   int
		path   string
	}{
		{"http://mcp-legacy.tools.svc.cluster.local:9000/sse", "http", "mcp-legacy.tools.svc.cluster.local", 9000, "/sse"},
		{"https://mcp.partner.example.com/v1/mcp", "https", "mcp.partner.example.com", 443, "/v1/mcp"},
		{"http://mcp", "http", "mcp", 80, "/mcp"},
		{"::", "http", "localhost", 8080, "/mcp"},
	} {
		scheme, host, port, path := splitMCPURL(tc.url)
		if scheme != tc.scheme || host != tc.host || port != tc.port || path != tc.path {
			t.Errorf("%s: %s %s %d %s", tc.url, scheme, host, port, path)
		}
	}
}

// TestAgentReady: the Ready condition and card for each observation; a failed read keeps the
// card read before.
func TestAgentReady(t *testing.T) {
	prev := v1alpha1.Card{Name: "calendar", Version: "1"}
	fresh := &v1alpha1.Card{Name: "calendar", Version: "2"}
	for _, tc := range []struct {
		obs     agentCardObservation
		reason  string
		version string
	}{
		{agentCardObservation{available: false}, v1alpha1.ReasonCardPending, "1"},
		{agentCardObservation{available: true}, v1alpha1.ReasonCardPending, "1"},
		{agentCardObservation{available: true, result: &CardResult{Err: errTest}}, v1alpha1.ReasonCardFetchFailed, "1"},
		{agentCardObservation{available: true, result: &CardResult{Card: fresh}}, v1alpha1.ReasonCardFetched, "2"},
		{agentCardObservation{invalid: errTest, available: true, result: &CardResult{Card: fresh}}, v1alpha1.ReasonInvalidSpec, "1"},
	} {
		cond, card := agentReady(tc.obs, prev, 3)
		if cond.Reason != tc.reason || card.Version != tc.version || cond.ObservedGeneration != 3 ||
			(cond.Status == metav1.ConditionTrue) != (tc.reason == v1alpha1.ReasonCardFetched) {
			t.Errorf("%+v: %+v, card %s", tc.obs, cond, card.Version)
		}
	}
}

var errTest = errorString("http://calendar.agents.svc.cluster.local:8080/.well-known/agent.json: connection refused")

type errorString string

func (e errorString) Error() string { return string(e) }
