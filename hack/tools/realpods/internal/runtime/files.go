package runtime

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// ResolvConf is the pod's /etc/resolv.conf: the cluster's DNS server and the kubelet's search
// list (ClusterFirst), plus spec.dnsConfig.
func ResolvConf(pod *corev1.Pod, nameserver, domain string) string {
	search := []string{pod.Namespace + ".svc." + domain, "svc." + domain, domain}
	servers := []string{nameserver}
	options := []string{"ndots:5"}
	if pod.Spec.DNSPolicy == corev1.DNSNone {
		search, servers, options = nil, nil, nil
	}
	if c := pod.Spec.DNSConfig; c != nil {
		search = append(search, c.Searches...)
		servers = append(servers, c.Nameservers...)
		for _, o := range c.Options {
			if o.Value != nil {
				options = append(options, o.Name+":"+*o.Value)
			} else {
				options = append(options, o.Name)
			}
		}
	}
	var b strings.Builder
	if len(search) > 0 {
		fmt.Fprintf(&b, "search %s\n", strings.Join(search, " "))
	}
	for _, s := range servers {
		fmt.Fprintf(&b, "nameserver %s\n", s)
	}
	if len(options) > 0 {
		fmt.Fprintf(&b, "options %s\n", strings.Join(options, " "))
	}
	return b.String()
}

// Hostname is the pod's hostname: spec.hostname, else its name (cut to 63 characters).
func Hostname(pod *corev1.Pod) string {
	h := pod.Spec.Hostname
	if h == "" {
		h = pod.Name
	}
	if len(h) > 63 {
		h = strings.TrimRight(h[:63], "-.")
	}
	return h
}

// HostsFile is the pod's /etc/hosts, as the kubelet writes it.
func HostsFile(pod *corev1.Pod, podIP, domain string) string {
	var b strings.Builder
	b.WriteString("# Kubernetes-managed hosts file (realpods).\n")
	b.WriteString("127.0.0.1\tlocalhost\n")
	b.WriteString("::1\tlocalhost ip6-localhost ip6-loopback\n")
	h := Hostname(pod)
	if pod.Spec.Subdomain != "" {
		fmt.Fprintf(&b, "%s\t%s.%s.%s.svc.%s\t%s\n", podIP, h, pod.Spec.Subdomain, pod.Namespace, domain, h)
	} else {
		fmt.Fprintf(&b, "%s\t%s\n", podIP, h)
	}
	for _, a := range pod.Spec.HostAliases {
		fmt.Fprintf(&b, "%s\t%s\n", a.IP, strings.Join(a.Hostnames, "\t"))
	}
	return b.String()
}

// passwdEntry finds a uid's primary gid and home in the host's /etc/passwd (the "image" is the
// host): the runtime's defaults for runAsGroup and HOME.
func passwdEntry(uid int64) (gid int64, home string, ok bool) {
	f, err := os.Open("/etc/passwd")
	if err != nil {
		return 0, "", false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), ":")
		if len(fields) < 6 {
			continue
		}
		if u, err := strconv.ParseInt(fields[2], 10, 64); err == nil && u == uid {
			g, _ := strconv.ParseInt(fields[3], 10, 64)
			return g, fields[5], true
		}
	}
	return 0, "", false
}
