package probe

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func TestThresholds(t *testing.T) {
	th := NewThresholds(&corev1.Probe{SuccessThreshold: 2, FailureThreshold: 3}, false)
	steps := []struct {
		ok      bool
		changed bool
		result  bool
	}{
		{true, false, false}, {false, false, false}, {true, false, false}, {true, true, true},
		{false, false, true}, {false, false, true}, {true, false, true}, {false, false, true},
		{false, false, true}, {false, true, false},
	}
	for i, s := range steps {
		if changed := th.Observe(s.ok); changed != s.changed || th.Result != s.result {
			t.Fatalf("step %d (%v): changed %v result %v, want %v %v", i, s.ok, changed, th.Result, s.changed, s.result)
		}
	}
	d := NewThresholds(&corev1.Probe{}, true)
	if d.Success != 1 || d.Failure != 3 {
		t.Errorf("defaults %d/%d, want 1/3", d.Success, d.Failure)
	}
}

func TestTimingDefaults(t *testing.T) {
	tm := TimingOf(&corev1.Probe{})
	if tm.Period.Seconds() != 10 || tm.Timeout.Seconds() != 1 || tm.InitialDelay != 0 {
		t.Errorf("defaults %+v", tm)
	}
}

// target points probes at a test server on 127.0.0.1 (the hub's dialer in the agent).
func target(t *testing.T, rawURL string) (Target, int) {
	u, _ := url.Parse(rawURL)
	host, port, _ := net.SplitHostPort(u.Host)
	p, _ := strconv.Atoi(port)
	var d net.Dialer
	return Target{PodIP: host, Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: int32(p)}}, Dial: d.DialContext}, p
}

func TestHTTPGet(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("User-Agent") != UserAgent || r.Header.Get("X-Probe") != "1" {
			http.Error(w, "headers", http.StatusBadRequest)
		}
	})
	mux.HandleFunc("/down", func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "no", http.StatusServiceUnavailable) })
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://elsewhere.invalid/", http.StatusFound)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	tls := httptest.NewTLSServer(mux)
	defer tls.Close()
	tg, port := target(t, srv.URL)
	tlsTarget, tlsPort := target(t, tls.URL)
	hdr := []corev1.HTTPHeader{{Name: "X-Probe", Value: "1"}}
	for _, tc := range []struct {
		name string
		tg   Target
		get  *corev1.HTTPGetAction
		want bool
	}{
		{"200 by named port", tg, &corev1.HTTPGetAction{Path: "/ok", Port: intstr.FromString("http"), HTTPHeaders: hdr}, true},
		{"503", tg, &corev1.HTTPGetAction{Path: "/down", Port: intstr.FromInt32(int32(port))}, false},
		{"redirect counts as success", tg, &corev1.HTTPGetAction{Path: "/moved", Port: intstr.FromInt32(int32(port))}, true},
		{"https, certificate not verified", tlsTarget, &corev1.HTTPGetAction{Path: "/ok", Port: intstr.FromInt32(int32(tlsPort)), Scheme: corev1.URISchemeHTTPS, HTTPHeaders: hdr}, true},
		{"unknown port name", tg, &corev1.HTTPGetAction{Path: "/ok", Port: intstr.FromString("nope")}, false},
	} {
		ok, msg := Run(context.Background(), &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: tc.get}}, tc.tg)
		if ok != tc.want {
			t.Errorf("%s: ok=%v (%s), want %v", tc.name, ok, msg, tc.want)
		}
	}
}

func TestTCPAndExec(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	var d net.Dialer
	tg := Target{PodIP: "127.0.0.1", Dial: d.DialContext, Exec: func(_ context.Context, cmd []string) ([]byte, int, error) {
		if cmd[0] == "fail" {
			return []byte("bad"), 1, nil
		}
		return nil, 0, nil
	}}
	tcp := &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(int32(port))}}}
	if ok, msg := Run(context.Background(), tcp, tg); !ok {
		t.Errorf("tcp to a listener failed: %s", msg)
	}
	l.Close()
	if ok, _ := Run(context.Background(), tcp, tg); ok {
		t.Error("tcp to a closed port succeeded")
	}
	if ok, _ := Run(context.Background(), &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"true"}}}}, tg); !ok {
		t.Error("exec exit 0 failed")
	}
	if ok, msg := Run(context.Background(), &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"fail"}}}}, tg); ok || msg == "" {
		t.Errorf("exec exit 1: ok=%v msg=%q", ok, msg)
	}
}
