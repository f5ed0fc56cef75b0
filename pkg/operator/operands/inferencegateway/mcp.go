package inferencegateway

import (
	"cmp"
	"fmt"
	"sort"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"

	"github.com/llm-infra/llm-infra-operator/bindata"
	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// Defaults of an MCP's fields (the API's).
const (
	defaultMCPImage       = "node:lts"
	defaultMCPPort  int32 = 8080
	defaultMCPPath        = "/mcp"
	// mcpTLSDir is where an MCP server finds spec.server.tls.secretName's files.
	mcpTLSDir    = "/etc/tls"
	mcpContainer = "mcp"
)

// An MCP server's writable home. The default image node:lts runs servers with npx, which
// downloads the package into npm's cache, $HOME/.npm; as user 65532, which has no entry in the
// image's /etc/passwd, HOME is / and npm fails (EACCES, mkdir '/.npm': issue 16, defect 3).
// Upstream ran the servers as root; the restricted profile stays, and the pod gets an emptyDir
// for HOME and npm's cache instead. The MCP API has no env or volumes: what a user sets reaches
// the container through command and args only, and wins there (`env HOME=/x npx ...`,
// `npx --cache /x ...`). An image that relies on its own HOME gets it back the same way.
//
// The root filesystem is read-only (engine.WithRestrictedSecurityContext), so this home is the
// only place the server writes: npx's package cache and installed package (38.6 MB for the
// pinned server-everything, measured on a real pod by the operands' suite), and whatever the
// server keeps in HOME. Its size limit bounds what a server can put on the node's disk; the
// kubelet evicts a pod that exceeds it.
const (
	mcpHomeVolume = "home"
	mcpHomeDir    = "/home/mcp"
)

// mcpHomeSizeLimit is the home's emptyDir sizeLimit.
const mcpHomeSizeLimit = "1Gi"

// mcpHomeEnv are HOME and npm's cache directory in the writable home.
var mcpHomeEnv = []corev1.EnvVar{
	{Name: "HOME", Value: mcpHomeDir},
	{Name: "npm_config_cache", Value: mcpHomeDir + "/.npm"},
}

// renderMCP renders every asset of bindata.MCPAssets for an MCP, in that order: its Service
// "<mcp>-service", its Deployment (without replicas while spec.hpa.enabled) and its
// HorizontalPodAutoscaler, with upstream's names and selector.
func renderMCP(mcp *v1alpha1.MCP) ([]renderedObject, error) {
	objs, err := renderAssets(mcp, bindata.MCPAssets, mcpRules, map[string]string{
		bindata.NamespacePlaceholder:                mcp.Namespace,
		bindata.InferenceGatewayInstancePlaceholder: mcp.Name,
		bindata.InferenceGatewayImagePlaceholder:    cmp.Or(mcp.Spec.Image, defaultMCPImage),
	})
	if err != nil {
		return nil, err
	}
	return objs, withServingNetworkPolicy(objs, mcpServingPolicy, mcp.Spec.NetworkPolicy)
}

var mcpRules = map[string]assetRule[*v1alpha1.MCP]{
	bindata.MCPService:    {always[*v1alpha1.MCP], typed(mcpService)},
	bindata.MCPDeployment: {always[*v1alpha1.MCP], typed(mcpDeployment)},
	bindata.MCPHPA:        {func(m *v1alpha1.MCP) bool { return hpaEnabled(m.Spec.HPA) }, typed(mcpHPA)},
	// The engine fills in the budget's spec and whether it is wanted (DisruptionBudgetOf).
	bindata.MCPPDB: {engineDecides[*v1alpha1.MCP], typed[policyv1.PodDisruptionBudget, *policyv1.PodDisruptionBudget, *v1alpha1.MCP]()},
	// withServingNetworkPolicy fills in the policy from the rendered Deployment.
	bindata.MCPNetworkPolicy: {func(m *v1alpha1.MCP) bool { return networkPolicyWanted(m.Spec.NetworkPolicy) },
		typed[networkingv1.NetworkPolicy, *networkingv1.NetworkPolicy, *v1alpha1.MCP]()},
}

func mcpPort(spec *v1alpha1.MCPSpec) int32 {
	if spec.Server != nil && spec.Server.Port > 0 {
		return spec.Server.Port
	}
	return defaultMCPPort
}

func mcpPath(spec *v1alpha1.MCPSpec) string {
	if spec.Server != nil {
		return cmp.Or(spec.Server.Path, defaultMCPPath)
	}
	return defaultMCPPath
}

// mcpTLSEnabled: the server's URL is https.
func mcpTLSEnabled(spec *v1alpha1.MCPSpec) bool {
	return spec.Server != nil && spec.Server.TLS != nil && spec.Server.TLS.Enabled
}

// mcpTLSSecret is the Secret the server's TLS files come from, "" without TLS.
func mcpTLSSecret(spec *v1alpha1.MCPSpec) string {
	if !mcpTLSEnabled(spec) {
		return ""
	}
	return spec.Server.TLS.SecretName
}

// mcpService sets the Service's port to the server's; it targets the container port by name.
func mcpService(mcp *v1alpha1.MCP, svc *corev1.Service) error {
	svc.Spec.Ports[0].Port = mcpPort(&mcp.Spec)
	return nil
}

// mcpDeployment sets replicas, the port (the container's and SERVER_PORT), the command and its
// arguments, and mounts the TLS Secret at /etc/tls. Without spec.server.command the image's
// entrypoint runs (upstream replaced it with /mcp-server, which the default image node:lts does
// not have).
func mcpDeployment(mcp *v1alpha1.MCP, d *appsv1.Deployment) error {
	c := engine.ContainerOf(d, mcpContainer)
	if c == nil {
		return fmt.Errorf("the manifest has no container %q", mcpContainer)
	}
	spec := &mcp.Spec
	return engine.RunHooks(d,
		withReplicas(spec.Replicas, spec.HPA),
		func(d *appsv1.Deployment) error {
			port := mcpPort(spec)
			c.Ports[0].ContainerPort = port
			for i := range c.Env {
				if c.Env[i].Name == "SERVER_PORT" {
					c.Env[i].Value = portString(port)
				}
			}
			if s := spec.Server; s != nil {
				c.Command = append([]string(nil), s.Command...)
				c.Args = append([]string(nil), s.Args...)
			}
			if secret := mcpTLSSecret(spec); secret != "" {
				volume := secret + "-volume"
				d.Spec.Template.Spec.Volumes = []corev1.Volume{{Name: volume, VolumeSource: corev1.VolumeSource{
					Secret: &corev1.SecretVolumeSource{SecretName: secret},
				}}}
				c.VolumeMounts = []corev1.VolumeMount{{Name: volume, MountPath: mcpTLSDir, ReadOnly: true}}
			}
			return nil
		},
		withMCPHome(c),
	)
}

// withMCPHome gives the server a writable home for HOME and npm's cache (an emptyDir, so the
// restricted profile and a read-only root keep working).
func withMCPHome(c *corev1.Container) engine.DeploymentHook {
	return func(d *appsv1.Deployment) error {
		pod := &d.Spec.Template.Spec
		pod.Volumes = append(pod.Volumes, corev1.Volume{Name: mcpHomeVolume, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: ptr.To(resource.MustParse(mcpHomeSizeLimit))}}})
		c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: mcpHomeVolume, MountPath: mcpHomeDir})
		c.Env = append(c.Env, mcpHomeEnv...)
		return nil
	}
}

