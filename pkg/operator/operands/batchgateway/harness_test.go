package batchgateway

import (
	"context"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextfake "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/fake"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/informers"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"

	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"

	batchv1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/batch/v1alpha1"
	crfake "github.com/llm-infra/llm-infra-operator/pkg/generated/clientset/versioned/fake"
	crinformers "github.com/llm-infra/llm-infra-operator/pkg/generated/informers/externalversions"
	batchlisters "github.com/llm-infra/llm-infra-operator/pkg/generated/listers/batch/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine/enginetest"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/registry"
)

// fakeEnv is the operand wired to fake clients (client-go's, the generated clientset's fake and
// library-go's in-memory event recorder). The dynamic fake serves built-in kinds from the typed
// fake's tracker, so both see one cluster.
type fakeEnv struct {
	t        *testing.T
	ctx      context.Context
	kube     *kubefake.Clientset
	apiext   *apiextfake.Clientset
	dynamic  *dynamicfake.FakeDynamicClient
	crs      *crfake.Clientset
	recorder events.InMemoryRecorder
	op       *testOperand
	syncCtx  factory.SyncContext
	caches   *engine.Caches

	managed    informers.SharedInformerFactory
	crInformer cache.SharedIndexInformer
	optional   *engine.OptionalAPIs
	controller factory.Controller
}

// testOperand is the operand's controller, as the starter builds it, and the lister of the CRs.
type testOperand struct {
	lister batchlisters.LLMBatchGatewayLister
	ctl    *engine.Namespaced[*batchv1alpha1.LLMBatchGateway, *state]
}

func (o *testOperand) syncKey(ctx context.Context, _ factory.SyncContext, key string) error {
	return o.ctl.Sync(ctx, key)
}

func (o *testOperand) keys() ([]string, error) {
	var keys []string
	for _, cr := range o.ctl.List() {
		keys = append(keys, cr.Namespace+"/"+cr.Name)
	}
	return keys, nil
}

// secrets are the watches of the Secrets the CRs reference.
func (o *testOperand) secrets() *engine.ReferenceWatches {
	return o.ctl.References(engine.Secrets)
}

// optionalCRDs are the CRDs of every optional API of the operand.
var optionalCRDs = func() []string {
	var out []string
	for _, api := range OptionalAPIs() {
		out = append(out, engine.CRDName(api.GVR))
	}
	return out
}()

var testImages = Images{APIServer: "example.com/api:1", Processor: "example.com/proc:1", GC: "example.com/gc:1", AsyncProcessor: "example.com/async:1"}

type envSetup struct {
	crds    []string
	objects []runtime.Object
	custom  []runtime.Object
	images  Images
	// policy is the administrator's allowlists (the operator's environment).
	policy engine.Policy
	// listGate, when set, holds the first list of every reference watch until it is closed.
	listGate <-chan struct{}
}

type envOption func(*envSetup)

func withCRDs(names ...string) envOption {
	return func(s *envSetup) { s.crds = append(s.crds, names...) }
}

// withObjects pre-creates built-in objects.
func withObjects(objs ...runtime.Object) envOption {
	return func(s *envSetup) { s.objects = append(s.objects, objs...) }
}

// withCustomObjects pre-creates objects of optional APIs (ReferenceGrants, say).
func withCustomObjects(objs ...runtime.Object) envOption {
	return func(s *envSetup) { s.custom = append(s.custom, objs...) }
}

func withImages(images Images) envOption { return func(s *envSetup) { s.images = images } }

func withPolicy(policy engine.Policy) envOption { return func(s *envSetup) { s.policy = policy } }

// withReferenceListsHeldUntil holds the first list of every reference watch until release is
// closed (a watch that has not synced yet, as on an operator's start with many CRs), and makes
// a sync wait for a new watch only briefly.
func withReferenceListsHeldUntil(release <-chan struct{}) envOption {
	return func(s *envSetup) { s.listGate = release }
}

func establishedCRD(name string) *apiextensionsv1.CustomResourceDefinition {
	return enginetest.EstablishedCRD(name)
}

