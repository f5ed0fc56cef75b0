package engine

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// NetworkFlows are the connections an operand's pods need. A NetworkPolicy made from them
// (NetworkPolicy) denies every other connection to and from the pods: it selects them for
// both ingress and egress, and allows only these.
type NetworkFlows struct {
	// Ingress lists who may connect to which ports of the pods.
	Ingress []Flow
	// Egress lists where the pods may connect to. DNS is always allowed (DNSEgress): every
	// program here resolves names.
	Egress []Flow
	// OpenEgress leaves the pods' egress as it is: the policy selects them for ingress only,
	// and Egress is not used. For servers whose backends are whatever their users configure
	// (providers' URLs, databases, MCP tools), which no list of flows can name.
	OpenEgress bool
}

// Flow is one allowed kind of connection: to Ports, from (ingress) or to (egress) Peers.
// No peers is any address: a webhook called by the API server, whose address no selector
// names, or a backend outside the cluster.
type Flow struct {
	Ports []networkingv1.NetworkPolicyPort
	Peers []networkingv1.NetworkPolicyPeer
}

// TCP is the ports, TCP.
func TCP(ports ...int32) []networkingv1.NetworkPolicyPort {
	out := make([]networkingv1.NetworkPolicyPort, len(ports))
	for i, p := range ports {
		out[i] = networkingv1.NetworkPolicyPort{Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To(intstr.FromInt32(p))}
	}
	return out
}

// NamespaceNameLabel is the label the API server sets on every namespace to its name: a
// namespace selected by name.
const NamespaceNameLabel = "kubernetes.io/metadata.name"

// FromNamespace is every pod of the namespace.
func FromNamespace(name string) networkingv1.NetworkPolicyPeer {
	return networkingv1.NetworkPolicyPeer{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{NamespaceNameLabel: name}}}
}

// DNSEgress is the cluster's DNS, port 53 over UDP and TCP, anywhere: the resolver is a
// Service whose pods (CoreDNS, OpenShift's dns-default), or a node-local cache, differ by
// cluster.
var DNSEgress = Flow{Ports: []networkingv1.NetworkPolicyPort{
	{Protocol: ptr.To(corev1.ProtocolUDP), Port: ptr.To(intstr.FromInt32(53))},
	{Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To(intstr.FromInt32(53))},
}}

// APIServerEgress is the Kubernetes API server. Policies see the connection after the
// Service's address is translated, so the port is the API server's own: 6443 on OpenShift and
// kubeadm clusters, 443 on others. Its address is not selectable (host network, or outside the
// cluster), so any address.
var APIServerEgress = Flow{Ports: TCP(443, 6443)}

// NetworkPolicy makes np the policy of the pods pods selects: it isolates them for ingress and
// egress (ingress only with flows.OpenEgress) and allows flows and DNS only. One object is both
// the default deny and the allows, so it cannot be half applied.
func NetworkPolicy(np *networkingv1.NetworkPolicy, pods *metav1.LabelSelector, flows NetworkFlows) {
	np.Spec = networkingv1.NetworkPolicySpec{
		PodSelector: *pods.DeepCopy(),
		PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
		// Empty, not nil: no rule allows nothing.
		Ingress: []networkingv1.NetworkPolicyIngressRule{},
	}
	for _, f := range flows.Ingress {
		np.Spec.Ingress = append(np.Spec.Ingress, networkingv1.NetworkPolicyIngressRule{Ports: f.Ports, From: f.Peers})
	}
	if flows.OpenEgress {
		return
	}
	np.Spec.PolicyTypes = append(np.Spec.PolicyTypes, networkingv1.PolicyTypeEgress)
	np.Spec.Egress = []networkingv1.NetworkPolicyEgressRule{}
	for _, f := range append([]Flow{DNSEgress}, flows.Egress...) {
		np.Spec.Egress = append(np.Spec.Egress, networkingv1.NetworkPolicyEgressRule{Ports: f.Ports, To: f.Peers})
	}
}

// ContainerPortsByName are the container's ports by their names: a policy opens the ports the
// rendered pod declares, so their numbers are written once, where the container gets them.
func ContainerPortsByName(c *corev1.Container) map[string]int32 {
	ports := make(map[string]int32, len(c.Ports))
	for _, p := range c.Ports {
		if p.Name != "" {
			ports[p.Name] = p.ContainerPort
		}
	}
	return ports
}

// ServingIngress is the ingress of a server's pods, by the names of its container's ports: the
// serving ports from Clients (any address when there are none), the metrics ports from the pods
// of MonitoringNamespace, nothing else. Egress stays open (NetworkFlows.OpenEgress): the
// servers here call backends that their users configure.
type ServingIngress struct {
	// Serving are the ports clients connect to. The container must declare each: a serving
	// port missing is the manifest's defect, and the policy would silently open nothing.
	Serving []string
	// Clients may connect to the serving ports; none is any address (a LoadBalancer's clients,
	// routers on the host network), which no selector names.
	Clients []networkingv1.NetworkPolicyPeer
	// Metrics are the ports Prometheus scrapes. A name the container does not declare opens
	// nothing: the metrics are off.
	Metrics []string
	// MonitoringNamespace is where Prometheus runs.
	MonitoringNamespace string
}

// ServingNetworkPolicy makes np the ingress-only policy of d's pods, with in's ports read from
// the named container of d as rendered (ContainerPortsByName), so a port follows the CR's
// settings without being written again.
func ServingNetworkPolicy(np *networkingv1.NetworkPolicy, d *appsv1.Deployment, container string, in ServingIngress) error {
	c := ContainerOf(d, container)
	if c == nil {
		return fmt.Errorf("NetworkPolicy %s: Deployment %s has no container %q", np.Name, d.Name, container)
	}
	ports := ContainerPortsByName(c)
	flows := NetworkFlows{OpenEgress: true}
	if len(in.Serving) > 0 {
		var serving []int32
		for _, name := range in.Serving {
			port, ok := ports[name]
			if !ok {
				return fmt.Errorf("NetworkPolicy %s: container %q of Deployment %s has no port %q", np.Name, container, d.Name, name)
			}
			serving = append(serving, port)
		}
		flows.Ingress = append(flows.Ingress, Flow{Ports: TCP(serving...), Peers: in.Clients})
	}
	var metrics []int32
	for _, name := range in.Metrics {
		if port, ok := ports[name]; ok {
			metrics = append(metrics, port)
		}
	}
	if len(metrics) > 0 {
		flows.Ingress = append(flows.Ingress, Flow{Ports: TCP(metrics...), Peers: []networkingv1.NetworkPolicyPeer{FromNamespace(in.MonitoringNamespace)}})
	}
	NetworkPolicy(np, d.Spec.Selector, flows)
	return nil
}
