package lws

import (
	"context"
	"slices"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextfake "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/fake"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/informers"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"

	"github.com/openshift/library-go/pkg/crypto"

	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"

	"github.com/llm-infra/llm-infra-operator/bindata"
	lwsoperatorv1 "github.com/llm-infra/llm-infra-operator/pkg/apis/operator/v1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine/enginetest"
)

const (
	testNamespace = "test-operator-ns"
	testImage     = "example.com/lws:test"
)

// fakeEnv is the operand wired to fake clients (client-go's and library-go's fakes). The dynamic
// fake serves built-in kinds from the typed fake's tracker, so both see one cluster.
type fakeEnv struct {
	t   *testing.T
	ctx context.Context
	// stop ends the informers before the test does (a test of many envs).
	stop     context.CancelFunc
	kube     *kubefake.Clientset
	apiext   *apiextfake.Clientset
	dynamic  *dynamicfake.FakeDynamicClient
	operator v1helpers.OperatorClientWithFinalizers
	recorder events.InMemoryRecorder
	op       *Operand
	syncCtx  factory.SyncContext
	caches   *engine.Caches

	controller factory.Controller
	webhooks   WebhookFactories
	namespaced informers.SharedInformerFactory
	crd        *engine.CRDWatch
	// keptCRDWatches watch the DisaggregatedSet CRDs, as the starter does.
	keptCRDWatches []*engine.CRDWatch
	optional       *engine.OptionalAPIs

	nodePlacement *lwsoperatorv1.NodePlacement
	certificates  *lwsoperatorv1.Certificates
	networkPolicy *lwsoperatorv1.NetworkPolicy
	deletion      *metav1.Time
}

type envOption func(*envSetup)

type envSetup struct {
	crds    []string
	objects []runtime.Object
	// withoutInstalledServiceAccount: the controller's ServiceAccount, which the install makes,
	// is missing (otherwise every env has it).
	withoutInstalledServiceAccount bool
	// dynamicObjects are pre-created objects of APIs the typed fake does not serve.
	dynamicObjects []runtime.Object
	state          operatorv1.ManagementState
	logLevel       operatorv1.LogLevel
	placement      *lwsoperatorv1.NodePlacement
	source         lwsoperatorv1.CertificateSource
	networkPolicy  *lwsoperatorv1.NetworkPolicy
	// issuerNotReady: the fake cert-manager does not mark Issuers Ready when they are created.
	issuerNotReady bool
}

// withCRDs installs established CRDs (cert-manager's, the ServiceMonitor's, ...).
func withCRDs(names ...string) envOption {
	return func(s *envSetup) { s.crds = append(s.crds, names...) }
}

// withDynamicObjects pre-creates objects of optional APIs (OpenShift's APIServer, ...).
func withDynamicObjects(objs ...runtime.Object) envOption {
	return func(s *envSetup) { s.dynamicObjects = append(s.dynamicObjects, objs...) }
}

// withObjects pre-creates built-in objects.
func withObjects(objs ...runtime.Object) envOption {
	return func(s *envSetup) { s.objects = append(s.objects, objs...) }
}

func withState(state operatorv1.ManagementState) envOption {
	return func(s *envSetup) { s.state = state }
}

func withCRLogLevel(level operatorv1.LogLevel) envOption {
	return func(s *envSetup) { s.logLevel = level }
}

func withPlacement(p *lwsoperatorv1.NodePlacement) envOption {
	return func(s *envSetup) { s.placement = p }
}

// withNetworkPolicy sets spec.networkPolicy.
func withNetworkPolicy(p *lwsoperatorv1.NetworkPolicy) envOption {
	return func(s *envSetup) { s.networkPolicy = p }
}

// withCertificateSource sets spec.certificates.source.
func withCertificateSource(source lwsoperatorv1.CertificateSource) envOption {
	return func(s *envSetup) { s.source = source }
}

// withIssuerNotReady leaves the Issuers the operand creates without status, as before
// cert-manager has seen them.
func withIssuerNotReady() envOption {
	return func(s *envSetup) { s.issuerNotReady = true }
}

// markIssuerReady sets the status cert-manager gives a self-signed Issuer it accepted.
func markIssuerReady(issuer *unstructured.Unstructured) {
	_ = unstructured.SetNestedSlice(issuer.Object, []any{map[string]any{"type": "Ready", "status": "True", "reason": "IsReady"}}, "status", "conditions")
}

var certManagerCRDs = []string{engine.CRDName(engine.IssuerGVR), engine.CRDName(engine.CertificateGVR)}

