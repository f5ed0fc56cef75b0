// Command lws-render runs openshift/lws-operator's target-config reconciler, unchanged, against
// client-go's fake clientsets, as test/golden/README.md describes for the other upstreams: the
// LeaderWorkerSetOperator "cluster" in the store, the reconciler's Sync called until a pass
// succeeds and changes nothing (at most maxPasses), then every object the reconciler created,
// and the CR's status.
//
// Protocol: one JSON request a line on stdin, {"cr": {...}} (the CR as upstream's CRD stores
// it); one JSON line a request on stdout, {"objects": [...], "status": {...}} or
// {"error": "..."}. Objects are as the fakes keep them, with apiVersion and kind, without
// metadata.resourceVersion, managedFields, creationTimestamp and status; condition times in the
// status are 1970-01-01T00:00:00Z.
//
// The cluster the reconciler sees: cert-manager's and the Prometheus operator's APIs served
// (discovery lists cert-manager.io/v1 Issuer, so the reconciler does not stop at "please make
// sure that cert-manager is installed"), and a cert-manager that issues the Secret of every
// Certificate the reconciler created before the next pass (tls.crt, tls.key and ca.crt of fixed
// bytes), as the real one does between two syncs. The informers' caches the reconciler reads
// (Secrets, Deployments and ConfigMaps, through listers) are filled from the fakes before each
// pass, as synced informers hold them: the informers are never started, so no pass races an
// informer. The apiextensions client is a real *clientset.Clientset (the reconciler's
// constructor takes the concrete type, which client-go's fake is not) whose HTTP transport
// answers from the apiextensions fake clientset in-process (crdTransport); nothing is dialled.
//
// The reconciler is driven through factory.Controller's Sync, library-go's exported entry: it
// runs the reconciler's sync without the TargetConfigControllerDegraded condition the running
// controller adds on an error (WithSyncDegradedOnError), which only intermediate passes return
// here.
//
// This file is not upstream's: it is the harness around upstream's code (the rest of this
// module, copied unchanged; hack/tools/lwsrender/README.md).
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextclientv1 "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apiextfake "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/fake"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	fakediscovery "k8s.io/client-go/discovery/fake"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"

	leaderworkersetapiv1 "github.com/openshift/lws-operator/pkg/apis/leaderworkersetoperator/v1"
	operatorfake "github.com/openshift/lws-operator/pkg/generated/clientset/versioned/fake"
	operatorclientinformers "github.com/openshift/lws-operator/pkg/generated/informers/externalversions"
	"github.com/openshift/lws-operator/pkg/operator"
	"github.com/openshift/lws-operator/pkg/operator/operatorclient"
)

// maxPasses bounds the passes; a Managed CR needs one for each Secret the reconciler waits for
// (the webhook's, then the metrics'), one that applies the rest and one that changes nothing.
const maxPasses = 10

// conditionTime replaces the clock's condition times, as in the golden status.yaml files.
const conditionTime = "1970-01-01T00:00:00Z"

type request struct {
	CR map[string]interface{} `json:"cr"`
}

type response struct {
	Objects []map[string]interface{} `json:"objects,omitempty"`
	Status  map[string]interface{}   `json:"status,omitempty"`
	Error   string                   `json:"error,omitempty"`
}

var (
	issuerGVR         = schema.GroupVersionResource{Group: "cert-manager.io", Version: "v1", Resource: "issuers"}
	certificateGVR    = schema.GroupVersionResource{Group: "cert-manager.io", Version: "v1", Resource: "certificates"}
	serviceMonitorGVR = schema.GroupVersionResource{Group: "monitoring.coreos.com", Version: "v1", Resource: "servicemonitors"}
)

