package inferencegateway

import (
	"fmt"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/llm-infra/llm-infra-operator/pkg/apis/crdtest"
	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1/testcases"
)

// The MCP's golden test is the Gateway's (golden_test.go) for the MCPs of
// test/golden/inference-gateway: every field of every object, and the status fields upstream's
// status has (mcpSpecStatus: url, observedGeneration), compared with upstream's, every
// difference listed below with its reason, keyed by the object's kind and a condition on the
// MCP's spec, under the case's name and under another. Upstream's MCP wrote no conditions, and
// status.ready only with a ready Deployment, which no golden case has.
//
// A golden MCP that the API refuses by design (testcases.InferenceGatewayGoldenRefused) is
// compared too, as upstream rendered it, and TestGoldenMCPRefused checks that it is refused.

const mcpCRD = "../../../../manifests/core.inference-gateway.com_mcps.yaml"

// The MCP's.
type (
	mcpCondition  = crCondition[v1alpha1.MCPSpec]
	fromMCP       = crValue[v1alpha1.MCP]
	mcpDifference = listedDifference[v1alpha1.MCP, v1alpha1.MCPSpec]
)

var (
	everyMCP = mcpCondition{"every MCP", func(*v1alpha1.MCPSpec) bool { return true }}
	// Upstream served an MCP without a server block on 3000 and with the block on its port,
	// whose CRD default is 8080.
	mcpWithoutServer  = mcpCondition{"spec.server is unset", func(s *v1alpha1.MCPSpec) bool { return s.Server == nil }}
	mcpWithoutCommand = mcpCondition{"spec.server.command is unset", func(s *v1alpha1.MCPSpec) bool {
		return s.Server == nil || len(s.Server.Command) == 0
	}}
	mcpServerTLS      = mcpCondition{"spec.server.tls is enabled", mcpTLSEnabled}
	mcpServerNoTLS    = mcpCondition{"spec.server.tls is not enabled", func(s *v1alpha1.MCPSpec) bool { return !mcpTLSEnabled(s) }}
	mcpHPAOnNoMetrics = mcpCondition{"spec.hpa is enabled without metrics", func(s *v1alpha1.MCPSpec) bool {
		return hpaEnabled(s.HPA) && (s.HPA.Config == nil || len(s.HPA.Config.Metrics) == 0)
	}}
)

// upstreamMCPPort is the port upstream's MCP controller used without spec.server.
const upstreamMCPPort = 3000

// mcpOnUpstreamsDefaultPort is status.url as upstream wrote it for an MCP without spec.server.
func mcpOnUpstreamsDefaultPort(mcp *v1alpha1.MCP) interface{} {
	return fmt.Sprintf("http://%s.%s.svc.cluster.local:%d%s", MCPNamesFor(mcp.Name).Service, mcp.Namespace, upstreamMCPPort, defaultMCPPath)
}

