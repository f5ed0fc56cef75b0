package inferencegatewayagents

import (
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/llm-infra/llm-infra-operator/bindata"
	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/operands/inferencegateway"
)

// An Orchestrator's environment contract: upstream operator's (orchestrator_controller.go,
// buildOrchestratorEnvironmentVars), in its order.
//
//	variable                                   source field                                   emitted when
//	(spec.env)                                 spec.env, first and verbatim                   always
//	INFER_CHANNELS_ENABLED                     "true"                                         always
//	INFER_LOGGING_STDOUT                       "true"                                         always
//	INFER_GATEWAY_RUN                          "false" (the CLI never runs its own gateway)   always
//	INFER_TELEMETRY_ENABLED                    spec.telemetry.enabled (false without it)      always
//	INFER_TELEMETRY_RECEIVER_ADDRESS           0.0.0.0:<spec.telemetry.receiver.port>         telemetry and receiver enabled
//	INFER_TELEMETRY_OTLP_ENDPOINT              traces' OTLP endpoint, else metrics'           telemetry enabled, endpoint set
//	INFER_CHANNELS_MAX_WORKERS, _IMAGE_RETENTION, _REQUIRE_APPROVAL   spec.channels          each when set
//	INFER_CHANNELS_TELEGRAM_ENABLED            spec.channels.telegram.enabled                 always
//	INFER_CHANNELS_TELEGRAM_BOT_TOKEN          ...telegram.tokenSecretRef (a Secret)          always
//	INFER_CHANNELS_TELEGRAM_ALLOWED_USERS      ...telegram.allowedUsersSecretRef (a Secret)   set
//	INFER_CHANNELS_TELEGRAM_POLL_TIMEOUT       ...telegram.pollTimeout, whole seconds         set
//	INFER_GATEWAY_URL                          spec.gateway.url                               always
//	INFER_GATEWAY_API_KEY                      spec.gateway.apiKeySecretRef (a Secret)        set
//	INFER_AGENT_MODEL, INFER_AGENT_SYSTEM_PROMPT  spec.agent                                  always
//	INFER_TOOLS_ENABLED, _SCHEDULE_ENABLED     spec.tools                                     always
//	INFER_A2A_ENABLED                          spec.a2a.enabled                               always
//	INFER_A2A_AGENTS                           spec.a2a.agents, comma-separated               always
//	HOME                                       /home/infer, the image's home (not upstream's) always
//
// The files: ~/.infer/agents.yaml (ConfigMap <name>-agents) with the listed and discovered agents
// while a2a and its discovery are on; ~/.infer/mcp.yaml (ConfigMap <name>-mcps) with the listed
// and discovered MCP servers while mcp is on and lists servers or discovers them (upstream wrote
// it only with discovery, so listed servers alone never reached the CLI).
//
// The root filesystem is read-only (engine.WithRestrictedSecurityContext): HOME and the
// emptyDirs at ~/.infer and /tmp (withOrchestratorScratch) are where the CLI writes.
//
// Differences from upstream: an entry of spec.env named like one of the operator's replaces it,
// as an Agent's; the receiver's port and Service exist only while telemetry is enabled, when the
// CLI is told to listen (upstream declared them whenever receiver.enabled, with nothing
// listening while telemetry was off).

// orchestratorInput is everything an Orchestrator's rendering depends on: the CR and the Agent
// and MCP objects its discovery selected. Rendering is a pure function of it.
type orchestratorInput struct {
	cr *v1alpha1.Orchestrator
	// agents and mcps are the discovered objects; they count only while the kind's discovery is
	// on (discover lists them).
	agents []v1alpha1.Agent
	mcps   []v1alpha1.MCP
}

