package netx

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"
)

// BridgeName is the bridge inside the hub namespace (a name of that namespace only).
const BridgeName = "rp0"

// Hub is the namespace every pod's namespace is wired to: its bridge holds the gateway address
// (the pods' route to Services, the DNS server's address) and the service range is local to it,
// so the agent's Service listeners accept connections for any ClusterIP.
type Hub struct {
	NS         NS
	Gateway    net.IP
	PodNet     *net.IPNet
	ServiceNet *net.IPNet
	handle     *netlink.Handle
}

// NewHub makes the hub namespace.
func NewHub(gateway net.IP, podNet, serviceNet *net.IPNet) (*Hub, error) {
	ns, err := NewNS()
	if err != nil {
		return nil, err
	}
	h := &Hub{NS: ns, Gateway: gateway, PodNet: podNet, ServiceNet: serviceNet}
	h.handle, err = netlink.NewHandleAt(netns.NsHandle(ns.fd))
	if err != nil {
		ns.Close()
		return nil, err
	}
	if err := h.setup(); err != nil {
		h.Close()
		return nil, fmt.Errorf("hub network namespace: %w", err)
	}
	return h, nil
}

func (h *Hub) setup() error {
	if err := loopbackOnly(h.handle); err != nil {
		return err
	}
	br := &netlink.Bridge{LinkAttrs: netlink.LinkAttrs{Name: BridgeName}}
	if err := h.handle.LinkAdd(br); err != nil {
		return fmt.Errorf("add bridge: %w", err)
	}
	link, err := h.handle.LinkByName(BridgeName)
	if err != nil {
		return err
	}
	ones, _ := h.PodNet.Mask.Size()
	if err := h.handle.AddrAdd(link, &netlink.Addr{IPNet: &net.IPNet{IP: h.Gateway, Mask: net.CIDRMask(ones, 32)}, Scope: int(netlink.SCOPE_UNIVERSE)}); err != nil {
		return fmt.Errorf("bridge address: %w", err)
	}
	if err := h.handle.LinkSetUp(link); err != nil {
		return err
	}
	if err := h.NS.Do(func() error { return routeLocalnet(BridgeName) }); err != nil {
		return err
	}
	lo, err := h.handle.LinkByName("lo")
	if err != nil {
		return err
	}
	// Every ClusterIP is an address of the hub: a listener may bind any of them.
	return h.handle.RouteAdd(&netlink.Route{LinkIndex: lo.Attrs().Index, Dst: h.ServiceNet, Type: unix.RTN_LOCAL, Table: unix.RT_TABLE_LOCAL, Scope: netlink.SCOPE_HOST})
}

// loopbackOnly brings lo up with 127.0.0.1/32 instead of 127.0.0.0/8, so that the rest of the
// loopback range is routed like any other address (to the bridge) instead of to lo.
func loopbackOnly(h *netlink.Handle) error {
	lo, err := h.LinkByName("lo")
	if err != nil {
		return err
	}
	if err := h.LinkSetUp(lo); err != nil {
		return err
	}
	addrs, err := h.AddrList(lo, netlink.FAMILY_V4)
	if err != nil {
		return err
	}
	for i := range addrs {
		if err := h.AddrDel(lo, &addrs[i]); err != nil {
			return err
		}
	}
	return h.AddrAdd(lo, &netlink.Addr{IPNet: &net.IPNet{IP: net.IPv4(127, 0, 0, 1), Mask: net.CIDRMask(32, 32)}, Scope: int(netlink.SCOPE_HOST)})
}

// routeLocalnet lets an interface of the namespace carry 127/8 addresses (the kernel drops them
// as martians otherwise). Runs inside the namespace: /proc/sys/net is the caller thread's.
func routeLocalnet(ifname string) error {
	p := filepath.Join("/proc/sys/net/ipv4/conf", ifname, "route_localnet")
	if err := os.WriteFile(p, []byte("1"), 0o644); err != nil {
		return fmt.Errorf("route_localnet on %s: %w", ifname, err)
	}
	return nil
}

// Close removes the hub (the pods' veths go with it).
func (h *Hub) Close() {
	if h.handle != nil {
		h.handle.Close()
	}
	h.NS.Close()
}

// AddPod wires a pod's namespace to the bridge: a veth pair (hostSide in the hub, eth0 in the
// pod) and, in the pod, lo, its address and one route, to the Service range through the gateway.
// There is no default route: anything outside the pod and Service ranges is unreachable.
func (h *Hub) AddPod(pod NS, hostSide string, ip net.IP) error {
	br, err := h.handle.LinkByName(BridgeName)
	if err != nil {
		return err
	}
	veth := &netlink.Veth{
		LinkAttrs:     netlink.LinkAttrs{Name: hostSide, MasterIndex: br.Attrs().Index},
		PeerName:      "eth0",
		PeerNamespace: netlink.NsFd(pod.fd),
	}
	if err := h.handle.LinkAdd(veth); err != nil {
		return fmt.Errorf("add veth %s: %w", hostSide, err)
	}
	hl, err := h.handle.LinkByName(hostSide)
	if err != nil {
		return err
	}
	if err := h.handle.LinkSetUp(hl); err != nil {
		return err
	}
	ph, err := netlink.NewHandleAt(netns.NsHandle(pod.fd))
	if err != nil {
		return err
	}
	defer ph.Close()
	if err := loopbackOnly(ph); err != nil {
		return err
	}
	eth, err := ph.LinkByName("eth0")
	if err != nil {
		return err
	}
	ones, _ := h.PodNet.Mask.Size()
	if err := ph.AddrAdd(eth, &netlink.Addr{IPNet: &net.IPNet{IP: ip, Mask: net.CIDRMask(ones, 32)}, Scope: int(netlink.SCOPE_UNIVERSE)}); err != nil {
		return fmt.Errorf("pod address: %w", err)
	}
	if err := ph.LinkSetUp(eth); err != nil {
		return err
	}
	if err := pod.Do(func() error { return routeLocalnet("eth0") }); err != nil {
		return err
	}
	return ph.RouteAdd(&netlink.Route{LinkIndex: eth.Attrs().Index, Dst: h.ServiceNet, Gw: h.Gateway, Src: ip})
}

// RemovePod deletes the pod's veth pair.
func (h *Hub) RemovePod(hostSide string) error {
	l, err := h.handle.LinkByName(hostSide)
	if err != nil {
		return nil // already gone (with its namespace)
	}
	return h.handle.LinkDel(l)
}

// DialContext connects from inside the hub (to a pod's address).
func (h *Hub) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	var c net.Conn
	err := h.NS.Do(func() error {
		var d net.Dialer
		var err error
		c, err = d.DialContext(ctx, network, addr)
		return err
	})
	return c, err
}

// Listen opens a listener inside the hub.
func (h *Hub) Listen(network, addr string) (net.Listener, error) {
	var l net.Listener
	err := h.NS.Do(func() error {
		var err error
		l, err = net.Listen(network, addr)
		return err
	})
	return l, err
}

// ListenPacket opens a packet listener inside the hub.
func (h *Hub) ListenPacket(network, addr string) (net.PacketConn, error) {
	var l net.PacketConn
	err := h.NS.Do(func() error {
		var err error
		l, err = net.ListenPacket(network, addr)
		return err
	})
	return l, err
}
