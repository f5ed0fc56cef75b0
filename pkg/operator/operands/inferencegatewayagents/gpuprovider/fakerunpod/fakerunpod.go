// Package fakerunpod is an in-process fake of the part of RunPod's REST API v1 the GPU kind uses
// (list, create, get and delete pods), for tests: serve it with net/http/httptest and point the
// driver at its URL. It checks the bearer key, records every request, and lets a test move a
// pod through its states or make the next requests fail.
package fakerunpod

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
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
}

// Request is one request the fake answered.
type Request struct {
	Method, Path string
	// Authorized: the request carried the fake's key.
	Authorized bool
}

// Server is the fake API.
type Server struct {
	apiKey string

	mu       sync.Mutex
	pods     map[string]*Pod
	next     int
	requests []Request
	failures map[string][]int
}

// New is a fake that accepts the bearer key apiKey.
func New(apiKey string) *Server {
	return &Server{apiKey: apiKey, pods: map[string]*Pod{}, failures: map[string][]int{}}
}

// FailNext makes the next requests of a method answer with these status codes, one each.
func (s *Server) FailNext(method string, codes ...int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures[method] = append(s.failures[method], codes...)
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
	s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Authorized: authorized})
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
		if err := json.NewDecoder(r.Body).Decode(p); err != nil {
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
		writeJSON(w, http.StatusOK, p)
	case isPod && r.Method == http.MethodDelete:
		if _, ok := s.pods[id]; !ok {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		delete(s.pods, id)
		w.WriteHeader(http.StatusNoContent)
	default:
		http.Error(w, "no such route", http.StatusNotFound)
	}
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