// orchestratorObjects are what an Orchestrator renders, in apply order
// (bindata.OrchestratorAssets). An object the spec does not ask for is rendered anyway, with its
// name, so the controller can delete the one it made before; want says which are asked for.
type orchestratorObjects struct {
	agentsConfigMap *corev1.ConfigMap
	mcpsConfigMap   *corev1.ConfigMap
	deployment      *appsv1.Deployment
	receiver        *corev1.Service
	networkPolicy   *networkingv1.NetworkPolicy
	want            map[string]bool
	// discoveredAgents and discoveredMCPs are the URLs of the discovered objects, sorted: the
	// status's.
	discoveredAgents, discoveredMCPs []string
}

// agentsDiscoveryOn: a2a and its discovery are on, so agents.yaml is written and mounted.
func agentsDiscoveryOn(spec *v1alpha1.OrchestratorSpec) bool {
	return spec.A2A.Enabled && spec.A2A.ServiceDiscovery.Enabled
}

// mcpsDiscoveryOn: mcp and its discovery are on.
func mcpsDiscoveryOn(spec *v1alpha1.OrchestratorSpec) bool {
	return spec.MCP.Enabled && spec.MCP.ServiceDiscovery.Enabled
}

// mcpFileWanted: mcp.yaml has something to say, listed or discovered servers.
func mcpFileWanted(spec *v1alpha1.OrchestratorSpec) bool {
	return spec.MCP.Enabled && (spec.MCP.ServiceDiscovery.Enabled || len(spec.MCP.Servers) > 0)
}

// receiverOn: the CLI listens for OTLP, so the container port and the Service exist.
func receiverOn(spec *v1alpha1.OrchestratorSpec) bool {
	t := spec.Telemetry
	return t != nil && t.Enabled && t.Receiver != nil && t.Receiver.Enabled
}

func receiverPort(spec *v1alpha1.OrchestratorSpec) int32 {
	if t := spec.Telemetry; t != nil && t.Receiver != nil && t.Receiver.Port > 0 {
		return t.Receiver.Port
	}
	return v1alpha1.DefaultReceiverPort
}

