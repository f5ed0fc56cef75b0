package v1alpha1

import (
	operatorv1 "github.com/openshift/api/operator/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	networkpolicyv1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/networkpolicy/v1alpha1"
)

// MCP runs one MCP (Model Context Protocol) server in its namespace: a Deployment named like the
// object, a Service <name>-service and, on request, a HorizontalPodAutoscaler. Gateways whose
// spec.mcp.serviceDiscovery selects it call the server at its status.url.
//
// The rule on spec.hpa.config.scaleTargetRef sits at the root, where CRD validation ratcheting
// does not reach, so it ratchets itself: it passes when scaleTargetRef is unchanged. Every other
// rule is ratcheted by the API server (Kubernetes 1.30+): an object stored before the rule
// existed stays updatable while the offending field is unchanged.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=mcps,scope=Namespaced,singular=mcp,categories=inference-gateway
// +kubebuilder:storageversion
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="URL",type=string,JSONPath=`.status.url`,description="URL of the MCP server"
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Available")].status`,description="Whether the server has a ready replica"
// +kubebuilder:printcolumn:name="AGE",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="size(self.metadata.name) <= 55 && !self.metadata.name.contains('.')",message="metadata.name must have at most 55 characters and no dots: it names the MCP server's Service, <name>-service, a DNS label of at most 63"
// +kubebuilder:validation:XValidation:rule="!has(self.spec) || !has(self.spec.hpa) || !has(self.spec.hpa.config) || !has(self.spec.hpa.config.scaleTargetRef) || (self.spec.hpa.config.scaleTargetRef.kind == 'Deployment' && self.spec.hpa.config.scaleTargetRef.name == self.metadata.name && (!has(self.spec.hpa.config.scaleTargetRef.apiVersion) || self.spec.hpa.config.scaleTargetRef.apiVersion == 'apps/v1')) || (oldSelf.hasValue() && has(oldSelf.value().spec) && has(oldSelf.value().spec.hpa) && has(oldSelf.value().spec.hpa.config) && has(oldSelf.value().spec.hpa.config.scaleTargetRef) && oldSelf.value().spec.hpa.config.scaleTargetRef == self.spec.hpa.config.scaleTargetRef)",optionalOldSelf=true,fieldPath=".spec.hpa.config.scaleTargetRef",message="spec.hpa.config.scaleTargetRef can only name this MCP's own Deployment (apps/v1 Deployment named like the MCP), which is what the HorizontalPodAutoscaler always scales: remove scaleTargetRef"
type MCP struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the MCP server to run.
	// +optional
	Spec MCPSpec `json:"spec,omitempty"`

	// status is written by the operator: conditions and the server's URL.
	// +optional
	Status MCPStatus `json:"status,omitempty"`
}

// MCPSpec is the desired state of one MCP server.
type MCPSpec struct {
	// replicas is the number of server pods. Default 1. While hpa.enabled is true the
	// HorizontalPodAutoscaler sets the number instead.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	Replicas *int32 `json:"replicas,omitempty"`

	// image is the server's container image. Default node:lts (with command and args running an
	// npm MCP server package, for example).
	// +optional
	// +kubebuilder:default="node:lts"
	// +kubebuilder:validation:MaxLength=1024
	Image string `json:"image,omitempty"`

	// server is how the server runs and where it listens.
	// +optional
	Server *MCPServerSpec `json:"server,omitempty"`

	// hpa scales the server's Deployment with a HorizontalPodAutoscaler.
	// +optional
	HPA *HPASpec `json:"hpa,omitempty"`

	// networkPolicy isolates the server's pods for ingress: its server port from the peers
	// named (any namespace by default). The Gateways and Orchestrators that call the server's
	// tools connect to that port, so a from that is set must select them. Unset, none is made,
	// as upstream makes none.
	// +optional
	NetworkPolicy *networkpolicyv1alpha1.ServingNetworkPolicy `json:"networkPolicy,omitempty"`
}

// DefaultMCPServerTimeout is the only accepted spec.server.timeout of an MCP: upstream's
// default, which every stored object carries.
const DefaultMCPServerTimeout = "30s"

