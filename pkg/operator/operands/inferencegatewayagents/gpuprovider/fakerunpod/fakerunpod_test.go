package fakerunpod

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestStartAfterGetsAndProxy: a created pod starts at its n-th GET; its proxy answers 200 only
// for a running pod's http port asked with its token; Reset numbers pods from pod001 again.
func TestStartAfterGetsAndProxy(t *testing.T) {
	s := New("key")
	s.StartAfterGets(2)
	do := func(h http.Handler, method, host, path, body, token string) int {
		t.Helper()
		r := httptest.NewRequest(method, "http://"+host+path, strings.NewReader(body))
		r.Header.Set("Authorization", "Bearer "+token)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	const create = `{"name":"igw-gpu-u1","ports":["8000/http"],"env":{"API_KEY":"tok"}}`
	if code := do(s, http.MethodPost, "api", "/pods", create, "key"); code != http.StatusCreated {
		t.Fatalf("create: %d", code)
	}
	if got := s.Requests()[0].Body; got != create {
		t.Errorf("recorded body %q", got)
	}
	proxy := s.Proxy()
	host := "pod001-8000" + ProxyDomain
	for _, step := range []struct {
		name              string
		get               bool
		host, token       string
		wantCode          int
		wantAuthorizedLog bool
	}{
		{"created: not running", false, host, "tok", http.StatusServiceUnavailable, true},
		{"first GET: still created", true, host, "tok", http.StatusServiceUnavailable, true},
		{"second GET: running", true, host, "tok", http.StatusOK, true},
		{"another token", false, host, "other", http.StatusUnauthorized, false},
		{"another port", false, "pod001-9000" + ProxyDomain, "tok", http.StatusNotFound, false},
		{"no such pod", false, "pod002-8000" + ProxyDomain, "tok", http.StatusNotFound, false},
		{"not the proxy's domain", false, "pod001-8000.example.com", "tok", http.StatusNotFound, false},
	} {
		if step.get {
			if code := do(s, http.MethodGet, "api", "/pods/pod001", "", "key"); code != http.StatusOK {
				t.Fatalf("%s: GET %d", step.name, code)
			}
		}
		if code := do(proxy, http.MethodGet, step.host, "/health", "", step.token); code != step.wantCode {
			t.Errorf("%s: proxy answered %d, want %d", step.name, code, step.wantCode)
		}
		probes := s.Probes()
		if last := probes[len(probes)-1]; last.Authorized != step.wantAuthorizedLog || last.Code != step.wantCode || last.Path != "/health" {
			t.Errorf("%s: probe recorded %+v", step.name, last)
		}
	}
	s.Reset()
	if len(s.Pods()) != 0 || len(s.Requests()) != 0 || len(s.Probes()) != 0 {
		t.Fatal("Reset kept state")
	}
	if code := do(s, http.MethodPost, "api", "/pods", create, "key"); code != http.StatusCreated || s.Pods()[0].ID != "pod001" {
		t.Errorf("after Reset: %d, pods %+v", code, s.Pods())
	}
}

// TestRefuseDeletes: a refused pod's DELETE answers the code every time and the pod stays;
// other pods' DELETEs still release them; Reset forgets the refusal.
func TestRefuseDeletes(t *testing.T) {
	s := New("key")
	do := func(method, path string) int {
		t.Helper()
		r := httptest.NewRequest(method, "http://api"+path, strings.NewReader(`{"name":"igw-gpu"}`))
		r.Header.Set("Authorization", "Bearer key")
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		return w.Code
	}
	for range 2 {
		if code := do(http.MethodPost, "/pods"); code != http.StatusCreated {
			t.Fatalf("create: %d", code)
		}
	}
	s.RefuseDeletes("pod001", http.StatusServiceUnavailable)
	for i := range 3 {
		if code := do(http.MethodDelete, "/pods/pod001"); code != http.StatusServiceUnavailable {
			t.Errorf("DELETE %d of the refused pod answered %d, want 503", i+1, code)
		}
	}
	if code := do(http.MethodDelete, "/pods/pod002"); code != http.StatusNoContent {
		t.Errorf("DELETE of another pod answered %d, want 204", code)
	}
	if pods := s.Pods(); len(pods) != 1 || pods[0].ID != "pod001" {
		t.Errorf("pods %+v, want the refused pod001 only", pods)
	}
	s.Reset()
	if code := do(http.MethodPost, "/pods"); code != http.StatusCreated {
		t.Fatalf("create after Reset: %d", code)
	}
	if code := do(http.MethodDelete, "/pods/pod001"); code != http.StatusNoContent {
		t.Errorf("DELETE after Reset answered %d, want 204", code)
	}
}