// renderOrchestrator renders an Orchestrator's objects.
func renderOrchestrator(in orchestratorInput) (orchestratorObjects, error) {
	cr, spec := in.cr, &in.cr.Spec
	placeholders := instancePlaceholders(cr.Namespace, cr.Name, spec.Image)
	out := orchestratorObjects{want: map[string]bool{
		bindata.OrchestratorAgentsConfigMap: agentsDiscoveryOn(spec),
		bindata.OrchestratorMCPsConfigMap:   mcpFileWanted(spec),
		bindata.OrchestratorDeployment:      true,
		bindata.OrchestratorReceiverService: receiverOn(spec),
		bindata.OrchestratorNetworkPolicy:   spec.NetworkPolicy.IsEnabled(),
	}}
	var err error
	if out.agentsConfigMap, err = manifest[corev1.ConfigMap](bindata.OrchestratorAgentsConfigMap, placeholders); err != nil {
		return out, err
	}
	if out.mcpsConfigMap, err = manifest[corev1.ConfigMap](bindata.OrchestratorMCPsConfigMap, placeholders); err != nil {
		return out, err
	}
	if out.deployment, err = manifest[appsv1.Deployment](bindata.OrchestratorDeployment, placeholders); err != nil {
		return out, err
	}
	if out.receiver, err = manifest[corev1.Service](bindata.OrchestratorReceiverService, placeholders); err != nil {
		return out, err
	}
	if out.networkPolicy, err = manifest[networkingv1.NetworkPolicy](bindata.OrchestratorNetworkPolicy, placeholders); err != nil {
		return out, err
	}

	var mounted []*corev1.ConfigMap
	if out.want[bindata.OrchestratorAgentsConfigMap] {
		agents := sortedByName(in.agents, func(a v1alpha1.Agent) string { return a.Name })
		for i := range agents {
			out.discoveredAgents = append(out.discoveredAgents, AgentURL(&agents[i]))
		}
		if out.agentsConfigMap.Data[agentsKey], err = agentsYAML(spec.A2A.Agents, agents); err != nil {
			return out, err
		}
		mounted = append(mounted, out.agentsConfigMap)
	}
	if out.want[bindata.OrchestratorMCPsConfigMap] {
		var mcps []v1alpha1.MCP
		if mcpsDiscoveryOn(spec) {
			mcps = sortedByName(in.mcps, func(m v1alpha1.MCP) string { return m.Name })
		}
		for i := range mcps {
			out.discoveredMCPs = append(out.discoveredMCPs, inferencegateway.MCPEndpoint(&mcps[i]))
		}
		if out.mcpsConfigMap.Data[mcpsKey], err = mcpsYAML(spec.MCP.Servers, mcps); err != nil {
			return out, err
		}
		mounted = append(mounted, out.mcpsConfigMap)
	}
	sort.Strings(out.discoveredAgents)
	sort.Strings(out.discoveredMCPs)

	c, err := container(out.deployment, orchestratorContainer)
	if err != nil {
		return out, err
	}
	c.Env = orchestratorEnv(cr)
	c.Resources = *spec.Resources.DeepCopy()
	pod := &out.deployment.Spec.Template.Spec
	for _, cm := range mounted {
		volume, path, key := agentsVolume, agentsMountPath, agentsKey
		if cm == out.mcpsConfigMap {
			volume, path, key = mcpsVolume, mcpsMountPath, mcpsKey
		}
		pod.Volumes = append(pod.Volumes, corev1.Volume{Name: volume, VolumeSource: corev1.VolumeSource{
			ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: cm.Name}},
		}})
		c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: volume, MountPath: path, SubPath: key})
	}
	withOrchestratorScratch(pod, c)
	// The CLI reads the files when it starts, and a file mounted by subPath is never updated in
	// place: a change of either rolls the pod.
	hashes, err := engine.ConfigHashAnnotations(mounted, nil)
	if err != nil {
		return out, err
	}
	if err := engine.WithPodTemplateAnnotations(hashes)(out.deployment); err != nil {
		return out, err
	}
	if receiverOn(spec) {
		port := receiverPort(spec)
		c.Ports = append(c.Ports, corev1.ContainerPort{Name: portReceiver, ContainerPort: port, Protocol: corev1.ProtocolTCP})
		out.receiver.Spec.Ports[0].Port = port
	}
	if out.want[bindata.OrchestratorNetworkPolicy] {
		// After the receiver's port: the policy opens the ports the container declares.
		if err := orchestratorNetworkPolicy(out.networkPolicy, out.deployment, spec); err != nil {
			return out, err
		}
	}
	return out, nil
}

// withOrchestratorScratch mounts the emptyDirs where the CLI writes, the root filesystem being
// read-only: ~/.infer and /tmp (names.go says what goes where). They come after the config
// files' volumes, so the mounts upstream declared keep their places; the runtime mounts a
// parent before the files inside it whatever the order.
func withOrchestratorScratch(pod *corev1.PodSpec, c *corev1.Container) {
	for _, v := range []struct{ name, path, size string }{
		{inferDirVolume, inferDirMountPath, inferDirSizeLimit},
		{tmpVolume, tmpMountPath, tmpSizeLimit},
	} {
		pod.Volumes = append(pod.Volumes, corev1.Volume{Name: v.name, VolumeSource: corev1.VolumeSource{
			EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: ptr.To(resource.MustParse(v.size))},
		}})
		c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: v.name, MountPath: v.path})
	}
}

