package inferencegateway

import (
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// RenderGateway returns the objects a sync applies for gw (those the spec asks for), with the
// MCP servers of spec.mcp.servers and none discovered, in the order it applies them, as it
// applies them: stamped with the operator's labels and owner reference, the Deployment under
// the restricted Pod Security profile (without the hashes of the user's ConfigMaps and
// Secrets). It serves checks from outside the package: test/reliability/dryrun sends the
// objects to a real API server.
func RenderGateway(gw *v1alpha1.Gateway) ([]runtime.Object, error) {
	rendered, err := renderAll(renderInput{cr: gw, mcpServers: mcpServerURLs(gw, nil)})
	if err != nil {
		return nil, err
	}
	return stampWanted(gatewayGVK, gw, rendered)
}

// RenderMCP is RenderGateway for an MCP.
func RenderMCP(mcp *v1alpha1.MCP) ([]runtime.Object, error) {
	rendered, err := renderMCP(mcp)
	if err != nil {
		return nil, err
	}
	return stampWanted(mcpGVK, mcp, rendered)
}

// stampWanted is what objectRun.ApplyAsset does to the wanted objects before it applies them.
func stampWanted(gvk schema.GroupVersionKind, owner metav1.Object, rendered []renderedObject) ([]runtime.Object, error) {
	stamp := OwnerStamp(gvk, owner)
	var objs []runtime.Object
	for _, ro := range rendered {
		if !ro.wanted {
			continue
		}
		m, err := meta.Accessor(ro.obj)
		if err != nil {
			return nil, err
		}
		stamp.Stamp(m)
		if d, ok := ro.obj.(*appsv1.Deployment); ok {
			if err := engine.RunHooks(d, PodSecurity...); err != nil {
				return nil, err
			}
		}
		objs = append(objs, ro.obj)
	}
	return objs, nil
}
