package inferencegatewayagents

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"sigs.k8s.io/yaml"

	"github.com/openshift/library-go/pkg/operator/events"

	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1/testcases"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/operands/inferencegatewayagents/gpuprovider"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/operands/inferencegatewayagents/gpuprovider/fakerunpod"
)

// The provider's key in these tests; it must never show in a status, a condition or an error.
const providerKey = "rp-key-that-must-not-leak"

// gpuWorld is a GPU's sync against the fake RunPod API: the clock, the runtime's readiness
// answer and the connection Secret the operator applied carry over from one sync to the next.
type gpuWorld struct {
	t       *testing.T
	runpod  *fakerunpod.Server
	api     *httptest.Server
	gpu     *v1alpha1.GPU
	now     time.Time
	secret  *corev1.Secret
	ready   bool
	probes  []string
	mu      sync.Mutex
	noCreds bool
	// giveUp is the environment's give-up bound (zero: the default).
	giveUp time.Duration
}

func newGPUWorld(t *testing.T) *gpuWorld {
	w := &gpuWorld{t: t, runpod: fakerunpod.New(providerKey), now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	w.api = httptest.NewServer(w.runpod)
	t.Cleanup(w.api.Close)
	w.gpu = &v1alpha1.GPU{}
	if err := yaml.UnmarshalStrict([]byte(testcases.UpstreamGPU), w.gpu); err != nil {
		t.Fatal(err)
	}
	w.gpu.UID, w.gpu.Generation = types.UID("00000000-0000-0000-0000-000000000001"), 1
	w.gpu.Finalizers = []string{v1alpha1.GPUFinalizer}
	return w
}

func (w *gpuWorld) env() gpuEnv {
	return gpuEnv{
		credentials: func() (string, error) {
			if w.noCreds {
				return "", errors.New(`Secret inference-gateway/runpod-credentials has no key "api-key"`)
			}
			return providerKey, nil
		},
		provider: func(name, key string) (gpuprovider.Provider, error) {
			return gpuprovider.New(name, key, gpuprovider.Endpoints{RunPod: w.api.URL})
		},
		probe: func(_ context.Context, url, token string) error {
			w.mu.Lock()
			defer w.mu.Unlock()
			w.probes = append(w.probes, url+" "+token)
			if !w.ready {
				return fmt.Errorf("%s answered 503 Service Unavailable", url)
			}
			return nil
		},
		now:        func() time.Time { return w.now },
		giveUp:     w.giveUp,
		connection: w.secret,
	}
}

// sync runs one sync, keeps its status and Secret, and checks that no credential leaked into
// either the status or the Secret.
func (w *gpuWorld) sync() gpuResult {
	w.t.Helper()
	r := syncGPU(context.Background(), w.gpu, w.env())
	w.gpu.Status = r.status
	if r.connection != nil {
		w.secret = r.connection
	}
	raw, err := yaml.Marshal(r.status)
	if err != nil {
		w.t.Fatal(err)
	}
	if strings.Contains(string(raw), providerKey) {
		w.t.Errorf("the provider's key is in the status:\n%s", raw)
	}
	if w.secret != nil && strings.Contains(fmt.Sprint(w.secret.Data), providerKey) {
		w.t.Errorf("the provider's key is in the connection Secret")
	}
	if w.secret != nil && len(w.secret.Data[connectionTokenKey]) > 0 && strings.Contains(string(raw), string(w.secret.Data[connectionTokenKey])) {
		w.t.Errorf("the allocation's token is in the status:\n%s", raw)
	}
	return r
}

func (w *gpuWorld) expect(r gpuResult, phase v1alpha1.GPUPhase, reason string) {
	w.t.Helper()
	cond := meta.FindStatusCondition(r.status.Conditions, v1alpha1.ConditionReady)
	if r.status.Phase != phase || cond == nil || cond.Reason != reason {
		w.t.Fatalf("phase %s, Ready %+v; want %s, %s", r.status.Phase, cond, phase, reason)
	}
	if cond.ObservedGeneration != w.gpu.Generation || r.status.ObservedGeneration != w.gpu.Generation {
		w.t.Errorf("observedGeneration %d/%d, want %d", cond.ObservedGeneration, r.status.ObservedGeneration, w.gpu.Generation)
	}
}

// TestGPULifecycle walks one GPU through its life against the fake provider: leased once (the
// connection Secret with its token first), starting, running but not ready, ready, expired at
// maxRuntime and released, and not leased again until maxRuntime changes.
func TestGPULifecycle(t *testing.T) {
	w := newGPUWorld(t)

	r := w.sync()
	w.expect(r, v1alpha1.GPUPhasePending, v1alpha1.ReasonGPUPending)
	if len(w.runpod.Pods()) != 0 || w.secret == nil {
		t.Fatalf("leased before the connection Secret held the token: pods %v, Secret %v", w.runpod.Pods(), w.secret)
	}
	r = w.sync()
	w.expect(r, v1alpha1.GPUPhaseProvisioning, v1alpha1.ReasonGPUProvisioning)
	pods := w.runpod.Pods()
	if len(pods) != 1 {
		t.Fatalf("%d pods leased", len(pods))
	}
	pod := pods[0]
	token := string(w.secret.Data[connectionTokenKey])
	if len(token) != 64 || pod.Env["API_KEY"] != token {
		t.Errorf("the runtime's API_KEY %q, the Secret's token %q: the runtime must get the Secret's token", pod.Env["API_KEY"], token)
	}
	if pod.Name != gpuprovider.RunPodName(string(w.gpu.UID)) || pod.ImageName != "vllm/vllm-openai:latest" ||
		strings.Join(pod.GPUTypeIDs, ",") != "NVIDIA A100 80GB PCIe,NVIDIA H100 80GB HBM3" ||
		strings.Join(pod.Ports, ",") != "8000/http" || len(pod.DockerStartCmd) != 10 {
		t.Errorf("pod %+v", pod)
	}
	if w.secret.Name != "ornith-connection" || w.gpu.Status.ConnectionSecretRef.Name != "ornith-connection" {
		t.Errorf("connection Secret %s, status names %v", w.secret.Name, w.gpu.Status.ConnectionSecretRef)
	}
	if got, want := w.gpu.Status.ExpiresAt.Time, w.now.Add(2*time.Hour); !got.Equal(want) {
		t.Errorf("expiresAt %v, want %v", got, want)
	}
	if r.requeueAfter != gpuProvisioningRequeue {
		t.Errorf("requeue after %v", r.requeueAfter)
	}

	// Provisioning again (a restart of the operator) leases nothing new.
	w.gpu.Status.InstanceID = ""
	w.sync()
	if n := len(w.runpod.Pods()); n != 1 {
		t.Fatalf("%d pods after a second provisioning: not idempotent", n)
	}

	w.expect(w.sync(), v1alpha1.GPUPhaseStarting, v1alpha1.ReasonGPUInfrastructureStarting)

	w.runpod.SetStatus(pod.ID, "RUNNING")
	r = w.sync()
	w.expect(r, v1alpha1.GPUPhaseStarting, v1alpha1.ReasonGPUEndpointNotReady)
	wantURL := "https://" + pod.ID + "-8000.proxy.runpod.net"
	if w.gpu.Status.URL != wantURL || len(w.probes) != 1 || w.probes[0] != wantURL+"/health "+token {
		t.Errorf("url %q, probes %q: the probe must GET the readiness path with the token", w.gpu.Status.URL, w.probes)
	}
	if string(w.secret.Data[connectionURLKey]) != "" {
		t.Errorf("the Secret has the url %q before the runtime is ready", w.secret.Data[connectionURLKey])
	}

	w.ready = true
	w.now = w.now.Add(time.Hour + 59*time.Minute + 30*time.Second)
	r = w.sync()
	w.expect(r, v1alpha1.GPUPhaseReady, v1alpha1.ReasonGPUEndpointReady)
	if string(w.secret.Data[connectionURLKey]) != wantURL || string(w.secret.Data[connectionTokenKey]) != token {
		t.Errorf("connection Secret %q: the url once ready, the same token", w.secret.Data)
	}
	if r.requeueAfter != 30*time.Second {
		t.Errorf("requeue after %v, want the 30s left until maxRuntime", r.requeueAfter)
	}

	w.now = w.now.Add(30 * time.Second)
	r = w.sync()
	w.expect(r, v1alpha1.GPUPhaseExpired, v1alpha1.ReasonGPUExpired)
	if len(w.runpod.Pods()) != 0 || w.gpu.Status.InstanceID != "" || w.gpu.Status.URL != "" {
		t.Errorf("after maxRuntime: pods %v, status %+v", w.runpod.Pods(), w.gpu.Status)
	}
	if string(w.secret.Data[connectionURLKey]) != "" {
		t.Errorf("the connection Secret still names the released runtime")
	}

	w.now = w.now.Add(time.Hour)
	if r := w.sync(); r.status.Phase != v1alpha1.GPUPhaseExpired || len(w.runpod.Pods()) != 0 {
		t.Fatalf("an expired GPU was leased again on its own: %s", r.status.Phase)
	}

	// A new maxRuntime leases again.
	w.gpu.Spec.MaxRuntime = metav1.Duration{Duration: 4 * time.Hour}
	w.gpu.Generation = 2
	r = w.sync()
	w.expect(r, v1alpha1.GPUPhaseProvisioning, v1alpha1.ReasonGPUProvisioning)
	if got, want := w.gpu.Status.ExpiresAt.Time, w.now.Add(4*time.Hour); !got.Equal(want) {
		t.Errorf("expiresAt %v, want %v", got, want)
	}
	for _, req := range w.runpod.Requests() {
		if !req.Authorized {
			t.Errorf("%s %s without the provider's key", req.Method, req.Path)
		}
	}
}

// TestGPUMaxRuntimeChangeMovesExpiry: expiresAt follows a changed maxRuntime.
func TestGPUMaxRuntimeChangeMovesExpiry(t *testing.T) {
	w := newGPUWorld(t)
	w.sync()
	w.sync()
	started := w.gpu.Status.StartedAt.Time
	w.gpu.Spec.MaxRuntime = metav1.Duration{Duration: 30 * time.Minute}
	w.gpu.Generation = 2
	w.sync()
	if got := w.gpu.Status.ExpiresAt.Time; !got.Equal(started.Add(30 * time.Minute)) {
		t.Errorf("expiresAt %v, want startedAt + 30m", got)
	}
	w.now = started.Add(31 * time.Minute)
	w.expect(w.sync(), v1alpha1.GPUPhaseExpired, v1alpha1.ReasonGPUExpired)
}

// TestGPUDeletion: a deleted GPU's allocation is released before the finalizer goes; without
// the credentials the finalizer stays and the condition says what to do.
func TestGPUDeletion(t *testing.T) {
	w := newGPUWorld(t)
	w.sync()
	w.sync()
	now := metav1.NewTime(w.now)
	w.gpu.DeletionTimestamp = &now

	w.noCreds = true
	r := w.sync()
	if r.removeFinalizer {
		t.Fatal("the finalizer went although the allocation could not be released")
	}
	cond := meta.FindStatusCondition(r.status.Conditions, v1alpha1.ConditionReady)
	if cond.Reason != v1alpha1.ReasonGPUCleanupBlocked || !strings.Contains(cond.Message, "remove the finalizer "+v1alpha1.GPUFinalizer) || r.requeueAfter != gpuCleanupRequeue {
		t.Errorf("condition %+v, requeue %v", cond, r.requeueAfter)
	}
	if len(w.runpod.Pods()) != 1 {
		t.Fatal("the allocation went without the key")
	}

	w.noCreds = false
	w.runpod.FailNext(http.MethodDelete, http.StatusInternalServerError)
	r = w.sync()
	w.expect(r, v1alpha1.GPUPhaseTerminating, v1alpha1.ReasonGPUCleanupFailed)
	if r.removeFinalizer {
		t.Fatal("the finalizer went although releasing failed")
	}

	r = w.sync()
	if !r.removeFinalizer || len(w.runpod.Pods()) != 0 {
		t.Fatalf("finalizer removed %v, pods %v", r.removeFinalizer, w.runpod.Pods())
	}
}

// TestGPUDeletionGivesUp: a deleted GPU whose allocation cannot be released keeps its
// finalizer until the give-up bound (gpuCleanupGiveUp, or the environment's) after the
// deletion, is looked at again no later than that, and then goes with a message for the
// Warning event that names the allocation, its provider and the bound, never the key.
func TestGPUDeletionGivesUp(t *testing.T) {
	const short = 45 * time.Second
	for _, tc := range []struct {
		name string
		// giveUp is the environment's bound, zero for the default.
		giveUp time.Duration
		// since is how long after the deletion the sync runs.
		since       time.Duration
		noCreds     bool
		failDestroy bool
		wantRemoved bool
		wantReason  string
		// wantRequeue is the requeue of a sync that keeps the finalizer.
		wantRequeue time.Duration
	}{
		{"no credentials, at the deletion", 0, 0, true, false, false, v1alpha1.ReasonGPUCleanupBlocked, gpuCleanupRequeue},
		{"no credentials, 10 s before the bound", 0, gpuCleanupGiveUp - 10*time.Second, true, false, false, v1alpha1.ReasonGPUCleanupBlocked, 10 * time.Second},
		{"no credentials, at the bound", 0, gpuCleanupGiveUp, true, false, true, "", 0},
		{"provider fails, before the bound", 0, time.Minute, false, true, false, v1alpha1.ReasonGPUCleanupFailed, gpuCleanupRequeue},
		{"provider fails, past the bound", 0, gpuCleanupGiveUp + time.Hour, false, true, true, "", 0},
		{"provider answers, past the bound", 0, gpuCleanupGiveUp + time.Hour, false, false, true, "", 0},
		{"short bound, provider fails, 5 s before it", short, short - 5*time.Second, false, true, false, v1alpha1.ReasonGPUCleanupFailed, 5 * time.Second},
		{"short bound, provider fails, at it", short, short, false, true, true, "", 0},
		{"longer bound, provider fails, past the default", time.Hour, gpuCleanupGiveUp + time.Minute, false, true, false, v1alpha1.ReasonGPUCleanupFailed, gpuCleanupRequeue},
		{"longer bound, provider fails, at it", time.Hour, time.Hour, false, true, true, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newGPUWorld(t)
			w.giveUp = tc.giveUp
			w.sync()
			w.sync()
			id := w.gpu.Status.InstanceID
			deleted := metav1.NewTime(w.now)
			w.gpu.DeletionTimestamp = &deleted
			w.now = w.now.Add(tc.since)
			w.noCreds = tc.noCreds
			if tc.failDestroy {
				w.runpod.FailNext(http.MethodDelete, http.StatusInternalServerError)
			}
			r := w.sync()
			if r.removeFinalizer != tc.wantRemoved {
				t.Fatalf("finalizer removed %v, want %v", r.removeFinalizer, tc.wantRemoved)
			}
			released := len(w.runpod.Pods()) == 0
			if abandonedWant := tc.wantRemoved && (tc.noCreds || tc.failDestroy); (r.abandoned != "") != abandonedWant {
				t.Fatalf("abandoned %q, want a message %v", r.abandoned, abandonedWant)
			}
			if r.abandoned != "" {
				if released {
					t.Error("given up, yet the allocation was released")
				}
				bound := cmp.Or(tc.giveUp, gpuCleanupGiveUp)
				for _, want := range []string{id, string(w.gpu.Spec.Provider), bound.String(), "release it at the provider"} {
					if !strings.Contains(r.abandoned, want) {
						t.Errorf("the event's message %q does not say %q", r.abandoned, want)
					}
				}
				if strings.Contains(r.abandoned, providerKey) {
					t.Errorf("the provider's key is in the event's message %q", r.abandoned)
				}
			}
			if tc.wantRemoved {
				return
			}
			cond := meta.FindStatusCondition(r.status.Conditions, v1alpha1.ConditionReady)
			if cond == nil || cond.Reason != tc.wantReason || !strings.Contains(cond.Message, "gives up") {
				t.Errorf("condition %+v, want reason %s saying when the operator gives up", cond, tc.wantReason)
			}
			if r.requeueAfter != tc.wantRequeue {
				t.Errorf("requeue after %v, want %v", r.requeueAfter, tc.wantRequeue)
			}
		})
	}
}