// credentials is a Secret with every key the default backends need.
func credentials(namespace, name string, data map[string]string) *corev1.Secret {
	if data == nil {
		data = map[string]string{keyRedisURL: "redis://r", keyPostgreSQLURL: "postgresql://p", keyS3SecretAccessKey: "s3"}
	}
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}, Data: map[string][]byte{}}
	for k, v := range data {
		s.Data[k] = []byte(v)
	}
	return s
}

func newFakeEnv(t *testing.T, opts ...envOption) *fakeEnv {
	t.Helper()
	setup := &envSetup{images: testImages}
	for _, o := range opts {
		o(setup)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)

	kube := kubefake.NewSimpleClientset(enginetest.Versioned(setup.objects...)...)
	var crdObjs []runtime.Object
	for _, name := range setup.crds {
		crdObjs = append(crdObjs, establishedCRD(name))
	}
	apiext := apiextfake.NewSimpleClientset(crdObjs...)
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	listKinds := map[schema.GroupVersionResource]string{}
	for _, api := range OptionalAPIs() {
		listKinds[api.GVR] = kindOfResource(api.GVR) + "List"
		if dependents, ok := engine.DeletedWith(api.GVR); ok {
			listKinds[dependents] = kindOfResource(dependents) + "List"
		}
	}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(scheme, listKinds, setup.custom...)
	enginetest.ServeBuiltInsFromTracker(dyn, kube.Tracker())

	crs := crfake.NewSimpleClientset()
	enginetest.VersionObjects(kube, apiext, dyn, crs)
	env := &fakeEnv{t: t, ctx: ctx, kube: kube, apiext: apiext, dynamic: dyn, crs: crs,
		recorder: events.NewInMemoryRecorder("test", clock.RealClock{}), caches: engine.NewCaches()}
	env.managed = informers.NewSharedInformerFactoryWithOptions(kube, 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = engine.ManagedBySelector() }))
	env.optional = engine.NewOptionalAPIs(ctx, dyn, apiext, 0, env.caches, OptionalAPIs()...)
	images := map[string]string{APIServerImageEnv: setup.images.APIServer, ProcessorImageEnv: setup.images.Processor,
		GCImageEnv: setup.images.GC, AsyncProcessorImageEnv: setup.images.AsyncProcessor}
	crInformers := crinformers.NewSharedInformerFactory(env.crs, 0)
	env.crInformer = crInformers.Batch().V1alpha1().LLMBatchGateways().Informer()
	deps := &registry.Deps{
		NamespacedDeps: engine.NamespacedDeps{
			Clients:              &engine.CachedClients{Kube: kube, APIExt: apiext, Dynamic: dyn, Caches: env.caches},
			Managed:              env.managed,
			Optional:             env.optional,
			ReferenceSources:     referenceSources(kube, setup.listGate),
			ReferenceSyncTimeout: referenceSyncTimeout(setup.listGate),
			Events:               func(schema.GroupVersionKind, metav1.Object) events.Recorder { return env.recorder },
			Recorder:             env.recorder,
		},
		CR:          crs,
		CRInformers: crInformers,
		Image:       func(env string) string { return images[env] },
		Policy:      setup.policy,
	}
	ctl, err := engine.NewNamespaced(ctx, Kind(deps), deps.NamespacedDeps)
	if err != nil {
		t.Fatal(err)
	}
	env.op = &testOperand{lister: batchlisters.NewLLMBatchGatewayLister(env.crInformer.GetIndexer()), ctl: ctl}
	env.controller = ctl.Controller()
	env.syncCtx = factory.NewSyncContext("test", env.recorder)

	env.managed.Start(ctx.Done())
	env.managed.WaitForCacheSync(ctx.Done())
	go env.crInformer.Run(ctx.Done())
	informersToSync := []cache.InformerSynced{env.crInformer.HasSynced}
	for _, w := range env.optional.CRDWatches() {
		go w.Informer.Run(ctx.Done())
		informersToSync = append(informersToSync, w.Informer.HasSynced)
	}
	if !cache.WaitForCacheSync(ctx.Done(), informersToSync...) {
		t.Fatal("informers did not sync")
	}
	return env
}