// orchestratorEnv is the Orchestrator container's environment.
func orchestratorEnv(cr *v1alpha1.Orchestrator) []corev1.EnvVar {
	spec := &cr.Spec
	str := func(name, value string) corev1.EnvVar { return corev1.EnvVar{Name: name, Value: value} }
	flag := func(name string, value bool) corev1.EnvVar { return str(name, strconv.FormatBool(value)) }
	secret := func(name string, ref *corev1.SecretKeySelector) corev1.EnvVar {
		return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: ref.DeepCopy()}}
	}

	managed := []corev1.EnvVar{
		str("INFER_CHANNELS_ENABLED", "true"),
		str("INFER_LOGGING_STDOUT", "true"),
		str("INFER_GATEWAY_RUN", "false"),
	}
	tel := spec.Telemetry
	managed = append(managed, flag("INFER_TELEMETRY_ENABLED", tel != nil && tel.Enabled))
	if tel != nil && tel.Enabled {
		if receiverOn(spec) {
			managed = append(managed, str("INFER_TELEMETRY_RECEIVER_ADDRESS", fmt.Sprintf("0.0.0.0:%d", receiverPort(spec))))
		}
		otlp := tracesOTLP(tel.Traces)
		if otlp == nil && tel.Metrics != nil && tel.Metrics.Exporter != nil {
			otlp = tel.Metrics.Exporter.OTLP
		}
		if otlp != nil {
			managed = appendIfSet(managed, "INFER_TELEMETRY_OTLP_ENDPOINT", otlp.Endpoint)
		}
	}
	ch := &spec.Channels
	if ch.MaxWorkers != nil {
		managed = append(managed, str("INFER_CHANNELS_MAX_WORKERS", strconv.Itoa(int(*ch.MaxWorkers))))
	}
	if ch.ImageRetention != nil {
		managed = append(managed, str("INFER_CHANNELS_IMAGE_RETENTION", strconv.Itoa(int(*ch.ImageRetention))))
	}
	if ch.RequireApproval != nil {
		managed = append(managed, flag("INFER_CHANNELS_REQUIRE_APPROVAL", *ch.RequireApproval))
	}
	tg := &ch.Telegram
	managed = append(managed, flag("INFER_CHANNELS_TELEGRAM_ENABLED", tg.Enabled), secret("INFER_CHANNELS_TELEGRAM_BOT_TOKEN", &tg.TokenSecretRef))
	if tg.AllowedUsersSecretRef != nil {
		managed = append(managed, secret("INFER_CHANNELS_TELEGRAM_ALLOWED_USERS", tg.AllowedUsersSecretRef))
	}
	if tg.PollTimeout != nil {
		managed = append(managed, str("INFER_CHANNELS_TELEGRAM_POLL_TIMEOUT", strconv.Itoa(int(tg.PollTimeout.Duration/time.Second))))
	}
	managed = append(managed, str("INFER_GATEWAY_URL", spec.Gateway.URL))
	if spec.Gateway.APIKeySecretRef != nil {
		managed = append(managed, secret("INFER_GATEWAY_API_KEY", spec.Gateway.APIKeySecretRef))
	}
	managed = append(managed,
		str("INFER_AGENT_MODEL", spec.Agent.Model),
		str("INFER_AGENT_SYSTEM_PROMPT", spec.Agent.SystemPrompt),
		flag("INFER_TOOLS_ENABLED", spec.Tools.Enabled),
		flag("INFER_TOOLS_SCHEDULE_ENABLED", spec.Tools.Schedule),
		flag("INFER_A2A_ENABLED", spec.A2A.Enabled),
		str("INFER_A2A_AGENTS", strings.Join(spec.A2A.Agents, ",")),
		str("HOME", inferHome),
	)
	return userEnvFirst(spec.Env, managed)
}

// agentsYAML is ~/.infer/agents.yaml in the CLI's AgentsConfig form, upstream's text: the
// listed agents as static-agent-<i>, then the discovered ones by name, each at its Service URL.
func agentsYAML(static []string, discovered []v1alpha1.Agent) (string, error) {
	var agents []agentEntry
	for i, u := range static {
		agents = append(agents, agentEntry{Name: fmt.Sprintf("static-agent-%d", i), URL: u, Enabled: true})
	}
	for i := range discovered {
		agents = append(agents, agentEntry{Name: discovered[i].Name, URL: AgentURL(&discovered[i]), Enabled: true})
	}
	if len(agents) == 0 {
		return "agents:\n", nil
	}
	return configFile(agentsFile{Agents: agents})
}

