package inferencegatewayagents

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"reflect"
	"regexp"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/llm-infra/llm-infra-operator/pkg/apis/crdtest"
	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1/testcases"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine/enginetest"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/operands/inferencegatewayagents/gpuprovider"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/operands/inferencegatewayagents/gpuprovider/fakerunpod"
	"github.com/llm-infra/llm-infra-operator/test/differential"
)

// TestDifferentialGPU leases GPUs generated from upstream's CRD with upstream's own GPUReconciler
// (hack/tools/igwrender: its RunPod driver and readiness probe, unchanged) and with the
// operator's GPU sync (syncGPU, one step after the other as the engine runs it, and the Secrets
// the GPU kind renders), both against one fake RunPod (fakerunpod, reset between the two: a pod
// starts at its second GET, its proxy answers 200 with the pod's token) at GPUClock, each until
// a step changes nothing. It compares what each wrote (the connection Secret, keys and values;
// the token as "a 64-digit hex token that the runtime got as API_KEY"), the status, and what
// each sent to the provider (the create request's body; the requests and readiness probes
// made). Every difference must be one of gpuDifferences (predicates over the GPU with their
// reasons, docs/differences-from-upstream.md), or the test fails with the smallest GPU that
// shows it. GPUs only upstream's CRD admits are counted as refused by design, by the field our
// CRD refuses.
//
// Not compared: the engine's part (the finalizer, the controller owner reference and the
// Degraded condition, which TestGPUController tests); the lease's later life (expiry, deletion),
// which needs time to pass (TestGPULifecycle, TestGPUDeletion).
func TestDifferentialGPU(t *testing.T) {
	want, seed := differential.Size(t)
	ours, err := crdtest.Load(gpuCRDPath)
	if err != nil {
		t.Fatal(err)
	}
	theirs := differential.InferenceGatewayCRDs(t)
	runpod := fakerunpod.New(providerKey)
	runpod.StartAfterGets(gpuStartsAtGet)
	api := httptest.NewServer(runpod)
	t.Cleanup(api.Close)
	proxy := differential.StartRunPodProxy(t, runpod.Proxy())
	upstream := differential.StartInferenceGatewayUpstreamWith(t, differential.UpstreamOptions{RunPodAPI: api.URL, RunPodProxy: proxy})
	pool := differential.Pool{}
	for _, c := range testcases.GPUAccepted {
		pool.Add(".spec", crdtest.Object(t, c)["spec"])
	}
	byDesign := map[string]int{}
	counted := map[string]bool{}
	descriptions := make([]string, len(gpuDifferences))
	for i, d := range gpuDifferences {
		descriptions[i] = d.String()
	}
	run := &differential.Differential{
		APIVersion: "core.inference-gateway.com/v1alpha1", Kind: "GPU", Namespace: testNS,
		Generator: &differential.Generator{Schema: theirs["GPU"].Structural(), Pool: pool, Optional: 0.4},
		Admit: func(cr map[string]interface{}) (map[string]interface{}, map[string]interface{}, bool) {
			stored, _, err := theirs.Stored(cr, nil)
			if err != nil {
				return nil, nil, false
			}
			oursCR, errs := ours.Create(runtime.DeepCopyJSON(cr))
			if len(errs) > 0 {
				// Upstream admits it, this operator's CRD refuses it: by design (the CRD's rules
				// and docs/differences-from-upstream.md), counted once per generated GPU.
				if name := fmt.Sprint(cr["metadata"].(map[string]interface{})["name"]); !counted[name] {
					counted[name] = true
					byDesign[errs[0].Field+": "+string(errs[0].Type)]++
				}
				return nil, nil, false
			}
			return oursCR, stored, true
		},
		Intended: descriptions,
		Compare: func(oursCR, theirsCR map[string]interface{}) (differential.Outcome, error) {
			return compareGPU(t, upstream, runpod, api.URL, proxy, oursCR, theirsCR)
		},
	}
	run.Run(t, want, seed)
	total := 0
	for _, n := range byDesign {
		total += n
	}
	t.Logf("GPU: %d generated GPUs upstream's CRD admits and this operator's refuses by design: %v", total, byDesign)
}

const gpuCRDPath = "../../../../deploy/00_core.inference-gateway.com_gpus.crd.yaml"

// gpuStartsAtGet: a fake pod runs from its second GET on, so both sides see it start
// (InfrastructureStarting) and then run.
const gpuStartsAtGet = 2

