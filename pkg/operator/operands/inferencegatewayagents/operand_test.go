package inferencegatewayagents

import (
	"context"
	"net"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextfake "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/fake"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/informers"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/openshift/library-go/pkg/operator/events"

	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1/testcases"
	crfake "github.com/llm-infra/llm-infra-operator/pkg/generated/clientset/versioned/fake"
	crinformers "github.com/llm-infra/llm-infra-operator/pkg/generated/informers/externalversions"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine/enginetest"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/operands/inferencegatewayagents/gpuprovider"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/operands/inferencegatewayagents/gpuprovider/fakerunpod"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/registry"
)

// These tests drive the three kinds' controllers as the starter builds them, one sync at a
// time, against fake clients (client-go's, the generated clientset's fake and library-go's
// in-memory event recorder).

const testNS = "llm"

type fakeEnv struct {
	t           *testing.T
	ctx         context.Context
	kube        *kubefake.Clientset
	dynamic     *dynamicfake.FakeDynamicClient
	crs         *crfake.Clientset
	recorder    events.InMemoryRecorder
	deps        *registry.Deps
	caches      *engine.Caches
	crInformers crinformers.SharedInformerFactory
	managed     informers.SharedInformerFactory
}

func newFakeEnv(t *testing.T, objs ...runtime.Object) *fakeEnv {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	kube := kubefake.NewSimpleClientset(enginetest.Versioned(objs...)...)
	// Gateway API's ReferenceGrant CRD is installed: an Orchestrator's cross-namespace discovery
	// asks for grants.
	apiext := apiextfake.NewSimpleClientset(enginetest.EstablishedCRD(engine.CRDName(engine.ReferenceGrantGVR)))
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(scheme, map[schema.GroupVersionResource]string{engine.ReferenceGrantGVR: "ReferenceGrantList"})
	enginetest.ServeBuiltInsFromTracker(dyn, kube.Tracker())
	crs := crfake.NewSimpleClientset()
	enginetest.VersionObjects(kube, apiext, dyn, crs)
	e := &fakeEnv{t: t, ctx: ctx, kube: kube, dynamic: dyn, crs: crs, recorder: events.NewInMemoryRecorder("test", clock.RealClock{}), caches: engine.NewCaches()}
	e.managed = informers.NewSharedInformerFactoryWithOptions(kube, 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = engine.ManagedBySelector() }))
	e.crInformers = crinformers.NewSharedInformerFactory(crs, 0)
	e.deps = &registry.Deps{
		NamespacedDeps: engine.NamespacedDeps{
			Clients:          &engine.CachedClients{Kube: kube, APIExt: apiext, Dynamic: dyn, Caches: e.caches},
			Managed:          e.managed,
			Optional:         engine.NewOptionalAPIs(ctx, dyn, apiext, 0, e.caches, engine.ReferenceGrantAPI),
			ReferenceSources: engine.NewTypedReferenceSources(kube),
			Events:           func(schema.GroupVersionKind, metav1.Object) events.Recorder { return e.recorder },
			Recorder:         e.recorder,
		},
		CR:          crs,
		CRInformers: e.crInformers,
	}
	return e
}

// start starts the informers once the controllers registered theirs.
func (e *fakeEnv) start() {
	e.managed.Start(e.ctx.Done())
	e.managed.WaitForCacheSync(e.ctx.Done())
	e.crInformers.Start(e.ctx.Done())
	e.crInformers.WaitForCacheSync(e.ctx.Done())
	for _, w := range e.deps.Optional.CRDWatches() {
		go w.Informer.Run(e.ctx.Done())
		cache.WaitForCacheSync(e.ctx.Done(), w.Informer.HasSynced)
	}
}

// waitCached waits until an informer holds the object at its stored resourceVersion.
func (e *fakeEnv) waitCached(what string, informer cache.SharedIndexInformer, obj metav1.Object) {
	e.t.Helper()
	enginetest.WaitFor(e.t, what+" in the informer", func() bool {
		cached, ok, _ := informer.GetStore().GetByKey(obj.GetNamespace() + "/" + obj.GetName())
		m, _ := meta.Accessor(cached)
		return ok && m.GetResourceVersion() == obj.GetResourceVersion()
	})
}