// mcpsYAML is ~/.infer/mcp.yaml in the CLI's MCPConfig form, upstream's text: the listed servers
// as static-mcp-<i>, then the discovered ones by name, each URL split into scheme, host, port and
// path (the CLI's entry has no url field).
func mcpsYAML(static []string, discovered []v1alpha1.MCP) (string, error) {
	var servers []mcpServerEntry
	entry := func(name, raw string) {
		scheme, host, port, path := splitMCPURL(raw)
		servers = append(servers, mcpServerEntry{Name: name, Enabled: true, Scheme: scheme, Host: host, Port: port, Path: path})
	}
	for i, u := range static {
		entry(fmt.Sprintf("static-mcp-%d", i), u)
	}
	for i := range discovered {
		entry(discovered[i].Name, inferencegateway.MCPEndpoint(&discovered[i]))
	}
	if len(servers) == 0 {
		return "enabled: true\nservers:\n", nil
	}
	return configFile(mcpsFile{Enabled: true, Servers: servers})
}

// The CLI's config files, their fields in upstream's order. They are written by a YAML encoder,
// not by formatting text: a value that YAML would read otherwise (an MCP's path holding ": ",
// "#" or a line break, which admission allows) is quoted instead of adding keys to the file
// (issue 33). For the values upstream's examples hold, the text is upstream's byte for byte.
type agentsFile struct {
	Agents []agentEntry `yaml:"agents"`
}

type agentEntry struct {
	Name    string `yaml:"name"`
	URL     string `yaml:"url"`
	Enabled bool   `yaml:"enabled"`
	Run     bool   `yaml:"run"`
}

type mcpsFile struct {
	Enabled bool             `yaml:"enabled"`
	Servers []mcpServerEntry `yaml:"servers"`
}

type mcpServerEntry struct {
	Name    string `yaml:"name"`
	Enabled bool   `yaml:"enabled"`
	Scheme  string `yaml:"scheme"`
	Host    string `yaml:"host"`
	Port    int    `yaml:"port"`
	Path    string `yaml:"path"`
}

// configFile encodes one of the CLI's files with upstream's indentation (two spaces, a list
// indented under its key).
func configFile(v any) (string, error) {
	var b strings.Builder
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("encoding the CLI's config file: %w", err)
	}
	if err := enc.Close(); err != nil {
		return "", fmt.Errorf("encoding the CLI's config file: %w", err)
	}
	return b.String(), nil
}

// splitMCPURL splits an MCP server's URL as upstream did: the scheme (http), the host
// (localhost), the port (the URL's, else 443 for https, 80 for http, else 8080) and the path
// (/mcp), each default standing in for what the URL lacks.
func splitMCPURL(raw string) (scheme, host string, port int, path string) {
	scheme, host, port, path = "http", "localhost", 8080, "/mcp"
	u, err := url.Parse(raw)
	if err != nil {
		return scheme, host, port, path
	}
	if u.Scheme != "" {
		scheme = u.Scheme
	}
	if u.Hostname() != "" {
		host = u.Hostname()
	}
	switch p := u.Port(); {
	case p != "":
		if n, err := strconv.Atoi(p); err == nil {
			port = n
		}
	case u.Scheme == "https":
		port = 443
	case u.Scheme == "http":
		port = 80
	}
	if u.Path != "" {
		path = u.Path
	}
	return scheme, host, port, path
}

// sortedByName is a copy of objs sorted by name.
func sortedByName[T any](objs []T, name func(T) string) []T {
	out := append([]T(nil), objs...)
	sort.Slice(out, func(i, j int) bool { return name(out[i]) < name(out[j]) })
	return out
}

// object is the rendered object of an Orchestrator's asset.
func (o orchestratorObjects) object(asset string) runtime.Object {
	switch asset {
	case bindata.OrchestratorAgentsConfigMap:
		return o.agentsConfigMap
	case bindata.OrchestratorMCPsConfigMap:
		return o.mcpsConfigMap
	case bindata.OrchestratorDeployment:
		return o.deployment
	case bindata.OrchestratorReceiverService:
		return o.receiver
	case bindata.OrchestratorNetworkPolicy:
		return o.networkPolicy
	}
	panic("an Orchestrator has no asset " + asset)
}
