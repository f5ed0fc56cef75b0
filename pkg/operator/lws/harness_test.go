package lws

import (
	"context"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextfake "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/fake"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/informers"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/clock"

	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"

	lwsoperatorv1 "github.com/llm-infra/llm-infra-operator/pkg/apis/operator/v1"
)

const (
	testNamespace = "test-operator-ns"
	testImage     = "example.com/lws:test"
)

// fakeEnv is a reconciler wired to fake clients (client-go's and library-go's fakes). The
// dynamic fake serves built-in kinds from the typed fake's tracker, so both see one cluster.
type fakeEnv struct {
	t        *testing.T
	ctx      context.Context
	kube     *kubefake.Clientset
	apiext   *apiextfake.Clientset
	dynamic  *dynamicfake.FakeDynamicClient
	operator v1helpers.OperatorClientWithFinalizers
	recorder events.InMemoryRecorder
	r        *TargetConfigReconciler
	syncCtx  factory.SyncContext

	controller    factory.Controller
	clusterScoped informers.SharedInformerFactory

	nodePlacement *lwsoperatorv1.NodePlacement
	deletion      *metav1.Time
	namespaced    informers.SharedInformerFactory
}

type envOption func(*envSetup)

type envSetup struct {
	crds      []string
	objects   []runtime.Object
	state     operatorv1.ManagementState
	logLevel  operatorv1.LogLevel
	placement *lwsoperatorv1.NodePlacement
}

// withCRDs installs established CRDs (cert-manager's, the ServiceMonitor's, ...).
func withCRDs(names ...string) envOption {
	return func(s *envSetup) { s.crds = append(s.crds, names...) }
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

var certManagerCRDs = []string{crdName(issuerGVR), crdName(certificateGVR)}

// issuedSecrets are the Secrets cert-manager would issue.
func issuedSecrets() []runtime.Object {
	var objs []runtime.Object
	for _, name := range certificateSecrets {
		objs = append(objs, &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: testNamespace, Labels: map[string]string{ManagedByLabel: ManagedByValue}},
			Data:       map[string][]byte{"tls.crt": []byte("cert-" + name), "tls.key": []byte("key-" + name), "ca.crt": []byte("ca")},
		})
	}
	return objs
}

func establishedCRD(name string) *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Status: apiextensionsv1.CustomResourceDefinitionStatus{Conditions: []apiextensionsv1.CustomResourceDefinitionCondition{
			{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue},
		}},
	}
}

func newFakeEnv(t *testing.T, opts ...envOption) *fakeEnv {
	t.Helper()
	setup := &envSetup{state: operatorv1.Managed, logLevel: operatorv1.Normal}
	for _, o := range opts {
		o(setup)
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
		issuerGVR:         "IssuerList",
		certificateGVR:    "CertificateList",
		serviceMonitorGVR: "ServiceMonitorList",
	})
	builtIn := map[string]bool{"": true, "apps": true, "rbac.authorization.k8s.io": true, "admissionregistration.k8s.io": true}
	objectReaction := clienttesting.ObjectReaction(kube.Tracker())
	dyn.PrependReactor("*", "*", func(action clienttesting.Action) (bool, runtime.Object, error) {
		if !builtIn[action.GetResource().Group] {
			return false, nil, nil
		}
		return objectReaction(action)
	})

	operator := v1helpers.NewFakeOperatorClientWithObjectMeta(
		&metav1.ObjectMeta{Name: lwsoperatorv1.SingletonName, UID: "cr-uid", Generation: 1},
		&operatorv1.OperatorSpec{ManagementState: setup.state, LogLevel: setup.logLevel},
		&operatorv1.OperatorStatus{}, nil)

	env := &fakeEnv{t: t, ctx: ctx, kube: kube, apiext: apiext, dynamic: dyn, operator: operator,
		recorder: events.NewInMemoryRecorder("test", clock.RealClock{}), nodePlacement: setup.placement}

	env.namespaced = informers.NewSharedInformerFactoryWithOptions(kube, 0, informers.WithNamespace(testNamespace))
	clusterScoped := informers.NewSharedInformerFactory(kube, 0)
	env.clusterScoped = clusterScoped
	r, controller := NewTargetConfigReconciler(ctx, Config{
		Namespace:      testNamespace,
		Image:          testImage,
		OperatorClient: operator,
		KubeClient:     kube,
		APIExtClient:   apiext,
		DynamicClient:  dyn,
		Informers:      Informers{Namespaced: env.namespaced, ClusterScoped: clusterScoped},
		Recorder:       env.recorder,
		Resync:         0,
		CurrentCR:      env.currentCR,
	})
	env.controller = controller
	env.r = r
	env.syncCtx = factory.NewSyncContext("test", env.recorder)

	env.namespaced.Start(ctx.Done())
	env.namespaced.WaitForCacheSync(ctx.Done())
	r.StartInformers(ctx.Done())
	env.waitFor("CRD informers synced", func() bool {
		if !r.crd.informer.HasSynced() {
			return false
		}
		for _, inf := range r.optional.crdInformers() {
			if !inf.HasSynced() {
				return false
			}
		}
		return true
	})
	return env
}