// referenceSources are the fake clientset's sources of referenced objects; with a gate, the
// Secrets' first list waits until it is closed.
func referenceSources(kube *kubefake.Clientset, gate <-chan struct{}) map[schema.GroupResource]*engine.ReferenceSource {
	sources := engine.NewTypedReferenceSources(kube)
	if gate == nil {
		return sources
	}
	gated := cache.NewSharedIndexInformer(cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			select {
			case <-gate:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return kube.CoreV1().Secrets(metav1.NamespaceAll).List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return kube.CoreV1().Secrets(metav1.NamespaceAll).Watch(ctx, o)
		},
	}, kube), &corev1.Secret{}, 0, cache.Indexers{})
	sources[engine.Secrets] = engine.NewReferenceSource(engine.Secrets, gated, func(ctx context.Context, namespace, name string) (runtime.Object, error) {
		return kube.CoreV1().Secrets(namespace).Get(ctx, name, metav1.GetOptions{})
	})
	return sources
}

// referenceSyncTimeout is how long a sync waits for a reference watch: briefly when the test
// holds the lists, else the default.
func referenceSyncTimeout(listGate <-chan struct{}) time.Duration {
	if listGate != nil {
		return 20 * time.Millisecond
	}
	return 0
}

// kindOfResource guesses a kind from its resource for the dynamic fake's list kinds.
func kindOfResource(gvr schema.GroupVersionResource) string {
	switch gvr.Resource {
	case "certificates":
		return "Certificate"
	case "certificaterequests":
		return "CertificateRequest"
	case "httproutes":
		return "HTTPRoute"
	case "backendtlspolicies":
		return "BackendTLSPolicy"
	case "servicemonitors":
		return "ServiceMonitor"
	case "podmonitors":
		return "PodMonitor"
	case "prometheusrules":
		return "PrometheusRule"
	case "referencegrants":
		return "ReferenceGrant"
	}
	panic("unknown optional resource " + gvr.String())
}