var mcpIntendedDifferences = func() []mcpDifference {
	const labelSet = "one label set on every object and pod (§7.18): upstream labelled them app only; the selectors stay upstream's app label"
	const ownerReference = "the engine sets the controller owner reference to the MCP when it applies an object"
	const home = "the server gets a writable home for HOME and npm's cache, an emptyDir of 1Gi: the pod runs as a user without an entry in the image's /etc/passwd with a read-only root, where npx in the default node:lts failed (EACCES, mkdir '/.npm'; issue 16, issue 33)"
	var out []mcpDifference
	for _, l := range []struct {
		key  string
		ours interface{}
	}{{nameLabel, nameValue}, {instanceLabel, nil}, {componentLabel, componentMCPServer}, {PartOfLabel, PartOfValue}} {
		out = append(out,
			mcpDifference{notKinds: objectsOnly, when: everyMCP, path: fmt.Sprintf("metadata.labels[%q]", l.key), golden: absent, ours: l.ours, reason: labelSet},
			mcpDifference{kinds: []string{"Deployment"}, when: everyMCP, path: fmt.Sprintf("spec.template.metadata.labels[%q]", l.key), golden: absent, ours: l.ours, reason: labelSet})
	}
	for _, field := range []string{"apiVersion", "blockOwnerDeletion", "controller", "kind", "name", "uid"} {
		out = append(out, mcpDifference{notKinds: objectsOnly, when: everyMCP, path: "metadata.ownerReferences[0]." + field, ours: absent, reason: ownerReference})
	}
	// The home volume and its mount come after the TLS Secret's.
	for _, at := range []struct {
		when  mcpCondition
		index int
	}{{mcpServerNoTLS, 0}, {mcpServerTLS, 1}} {
		out = append(out,
			mcpDifference{kinds: []string{"Deployment"}, when: at.when, path: fmt.Sprintf("spec.template.spec.volumes[%d].name", at.index), golden: absent, ours: mcpHomeVolume, reason: home},
			mcpDifference{kinds: []string{"Deployment"}, when: at.when, path: fmt.Sprintf("spec.template.spec.volumes[%d].emptyDir.sizeLimit", at.index), golden: absent, ours: mcpHomeSizeLimit, reason: home},
			mcpDifference{kinds: []string{"Deployment"}, when: at.when, path: fmt.Sprintf("spec.template.spec.containers[0].volumeMounts[%d].name", at.index), golden: absent, ours: mcpHomeVolume, reason: home},
			mcpDifference{kinds: []string{"Deployment"}, when: at.when, path: fmt.Sprintf("spec.template.spec.containers[0].volumeMounts[%d].mountPath", at.index), golden: absent, ours: mcpHomeDir, reason: home})
	}
	const readiness = "the pod is ready once the server accepts connections (npx installs the package first): Available and status.ready mean it serves, and the Gateways that discover it restart onto it then, since the gateway connects to its MCP servers at start-up only; upstream's pod had no probe"
	const defaultPort = "an MCP without spec.server listens on 8080, the API's documented default, as one with a server block does (SERVER_PORT set, the container port, the Service and status.url): upstream used 3000 there, but told the server no port, and its own Orchestrator discovery assumed 8080 for such an MCP"
	return append(out,
		mcpDifference{kinds: []string{"Deployment"}, when: everyMCP, path: "spec.template.spec.containers[0].env.HOME.value", golden: absent, ours: mcpHomeDir, reason: home},
		mcpDifference{kinds: []string{"Deployment"}, when: everyMCP, path: "spec.template.spec.containers[0].env.npm_config_cache.value", golden: absent, ours: mcpHomeDir + "/.npm", reason: home},
		mcpDifference{kinds: []string{"Deployment"}, when: everyMCP, path: "spec.template.spec.containers[0].readinessProbe.tcpSocket.port", golden: absent, ours: portHTTP, reason: readiness},
		mcpDifference{kinds: []string{"Deployment"}, when: everyMCP, path: "spec.template.spec.containers[0].readinessProbe.periodSeconds", golden: absent, ours: int64(2), reason: readiness},
		mcpDifference{kinds: []string{"Deployment"}, when: everyMCP, path: "spec.template.spec.containers[0].readinessProbe.failureThreshold", golden: absent, ours: int64(3), reason: readiness},
		mcpDifference{kinds: []string{"Deployment"}, when: mcpWithoutCommand, path: "spec.template.spec.containers[0].command[0]", golden: "/mcp-server", ours: absent,
			reason: "without spec.server.command the image's entrypoint runs: upstream replaced it with /mcp-server, which the default image node:lts does not have, so the pod never started"},
		mcpDifference{kinds: []string{"Service"}, when: everyMCP, path: "spec.ports[0].targetPort", golden: int64(0), ours: portHTTP,
			reason: "the Service targets the container's port by name; upstream's targetPort 0 is what the API server defaults to the Service's port, which is the container's, so both reach the same port on a cluster"},
		mcpDifference{kinds: []string{"Deployment"}, when: mcpWithoutServer, path: "spec.template.spec.containers[0].env.SERVER_PORT.value", golden: absent, ours: fmt.Sprint(defaultMCPPort), reason: defaultPort},
		mcpDifference{kinds: []string{"Deployment"}, when: mcpWithoutServer, path: "spec.template.spec.containers[0].ports[0].containerPort", golden: int64(upstreamMCPPort), ours: int64(defaultMCPPort), reason: defaultPort},
		mcpDifference{kinds: []string{"Service"}, when: mcpWithoutServer, path: "spec.ports[0].port", golden: int64(upstreamMCPPort), ours: int64(defaultMCPPort), reason: defaultPort},
		mcpDifference{kinds: []string{statusKind}, when: mcpWithoutServer, path: "url", golden: fromMCP(mcpOnUpstreamsDefaultPort), ours: fromMCP(func(mcp *v1alpha1.MCP) interface{} { return mcpURL(mcp) }), reason: defaultPort},
		mcpDifference{kinds: []string{"HorizontalPodAutoscaler"}, when: mcpHPAOnNoMetrics, path: "spec.metrics[0].type", golden: absent, ours: "Resource", reason: hpaDefaultMetric},
		mcpDifference{kinds: []string{"HorizontalPodAutoscaler"}, when: mcpHPAOnNoMetrics, path: "spec.metrics[0].resource.name", golden: absent, ours: "cpu", reason: hpaDefaultMetric},
		mcpDifference{kinds: []string{"HorizontalPodAutoscaler"}, when: mcpHPAOnNoMetrics, path: "spec.metrics[0].resource.target.type", golden: absent, ours: "Utilization", reason: hpaDefaultMetric},
		mcpDifference{kinds: []string{"HorizontalPodAutoscaler"}, when: mcpHPAOnNoMetrics, path: "spec.metrics[0].resource.target.averageUtilization", golden: absent, ours: int64(80), reason: hpaDefaultMetric},
	)
}()

