package inferencegateway

import (
	"context"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"

	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"

	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/generated/clientset/versioned"
	igwlisters "github.com/llm-infra/llm-infra-operator/pkg/generated/listers/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// Controller names (logs, events) and the operand's metric labels.
const (
	GatewayControllerName = "InferenceGatewayController"
	MCPControllerName     = "MCPServerController"
	GatewayOperandName    = "inference-gateway"
	MCPOperandName        = "mcp-server"
)

var (
	gatewayKind = schema.GroupKind{Group: v1alpha1.GroupName, Kind: "Gateway"}
	mcpKind     = schema.GroupKind{Group: v1alpha1.GroupName, Kind: "MCP"}
	gatewayGVK  = v1alpha1.GroupVersion.WithKind("Gateway")
	mcpGVK      = v1alpha1.GroupVersion.WithKind("MCP")
)

// Operand reconciles every inference Gateway and MCP server in the cluster, each in its own
// namespace: one controller per kind, one queue key per CR ("namespace/name"). Objects get a
// controller owner reference to their CR, so deleting the CR deletes them through garbage
// collection.
type Operand struct {
	client   versioned.Interface
	gateways igwlisters.GatewayLister
	mcps     igwlisters.MCPLister
	clients  *engine.CachedClients
	cache    resourceapply.ResourceCache
	optional *engine.OptionalAPIs
	// secrets and configMaps watch exactly what the gateways' pods read (provider keys, OIDC,
	// TLS, routing, guardrails, CA), so a change rolls the pods and nothing else is cached.
	secrets    *engine.ReferenceWatches
	configMaps *engine.ReferenceWatches
	// mcpSecrets watch the TLS Secrets the MCP servers' pods mount, so a rotation rolls them.
	mcpSecrets *engine.ReferenceWatches
	events     EventSink
	clock      clock.PassiveClock

	gatewaySteps []engine.Step[*gatewayRun]
	mcpSteps     []engine.Step[*mcpRun]
}

// EventSink builds the recorder of one CR, so that events land on the object they are about.
type EventSink func(gvk schema.GroupVersionKind, cr metav1.Object) events.Recorder

// KubeEventSink records events with the API through the core client (library-go's plain
// recorder: synchronous, no goroutine per recorder).
func KubeEventSink(client corev1client.EventsGetter, clk clock.PassiveClock) EventSink {
	return func(gvk schema.GroupVersionKind, m metav1.Object) events.Recorder {
		return events.NewRecorder(client.Events(m.GetNamespace()), "llm-infra-operator", &corev1.ObjectReference{
			APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind,
			Namespace: m.GetNamespace(), Name: m.GetName(), UID: m.GetUID(),
		}, clk)
	}
}

// Config holds what New needs.
type Config struct {
	Client versioned.Interface
	// GatewayInformer and MCPInformer watch the CRs in every namespace.
	GatewayInformer cache.SharedIndexInformer
	MCPInformer     cache.SharedIndexInformer
	Clients         *engine.CachedClients
	// Informers are those of the built-in kinds the operand creates, selecting the operator's
	// managed-by label in every namespace.
	Informers []factory.Informer
	Optional  *engine.OptionalAPIs
	// SecretInformer and ConfigMapInformer build the informer of one referenced object.
	SecretInformer    func(namespace, name string) cache.SharedIndexInformer
	ConfigMapInformer func(namespace, name string) cache.SharedIndexInformer
	Events            EventSink
	Recorder          events.Recorder
	Clock             clock.PassiveClock
	Resync            time.Duration
}

// New builds the operand and its two controllers: Gateways, and MCP servers.
func New(ctx context.Context, cfg Config) (*Operand, factory.Controller, factory.Controller) {
	recorder := cfg.Recorder.WithComponentSuffix("inference-gateway")
	o := &Operand{
		client:       cfg.Client,
		gateways:     igwlisters.NewGatewayLister(cfg.GatewayInformer.GetIndexer()),
		mcps:         igwlisters.NewMCPLister(cfg.MCPInformer.GetIndexer()),
		clients:      cfg.Clients,
		cache:        resourceapply.NewResourceCache(),
		optional:     cfg.Optional,
		events:       cfg.Events,
		clock:        cfg.Clock,
		gatewaySteps: gatewaySteps(),
		mcpSteps:     mcpSteps(),
	}
	gatewaySync := factory.NewSyncContext(GatewayControllerName, recorder)
	mcpSync := factory.NewSyncContext(MCPControllerName, recorder)
	queueGateway := func(key string) { gatewaySync.Queue().Add(key) }
	o.secrets = engine.NewReferenceWatches(ctx, engine.Secrets, cfg.SecretInformer, queueGateway)
	o.configMaps = engine.NewReferenceWatches(ctx, engine.ConfigMaps, cfg.ConfigMapInformer, queueGateway)
	o.mcpSecrets = engine.NewReferenceWatches(ctx, engine.Secrets, cfg.SecretInformer, func(key string) { mcpSync.Queue().Add(key) })

	gatewayOwner, mcpOwner := engine.ControllerKey(gatewayKind), engine.ControllerKey(mcpKind)
	cfg.Optional.AddEventHandler(engine.QueueingHandler(func(obj any) []string {
		ro := runtimeObject(obj)
		if ro == nil {
			return nil
		}
		return gatewayOwner(ro)
	}, queueGateway))

	crKey := func(obj runtime.Object) []string {
		m, ok := obj.(metav1.Object)
		if !ok {
			return nil
		}
		return []string{engine.ObjectKey(m)}
	}
	allGateways := func(runtime.Object) []string { keys, _ := o.gatewayKeys(); return keys }
	// MCP events reach the Gateways that discover the MCP before and after the change: one
	// relabelled out of a selector leaves that Gateway's MCP_SERVERS at once. (library-go's
	// informer keys look at the new object only.)
	_, _ = cfg.MCPInformer.AddEventHandler(engine.QueueingHandler(func(obj any) []string {
		ro := runtimeObject(obj)
		if ro == nil {
			return nil
		}
		return o.gatewaysDiscovering(ro)
	}, queueGateway))
	var crdInformers []factory.Informer
	for _, w := range cfg.Optional.CRDWatches() {
		crdInformers = append(crdInformers, w.Informer)
	}

	gateways := factory.New().
		WithSyncContext(gatewaySync).
		WithSync(engine.KeyedSync(GatewayOperandName, o.gatewayKeys, o.syncGateway)).
		WithInformersQueueKeysFunc(crKey, cfg.GatewayInformer).
		WithInformersQueueKeysFunc(gatewayOwner, cfg.Informers...).
		WithInformersQueueKeysFunc(allGateways, crdInformers...).
		ResyncEvery(cfg.Resync).
		ToController(GatewayControllerName, recorder)
	mcps := factory.New().
		WithSyncContext(mcpSync).
		WithSync(engine.KeyedSync(MCPOperandName, o.mcpKeys, o.syncMCP)).
		WithInformersQueueKeysFunc(crKey, cfg.MCPInformer).
		WithInformersQueueKeysFunc(mcpOwner, cfg.Informers...).
		ResyncEvery(cfg.Resync).
		ToController(MCPControllerName, recorder)
	return o, gateways, mcps
}

func runtimeObject(obj any) runtime.Object {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	ro, _ := obj.(runtime.Object)
	return ro
}

func (o *Operand) gatewayKeys() ([]string, error) {
	gws, err := o.gateways.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(gws))
	for _, gw := range gws {
		keys = append(keys, engine.ObjectKey(gw))
	}
	return keys, nil
}