// gpuMaxSyncs bounds the operator's steps, as igw-render's passes bound upstream's.
const gpuMaxSyncs = 10

// gpuDifference is an intended difference of a GPU's lease from upstream's: the differences
// matches accepts, with the reason (docs/differences-from-upstream.md).
type gpuDifference struct {
	says    string
	matches func(g *v1alpha1.GPU, o enginetest.GoldenObject, d enginetest.FieldDiff) bool
	reason  string
}

func (d gpuDifference) String() string { return fmt.Sprintf("GPU: %s (%s)", d.says, d.reason) }

// The pseudo-objects compared beside the Secrets and the status.
const (
	// provisionKind is the body of the request that created the pod.
	provisionKind = "provision"
	// requestsKind is every distinct request to the provider's API, with whether it carried
	// the provider's key.
	requestsKind = "requests"
	// probesKind is every distinct readiness probe, with the proxy's answer and whether it
	// carried the pod's token.
	probesKind = "probes"
)

var (
	connectionLabel = regexp.MustCompile(`^metadata\.labels\["app\.kubernetes\.io/(name|instance|component|part-of)"\]$`)
	ownerReference  = regexp.MustCompile(`^metadata\.ownerReferences\[0\]\.\w+$`)
)

// isConnection says whether o is the GPU's connection Secret.
func isConnection(g *v1alpha1.GPU, o enginetest.GoldenObject, d enginetest.FieldDiff) bool {
	return o.Kind == "Secret" && d.Name == ConnectionSecretName(g.Name)
}

var gpuDifferences = []gpuDifference{
	{"the connection Secret's labels app.kubernetes.io/name, instance, component and part-of", func(g *v1alpha1.GPU, o enginetest.GoldenObject, d enginetest.FieldDiff) bool {
		return isConnection(g, o, d) && !o.OneSided && d.Golden == enginetest.Absent && connectionLabel.MatchString(d.Path)
	}, "one label set on every object (reference §7.18): upstream's connection Secret had none"},
	{"the connection Secret's owner reference, which the rendering leaves to the engine", func(g *v1alpha1.GPU, o enginetest.GoldenObject, d enginetest.FieldDiff) bool {
		return isConnection(g, o, d) && !o.OneSided && d.Ours == enginetest.Absent && ownerReference.MatchString(d.Path)
	}, "the engine sets the controller owner reference to the GPU when it applies an object (TestGPUController checks it)"},
	{"the connection Secret's type Opaque", func(g *v1alpha1.GPU, o enginetest.GoldenObject, d enginetest.FieldDiff) bool {
		return isConnection(g, o, d) && !o.OneSided && d.Path == "type" && d.Golden == enginetest.Absent && d.Ours == string(corev1.SecretTypeOpaque)
	}, "written as the API server defaults it: upstream's fake-client store kept none (the same Secret on a cluster)"},
	{"the GPU's copy of the provider's key, Secret <name>-provider-key, while it may hold an allocation", func(g *v1alpha1.GPU, o enginetest.GoldenObject, d enginetest.FieldDiff) bool {
		return o.Kind == "Secret" && o.OneSided && d.Name == ProviderKeySecretName(g.Name) && d.Golden == enginetest.Absent
	}, "a namespace's deletion deletes spec.credentialsRef's Secret with the GPU: the copy releases the allocation then (upstream's GPU blocked the namespace forever)"},
	{"spec.credentialsRef.name is empty (upstream's default), so no Secret holds the key: the Ready condition's message", func(g *v1alpha1.GPU, o enginetest.GoldenObject, d enginetest.FieldDiff) bool {
		return g.Spec.CredentialsRef.Name == "" && o.Kind == statusKind && d.Path == "conditions[0].message"
	}, "both fail with phase Failed and reason ProviderUnavailable; the operator's message names the Secret as namespace/name and the key, in its own words, as every GPU message (upstream's quoted its client's error)"},
}