func main() {
	namespace := flag.String("namespace", "openshift-lws-operator", "the operand's namespace (upstream's operator namespace)")
	image := flag.String("image", "", "the operand image (upstream's RELATED_IMAGE_OPERAND_IMAGE)")
	flag.Parse()
	// The reconciler and library-go log through klog; stdout carries the protocol.
	klog.SetOutput(io.Discard)
	klog.LogToStderr(false)

	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := json.NewEncoder(os.Stdout)
	for {
		line, err := in.ReadBytes('\n')
		if len(strings.TrimSpace(string(line))) > 0 {
			var req request
			res := response{}
			if err := json.Unmarshal(line, &req); err != nil {
				res.Error = err.Error()
			} else if objects, status, err := render(req.CR, *namespace, *image); err != nil {
				res.Error = err.Error()
			} else {
				res.Objects, res.Status = objects, status
			}
			if err := out.Encode(res); err != nil {
				panic(err)
			}
		}
		if err != nil {
			return
		}
	}
}

// cluster is the fakes one request runs against.
type cluster struct {
	namespace string
	kube      *kubefake.Clientset
	apiext    *apiextfake.Clientset
	dynamic   *dynamicfake.FakeDynamicClient
	operator  *operatorfake.Clientset
	informers v1helpers.KubeInformersForNamespaces
}