// settle waits until the managed caches hold every labelled Deployment, Service, ConfigMap,
// Secret and NetworkPolicy as stored.
func (e *fakeEnv) settle() {
	e.t.Helper()
	enginetest.WaitFor(e.t, "caches to catch up", func() bool {
		check := func(gr schema.GroupResource, items []metav1.Object) bool {
			for _, item := range items {
				if item.GetLabels()[engine.ManagedByLabel] != engine.ManagedByValue {
					continue
				}
				cached, err := e.caches.GetMeta(gr, item.GetNamespace(), item.GetName())
				if err != nil || cached.GetResourceVersion() != item.GetResourceVersion() {
					return false
				}
			}
			return true
		}
		ds, _ := e.kube.AppsV1().Deployments(testNS).List(e.ctx, metav1.ListOptions{})
		svcs, _ := e.kube.CoreV1().Services(testNS).List(e.ctx, metav1.ListOptions{})
		cms, _ := e.kube.CoreV1().ConfigMaps(testNS).List(e.ctx, metav1.ListOptions{})
		secrets, _ := e.kube.CoreV1().Secrets(testNS).List(e.ctx, metav1.ListOptions{})
		nps, _ := e.kube.NetworkingV1().NetworkPolicies(testNS).List(e.ctx, metav1.ListOptions{})
		return check(engine.Deployments, metas(ds.Items)) && check(engine.Services, metas(svcs.Items)) &&
			check(engine.ConfigMaps, metas(cms.Items)) && check(engine.Secrets, metas(secrets.Items)) &&
			check(engine.NetworkPolicies, metas(nps.Items))
	})
}

func metas[T any, PT interface {
	*T
	metav1.Object
}](items []T) []metav1.Object {
	out := make([]metav1.Object, len(items))
	for i := range items {
		out[i] = PT(&items[i])
	}
	return out
}

func (e *fakeEnv) makeAvailable(name string) {
	e.t.Helper()
	d, err := e.kube.AppsV1().Deployments(testNS).Get(e.ctx, name, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	replicas := engine.DesiredReplicas(d)
	d.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: replicas, UpdatedReplicas: replicas, ReadyReplicas: replicas, AvailableReplicas: replicas}
	if _, err := e.kube.AppsV1().Deployments(testNS).UpdateStatus(e.ctx, d, metav1.UpdateOptions{}); err != nil {
		e.t.Fatal(err)
	}
	e.settle()
}

func secretOf(name string, data map[string]string) *corev1.Secret {
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: testNS}, Data: map[string][]byte{}}
	for k, v := range data {
		s.Data[k] = []byte(v)
	}
	return s
}

func condition(conds []metav1.Condition, condType string) metav1.Condition {
	if c := meta.FindStatusCondition(conds, condType); c != nil {
		return *c
	}
	return metav1.Condition{}
}

