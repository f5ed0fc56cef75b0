// Package svcproxy makes Services work on loopback: it answers which backends a Service port
// has (pods selected by the Service and Ready, as the EndpointSlice controller would list them,
// or a host address for the few Services that stand for something on the host), and proxies TCP
// connections for every ClusterIP:port (in the hub, for the pods, and on the host, for tests and
// people), every NodePort (on the node address) and every forwarded host port.
//
// Endpoints are computed from the pods here rather than read from EndpointSlices: the API server
// refuses loopback addresses in EndpointSlices ("may not be in the loopback range"), so
// kube-controller-manager cannot write slices for pods whose IPs are on loopback.
package svcproxy

import (
	"fmt"
	"net"
	"sort"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// HostAddressAnnotation on a Service without a selector sends its ports to a loopback address of
// the host (port = the port's targetPort, or its port): how pods reach a program that runs on
// the host, such as a database started beside the cluster.
const HostAddressAnnotation = "realpods.llm-infra.io/host-address"

// Backend is one destination of a Service port.
type Backend struct {
	Addr string // ip:port
	// Host is true for a host address (dialled from the host), false for a pod (from the hub).
	Host bool
}

// PodEndpoints lists the pod backends of a Service port: pods of the Service's namespace that
// its selector matches, with an IP, not terminating and Ready (or any, with
// publishNotReadyAddresses), each at the port's targetPort (a named targetPort is looked up in
// the pod's container ports of the same protocol). Sorted by address.
func PodEndpoints(svc *corev1.Service, sp corev1.ServicePort, pods []*corev1.Pod) []Backend {
	if len(svc.Spec.Selector) == 0 {
		return nil
	}
	sel := labels.SelectorFromSet(svc.Spec.Selector)
	var out []Backend
	for _, p := range SelectedPods(svc, pods) {
		if !sel.Matches(labels.Set(p.Labels)) {
			continue
		}
		port, ok := targetPort(sp, p)
		if !ok {
			continue
		}
		out = append(out, Backend{Addr: net.JoinHostPort(p.Status.PodIP, strconv.Itoa(port))})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Addr < out[j].Addr })
	return out
}

// SelectedPods are the pods a Service's endpoints come from (see PodEndpoints).
func SelectedPods(svc *corev1.Service, pods []*corev1.Pod) []*corev1.Pod {
	if len(svc.Spec.Selector) == 0 {
		return nil
	}
	sel := labels.SelectorFromSet(svc.Spec.Selector)
	var out []*corev1.Pod
	for _, p := range pods {
		if p.Namespace != svc.Namespace || !sel.Matches(labels.Set(p.Labels)) {
			continue
		}
		if p.Status.PodIP == "" || p.DeletionTimestamp != nil {
			continue
		}
		if !svc.Spec.PublishNotReadyAddresses && !PodReady(p) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// PodReady is the pod's Ready condition.
func PodReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func targetPort(sp corev1.ServicePort, p *corev1.Pod) (int, bool) {
	tp := sp.TargetPort
	switch {
	case tp.Type == intstr.String && tp.StrVal != "":
		proto := sp.Protocol
		if proto == "" {
			proto = corev1.ProtocolTCP
		}
		for _, c := range p.Spec.Containers {
			for _, cp := range c.Ports {
				cpProto := cp.Protocol
				if cpProto == "" {
					cpProto = corev1.ProtocolTCP
				}
				if cp.Name == tp.StrVal && cpProto == proto {
					return int(cp.ContainerPort), true
				}
			}
		}
		return 0, false
	case tp.Type == intstr.Int && tp.IntVal != 0:
		return int(tp.IntVal), true
	}
	return int(sp.Port), true
}

// HostBackend is the host address a Service port goes to, if the Service stands for something
// on the host: the `kubernetes` Service (the API server, at apiserver) or a selector-less
// Service with HostAddressAnnotation. The address must be on loopback.
func HostBackend(svc *corev1.Service, sp corev1.ServicePort, apiserver string) (Backend, bool, error) {
	if svc.Namespace == "default" && svc.Name == "kubernetes" {
		return Backend{Addr: apiserver, Host: true}, apiserver != "", nil
	}
	addr, ok := svc.Annotations[HostAddressAnnotation]
	if !ok || len(svc.Spec.Selector) > 0 {
		return Backend{}, false, nil
	}
	ip := net.ParseIP(addr)
	if ip == nil || !ip.IsLoopback() {
		return Backend{}, false, fmt.Errorf("service %s/%s: %s %q is not a loopback address", svc.Namespace, svc.Name, HostAddressAnnotation, addr)
	}
	port := int(sp.Port)
	if sp.TargetPort.Type == intstr.Int && sp.TargetPort.IntVal != 0 {
		port = int(sp.TargetPort.IntVal)
	}
	return Backend{Addr: net.JoinHostPort(addr, strconv.Itoa(port)), Host: true}, true, nil
}

// HasClusterIP says whether a Service gets listeners on its ClusterIP.
func HasClusterIP(svc *corev1.Service) bool {
	ip := svc.Spec.ClusterIP
	return ip != "" && ip != corev1.ClusterIPNone && svc.Spec.Type != corev1.ServiceTypeExternalName
}