// MCPServerSpec is the MCP server's process and endpoint.
//
// +kubebuilder:validation:XValidation:rule="!has(self.timeout) || self.timeout == '30s'",fieldPath=".timeout",message="spec.server.timeout is not supported: an MCP server's timeouts are settings of its image (pass them with command or args), and a Gateway's MCP client timeouts are its spec.mcp.timeouts; remove timeout"
// +kubebuilder:validation:XValidation:rule=`!has(self.path) || self.path.matches("^(/([-A-Za-z0-9._~!$&'()*+;=:@]|%([2-689A-Fa-f][0-9A-Fa-f]|7[0-9A-Ea-e]))*)+$")`,fieldPath=".path",message="spec.server.path must be a URL path: / followed by letters, digits, - . _ ~ ! $ & ' ( ) * + ; = : @ / and percent-encoded bytes other than control characters (%00-%1F, %7F); no comma, #, ?, space or other whitespace, since the MCP's URL is joined into the comma-separated server lists of the Gateways that discover it"
type MCPServerSpec struct {
	// port the server listens on: the container port named http, the Service's port and
	// status.url's. Default 8080.
	// +optional
	// +kubebuilder:default=8080
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port int32 `json:"port,omitempty"`

	// path the server serves MCP on, appended to status.url: a URL path (RFC 3986) without a
	// comma, query or fragment, since discovering Gateways join the URL into MCP_SERVERS, a
	// comma-separated list. Default /mcp.
	// +optional
	// +kubebuilder:default="/mcp"
	// +kubebuilder:validation:MaxLength=2048
	Path string `json:"path,omitempty"`

	// command replaces the image's entrypoint.
	// +optional
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=4096
	Command []string `json:"command,omitempty"`

	// args are the arguments of command (or of the image's entrypoint).
	// +optional
	// +kubebuilder:validation:MaxItems=256
	// +kubebuilder:validation:items:MaxLength=4096
	Args []string `json:"args,omitempty"`

	// timeout is accepted for upstream's YAML, which defaults it, but only with its default
	// value 30s: no setting of an arbitrary server image corresponds to it.
	// +optional
	// +kubebuilder:default="30s"
	// +kubebuilder:validation:MaxLength=32
	Timeout string `json:"timeout,omitempty"`

	// tls makes the server's URL https and mounts a TLS Secret into its pods at /etc/tls; the
	// server must be told (with command or args) to serve HTTPS from there.
	// +optional
	TLS *MCPTLSConfig `json:"tls,omitempty"`
}

// MCPTLSConfig is HTTPS for an MCP server.
type MCPTLSConfig struct {
	// enabled mounts secretName at /etc/tls and makes status.url https. Default true.
	// +optional
	// +kubebuilder:default=true
	Enabled bool `json:"enabled,omitempty"`

	// secretName is a kubernetes.io/tls Secret in the MCP's namespace.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	SecretName string `json:"secretName"`
}

// MCPStatus is what the operator observed and did.
type MCPStatus struct {
	// observedGeneration is the metadata.generation the operator last acted on.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions: Available (the server has a ready replica), Progressing (a rollout is under
	// way) and Degraded (the operator could not apply the spec).
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// ready is true when the Available condition is.
	// +optional
	Ready bool `json:"ready,omitempty"`

	// url is the server's MCP endpoint in the cluster:
	// http(s)://<name>-service.<namespace>.svc.cluster.local:<port><path>. Gateways use it.
	// +optional
	URL string `json:"url,omitempty"`

	// generations holds the generation of each Deployment the operator last applied. A
	// Deployment whose generation differs was edited by someone else, and the operator applies
	// it again to revert the edit.
	// +optional
	// +listType=map
	// +listMapKey=group
	// +listMapKey=resource
	// +listMapKey=namespace
	// +listMapKey=name
	Generations []operatorv1.GenerationStatus `json:"generations,omitempty"`
}

// MCPList is a list of MCP.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type MCPList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the MCPs.
	Items []MCP `json:"items"`
}