func render(content map[string]interface{}, namespace, image string) (objects []map[string]interface{}, status map[string]interface{}, err error) {
	// A panic in the sync is an error of the request, as library-go's controller recovers it.
	defer func() {
		if p := recover(); p != nil {
			objects, status, err = nil, nil, fmt.Errorf("panic: %v", p)
		}
	}()
	cr := &leaderworkersetapiv1.LeaderWorkerSetOperator{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(content, cr); err != nil {
		return nil, nil, fmt.Errorf("cr: %w", err)
	}
	c := newCluster(cr, namespace)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	recorder := events.NewInMemoryRecorder("lws-render", clock.RealClock{})
	operatorInformers := operatorclientinformers.NewSharedInformerFactory(c.operator, 0)
	lwsInformer := operatorInformers.OpenShiftOperator().V1().LeaderWorkerSetOperators()
	// As the starter builds it; its informer is never started, so GetOperatorState reads the
	// fake clientset (its !HasSynced branch).
	client := &operatorclient.LeaderWorkerSetClient{
		Ctx:            ctx,
		SharedInformer: lwsInformer.Informer(),
		Lister:         lwsInformer.Lister(),
		OperatorClient: c.operator.OpenShiftOperatorV1(),
	}
	apiext, err := apiextclientv1.NewForConfigAndClient(&rest.Config{
		Host: "http://apiextensions.lws-render.invalid",
		// JSON both ways, which crdTransport speaks (the clientset would send protobuf).
		ContentConfig: rest.ContentConfig{ContentType: "application/json", AcceptContentTypes: "application/json"},
	}, &http.Client{Transport: crdTransport{c.apiext}})
	if err != nil {
		return nil, nil, err
	}
	reconciler := operator.NewTargetConfigReconciler(
		image,
		namespace,
		c.operator.OpenShiftOperatorV1().LeaderWorkerSetOperators(),
		lwsInformer,
		c.informers,
		client,
		c.dynamic,
		c.kube.Discovery(),
		c.kube,
		apiext,
		recorder,
	)
	syncCtx := factory.NewSyncContext("TargetConfigController", recorder)

	var last []map[string]interface{}
	var lastStatus map[string]interface{}
	var passErr error
	for pass := 0; pass < maxPasses; pass++ {
		if err := c.issueCertificates(ctx); err != nil {
			return nil, nil, err
		}
		if err := c.fillCaches(ctx); err != nil {
			return nil, nil, err
		}
		passErr = reconciler.Sync(ctx, syncCtx)
		objects, err := c.created()
		if err != nil {
			return nil, nil, err
		}
		status, err := c.status(ctx)
		if err != nil {
			return nil, nil, err
		}
		if passErr == nil && pass > 0 && reflect.DeepEqual(objects, last) && reflect.DeepEqual(status, lastStatus) {
			return objects, status, nil
		}
		last, lastStatus = objects, status
	}
	if passErr != nil {
		return nil, nil, passErr
	}
	return nil, nil, fmt.Errorf("not settled after %d passes", maxPasses)
}

func newCluster(cr *leaderworkersetapiv1.LeaderWorkerSetOperator, namespace string) *cluster {
	kube := kubefake.NewSimpleClientset()
	// The APIs the reconciler looks up: cert-manager's (required) and the ServiceMonitor's.
	kube.Discovery().(*fakediscovery.FakeDiscovery).Resources = []*metav1.APIResourceList{
		{GroupVersion: "cert-manager.io/v1", APIResources: []metav1.APIResource{
			{Name: "issuers", Namespaced: true, Kind: "Issuer"},
			{Name: "certificates", Namespaced: true, Kind: "Certificate"},
		}},
		{GroupVersion: "monitoring.coreos.com/v1", APIResources: []metav1.APIResource{
			{Name: "servicemonitors", Namespaced: true, Kind: "ServiceMonitor"},
		}},
	}
	scheme := runtime.NewScheme()
	must(clientgoscheme.AddToScheme(scheme))
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(scheme, map[schema.GroupVersionResource]string{
		issuerGVR:         "IssuerList",
		certificateGVR:    "CertificateList",
		serviceMonitorGVR: "ServiceMonitorList",
	})
	apiext := apiextfake.NewSimpleClientset()
	versionObjects(kube, apiext, dyn)
	return &cluster{
		namespace: namespace,
		kube:      kube,
		apiext:    apiext,
		dynamic:   dyn,
		operator:  operatorfake.NewSimpleClientset(cr),
		// As the starter makes them: every namespace, and the operand's.
		informers: v1helpers.NewKubeInformersForNamespaces(kube, "", namespace),
	}
}

// resourceVersion numbers the writes across the fakes, as the API server's resourceVersions:
// the reconciler records the mounted Secrets' and ConfigMap's in the pod template.
var resourceVersion int64

func nextResourceVersion() string {
	resourceVersion++
	return strconv.FormatInt(resourceVersion, 10)
}

// versionObjects gives every object a fake creates or updates the next resourceVersion (the
// fakes' trackers keep whatever the client sent, which the reconciler leaves empty).
func versionObjects(fakes ...interface {
	PrependReactor(verb, resource string, reaction clienttesting.ReactionFunc)
}) {
	for _, f := range fakes {
		f.PrependReactor("*", "*", func(action clienttesting.Action) (bool, runtime.Object, error) {
			var obj runtime.Object
			switch a := action.(type) {
			case clienttesting.CreateAction:
				obj = a.GetObject()
			case clienttesting.UpdateAction:
				obj = a.GetObject()
			default:
				return false, nil, nil
			}
			if m, err := metaOf(obj); err == nil {
				m.SetResourceVersion(nextResourceVersion())
			}
			return false, nil, nil
		})
	}
}

// issueCertificates plays cert-manager: every Certificate's Secret exists, with fixed bytes.
// The Secrets go into the tracker directly, so they are no action of the reconciler's.
func (c *cluster) issueCertificates(ctx context.Context) error {
	certs, err := c.dynamic.Resource(certificateGVR).Namespace(c.namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for _, cert := range certs.Items {
		name, _, _ := unstructured.NestedString(cert.Object, "spec", "secretName")
		if name == "" {
			continue
		}
		if _, err := c.kube.Tracker().Get(schema.GroupVersionResource{Version: "v1", Resource: "secrets"}, c.namespace, name); err == nil {
			continue
		}
		if err := c.kube.Tracker().Add(issuedSecret(c.namespace, name)); err != nil {
			return err
		}
	}
	return nil
}

// issuedSecret is the Secret cert-manager writes for a Certificate (fixed bytes: the reconciler
// only checks that tls.crt and tls.key are not empty).
func issuedSecret(namespace, name string) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, ResourceVersion: nextResourceVersion(),
			Annotations: map[string]string{"cert-manager.io/certificate-name": name}},
		Type: corev1.SecretTypeTLS,
		Data: map[string][]byte{"tls.crt": []byte("cert"), "tls.key": []byte("key"), "ca.crt": []byte("cert")},
	}
}

