package inferencegateway

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextfake "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/fake"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/informers"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"

	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"

	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	crfake "github.com/llm-infra/llm-infra-operator/pkg/generated/clientset/versioned/fake"
	crinformers "github.com/llm-infra/llm-infra-operator/pkg/generated/informers/externalversions"
	igwlisters "github.com/llm-infra/llm-infra-operator/pkg/generated/listers/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine/enginetest"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/registry"
)

const ns = "llm"

// testOperand is the operand's two controllers, as the starter builds them, and the listers of
// the CRs.
type testOperand struct {
	gateways   igwlisters.GatewayLister
	mcps       igwlisters.MCPLister
	gatewayCtl *engine.Namespaced[*v1alpha1.Gateway, *gatewayState]
	// gatewayRelated is the Gateway kind's Related: which Gateways an event queues.
	gatewayRelated func(obj runtime.Object, crs func() []*v1alpha1.Gateway) ([]string, bool)
	mcpCtl         *engine.Namespaced[*v1alpha1.MCP, *mcpState]
}

func (o *testOperand) syncGateway(ctx context.Context, _ factory.SyncContext, key string) error {
	return o.gatewayCtl.Sync(ctx, key)
}

func (o *testOperand) syncMCP(ctx context.Context, _ factory.SyncContext, key string) error {
	return o.mcpCtl.Sync(ctx, key)
}

func (o *testOperand) newGatewayRun(gw *v1alpha1.Gateway) *gatewayRun { return o.gatewayCtl.NewRun(gw) }

// fakeEnv is the operand wired to fake clients (client-go's, the generated clientset's fake
// and library-go's in-memory event recorder).
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
	optional *engine.OptionalAPIs
	gateways cache.SharedIndexInformer
	mcps     cache.SharedIndexInformer
}

func newFakeEnv(t *testing.T, crds []string, objs ...runtime.Object) *fakeEnv {
	t.Helper()
	return newFakeEnvWithPolicy(t, engine.Policy{}, crds, objs...)
}

// newFakeEnvWithPolicy is newFakeEnv with the administrator's allowlists of the operator's
// environment.
func newFakeEnvWithPolicy(t *testing.T, policy engine.Policy, crds []string, objs ...runtime.Object) *fakeEnv {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	kube := kubefake.NewSimpleClientset(enginetest.Versioned(objs...)...)
	var crdObjs []runtime.Object
	for _, name := range crds {
		crdObjs = append(crdObjs, enginetest.EstablishedCRD(name))
	}
	apiext := apiextfake.NewSimpleClientset(crdObjs...)
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(scheme, map[schema.GroupVersionResource]string{
		GatewayAPIGatewayGVR: "GatewayList", HTTPRouteGVR: "HTTPRouteList", BackendTLSPolicyGVR: "BackendTLSPolicyList", ServiceMonitorGVR: "ServiceMonitorList",
		engine.ReferenceGrantGVR: "ReferenceGrantList",
	})
	enginetest.ServeBuiltInsFromTracker(dyn, kube.Tracker())
	crs := crfake.NewSimpleClientset()
	enginetest.VersionObjects(kube, apiext, dyn, crs)

	env := &fakeEnv{t: t, ctx: ctx, kube: kube, apiext: apiext, dynamic: dyn, crs: crs,
		recorder: events.NewInMemoryRecorder("test", clock.RealClock{}), caches: engine.NewCaches()}
	managed := informers.NewSharedInformerFactoryWithOptions(kube, 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = engine.ManagedBySelector() }))
	crInformers := crinformers.NewSharedInformerFactory(crs, 0)
	env.gateways = crInformers.Core().V1alpha1().Gateways().Informer()
	env.mcps = crInformers.Core().V1alpha1().MCPs().Informer()
	env.optional = engine.NewOptionalAPIs(ctx, dyn, apiext, 0, env.caches, OptionalAPIs()...)
	deps := &registry.Deps{
		NamespacedDeps: engine.NamespacedDeps{
			Clients:          &engine.CachedClients{Kube: kube, APIExt: apiext, Dynamic: dyn, Caches: env.caches},
			Managed:          managed,
			Optional:         env.optional,
			ReferenceSources: engine.NewTypedReferenceSources(kube),
			Events:           func(schema.GroupVersionKind, metav1.Object) events.Recorder { return env.recorder },
			Recorder:         env.recorder,
		},
		CR:          crs,
		CRInformers: crInformers,
		Policy:      policy,
	}
	env.op = &testOperand{
		gateways: igwlisters.NewGatewayLister(env.gateways.GetIndexer()),
		mcps:     igwlisters.NewMCPLister(env.mcps.GetIndexer()),
	}
	var err error
	gatewayKind := GatewayKind(deps)
	env.op.gatewayRelated = gatewayKind.Related
	if env.op.gatewayCtl, err = engine.NewNamespaced(ctx, gatewayKind, deps.NamespacedDeps); err != nil {
		t.Fatal(err)
	}
	if env.op.mcpCtl, err = engine.NewNamespaced(ctx, MCPKind(deps), deps.NamespacedDeps); err != nil {
		t.Fatal(err)
	}
	env.syncCtx = factory.NewSyncContext("test", env.recorder)
	managed.Start(ctx.Done())
	managed.WaitForCacheSync(ctx.Done())
	crInformers.Start(ctx.Done())
	crInformers.WaitForCacheSync(ctx.Done())
	synced := []cache.InformerSynced{}
	for _, w := range env.optional.CRDWatches() {
		go w.Informer.Run(ctx.Done())
		synced = append(synced, w.Informer.HasSynced)
	}
	cache.WaitForCacheSync(ctx.Done(), synced...)
	return env
}

