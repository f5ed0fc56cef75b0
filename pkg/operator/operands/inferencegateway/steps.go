package inferencegateway

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net"
	"slices"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	"github.com/llm-infra/llm-infra-operator/bindata"
	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// renderedRoutingAsset is the Gateway's own routing ConfigMap (inline spec.routing.config).
const renderedRoutingAsset = bindata.InferenceGatewayRoutingConfigMap

// gatewaySteps is a Gateway, in the order it is applied: what its pods read (watched), the MCP
// servers it discovers, the render, then one step per kind in the order of the asset list
// bindata.InferenceGatewayAssets (the ServiceAccount before the Deployment, the optional kinds
// last).
func gatewaySteps() []engine.Step[*gatewayRun] {
	steps := []engine.Step[*gatewayRun]{
		{Name: "referenced Secrets and ConfigMaps", Apply: watchReferences},
		{Name: "MCP server discovery", Apply: discoverMCPServers},
		{Name: "render", Apply: renderGatewayStep},
	}
	return append(steps, stepsByKind[*gatewayRun](bindata.InferenceGatewayAssets)...)
}

// mcpSteps is an MCP server: what its pods read (watched), the render, then one step per kind
// of bindata.MCPAssets.
func mcpSteps() []engine.Step[*mcpRun] {
	steps := []engine.Step[*mcpRun]{
		{Name: "referenced Secrets", Apply: watchMCPReferences},
		{Name: "render", Apply: renderMCPStep},
	}
	return append(steps, stepsByKind[*mcpRun](bindata.MCPAssets)...)
}

// stepsByKind groups an asset list into one step per kind, in the list's order.
func stepsByKind[R engine.AssetRun](assets []string) []engine.Step[R] {
	var steps []engine.Step[R]
	index := map[string]int{}
	for _, asset := range assets {
		kind := kindOfAsset(asset)
		i, ok := index[kind]
		if !ok {
			i = len(steps)
			index[kind] = i
			steps = append(steps, engine.Step[R]{Name: kind})
		}
		steps[i].Assets = append(steps[i].Assets, asset)
	}
	return steps
}

// kindOfAsset reads the kind of an embedded manifest. The manifests are compiled in, so a
// failure is a defect of the build: it panics, and every test of the package catches it.
func kindOfAsset(asset string) string {
	var tm metav1.TypeMeta
	if err := yaml.Unmarshal(bindata.MustAsset(asset), &tm); err != nil || tm.Kind == "" {
		panic(fmt.Sprintf("embedded manifest %s has no kind: %v", asset, err))
	}
	return tm.Kind
}

// optionalFeatures names the CR field that asks for each object of an optional API.
var optionalFeatures = map[string]string{
	bindata.InferenceGatewayGatewayAPIGateway: "spec.gatewayAPI.enabled",
	bindata.InferenceGatewayHTTPRoute:         "spec.gatewayAPI.enabled",
	bindata.InferenceGatewayBackendTLSPolicy:  "spec.server.tls.enabled with spec.gatewayAPI.enabled",
	bindata.InferenceGatewayServiceMonitor:    "spec.telemetry.metrics.serviceMonitor",
}

// bestEffort says whether a Gateway wants an optional object without asking for it by name:
// the ServiceMonitor follows from serving metrics unless spec.telemetry.metrics.serviceMonitor
// .enabled is true. Without its CRD, or with someone else's object of its name, it is skipped,
// and the Degraded=False condition says so; the Gateway API objects, which spec.gatewayAPI asks
// for, and a required ServiceMonitor are a problem instead.
func bestEffort(asset string, spec *v1alpha1.GatewaySpec) bool {
	return asset == bindata.InferenceGatewayServiceMonitor && !serviceMonitorRequired(spec)
}

func featureOf(asset string) string {
	if f, ok := optionalFeatures[asset]; ok {
		return f
	}
	return "the spec"
}

// watchReferences watches every Secret and ConfigMap the Gateway's pods read (and the
// providers' Secrets the status summarises), so a change rolls the pods; a missing one is
// reported by name (the pods cannot start without it), never by content.
func watchReferences(ctx context.Context, run *gatewayRun, _ []string) error {
	run.inputs = gatewayPodInputs(run.cr)
	run.secrets.Set(ctx, run.key, run.inputs.Secrets...)
	// The routing ConfigMap the operator renders itself is not watched: it is applied here.
	src := routingSourceOf(&run.cr.Spec)
	ownRouting := src != nil && src.configMap == ""
	var watched []types.NamespacedName
	for _, ref := range run.inputs.ConfigMaps {
		if !(ownRouting && ref.Name == run.names.RoutingConfigMap) {
			watched = append(watched, ref)
		}
	}
	run.configMaps.Set(ctx, run.key, watched...)
	var missing []string
	for _, ref := range run.inputs.Secrets {
		if _, err := run.secrets.Get(ref); err != nil {
			missing = append(missing, "Secret "+ref.String())
		}
	}
	for _, ref := range watched {
		if _, err := run.configMaps.Get(ref); err != nil {
			missing = append(missing, "ConfigMap "+ref.String())
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return engine.Problem(engine.ReasonSecretMissing,
			"the gateway's pods read %v, which do not exist: create them (the pods start once they do)", missing)
	}
	if serverTLSEnabled(&run.cr.Spec) {
		ref := run.cr.Spec.Server.TLS.CertificateRef
		if s := run.secretNamed(ref.Name); s != nil {
			if problem := serverCertificateProblem(s.Data[ref.Key], run.names.ServiceHost); problem != "" {
				return engine.Problem(v1alpha1.ReasonServerCertificateInvalid,
					"spec.server.tls.certificateRef (Secret %s/%s, key %s) %s: the gateway calls itself at https://%s for every provider request, so it would serve no model; issue the certificate for %s",
					run.cr.Namespace, ref.Name, ref.Key, problem, run.names.ServiceHost, run.names.ServiceHost)
			}
		}
	}
	return nil
}

// serverCertificateProblem says why the PEM certificate chain data cannot serve the gateway's
// calls to itself at host ("" when it can): its first certificate, the one the gateway
// presents, must be valid for host. Only names are reported, never the content.
func serverCertificateProblem(data []byte, host string) string {
	for rest := data; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			return "holds no PEM certificate"
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return "holds a certificate that does not parse"
		}
		if err := cert.VerifyHostname(host); err != nil {
			names := append(slices.Clone(cert.DNSNames), ipStrings(cert.IPAddresses)...)
			return fmt.Sprintf("is not valid for %s (it is for %v)", host, names)
		}
		return ""
	}
}

