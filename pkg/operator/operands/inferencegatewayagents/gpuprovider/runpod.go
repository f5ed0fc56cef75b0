package gpuprovider

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// runPod drives RunPod's REST API v1 with the standard library. The allocation is a RunPod pod
// named igw-gpu-<uid>, upstream's name, so an allocation upstream's operator made for the same GPU
// object is found again.
type runPod struct {
	apiKey  string
	baseURL string
	// proxyURL is Endpoints.RunPodProxy.
	proxyURL string
	client   *http.Client
}

// NewRunPod is the RunPod driver for the API at baseURL; proxyURL as Endpoints.RunPodProxy.
func NewRunPod(apiKey, baseURL, proxyURL string) Provider {
	return &runPod{apiKey: apiKey, baseURL: strings.TrimRight(baseURL, "/"), proxyURL: strings.TrimRight(proxyURL, "/"),
		client: &http.Client{Timeout: 30 * time.Second}}
}

// runPodPod is what the driver reads of a RunPod pod.
type runPodPod struct {
	ID            string   `json:"id"`
	Name          string   `json:"name"`
	DesiredStatus string   `json:"desiredStatus"`
	Ports         []string `json:"ports"`
}

// RunPodName is the RunPod pod of the GPU object with this UID.
func RunPodName(uid string) string { return "igw-gpu-" + uid }

func (p *runPod) Provision(ctx context.Context, req ProvisionRequest) (Allocation, error) {
	var pods []runPodPod
	if err := p.do(ctx, http.MethodGet, "/pods", nil, &pods, "list pods"); err != nil {
		return Allocation{}, err
	}
	for _, pod := range pods {
		if pod.Name == RunPodName(req.UID) {
			return p.toAllocation(pod, req.Port), nil
		}
	}
	body := map[string]any{
		"name":              RunPodName(req.UID),
		"imageName":         req.Image,
		"gpuTypeIds":        req.GPUTypes,
		"gpuCount":          1,
		"ports":             []string{fmt.Sprintf("%d/http", req.Port)},
		"containerDiskInGb": 20,
	}
	if len(req.Command) > 0 {
		body["dockerStartCmd"] = req.Command
	}
	if req.EndpointToken != "" {
		body["env"] = map[string]string{"API_KEY": req.EndpointToken}
	}
	var pod runPodPod
	if err := p.do(ctx, http.MethodPost, "/pods", body, &pod, "create pod"); err != nil {
		return Allocation{}, err
	}
	return p.toAllocation(pod, req.Port), nil
}

func (p *runPod) Get(ctx context.Context, id string) (Allocation, error) {
	var pod runPodPod
	if err := p.do(ctx, http.MethodGet, "/pods/"+id, nil, &pod, "get pod "+id); err != nil {
		return Allocation{}, err
	}
	return p.toAllocation(pod, 0), nil
}

func (p *runPod) Destroy(ctx context.Context, id string) error {
	err := p.do(ctx, http.MethodDelete, "/pods/"+id, nil, nil, "delete pod "+id)
	if err == ErrNotFound {
		return nil
	}
	return err
}

// toAllocation is a RunPod pod as an Allocation. Its URL is RunPod's proxy of the pod's http
// port (fallbackPort when the pod does not list one yet, as right after it is created).
func (p *runPod) toAllocation(pod runPodPod, fallbackPort int32) Allocation {
	port := httpPort(pod.Ports)
	if port == 0 {
		port = fallbackPort
	}
	var url string
	if pod.ID != "" && port > 0 {
		url = fmt.Sprintf("https://%s-%d.proxy.runpod.net", pod.ID, port)
		if p.proxyURL != "" {
			url = fmt.Sprintf("%s/%s-%d", p.proxyURL, pod.ID, port)
		}
	}
	return Allocation{ID: pod.ID, URL: url, State: runPodState(pod.DesiredStatus)}
}

// httpPort is the container port RunPod exposes as http, from its "8080/http" form.
func httpPort(ports []string) int32 {
	for _, entry := range ports {
		port, proto, ok := strings.Cut(entry, "/")
		if !ok || proto != "http" {
			continue
		}
		if n, err := strconv.ParseUint(port, 10, 16); err == nil {
			return int32(n)
		}
	}
	return 0
}

func runPodState(desired string) State {
	switch strings.ToUpper(desired) {
	case "RUNNING":
		return StateRunning
	case "EXITED", "TERMINATED", "DEAD":
		return StateTerminated
	case "FAILED":
		return StateFailed
	default:
		return StatePending
	}
}

// do sends one JSON request and decodes a 2xx answer into out. 404 is ErrNotFound; any other
// answer is an error with its status only (a body could repeat what was sent).
func (p *runPod) do(ctx context.Context, method, path string, body, out any, what string) error {
	var reader io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return err
		}
		reader = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, p.baseURL+path, reader)
	if err != nil {
		return fmt.Errorf("runpod: %s: %w", what, err)
	}
	req.Header.Set("Authorization", "Bearer "+p.apiKey)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return fmt.Errorf("runpod: %s: %w", what, err)
	}
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return fmt.Errorf("runpod: %s: %w", what, err)
	}
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return ErrNotFound
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return fmt.Errorf("runpod: %s: %s", what, resp.Status)
	case out == nil || len(bytes.TrimSpace(data)) == 0:
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("runpod: %s: the answer is not JSON of a pod: %w", what, err)
	}
	return nil
}