// TestGPUGiveUpSetting: GPU_RELEASE_GIVE_UP sets the give-up bound; unset it is the default,
// and a value that is no positive duration gives the default with an error naming the variable
// (logged at the start), never a bound of zero that would drop every allocation at once.
func TestGPUGiveUpSetting(t *testing.T) {
	for _, tc := range []struct {
		name, value string
		want        time.Duration
		wantErr     bool
	}{
		{"unset", "", gpuCleanupGiveUp, false},
		{"seconds", "45s", 45 * time.Second, false},
		{"longer than the default", "1h30m", 90 * time.Minute, false},
		{"not a duration", "ten minutes", gpuCleanupGiveUp, true},
		{"no unit", "600", gpuCleanupGiveUp, true},
		{"zero", "0s", gpuCleanupGiveUp, true},
		{"negative", "-5m", gpuCleanupGiveUp, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReleaseGiveUp(tc.value)
			if got != tc.want {
				t.Errorf("bound %v, want %v", got, tc.want)
			}
			if (err != nil) != tc.wantErr {
				t.Fatalf("error %v, want one %v", err, tc.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), GiveUpEnv) {
				t.Errorf("the error %q does not name %s", err, GiveUpEnv)
			}
		})
	}
	t.Run("read from the environment", func(t *testing.T) {
		t.Setenv(GiveUpEnv, "2m")
		if got := gpuGiveUpFromEnv(); got != 2*time.Minute {
			t.Errorf("bound %v, want 2m", got)
		}
	})
}

