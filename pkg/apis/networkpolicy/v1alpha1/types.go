package v1alpha1

import (
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	operatorv1 "github.com/llm-infra/llm-infra-operator/pkg/apis/operator/v1"
)

// ServingNetworkPolicy isolates a server's pods for ingress with a NetworkPolicy per
// Deployment: connections to its serving port are allowed from the peers of from (any address
// when from is unset), to its metrics port from the pods of monitoringNamespace, and no other
// connection reaches the pods. Egress is left open: the providers', databases', object stores'
// and MCP tools' addresses are whatever the configuration names, and a policy that guessed them
// would cut the server off. Probes come from the node, which policies do not restrict.
type ServingNetworkPolicy struct {
	// enabled makes the NetworkPolicy; false (the default) deletes the one the operator made.
	// +optional
	Enabled bool `json:"enabled,omitempty"`

	// from are the peers allowed to connect to the serving port; a connection from a pod any of
	// them selects is allowed. Unset, pods of every namespace may connect (and addresses outside
	// the cluster, through an Ingress or load balancer). A peer with only a podSelector selects
	// pods of the CR's own namespace.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	From []NetworkPolicyPeer `json:"from,omitempty"`

	// monitoringNamespace is the namespace whose pods may scrape the server's metrics.
	// Default openshift-monitoring, where OpenShift's platform Prometheus runs.
	// +optional
	// +kubebuilder:default=openshift-monitoring
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	MonitoringNamespace string `json:"monitoringNamespace,omitempty"`
}

// NetworkPolicyPeer is a networking.k8s.io/v1 NetworkPolicyPeer without ipBlock: the pods
// podSelector selects in the namespaces namespaceSelector selects (the CR's own namespace when
// namespaceSelector is unset, every pod of them when podSelector is unset).
//
// +kubebuilder:validation:XValidation:rule="has(self.namespaceSelector) || has(self.podSelector)",message="a peer of spec.networkPolicy.from needs a namespaceSelector, a podSelector or both; an empty selector ({}) selects every namespace or every pod"
type NetworkPolicyPeer struct {
	// namespaceSelector selects namespaces by their labels (kubernetes.io/metadata.name is a
	// namespace's name); {} selects every namespace.
	// +optional
	NamespaceSelector *metav1.LabelSelector `json:"namespaceSelector,omitempty"`

	// podSelector selects pods by their labels; {} selects every pod.
	// +optional
	PodSelector *metav1.LabelSelector `json:"podSelector,omitempty"`
}

// IsEnabled says whether p asks for the NetworkPolicy.
func (p *ServingNetworkPolicy) IsEnabled() bool { return p != nil && p.Enabled }

// Peers are from as NetworkPolicy peers; none (any address) when from is unset.
func (p *ServingNetworkPolicy) Peers() []networkingv1.NetworkPolicyPeer {
	if p == nil || len(p.From) == 0 {
		return nil
	}
	out := make([]networkingv1.NetworkPolicyPeer, len(p.From))
	for i, peer := range p.From {
		out[i] = networkingv1.NetworkPolicyPeer{NamespaceSelector: peer.NamespaceSelector.DeepCopy(), PodSelector: peer.PodSelector.DeepCopy()}
	}
	return out
}

// MonitoringNamespaceOrDefault is the namespace allowed to scrape the server's metrics.
func (p *ServingNetworkPolicy) MonitoringNamespaceOrDefault() string {
	if p == nil || p.MonitoringNamespace == "" {
		return operatorv1.DefaultMonitoringNamespace
	}
	return p.MonitoringNamespace
}
