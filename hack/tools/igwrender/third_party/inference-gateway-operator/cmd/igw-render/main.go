// Command igw-render runs the upstream inference-gateway operator's reconcilers, unchanged,
// against controller-runtime's in-memory fake client, as test/golden/README.md describes: the
// CR (and the supporting objects that existed before) in the store, Reconcile of the CR's kind's
// reconciler called until a pass changes nothing (at most maxPasses), then every object the
// reconciler created, and the CR's status.
//
// Protocol: one JSON request a line on stdin, {"cr": {...}, "supporting": [{...}, ...]} (the CR
// defaulted by upstream's CRD; supporting Agents and MCPs likewise, with the status they show);
// one JSON line a request on stdout, {"objects": [...], "status": {...}} or {"error": "..."}.
// Objects are as the store keeps them, without metadata.resourceVersion, managedFields,
// creationTimestamp and status; condition times in the status are 1970-01-01T00:00:00Z.
//
// The Agent reconciler reads each Agent's card over HTTP from <agent>.<ns>.svc.cluster.local:
// every such address is dialled at -card-address instead (the golden test's card server).
//
// The GPU reconciler runs with upstream's RunPod driver pointed at -runpod-api (a fake RunPod
// API, through the reconciler's NewProvider hook; upstream's own gpu.NewProvider for any other
// provider name) and upstream's own readiness probe, whose https://<pod>-<port>.proxy.runpod.net
// is dialled at -runpod-proxy-address, trusting only the certificate of -runpod-proxy-ca; its
// clock stands at -clock. The request's supporting objects hold the credentials Secret.
//
// Every address given must be loopback; nothing else is reachable.
//
// The store folds a Secret's stringData into its data on every create and update, as the API
// server does (controller-runtime's fake client does not): upstream's GPU reconciler writes its
// connection Secret with stringData and reads the token back from data.
//
// This file is not upstream's: it is the harness around upstream's code (the rest of this
// module, copied unchanged; hack/tools/igwrender/README.md).
package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"reflect"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	gwapiv1 "sigs.k8s.io/gateway-api/apis/v1"

	v1alpha1 "github.com/inference-gateway/operator/api/v1alpha1"
	"github.com/inference-gateway/operator/internal/controller"
	"github.com/inference-gateway/operator/internal/gpu"
)

// maxPasses bounds the passes; every golden case settles after two.
const maxPasses = 10

// conditionTime replaces the clock's condition times, as in the golden status.yaml files.
const conditionTime = "1970-01-01T00:00:00Z"

type request struct {
	CR         map[string]interface{}   `json:"cr"`
	Supporting []map[string]interface{} `json:"supporting"`
}

type response struct {
	Objects []map[string]interface{} `json:"objects,omitempty"`
	Status  map[string]interface{}   `json:"status,omitempty"`
	Error   string                   `json:"error,omitempty"`
}

// lists are the kinds the reconcilers create (and the supporting objects' kinds).
func lists() []client.ObjectList {
	return []client.ObjectList{
		&corev1.ConfigMapList{}, &corev1.SecretList{}, &corev1.ServiceList{}, &corev1.ServiceAccountList{},
		&appsv1.DeploymentList{}, &autoscalingv2.HorizontalPodAutoscalerList{},
		&gwapiv1.GatewayList{}, &gwapiv1.HTTPRouteList{},
	}
}

func newScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	must(clientgoscheme.AddToScheme(s))
	must(v1alpha1.AddToScheme(s))
	must(gwapiv1.Install(s))
	return s
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// world is what the reconcilers reach outside the store.
type world struct {
	// runPodAPI is the fake RunPod API's base URL, "" for none.
	runPodAPI string
	// clock is the GPU reconciler's Now.
	clock time.Time
}

func main() {
	cardAddress := flag.String("card-address", "", "host:port answering every *.svc.cluster.local address (the agent-card server); empty: none answers")
	runPodAPI := flag.String("runpod-api", "", "base URL of the (fake) RunPod API, loopback; empty: no GPU can be rendered")
	proxyAddress := flag.String("runpod-proxy-address", "", "host:port answering every *.proxy.runpod.net address over TLS (the readiness probe's stand-in), loopback")
	proxyCA := flag.String("runpod-proxy-ca", "", "PEM file of the certificate -runpod-proxy-address presents")
	clock := flag.String("clock", "2026-01-02T03:04:05Z", "the GPU reconciler's time (RFC 3339)")
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.WriteTo(io.Discard)))
	w := world{runPodAPI: *runPodAPI}
	var err error
	if w.clock, err = time.Parse(time.RFC3339, *clock); err != nil {
		fatal(err)
	}
	transport, err := newTransport(*cardAddress, *runPodAPI, *proxyAddress, *proxyCA)
	if err != nil {
		fatal(err)
	}
	http.DefaultTransport = transport

	scheme := newScheme()
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := json.NewEncoder(os.Stdout)
	for {
		line, err := in.ReadBytes('\n')
		if len(strings.TrimSpace(string(line))) > 0 {
			var req request
			res := response{}
			if err := json.Unmarshal(line, &req); err != nil {
				res.Error = err.Error()
			} else if objects, status, err := render(scheme, w, req); err != nil {
				res.Error = err.Error()
			} else {
				res.Objects, res.Status = objects, status
			}
			must(out.Encode(res))
		}
		if err != nil {
			return
		}
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "igw-render:", err)
	os.Exit(2)
}