// TestGPUDeletionWithTheKeptKey: a deleted GPU whose credentials Secret is gone releases its
// allocation with its copy of the key; a copy with a key the provider refuses, or no copy, keeps
// the finalizer and says why.
func TestGPUDeletionWithTheKeptKey(t *testing.T) {
	for _, tc := range []struct {
		name        string
		kept        string // the copy's key; "" is no copy
		wantRemoved bool
		wantReason  string
	}{
		{"the copy holds the key", providerKey, true, ""},
		{"the copy holds a key the provider refuses", "not-the-key", false, v1alpha1.ReasonGPUCleanupFailed},
		{"no copy", "", false, v1alpha1.ReasonGPUCleanupBlocked},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newGPUWorld(t)
			w.sync()
			w.sync()
			deleted := metav1.NewTime(w.now)
			w.gpu.DeletionTimestamp = &deleted
			w.noCreds = true
			env := w.env()
			if tc.kept != "" {
				env.keptCredentials = func() (string, error) { return tc.kept, nil }
			}
			r := syncGPU(context.Background(), w.gpu, env)
			if r.removeFinalizer != tc.wantRemoved || (len(w.runpod.Pods()) == 0) != tc.wantRemoved || r.abandoned != "" {
				t.Fatalf("finalizer removed %v (want %v), pods %v, abandoned %q", r.removeFinalizer, tc.wantRemoved, w.runpod.Pods(), r.abandoned)
			}
			if tc.wantRemoved {
				return
			}
			cond := meta.FindStatusCondition(r.status.Conditions, v1alpha1.ConditionReady)
			if cond == nil || cond.Reason != tc.wantReason {
				t.Fatalf("condition %+v, want reason %s", cond, tc.wantReason)
			}
			if strings.Contains(cond.Message, providerKey) || strings.Contains(cond.Message, "not-the-key") {
				t.Errorf("a key in the condition: %s", cond.Message)
			}
		})
	}
}

