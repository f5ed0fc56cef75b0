package inferencegateway

import (
	"cmp"
	"context"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net"
	"slices"
	"sort"

	"k8s.io/apimachinery/pkg/types"

	"github.com/llm-infra/llm-infra-operator/bindata"
	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// renderedRoutingAsset is the Gateway's own routing ConfigMap (inline spec.routing.config).
const renderedRoutingAsset = bindata.InferenceGatewayRoutingConfigMap

// watchReferences watches every Secret and ConfigMap the Gateway's pods read (and the
// providers' Secrets the status summarises), so a change rolls the pods; a missing one is
// reported by name (the pods cannot start without it), never by content.
func watchReferences(ctx context.Context, run *gatewayRun, _ []string) error {
	secrets, configMaps := run.References(engine.Secrets), run.References(engine.ConfigMaps)
	inputs := run.State.inputs
	secrets.Set(ctx, run.Key, inputs.Secrets...)
	// The routing ConfigMap the operator renders itself is not watched: it is applied here.
	src := routingSourceOf(&run.CR.Spec)
	ownRouting := src != nil && src.configMap == ""
	var watched []types.NamespacedName
	for _, ref := range inputs.ConfigMaps {
		if !(ownRouting && ref.Name == run.State.names.RoutingConfigMap) {
			watched = append(watched, ref)
		}
	}
	configMaps.Set(ctx, run.Key, watched...)
	// One named only as optional may be missing: the pods start without it.
	var missing []string
	for _, ref := range inputs.Secrets {
		if _, err := secrets.Get(ref); engine.IsNotSynced(err) {
			return err
		} else if err != nil && !inputs.OptionalSecrets.Has(ref.Name) {
			missing = append(missing, "Secret "+ref.String())
		}
	}
	for _, ref := range watched {
		if _, err := configMaps.Get(ref); engine.IsNotSynced(err) {
			return err
		} else if err != nil && !inputs.OptionalConfigMaps.Has(ref.Name) {
			missing = append(missing, "ConfigMap "+ref.String())
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return engine.Problem(engine.ReasonSecretMissing,
			"the gateway's pods read %v, which do not exist: create them (the pods start once they do)", missing)
	}
	if serverTLSEnabled(&run.CR.Spec) {
		ref := run.CR.Spec.Server.TLS.CertificateRef
		if s := secretNamed(run)(ref.Name); s != nil {
			if problem := serverCertificateProblem(s.Data[ref.Key], run.State.names.ServiceHost); problem != "" {
				return engine.Problem(v1alpha1.ReasonServerCertificateInvalid,
					"spec.server.tls.certificateRef (Secret %s/%s, key %s) %s: the gateway calls itself at https://%s for every provider request, so it would serve no model; issue the certificate for %s",
					run.CR.Namespace, ref.Name, ref.Key, problem, run.State.names.ServiceHost, run.State.names.ServiceHost)
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
	secrets := run.References(engine.Secrets)
	secrets.Set(ctx, run.Key, run.State.inputs.Secrets...)
	var missing []string
	for _, ref := range run.State.inputs.Secrets {
		if _, err := secrets.Get(ref); engine.IsNotSynced(err) {
			return err
		} else if err != nil {
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
// MCP informer. Those of another namespace count only while a ReferenceGrant there allows the
// Gateway's namespace to use them (engine.GrantedObjects): the others are skipped and named in
// Degraded, with the grant to create.
func discoverMCPServers(_ context.Context, run *gatewayRun, _ []string) error {
	var discovered []v1alpha1.MCP
	namespace, selector, enabled, err := mcpDiscovery(run.CR)
	if err != nil {
		// Admission rejects such a selector; one stored before that rule still keeps the
		// static servers.
		run.State.mcpServers = mcpServerURLs(run.CR, nil)
		return engine.Problem(engine.ReasonApplyFailed, "%v", err)
	}
	var problem *engine.StepError
	if enabled {
		mcps, err := run.State.mcps.MCPs(namespace).List(selector)
		if err != nil {
			return err
		}
		mcps, problem, err = engine.GrantedObjects(run.Optional(), run.CR, gatewayGVK.GroupKind(), mcpGVK.GroupKind(), namespace, "spec.mcp.serviceDiscovery", mcps)
		if err != nil {
			return err
		}
		for _, m := range mcps {
			discovered = append(discovered, *m)
		}
	}
	run.State.mcpServers = mcpServerURLs(run.CR, discovered)
	run.State.mcpReady = readyMCPServers(discovered)
	if problem != nil {
		return problem
	}
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
			ready = append(ready, cmp.Or(discovered[i].Status.URL, mcpURL(&discovered[i])))
		}
	}
	sort.Strings(ready)
	return ready
}
