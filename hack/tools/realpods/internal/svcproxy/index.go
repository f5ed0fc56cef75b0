package svcproxy

import (
	"net"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	corev1listers "k8s.io/client-go/listers/core/v1"
)

// Index answers questions about Services from the informers' caches; it is the DNS server's
// Records too.
type Index struct {
	Services  corev1listers.ServiceLister
	Pods      corev1listers.PodLister
	APIServer string // host address of the API server, for the `kubernetes` Service
}

// Backends of a Service port: the host address it stands for, or its pod endpoints.
func (x *Index) Backends(svc *corev1.Service, sp corev1.ServicePort) ([]Backend, error) {
	if b, ok, err := HostBackend(svc, sp, x.APIServer); err != nil || ok {
		if err != nil {
			return nil, err
		}
		return []Backend{b}, nil
	}
	pods, err := x.Pods.Pods(svc.Namespace).List(labels.Everything())
	if err != nil {
		return nil, err
	}
	return PodEndpoints(svc, sp, pods), nil
}

// Service is the DNS answer for <name>.<namespace>.svc.
func (x *Index) Service(namespace, name string) ([]net.IP, bool) {
	svc, err := x.Services.Services(namespace).Get(name)
	if err != nil {
		return nil, false
	}
	if HasClusterIP(svc) {
		return []net.IP{net.ParseIP(svc.Spec.ClusterIP)}, true
	}
	if svc.Spec.ClusterIP != corev1.ClusterIPNone {
		return nil, true
	}
	pods, err := x.Pods.Pods(namespace).List(labels.Everything())
	if err != nil {
		return nil, true
	}
	var ips []net.IP
	for _, p := range SelectedPods(svc, pods) {
		ips = append(ips, net.ParseIP(p.Status.PodIP))
	}
	return ips, true
}

// PodHost is the DNS answer for <hostname>.<subdomain>.<namespace>.svc: a pod with that
// hostname and subdomain, when a headless Service of the subdomain's name exists.
func (x *Index) PodHost(namespace, subdomain, hostname string) (net.IP, bool) {
	if _, err := x.Services.Services(namespace).Get(subdomain); err != nil {
		return nil, false
	}
	pods, err := x.Pods.Pods(namespace).List(labels.Everything())
	if err != nil {
		return nil, false
	}
	for _, p := range pods {
		if p.Spec.Hostname == hostname && p.Spec.Subdomain == subdomain && p.Status.PodIP != "" && p.DeletionTimestamp == nil {
			return net.ParseIP(p.Status.PodIP), true
		}
	}
	return nil, false
}