// TestProviderKeyWanted: the copy of the key is kept while the GPU may hold an allocation.
func TestProviderKeyWanted(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status v1alpha1.GPUStatus
		want   bool
	}{
		{"new", v1alpha1.GPUStatus{}, true},
		{"pending, about to lease", v1alpha1.GPUStatus{Phase: v1alpha1.GPUPhasePending}, true},
		{"leased", v1alpha1.GPUStatus{Phase: v1alpha1.GPUPhaseReady, InstanceID: "pod-1"}, true},
		{"failed, still leased", v1alpha1.GPUStatus{Phase: v1alpha1.GPUPhaseFailed, InstanceID: "pod-1"}, true},
		{"terminating after maxRuntime", v1alpha1.GPUStatus{Phase: v1alpha1.GPUPhaseTerminating, InstanceID: "pod-1"}, true},
		{"expired, released", v1alpha1.GPUStatus{Phase: v1alpha1.GPUPhaseExpired}, false},
	} {
		if got := providerKeyWanted(tc.status); got != tc.want {
			t.Errorf("%s: providerKeyWanted %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestGPUFailures: each way the provider fails is phase Failed with its reason, retried slowly;
// none of the messages carries the provider's key.
func TestGPUFailures(t *testing.T) {
	for _, tc := range []struct {
		name   string
		setup  func(w *gpuWorld)
		reason string
	}{
		{"no credentials", func(w *gpuWorld) { w.noCreds = true }, v1alpha1.ReasonGPUProviderUnavailable},
		{"provisioning refused", func(w *gpuWorld) {
			w.sync()
			w.runpod.FailNext(http.MethodPost, http.StatusForbidden)
		}, v1alpha1.ReasonGPUProvisionFailed},
		{"allocation lost", func(w *gpuWorld) {
			w.sync()
			w.sync()
			w.runpod.Remove(w.gpu.Status.InstanceID)
		}, v1alpha1.ReasonGPUAllocationLost},
		{"provider reports failure", func(w *gpuWorld) {
			w.sync()
			w.sync()
			w.runpod.SetStatus(w.gpu.Status.InstanceID, "FAILED")
		}, v1alpha1.ReasonGPUProviderFailed},
		{"terminated outside", func(w *gpuWorld) {
			w.sync()
			w.sync()
			w.runpod.SetStatus(w.gpu.Status.InstanceID, "EXITED")
		}, v1alpha1.ReasonGPUAllocationTerminated},
		{"provider error", func(w *gpuWorld) {
			w.sync()
			w.sync()
			w.runpod.FailNext(http.MethodGet, http.StatusBadGateway)
		}, v1alpha1.ReasonGPUProviderError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newGPUWorld(t)
			tc.setup(w)
			r := w.sync()
			w.expect(r, v1alpha1.GPUPhaseFailed, tc.reason)
			if r.requeueAfter != gpuFailedRequeue {
				t.Errorf("requeue after %v", r.requeueAfter)
			}
		})
	}
}

// TestRunPodNeverSendsTheKeyElsewhere: the driver authenticates to the provider with the key, in
// the header only; a refused request's error says the status, not what the provider answered.
func TestRunPodNeverSendsTheKeyElsewhere(t *testing.T) {
	var gotAuth, gotQuery string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotAuth, gotQuery = r.Header.Get("Authorization"), r.URL.RawQuery
		http.Error(w, "invalid key "+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "), http.StatusUnauthorized)
	}))
	defer srv.Close()
	_, err := gpuprovider.NewRunPod(providerKey, srv.URL, "").Get(context.Background(), "pod1")
	if gotAuth != "Bearer "+providerKey || gotQuery != "" {
		t.Errorf("Authorization %q, query %q", gotAuth, gotQuery)
	}
	if err == nil || strings.Contains(err.Error(), providerKey) {
		t.Errorf("error %v", err)
	}
}

