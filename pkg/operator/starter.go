// Package operator starts llm-infra-operator's controllers.
package operator

import (
	"context"
	"fmt"
	"os"
	"time"

	apiextclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/openshift/library-go/pkg/controller/controllercmd"

	"github.com/llm-infra/llm-infra-operator/pkg/generated/clientset/versioned"
	crinformers "github.com/llm-infra/llm-infra-operator/pkg/generated/informers/externalversions"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/operands"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/registry"
)

// resync is how often informers resync and controllers sync without an event. Events drive
// the real work; the resync is a safety net.
const resync = 10 * time.Minute

// RunOperator builds the clients and informers, starts the controller of every registered kind
// and blocks until ctx ends.
func RunOperator(ctx context.Context, cc *controllercmd.ControllerContext) error {
	all := operands.All()
	if err := registry.Check(all); err != nil {
		return err
	}
	images, err := ImagesFromEnv(all)
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
	crClient, err := versioned.NewForConfig(config)
	if err != nil {
		return err
	}

	// The CRD and optional-API informers trigger every operand, so all read them; each kind
	// reads the other kinds only from the informers that trigger its own syncs.
	caches := engine.NewCaches()
	namespaced := informers.NewSharedInformerFactoryWithOptions(kubeClient, resync, informers.WithNamespace(namespace))
	// Kinds watched in every namespace (and cluster-scoped kinds) are watched only where they
	// carry the operator's label, so memory does not grow with the cluster's other objects.
	managed := informers.NewSharedInformerFactoryWithOptions(kubeClient, resync,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = engine.ManagedBySelector() }))
	// Every CR informer drops managedFields: a kind's informer may be started by another kind that
	// watches it (a Gateway's MCPs) before the kind itself sets its transform.
	crInformers := crinformers.NewSharedInformerFactoryWithOptions(crClient, resync, crinformers.WithTransform(engine.DropManagedFields))
	crdWatches := map[string]*engine.CRDWatch{}
	var optionalAPIs []engine.OptionalAPI
	for _, r := range all {
		optionalAPIs = append(optionalAPIs, r.OptionalAPIs(namespace)...)
		for _, name := range r.CRDs {
			crdWatches[name] = engine.NewCRDWatch(apiextClient, name, resync, engine.DropManagedFields)
			caches.AddInformer(engine.CustomResourceDefinitions, crdWatches[name].Informer)
		}
	}
	optional := engine.NewOptionalAPIs(ctx, dynamicClient, apiextClient, resync, caches, optionalAPIs...)
	metadataClient, err := metadata.NewForConfig(config)
	if err != nil {
		return err
	}
	// One metadata-only watch per referenced resource, shared by every operand, started when a
	// CR first references an object of it.
	referenceSources := engine.NewClusterReferenceSources(kubeClient, metadataClient)
	events := engine.KubeEventSink(kubeClient.CoreV1(), cc.Clock)
	// Whether the cluster is OpenShift, asked once for every kind.
	platform := engine.NewPlatformProbe(kubeClient.Discovery())
	// One listener per informer for every operand's handlers.
	listeners := engine.NewListeners()

	if missing := images.MissingOptional(); len(missing) > 0 {
		klog.Warningf("The images %v are not set: the CRs that need them report it in their conditions", missing)
	}
	policy := engine.PolicyFromEnv(os.LookupEnv)
	klog.Infof("Allowed GatewayClasses: %s; allowed ClusterIssuers: %s", policy.GatewayClasses, policy.ClusterIssuers)
	deps := func(r registry.Registration) *registry.Deps {
		layer := caches.Layer()
		return &registry.Deps{
			NamespacedDeps: engine.NamespacedDeps{
				Clients:          &engine.CachedClients{Kube: kubeClient, APIExt: apiextClient, Dynamic: dynamicClient, Caches: layer},
				Managed:          managed,
				Optional:         optional,
				Platform:         platform,
				ReferenceSources: referenceSources,
				Events:           events,
				Recorder:         cc.EventRecorder,
				Resync:           resync,
				Listeners:        listeners,
			},
			Namespace:   namespace,
			Caches:      layer,
			Kube:        kubeClient,
			APIExt:      apiextClient,
			Dynamic:     dynamicClient,
			Config:      config,
			CR:          crClient,
			CRInformers: crInformers,
			Namespaced:  namespaced,
			CRDWatch:    func(name string) *engine.CRDWatch { return crdWatches[name] },
			Image:       images.Of,
			Policy:      policy,
			Clock:       cc.Clock,
			Recorder:    cc.EventRecorder,
			Resync:      resync,
		}
	}
	kinds := &kindStarter{
		ctx:   ctx,
		build: func(r registry.Registration) (*registry.Started, error) { return r.Start(ctx, deps(r)) },
		factories: []informerFactory{
			{"namespaced", namespaced.Start, func(stop <-chan struct{}) map[string]bool { return typeSynced(namespaced.WaitForCacheSync(stop)) }},
			{"managed", managed.Start, func(stop <-chan struct{}) map[string]bool { return typeSynced(managed.WaitForCacheSync(stop)) }},
			{"custom resource", crInformers.Start, func(stop <-chan struct{}) map[string]bool { return typeSynced(crInformers.WaitForCacheSync(stop)) }},
		},
		crdWatches: func(r registry.Registration) []*engine.CRDWatch {
			var out []*engine.CRDWatch
			for _, name := range r.CRDs {
				out = append(out, crdWatches[name])
			}
			if r.OptionalAPIs != nil {
				out = append(out, optional.CRDWatchesOf(r.OptionalAPIs(namespace))...)
			}
			return out
		},
		running: map[*engine.CRDWatch]bool{},
		failed:  make(chan error, len(all)),
	}
	// Each kind starts when its first CR exists; until then a metadata-only watch of its CRs
	// is all it costs.
	for _, r := range all {
		gate := metadatainformer.NewFilteredMetadataInformer(metadataClient, r.GVR(), metav1.NamespaceAll, 0, cache.Indexers{}, nil).Informer()
		if err := onFirstObject(ctx, gate, func() { kinds.start(r) }); err != nil {
			return fmt.Errorf("%s: %w", r.GVK.Kind, err)
		}
	}
	klog.Infof("Watching for the first CR of each kind in namespace %s with images %v", namespace, images.Set())

	select {
	case <-ctx.Done():
		return nil
	case err := <-kinds.failed:
		return err
	}
}

