package inferencegatewayagents

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/llm-infra/llm-infra-operator/bindata"
	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/operands/inferencegatewayagents/gpuprovider"
)

// A GPU's life, upstream's (gpu_controller.go), one step per sync:
//
//	deleted            release the allocation, then drop the finalizer (kept, with the reason,
//	                   while it cannot be released: orphaned GPUs cost money; dropped anyway
//	                   the give-up bound after the deletion (GPU_RELEASE_GIVE_UP, by default
//	                   gpuCleanupGiveUp), with a Warning event naming the
//	                   allocation, so that a namespace being deleted, whose credentials Secret
//	                   goes first, or a provider that never answers, cannot block it forever)
//	expired            nothing until the spec changes (an Expired GPU is never leased again on its
//	                   own)
//	expiresAt passed   release it: Expired (Terminating while the release fails)
//	no allocation      write the connection Secret with a new token (Pending), then, once it
//	                   holds it, lease: Provisioning
//	leased             ask the provider: Starting until it runs, then probe the readiness path
//	                   with the token: Ready once it answers with a 2xx (the Secret gets the url)
//
// Failures are phase Failed with the step's reason, retried slowly. Differences from upstream:
// expiresAt follows a changed maxRuntime (upstream fixed it when leasing, so the change had no
// effect); a spec change after expiry leases again (upstream released nothing and expired again
// at once, because the old expiresAt stayed); an expired allocation's url is taken out of the
// connection Secret (upstream left it there, so clients kept calling a released runtime); only
// maxRuntime and credentialsRef may change (admission), since the provider runs what it leased,
// and credentialsRef only while no allocation is held, since only the key that leased an
// allocation can release it.

// How soon a GPU is looked at again: upstream's cadences.
const (
	gpuProvisioningRequeue = 10 * time.Second
	gpuFailedRequeue       = 2 * time.Minute
	gpuCleanupRequeue      = 30 * time.Second
	// gpuCleanupGiveUp is the default of how long a deleted GPU waits for its allocation's
	// release (GiveUpEnv sets another): then the finalizer goes and the Warning event
	// AllocationAbandoned names the allocation (upstream kept the finalizer forever).
	gpuCleanupGiveUp   = 10 * time.Minute
	gpuReadyMaxRequeue = 60 * time.Second
	gpuProbeTimeout    = 5 * time.Second
	// gpuSecretRequeue: the connection Secret's own event normally comes sooner.
	gpuSecretRequeue = 5 * time.Second
)

// Secret keys of the connection Secret: upstream's.
const (
	connectionURLKey   = "url"
	connectionTokenKey = "apiKey"
)

// gpuEnv is what a GPU's sync needs from outside: the provider's key, the provider, the probe,
// the clock and the existing connection Secret.
type gpuEnv struct {
	// credentials returns the provider's key from spec.credentialsRef; its error names the
	// Secret and the key, never a value.
	credentials func() (string, error)
	// keptCredentials returns the GPU's own copy of that key (<gpu>-provider-key), which a
	// deleted GPU releases its allocation with when spec.credentialsRef's Secret is gone first,
	// as when its namespace is deleted. Nil when there is no copy.
	keptCredentials func() (string, error)
	// provider builds spec.provider's driver with a key.
	provider func(name, apiKey string) (gpuprovider.Provider, error)
	// probe GETs the runtime's readiness URL with the token as bearer credential.
	probe func(ctx context.Context, url, token string) error
	now   func() time.Time
	// giveUp is how long after its deletion a GPU whose allocation cannot be released lets go
	// of it (GiveUpEnv); gpuCleanupGiveUp when zero.
	giveUp time.Duration
	// connection is the existing connection Secret, nil when there is none.
	connection *corev1.Secret
}

// gpuResult is what one sync of a GPU decided.
type gpuResult struct {
	// status is the GPU's new status; it never holds a credential.
	status v1alpha1.GPUStatus
	// connection is the connection Secret to apply, nil to leave it as it is.
	connection *corev1.Secret
	// removeFinalizer: the allocation is released (or given up) and the GPU may go.
	removeFinalizer bool
	// abandoned, when set, is the Warning event's message for an allocation given up unreleased.
	abandoned string
	// requeueAfter is when to look at the GPU again, 0 for at the next event.
	requeueAfter time.Duration
}

