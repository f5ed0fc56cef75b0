// Package gpuprovider is the GPU kind's view of an external GPU provider: an interface to lease,
// observe and release one allocation (a GPU-backed container reached over HTTP), and its RunPod
// driver (RunPod's REST API v1). Tests drive it against fakerunpod, an in-process fake of that
// API; nothing here is called with a real provider's address in a test.
//
// Credentials: the driver holds the provider's API key only to put it in the Authorization
// header of its requests. Errors never carry it, nor a response body (which could echo it).
package gpuprovider

import (
	"context"
	"errors"
	"fmt"
)

// ErrNotFound: the provider has no such allocation (any more).
var ErrNotFound = errors.New("the provider has no such allocation")

// State is the provider's view of an allocation.
type State string

const (
	// StatePending: reserved, not running yet.
	StatePending State = "Pending"
	// StateRunning: the infrastructure runs. The runtime's endpoint may not be ready yet; the
	// operator probes it itself.
	StateRunning State = "Running"
	// StateFailed: the provider gave up on it.
	StateFailed State = "Failed"
	// StateTerminated: it was released, or exited.
	StateTerminated State = "Terminated"
)

// ProvisionRequest is an allocation to lease.
type ProvisionRequest struct {
	// UID is the GPU object's UID: the provider's object is named after it, so a second
	// Provision (after a restart of the operator, say) finds the first allocation instead of
	// leasing another.
	UID string
	// Namespace and Name identify the GPU object, for the provider's records.
	Namespace, Name string
	// Image, Command, GPUTypes and Port are the runtime: spec.image, spec.command, spec.gpuTypes
	// and spec.endpoint.port.
	Image    string
	Command  []string
	GPUTypes []string
	Port     int32
	// EndpointToken is the allocation's own credential, handed to the runtime as API_KEY: what a
	// client of the runtime presents, never the provider's key.
	EndpointToken string
}

// Allocation is the provider's view of a leased runtime.
type Allocation struct {
	ID    string
	URL   string
	State State
}

// Provider leases, observes and releases allocations. Implementations are idempotent: Provision
// returns the allocation already made for the request's UID, and Destroy of an allocation that
// no longer exists succeeds.
type Provider interface {
	Provision(ctx context.Context, req ProvisionRequest) (Allocation, error)
	Get(ctx context.Context, id string) (Allocation, error)
	Destroy(ctx context.Context, id string) error
}

// Endpoints are the base URLs of the providers' APIs: the public ones, or a fake's in tests.
type Endpoints struct {
	// RunPod is RunPod's REST API v1 base URL.
	RunPod string
	// RunPodProxy is the base URL of the proxy in front of a RunPod pod's http port: empty,
	// RunPod's own (https://<pod>-<port>.proxy.runpod.net); otherwise <RunPodProxy>/<pod>-<port>,
	// so a fake provider can answer the readiness probe too and nothing leaves the machine.
	RunPodProxy string
}

// PublicEndpoints are the providers' public APIs.
var PublicEndpoints = Endpoints{RunPod: "https://rest.runpod.io/v1"}

// New returns the driver of the named provider (spec.provider), authenticated with apiKey.
func New(name, apiKey string, endpoints Endpoints) (Provider, error) {
	switch name {
	case "runpod":
		return NewRunPod(apiKey, endpoints.RunPod, endpoints.RunPodProxy), nil
	default:
		return nil, fmt.Errorf("unknown GPU provider %q", name)
	}
}
