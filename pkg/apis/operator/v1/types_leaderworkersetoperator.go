package v1

import (
	operatorv1 "github.com/openshift/api/operator/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// SingletonName is the only name a LeaderWorkerSetOperator may have: there is one LeaderWorkerSet
// controller per cluster.
const SingletonName = "cluster"

// LeaderWorkerSetOperator asks llm-infra-operator to install and manage the LeaderWorkerSet
// controller (sigs.k8s.io/lws), which runs multi-host inference workloads as groups of a leader
// pod and its worker pods. It is a cluster-wide singleton that must be named "cluster".
//
// +genclient
// +genclient:nonNamespaced
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=leaderworkersetoperators,scope=Cluster,singular=leaderworkersetoperator
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Management",type=string,JSONPath=`.spec.managementState`
// +kubebuilder:printcolumn:name="Available",type=string,JSONPath=`.status.conditions[?(@.type=="Available")].status`
// +kubebuilder:printcolumn:name="Progressing",type=string,JSONPath=`.status.conditions[?(@.type=="Progressing")].status`
// +kubebuilder:printcolumn:name="Degraded",type=string,JSONPath=`.status.conditions[?(@.type=="Degraded")].status`
// +kubebuilder:printcolumn:name="Certificates",type=string,JSONPath=`.status.conditions[?(@.type=="ServingCertificates")].reason`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="self.metadata.name == 'cluster'",message="LeaderWorkerSetOperator is a singleton: its name must be 'cluster'"
type LeaderWorkerSetOperator struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec holds the administrator's wishes for the LeaderWorkerSet controller: managementState
	// (required; Managed installs and reconciles it, Unmanaged leaves it alone, Removed deletes it),
	// logLevel for the controller, operatorLogLevel for the operator itself, nodePlacement, and
	// where the controller's serving certificates come from (certificates).
	// +required
	Spec LeaderWorkerSetOperatorSpec `json:"spec"`

	// status reports what the operator observed and did.
	// +optional
	Status LeaderWorkerSetOperatorStatus `json:"status,omitempty"`
}

// LeaderWorkerSetOperatorSpec is the desired state of the LeaderWorkerSet controller.
//
// +kubebuilder:validation:XValidation:rule="has(self.managementState) && self.managementState in ['Managed', 'Unmanaged', 'Force', 'Removed']",message="spec.managementState is required and must be one of Managed, Unmanaged, Force or Removed"
type LeaderWorkerSetOperatorSpec struct {
	// OperatorSpec carries managementState, logLevel (the controller's verbosity: Normal, Debug,
	// Trace or TraceAll) and operatorLogLevel (the operator's own verbosity).
	operatorv1.OperatorSpec `json:",inline"`

	// nodePlacement controls where the LeaderWorkerSet controller's pods run. Unset, the
	// controller keeps upstream's placement (no node selector, no tolerations).
	// +optional
	NodePlacement *NodePlacement `json:"nodePlacement,omitempty"`

	// certificates chooses where the LeaderWorkerSet controller's webhook and metrics serving
	// certificates, and the CA bundle the API server trusts them with, come from. Unset is
	// source Automatic.
	// +optional
	Certificates *Certificates `json:"certificates,omitempty"`

	// networkPolicy isolates the controller's pods with a NetworkPolicy. Unset, none is made,
	// as upstream makes none.
	// +optional
	NetworkPolicy *NetworkPolicy `json:"networkPolicy,omitempty"`
}

// NetworkPolicy isolates the controller's pods: a NetworkPolicy "lws-controller-manager" in the
// operator's namespace denies every connection to and from them except the webhooks (port 9443,
// from any address: the API server calls them and its address is not selectable), the metrics
// (port 8443, from the pods of monitoringNamespace), the Kubernetes API server (ports 443 and
// 6443, any address) and DNS (port 53, UDP and TCP). Probes come from the node, which policies
// do not restrict.
type NetworkPolicy struct {
	// enabled makes the NetworkPolicy; false (the default) deletes the one the operator made.
	// +optional
	Enabled bool `json:"enabled,omitempty"`

	// monitoringNamespace is the namespace whose pods may scrape the controller's metrics.
	// Default openshift-monitoring, where OpenShift's platform Prometheus runs.
	// +optional
	// +kubebuilder:default=openshift-monitoring
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	MonitoringNamespace string `json:"monitoringNamespace,omitempty"`
}

// DefaultMonitoringNamespace is the namespace of OpenShift's platform Prometheus.
const DefaultMonitoringNamespace = "openshift-monitoring"

// NetworkPolicyEnabled says whether the spec asks for the controller's NetworkPolicy.
func (s *LeaderWorkerSetOperatorSpec) NetworkPolicyEnabled() bool {
	return s.NetworkPolicy != nil && s.NetworkPolicy.Enabled
}

// MonitoringNamespaceOrDefault is the namespace allowed to scrape the controller's metrics.
func (p *NetworkPolicy) MonitoringNamespaceOrDefault() string {
	if p == nil || p.MonitoringNamespace == "" {
		return DefaultMonitoringNamespace
	}
	return p.MonitoringNamespace
}

// CertificateSource names where the controller's serving certificates come from.
//
// +kubebuilder:validation:Enum=Automatic;CertManager;ServiceCA;Operator
type CertificateSource string