// syncGPU takes one step of a GPU's life (the finalizer is added before, by the caller).
func syncGPU(ctx context.Context, g *v1alpha1.GPU, env gpuEnv) gpuResult {
	s := &gpuStep{g: g, env: env, status: *g.Status.DeepCopy()}
	s.status.ObservedGeneration = g.Generation
	if g.DeletionTimestamp != nil {
		return s.release(ctx)
	}
	if g.Status.Phase == v1alpha1.GPUPhaseExpired {
		if g.Status.ObservedGeneration == g.Generation {
			return s.result()
		}
		// The spec changed after expiry (maxRuntime, by admission): lease again.
		s.status.StartedAt, s.status.ExpiresAt = nil, nil
	}
	if s.status.StartedAt != nil {
		// expiresAt follows maxRuntime, which may have changed.
		s.status.ExpiresAt = ptrTime(s.status.StartedAt.Add(g.Spec.MaxRuntime.Duration))
	}
	provider, err := s.providerOf()
	if err != nil {
		return s.fail(v1alpha1.ReasonGPUProviderUnavailable, err)
	}
	if s.status.ExpiresAt != nil && !env.now().Before(s.status.ExpiresAt.Time) {
		return s.expire(ctx, provider)
	}
	if s.status.InstanceID == "" {
		return s.provision(ctx, provider)
	}
	return s.observe(ctx, provider)
}

// gpuStep is one sync of one GPU.
type gpuStep struct {
	g          *v1alpha1.GPU
	env        gpuEnv
	status     v1alpha1.GPUStatus
	connection *corev1.Secret
}

func (s *gpuStep) result() gpuResult {
	return gpuResult{status: s.status, connection: s.connection}
}

func (s *gpuStep) set(phase v1alpha1.GPUPhase, ready bool, reason, message string) {
	s.status.Phase = phase
	status := metav1.ConditionFalse
	if ready {
		status = metav1.ConditionTrue
	}
	meta.SetStatusCondition(&s.status.Conditions, metav1.Condition{
		Type: v1alpha1.ConditionReady, Status: status, Reason: reason, Message: message,
		ObservedGeneration: s.g.Generation, LastTransitionTime: metav1.NewTime(s.env.now()),
	})
}

func (s *gpuStep) after(phase v1alpha1.GPUPhase, ready bool, reason, message string, requeue time.Duration) gpuResult {
	s.set(phase, ready, reason, message)
	r := s.result()
	r.requeueAfter = requeue
	return r
}

// fail is phase Failed with the step's reason, looked at again after two minutes.
func (s *gpuStep) fail(reason string, err error) gpuResult {
	return s.after(v1alpha1.GPUPhaseFailed, false, reason, err.Error(), gpuFailedRequeue)
}

func (s *gpuStep) providerOf() (gpuprovider.Provider, error) {
	key, err := s.env.credentials()
	if err != nil {
		return nil, err
	}
	return s.env.provider(s.g.Spec.Provider, key)
}

// release is a deleted GPU's step: release the allocation, then let the GPU go. While it
// cannot be released the finalizer stays, until the give-up bound after the deletion.
func (s *gpuStep) release(ctx context.Context) gpuResult {
	id := s.status.InstanceID
	if id == "" {
		return gpuResult{status: s.status, removeFinalizer: true}
	}
	giveUp := s.g.DeletionTimestamp.Add(s.giveUp())
	provider, err := s.providerOf()
	if err != nil && s.env.keptCredentials != nil {
		// spec.credentialsRef's Secret is gone (a namespace being deleted deletes it with the
		// GPU): the copy kept for this (providerKeyWanted) releases the allocation.
		if key, kerr := s.env.keptCredentials(); kerr == nil {
			provider, err = s.env.provider(s.g.Spec.Provider, key)
		}
	}
	if err != nil {
		if r, ok := s.abandon(giveUp, err); ok {
			return r
		}
		return s.after(s.status.Phase, false, v1alpha1.ReasonGPUCleanupBlocked, fmt.Sprintf(
			"cannot release allocation %s: %v; restore the credentials before %s, when the operator gives up and the allocation stays at the provider (or, to abandon it now, remove the finalizer %s)",
			id, err, giveUp.UTC().Format(time.RFC3339), v1alpha1.GPUFinalizer), s.cleanupRequeue(giveUp))
	}
	if err := provider.Destroy(ctx, id); err != nil {
		if r, ok := s.abandon(giveUp, err); ok {
			return r
		}
		return s.after(v1alpha1.GPUPhaseTerminating, false, v1alpha1.ReasonGPUCleanupFailed,
			fmt.Sprintf("failed to release allocation %s: %v; the operator gives up at %s", id, err, giveUp.UTC().Format(time.RFC3339)),
			s.cleanupRequeue(giveUp))
	}
	// Released: the status says so, so that a retry (the finalizer's removal may conflict)
	// needs neither the key nor the provider.
	s.status.InstanceID, s.status.URL = "", ""
	return gpuResult{status: s.status, removeFinalizer: true}
}