// issuedSecrets are the Secrets cert-manager would issue: self-signed certificates, each its
// own CA (ca.crt), as its self-signed Issuer makes them.
func issuedSecrets() []runtime.Object {
	var objs []runtime.Object
	for _, name := range certificateSecrets {
		cert, key := selfSignedCertificate(name)
		objs = append(objs, &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: testNamespace, Labels: map[string]string{engine.ManagedByLabel: engine.ManagedByValue},
				Annotations: map[string]string{"cert-manager.io/certificate-name": name}},
			Type: corev1.SecretTypeTLS,
			Data: map[string][]byte{"tls.crt": cert, "tls.key": key, "ca.crt": cert},
		})
	}
	return objs
}

// selfSignedCertificate makes a self-signed CA certificate and its key, PEM-encoded.
func selfSignedCertificate(name string) (cert, key []byte) {
	ca, err := crypto.MakeSelfSignedCAConfigForDuration(name, time.Hour)
	if err != nil {
		panic(err)
	}
	cert, key, err = ca.GetPEMBytes()
	if err != nil {
		panic(err)
	}
	return cert, key
}

// setCertificateSource changes spec.certificates.source.
func (e *fakeEnv) setCertificateSource(source lwsoperatorv1.CertificateSource) {
	e.certificates = &lwsoperatorv1.Certificates{Source: source}
}

func establishedCRD(name string) *apiextensionsv1.CustomResourceDefinition {
	return enginetest.EstablishedCRD(name)
}

// testRenderer renders manifests as the operand does, without an owner reference.
func testRenderer() engine.Renderer {
	return engine.Renderer{Manifests: bindata.FS, Placeholders: map[string]string{bindata.NamespacePlaceholder: testNamespace, bindata.OperandImagePlaceholder: testImage}}
}

func newFakeEnv(t *testing.T, opts ...envOption) *fakeEnv {
	t.Helper()
	setup := &envSetup{state: operatorv1.Managed, logLevel: operatorv1.Normal}
	for _, o := range opts {
		o(setup)
	}
	if !setup.withoutInstalledServiceAccount && !slices.ContainsFunc(setup.objects, func(o runtime.Object) bool {
		sa, ok := o.(*corev1.ServiceAccount)
		return ok && sa.Name == deploymentName
	}) {
		// What deploy/14_lws-operand-rbac.yaml installs with the operator.
		setup.objects = append(setup.objects, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: deploymentName, Namespace: testNamespace}})
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)

	kube := kubefake.NewSimpleClientset(setup.objects...)
	var crdObjs []runtime.Object
	for _, name := range setup.crds {
		crdObjs = append(crdObjs, establishedCRD(name))
	}
	apiext := apiextfake.NewSimpleClientset(crdObjs...)

	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(scheme, map[schema.GroupVersionResource]string{
		engine.IssuerGVR:             "IssuerList",
		engine.CertificateGVR:        "CertificateList",
		engine.CertificateRequestGVR: "CertificateRequestList",
		ServiceMonitorGVR:            "ServiceMonitorList",
		APIServerGVR:                 "APIServerList",
	}, setup.dynamicObjects...)
	enginetest.ServeBuiltInsFromTracker(dyn, kube.Tracker())
	if !setup.issuerNotReady {
		// cert-manager marks a self-signed Issuer Ready at once; here, as it is created.
		dyn.PrependReactor("create", "issuers", func(action clienttesting.Action) (bool, runtime.Object, error) {
			if u, ok := action.(clienttesting.CreateAction).GetObject().(*unstructured.Unstructured); ok {
				markIssuerReady(u)
			}
			return false, nil, nil
		})
	}

	enginetest.VersionObjects(kube, apiext, dyn)
	env := &fakeEnv{t: t, ctx: ctx, stop: cancel, kube: kube, apiext: apiext, dynamic: dyn,
		recorder: events.NewInMemoryRecorder("test", clock.RealClock{}), nodePlacement: setup.placement, networkPolicy: setup.networkPolicy}
	if setup.source != "" {
		env.certificates = &lwsoperatorv1.Certificates{Source: setup.source}
	}
	env.operator = informerBackedOperatorClient{
		OperatorClientWithFinalizers: v1helpers.NewFakeOperatorClientWithObjectMeta(
			&metav1.ObjectMeta{Name: lwsoperatorv1.SingletonName, UID: harnessCRUID, Generation: 1},
			&operatorv1.OperatorSpec{ManagementState: setup.state, LogLevel: setup.logLevel},
			&operatorv1.OperatorStatus{}, nil),
		env: env,
	}

	// Informers as the starter builds them: the operand namespace, the webhook configurations by
	// name, the CRD watch and the optional APIs, all registered in the caches.
	env.caches = engine.NewCaches()
	env.namespaced = informers.NewSharedInformerFactoryWithOptions(kube, 0, informers.WithNamespace(testNamespace))
	env.webhooks = NewWebhookFactories(kube, 0)
	env.crd = engine.NewCRDWatch(apiext, CRDName, 0, engine.DropManagedFields)
	env.optional = engine.NewOptionalAPIs(ctx, dyn, apiext, 0, env.caches, OptionalAPIs(testNamespace)...)
	watched := RegisterInformers(env.caches, nil, env.namespaced, env.webhooks)
	env.caches.AddInformer(engine.CustomResourceDefinitions, env.crd.Informer)
	for _, name := range DisaggregatedSetCRDNames {
		w := engine.NewCRDWatch(apiext, name, 0, engine.DropManagedFields)
		env.caches.AddInformer(engine.CustomResourceDefinitions, w.Informer)
		env.keptCRDWatches = append(env.keptCRDWatches, w)
		watched = append(watched, w.Informer)
	}

	op, controller := New(Config{
		Namespace:      testNamespace,
		Image:          testImage,
		OperatorClient: env.operator,
		Clients:        &engine.CachedClients{Kube: kube, APIExt: apiext, Dynamic: dyn, Caches: env.caches},
		CRD:            env.crd,
		Optional:       env.optional,
		Informers:      watched,
		Secrets:        env.namespaced.Core().V1().Secrets().Lister(),
		ConfigMaps:     env.namespaced.Core().V1().ConfigMaps().Lister(),
		Recorder:       env.recorder,
		Resync:         0,
	})
	env.controller = controller
	env.op = op
	env.syncCtx = factory.NewSyncContext("test", env.recorder)

	env.namespaced.Start(ctx.Done())
	env.webhooks.Start(ctx.Done())
	env.namespaced.WaitForCacheSync(ctx.Done())
	env.webhooks.Mutating.WaitForCacheSync(ctx.Done())
	env.webhooks.Validating.WaitForCacheSync(ctx.Done())
	go env.crd.Informer.Run(ctx.Done())
	for _, w := range env.keptCRDWatches {
		go w.Informer.Run(ctx.Done())
	}
	for _, w := range env.optional.CRDWatches() {
		go w.Informer.Run(ctx.Done())
	}
	env.waitFor("CRD informers synced", func() bool {
		if !env.crd.Informer.HasSynced() {
			return false
		}
		for _, w := range env.keptCRDWatches {
			if !w.Informer.HasSynced() {
				return false
			}
		}
		for _, w := range env.optional.CRDWatches() {
			if !w.Informer.HasSynced() {
				return false
			}
		}
		return true
	})
	return env
}

