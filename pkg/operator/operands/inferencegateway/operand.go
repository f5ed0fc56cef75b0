package inferencegateway

import (
	operatorv1 "github.com/openshift/api/operator/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/tools/cache"

	"github.com/llm-infra/llm-infra-operator/bindata"
	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1/testcases"
	igwlisters "github.com/llm-infra/llm-infra-operator/pkg/generated/listers/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/registry"
)

// Controller names (logs, events) and the operand's metric labels.
const (
	GatewayControllerName = "InferenceGatewayController"
	MCPControllerName     = "MCPServerController"
	GatewayOperandName    = "inference-gateway"
	MCPOperandName        = "mcp-server"
)

var (
	gatewayGVK = v1alpha1.GroupVersion.WithKind("Gateway")
	mcpGVK     = v1alpha1.GroupVersion.WithKind("MCP")
)

// Registrations are the inference gateway's two kinds: Gateway and MCP. Each CR syncs in its
// own namespace, one queue key per CR; its objects get a controller owner reference to it, so
// deleting the CR deletes them through garbage collection.
func Registrations() []registry.Registration {
	const api, operand = "pkg/apis/inferencegateway/v1alpha1", "pkg/operator/operands/inferencegateway"
	return []registry.Registration{
		registry.Namespaced(registry.Registration{
			APIPackage: api, OperandPackage: operand,
			Admission: registry.Admission{Base: testcases.BaseGateway, Golden: "inference-gateway", GoldenRefused: testcases.InferenceGatewayGoldenRefused,
				Rejected: testcases.GatewayRejected, Accepted: testcases.GatewayAccepted, Updates: testcases.GatewayUpdates},
			Example: "gateway_minimal.yaml",
		}, GatewayKind),
		registry.Namespaced(registry.Registration{
			APIPackage: api, OperandPackage: operand,
			Admission: registry.Admission{Base: testcases.BaseMCP, Golden: "inference-gateway", GoldenRefused: testcases.InferenceGatewayGoldenRefused, Rejected: testcases.MCPRejected, Accepted: testcases.MCPAccepted},
			Example:   "mcp_memory.yaml",
		}, MCPKind),
	}
}

// gatewayRun and mcpRun are the syncs of one Gateway and one MCP.
type (
	gatewayRun = engine.Run[*v1alpha1.Gateway, *gatewayState]
	mcpRun     = engine.Run[*v1alpha1.MCP, *mcpState]
)

// GatewayKind is the Gateway kind on the engine. deps without clients (a render without a
// cluster) builds a kind that only renders.
func GatewayKind(deps *registry.Deps) *engine.Kind[*v1alpha1.Gateway, *gatewayState] {
	k := &engine.Kind[*v1alpha1.Gateway, *gatewayState]{
		Operand:        GatewayOperandName,
		ControllerName: GatewayControllerName,
		GVK:            gatewayGVK,
		Resource:       "gateways",
		PartOf:         PartOfValue,
		Workers:        4,
		Conditions:     func(gw *v1alpha1.Gateway) []metav1.Condition { return gw.Status.Conditions },
		Generations:    func(gw *v1alpha1.Gateway) []operatorv1.GenerationStatus { return gw.Status.Generations },
		Manifests:      bindata.FS,
		// The asset list's order: the ServiceAccount before the Deployment, the optional kinds
		// last.
		Assets: engine.AssetTable(bindata.InferenceGatewayAssets, map[string]engine.Asset{
			bindata.InferenceGatewayPDB:               {DisruptionBudgetOf: bindata.InferenceGatewayDeployment},
			bindata.InferenceGatewayGatewayAPIGateway: {Feature: "spec.gatewayAPI.enabled"},
			bindata.InferenceGatewayHTTPRoute:         {Feature: "spec.gatewayAPI.enabled"},
			bindata.InferenceGatewayBackendTLSPolicy:  {Feature: "spec.server.tls.enabled with spec.gatewayAPI.enabled"},
			// The ServiceMonitor follows from serving metrics unless
			// spec.telemetry.metrics.serviceMonitor.enabled is true (Required): without its
			// CRD, or with someone else's object of its name, it is skipped and noted. The
			// Gateway API objects, which spec.gatewayAPI asks for, are a problem instead.
			bindata.InferenceGatewayServiceMonitor: {Feature: "spec.telemetry.metrics.serviceMonitor",
				SkippedWithoutCRD: "install the Prometheus operator to have the gateway's metrics scraped; the operator picks it up without a restart"},
		}),
		OptionalAPIs:  OptionalAPIs(),
		References:    []schema.GroupResource{engine.Secrets, engine.ConfigMaps},
		Validate:      func(gw *v1alpha1.Gateway) field.ErrorList { return gw.ValidateSpec() },
		InvalidReason: v1alpha1.ReasonFor,
		Steps: []engine.Step[*gatewayRun]{
			{Name: "referenced Secrets and ConfigMaps", Apply: watchReferences},
			{Name: "MCP server discovery", Apply: discoverMCPServers},
			{Name: "the administrator's allowlists", Apply: checkPolicy},
		},
		Render: func(run *gatewayRun) ([]engine.Rendered, error) {
			return toRendered(renderAll(renderInput{cr: run.CR, mcpServers: run.State.mcpServers,
				backendCA: backendCAOf(&run.CR.Spec, secretNamed(run)), policy: run.State.policy}))
		},
		PrepareDeployment: prepareGatewayDeployment,
		PodSecurity:       engine.PodSecurityRestrictedNonRoot,
		Required: func(gw *v1alpha1.Gateway, asset string) bool {
			return asset == bindata.InferenceGatewayServiceMonitor && serviceMonitorRequired(&gw.Spec)
		},
		Status: gatewayStatus,
	}
	var mcps igwlisters.MCPLister
	if deps.CRInformers != nil {
		gateways := deps.CRInformers.Core().V1alpha1().Gateways()
		mcpInformer := deps.CRInformers.Core().V1alpha1().MCPs()
		k.Client = func(namespace string) engine.StatusClient[*v1alpha1.Gateway] {
			return deps.CR.CoreV1alpha1().Gateways(namespace)
		}
		k.Informer = gateways.Informer()
		mcps = mcpInformer.Lister()
		// MCP events reach the Gateways that discover the MCP before and after the change: one
		// relabelled out of a selector leaves that Gateway's MCP_SERVERS at once.
		k.RelatedInformers = []cache.SharedIndexInformer{mcpInformer.Informer()}
		// A ReferenceGrant's event reaches the Gateways that discover in its namespace from
		// another: it may allow or forbid their MCPs there.
		k.Related = func(obj runtime.Object, gateways func() []*v1alpha1.Gateway) ([]string, bool) {
			if namespace, ok := engine.IsReferenceGrant(obj); ok {
				return engine.CrossNamespaceKeys(gateways(), mcpSelections, namespace), true
			}
			mcp, ok := obj.(*v1alpha1.MCP)
			if !ok {
				return nil, false
			}
			return gatewaysDiscovering(mcp, gateways()), true
		}
	}
	k.NewState = func(gw *v1alpha1.Gateway) *gatewayState {
		return &gatewayState{mcps: mcps, names: NamesFor(gw), mcpServers: mcpServerURLs(gw, nil), inputs: gatewayPodInputs(gw), policy: deps.Policy}
	}
	return k
}