// fillCaches puts what the fakes hold into the caches the reconciler's listers read, as synced
// informers would hold it.
func (c *cluster) fillCaches(ctx context.Context) error {
	for _, ns := range []string{"", c.namespace} {
		f := c.informers.InformersFor(ns)
		secrets, err := c.kube.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		deployments, err := c.kube.AppsV1().Deployments(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		configMaps, err := c.kube.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		var items []interface{}
		for i := range secrets.Items {
			items = append(items, &secrets.Items[i])
		}
		if err := f.Core().V1().Secrets().Informer().GetIndexer().Replace(items, ""); err != nil {
			return err
		}
		items = nil
		for i := range deployments.Items {
			items = append(items, &deployments.Items[i])
		}
		if err := f.Apps().V1().Deployments().Informer().GetIndexer().Replace(items, ""); err != nil {
			return err
		}
		items = nil
		for i := range configMaps.Items {
			items = append(items, &configMaps.Items[i])
		}
		if err := f.Core().V1().ConfigMaps().Informer().GetIndexer().Replace(items, ""); err != nil {
			return err
		}
	}
	return nil
}

// objectKey names an object the reconciler created, in one of the fakes.
type objectKey struct {
	tracker   clienttesting.ObjectTracker
	gvr       schema.GroupVersionResource
	namespace string
	name      string
}

// created returns every object the reconciler created, as the fakes hold it now, sorted by
// kind, namespace and name.
func (c *cluster) created() ([]map[string]interface{}, error) {
	var keys []objectKey
	seen := map[objectKey]bool{}
	for _, f := range []struct {
		tracker clienttesting.ObjectTracker
		actions []clienttesting.Action
	}{
		{c.kube.Tracker(), c.kube.Actions()},
		{c.apiext.Tracker(), c.apiext.Actions()},
		{c.dynamic.Tracker(), c.dynamic.Actions()},
	} {
		for _, a := range f.actions {
			create, ok := a.(clienttesting.CreateAction)
			if !ok || a.GetVerb() != "create" || a.GetSubresource() != "" {
				continue
			}
			meta, err := metaOf(create.GetObject())
			if err != nil {
				return nil, err
			}
			k := objectKey{f.tracker, a.GetResource(), a.GetNamespace(), meta.GetName()}
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	var out []map[string]interface{}
	for _, k := range keys {
		obj, err := k.tracker.Get(k.gvr, k.namespace, k.name)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		content, err := contentOf(obj)
		if err != nil {
			return nil, err
		}
		out = append(out, content)
	}
	sort.Slice(out, func(i, j int) bool { return sortKey(out[i]) < sortKey(out[j]) })
	return out, nil
}

func metaOf(obj runtime.Object) (metav1.Object, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return u, nil
	}
	m, ok := obj.(metav1.Object)
	if !ok {
		return nil, fmt.Errorf("%T has no metadata", obj)
	}
	return m, nil
}

// contentOf is an object as JSON content, with apiVersion and kind, without what the store adds.
func contentOf(obj runtime.Object) (map[string]interface{}, error) {
	var content map[string]interface{}
	if u, ok := obj.(*unstructured.Unstructured); ok {
		content = runtime.DeepCopyJSON(u.Object)
	} else {
		gvks, _, err := scheme().ObjectKinds(obj)
		if err != nil {
			return nil, err
		}
		if content, err = runtime.DefaultUnstructuredConverter.ToUnstructured(obj); err != nil {
			return nil, err
		}
		content["apiVersion"], content["kind"] = gvks[0].GroupVersion().String(), gvks[0].Kind
	}
	// Through JSON, so that numbers are as the API server would send them.
	data, err := json.Marshal(content)
	if err != nil {
		return nil, err
	}
	content = nil
	if err := json.Unmarshal(data, &content); err != nil {
		return nil, err
	}
	delete(content, "status")
	if metadata, ok := content["metadata"].(map[string]interface{}); ok {
		for _, f := range []string{"resourceVersion", "managedFields", "creationTimestamp"} {
			delete(metadata, f)
		}
	}
	return content, nil
}

var schemeOnce *runtime.Scheme

// scheme knows every typed kind the fakes hold.
func scheme() *runtime.Scheme {
	if schemeOnce == nil {
		schemeOnce = runtime.NewScheme()
		must(clientgoscheme.AddToScheme(schemeOnce))
		must(apiextensionsv1.AddToScheme(schemeOnce))
	}
	return schemeOnce
}

func sortKey(content map[string]interface{}) string {
	u := unstructured.Unstructured{Object: content}
	return u.GetKind() + "/" + u.GetNamespace() + "/" + u.GetName()
}

// status is the CR's status as the fake holds it, condition times fixed.
func (c *cluster) status(ctx context.Context) (map[string]interface{}, error) {
	cr, err := c.operator.OpenShiftOperatorV1().LeaderWorkerSetOperators().Get(ctx, operatorclient.OperatorConfigName, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(cr.Status)
	if err != nil {
		return nil, err
	}
	var status map[string]interface{}
	if err := json.Unmarshal(data, &status); err != nil {
		return nil, err
	}
	conditions, _ := status["conditions"].([]interface{})
	for _, cond := range conditions {
		if m, ok := cond.(map[string]interface{}); ok {
			m["lastTransitionTime"] = conditionTime
		}
	}
	return status, nil
}

// crdTransport answers the apiextensions clientset's requests for CustomResourceDefinitions
// (get, create, update: what resourceapply and the reconciler send) from the fake clientset.
type crdTransport struct{ fake *apiextfake.Clientset }

const crdPath = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"

func (t crdTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	name := strings.TrimPrefix(strings.TrimPrefix(req.URL.Path, crdPath), "/")
	if !strings.HasPrefix(req.URL.Path, crdPath) || strings.Contains(name, "/") {
		return nil, fmt.Errorf("lws-render: no such API %s %s", req.Method, req.URL.Path)
	}
	crds := t.fake.ApiextensionsV1().CustomResourceDefinitions()
	ctx := req.Context()
	var obj runtime.Object
	var err error
	code := http.StatusOK
	switch req.Method {
	case http.MethodGet:
		obj, err = crds.Get(ctx, name, metav1.GetOptions{})
	case http.MethodPost, http.MethodPut:
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := json.NewDecoder(req.Body).Decode(crd); err != nil {
			return nil, err
		}
		if req.Method == http.MethodPost {
			obj, err = crds.Create(ctx, crd, metav1.CreateOptions{})
			code = http.StatusCreated
		} else {
			obj, err = crds.Update(ctx, crd, metav1.UpdateOptions{})
		}
	default:
		return nil, fmt.Errorf("lws-render: no %s of CustomResourceDefinitions", req.Method)
	}
	if err != nil {
		status, ok := err.(apierrors.APIStatus)
		if !ok {
			return nil, err
		}
		s := status.Status()
		s.APIVersion, s.Kind = "v1", "Status"
		obj, code = &s, int(s.Code)
	} else {
		obj.GetObjectKind().SetGroupVersionKind(apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"))
	}
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	return &http.Response{
		StatusCode: code,
		Header:     http.Header{"Content-Type": []string{"application/json"}},
		Body:       io.NopCloser(bytes.NewReader(data)),
		Request:    req,
	}, nil
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}