// currentCR builds the typed CR from library-go's fake operator client, the way the informer
// would present it.
func (e *fakeEnv) currentCR() (*lwsoperatorv1.LeaderWorkerSetOperator, error) {
	meta, err := e.operator.GetObjectMeta()
	if err != nil {
		return nil, err
	}
	spec, status, _, err := e.operator.GetOperatorState()
	if err != nil {
		return nil, err
	}
	cr := &lwsoperatorv1.LeaderWorkerSetOperator{ObjectMeta: *meta.DeepCopy()}
	cr.Name = lwsoperatorv1.SingletonName
	cr.DeletionTimestamp = e.deletion
	cr.Spec.OperatorSpec = *spec.DeepCopy()
	cr.Spec.NodePlacement = e.nodePlacement.DeepCopy()
	cr.Status.OperatorStatus = *status.DeepCopy()
	return cr, nil
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

// sync runs one sync and waits for the listers to catch up with what it wrote, as the
// informers would before the next event.
func (e *fakeEnv) sync() error {
	err := e.r.sync(e.ctx, e.syncCtx)
	e.settle()
	return err
}

// settle waits until the namespaced listers show every Secret and Deployment the fake holds.
func (e *fakeEnv) settle() {
	e.t.Helper()
	e.waitFor("listers to catch up", func() bool {
		secrets, _ := e.kube.CoreV1().Secrets(testNamespace).List(e.ctx, metav1.ListOptions{})
		cached, _ := e.r.secrets.Secrets(testNamespace).List(labels.Everything())
		if len(secrets.Items) != len(cached) {
			return false
		}
		deployments, _ := e.kube.AppsV1().Deployments(testNamespace).List(e.ctx, metav1.ListOptions{})
		cachedDeployments, _ := e.r.deployments.Deployments(testNamespace).List(labels.Everything())
		return len(deployments.Items) == len(cachedDeployments)
	})
}

func (e *fakeEnv) waitFor(what string, cond func() bool) {
	e.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			e.t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (e *fakeEnv) clearActions() {
	e.kube.ClearActions()
	e.apiext.ClearActions()
	e.dynamic.ClearActions()
}

// writes lists every mutating API call the fakes saw since the last clearActions.
func (e *fakeEnv) writes() []string {
	var out []string
	for _, actions := range [][]clienttesting.Action{e.kube.Actions(), e.apiext.Actions(), e.dynamic.Actions()} {
		for _, a := range actions {
			switch a.GetVerb() {
			case "create", "update", "patch", "delete", "deletecollection":
				out = append(out, a.GetVerb()+" "+a.GetResource().Resource)
			}
		}
	}
	return out
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