// compareGPU leases an admitted GPU both ways and returns what differs.
func compareGPU(t *testing.T, upstream *differential.InferenceGatewayUpstream, runpod *fakerunpod.Server, apiURL string, proxy *differential.RunPodProxy, oursCR, theirsCR map[string]interface{}) (differential.Outcome, error) {
	out := differential.NewOutcome()
	g := &v1alpha1.GPU{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(oursCR, g); err != nil {
		return out, err
	}
	g.Generation = 1
	// No Secret has an empty name: a GPU whose spec.credentialsRef.name is empty (upstream's
	// default) finds none.
	credentials := credentialsSecret(g)
	var supporting []map[string]interface{}
	if credentials != nil {
		supporting = append(supporting, toMap(t, credentials))
	}

	runpod.Reset()
	objects, upstreamStatus, upErr := upstream.Render(theirsCR, supporting)
	theirs := providerSide(t, runpod)
	runpod.Reset()
	result, connection := leaseGPU(t, g, credentials, apiURL, proxy)
	mine := providerSide(t, runpod)
	if upErr != nil {
		out.Unlisted["render error"] = fmt.Sprintf("upstream %v", upErr)
		return out, nil
	}

	golden := map[string]map[string]any{}
	for _, o := range objects {
		content := normalizeSecret(t, &unstructured.Unstructured{Object: o}, theirs.token)
		golden[enginetest.ObjectKey(content)] = enginetest.Flatten(content)
	}
	oursObjects := map[string]map[string]any{}
	if connection != nil {
		content := normalizeSecret(t, connection, mine.token)
		oursObjects[enginetest.ObjectKey(content)] = enginetest.Flatten(content)
	}
	key, _ := readProviderKey(g, credentials)
	if kept, wanted, err := providerKeySecret(g, result.status, key); err != nil {
		return out, err
	} else if wanted {
		content := normalizeSecret(t, kept, mine.token)
		oursObjects[enginetest.ObjectKey(content)] = enginetest.Flatten(content)
	}
	golden[statusKind+"/cr"] = enginetest.Flatten(upstreamStatus)
	oursObjects[statusKind+"/cr"] = enginetest.Flatten(gpuStatusAsRendered(t, result.status))
	theirs.add(golden)
	mine.add(oursObjects)

	objs := enginetest.GoldenObjects(golden, oursObjects)
	for _, d := range enginetest.DiffFlattened(golden, oursObjects) {
		if i := slices.IndexFunc(gpuDifferences, func(want gpuDifference) bool { return want.matches(g, objs[d.Object()], d) }); i >= 0 {
			out.Matched[i] = true
			continue
		}
		key := differential.DiffKey(d.Kind, d.Path)
		if d.Path == "" {
			key = d.Kind + " " + d.Name + " object on one side"
		}
		out.Unlisted[key] = d.String()
	}
	return out, nil
}

// credentialsSecret is spec.credentialsRef's Secret holding the fake provider's key; nil when
// the name is empty.
func credentialsSecret(g *v1alpha1.GPU) *corev1.Secret {
	ref := g.Spec.CredentialsRef
	if ref.Name == "" {
		return nil
	}
	return &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Namespace: g.Namespace, Name: ref.Name},
		Data:       map[string][]byte{ref.Key: []byte(providerKey)},
	}
}

// leaseGPU runs the operator's steps for g against the fake provider until one changes neither
// the status nor the connection Secret, with credentials (nil: none) as the Secrets' cache
// holds it; it returns the last step's result and the connection Secret as applied.
func leaseGPU(t *testing.T, g *v1alpha1.GPU, credentials *corev1.Secret, apiURL string, proxy *differential.RunPodProxy) (gpuResult, *corev1.Secret) {
	t.Helper()
	g = g.DeepCopy()
	readKey := func() (string, error) { return readProviderKey(g, credentials) }
	var connection *corev1.Secret
	var last gpuResult
	for step := 0; step < gpuMaxSyncs; step++ {
		r := syncGPU(context.Background(), g, gpuEnv{
			credentials: readKey,
			provider: func(name, key string) (gpuprovider.Provider, error) {
				return gpuprovider.New(name, key, gpuprovider.Endpoints{RunPod: apiURL})
			},
			probe:      ProbeReadiness(proxy.Client),
			now:        func() time.Time { return differential.GPUClock },
			connection: connection,
		})
		changed := r.connection != nil && (connection == nil || !reflect.DeepEqual(r.connection.Data, connection.Data))
		if r.connection != nil {
			connection = r.connection
		}
		if step > 0 && !changed && reflect.DeepEqual(r.status, last.status) {
			return r, connection
		}
		g.Status, last = r.status, r
	}
	t.Fatalf("GPU %s: the operator's steps did not settle in %d", g.Name, gpuMaxSyncs)
	return last, nil
}