// hpaDefaultMetric is why an HPA without metrics is rendered with one.
const hpaDefaultMetric = "an HPA without metrics scales on CPU at 80%, the autoscaling/v2 default the API server applies to an HPA created without metrics: upstream's fake-client store, which applies no defaults, kept none (the same HPA on a cluster)"

var mcpGolden = goldenKind[v1alpha1.MCP, v1alpha1.MCPSpec]{
	kind: "MCP", cases: 3, crd: mcpCRD, differences: mcpIntendedDifferences,
	spec: func(mcp *v1alpha1.MCP) *v1alpha1.MCPSpec { return &mcp.Spec },
	render: func(mcp *v1alpha1.MCP) ([]runtime.Object, interface{}, error) {
		rendered, err := renderMCP(mcp)
		if err != nil {
			return nil, nil, err
		}
		var status v1alpha1.MCPStatus
		mcpSpecStatus(&status, mcp)
		return wantedObjects(rendered), &status, nil
	},
}

// TestGoldenMCP: every difference between the rendering (and status) of each golden MCP and
// upstream's is an intended one, and every intended difference occurs wherever its kind and
// condition say.
func TestGoldenMCP(t *testing.T) {
	mcpGolden.check(t)
}

// TestGoldenMCPUnderAnotherName: the same under another name and in another namespace.
func TestGoldenMCPUnderAnotherName(t *testing.T) {
	mcpGolden.checkUnderAnotherName(t)
}

// TestGoldenMCPRefused: the golden MCPs the API refuses by design
// (testcases.InferenceGatewayGoldenRefused) are refused by the CRD with the listed errors, and
// the others are admitted.
func TestGoldenMCPRefused(t *testing.T) {
	crd, err := crdtest.Load(mcpCRD)
	if err != nil {
		t.Fatal(err)
	}
	refused := 0
	for _, name := range mcpGolden.caseNames(t) {
		t.Run(name, func(t *testing.T) {
			want := testcases.InferenceGatewayGoldenRefused["golden "+name]
			if len(want) > 0 {
				refused++
			}
			_, errs := crd.Create(readYAML(t, filepath.Join(goldenDir, name, "cr.yaml")))
			crdtest.ExpectErrors(t, errs, want)
		})
	}
	if refused == 0 {
		t.Error("no golden MCP is refused: testcases.InferenceGatewayGoldenRefused names none")
	}
}
