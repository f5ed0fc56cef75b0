// Package probe runs the kubelet's container probes: httpGet (HTTPS without verification, as
// the kubelet does), tcpSocket, grpc (the standard health service) and exec, each with its
// thresholds.
package probe

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Thresholds turns a stream of single results into the probe's verdict: it flips to success
// after successThreshold successes in a row, to failure after failureThreshold failures in a row.
type Thresholds struct {
	Success, Failure int32
	// Result is the current verdict; Initial is what it is before the first flip.
	Result    bool
	successes int32
	failures  int32
}

// NewThresholds applies the API's defaults (1 and 3).
func NewThresholds(p *corev1.Probe, initial bool) *Thresholds {
	t := &Thresholds{Success: p.SuccessThreshold, Failure: p.FailureThreshold, Result: initial}
	if t.Success <= 0 {
		t.Success = 1
	}
	if t.Failure <= 0 {
		t.Failure = 3
	}
	return t
}

// Observe records one result and reports whether the verdict changed.
func (t *Thresholds) Observe(ok bool) bool {
	if ok {
		t.failures = 0
		t.successes++
		if !t.Result && t.successes >= t.Success {
			t.Result = true
			return true
		}
		return false
	}
	t.successes = 0
	t.failures++
	if t.Result && t.failures >= t.Failure {
		t.Result = false
		return true
	}
	return false
}

// Timing is a probe's schedule with the API's defaults.
type Timing struct {
	InitialDelay, Period, Timeout time.Duration
}

// TimingOf reads a probe's schedule.
func TimingOf(p *corev1.Probe) Timing {
	t := Timing{
		InitialDelay: time.Duration(p.InitialDelaySeconds) * time.Second,
		Period:       time.Duration(p.PeriodSeconds) * time.Second,
		Timeout:      time.Duration(p.TimeoutSeconds) * time.Second,
	}
	if t.Period <= 0 {
		t.Period = 10 * time.Second
	}
	if t.Timeout <= 0 {
		t.Timeout = time.Second
	}
	return t
}

// Dialer connects to the pod (from the hub's namespace).
type Dialer func(ctx context.Context, network, addr string) (net.Conn, error)

// Exec runs a command in the container and returns its output and exit code.
type Exec func(ctx context.Context, cmd []string) ([]byte, int, error)

// Target is what a probe needs about its container.
type Target struct {
	PodIP string
	Ports []corev1.ContainerPort
	Dial  Dialer
	Exec  Exec
}

// Run performs one probe and says whether it succeeded, with a message for failures.
func Run(ctx context.Context, p *corev1.Probe, t Target) (bool, string) {
	ctx, cancel := context.WithTimeout(ctx, TimingOf(p).Timeout)
	defer cancel()
	switch {
	case p.HTTPGet != nil:
		return httpGet(ctx, p.HTTPGet, t)
	case p.TCPSocket != nil:
		port, err := resolvePort(p.TCPSocket.Port, t.Ports)
		if err != nil {
			return false, err.Error()
		}
		host := p.TCPSocket.Host
		if host == "" {
			host = t.PodIP
		}
		c, err := t.Dial(ctx, "tcp", net.JoinHostPort(host, strconv.Itoa(port)))
		if err != nil {
			return false, err.Error()
		}
		c.Close()
		return true, ""
	case p.GRPC != nil:
		return grpcCheck(ctx, p.GRPC, t)
	case p.Exec != nil:
		out, code, err := t.Exec(ctx, p.Exec.Command)
		if err != nil {
			return false, err.Error()
		}
		if code != 0 {
			return false, fmt.Sprintf("command %q exited with %d: %s", strings.Join(p.Exec.Command, " "), code, truncate(out))
		}
		return true, ""
	}
	return false, "probe has no handler"
}

func truncate(b []byte) string {
	if len(b) > 200 {
		b = b[:200]
	}
	return strings.TrimSpace(string(b))
}

// resolvePort finds a probe's port: a number, or the name of a container port.
func resolvePort(p intstr.IntOrString, ports []corev1.ContainerPort) (int, error) {
	if p.Type == intstr.Int {
		if p.IntVal <= 0 || p.IntVal > 65535 {
			return 0, fmt.Errorf("invalid port %d", p.IntVal)
		}
		return int(p.IntVal), nil
	}
	for _, cp := range ports {
		if cp.Name == p.StrVal {
			return int(cp.ContainerPort), nil
		}
	}
	if n, err := strconv.Atoi(p.StrVal); err == nil {
		return n, nil
	}
	return 0, fmt.Errorf("no container port named %q", p.StrVal)
}

// UserAgent is what the kubelet's probes send.
const UserAgent = "kube-probe/1.36"

func httpGet(ctx context.Context, h *corev1.HTTPGetAction, t Target) (bool, string) {
	port, err := resolvePort(h.Port, t.Ports)
	if err != nil {
		return false, err.Error()
	}
	host := h.Host
	if host == "" {
		host = t.PodIP
	}
	scheme := strings.ToLower(string(h.Scheme))
	if scheme == "" {
		scheme = "http"
	}
	path := h.Path
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	u := scheme + "://" + net.JoinHostPort(host, strconv.Itoa(port)) + path
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return false, err.Error()
	}
	req.Header.Set("User-Agent", UserAgent)
	req.Header.Set("Accept", "*/*")
	for _, hd := range h.HTTPHeaders {
		if strings.EqualFold(hd.Name, "Host") {
			req.Host = hd.Value
			continue
		}
		req.Header.Add(hd.Name, hd.Value)
	}
	client := &http.Client{
		Transport: &http.Transport{
			DialContext: t.Dial,
			// The kubelet does not verify a probe's certificate.
			TLSClientConfig:   &tls.Config{InsecureSkipVerify: true}, //nolint:gosec
			DisableKeepAlives: true,
		},
		// A redirect counts as success, as the kubelet counts one to another host.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	resp, err := client.Do(req)
	if err != nil {
		return false, err.Error()
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
	if resp.StatusCode >= 200 && resp.StatusCode < 400 {
		return true, ""
	}
	return false, fmt.Sprintf("HTTP probe failed with statuscode: %d %s", resp.StatusCode, truncate(body))
}

func grpcCheck(ctx context.Context, g *corev1.GRPCAction, t Target) (bool, string) {
	addr := net.JoinHostPort(t.PodIP, strconv.Itoa(int(g.Port)))
	conn, err := grpc.NewClient("passthrough:///"+addr,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(func(ctx context.Context, a string) (net.Conn, error) { return t.Dial(ctx, "tcp", a) }),
		grpc.WithUserAgent(UserAgent))
	if err != nil {
		return false, err.Error()
	}
	defer conn.Close()
	svc := ""
	if g.Service != nil {
		svc = *g.Service
	}
	resp, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{Service: svc})
	if err != nil {
		return false, err.Error()
	}
	if resp.Status != healthpb.HealthCheckResponse_SERVING {
		return false, "service unhealthy (responded with " + resp.Status.String() + ")"
	}
	return true, ""
}