// withClientLimits returns a copy of config with the operator's client-side rate limits.
func withClientLimits(config *rest.Config) *rest.Config {
	c := rest.CopyConfig(config)
	c.QPS = 50
	c.Burst = 100
	return c
}

// cachesSynced says whether every informer synced: factories maps a factory's name to each of
// its informers' outcome, hasSynced are the other informers, waited for here. A context
// cancelled meanwhile is a shutdown during start-up, not a failure, and gives nil: an error
// makes controllercmd exit at once without releasing the leader lease, and the next operator
// process then waits for the lease to expire (up to 2m43s) before it does anything.
func cachesSynced(ctx context.Context, factories map[string]map[string]bool, hasSynced []cache.InformerSynced) error {
	for name, synced := range factories {
		for informer, ok := range synced {
			if !ok && ctx.Err() == nil {
				return fmt.Errorf("the %s informer for %s did not sync", name, informer)
			}
		}
	}
	if !cache.WaitForCacheSync(ctx.Done(), hasSynced...) && ctx.Err() == nil {
		return fmt.Errorf("the operator client and CRD informers did not sync")
	}
	return nil
}

func typeSynced[K comparable](in map[K]bool) map[string]bool {
	out := make(map[string]bool, len(in))
	for k, v := range in {
		out[fmt.Sprint(k)] = v
	}
	return out
}