// MCPKind is the MCP kind on the engine.
func MCPKind(deps *registry.Deps) *engine.Kind[*v1alpha1.MCP, *mcpState] {
	k := &engine.Kind[*v1alpha1.MCP, *mcpState]{
		Operand:        MCPOperandName,
		ControllerName: MCPControllerName,
		GVK:            mcpGVK,
		Resource:       "mcps",
		PartOf:         PartOfValue,
		Workers:        1,
		Conditions:     func(mcp *v1alpha1.MCP) []metav1.Condition { return mcp.Status.Conditions },
		Generations:    func(mcp *v1alpha1.MCP) []operatorv1.GenerationStatus { return mcp.Status.Generations },
		Manifests:      bindata.FS,
		Assets:         engine.AssetTable(bindata.MCPAssets, map[string]engine.Asset{bindata.MCPPDB: {DisruptionBudgetOf: bindata.MCPDeployment}}),
		References:     []schema.GroupResource{engine.Secrets},
		Validate:       func(mcp *v1alpha1.MCP) field.ErrorList { return mcp.ValidateSpec() },
		Steps: []engine.Step[*mcpRun]{
			{Name: "referenced Secrets", Apply: watchMCPReferences},
		},
		Render: func(run *mcpRun) ([]engine.Rendered, error) {
			return toRendered(renderMCP(run.CR))
		},
		PrepareDeployment: prepareMCPDeployment,
		PodSecurity:       engine.PodSecurityRestrictedNonRoot,
		Status:            mcpStatus,
		NewState: func(mcp *v1alpha1.MCP) *mcpState {
			return &mcpState{inputs: mcpPodInputs(mcp)}
		},
	}
	if deps.CRInformers != nil {
		k.Client = func(namespace string) engine.StatusClient[*v1alpha1.MCP] {
			return deps.CR.CoreV1alpha1().MCPs(namespace)
		}
		k.Informer = deps.CRInformers.Core().V1alpha1().MCPs().Informer()
	}
	return k
}

// toRendered is the render's result as the engine takes it.
func toRendered(objs []renderedObject, err error) ([]engine.Rendered, error) {
	if err != nil {
		return nil, err
	}
	out := make([]engine.Rendered, len(objs))
	for i, ro := range objs {
		out[i] = engine.Rendered{Asset: ro.asset, Object: ro.obj, Wanted: ro.wanted}
	}
	return out, nil
}

// gatewaysDiscovering maps an MCP's event to the Gateways whose service discovery lists it:
// the MCP server list follows MCP CRs being added, changed and removed.
func gatewaysDiscovering(mcp *v1alpha1.MCP, gateways []*v1alpha1.Gateway) []string {
	return engine.SelectingKeys(func() ([]*v1alpha1.Gateway, error) { return gateways, nil }, mcpSelections)(mcp)
}