// informerBackedOperatorClient is library-go's fake operator client with an informer whose store
// holds the typed CR as the real client's informer would, built from the fake's state.
type informerBackedOperatorClient struct {
	v1helpers.OperatorClientWithFinalizers
	env *fakeEnv
}

func (c informerBackedOperatorClient) Informer() cache.SharedIndexInformer {
	return storeInformer{SharedIndexInformer: v1helpers.NewFakeSharedIndexInformer(), env: c.env}
}

type storeInformer struct {
	cache.SharedIndexInformer
	env *fakeEnv
}

func (i storeInformer) GetStore() cache.Store {
	store := cache.NewStore(cache.MetaNamespaceKeyFunc)
	cr := i.env.currentCR()
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(cr)
	if err != nil {
		i.env.t.Fatal(err)
	}
	if err := store.Add(&unstructured.Unstructured{Object: content}); err != nil {
		i.env.t.Fatal(err)
	}
	return store
}

// currentCR builds the typed CR from library-go's fake operator client, the way the informer
// would present it.
func (e *fakeEnv) currentCR() *lwsoperatorv1.LeaderWorkerSetOperator {
	meta, err := e.operator.GetObjectMeta()
	if err != nil {
		e.t.Fatal(err)
	}
	spec, status, _, err := e.operator.GetOperatorState()
	if err != nil {
		e.t.Fatal(err)
	}
	cr := &lwsoperatorv1.LeaderWorkerSetOperator{ObjectMeta: *meta.DeepCopy()}
	cr.Name = lwsoperatorv1.SingletonName
	cr.DeletionTimestamp = e.deletion
	cr.Spec.OperatorSpec = *spec.DeepCopy()
	cr.Spec.NodePlacement = e.nodePlacement.DeepCopy()
	cr.Spec.Certificates = e.certificates.DeepCopy()
	cr.Spec.NetworkPolicy = e.networkPolicy.DeepCopy()
	cr.Status.OperatorStatus = *status.DeepCopy()
	return cr
}