// newTransport dials cardAddress for every *.svc.cluster.local host, proxyAddress (TLS, trusting
// proxyCA alone) for every *.proxy.runpod.net host, runPodAPI's own address for its host, and
// refuses the rest. Every address must be loopback.
func newTransport(cardAddress, runPodAPI, proxyAddress, proxyCA string) (*http.Transport, error) {
	routes := map[string]string{}
	if cardAddress != "" {
		routes[".svc.cluster.local"] = cardAddress
	}
	if proxyAddress != "" {
		routes[".proxy.runpod.net"] = proxyAddress
	}
	apiHost := ""
	if runPodAPI != "" {
		u, err := url.Parse(runPodAPI)
		if err != nil || u.Scheme != "http" || u.Port() == "" {
			return nil, fmt.Errorf("-runpod-api %q: want http://<loopback address>:<port>", runPodAPI)
		}
		apiHost = u.Host
	}
	for _, address := range []string{cardAddress, proxyAddress, apiHost} {
		if address == "" {
			continue
		}
		host, _, err := net.SplitHostPort(address)
		if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
			return nil, fmt.Errorf("address %q is not a loopback host:port", address)
		}
	}
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: x509.NewCertPool()}
	if proxyCA != "" {
		pemData, err := os.ReadFile(proxyCA)
		if err != nil {
			return nil, err
		}
		if !tlsConfig.RootCAs.AppendCertsFromPEM(pemData) {
			return nil, fmt.Errorf("-runpod-proxy-ca %s: no certificate", proxyCA)
		}
	}
	dialer := &net.Dialer{}
	return &http.Transport{
		Proxy: nil,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if apiHost != "" && addr == apiHost {
				return dialer.DialContext(ctx, network, addr)
			}
			host, _, err := net.SplitHostPort(addr)
			if err != nil {
				return nil, err
			}
			for suffix, to := range routes {
				if strings.HasSuffix(host, suffix) {
					return dialer.DialContext(ctx, network, to)
				}
			}
			return nil, fmt.Errorf("dial %s: no such host in the renderer", addr)
		},
		TLSClientConfig:   tlsConfig,
		DisableKeepAlives: true,
	}, nil
}

func typed(scheme *runtime.Scheme, content map[string]interface{}) (client.Object, error) {
	u := &unstructured.Unstructured{Object: content}
	obj, err := scheme.New(u.GroupVersionKind())
	if err != nil {
		return nil, err
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(content, obj); err != nil {
		return nil, err
	}
	return obj.(client.Object), nil
}

func render(scheme *runtime.Scheme, w world, req request) (objects []map[string]interface{}, status map[string]interface{}, err error) {
	// A panic in Reconcile is an error of the pass, as controller-runtime's RecoverPanic (on by
	// default) makes it: the controller logs it and requeues.
	defer func() {
		if p := recover(); p != nil {
			objects, status, err = nil, nil, fmt.Errorf("panic: %v", p)
		}
	}()
	return reconcileUntilSettled(scheme, w, req)
}

// secretsAsStored folds a Secret's stringData into its data on every create and update, as the
// API server does.
var secretsAsStored = interceptor.Funcs{
	Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
		foldStringData(obj)
		return c.Create(ctx, obj, opts...)
	},
	Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
		foldStringData(obj)
		return c.Update(ctx, obj, opts...)
	},
}

func foldStringData(obj client.Object) {
	secret, ok := obj.(*corev1.Secret)
	if !ok || len(secret.StringData) == 0 {
		return
	}
	if secret.Data == nil {
		secret.Data = map[string][]byte{}
	}
	for k, v := range secret.StringData {
		secret.Data[k] = []byte(v)
	}
	secret.StringData = nil
}

// newGPUProvider is the GPU reconciler's NewProvider: upstream's RunPod driver at the fake API
// for runpod, upstream's gpu.NewProvider (its error) for any other name.
func (w world) newGPUProvider(name, apiKey string) (gpu.Provider, error) {
	if name != "runpod" {
		return gpu.NewProvider(name, apiKey)
	}
	if w.runPodAPI == "" {
		return nil, errors.New("igw-render: no -runpod-api for the RunPod driver")
	}
	return gpu.NewRunPodProvider(apiKey, w.runPodAPI), nil
}