// abandon lets a deleted GPU go unreleased once giveUp has passed: the finalizer goes, and the
// Warning event names the allocation, its provider and why it could not be released.
func (s *gpuStep) abandon(giveUp time.Time, err error) (gpuResult, bool) {
	if s.env.now().Before(giveUp) {
		return gpuResult{}, false
	}
	return gpuResult{status: s.status, removeFinalizer: true, abandoned: fmt.Sprintf(
		"gave up releasing allocation %s at provider %s %s after the GPU's deletion: %v; it may still run and bill: release it at the provider",
		s.status.InstanceID, s.g.Spec.Provider, s.giveUp(), err)}, true
}

// giveUp is the environment's give-up bound, or the default when it sets none.
func (s *gpuStep) giveUp() time.Duration {
	return cmp.Or(s.env.giveUp, gpuCleanupGiveUp)
}

// cleanupRequeue is when a deleted GPU's release is tried again: upstream's cadence, or at
// giveUp if that comes sooner.
func (s *gpuStep) cleanupRequeue(giveUp time.Time) time.Duration {
	return max(min(gpuCleanupRequeue, giveUp.Sub(s.env.now())), time.Second)
}

// expire releases an allocation whose maxRuntime has passed.
func (s *gpuStep) expire(ctx context.Context, provider gpuprovider.Provider) gpuResult {
	if id := s.status.InstanceID; id != "" {
		if err := provider.Destroy(ctx, id); err != nil {
			return s.after(v1alpha1.GPUPhaseTerminating, false, v1alpha1.ReasonGPUTerminationFailed,
				fmt.Sprintf("failed to release allocation %s: %v", id, err), gpuCleanupRequeue)
		}
	}
	s.status.InstanceID, s.status.URL = "", ""
	// Clients reading the connection Secret must not keep calling a released runtime.
	if s.env.connection != nil {
		if err := s.writeConnection(string(s.env.connection.Data[connectionTokenKey]), ""); err != nil {
			return s.fail(v1alpha1.ReasonGPUConnectionSecretError, err)
		}
	}
	return s.after(v1alpha1.GPUPhaseExpired, false, v1alpha1.ReasonGPUExpired,
		fmt.Sprintf("allocation released after maxRuntime %s; change spec.maxRuntime to lease again", s.g.Spec.MaxRuntime.Duration), 0)
}

// provision writes the connection Secret with the allocation's token first (applied after this
// step, so the token the runtime gets survives a restart), and leases in the next sync, once the
// Secret holds it.
func (s *gpuStep) provision(ctx context.Context, provider gpuprovider.Provider) gpuResult {
	token, err := s.token()
	if err != nil {
		return s.fail(v1alpha1.ReasonGPUConnectionSecretError, err)
	}
	if c := s.env.connection; c == nil || string(c.Data[connectionTokenKey]) != token {
		// The Secret is applied after this step: lease once it holds the token.
		if err := s.writeConnection(token, ""); err != nil {
			return s.fail(v1alpha1.ReasonGPUConnectionSecretError, err)
		}
		return s.after(v1alpha1.GPUPhasePending, false, v1alpha1.ReasonGPUPending,
			"writing the connection Secret with the allocation's token, before leasing", gpuSecretRequeue)
	}
	alloc, err := provider.Provision(ctx, gpuprovider.ProvisionRequest{
		UID: string(s.g.UID), Namespace: s.g.Namespace, Name: s.g.Name,
		Image: s.g.Spec.Image, Command: s.g.Spec.Command, GPUTypes: s.g.Spec.GPUTypes,
		Port: gpuPort(&s.g.Spec), EndpointToken: token,
	})
	if err != nil {
		return s.fail(v1alpha1.ReasonGPUProvisionFailed, err)
	}
	now := metav1.NewTime(s.env.now())
	s.status.InstanceID, s.status.URL = alloc.ID, alloc.URL
	s.status.StartedAt, s.status.ExpiresAt = &now, ptrTime(now.Add(s.g.Spec.MaxRuntime.Duration))
	return s.after(v1alpha1.GPUPhaseProvisioning, false, v1alpha1.ReasonGPUProvisioning,
		"allocation requested, waiting for infrastructure", gpuProvisioningRequeue)
}