// TestRunPodProxyURL: an allocation's URL is RunPod's proxy of its http port, or the configured
// proxy's (the e2e suite's fake) with the same pod and port.
func TestRunPodProxyURL(t *testing.T) {
	for _, tc := range []struct{ proxy, want string }{
		{"", "https://pod001-8000.proxy.runpod.net"},
		{"http://127.0.0.1:1/proxy/", "http://127.0.0.1:1/proxy/pod001-8000"},
	} {
		api := fakerunpod.New(providerKey)
		srv := httptest.NewServer(api)
		a, err := gpuprovider.NewRunPod(providerKey, srv.URL, tc.proxy).Provision(context.Background(),
			gpuprovider.ProvisionRequest{UID: "u1", Image: "img", GPUTypes: []string{"t"}, Port: 8000})
		srv.Close()
		if err != nil || a.URL != tc.want {
			t.Errorf("proxy %q: URL %q, error %v; want %q", tc.proxy, a.URL, err, tc.want)
		}
	}
}

// TestProbeReadiness: the probe sends the token as bearer, takes any 2xx as ready and does not
// follow a redirect (issue 33), even to an address that would answer 200.
func TestProbeReadiness(t *testing.T) {
	status := http.StatusServiceUnavailable
	var redirectedTo int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/redirect" {
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
			return
		}
		if r.URL.Path == "/elsewhere" {
			redirectedTo++
			w.WriteHeader(http.StatusOK)
			return
		}
		if r.Header.Get("Authorization") != "Bearer tok" || r.URL.Path != "/health" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.WriteHeader(status)
	}))
	defer srv.Close()
	probe := ProbeReadiness(srv.Client())
	if err := probe(context.Background(), srv.URL+"/health", "tok"); err == nil || strings.Contains(err.Error(), "tok ") {
		t.Errorf("503: %v", err)
	}
	status = http.StatusNoContent
	if err := probe(context.Background(), srv.URL+"/health", "tok"); err != nil {
		t.Errorf("204: %v", err)
	}
	if err := probe(context.Background(), srv.URL+"/redirect", "tok"); err == nil || !strings.Contains(err.Error(), "redirects are not followed") {
		t.Errorf("302: %v, want an error that names the redirect", err)
	}
	if redirectedTo != 0 {
		t.Errorf("the redirect was followed %d times", redirectedTo)
	}
	if srv.Client().CheckRedirect != nil {
		t.Errorf("the caller's client was changed")
	}
}