func ipStrings(ips []net.IP) []string {
	out := make([]string, len(ips))
	for i, ip := range ips {
		out[i] = ip.String()
	}
	return out
}

// watchMCPReferences watches the TLS Secret an MCP server's pods mount, so a rotation rolls
// them; a missing one is reported by name (the pods cannot start without it).
func watchMCPReferences(ctx context.Context, run *mcpRun, _ []string) error {
	run.inputs = mcpPodInputs(run.cr)
	run.mcpSecrets.Set(ctx, run.key, run.inputs.Secrets...)
	var missing []string
	for _, ref := range run.inputs.Secrets {
		if _, err := run.mcpSecrets.Get(ref); err != nil {
			missing = append(missing, "Secret "+ref.String())
		}
	}
	if len(missing) > 0 {
		return engine.Problem(engine.ReasonSecretMissing,
			"the MCP server's pods mount %v, which does not exist: create it (the pods start once it does)", missing)
	}
	return nil
}

// discoverMCPServers lists the MCP servers the Gateway's service discovery selects, from the
// MCP informer.
func discoverMCPServers(_ context.Context, run *gatewayRun, _ []string) error {
	var discovered []v1alpha1.MCP
	namespace, selector, enabled, err := mcpDiscovery(run.cr)
	if err != nil {
		// Admission rejects such a selector; one stored before that rule still keeps the
		// static servers.
		run.mcpServers = mcpServerURLs(run.cr, nil)
		return engine.Problem(engine.ReasonApplyFailed, "%v", err)
	}
	if enabled {
		mcps, err := run.mcps.MCPs(namespace).List(selector)
		if err != nil {
			return err
		}
		for _, m := range mcps {
			discovered = append(discovered, *m)
		}
	}
	run.mcpServers = mcpServerURLs(run.cr, discovered)
	run.mcpReady = readyMCPServers(discovered)
	return nil
}

// readyMCPServers is the sorted URLs of the discovered MCP servers that are ready, or nil when
// none was discovered. The gateway (v0.48.2) connects to its MCP servers at start-up and never
// again to one that failed then (internal/mcp: a server whose first connection failed stays
// "unknown", which its background reconnection skips), so a Gateway that started before its
// MCP server listened would never list its tools and, with no server available, answers every
// chat completion 400 (its MCP middleware has read the body). Their hash on the pod template
// restarts the gateway when a discovered server becomes ready.
func readyMCPServers(discovered []v1alpha1.MCP) []string {
	if len(discovered) == 0 {
		return nil
	}
	ready := []string{}
	for i := range discovered {
		if discovered[i].Status.Ready {
			ready = append(ready, orDefault(discovered[i].Status.URL, mcpURL(&discovered[i])))
		}
	}
	sort.Strings(ready)
	return ready
}

// renderGatewayStep renders every asset of the Gateway.
func renderGatewayStep(_ context.Context, run *gatewayRun, _ []string) error {
	objs, err := renderAll(renderInput{cr: run.cr, mcpServers: run.mcpServers, backendCA: backendCAOf(&run.cr.Spec, run.secretNamed)})
	if err != nil {
		return engine.MissingDependency(engine.ReasonApplyFailed, "the spec cannot be rendered: %v", err)
	}
	run.rendered = byAsset(objs)
	return nil
}

// renderMCPStep renders every asset of the MCP server.
func renderMCPStep(_ context.Context, run *mcpRun, _ []string) error {
	objs, err := renderMCP(run.cr)
	if err != nil {
		return engine.MissingDependency(engine.ReasonApplyFailed, "the spec cannot be rendered: %v", err)
	}
	run.rendered = byAsset(objs)
	return nil
}

func byAsset(objs []renderedObject) map[string]renderedObject {
	out := make(map[string]renderedObject, len(objs))
	for _, ro := range objs {
		out[ro.asset] = ro
	}
	return out
}

// Assets is the operand's one list of a Gateway's embedded manifests, in the order they are
// applied.
func Assets() []string { return engine.AllAssets(gatewaySteps()) }