func mcpHPA(mcp *v1alpha1.MCP, hpa *autoscalingv2.HorizontalPodAutoscaler) error {
	applyHPAConfig(hpa, mcp.Spec.HPA.Config)
	return nil
}

// mcpURL is an MCP's status.url, its endpoint in the cluster:
// http(s)://<mcp>-service.<namespace>.svc.cluster.local:<port><path>, https with TLS.
func mcpURL(mcp *v1alpha1.MCP) string {
	return fmt.Sprintf("%s://%s.%s.svc.cluster.local:%d%s",
		scheme(mcpTLSEnabled(&mcp.Spec)),
		MCPNamesFor(mcp.Name).Service, mcp.Namespace, mcpPort(&mcp.Spec), mcpPath(&mcp.Spec))
}

// MCPEndpoint is where clients of an MCP object (a Gateway's or an Orchestrator's discovery)
// call it: its status.url, else the URL its spec gives (an MCP the operator has not synced yet).
func MCPEndpoint(mcp *v1alpha1.MCP) string {
	return cmp.Or(mcp.Status.URL, mcpURL(mcp))
}

// mcpPodInputs lists what an MCP's pods read at start-up: the TLS Secret.
func mcpPodInputs(mcp *v1alpha1.MCP) podInputs {
	secrets := engine.NeededNames{}
	secrets.Add(mcpTLSSecret(&mcp.Spec), nil)
	return podInputs{Secrets: secrets.In(mcp.Namespace)}
}

// mcpDiscovery says which MCP objects a Gateway's discovery selects: those in namespace that
// match selector. enabled is false when the Gateway discovers none (MCP or discovery off). An
// unset selector selects every MCP of the namespace, as upstream; a selector that does not
// parse is an error naming the field.
func mcpDiscovery(gw *v1alpha1.Gateway) (namespace string, selector labels.Selector, enabled bool, err error) {
	mcp := gw.Spec.MCP
	if mcp == nil || !mcp.Enabled || mcp.ServiceDiscovery == nil || !mcp.ServiceDiscovery.Enabled {
		return "", nil, false, nil
	}
	sd := mcp.ServiceDiscovery
	s, err := engine.NewLabelSelection(gw.Namespace, sd.Namespace, sd.Selector, "spec.mcp.serviceDiscovery.selector")
	if err != nil {
		return "", nil, false, err
	}
	return s.Namespace, s.Selector, true, nil
}

// mcpSelections is what a Gateway's discovery selects, for the MCP informer's events: nothing
// while discovery is off or its selector does not parse.
func mcpSelections(gw *v1alpha1.Gateway) []engine.LabelSelection {
	namespace, selector, enabled, err := mcpDiscovery(gw)
	if err != nil || !enabled {
		return nil
	}
	return []engine.LabelSelection{{Namespace: namespace, Selector: selector}}
}

// mcpServerURLs is MCP_SERVERS and status.mcpServers: the URLs of spec.mcp.servers and of the
// discovered MCP objects (their status.url, else the URL their spec gives), sorted, without
// duplicates or empty ones. Discovered MCPs count only while the Gateway's discovery is on (the
// controller lists them with mcpDiscovery). nil when MCP is off.
func mcpServerURLs(gw *v1alpha1.Gateway, discovered []v1alpha1.MCP) []string {
	spec := gw.Spec.MCP
	if spec == nil || !spec.Enabled {
		return nil
	}
	seen := map[string]bool{}
	add := func(url string) {
		if url != "" {
			seen[url] = true
		}
	}
	for _, s := range spec.Servers {
		add(s.URL)
	}
	if _, _, enabled, _ := mcpDiscovery(gw); enabled {
		for i := range discovered {
			add(MCPEndpoint(&discovered[i]))
		}
	}
	urls := make([]string, 0, len(seen))
	for url := range seen {
		urls = append(urls, url)
	}
	sort.Strings(urls)
	return urls
}