// TestReportAbandonedOnce: a GPU given up twice (a second sync from a cache that has not seen
// its finalizer go) is reported once, on the GPU and in the operator's namespace; another GPU
// is reported too.
func TestReportAbandonedOnce(t *testing.T) {
	gpuEvents := events.NewInMemoryRecorder("gpu", clock.RealClock{})
	operatorEvents := events.NewInMemoryRecorder("operator", clock.RealClock{})
	o := &gpuOperand{operatorEvents: operatorEvents}
	run := func(name, uid string) *gpuRun {
		return &gpuRun{CR: &v1alpha1.GPU{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID(uid)}}, Recorder: gpuEvents}
	}
	o.reportAbandoned(run("a", "u1"), "gave up releasing allocation pod001")
	o.reportAbandoned(run("a", "u1"), "gave up releasing allocation pod001: the provider's key is gone")
	o.reportAbandoned(run("b", "u2"), "gave up releasing allocation pod002")
	for _, r := range []struct {
		name     string
		recorder events.InMemoryRecorder
	}{{"GPU", gpuEvents}, {"operator", operatorEvents}} {
		var got []string
		for _, ev := range r.recorder.Events() {
			if ev.Reason == v1alpha1.ReasonGPUAllocationAbandoned && ev.Type == corev1.EventTypeWarning {
				got = append(got, ev.Message)
			}
		}
		if len(got) != 2 || !strings.Contains(got[0], "pod001") || !strings.Contains(got[1], "pod002") {
			t.Errorf("%s events %q, want one for pod001, then one for pod002", r.name, got)
		}
	}
	if got := operatorEvents.Events(); len(got) > 0 && !strings.Contains(got[0].Message, "ns/a") {
		t.Errorf("the operator's event %q does not name the GPU ns/a", got[0].Message)
	}
}
