package enginetest

import (
	"fmt"
	"net/netip"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Endpoint is one end of a connection in a NetworkPolicy evaluation: a pod (its namespace, the
// namespace's labels, its labels and address) or, with no namespace, an address outside the
// cluster (the API server on the host network, a provider on the internet).
type Endpoint struct {
	Namespace       string
	NamespaceLabels map[string]string
	Labels          map[string]string
	IP              string
}

// IsPod says whether the endpoint is a pod, which policies can select.
func (e Endpoint) IsPod() bool { return e.Namespace != "" }

// Allowed says whether NetworkPolicies let from connect to to on port over protocol, as the
// Kubernetes API defines them (networking.k8s.io/v1, "Network Policies"): the connection needs
// the egress of from and the ingress of to. A pod that no policy of its namespace selects for a
// direction is not isolated for it; an isolated pod allows what the union of the rules of the
// policies selecting it allows. Named ports and network plugins' extensions are out of scope:
// a named port is an error. The real-pod agent enforces no policy, so the operands' policies
// are tested with this, rendered, flow by flow.
//
// No library of the module cache or the proxy evaluates policies: sigs.k8s.io/network-policy-api
// holds the AdminNetworkPolicy types only (its policy-assistant is not served), and Kubernetes'
// e2e netpol model probes real pods.
func Allowed(policies []*networkingv1.NetworkPolicy, from, to Endpoint, protocol corev1.Protocol, port int32) (bool, error) {
	if from.IsPod() {
		ok, err := allowedBy(policies, from, networkingv1.PolicyTypeEgress, to, protocol, port)
		if err != nil || !ok {
			return false, err
		}
	}
	if to.IsPod() {
		return allowedBy(policies, to, networkingv1.PolicyTypeIngress, from, protocol, port)
	}
	return true, nil
}

// allowedBy says whether the policies selecting pod for direction allow the connection with
// peer.
func allowedBy(policies []*networkingv1.NetworkPolicy, pod Endpoint, direction networkingv1.PolicyType, peer Endpoint, protocol corev1.Protocol, port int32) (bool, error) {
	isolated := false
	for _, np := range policies {
		if np.Namespace != pod.Namespace || !hasPolicyType(np, direction) {
			continue
		}
		selects, err := matches(&np.Spec.PodSelector, pod.Labels)
		if err != nil {
			return false, err
		}
		if !selects {
			continue
		}
		isolated = true
		var rules []policyRule
		if direction == networkingv1.PolicyTypeIngress {
			for _, r := range np.Spec.Ingress {
				rules = append(rules, policyRule{r.Ports, r.From})
			}
		} else {
			for _, r := range np.Spec.Egress {
				rules = append(rules, policyRule{r.Ports, r.To})
			}
		}
		for _, r := range rules {
			portOK, err := portMatches(r.ports, protocol, port)
			if err != nil {
				return false, fmt.Errorf("%s/%s: %w", np.Namespace, np.Name, err)
			}
			if !portOK {
				continue
			}
			peerOK, err := peersMatch(r.peers, np.Namespace, peer)
			if err != nil {
				return false, fmt.Errorf("%s/%s: %w", np.Namespace, np.Name, err)
			}
			if peerOK {
				return true, nil
			}
		}
	}
	return !isolated, nil
}

// policyRule is an ingress or egress rule: its ports and its peers (from or to).
type policyRule struct {
	ports []networkingv1.NetworkPolicyPort
	peers []networkingv1.NetworkPolicyPeer
}

// hasPolicyType: policyTypes, or, when it is empty, Ingress always and Egress when the policy
// has egress rules (the API's defaulting).
func hasPolicyType(np *networkingv1.NetworkPolicy, t networkingv1.PolicyType) bool {
	if len(np.Spec.PolicyTypes) == 0 {
		return t == networkingv1.PolicyTypeIngress || len(np.Spec.Egress) > 0
	}
	for _, pt := range np.Spec.PolicyTypes {
		if pt == t {
			return true
		}
	}
	return false
}

func matches(selector *metav1.LabelSelector, set map[string]string) (bool, error) {
	s, err := metav1.LabelSelectorAsSelector(selector)
	if err != nil {
		return false, err
	}
	return s.Matches(labels.Set(set)), nil
}

// portMatches: no ports is every port; a port without a number is every port of its protocol
// (TCP when unset); endPort makes a range.
func portMatches(ports []networkingv1.NetworkPolicyPort, protocol corev1.Protocol, port int32) (bool, error) {
	if len(ports) == 0 {
		return true, nil
	}
	for _, p := range ports {
		proto := corev1.ProtocolTCP
		if p.Protocol != nil {
			proto = *p.Protocol
		}
		if proto != protocol {
			continue
		}
		if p.Port == nil {
			return true, nil
		}
		if p.Port.StrVal != "" {
			return false, fmt.Errorf("named port %q: not evaluated", p.Port.StrVal)
		}
		first, last := p.Port.IntVal, p.Port.IntVal
		if p.EndPort != nil {
			last = *p.EndPort
		}
		if port >= first && port <= last {
			return true, nil
		}
	}
	return false, nil
}

// peersMatch: no peers is every peer; a peer with only a podSelector selects pods of the
// policy's namespace, with a namespaceSelector pods of the namespaces it selects, and an
// ipBlock addresses (pods' too) in its CIDR and outside its exceptions.
func peersMatch(peers []networkingv1.NetworkPolicyPeer, namespace string, peer Endpoint) (bool, error) {
	if len(peers) == 0 {
		return true, nil
	}
	for _, p := range peers {
		if p.IPBlock != nil {
			ok, err := inBlock(p.IPBlock, peer.IP)
			if err != nil {
				return false, err
			}
			if ok {
				return true, nil
			}
			continue
		}
		if !peer.IsPod() {
			continue
		}
		if p.NamespaceSelector != nil {
			ok, err := matches(p.NamespaceSelector, peer.NamespaceLabels)
			if err != nil {
				return false, err
			}
			if !ok {
				continue
			}
		} else if peer.Namespace != namespace {
			continue
		}
		if p.PodSelector != nil {
			ok, err := matches(p.PodSelector, peer.Labels)
			if err != nil {
				return false, err
			}
			if !ok {
				continue
			}
		}
		return true, nil
	}
	return false, nil
}

func inBlock(block *networkingv1.IPBlock, ip string) (bool, error) {
	if ip == "" {
		return false, nil
	}
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return false, err
	}
	cidr, err := netip.ParsePrefix(block.CIDR)
	if err != nil {
		return false, err
	}
	if !cidr.Contains(addr) {
		return false, nil
	}
	for _, e := range block.Except {
		except, err := netip.ParsePrefix(e)
		if err != nil {
			return false, err
		}
		if except.Contains(addr) {
			return false, nil
		}
	}
	return true, nil
}

// TCPFlow is one row of a flow table: a TCP connection, named for the test's output, and
// whether the policies allow it.
type TCPFlow struct {
	Name     string
	From, To Endpoint
	Port     int32
	Want     bool
}

// ExpectTCPFlows checks each row against the policies (Allowed), one subtest per row.
func ExpectTCPFlows(t *testing.T, policies []*networkingv1.NetworkPolicy, flows []TCPFlow) {
	t.Helper()
	for _, f := range flows {
		t.Run(f.Name, func(t *testing.T) {
			got, err := Allowed(policies, f.From, f.To, corev1.ProtocolTCP, f.Port)
			if err != nil {
				t.Fatal(err)
			}
			if got != f.Want {
				t.Errorf("allowed = %v, want %v", got, f.Want)
			}
		})
	}
}