// setState changes the CR's managementState in the fake operator client.
func (e *fakeEnv) setState(state operatorv1.ManagementState) {
	e.t.Helper()
	spec, _, rv, err := e.operator.GetOperatorState()
	if err != nil {
		e.t.Fatal(err)
	}
	spec = spec.DeepCopy()
	spec.ManagementState = state
	if _, _, err := e.operator.UpdateOperatorSpec(e.ctx, rv, spec); err != nil {
		e.t.Fatal(err)
	}
}

// sync runs one sync and waits for the caches to catch up with what it wrote, as the informers
// would before the next event.
func (e *fakeEnv) sync() error {
	err := e.op.sync(e.ctx, e.syncCtx)
	e.settle()
	return err
}

// settle waits until every informer the operand reads from holds what the fakes hold.
func (e *fakeEnv) settle() {
	e.t.Helper()
	e.waitFor("caches to catch up", func() bool {
		for _, inf := range []cache.SharedIndexInformer{
			e.namespaced.Core().V1().Secrets().Informer(),
			e.namespaced.Apps().V1().Deployments().Informer(),
			e.namespaced.Core().V1().ServiceAccounts().Informer(),
			e.namespaced.Core().V1().ConfigMaps().Informer(),
			e.namespaced.Core().V1().Services().Informer(),
			e.webhooks.Validating.Admissionregistration().V1().ValidatingWebhookConfigurations().Informer(),
			e.webhooks.Mutating.Admissionregistration().V1().MutatingWebhookConfigurations().Informer(),
			e.crd.Informer,
		} {
			if !inf.HasSynced() {
				return false
			}
		}
		return e.cachedMatchesAPI()
	})
}

// cachedMatchesAPI compares the resourceVersions of the namespace's Deployments and Secrets and
// of the CRD in the caches and in the fakes.
func (e *fakeEnv) cachedMatchesAPI() bool {
	deployments, _ := e.kube.AppsV1().Deployments(testNamespace).List(e.ctx, metav1.ListOptions{})
	for _, d := range deployments.Items {
		cached, err := e.caches.GetMeta(engine.Deployments, testNamespace, d.Name)
		if err != nil || cached.GetResourceVersion() != d.ResourceVersion {
			return false
		}
	}
	secrets, _ := e.kube.CoreV1().Secrets(testNamespace).List(e.ctx, metav1.ListOptions{})
	cachedSecrets := e.namespaced.Core().V1().Secrets().Informer().GetStore().ListKeys()
	if len(secrets.Items) != len(cachedSecrets) {
		return false
	}
	for _, s := range secrets.Items {
		cached, err := e.caches.GetMeta(engine.Secrets, testNamespace, s.Name)
		if err != nil || cached.GetResourceVersion() != s.ResourceVersion {
			return false
		}
	}
	for _, w := range append([]*engine.CRDWatch{e.crd}, e.keptCRDWatches...) {
		crd, err := e.apiext.ApiextensionsV1().CustomResourceDefinitions().Get(e.ctx, w.Name, metav1.GetOptions{})
		if err == nil {
			if cached := w.Get(); cached == nil || cached.ResourceVersion != crd.ResourceVersion {
				return false
			}
		}
	}
	return true
}

func (e *fakeEnv) waitFor(what string, cond func() bool) {
	e.t.Helper()
	enginetest.WaitFor(e.t, what, cond)
}

func (e *fakeEnv) clearActions() { enginetest.ClearActions(e.kube, e.apiext, e.dynamic) }

// writes lists every mutating API call the fakes saw since the last clearActions.
func (e *fakeEnv) writes() []string {
	return enginetest.Actions(enginetest.WriteVerbs, e.kube, e.apiext, e.dynamic)
}

// reads lists every get and list call the fakes saw since the last clearActions.
func (e *fakeEnv) reads() []string {
	return enginetest.Actions(enginetest.ReadVerbs, e.kube, e.apiext, e.dynamic)
}

// condition returns the CR's condition of the given type.
func (e *fakeEnv) condition(condType string) operatorv1.OperatorCondition {
	e.t.Helper()
	_, status, _, err := e.operator.GetOperatorState()
	if err != nil {
		e.t.Fatal(err)
	}
	c := v1helpers.FindOperatorCondition(status.Conditions, condType)
	if c == nil {
		e.t.Fatalf("condition %s not set; conditions: %+v", condType, status.Conditions)
	}
	return *c
}

func (e *fakeEnv) expectCondition(condType string, status operatorv1.ConditionStatus, reason string) {
	e.t.Helper()
	c := e.condition(condType)
	if c.Status != status || c.Reason != reason {
		e.t.Errorf("condition %s = %s/%s (%q), want %s/%s", condType, c.Status, c.Reason, c.Message, status, reason)
	}
}