// readProviderKey is the provider's key as the operator reads it from credentials (nil: the
// Secret is not there).
func readProviderKey(g *v1alpha1.GPU, credentials *corev1.Secret) (string, error) {
	ref := types.NamespacedName{Namespace: g.Namespace, Name: g.Spec.CredentialsRef.Name}
	if credentials == nil {
		return providerKeyIn(ref, g.Spec.CredentialsRef.Key, nil, apierrors.NewNotFound(corev1.Resource("secrets"), ref.Name))
	}
	return providerKeyIn(ref, g.Spec.CredentialsRef.Key, credentials, nil)
}

// gpuStatusAsRendered is the status as both sides are compared: condition times are the fixed
// ones igw-render writes (both clocks stand at GPUClock).
func gpuStatusAsRendered(t *testing.T, s v1alpha1.GPUStatus) map[string]any {
	t.Helper()
	m := toMap(t, s)
	conditions, _ := m["conditions"].([]any)
	for _, c := range conditions {
		c.(map[string]any)["lastTransitionTime"] = "1970-01-01T00:00:00Z"
	}
	return m
}

// tokenPattern is an allocation's token, as both sides make it: 32 random bytes in hex.
var tokenPattern = regexp.MustCompile(`^[0-9a-f]{64}$`)

// theToken stands for the allocation's token where it is the one the runtime was leased with.
const theToken = "<the 64-digit hex token the pod got as API_KEY>"

// normalizeSecret is a Secret as compared: built-in through its Go type, data decoded, and the
// allocation's token (token, the API_KEY the side's pod was created with) replaced by theToken
// when it is one; the provider's key by a placeholder.
func normalizeSecret(t *testing.T, obj runtime.Object, token string) map[string]any {
	t.Helper()
	content := enginetest.TypedContent(t, obj)
	data, _ := content["data"].(map[string]any)
	for k, v := range data {
		raw, err := base64.StdEncoding.DecodeString(fmt.Sprint(v))
		if err != nil {
			t.Fatalf("Secret data %s: %v", k, err)
		}
		value := string(raw)
		switch {
		case value == providerKey:
			value = "<the provider's key>"
		case value == token && tokenPattern.MatchString(value):
			value = theToken
		}
		data[k] = value
	}
	return content
}

// providerCalls is what one side sent to the fake provider.
type providerCalls struct {
	// token is the API_KEY of the pod it created ("" for none).
	token string
	// provision is the create request's body, its token replaced by theToken.
	provision map[string]any
	// requests and probes are every distinct request to the API and the proxy, as a set.
	requests, probes map[string]any
}

func providerSide(t *testing.T, runpod *fakerunpod.Server) providerCalls {
	t.Helper()
	calls := providerCalls{requests: map[string]any{}, probes: map[string]any{}}
	for _, r := range runpod.Requests() {
		calls.requests[fmt.Sprintf("%s %s, the provider's key %v", r.Method, r.Path, r.Authorized)] = "sent"
		if r.Method != "POST" || r.Path != "/pods" {
			continue
		}
		if err := json.Unmarshal([]byte(r.Body), &calls.provision); err != nil {
			t.Fatalf("the create request's body %q: %v", r.Body, err)
		}
		if env, ok := calls.provision["env"].(map[string]any); ok {
			calls.token, _ = env["API_KEY"].(string)
			if tokenPattern.MatchString(calls.token) {
				env["API_KEY"] = theToken
			}
		}
	}
	for _, p := range runpod.Probes() {
		calls.probes[fmt.Sprintf("GET https://%s%s, the pod's token %v: %d", p.Host, p.Path, p.Authorized, p.Code)] = "sent"
	}
	return calls
}

// add puts the calls into objects, as the pseudo-objects provisionKind, requestsKind and
// probesKind.
func (c providerCalls) add(objects map[string]map[string]any) {
	if c.provision != nil {
		objects[provisionKind+"/pod"] = enginetest.Flatten(c.provision)
	}
	objects[requestsKind+"/api"] = flatStrings(c.requests)
	objects[probesKind+"/proxy"] = flatStrings(c.probes)
}

// flatStrings is a map of strings flattened under bracketed keys (a key holds "/" and spaces).
func flatStrings(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[fmt.Sprintf("[%q]", k)] = v
	}
	return out
}
