// Package fakerunpod is an in-process fake of the part of RunPod's REST API v1 the GPU kind uses
// (list, create, get and delete pods), for tests: serve it with net/http/httptest and point the
// driver at its URL. It checks the bearer key, records every request, and lets a test move a
// pod through its states (or have a pod start on its own, StartAfterGets) or make the next
// requests fail. Proxy is RunPod's proxy in front of the pods' http ports, to serve the
// runtimes' readiness endpoints.
package fakerunpod

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Pod is a pod of the fake, as the driver created it.
type Pod struct {
	ID                string            `json:"id"`
	Name              string            `json:"name"`
	DesiredStatus     string            `json:"desiredStatus"`
	Ports             []string          `json:"ports"`
	ImageName         string            `json:"imageName,omitempty"`
	GPUTypeIDs        []string          `json:"gpuTypeIds,omitempty"`
	GPUCount          int               `json:"gpuCount,omitempty"`
	ContainerDiskInGb int               `json:"containerDiskInGb,omitempty"`
	DockerStartCmd    []string          `json:"dockerStartCmd,omitempty"`
	Env               map[string]string `json:"env,omitempty"`

	// gets counts the GETs of this pod, for StartAfterGets.
	gets int
}

// Request is one request the fake answered.
type Request struct {
	Method, Path string
	// Authorized: the request carried the fake's key.
	Authorized bool
	// Body is the request's body as sent (the create request's JSON), "" for none.
	Body string
}

// Probe is one request the proxy answered.
type Probe struct {
	// Host is the pod's proxy host, <pod>-<port>.proxy.runpod.net; Path the request's path.
	Host, Path string
	// Authorized: the request carried the pod's API_KEY as bearer token.
	Authorized bool
	// Code is the proxy's answer.
	Code int
}

// Server is the fake API.
type Server struct {
	apiKey string

	mu       sync.Mutex
	pods     map[string]*Pod
	next     int
	requests []Request
	failures map[string][]int
	// refusedDeletes are the pods whose DELETE answers this code until Reset (RefuseDeletes).
	refusedDeletes map[string]int
	// startAfter is StartAfterGets' n, 0 for never.
	startAfter int
	probes     []Probe
}

// New is a fake that accepts the bearer key apiKey.
func New(apiKey string) *Server {
	return &Server{apiKey: apiKey, pods: map[string]*Pod{}, failures: map[string][]int{}, refusedDeletes: map[string]int{}}
}

// RefuseDeletes makes every DELETE of pod id answer code from now on (a provider that keeps
// failing to release one allocation), while the pod stays; unlike FailNext it does not run out.
func (s *Server) RefuseDeletes(id string, code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refusedDeletes[id] = code
}

// FailNext makes the next requests of a method answer with these status codes, one each.
func (s *Server) FailNext(method string, codes ...int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures[method] = append(s.failures[method], codes...)
}

// StartAfterGets has every created pod report RUNNING from its n-th GET on, as RunPod's pods
// start on their own (n 0: never; SetStatus moves them).
func (s *Server) StartAfterGets(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.startAfter = n
}

// Reset forgets every pod, request, probe and injected failure, and numbers pods from pod001
// again: a fresh fake, at the same address.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pods, s.next, s.requests, s.failures, s.probes = map[string]*Pod{}, 0, nil, map[string][]int{}, nil
	s.refusedDeletes = map[string]int{}
}

// SetStatus sets a pod's desiredStatus (RUNNING, EXITED, FAILED, ...).
func (s *Server) SetStatus(id, status string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p, ok := s.pods[id]; ok {
		p.DesiredStatus = status
	}
}

// Remove deletes a pod behind the driver's back.
func (s *Server) Remove(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.pods, id)
}