const (
	// CertificateSourceAutomatic picks CertManager when cert-manager's CRDs are established,
	// else ServiceCA when the cluster runs OpenShift's service CA, else Operator.
	CertificateSourceAutomatic CertificateSource = "Automatic"
	// CertificateSourceCertManager has cert-manager issue the certificates (a self-signed Issuer
	// and two Certificates) and its cainjector inject the CA bundle.
	CertificateSourceCertManager CertificateSource = "CertManager"
	// CertificateSourceServiceCA has OpenShift's service CA issue the certificates (the
	// service.beta.openshift.io/serving-cert-secret-name annotation on the Services) and inject
	// its CA bundle (service.beta.openshift.io/inject-cabundle).
	CertificateSourceServiceCA CertificateSource = "ServiceCA"
	// CertificateSourceOperator has the operator keep a CA of its own and issue and rotate the
	// certificates itself (library-go's certrotation), and inject the CA bundle itself.
	CertificateSourceOperator CertificateSource = "Operator"
)

// Certificates chooses the source of the controller's serving certificates.
type Certificates struct {
	// source is where the webhook and metrics serving certificates come from: Automatic (the
	// default: CertManager when cert-manager is installed, else ServiceCA on OpenShift, else
	// Operator), CertManager, ServiceCA (OpenShift only) or Operator (the operator's own CA,
	// rotated before expiry). Changing it rolls the controller onto certificates of the new
	// source; the webhooks trust both CAs until the rollout is complete, so they keep answering,
	// and the old source's objects are then removed. The source in use is the reason of the
	// ServingCertificates condition.
	// +kubebuilder:default=Automatic
	// +optional
	Source CertificateSource `json:"source,omitempty"`
}

// SourceOrDefault is the chosen source, Automatic when unset.
func (c *Certificates) SourceOrDefault() CertificateSource {
	if c == nil || c.Source == "" {
		return CertificateSourceAutomatic
	}
	return c.Source
}

// NodePlacement selects the nodes the controller's pods may run on.
//
// +kubebuilder:validation:XValidation:rule="!has(self.tolerations) || self.tolerations.all(t, !has(t.operator) || t.operator in ['Exists', 'Equal'])",message="nodePlacement.tolerations[].operator must be Exists or Equal"
// +kubebuilder:validation:XValidation:rule="!has(self.tolerations) || self.tolerations.all(t, !has(t.effect) || size(t.effect) == 0 || t.effect in ['NoSchedule', 'PreferNoSchedule', 'NoExecute'])",message="nodePlacement.tolerations[].effect must be NoSchedule, PreferNoSchedule or NoExecute"
// +kubebuilder:validation:XValidation:rule="!has(self.tolerations) || self.tolerations.all(t, !has(t.tolerationSeconds) || (has(t.effect) && t.effect == 'NoExecute'))",message="nodePlacement.tolerations[].tolerationSeconds needs effect NoExecute"
// +kubebuilder:validation:XValidation:rule="!has(self.tolerations) || self.tolerations.all(t, !has(t.operator) || t.operator != 'Exists' || !has(t.value) || size(t.value) == 0)",message="nodePlacement.tolerations[].value must be empty when operator is Exists"
// +kubebuilder:validation:XValidation:rule="!has(self.tolerations) || self.tolerations.all(t, (has(t.key) && size(t.key) > 0) || (has(t.operator) && t.operator == 'Exists'))",message="nodePlacement.tolerations[] without a key must have operator Exists (it then tolerates every taint)"
// +kubebuilder:validation:XValidation:rule="!has(self.tolerations) || self.tolerations.all(t, !has(t.key) || size(t.key) == 0 || (t.key.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$') && t.key.matches('^([^/]{1,253}/)?[^/]{1,63}$')))",message="nodePlacement.tolerations[].key must be a qualified name, as a taint's key is: an optional DNS subdomain of at most 253 characters and '/', then at most 63 letters, digits, '-', '_' or '.' that start and end with a letter or digit (example.com/gpu)"
// +kubebuilder:validation:XValidation:rule="!has(self.tolerations) || self.tolerations.all(t, !has(t.value) || t.value.matches('^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$'))",message="nodePlacement.tolerations[].value must be a label value, as a taint's value is: letters, digits, '-', '_' or '.' that start and end with a letter or digit, or empty"
// +kubebuilder:validation:XValidation:rule="!has(self.nodeSelector) || self.nodeSelector.all(k, k.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$') && k.matches('^([^/]{1,253}/)?[^/]{1,63}$') && self.nodeSelector[k].matches('^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$'))",message="nodePlacement.nodeSelector must hold node labels: each key a qualified name (an optional DNS subdomain of at most 253 characters and '/', then at most 63 letters, digits, '-', '_' or '.' that start and end with a letter or digit), each value letters, digits, '-', '_' or '.' that start and end with a letter or digit, or empty"
type NodePlacement struct {
	// nodeSelector, when it has at least one entry, replaces the controller pod's node selector:
	// the pod runs only on nodes carrying every one of these labels. An empty map leaves
	// upstream's node selector in place.
	// +optional
	// +kubebuilder:validation:MaxProperties=64
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`

	// tolerations, when set (even to an empty list), replace the controller pod's tolerations,
	// for example to let it run on tainted infrastructure nodes. Unset leaves upstream's
	// tolerations in place.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`
}

// LeaderWorkerSetOperatorStatus is what the operator observed and did.
type LeaderWorkerSetOperatorStatus struct {
	// OperatorStatus carries conditions (Available, Progressing, Degraded and per-controller
	// ones), observedGeneration, readyReplicas and generations of the managed workloads.
	operatorv1.OperatorStatus `json:",inline"`
}

// LeaderWorkerSetOperatorList is a list of LeaderWorkerSetOperator.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type LeaderWorkerSetOperatorList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the LeaderWorkerSetOperators.
	Items []LeaderWorkerSetOperator `json:"items"`
}