// createGateway stores a Gateway and waits for the informer to hold it.
func (e *fakeEnv) createGateway(gw *v1alpha1.Gateway) {
	e.t.Helper()
	gw.Namespace = ns
	if gw.UID == "" {
		gw.UID = types.UID("uid-" + gw.Name)
	}
	if _, err := e.crs.CoreV1alpha1().Gateways(ns).Create(e.ctx, gw, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
	enginetest.WaitFor(e.t, "the Gateway in the informer", func() bool {
		_, err := e.op.gateways.Gateways(ns).Get(gw.Name)
		return err == nil
	})
}

// updateGateway changes a Gateway's spec and waits for the informer.
func (e *fakeEnv) updateGateway(name string, change func(*v1alpha1.Gateway)) {
	e.t.Helper()
	gw := e.gateway(name)
	change(gw)
	updated, err := e.crs.CoreV1alpha1().Gateways(ns).Update(e.ctx, gw, metav1.UpdateOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	enginetest.WaitFor(e.t, "the updated Gateway in the informer", func() bool {
		cached, err := e.op.gateways.Gateways(ns).Get(name)
		return err == nil && cached.ResourceVersion == updated.ResourceVersion
	})
}

func (e *fakeEnv) gateway(name string) *v1alpha1.Gateway {
	e.t.Helper()
	gw, err := e.crs.CoreV1alpha1().Gateways(ns).Get(e.ctx, name, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	return gw
}

// syncGateway runs one sync and waits for the caches to hold what it wrote.
func (e *fakeEnv) syncGateway(name string) error {
	e.t.Helper()
	err := e.op.syncGateway(e.ctx, e.syncCtx, ns+"/"+name)
	e.settle()
	return err
}

// settle waits until every labelled Deployment, Service and ConfigMap of the fakes is cached as
// it is, and every CR's status as stored.
func (e *fakeEnv) settle() {
	e.t.Helper()
	enginetest.WaitFor(e.t, "caches to catch up", func() bool {
		for _, gr := range []schema.GroupResource{engine.Deployments, engine.Services, engine.ConfigMaps, engine.ServiceAccounts, engine.HorizontalPodAutoscalers} {
			list, err := e.dynamic.Resource(schema.GroupVersionResource{Group: gr.Group, Version: versionOf(gr), Resource: gr.Resource}).Namespace(ns).List(e.ctx, metav1.ListOptions{LabelSelector: engine.ManagedBySelector()})
			if err != nil {
				e.t.Fatal(err)
			}
			for _, item := range list.Items {
				cached, err := e.caches.GetMeta(gr, ns, item.GetName())
				if err != nil || cached.GetResourceVersion() != item.GetResourceVersion() {
					return false
				}
			}
		}
		gws, _ := e.crs.CoreV1alpha1().Gateways(ns).List(e.ctx, metav1.ListOptions{})
		for _, gw := range gws.Items {
			cached, err := e.op.gateways.Gateways(ns).Get(gw.Name)
			if err != nil || cached.ResourceVersion != gw.ResourceVersion {
				return false
			}
		}
		return true
	})
}

func versionOf(gr schema.GroupResource) string {
	if gr == engine.HorizontalPodAutoscalers {
		return "v2"
	}
	return "v1"
}

func (e *fakeEnv) deployment(name string) *appsv1.Deployment {
	e.t.Helper()
	d, err := e.kube.AppsV1().Deployments(ns).Get(e.ctx, name, metav1.GetOptions{})
	if err != nil {
		e.t.Fatalf("Deployment %s: %v", name, err)
	}
	return d
}

func (e *fakeEnv) exists(gvr schema.GroupVersionResource, name string) bool {
	e.t.Helper()
	_, err := e.dynamic.Resource(gvr).Namespace(ns).Get(e.ctx, name, metav1.GetOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		e.t.Fatal(err)
	}
	return err == nil
}

func (e *fakeEnv) expectCondition(name, condType string, status metav1.ConditionStatus, reason string) *metav1.Condition {
	e.t.Helper()
	c := meta.FindStatusCondition(e.gateway(name).Status.Conditions, condType)
	if c == nil {
		e.t.Fatalf("condition %s not set: %+v", condType, e.gateway(name).Status)
	}
	if c.Status != status || c.Reason != reason {
		e.t.Errorf("condition %s = %s/%s (%q), want %s/%s", condType, c.Status, c.Reason, c.Message, status, reason)
	}
	return c
}

// makeAvailable marks a Deployment's rollout complete, as the controller manager would.
func (e *fakeEnv) makeAvailable(name string) {
	e.t.Helper()
	d := e.deployment(name)
	replicas := engine.DesiredReplicas(d)
	d.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: replicas, UpdatedReplicas: replicas, ReadyReplicas: replicas, AvailableReplicas: replicas}
	if _, err := e.kube.AppsV1().Deployments(ns).UpdateStatus(e.ctx, d, metav1.UpdateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

func secret(name string, data map[string]string) *corev1.Secret {
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Data: map[string][]byte{}}
	for k, v := range data {
		s.Data[k] = []byte(v)
	}
	return s
}

var (
	deploymentsGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	hpasGVR        = schema.GroupVersionResource{Group: "autoscaling", Version: "v2", Resource: "horizontalpodautoscalers"}
	pdbsGVR        = schema.GroupVersionResource{Group: "policy", Version: "v1", Resource: "poddisruptionbudgets"}
	configMapsGVR  = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
)

func typesName(namespace, name string) types.NamespacedName {
	return types.NamespacedName{Namespace: namespace, Name: name}
}

// createMCP stores an MCP and waits for the informer to hold it.
func (e *fakeEnv) createMCP(mcp *v1alpha1.MCP) {
	e.t.Helper()
	mcp.Namespace = ns
	if mcp.UID == "" {
		mcp.UID = types.UID("mcp-uid-" + mcp.Name)
	}
	if _, err := e.crs.CoreV1alpha1().MCPs(ns).Create(e.ctx, mcp, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
	enginetest.WaitFor(e.t, "the MCP in the informer", func() bool {
		_, err := e.op.mcps.MCPs(ns).Get(mcp.Name)
		return err == nil
	})
}

func (e *fakeEnv) mcp(name string) *v1alpha1.MCP {
	e.t.Helper()
	mcp, err := e.crs.CoreV1alpha1().MCPs(ns).Get(e.ctx, name, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	return mcp
}

// syncMCP runs one sync of an MCP and waits for the caches to hold what it wrote.
func (e *fakeEnv) syncMCP(name string) error {
	e.t.Helper()
	err := e.op.syncMCP(e.ctx, e.syncCtx, ns+"/"+name)
	e.settle()
	return err
}

// byAsset indexes rendered objects by asset.
func byAsset(objs []renderedObject) map[string]renderedObject {
	out := make(map[string]renderedObject, len(objs))
	for _, ro := range objs {
		out[ro.asset] = ro
	}
	return out
}

// secrets are the Gateways' watches of the Secrets their pods read; mcpSecrets the MCPs'.
func (o *testOperand) secrets() *engine.ReferenceWatches {
	return o.gatewayCtl.References(engine.Secrets)
}

func (o *testOperand) mcpSecrets() *engine.ReferenceWatches {
	return o.mcpCtl.References(engine.Secrets)
}

// gatewaysDiscovering is the keys an MCP's event queues (the Gateway kind's Related).
func (o *testOperand) gatewaysDiscovering(mcp *v1alpha1.MCP) []string {
	return gatewaysDiscovering(mcp, o.gatewayCtl.List())
}
