// Package operator starts llm-infra-operator's controllers.
package operator

import (
	"context"
	"fmt"
	"slices"
	"time"

	apiextclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/openshift/library-go/pkg/controller/controllercmd"
	"github.com/openshift/library-go/pkg/operator/loglevel"

	"github.com/llm-infra/llm-infra-operator/pkg/generated/clientset/versioned"
	crinformers "github.com/llm-infra/llm-infra-operator/pkg/generated/informers/externalversions"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/operands/batchgateway"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/operands/inferencegateway"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/operands/lws"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/operatorclient"
)

// resync is how often informers resync and controllers sync without an event. Events drive
// the real work; the resync is a safety net.
const resync = 10 * time.Minute

// namespacedWorkers is how many CRs of a namespaced operand sync at once. Each sync is short and mostly waits
// for the API; a few workers keep many CRs from queueing behind one slow write.
const namespacedWorkers = 4

// RunOperator builds the clients and informers, starts the controllers and blocks until ctx ends.
func RunOperator(ctx context.Context, cc *controllercmd.ControllerContext) error {
	images, err := ImagesFromEnv()
	if err != nil {
		return err
	}
	namespace := cc.OperatorNamespace
	if namespace == "" {
		return fmt.Errorf("the operator's namespace is unknown: pass --namespace when running outside a pod")
	}

	// client-go's default client-side limit (5 requests/s, burst 10) spaced a sync's requests
	// 200 ms apart in make bench; the operator's traffic is small and event-driven, so a higher
	// limit only shortens syncs and removal.
	protoConfig, config := withClientLimits(cc.ProtoKubeConfig), withClientLimits(cc.KubeConfig)

	kubeClient, err := kubernetes.NewForConfig(protoConfig)
	if err != nil {
		return err
	}
	apiextClient, err := apiextclient.NewForConfig(config)
	if err != nil {
		return err
	}
	dynamicClient, err := dynamic.NewForConfig(config)
	if err != nil {
		return err
	}
	operatorClient, operatorInformers, err := operatorclient.New(cc.Clock, config)
	if err != nil {
		return err
	}
	crClient, err := versioned.NewForConfig(config)
	if err != nil {
		return err
	}

	// The CRD and optional-API informers trigger every operand, so all read them; each operand
	// reads the other kinds only from the informers that trigger its own syncs.
	caches := engine.NewCaches()
	clientsReading := func(c *engine.Caches) *engine.CachedClients {
		return &engine.CachedClients{Kube: kubeClient, APIExt: apiextClient, Dynamic: dynamicClient, Caches: c}
	}
	lwsCaches, batchCaches, gatewayCaches := caches.Layer(), caches.Layer(), caches.Layer()

	namespaced := informers.NewSharedInformerFactoryWithOptions(kubeClient, resync, informers.WithNamespace(namespace))
	// Kinds watched in every namespace (and cluster-scoped kinds) are watched only where they
	// carry the operator's label, so memory does not grow with the cluster's other objects.
	managed := informers.NewSharedInformerFactoryWithOptions(kubeClient, resync,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = engine.ManagedBySelector() }))
	crInformers := crinformers.NewSharedInformerFactory(crClient, resync)
	lwsCRD := engine.NewCRDWatch(apiextClient, lws.CRDName, resync)
	caches.AddInformer(engine.CustomResourceDefinitions, lwsCRD.Informer)
	optional := engine.NewOptionalAPIs(ctx, dynamicClient, apiextClient, resync, caches,
		slices.Concat(lws.OptionalAPIs(namespace), batchgateway.OptionalAPIs(), inferencegateway.OptionalAPIs())...)

	_, lwsController := lws.New(lws.Config{
		Namespace:      namespace,
		Image:          images.LWS,
		OperatorClient: operatorClient,
		Clients:        clientsReading(lwsCaches),
		CRD:            lwsCRD,
		Optional:       optional,
		Informers:      lws.RegisterInformers(lwsCaches, namespaced, managed),
		Secrets:        namespaced.Core().V1().Secrets().Lister(),
		ConfigMaps:     namespaced.Core().V1().ConfigMaps().Lister(),
		Recorder:       cc.EventRecorder,
		Resync:         resync,
	})
	batchInformer := crInformers.Batch().V1alpha1().LLMBatchGateways().Informer()
	_ = batchInformer.SetTransform(engine.DropManagedFields)
	_, batchController := batchgateway.New(ctx, batchgateway.Config{
		Images:    images.BatchGateway,
		Client:    crClient,
		Informer:  batchInformer,
		Clients:   clientsReading(batchCaches),
		Informers: batchgateway.RegisterInformers(batchCaches, managed),
		Optional:  optional,
		SecretInformer: func(ns, name string) cache.SharedIndexInformer {
			return coreinformers.NewFilteredSecretInformer(kubeClient, ns, resync, cache.Indexers{}, engine.SingleObjectListOptions(name))
		},
		Events:   batchgateway.KubeEventSink(kubeClient.CoreV1(), cc.Clock),
		Recorder: cc.EventRecorder,
		Clock:    cc.Clock,
		Resync:   resync,
	})
	gatewayInformer := crInformers.Core().V1alpha1().Gateways().Informer()
	mcpInformer := crInformers.Core().V1alpha1().MCPs().Informer()
	for _, inf := range []cache.SharedIndexInformer{gatewayInformer, mcpInformer} {
		_ = inf.SetTransform(engine.DropManagedFields)
	}
	_, gatewayController, mcpController := inferencegateway.New(ctx, inferencegateway.Config{
		Client:          crClient,
		GatewayInformer: gatewayInformer,
		MCPInformer:     mcpInformer,
		Clients:         clientsReading(gatewayCaches),
		Informers:       inferencegateway.RegisterInformers(gatewayCaches, managed),
		Optional:        optional,
		SecretInformer: func(ns, name string) cache.SharedIndexInformer {
			return coreinformers.NewFilteredSecretInformer(kubeClient, ns, resync, cache.Indexers{}, engine.SingleObjectListOptions(name))
		},
		ConfigMapInformer: func(ns, name string) cache.SharedIndexInformer {
			return coreinformers.NewFilteredConfigMapInformer(kubeClient, ns, resync, cache.Indexers{}, engine.SingleObjectListOptions(name))
		},
		Events:   inferencegateway.KubeEventSink(kubeClient.CoreV1(), cc.Clock),
		Recorder: cc.EventRecorder,
		Clock:    cc.Clock,
		Resync:   resync,
	})
	logLevelController := loglevel.NewClusterOperatorLoggingController(operatorClient, cc.EventRecorder)

	crdInformers := []cache.SharedIndexInformer{lwsCRD.Informer}
	for _, w := range optional.CRDWatches() {
		crdInformers = append(crdInformers, w.Informer)
	}
	for _, start := range []func(<-chan struct{}){namespaced.Start, managed.Start, operatorInformers.Start, crInformers.Start} {
		start(ctx.Done())
	}
	for _, informer := range crdInformers {
		go informer.Run(ctx.Done())
	}
	// Controllers start only once every cache is filled, so the first sync sees the cluster
	// as it is and does not re-create what already exists.
	for name, synced := range map[string]map[string]bool{
		"namespaced":      typeSynced(namespaced.WaitForCacheSync(ctx.Done())),
		"managed":         typeSynced(managed.WaitForCacheSync(ctx.Done())),
		"custom resource": typeSynced(crInformers.WaitForCacheSync(ctx.Done())),
	} {
		for informer, ok := range synced {
			if !ok {
				return fmt.Errorf("the %s informer for %s did not sync", name, informer)
			}
		}
	}
	hasSynced := []cache.InformerSynced{operatorClient.Informer().HasSynced}
	for _, informer := range crdInformers {
		hasSynced = append(hasSynced, informer.HasSynced)
	}
	if !cache.WaitForCacheSync(ctx.Done(), hasSynced...) {
		return fmt.Errorf("the LeaderWorkerSetOperator and CRD informers did not sync")
	}
	if missing := images.BatchGateway.MissingEnvVars(); len(missing) > 0 {
		klog.Warningf("The LLM batch gateway images %v are not set: LLMBatchGateways that need them report it in their Ready condition", missing)
	}

	registerDegradedSources(operatorClient, batchInformer.GetStore(), gatewayInformer.GetStore(), mcpInformer.GetStore())

	klog.Infof("Starting controllers for namespace %s with operand image %s", namespace, images.LWS)
	go lwsController.Run(ctx, 1)
	go batchController.Run(ctx, namespacedWorkers)
	go gatewayController.Run(ctx, namespacedWorkers)
	go mcpController.Run(ctx, 1)
	go logLevelController.Run(ctx, 1)

	<-ctx.Done()
	return nil
}

// withClientLimits returns a copy of config with the operator's client-side rate limits.
func withClientLimits(config *rest.Config) *rest.Config {
	c := rest.CopyConfig(config)
	c.QPS = 50
	c.Burst = 100
	return c
}

func typeSynced[K comparable](in map[K]bool) map[string]bool {
	out := make(map[string]bool, len(in))
	for k, v := range in {
		out[fmt.Sprint(k)] = v
	}
	return out
}