// observe asks the provider where the allocation is and, once it runs, probes the endpoint.
func (s *gpuStep) observe(ctx context.Context, provider gpuprovider.Provider) gpuResult {
	id := s.status.InstanceID
	alloc, err := provider.Get(ctx, id)
	if errors.Is(err, gpuprovider.ErrNotFound) {
		return s.fail(v1alpha1.ReasonGPUAllocationLost, fmt.Errorf("the provider no longer has allocation %s", id))
	}
	if err != nil {
		return s.fail(v1alpha1.ReasonGPUProviderError, err)
	}
	if alloc.URL != "" {
		s.status.URL = alloc.URL
	}
	switch alloc.State {
	case gpuprovider.StateFailed:
		return s.fail(v1alpha1.ReasonGPUProviderFailed, fmt.Errorf("the provider reports allocation %s failed", id))
	case gpuprovider.StateTerminated:
		return s.fail(v1alpha1.ReasonGPUAllocationTerminated, fmt.Errorf("allocation %s was terminated outside the operator", id))
	case gpuprovider.StateRunning:
	default:
		return s.after(v1alpha1.GPUPhaseStarting, false, v1alpha1.ReasonGPUInfrastructureStarting,
			"waiting for the provider's infrastructure to start", gpuProvisioningRequeue)
	}
	if s.status.URL == "" {
		return s.after(v1alpha1.GPUPhaseStarting, false, v1alpha1.ReasonGPUEndpointPending,
			"infrastructure running, endpoint not known yet", gpuProvisioningRequeue)
	}
	token, err := s.token()
	if err != nil {
		return s.fail(v1alpha1.ReasonGPUConnectionSecretError, err)
	}
	probeURL := s.status.URL + cmp.Or(s.g.Spec.Endpoint.ReadinessPath, "/")
	probeCtx, cancel := context.WithTimeout(ctx, gpuProbeTimeout)
	defer cancel()
	if err := s.env.probe(probeCtx, probeURL, token); err != nil {
		return s.after(v1alpha1.GPUPhaseStarting, false, v1alpha1.ReasonGPUEndpointNotReady,
			fmt.Sprintf("readiness probe failed: %v", err), gpuProvisioningRequeue)
	}
	if err := s.writeConnection(token, s.status.URL); err != nil {
		return s.fail(v1alpha1.ReasonGPUConnectionSecretError, err)
	}
	requeue := gpuReadyMaxRequeue
	if until := s.status.ExpiresAt.Sub(s.env.now()); until < requeue {
		requeue = max(until, time.Second)
	}
	return s.after(v1alpha1.GPUPhaseReady, true, v1alpha1.ReasonGPUEndpointReady,
		"inference endpoint responded to the readiness probe", requeue)
}

// token is the allocation's token: the connection Secret's, or a new one.
func (s *gpuStep) token() (string, error) {
	if c := s.env.connection; c != nil && len(c.Data[connectionTokenKey]) > 0 {
		return string(c.Data[connectionTokenKey]), nil
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("make the allocation's token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// writeConnection renders the connection Secret with the runtime's url and token for the caller
// to apply, and names it in status.
func (s *gpuStep) writeConnection(token, url string) error {
	secret, err := renderConnectionSecret(s.g, url, token)
	if err != nil {
		return err
	}
	s.connection = secret
	s.status.ConnectionSecretRef = &corev1.LocalObjectReference{Name: secret.Name}
	return nil
}

// renderConnectionSecret is a GPU's connection Secret: upstream's keys url and apiKey.
func renderConnectionSecret(g *v1alpha1.GPU, url, token string) (*corev1.Secret, error) {
	secret, err := manifest[corev1.Secret](bindata.GPUConnectionSecret, instancePlaceholders(g.Namespace, g.Name, g.Spec.Image))
	if err != nil {
		return nil, err
	}
	secret.Data = map[string][]byte{connectionURLKey: []byte(url), connectionTokenKey: []byte(token)}
	return secret, nil
}

func gpuPort(spec *v1alpha1.GPUSpec) int32 {
	if spec.Endpoint.Port > 0 {
		return spec.Endpoint.Port
	}
	return v1alpha1.DefaultGPUPort
}

func ptrTime(t time.Time) *metav1.Time {
	mt := metav1.NewTime(t)
	return &mt
}

// ProbeReadiness is the GPU's readiness probe: a GET of url with the token as bearer credential;
// any 2xx is ready. A redirect is not followed (it answers "not ready"), as the agent card's
// read does not follow one: the URL comes from a namespace user's CR and the provider's
// answer, and a redirect would have the operator request any address it can reach. The error
// says what failed, never the token.
func ProbeReadiness(client *http.Client) func(ctx context.Context, url, token string) error {
	noRedirects := *client
	noRedirects.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	client = &noRedirects
	return func(ctx context.Context, url, token string) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		defer func() { _ = resp.Body.Close() }()
		if resp.StatusCode >= 300 && resp.StatusCode <= 399 {
			return fmt.Errorf("%s answered %s: redirects are not followed, point the GPU's endpoint at the address that answers", url, resp.Status)
		}
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			return fmt.Errorf("%s answered %s", url, resp.Status)
		}
		return nil
	}
}