func reconcileUntilSettled(scheme *runtime.Scheme, w world, req request) ([]map[string]interface{}, map[string]interface{}, error) {
	cr, err := typed(scheme, req.CR)
	if err != nil {
		return nil, nil, fmt.Errorf("cr: %w", err)
	}
	objects := []client.Object{cr}
	before := map[string]bool{}
	for _, s := range req.Supporting {
		obj, err := typed(scheme, s)
		if err != nil {
			return nil, nil, fmt.Errorf("supporting: %w", err)
		}
		objects = append(objects, obj)
		before[keyOf(scheme, obj)] = true
	}
	c := fake.NewClientBuilder().WithScheme(scheme).
		WithStatusSubresource(&v1alpha1.Gateway{}, &v1alpha1.Agent{}, &v1alpha1.Orchestrator{}, &v1alpha1.MCP{}, &v1alpha1.GPU{}).
		WithObjects(objects...).WithInterceptorFuncs(secretsAsStored).Build()

	var r reconcile.Reconciler
	switch cr.(type) {
	case *v1alpha1.Gateway:
		r = &controller.GatewayReconciler{Client: c, Scheme: scheme}
	case *v1alpha1.Agent:
		r = &controller.AgentReconciler{Client: c, Scheme: scheme}
	case *v1alpha1.Orchestrator:
		r = &controller.OrchestratorReconciler{Client: c, Scheme: scheme}
	case *v1alpha1.MCP:
		r = &controller.MCPReconciler{Client: c, Scheme: scheme}
	case *v1alpha1.GPU:
		if w.runPodAPI == "" {
			return nil, nil, errors.New("a GPU needs -runpod-api")
		}
		clock := w.clock
		r = &controller.GPUReconciler{Client: c, Scheme: scheme, NewProvider: w.newGPUProvider, Now: func() time.Time { return clock }}
	default:
		return nil, nil, fmt.Errorf("no reconciler for %T", cr)
	}
	ctx := context.Background()
	key := types.NamespacedName{Namespace: cr.GetNamespace(), Name: cr.GetName()}
	var last []map[string]interface{}
	var status map[string]interface{}
	settled := false
	for pass := 0; pass < maxPasses && !settled; pass++ {
		if _, err := r.Reconcile(ctx, reconcile.Request{NamespacedName: key}); err != nil {
			return nil, nil, fmt.Errorf("pass %d: %w", pass+1, err)
		}
		objs, err := stored(ctx, scheme, c, before)
		if err != nil {
			return nil, nil, err
		}
		current := cr.DeepCopyObject().(client.Object)
		if err := c.Get(ctx, key, current); err != nil {
			return nil, nil, err
		}
		content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(current)
		if err != nil {
			return nil, nil, err
		}
		st, _ := content["status"].(map[string]interface{})
		settled = pass > 0 && reflect.DeepEqual(objs, last) && reflect.DeepEqual(st, status)
		last, status = objs, st
	}
	if !settled {
		return nil, nil, errors.New("the reconciler did not settle")
	}
	fixConditionTimes(status)
	return last, status, nil
}

func keyOf(scheme *runtime.Scheme, obj client.Object) string {
	gvk, _ := apiutil.GVKForObject(obj, scheme)
	return gvk.Kind + "/" + obj.GetNamespace() + "/" + obj.GetName()
}

// stored lists every object of lists() that was not there before, as the golden files keep
// them.
func stored(ctx context.Context, scheme *runtime.Scheme, c client.Client, before map[string]bool) ([]map[string]interface{}, error) {
	var out []map[string]interface{}
	for _, l := range lists() {
		if err := c.List(ctx, l); err != nil {
			return nil, err
		}
		items, err := extractList(l)
		if err != nil {
			return nil, err
		}
		for _, item := range items {
			obj := item.(client.Object)
			if before[keyOf(scheme, obj)] {
				continue
			}
			gvk, err := apiutil.GVKForObject(obj, scheme)
			if err != nil {
				return nil, err
			}
			content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
			if err != nil {
				return nil, err
			}
			content["apiVersion"], content["kind"] = gvk.GroupVersion().String(), gvk.Kind
			metadata, _ := content["metadata"].(map[string]interface{})
			delete(metadata, "resourceVersion")
			delete(metadata, "managedFields")
			if metadata["creationTimestamp"] == nil {
				delete(metadata, "creationTimestamp")
			}
			delete(content, "status")
			out = append(out, content)
		}
	}
	return out, nil
}

func fixConditionTimes(status map[string]interface{}) {
	conditions, _ := status["conditions"].([]interface{})
	for _, c := range conditions {
		if c, ok := c.(map[string]interface{}); ok {
			if _, has := c["lastTransitionTime"]; has {
				c["lastTransitionTime"] = conditionTime
			}
		}
	}
}

func extractList(l client.ObjectList) ([]runtime.Object, error) {
	return apimeta.ExtractList(l)
}
