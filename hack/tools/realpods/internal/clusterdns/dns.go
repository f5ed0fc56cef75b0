// Package clusterdns answers the cluster's DNS names for the pods (and the host), as CoreDNS's
// kubernetes plugin does for the names the operands use:
//
//	<service>.<namespace>.svc.<domain>              A: the ClusterIP, or a headless Service's ready endpoints
//	<hostname>.<subdomain>.<namespace>.svc.<domain> A: a pod with that hostname and subdomain
//	<a-b-c-d>.<namespace>.pod.<domain>              A: a.b.c.d
//
// The short forms (<service>, <service>.<namespace>, <service>.<namespace>.svc) are the
// resolver's work, through the search list of the pod's resolv.conf. Every other name is
// NXDOMAIN at once: nothing is forwarded anywhere, so no query leaves the machine.
package clusterdns

import (
	"context"
	"errors"
	"net"
	"strings"

	"golang.org/x/net/dns/dnsmessage"
)

// Records is the cluster's state the answers come from.
type Records interface {
	Service(namespace, name string) ([]net.IP, bool)
	PodHost(namespace, subdomain, hostname string) (net.IP, bool)
}

// TTL of every answer, in seconds (CoreDNS's default).
const TTL = 5

// Answer builds the reply to one query message.
func Answer(req []byte, domain string, r Records) ([]byte, error) {
	var p dnsmessage.Parser
	hdr, err := p.Start(req)
	if err != nil {
		return nil, err
	}
	q, err := p.Question()
	if err != nil {
		return nil, err
	}
	resp := dnsmessage.Message{
		Header: dnsmessage.Header{
			ID: hdr.ID, Response: true, OpCode: hdr.OpCode, RecursionDesired: hdr.RecursionDesired,
			RecursionAvailable: true,
		},
		Questions: []dnsmessage.Question{q},
	}
	ips, known := Lookup(q.Name.String(), domain, r)
	switch {
	case !known:
		resp.Header.RCode = dnsmessage.RCodeNameError
	case q.Type == dnsmessage.TypeA || q.Type == dnsmessage.TypeALL:
		resp.Header.Authoritative = true
		for _, ip := range ips {
			var a [4]byte
			copy(a[:], ip.To4())
			resp.Answers = append(resp.Answers, dnsmessage.Resource{
				Header: dnsmessage.ResourceHeader{Name: q.Name, Type: dnsmessage.TypeA, Class: dnsmessage.ClassINET, TTL: TTL},
				Body:   &dnsmessage.AResource{A: a},
			})
		}
	default:
		// The name exists but has no record of this type (AAAA): NOERROR with no answer, so a
		// resolver asking for both does not wait for a timeout.
		resp.Header.Authoritative = true
	}
	return resp.Pack()
}

// Lookup resolves a fully qualified name; known is false for a name that does not exist.
func Lookup(fqdn, domain string, r Records) ([]net.IP, bool) {
	name := strings.ToLower(strings.TrimSuffix(fqdn, "."))
	rest, ok := strings.CutSuffix(name, "."+strings.TrimSuffix(domain, "."))
	if !ok {
		return nil, false
	}
	labels := strings.Split(rest, ".")
	switch {
	case len(labels) == 3 && labels[2] == "svc":
		return r.Service(labels[1], labels[0])
	case len(labels) == 4 && labels[3] == "svc":
		ip, ok := r.PodHost(labels[2], labels[1], labels[0])
		if !ok {
			return nil, false
		}
		return []net.IP{ip}, true
	case len(labels) == 3 && labels[2] == "pod":
		ip := net.ParseIP(strings.ReplaceAll(labels[0], "-", "."))
		if ip == nil || ip.To4() == nil {
			return nil, false
		}
		return []net.IP{ip}, true
	}
	return nil, false
}

// Server serves Answer over UDP and TCP.
type Server struct {
	Domain  string
	Records Records
}

// ServeUDP answers queries on pc until it is closed.
func (s *Server) ServeUDP(pc net.PacketConn) error {
	buf := make([]byte, 1500)
	for {
		n, addr, err := pc.ReadFrom(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		out, err := Answer(buf[:n], s.Domain, s.Records)
		if err != nil {
			continue
		}
		_, _ = pc.WriteTo(out, addr)
	}
}

// ServeTCP answers length-prefixed queries on l until it is closed.
func (s *Server) ServeTCP(ctx context.Context, l net.Listener) error {
	for {
		c, err := l.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		go s.serveConn(c)
	}
}

func (s *Server) serveConn(c net.Conn) {
	defer c.Close()
	for {
		var lenBuf [2]byte
		if _, err := readFull(c, lenBuf[:]); err != nil {
			return
		}
		msg := make([]byte, int(lenBuf[0])<<8|int(lenBuf[1]))
		if _, err := readFull(c, msg); err != nil {
			return
		}
		out, err := Answer(msg, s.Domain, s.Records)
		if err != nil {
			return
		}
		if _, err := c.Write(append([]byte{byte(len(out) >> 8), byte(len(out))}, out...)); err != nil {
			return
		}
	}
}

func readFull(c net.Conn, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := c.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
