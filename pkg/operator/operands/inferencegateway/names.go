// Package inferencegateway renders the inference gateway operand for its two custom resources
// (core.inference-gateway.com/v1alpha1): for a Gateway, the Inference Gateway's Deployment,
// Service, ServiceAccount, model-routing ConfigMap, HorizontalPodAutoscaler, Ingress, Gateway API
// Gateway and HTTPRoute, and ServiceMonitor; for an MCP, an MCP server's Deployment, Service and
// HorizontalPodAutoscaler. Rendering is a pure function of the CR (and, for a Gateway, the MCP
// server URLs the controller discovered): the exact objects the operator wants, built from the
// embedded manifests in bindata/assets/inferencegateway.
//
// Names and pod selectors are those of the upstream inference-gateway/operator, so that the
// operator adopts what upstream created; golden_test.go lists every intended difference from
// upstream's objects, each with its reason.
package inferencegateway

import (
	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
)

// Label keys and values the rendered objects and pod templates carry. The engine adds
// app.kubernetes.io/managed-by when it applies them.
const (
	// appLabel is upstream's only label, which Deployments and Services select pods by. It is
	// kept where upstream has it: a Deployment's selector is immutable, and Deployments upstream
	// created are adopted.
	appLabel = "app"

	nameLabel      = "app.kubernetes.io/name"
	instanceLabel  = "app.kubernetes.io/instance"
	componentLabel = "app.kubernetes.io/component"
	// PartOfLabel groups every object of every Gateway and MCP.
	PartOfLabel = "app.kubernetes.io/part-of"

	// nameValue is the application: the Inference Gateway, for Gateways and MCP servers alike.
	nameValue = "inference-gateway"
	// PartOfValue is PartOfLabel's value on every object and pod template the operand renders.
	PartOfValue = "inference-gateway"

	componentGateway   = "gateway"
	componentMCPServer = "mcp-server"
)

// Names are the names of the objects rendered for one Gateway: upstream's, so that objects
// upstream created are adopted.
type Names struct {
	// Gateway names the Deployment, the Service, the Ingress, the Gateway API Gateway, the
	// HTTPRoute and the ServiceMonitor: the Gateway's own name.
	Gateway string
	// ServiceAccount is spec.serviceAccount.name, or the Gateway's name. The pods run as it
	// even when the operator does not create it (spec.serviceAccount.create false).
	ServiceAccount string
	// RoutingConfigMap holds spec.routing.config.
	RoutingConfigMap string
	// HPA is the HorizontalPodAutoscaler.
	HPA string
	// ListenerTLSSecret is the default Secret of the Gateway API listener's certificate and of
	// the Ingress's TLS, when their secretName is unset.
	ListenerTLSSecret string
	// ServiceHost is the Service's name in the cluster, <gateway>.<namespace>.svc: with server
	// TLS, the name the gateway calls itself by and its certificate must be valid for.
	ServiceHost string
}

// NamesFor returns the object names for a Gateway.
func NamesFor(gw *v1alpha1.Gateway) Names {
	sa := gw.Name
	if s := gw.Spec.ServiceAccount; s != nil && s.Name != "" {
		sa = s.Name
	}
	return Names{
		Gateway:           gw.Name,
		ServiceAccount:    sa,
		RoutingConfigMap:  gw.Name + "-routing",
		HPA:               gw.Name + "-hpa",
		ListenerTLSSecret: gw.Name + "-tls",
		ServiceHost:       gw.Name + "." + gw.Namespace + ".svc",
	}
}

// MCPNames are the names of the objects rendered for one MCP.
type MCPNames struct {
	// Deployment is the MCP's own name.
	Deployment string
	// Service is "<mcp>-service", the host of status.url.
	Service string
	// HPA is named like the MCP, as upstream names it (unlike a Gateway's "-hpa").
	HPA string
}

// MCPNamesFor returns the object names for the MCP named mcp.
func MCPNamesFor(mcp string) MCPNames {
	return MCPNames{Deployment: mcp, Service: mcp + "-service", HPA: mcp}
}

// objectLabels is the label set of every object of a component and of its pod template, without
// upstream's app label (which the manifests carry where upstream has it).
func objectLabels(instance, component string) map[string]string {
	return map[string]string{
		nameLabel:      nameValue,
		instanceLabel:  instance,
		componentLabel: component,
		PartOfLabel:    PartOfValue,
	}
}

// selectorLabels are the labels a Deployment selects its pods by, and the Service too:
// upstream's, never to change.
func selectorLabels(instance string) map[string]string {
	return map[string]string{appLabel: instance}
}
