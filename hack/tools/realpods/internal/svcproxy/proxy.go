package svcproxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Dialer connects from one side (the hub's namespace, or the host's).
type Dialer interface {
	DialContext(ctx context.Context, network, addr string) (net.Conn, error)
}

// Listener opens listening sockets on one side.
type Listener interface {
	Listen(network, addr string) (net.Listener, error)
}

type hostSide struct{}

func (hostSide) Listen(network, addr string) (net.Listener, error) { return net.Listen(network, addr) }

// HostSide listens and dials in the agent's own (the host's) namespace.
var HostSide = hostSide{}

// Forward is a host port that stands for one Service port, e.g. 127.0.0.1:18080 for
// batch-gateway-sample/batch-gateway-sync-apiserver:8000 (Port may be a port's number or name).
type Forward struct {
	Listen    string
	Namespace string
	Service   string
	Port      string
}

// ParseForward reads LISTEN=NAMESPACE/SERVICE:PORT.
func ParseForward(s string) (Forward, error) {
	var f Forward
	listen, target, ok := cut(s, "=")
	if !ok {
		return f, fmt.Errorf("forward %q: want LISTEN=NAMESPACE/SERVICE:PORT", s)
	}
	host, _, err := net.SplitHostPort(listen)
	if err != nil || !net.ParseIP(host).IsLoopback() {
		return f, fmt.Errorf("forward %q: %s must be a loopback ip:port", s, listen)
	}
	ns, rest, ok := cut(target, "/")
	if !ok {
		return f, fmt.Errorf("forward %q: want NAMESPACE/SERVICE:PORT after =", s)
	}
	svc, port, ok := cut(rest, ":")
	if !ok || ns == "" || svc == "" || port == "" {
		return f, fmt.Errorf("forward %q: want NAMESPACE/SERVICE:PORT after =", s)
	}
	return Forward{Listen: listen, Namespace: ns, Service: svc, Port: port}, nil
}

func cut(s, sep string) (string, string, bool) {
	for i := 0; i+len(sep) <= len(s); i++ {
		if s[i:i+len(sep)] == sep {
			return s[:i], s[i+len(sep):], true
		}
	}
	return s, "", false
}

// Proxy keeps one listener per ClusterIP:port on each side, per NodePort on the node address,
// and per Forward on the host.
type Proxy struct {
	Index *Index
	Hub   interface {
		Dialer
		Listener
	}
	NodeIP   string
	Forwards []Forward
	Log      *log.Logger

	mu        sync.Mutex
	listeners map[string]*listener
	rr        atomic.Uint64
}

type listener struct {
	l         net.Listener
	namespace string
	service   string
	port      string // number or name of the Service port
	nodePort  bool
}

// Sync opens the listeners the Services need now and closes the others.
func (p *Proxy) Sync() {
	svcs, err := p.Index.Services.List(labels.Everything())
	if err != nil {
		p.Log.Printf("proxy: list services: %v", err)
		return
	}
	want := map[string]listener{}
	for _, s := range svcs {
		for _, sp := range s.Spec.Ports {
			if sp.Protocol != "" && sp.Protocol != corev1.ProtocolTCP {
				continue
			}
			l := listener{namespace: s.Namespace, service: s.Name, port: strconv.Itoa(int(sp.Port))}
			if HasClusterIP(s) {
				addr := net.JoinHostPort(s.Spec.ClusterIP, strconv.Itoa(int(sp.Port)))
				want["hub|"+addr] = l
				want["host|"+addr] = l
			}
			if sp.NodePort != 0 && p.NodeIP != "" {
				addr := net.JoinHostPort(p.NodeIP, strconv.Itoa(int(sp.NodePort)))
				l.nodePort = true
				want["hub|"+addr] = l
				want["host|"+addr] = l
			}
		}
	}
	for _, f := range p.Forwards {
		want["host|"+f.Listen] = listener{namespace: f.Namespace, service: f.Service, port: f.Port}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.listeners == nil {
		p.listeners = map[string]*listener{}
	}
	for key, cur := range p.listeners {
		w, ok := want[key]
		if !ok || w.namespace != cur.namespace || w.service != cur.service || w.port != cur.port {
			cur.l.Close()
			delete(p.listeners, key)
		}
	}
	for key, w := range want {
		if _, ok := p.listeners[key]; ok {
			continue
		}
		side, addr, _ := cut(key, "|")
		var opener Listener = HostSide
		if side == "hub" {
			opener = p.Hub
		}
		l, err := opener.Listen("tcp", addr)
		if err != nil {
			p.Log.Printf("proxy: listen %s (%s) for %s/%s:%s: %v", addr, side, w.namespace, w.service, w.port, err)
			continue
		}
		w := w
		w.l = l
		p.listeners[key] = &w
		go p.serve(&w)
	}
}

// Close closes every listener.
func (p *Proxy) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, l := range p.listeners {
		l.l.Close()
		delete(p.listeners, k)
	}
}

func (p *Proxy) serve(l *listener) {
	for {
		c, err := l.l.Accept()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				p.Log.Printf("proxy: accept %s: %v", l.l.Addr(), err)
			}
			return
		}
		go p.handle(l, c)
	}
}

func (p *Proxy) backends(l *listener) ([]Backend, error) {
	svc, err := p.Index.Services.Services(l.namespace).Get(l.service)
	if err != nil {
		return nil, err
	}
	for _, sp := range svc.Spec.Ports {
		if strconv.Itoa(int(sp.Port)) == l.port || sp.Name == l.port {
			return p.Index.Backends(svc, sp)
		}
	}
	return nil, fmt.Errorf("service %s/%s has no port %s", l.namespace, l.service, l.port)
}

func (p *Proxy) handle(l *listener, c net.Conn) {
	defer c.Close()
	bs, err := p.backends(l)
	if err != nil || len(bs) == 0 {
		// No endpoint: the client sees the connection closed at once (kube-proxy rejects it).
		return
	}
	start := int(p.rr.Add(1))
	for i := range bs {
		b := bs[(start+i)%len(bs)]
		var d Dialer = p.Hub
		if b.Host {
			d = &net.Dialer{}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		up, err := d.DialContext(ctx, "tcp", b.Addr)
		cancel()
		if err != nil {
			continue
		}
		splice(c, up)
		return
	}
}

// splice copies both ways until both directions are done, passing half-closes on.
func splice(a, b net.Conn) {
	defer b.Close()
	var wg sync.WaitGroup
	wg.Add(2)
	cp := func(dst, src net.Conn) {
		defer wg.Done()
		_, _ = io.Copy(dst, src)
		if cw, ok := dst.(interface{ CloseWrite() error }); ok {
			_ = cw.CloseWrite()
		} else {
			dst.Close()
		}
	}
	go cp(a, b)
	go cp(b, a)
	wg.Wait()
}