func (o *Operand) mcpKeys() ([]string, error) {
	mcps, err := o.mcps.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(mcps))
	for _, m := range mcps {
		keys = append(keys, engine.ObjectKey(m))
	}
	return keys, nil
}

// gatewaysDiscovering maps an MCP's event to the Gateways whose service discovery lists it:
// the MCP server list follows MCP CRs being added, changed and removed.
func (o *Operand) gatewaysDiscovering(obj runtime.Object) []string {
	return engine.SelectingKeys(func() ([]*v1alpha1.Gateway, error) { return o.gateways.List(labels.Everything()) }, mcpSelections)(obj)
}

// syncGateway reconciles one Gateway.
func (o *Operand) syncGateway(ctx context.Context, _ factory.SyncContext, key string) error {
	namespace, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	gw, err := o.gateways.Gateways(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		o.secrets.Forget(key)
		o.configMaps.Forget(key)
		return nil
	}
	if err != nil {
		return err
	}
	if gw.DeletionTimestamp != nil {
		o.secrets.Forget(key)
		o.configMaps.Forget(key)
		return nil
	}
	run := o.newGatewayRun(gw.DeepCopy())
	result := o.reconcileGateway(ctx, run)
	if err := o.writeGatewayStatus(ctx, run, result); err != nil {
		return err
	}
	return result.RetryError()
}

// syncMCP reconciles one MCP server.
func (o *Operand) syncMCP(ctx context.Context, _ factory.SyncContext, key string) error {
	namespace, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	mcp, err := o.mcps.MCPs(namespace).Get(name)
	if apierrors.IsNotFound(err) || (err == nil && mcp.DeletionTimestamp != nil) {
		o.mcpSecrets.Forget(key)
		return nil
	}
	if err != nil {
		return err
	}
	run := o.newMCPRun(mcp.DeepCopy())
	result := o.reconcileMCP(ctx, run)
	if err := o.writeMCPStatus(ctx, run, result); err != nil {
		return err
	}
	return result.RetryError()
}

// OwnerStamp is the Renderer that stamps the operator's labels and a controller owner
// reference to the CR, on the objects of every inference gateway kind.
func OwnerStamp(gvk schema.GroupVersionKind, m metav1.Object) engine.Renderer {
	return engine.Renderer{
		Labels: map[string]string{PartOfLabel: PartOfValue},
		Owner: &metav1.OwnerReference{
			APIVersion:         gvk.GroupVersion().String(),
			Kind:               gvk.Kind,
			Name:               m.GetName(),
			UID:                m.GetUID(),
			Controller:         ptr.To(true),
			BlockOwnerDeletion: ptr.To(true),
		},
	}
}

// cachedDeployment is the cached Deployment of that name that owner controls, or nil. A
// Gateway and an MCP of the same name share Deployment names: each sees only its own, so one
// never reports the other's replicas as its availability.
func (o *Operand) cachedDeployment(owner metav1.Object, name string) *appsv1.Deployment {
	obj, err := o.clients.Caches.Get(engine.Deployments, owner.GetNamespace(), name)
	if err != nil {
		return nil
	}
	d, _ := obj.(*appsv1.Deployment)
	if d == nil || !engine.ControlledBy(owner)(d) {
		return nil
	}
	return d
}