// Pods are the pods that exist, by ID.
func (s *Server) Pods() []Pod {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Pod
	for _, p := range s.pods {
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Requests are the requests answered so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	authorized := r.Header.Get("Authorization") == "Bearer "+s.apiKey
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Authorized: authorized, Body: string(body)})
	if !authorized {
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	if codes := s.failures[r.Method]; len(codes) > 0 {
		s.failures[r.Method] = codes[1:]
		http.Error(w, "injected failure", codes[0])
		return
	}
	id, isPod := strings.CutPrefix(r.URL.Path, "/pods/")
	switch {
	case r.URL.Path == "/pods" && r.Method == http.MethodGet:
		pods := []*Pod{}
		for _, p := range s.pods {
			pods = append(pods, p)
		}
		sort.Slice(pods, func(i, j int) bool { return pods[i].ID < pods[j].ID })
		writeJSON(w, http.StatusOK, pods)
	case r.URL.Path == "/pods" && r.Method == http.MethodPost:
		p := &Pod{}
		if err := json.Unmarshal(body, p); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.next++
		p.ID = fmt.Sprintf("pod%03d", s.next)
		p.DesiredStatus = "CREATED"
		s.pods[p.ID] = p
		// RunPod's create answer does not list the ports yet.
		answer := *p
		answer.Ports = nil
		writeJSON(w, http.StatusCreated, answer)
	case isPod && r.Method == http.MethodGet:
		p, ok := s.pods[id]
		if !ok {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		p.gets++
		if s.startAfter > 0 && p.gets >= s.startAfter && p.DesiredStatus == "CREATED" {
			p.DesiredStatus = "RUNNING"
		}
		writeJSON(w, http.StatusOK, p)
	case isPod && r.Method == http.MethodDelete:
		if _, ok := s.pods[id]; !ok {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		if code, refused := s.refusedDeletes[id]; refused {
			http.Error(w, "injected failure: this pod is not released", code)
			return
		}
		delete(s.pods, id)
		w.WriteHeader(http.StatusNoContent)
	default:
		http.Error(w, "no such route", http.StatusNotFound)
	}
}

// ProxyDomain is the domain of RunPod's proxy: a pod's http port p is https://<pod>-<p><ProxyDomain>.
const ProxyDomain = ".proxy.runpod.net"

// Proxy is RunPod's proxy in front of the pods' http ports, addressed by the request's host
// (<pod>-<port>.proxy.runpod.net, whatever address it was dialled at): 200 on any path when the
// pod exists, lists the port as http, runs, and the request carries the pod's API_KEY as bearer
// token (the runtime's own check); 404 for no such pod or port, 503 while it does not run, 401
// for another token. It records every request (Probes).
func (s *Server) Proxy() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		host := r.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		probe := Probe{Host: host, Path: r.URL.Path}
		code := s.proxyAnswer(host, r.Header.Get("Authorization"), &probe)
		probe.Code = code
		s.probes = append(s.probes, probe)
		http.Error(w, http.StatusText(code), code)
	})
}

func (s *Server) proxyAnswer(host, authorization string, probe *Probe) int {
	podPort, ok := strings.CutSuffix(host, ProxyDomain)
	cut := strings.LastIndex(podPort, "-")
	if !ok || cut < 0 {
		return http.StatusNotFound
	}
	p, exists := s.pods[podPort[:cut]]
	if !exists || !containsHTTPPort(p.Ports, podPort[cut+1:]) {
		return http.StatusNotFound
	}
	probe.Authorized = p.Env["API_KEY"] != "" && authorization == "Bearer "+p.Env["API_KEY"]
	switch {
	case p.DesiredStatus != "RUNNING":
		return http.StatusServiceUnavailable
	case !probe.Authorized:
		return http.StatusUnauthorized
	}
	return http.StatusOK
}

func containsHTTPPort(ports []string, port string) bool {
	if _, err := strconv.Atoi(port); err != nil {
		return false
	}
	for _, p := range ports {
		if p == port+"/http" {
			return true
		}
	}
	return false
}

// Probes are the requests the proxy answered so far.
func (s *Server) Probes() []Probe {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Probe(nil), s.probes...)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