// create stores a CR and waits for the informer to hold it.
func (e *fakeEnv) create(cr *batchv1alpha1.LLMBatchGateway) *batchv1alpha1.LLMBatchGateway {
	e.t.Helper()
	if cr.UID == "" {
		cr.UID = types.UID("uid-" + cr.Namespace + "-" + cr.Name)
	}
	if cr.Generation == 0 {
		cr.Generation = 1
	}
	created, err := e.crs.BatchV1alpha1().LLMBatchGateways(cr.Namespace).Create(e.ctx, cr, metav1.CreateOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	e.waitFor("the CR in the informer", func() bool { return e.cachedCR(cr.Namespace, cr.Name) != nil })
	return created
}

// update changes a CR's spec (bumping its generation, as the API server would).
func (e *fakeEnv) update(namespace, name string, change func(*batchv1alpha1.LLMBatchGateway)) {
	e.t.Helper()
	cr := e.get(namespace, name)
	change(cr)
	cr.Generation++
	updated, err := e.crs.BatchV1alpha1().LLMBatchGateways(namespace).Update(e.ctx, cr, metav1.UpdateOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	e.waitFor("the updated CR in the informer", func() bool {
		c := e.cachedCR(namespace, name)
		return c != nil && c.ResourceVersion == updated.ResourceVersion
	})
}

func (e *fakeEnv) get(namespace, name string) *batchv1alpha1.LLMBatchGateway {
	e.t.Helper()
	cr, err := e.crs.BatchV1alpha1().LLMBatchGateways(namespace).Get(e.ctx, name, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	return cr
}

func (e *fakeEnv) cachedCR(namespace, name string) *batchv1alpha1.LLMBatchGateway {
	cr, err := e.op.lister.LLMBatchGateways(namespace).Get(name)
	if err != nil {
		return nil
	}
	return cr
}

// sync runs one sync of a CR and waits for the informers to catch up with what it wrote, as
// they would before the next event.
func (e *fakeEnv) sync(namespace, name string) error {
	e.t.Helper()
	err := e.op.syncKey(e.ctx, e.syncCtx, namespace+"/"+name)
	e.settle(namespace, name)
	return err
}

// settle waits until the CR's status and every labelled object the fakes hold are cached.
func (e *fakeEnv) settle(namespace, name string) {
	e.t.Helper()
	e.waitFor("caches to catch up", func() bool {
		cr, err := e.crs.BatchV1alpha1().LLMBatchGateways(namespace).Get(e.ctx, name, metav1.GetOptions{})
		if err == nil {
			if c := e.cachedCR(namespace, name); c == nil || c.ResourceVersion != cr.ResourceVersion {
				return false
			}
		}
		for _, gr := range []schema.GroupResource{engine.Deployments, engine.ConfigMaps, engine.Services, engine.ServiceAccounts, engine.Secrets} {
			list, err := e.dynamic.Resource(schema.GroupVersionResource{Group: gr.Group, Version: "v1", Resource: gr.Resource}).Namespace(namespace).List(e.ctx, metav1.ListOptions{LabelSelector: engine.ManagedBySelector()})
			if err != nil {
				e.t.Fatal(err)
			}
			for _, item := range list.Items {
				cached, err := e.caches.GetMeta(gr, item.GetNamespace(), item.GetName())
				if err != nil || cached.GetResourceVersion() != item.GetResourceVersion() {
					return false
				}
			}
		}
		return true
	})
}

func (e *fakeEnv) waitFor(what string, cond func() bool) {
	e.t.Helper()
	enginetest.WaitFor(e.t, what, cond)
}

func (e *fakeEnv) clearActions() { enginetest.ClearActions(e.kube, e.apiext, e.dynamic, e.crs) }

func (e *fakeEnv) writes() []string {
	return enginetest.Actions(enginetest.WriteVerbs, e.kube, e.apiext, e.dynamic, e.crs)
}

func (e *fakeEnv) reads() []string {
	return enginetest.Actions(enginetest.ReadVerbs, e.kube, e.apiext, e.dynamic, e.crs)
}

// object reads an object of the fakes, or nil.
func (e *fakeEnv) object(gvr schema.GroupVersionResource, namespace, name string) metav1.Object {
	e.t.Helper()
	obj, err := e.dynamic.Resource(gvr).Namespace(namespace).Get(e.ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		e.t.Fatal(err)
	}
	return obj
}

func (e *fakeEnv) deployment(namespace, name string) *appsv1.Deployment {
	e.t.Helper()
	d, err := e.kube.AppsV1().Deployments(namespace).Get(e.ctx, name, metav1.GetOptions{})
	if err != nil {
		e.t.Fatalf("Deployment %s/%s: %v", namespace, name, err)
	}
	return d
}

// condition returns a CR's condition of the given type, or nil.
func (e *fakeEnv) condition(namespace, name, condType string) *metav1.Condition {
	return meta.FindStatusCondition(e.get(namespace, name).Status.Conditions, condType)
}

func (e *fakeEnv) expectCondition(namespace, name, condType string, status metav1.ConditionStatus, reason string) *metav1.Condition {
	e.t.Helper()
	c := e.condition(namespace, name, condType)
	if c == nil {
		e.t.Fatalf("condition %s not set; status: %+v", condType, e.get(namespace, name).Status)
	}
	if c.Status != status || c.Reason != reason {
		e.t.Errorf("condition %s = %s/%s (%q), want %s/%s", condType, c.Status, c.Reason, c.Message, status, reason)
	}
	return c
}

// makeAvailable marks a Deployment's rollout complete, as the controller manager would.
func (e *fakeEnv) makeAvailable(namespace, name string) {
	e.t.Helper()
	d := e.deployment(namespace, name)
	replicas := engine.DesiredReplicas(d)
	d.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: replicas, UpdatedReplicas: replicas, ReadyReplicas: replicas, AvailableReplicas: replicas}
	if _, err := e.kube.AppsV1().Deployments(namespace).UpdateStatus(e.ctx, d, metav1.UpdateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

// events lists the reasons of the events recorded so far.
func (e *fakeEnv) eventReasons() []string {
	var out []string
	for _, ev := range e.recorder.Events() {
		out = append(out, ev.Reason)
	}
	return out
}

// metaOf is a rendered object's metadata (every rendered object has some).
func metaOf(obj runtime.Object) metav1.Object {
	m, err := meta.Accessor(obj)
	if err != nil {
		panic(err)
	}
	return m
}