// TestAgentController: an Agent's Service (upstream's, unowned, taken over) and Deployment
// (the API key Secret watched and hashed), Ready from the card the fetcher reads once a replica
// is available, and a Secret's new data rolls the pods.
func TestAgentController(t *testing.T) {
	card := newCardAgent(t, CardPaths[0], testCard)
	host, portText, _ := net.SplitHostPort(strings.TrimPrefix(card.URL, "http://"))
	port, _ := strconv.Atoi(portText)
	upstreamService := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "calendar", Namespace: testNS, Labels: map[string]string{"app": "calendar"}},
		Spec:       corev1.ServiceSpec{ClusterIP: host, Selector: map[string]string{"app": "calendar"}, Ports: []corev1.ServicePort{{Name: "http", Port: int32(port)}}},
	}
	e := newFakeEnv(t, secretOf("llm", map[string]string{"api-key": "k1"}), upstreamService)
	agents := &agentOperand{}
	k := agents.kind(e.deps)
	ctl, err := engine.NewNamespaced(e.ctx, k, e.deps.NamespacedDeps)
	if err != nil {
		t.Fatal(err)
	}
	notified := make(chan string, 10)
	agents.fetcher = NewCardFetcher(CardFetcherConfig{}, func(key string) { notified <- key })
	go agents.fetcher.Run(e.ctx)
	e.start()

	agent := decodeCase[v1alpha1.Agent](t, testcases.Case{Base: testcases.BaseAgent, Patch: `{metadata: {namespace: llm, uid: u1}, spec: {agent: {llm: {apiKeySecretRef: {name: llm, key: api-key}}}}}`})
	agent.Spec.Port = int32(port)
	created, err := e.crs.CoreV1alpha1().Agents(testNS).Create(e.ctx, agent, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e.waitCached("the Agent", k.Informer, created)
	sync := func() *v1alpha1.Agent {
		t.Helper()
		if err := ctl.Sync(e.ctx, testNS+"/calendar"); err != nil {
			t.Fatal(err)
		}
		e.settle()
		got, err := e.crs.CoreV1alpha1().Agents(testNS).Get(e.ctx, "calendar", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		e.waitCached("the Agent's status", k.Informer, got)
		return got
	}

	got := sync()
	svc, err := e.kube.CoreV1().Services(testNS).Get(e.ctx, "calendar", metav1.GetOptions{})
	if err != nil || !engine.ControlledBy(got)(svc) || svc.Labels["app.kubernetes.io/component"] != "agent" {
		t.Fatalf("upstream's Service was not taken over: %+v, %v", svc, err)
	}
	d, err := e.kube.AppsV1().Deployments(testNS).Get(e.ctx, "calendar", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hash := d.Spec.Template.Annotations["operator.llm-infra.io/hash-secret-llm"]
	if hash == "" || d.Spec.Template.Spec.SecurityContext == nil || !*d.Spec.Template.Spec.SecurityContext.RunAsNonRoot {
		t.Errorf("Deployment: annotations %v, security %+v", d.Spec.Template.Annotations, d.Spec.Template.Spec.SecurityContext)
	}
	if c := condition(got.Status.Conditions, v1alpha1.ConditionReady); c.Reason != v1alpha1.ReasonCardPending || got.Status.Ready {
		t.Errorf("before a replica: Ready %+v", c)
	}

	// The API server keeps a Service's cluster IP through updates; the fake does not.
	svc.Spec.ClusterIP = host
	if _, err := e.kube.CoreV1().Services(testNS).Update(e.ctx, svc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.makeAvailable("calendar")
	got = sync()
	if c := condition(got.Status.Conditions, v1alpha1.ConditionAvailable); c.Status != metav1.ConditionTrue {
		t.Errorf("Available %+v", c)
	}

	select {
	case <-notified:
	case <-time.After(30 * time.Second):
		t.Fatal("the fetcher never read the card")
	}
	got = sync()
	if c := condition(got.Status.Conditions, v1alpha1.ConditionReady); c.Status != metav1.ConditionTrue || c.Reason != v1alpha1.ReasonCardFetched ||
		!got.Status.Ready || got.Status.Card.Name != "calendar" || got.Status.Card.SkillsNames != "Only skill" {
		t.Errorf("after the card: Ready %+v, card %+v", c, got.Status.Card)
	}
	if !hasEvent(e.recorder, v1alpha1.ReasonCardFetched) {
		t.Errorf("no %s event: %v", v1alpha1.ReasonCardFetched, e.recorder.Events())
	}

	// A new API key rolls the pods.
	if _, err := e.kube.CoreV1().Secrets(testNS).Update(e.ctx, secretOf("llm", map[string]string{"api-key": "k2"}), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	enginetest.WaitFor(t, "the new key in the watch", func() bool {
		sync()
		d, _ := e.kube.AppsV1().Deployments(testNS).Get(e.ctx, "calendar", metav1.GetOptions{})
		return d.Spec.Template.Annotations["operator.llm-infra.io/hash-secret-llm"] != hash
	})
}

func hasEvent(r events.InMemoryRecorder, reason string) bool {
	for _, e := range r.Events() {
		if e.Reason == reason {
			return true
		}
	}
	return false
}

// TestOrchestratorController: discovery lists the Agents the selector matches, into agents.yaml
// and status, and follows a relabelled Agent; the Agent's event maps to the Orchestrator; a
// missing token Secret is reported by name.
func TestOrchestratorController(t *testing.T) {
	e := newFakeEnv(t, secretOf("telegram-bot-credentials", map[string]string{"token": "t"}))
	k := OrchestratorKind(e.deps)
	ctl, err := engine.NewNamespaced(e.ctx, k, e.deps.NamespacedDeps)
	if err != nil {
		t.Fatal(err)
	}
	e.start()
	agentInformer := e.crInformers.Core().V1alpha1().Agents().Informer()
	for _, a := range []struct{ name, group string }{{"calendar", "g1"}, {"mock", "g1"}, {"other", "g2"}} {
		created, err := e.crs.CoreV1alpha1().Agents("agents").Create(e.ctx, &v1alpha1.Agent{
			ObjectMeta: metav1.ObjectMeta{Name: a.name, Namespace: "agents", Labels: map[string]string{"group": a.group}},
			Spec:       v1alpha1.AgentSpec{Image: "i", Port: 8080}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		e.waitCached("Agent "+a.name, agentInformer, created)
	}
	orch := decodeCase[v1alpha1.Orchestrator](t, testcases.Case{Base: testcases.BaseOrchestrator,
		Patch: `{metadata: {uid: u2}, spec: {a2a: {enabled: true, serviceDiscovery: {enabled: true, namespace: agents, selector: {matchLabels: {group: g1}}}}}}`})
	created, err := e.crs.CoreV1alpha1().Orchestrators(testNS).Create(e.ctx, orch, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e.waitCached("the Orchestrator", k.Informer, created)
	sync := func() *v1alpha1.Orchestrator {
		t.Helper()
		if err := ctl.Sync(e.ctx, testNS+"/orchestrator"); err != nil {
			t.Fatal(err)
		}
		e.settle()
		got, err := e.crs.CoreV1alpha1().Orchestrators(testNS).Get(e.ctx, "orchestrator", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		e.waitCached("the Orchestrator's status", k.Informer, got)
		return got
	}
	agentsYAML := func() string {
		cm, err := e.kube.CoreV1().ConfigMaps(testNS).Get(e.ctx, "orchestrator-agents", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return cm.Data[agentsKey]
	}

	// The Agents are in another namespace, which has not consented: none is used, and Degraded
	// names them and the ReferenceGrant to create (issue 33).
	got := sync()
	if got.Status.DiscoveredAgentCount != 0 || strings.Contains(agentsYAML(), "name: mock") {
		t.Errorf("discovered without a ReferenceGrant: %v, agents.yaml:\n%s", got.Status.DiscoveredAgents, agentsYAML())
	}
	if c := condition(got.Status.Conditions, engine.ConditionDegraded); c.Reason != engine.ReasonReferenceNotPermitted ||
		!strings.Contains(c.Message, "skipped [calendar mock]") || !strings.Contains(c.Message, "a ReferenceGrant in namespace agents from group core.inference-gateway.com, kind Orchestrator, namespace llm to group core.inference-gateway.com, kind Agent") {
		t.Errorf("Degraded without a ReferenceGrant: %+v", c)
	}
	if !hasWarning(e.recorder, engine.ReasonReferenceNotPermitted) {
		t.Errorf("no Warning %s event", engine.ReasonReferenceNotPermitted)
	}
	// The grant's event reaches the Orchestrator; then both are used.
	grant := agentsGrant()
	if keys, ok := k.Related(grant, ctl.List); !ok || len(keys) != 1 || keys[0] != testNS+"/orchestrator" {
		t.Errorf("Related(ReferenceGrant) = %v, %v", keys, ok)
	}
	if _, err := e.dynamic.Resource(engine.ReferenceGrantGVR).Namespace("agents").Create(e.ctx, grant, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	enginetest.WaitFor(t, "the ReferenceGrant in the informer", func() bool {
		grants, err := e.deps.Optional.ReferenceGrants("agents")
		return err == nil && len(grants) == 1
	})
	got = sync()
	if got.Status.DiscoveredAgentCount != 2 || !strings.Contains(agentsYAML(), "name: mock") || strings.Contains(agentsYAML(), "name: other") {
		t.Errorf("discovered %v, agents.yaml:\n%s", got.Status.DiscoveredAgents, agentsYAML())
	}
	if c := condition(got.Status.Conditions, v1alpha1.ConditionDiscovered); c.Status != metav1.ConditionTrue || c.Message != "discovered 2 agent(s)" {
		t.Errorf("Discovered %+v", c)
	}
	before, _ := e.kube.AppsV1().Deployments(testNS).Get(e.ctx, "orchestrator", metav1.GetOptions{})

	// Relabel mock out of the selector: its event maps to the Orchestrator (before and after).
	mock, _ := e.crs.CoreV1alpha1().Agents("agents").Get(e.ctx, "mock", metav1.GetOptions{})
	old := mock.DeepCopy()
	mock.Labels["group"] = "g2"
	updated, err := e.crs.CoreV1alpha1().Agents("agents").Update(e.ctx, mock, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e.waitCached("the relabelled Agent", agentInformer, updated)
	for _, obj := range []*v1alpha1.Agent{old, updated} {
		keys, ok := k.Related(obj, ctl.List)
		if want := obj == old; !ok || (len(keys) == 1) != want {
			t.Errorf("Related(%s) = %v, %v", obj.Labels["group"], keys, ok)
		}
	}
	got = sync()
	after, _ := e.kube.AppsV1().Deployments(testNS).Get(e.ctx, "orchestrator", metav1.GetOptions{})
	if got.Status.DiscoveredAgentCount != 1 || strings.Contains(agentsYAML(), "name: mock") {
		t.Errorf("after relabelling: %v, agents.yaml:\n%s", got.Status.DiscoveredAgents, agentsYAML())
	}
	if before.Spec.Template.Annotations["operator.llm-infra.io/hash-configmap-orchestrator-agents"] == after.Spec.Template.Annotations["operator.llm-infra.io/hash-configmap-orchestrator-agents"] {
		t.Errorf("agents.yaml changed and the pod does not roll: %v", after.Spec.Template.Annotations)
	}

	// The grant goes: the next sync drops what it allowed.
	if err := e.dynamic.Resource(engine.ReferenceGrantGVR).Namespace("agents").Delete(e.ctx, grant.GetName(), metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	enginetest.WaitFor(t, "the ReferenceGrant gone from the informer", func() bool {
		grants, err := e.deps.Optional.ReferenceGrants("agents")
		return err == nil && len(grants) == 0
	})
	if got = sync(); got.Status.DiscoveredAgentCount != 0 || strings.Contains(agentsYAML(), "name: calendar") {
		t.Errorf("after the grant went: %v, agents.yaml:\n%s", got.Status.DiscoveredAgents, agentsYAML())
	}

	// The token Secret goes: reported by name, what runs keeps running.
	if err := e.kube.CoreV1().Secrets(testNS).Delete(e.ctx, "telegram-bot-credentials", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	enginetest.WaitFor(t, "SecretMissing", func() bool {
		c := condition(sync().Status.Conditions, engine.ConditionDegraded)
		return c.Reason == engine.ReasonSecretMissing && strings.Contains(c.Message, "Secret llm/telegram-bot-credentials")
	})
}

// TestDeploymentsWaitForTheSecretsTheyMount (issue 34, on fake clients): an Agent's or
// Orchestrator's Deployment is never applied without the hash of a Secret its pods need. Applied
// without it, the Secret's arrival added the hash and rolled the new Deployment a second time;
// now it waits (Progressing WaitingForMountedSecrets) and is created once, with the hash. A
// Secret named only as optional holds nothing back: the pods start without it.
func TestDeploymentsWaitForTheSecretsTheyMount(t *testing.T) {
	type controller struct {
		deployment string
		// start builds the kind's controller, creates its CR from patch and returns its sync.
		start func(e *fakeEnv, patch string) (sync func() []metav1.Condition)
	}
	agent := controller{deployment: "calendar", start: func(e *fakeEnv, patch string) func() []metav1.Condition {
		k := (&agentOperand{}).kind(e.deps)
		ctl, err := engine.NewNamespaced(e.ctx, k, e.deps.NamespacedDeps)
		if err != nil {
			t.Fatal(err)
		}
		e.start()
		created, err := e.crs.CoreV1alpha1().Agents(testNS).Create(e.ctx,
			decodeCase[v1alpha1.Agent](t, testcases.Case{Base: testcases.BaseAgent, Patch: patch}), metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		e.waitCached("the Agent", k.Informer, created)
		return func() []metav1.Condition {
			t.Helper()
			if err := ctl.Sync(e.ctx, testNS+"/"+created.Name); err != nil {
				t.Fatal(err)
			}
			e.settle()
			got, err := e.crs.CoreV1alpha1().Agents(testNS).Get(e.ctx, created.Name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			e.waitCached("the Agent's status", k.Informer, got)
			return got.Status.Conditions
		}
	}}
	orchestrator := controller{deployment: "orchestrator", start: func(e *fakeEnv, patch string) func() []metav1.Condition {
		k := OrchestratorKind(e.deps)
		ctl, err := engine.NewNamespaced(e.ctx, k, e.deps.NamespacedDeps)
		if err != nil {
			t.Fatal(err)
		}
		e.start()
		created, err := e.crs.CoreV1alpha1().Orchestrators(testNS).Create(e.ctx,
			decodeCase[v1alpha1.Orchestrator](t, testcases.Case{Base: testcases.BaseOrchestrator, Patch: patch}), metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		e.waitCached("the Orchestrator", k.Informer, created)
		return func() []metav1.Condition {
			t.Helper()
			if err := ctl.Sync(e.ctx, testNS+"/"+created.Name); err != nil {
				t.Fatal(err)
			}
			e.settle()
			got, err := e.crs.CoreV1alpha1().Orchestrators(testNS).Get(e.ctx, created.Name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			e.waitCached("the Orchestrator's status", k.Informer, got)
			return got.Status.Conditions
		}
	}}
	const (
		agentKey                  = `{metadata: {namespace: llm, uid: u1}, spec: {agent: {llm: {apiKeySecretRef: {name: llm-key, key: api-key}}}}}`
		agentOptionalKey          = `{metadata: {namespace: llm, uid: u1}, spec: {agent: {llm: {apiKeySecretRef: {name: llm-key, key: api-key, optional: true}}}}}`
		agentOptionalEnv          = `{metadata: {namespace: llm, uid: u1}, spec: {env: [{name: EXTRA, valueFrom: {secretKeyRef: {name: llm-key, key: extra, optional: true}}}]}}`
		orchestratorToken         = `{metadata: {uid: u2}, spec: {channels: {telegram: {tokenSecretRef: {name: llm-key, key: token}}}}}`
		orchestratorOptionalToken = `{metadata: {uid: u2}, spec: {channels: {telegram: {tokenSecretRef: {name: llm-key, key: token, optional: true}}}}}`
	)
	secret := secretOf("llm-key", map[string]string{"api-key": "k", "token": "t", "extra": "x"})
	hashKey := engine.ConfigHashAnnotationPrefix + "secret-" + secret.Name
	for _, c := range []struct {
		name       string
		controller controller
		patch      string
		// exists: the Secret is there before the CR; otherwise it is created after the first sync.
		exists bool
		// waits: the first sync holds the Deployment back.
		waits bool
	}{
		{name: "Agent, its API key Secret missing", controller: agent, patch: agentKey, waits: true},
		{name: "Agent, its API key Secret present", controller: agent, patch: agentKey, exists: true},
		{name: "Agent, its optional API key Secret missing", controller: agent, patch: agentOptionalKey},
		{name: "Agent, an optional env Secret missing", controller: agent, patch: agentOptionalEnv},
		{name: "Orchestrator, its token Secret missing", controller: orchestrator, patch: orchestratorToken, waits: true},
		{name: "Orchestrator, its token Secret present", controller: orchestrator, patch: orchestratorToken, exists: true},
		{name: "Orchestrator, its optional token Secret missing", controller: orchestrator, patch: orchestratorOptionalToken},
	} {
		t.Run(c.name, func(t *testing.T) {
			var objs []runtime.Object
			if c.exists {
				objs = append(objs, secret.DeepCopy())
			}
			e := newFakeEnv(t, objs...)
			sync := c.controller.start(e, c.patch)
			deployment := func() *appsv1.Deployment {
				d, err := e.kube.AppsV1().Deployments(testNS).Get(e.ctx, c.controller.deployment, metav1.GetOptions{})
				if apierrors.IsNotFound(err) {
					return nil
				}
				if err != nil {
					t.Fatal(err)
				}
				return d
			}

			conditions := sync()
			progressing, degraded := condition(conditions, engine.ConditionProgressing), condition(conditions, engine.ConditionDegraded)
			switch {
			case c.waits:
				if d := deployment(); d != nil {
					t.Fatalf("Deployment applied while the Secret its pods need is missing: %v", d.Spec.Template.Annotations)
				}
				if progressing.Reason != engine.ReasonWaitingForMountedSecrets || !strings.Contains(progressing.Message, testNS+"/"+secret.Name) {
					t.Errorf("Progressing = %+v, want %s naming %s/%s", progressing, engine.ReasonWaitingForMountedSecrets, testNS, secret.Name)
				}
			case c.exists:
				if d := deployment(); d == nil || d.Spec.Template.Annotations[hashKey] == "" {
					t.Errorf("Deployment without the hash %s: %+v", hashKey, d)
				}
			default: // an optional Secret, missing
				if deployment() == nil || progressing.Reason == engine.ReasonWaitingForMountedSecrets {
					t.Errorf("an optional Secret missing held the Deployment back: Progressing %+v", progressing)
				}
				if degraded.Reason == engine.ReasonSecretMissing {
					t.Errorf("an optional Secret missing reported as a problem: %+v", degraded)
				}
			}
			if c.exists || !c.waits {
				return
			}

			// The Secret arrives: its watch brings the sync that creates the Deployment once,
			// with the hash; a further sync writes nothing.
			if _, err := e.kube.CoreV1().Secrets(testNS).Create(e.ctx, secret.DeepCopy(), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			enginetest.WaitFor(t, "the Deployment once the Secret is watched", func() bool { sync(); return deployment() != nil })
			sync()
			var writes []string
			for _, w := range enginetest.Actions(enginetest.WriteVerbs, e.kube) {
				if strings.Contains(w, " deployments ") {
					writes = append(writes, w)
				}
			}
			if len(writes) != 1 || !strings.HasPrefix(writes[0], "create ") {
				t.Errorf("Deployment writes = %v, want one create", writes)
			}
			if d := deployment(); d.Spec.Template.Annotations[hashKey] == "" {
				t.Errorf("Deployment created without the hash %s: %v", hashKey, d.Spec.Template.Annotations)
			}
			if p := condition(sync(), engine.ConditionProgressing); p.Reason == engine.ReasonWaitingForMountedSecrets {
				t.Errorf("Progressing still %+v", p)
			}
		})
	}
}

// TestGPUController: the finalizer first, the connection Secret, the lease against the fake
// provider; deletion releases the allocation before the finalizer goes; the provider's key
// reaches no event.
func TestGPUController(t *testing.T) {
	runpod := fakerunpod.New(providerKey)
	api := httptest.NewServer(runpod)
	defer api.Close()
	e := newFakeEnv(t, secretOf("runpod-credentials", map[string]string{"api-key": providerKey}))
	// The operator's own events (its namespace), apart from the GPU's.
	operatorEvents := events.NewInMemoryRecorder("operator", clock.RealClock{})
	e.deps.Recorder = operatorEvents
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	gpus := &gpuOperand{endpoints: gpuprovider.Endpoints{RunPod: api.URL}, now: func() time.Time { return now },
		probe: func(context.Context, string, string) error { return nil }}
	k := gpus.kind(e.deps)
	ctl, err := engine.NewNamespaced(e.ctx, k, e.deps.NamespacedDeps)
	if err != nil {
		t.Fatal(err)
	}
	e.start()
	gpu := &v1alpha1.GPU{}
	if err := yaml.UnmarshalStrict([]byte(testcases.BaseGPU), gpu); err != nil {
		t.Fatal(err)
	}
	gpu.UID = "u3"
	gpu.Spec.Provider, gpu.Spec.Endpoint = v1alpha1.GPUProviderRunPod, v1alpha1.GPUEndpointSpec{Port: 8000, ReadinessPath: "/health"}
	created, err := e.crs.CoreV1alpha1().GPUs(testNS).Create(e.ctx, gpu, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e.waitCached("the GPU", k.Informer, created)
	syncNamed := func(name string) *v1alpha1.GPU {
		t.Helper()
		if err := ctl.Sync(e.ctx, testNS+"/"+name); err != nil {
			t.Fatal(err)
		}
		e.settle()
		got, err := e.crs.CoreV1alpha1().GPUs(testNS).Get(e.ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		e.waitCached("the GPU "+name, k.Informer, got)
		return got
	}
	sync := func() *v1alpha1.GPU { t.Helper(); return syncNamed("ornith") }

	if got := sync(); len(got.Finalizers) != 1 || got.Finalizers[0] != v1alpha1.GPUFinalizer || got.Status.Phase != "" {
		t.Fatalf("first sync: finalizers %v, phase %q", got.Finalizers, got.Status.Phase)
	}
	if got := sync(); got.Status.Phase != v1alpha1.GPUPhasePending || len(runpod.Pods()) != 0 {
		t.Fatalf("second sync: phase %q, pods %v", got.Status.Phase, runpod.Pods())
	}
	secret, err := e.kube.CoreV1().Secrets(testNS).Get(e.ctx, "ornith-connection", metav1.GetOptions{})
	if err != nil || len(secret.Data[connectionTokenKey]) != 64 || !engine.ControlledBy(created)(secret) {
		t.Fatalf("connection Secret %+v: %v", secret, err)
	}
	got := sync()
	if got.Status.Phase != v1alpha1.GPUPhaseProvisioning || len(runpod.Pods()) != 1 || runpod.Pods()[0].Env["API_KEY"] != string(secret.Data[connectionTokenKey]) {
		t.Fatalf("third sync: phase %q, pods %+v", got.Status.Phase, runpod.Pods())
	}
	// keptKey is the GPU's copy of the provider's key, nil when there is none.
	keptKey := func(gpu string) *corev1.Secret {
		t.Helper()
		s, err := e.kube.CoreV1().Secrets(testNS).Get(e.ctx, ProviderKeySecretName(gpu), metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if c := keptKey("ornith"); c == nil || string(c.Data[providerKeyDataKey]) != providerKey ||
		!slices.Equal(c.Finalizers, []string{ProviderKeyFinalizer}) || !engine.ControlledBy(created)(c) {
		t.Fatalf("the copy of the provider's key while leased: %+v", c)
	}

	got.DeletionTimestamp = ptr.To(metav1.NewTime(now))
	deleted, err := e.crs.CoreV1alpha1().GPUs(testNS).Update(e.ctx, got, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e.waitCached("the deleted GPU", k.Informer, deleted)
	// released: the first sync of a deleted GPU releases the allocation and records it, the
	// copy of the key kept; the next one lets the copy and the GPU go.
	released := func(name string) {
		t.Helper()
		got := syncNamed(name)
		if len(got.Finalizers) != 1 || got.Status.InstanceID != "" || len(runpod.Pods()) != 0 {
			t.Fatalf("%s released: finalizers %v, instanceID %q, pods %v", name, got.Finalizers, got.Status.InstanceID, runpod.Pods())
		}
		if c := keptKey(name); c == nil || len(c.Finalizers) != 1 {
			t.Fatalf("%s released: the copy of the key went before the release was recorded: %+v", name, c)
		}
		if got := syncNamed(name); len(got.Finalizers) != 0 {
			t.Fatalf("%s released and recorded: finalizers %v", name, got.Finalizers)
		}
		if c := keptKey(name); c != nil && len(c.Finalizers) != 0 {
			t.Errorf("%s released, yet the copy of the key keeps its finalizer: %v", name, c.Finalizers)
		}
	}
	released("ornith")
	for _, ev := range e.recorder.Events() {
		if strings.Contains(ev.Message, providerKey) || strings.Contains(ev.Message, string(secret.Data[connectionTokenKey])) {
			t.Errorf("a credential in event %s: %s", ev.Reason, ev.Message)
		}
	}
	if hasEvent(e.recorder, v1alpha1.ReasonGPUAllocationAbandoned) {
		t.Error("an allocation released in time reported as abandoned")
	}

	// A GPU whose credentials Secret is gone before it (its namespace being deleted deletes
	// both): the copy of the key releases the allocation, then loses its finalizer.
	leased := func(name string, uid types.UID) *v1alpha1.GPU {
		t.Helper()
		gpu.Name, gpu.UID = name, uid
		created, err := e.crs.CoreV1alpha1().GPUs(testNS).Create(e.ctx, gpu, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		e.waitCached("the GPU "+name, k.Informer, created)
		syncNamed(name)
		syncNamed(name)
		got := syncNamed(name)
		if got.Status.InstanceID == "" || keptKey(name) == nil {
			t.Fatalf("GPU %s leased nothing or kept no key: %+v", name, got.Status)
		}
		return got
	}
	deleteGPU := func(g *v1alpha1.GPU) {
		t.Helper()
		g.DeletionTimestamp = ptr.To(metav1.NewTime(now))
		deleted, err := e.crs.CoreV1alpha1().GPUs(testNS).Update(e.ctx, g, metav1.UpdateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		e.waitCached("the deleted GPU "+g.Name, k.Informer, deleted)
	}
	deleteSecret := func(name string) {
		t.Helper()
		if err := e.kube.CoreV1().Secrets(testNS).Delete(e.ctx, name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		e.settle()
	}
	second := leased("second", "u4")
	deleteSecret("runpod-credentials")
	deleteGPU(second)
	released("second")
	if hasEvent(e.recorder, v1alpha1.ReasonGPUAllocationAbandoned) || hasEvent(operatorEvents, v1alpha1.ReasonGPUAllocationAbandoned) {
		t.Fatalf("credentials gone, the copy kept: an allocation reported abandoned: %v %v", e.recorder.Events(), operatorEvents.Events())
	}

	// A GPU whose credentials and copy are both gone (someone took the copy's finalizer off):
	// the finalizer stays until the bound, then goes with a Warning event naming the allocation.
	if _, err := e.kube.CoreV1().Secrets(testNS).Create(e.ctx, secretOf("runpod-credentials", map[string]string{"api-key": providerKey}), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.settle()
	kept := leased("kept", "u5")
	deleteSecret("runpod-credentials")
	deleteSecret(ProviderKeySecretName("kept"))
	deleteGPU(kept)
	if got := syncNamed("kept"); len(got.Finalizers) != 1 || hasEvent(e.recorder, v1alpha1.ReasonGPUAllocationAbandoned) {
		t.Fatalf("before the bound: finalizers %v, events %v", got.Finalizers, e.recorder.Events())
	}
	now = now.Add(gpuCleanupGiveUp)
	if got := syncNamed("kept"); len(got.Finalizers) != 0 || len(runpod.Pods()) != 1 {
		t.Fatalf("at the bound: finalizers %v, pods %v", got.Finalizers, runpod.Pods())
	}
	var warned bool
	for _, ev := range e.recorder.Events() {
		if ev.Reason == v1alpha1.ReasonGPUAllocationAbandoned {
			warned = ev.Type == corev1.EventTypeWarning && strings.Contains(ev.Message, kept.Status.InstanceID)
		}
		if strings.Contains(ev.Message, providerKey) {
			t.Errorf("the provider's key in event %s: %s", ev.Reason, ev.Message)
		}
	}
	if !warned {
		t.Errorf("no Warning event %s naming allocation %s: %v", v1alpha1.ReasonGPUAllocationAbandoned, kept.Status.InstanceID, e.recorder.Events())
	}
	// The GPU's namespace is usually being deleted then, and refuses new events: the operator's
	// namespace gets a copy naming the GPU, once.
	var copies int
	for _, ev := range operatorEvents.Events() {
		if ev.Reason == v1alpha1.ReasonGPUAllocationAbandoned && ev.Type == corev1.EventTypeWarning &&
			strings.Contains(ev.Message, testNS+"/kept") && strings.Contains(ev.Message, kept.Status.InstanceID) {
			copies++
		}
	}
	if copies != 1 {
		t.Errorf("%d Warning events %s in the operator's namespace naming GPU %s/kept and allocation %s, want 1: %v",
			copies, v1alpha1.ReasonGPUAllocationAbandoned, testNS, kept.Status.InstanceID, operatorEvents.Events())
	}
}

// agentsGrant lets the Orchestrators of testNS use every Agent of the namespace agents.
func agentsGrant() *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "gateway.networking.k8s.io/v1beta1",
		"kind":       "ReferenceGrant",
		"metadata":   map[string]any{"name": "orchestrators-of-llm", "namespace": "agents"},
		"spec": map[string]any{
			"from": []any{map[string]any{"group": v1alpha1.GroupVersion.Group, "kind": "Orchestrator", "namespace": testNS}},
			"to":   []any{map[string]any{"group": v1alpha1.GroupVersion.Group, "kind": "Agent"}},
		},
	}}
}

// hasWarning says whether the recorder holds a Warning event of the reason.
func hasWarning(recorder events.InMemoryRecorder, reason string) bool {
	for _, ev := range recorder.Events() {
		if ev.Type == corev1.EventTypeWarning && ev.Reason == reason {
			return true
		}
	}
	return false
}
