package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apiextclientv1 "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/typed/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	admissionregistrationclientv1 "k8s.io/client-go/kubernetes/typed/admissionregistration/v1"
	appsclientv1 "k8s.io/client-go/kubernetes/typed/apps/v1"
	coreclientv1 "k8s.io/client-go/kubernetes/typed/core/v1"
	rbacclientv1 "k8s.io/client-go/kubernetes/typed/rbac/v1"
	"k8s.io/client-go/tools/cache"
)

// Group-resources the engine reads from caches.
var (
	ServiceAccounts                 = schema.GroupResource{Resource: "serviceaccounts"}
	ConfigMaps                      = schema.GroupResource{Resource: "configmaps"}
	Services                        = schema.GroupResource{Resource: "services"}
	Secrets                         = schema.GroupResource{Resource: "secrets"}
	Deployments                     = schema.GroupResource{Group: "apps", Resource: "deployments"}
	HorizontalPodAutoscalers        = schema.GroupResource{Group: "autoscaling", Resource: "horizontalpodautoscalers"}
	PodDisruptionBudgets            = schema.GroupResource{Group: "policy", Resource: "poddisruptionbudgets"}
	NetworkPolicies                 = schema.GroupResource{Group: "networking.k8s.io", Resource: "networkpolicies"}
	Ingresses                       = schema.GroupResource{Group: "networking.k8s.io", Resource: "ingresses"}
	Roles                           = schema.GroupResource{Group: "rbac.authorization.k8s.io", Resource: "roles"}
	RoleBindings                    = schema.GroupResource{Group: "rbac.authorization.k8s.io", Resource: "rolebindings"}
	ClusterRoles                    = schema.GroupResource{Group: "rbac.authorization.k8s.io", Resource: "clusterroles"}
	ClusterRoleBindings             = schema.GroupResource{Group: "rbac.authorization.k8s.io", Resource: "clusterrolebindings"}
	MutatingWebhookConfigurations   = schema.GroupResource{Group: "admissionregistration.k8s.io", Resource: "mutatingwebhookconfigurations"}
	ValidatingWebhookConfigurations = schema.GroupResource{Group: "admissionregistration.k8s.io", Resource: "validatingwebhookconfigurations"}
	CustomResourceDefinitions       = schema.GroupResource{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}
)

// Lookup finds an object in an informer's cache: the namespace is empty for cluster-scoped
// kinds. It returns a NotFound error when the cache does not hold the object.
type Lookup func(namespace, name string) (runtime.Object, error)

// IndexerLookup looks objects up in an informer's store by their namespace/name key.
func IndexerLookup(gr schema.GroupResource, store cache.Store) Lookup {
	return func(namespace, name string) (runtime.Object, error) {
		key := name
		if namespace != "" {
			key = namespace + "/" + name
		}
		obj, exists, err := store.GetByKey(key)
		if err != nil {
			return nil, err
		}
		if !exists {
			return nil, apierrors.NewNotFound(gr, name)
		}
		ro, ok := obj.(runtime.Object)
		if !ok {
			return nil, fmt.Errorf("unexpected %T in the %s cache", obj, gr)
		}
		return ro, nil
	}
}

// Caches are the informer caches the engine reads from before it writes. Reading from them is
// what lets a sync that changes nothing send no request at all: resourceapply's functions always
// read an object before deciding whether to write it, and through CachedClients that read is
// answered by an informer. Every kind an operand applies has a Lookup registered here.
//
// An operand must read only from informers whose events trigger its own sync. Two informers
// of one kind (the LWS operand's namespace informer and the batch gateway's label-filtered
// one, say) do not see a change at the same instant: a sync triggered by one and answered by
// the other can read an object that is already gone, find nothing to do, and never be
// triggered again when the lagging informer catches up. So the informers every operand is
// triggered by (CRDs, optional APIs) live in one shared Caches, and each operand reads
// through its own layer on top of it (Layer).
type Caches struct {
	mu      sync.RWMutex
	lookups map[schema.GroupResource][]Lookup
	// shared is consulted after this layer's own lookups; nil for the shared Caches itself.
	shared *Caches
}

// NewCaches returns an empty set of caches.
func NewCaches() *Caches {
	return &Caches{lookups: map[schema.GroupResource][]Lookup{}}
}

// Layer returns an operand's own Caches: the informers it registers there answer only its
// reads, and what is registered in c (now or later, like an optional API's informer started
// when its CRD appears) answers them too.
func (c *Caches) Layer() *Caches {
	return &Caches{lookups: map[schema.GroupResource][]Lookup{}, shared: c}
}

// Add registers a cache for a group-resource.
func (c *Caches) Add(gr schema.GroupResource, lookup Lookup) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lookups[gr] = append(c.lookups[gr], lookup)
}

// AddInformer registers an informer's store for a group-resource.
func (c *Caches) AddInformer(gr schema.GroupResource, informer cache.SharedIndexInformer) {
	c.Add(gr, IndexerLookup(gr, informer.GetStore()))
}

// Get returns the cached object, or a NotFound error when no cache of that group-resource
// holds it. The object is the cache's own: callers must not modify it.
func (c *Caches) Get(gr schema.GroupResource, namespace, name string) (runtime.Object, error) {
	c.mu.RLock()
	lookups := c.lookups[gr]
	c.mu.RUnlock()
	for _, lookup := range lookups {
		obj, err := lookup(namespace, name)
		if err == nil {
			return obj, nil
		}
		if !apierrors.IsNotFound(err) {
			return nil, err
		}
	}
	if c.shared != nil {
		return c.shared.Get(gr, namespace, name)
	}
	return nil, apierrors.NewNotFound(gr, name)
}

// GetMeta is Get for callers that only need the object's metadata.
func (c *Caches) GetMeta(gr schema.GroupResource, namespace, name string) (metav1.Object, error) {
	obj, err := c.Get(gr, namespace, name)
	if err != nil {
		return nil, err
	}
	return meta.Accessor(obj)
}

// cached is where a cached client finds its kind's objects: the caches, the group-resource and
// the namespace ("" for cluster-scoped kinds), and the reads of the one apply the clients
// serve, if any.
type cached struct {
	caches    *Caches
	gr        schema.GroupResource
	namespace string
	reads     *applyReads
}

// applyReads is the state of one apply's reads through the cached clients, which the Applier
// makes for each attempt to write an object (withReads); the Caches, shared by every sync, know
// nothing of it.
type applyReads struct {
	// absent is the object to take for absent without asking the API: the caches, synced,
	// lack it, so resourceapply's read costs no request, and the create that follows fails with
	// AlreadyExists if the object exists after all.
	absent *objectRef
	// known is the object as the API returned it moments ago (after a create found the name
	// taken), so resourceapply's read costs no second request.
	known *knownObject
	// found records whether the last read found its object. resourceapply reads an object
	// before it writes it, and creates it when the read found nothing, else updates it: so it
	// tells which write a "modified" apply made (llm_infra_operator_writes_total).
	found bool
}

// writeVerb is the write that follows the last read.
func (r *applyReads) writeVerb() string {
	if r.found {
		return "update"
	}
	return "create"
}

type objectRef struct {
	gr              schema.GroupResource
	namespace, name string
}

func (r *objectRef) is(gr schema.GroupResource, namespace, name string) bool {
	return r != nil && r.gr == gr && r.namespace == namespace && r.name == name
}

// knownObject is an object as the API returned it moments ago.
type knownObject struct {
	objectRef
	obj runtime.Object
}

// errAbsent marks a NotFound that needs no confirmation from the API, so a read that misses
// the caches does not ask.
var errAbsent = errors.New("the caches, synced, do not hold it")

// withReads is a copy of the clients for one apply: their reads answer from reads first, and
// record in it what they found.
func (c *CachedClients) withReads(reads *applyReads) *CachedClients {
	clients := *c
	clients.reads = reads
	return &clients
}

// at is a client's place for one group-resource in one namespace.
func (c *CachedClients) at(gr schema.GroupResource, namespace string) cached {
	return cached{c.Caches, gr, namespace, c.reads}
}

// get is the object of that name: the apply's own answer for it, else the caches'.
func (at cached) get(name string) (runtime.Object, error) {
	if r := at.reads; r != nil {
		if r.absent.is(at.gr, at.namespace, name) {
			return nil, fmt.Errorf("%w (%w)", apierrors.NewNotFound(at.gr, name), errAbsent)
		}
		if r.known != nil && r.known.is(at.gr, at.namespace, name) {
			return r.known.obj, nil
		}
	}
	return at.caches.Get(at.gr, at.namespace, name)
}

// cachedGet answers a Get from the caches. A miss asks the API (live): an object may exist
// that no cache holds, because it has not reached the informer yet or because it lacks the
// label the informer selects on (an object some other tool created, which the operand adopts
// or reports). Once the operator has applied an object, it is cached, so a quiet sync misses
// nothing.
//
// This is the one implementation of every cached client's Get. The typed clients below are
// one small type per kind only because Go cannot embed a type parameter: each embeds its
// kind's client-go interface (every other verb goes to the API) and overrides Get with this.
func cachedGet[T runtime.Object](ctx context.Context, at cached, name string, live func(context.Context, string, metav1.GetOptions) (T, error)) (T, error) {
	obj, err := readThrough(ctx, at, name, live)
	if at.reads != nil {
		at.reads.found = err == nil
	}
	return obj, err
}

func readThrough[T runtime.Object](ctx context.Context, at cached, name string, live func(context.Context, string, metav1.GetOptions) (T, error)) (T, error) {
	obj, err := at.get(name)
	if err == nil {
		if typed, ok := obj.DeepCopyObject().(T); ok {
			return typed, nil
		}
		// A typed informer serves a dynamic client's read (built-in kinds that resourceapply
		// has no typed function for, applied unstructured).
		if u, ok := any(&unstructured.Unstructured{}).(T); ok {
			if content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj); err == nil {
				converted := any(u).(*unstructured.Unstructured)
				converted.Object = content
				converted.SetGroupVersionKind(KindOf(obj))
				return u, nil
			}
		}
	} else if !apierrors.IsNotFound(err) || errors.Is(err, errAbsent) {
		var zero T
		return zero, err
	}
	return live(ctx, name, metav1.GetOptions{})
}

// CachedClients are API clients whose Get reads from the Caches; every other verb goes to the
// API. They are what the engine hands to resourceapply: CachedClients is the getter of every
// built-in kind the engine applies (resourceapply's ServiceAccountsGetter, RolesGetter,
// CustomResourceDefinitionsGetter, ...), and DynamicClient the dynamic client of the others.
type CachedClients struct {
	Kube    kubernetes.Interface
	APIExt  apiextclient.Interface
	Dynamic dynamic.Interface
	Caches  *Caches
	// reads is the state of the one apply these clients serve (nil: they serve no apply).
	reads *applyReads
}

// The getters of the built-in kinds: each kind's typed client in a namespace (or cluster-wide),
// its Get answered by the caches.

func (c *CachedClients) ServiceAccounts(ns string) coreclientv1.ServiceAccountInterface {
	return saClient{c.Kube.CoreV1().ServiceAccounts(ns), c.at(ServiceAccounts, ns)}
}

func (c *CachedClients) ConfigMaps(ns string) coreclientv1.ConfigMapInterface {
	return configMapClient{c.Kube.CoreV1().ConfigMaps(ns), c.at(ConfigMaps, ns)}
}

func (c *CachedClients) Services(ns string) coreclientv1.ServiceInterface {
	return serviceClient{c.Kube.CoreV1().Services(ns), c.at(Services, ns)}
}

func (c *CachedClients) Secrets(ns string) coreclientv1.SecretInterface {
	return secretClient{c.Kube.CoreV1().Secrets(ns), c.at(Secrets, ns)}
}

func (c *CachedClients) Deployments(ns string) appsclientv1.DeploymentInterface {
	return deploymentClient{c.Kube.AppsV1().Deployments(ns), c.at(Deployments, ns)}
}

func (c *CachedClients) Roles(ns string) rbacclientv1.RoleInterface {
	return roleClient{c.Kube.RbacV1().Roles(ns), c.at(Roles, ns)}
}

func (c *CachedClients) RoleBindings(ns string) rbacclientv1.RoleBindingInterface {
	return roleBindingClient{c.Kube.RbacV1().RoleBindings(ns), c.at(RoleBindings, ns)}
}

func (c *CachedClients) ClusterRoles() rbacclientv1.ClusterRoleInterface {
	return clusterRoleClient{c.Kube.RbacV1().ClusterRoles(), c.at(ClusterRoles, "")}
}

func (c *CachedClients) ClusterRoleBindings() rbacclientv1.ClusterRoleBindingInterface {
	return clusterRoleBindingClient{c.Kube.RbacV1().ClusterRoleBindings(), c.at(ClusterRoleBindings, "")}
}

func (c *CachedClients) MutatingWebhookConfigurations() admissionregistrationclientv1.MutatingWebhookConfigurationInterface {
	return mutatingWebhookClient{c.Kube.AdmissionregistrationV1().MutatingWebhookConfigurations(), c.at(MutatingWebhookConfigurations, "")}
}

func (c *CachedClients) ValidatingWebhookConfigurations() admissionregistrationclientv1.ValidatingWebhookConfigurationInterface {
	return validatingWebhookClient{c.Kube.AdmissionregistrationV1().ValidatingWebhookConfigurations(), c.at(ValidatingWebhookConfigurations, "")}
}

func (c *CachedClients) CustomResourceDefinitions() apiextclientv1.CustomResourceDefinitionInterface {
	return crdClient{c.APIExt.ApiextensionsV1().CustomResourceDefinitions(), c.at(CustomResourceDefinitions, "")}
}

// DynamicClient is a dynamic client whose Get reads from the caches (optional APIs' objects,
// built-in kinds applied unstructured).
func (c *CachedClients) DynamicClient() dynamic.Interface {
	return cachedDynamic{c.Dynamic, c.at(schema.GroupResource{}, "")}
}

type saClient struct {
	coreclientv1.ServiceAccountInterface
	at cached
}

func (s saClient) Get(ctx context.Context, name string, _ metav1.GetOptions) (*corev1.ServiceAccount, error) {
	return cachedGet(ctx, s.at, name, s.ServiceAccountInterface.Get)
}

type configMapClient struct {
	coreclientv1.ConfigMapInterface
	at cached
}

func (s configMapClient) Get(ctx context.Context, name string, _ metav1.GetOptions) (*corev1.ConfigMap, error) {
	return cachedGet(ctx, s.at, name, s.ConfigMapInterface.Get)
}

type serviceClient struct {
	coreclientv1.ServiceInterface
	at cached
}

func (s serviceClient) Get(ctx context.Context, name string, _ metav1.GetOptions) (*corev1.Service, error) {
	return cachedGet(ctx, s.at, name, s.ServiceInterface.Get)
}

type secretClient struct {
	coreclientv1.SecretInterface
	at cached
}

func (s secretClient) Get(ctx context.Context, name string, _ metav1.GetOptions) (*corev1.Secret, error) {
	return cachedGet(ctx, s.at, name, s.SecretInterface.Get)
}

type deploymentClient struct {
	appsclientv1.DeploymentInterface
	at cached
}

func (s deploymentClient) Get(ctx context.Context, name string, _ metav1.GetOptions) (*appsv1.Deployment, error) {
	return cachedGet(ctx, s.at, name, s.DeploymentInterface.Get)
}

type roleClient struct {
	rbacclientv1.RoleInterface
	at cached
}

func (s roleClient) Get(ctx context.Context, name string, _ metav1.GetOptions) (*rbacv1.Role, error) {
	return cachedGet(ctx, s.at, name, s.RoleInterface.Get)
}

type roleBindingClient struct {
	rbacclientv1.RoleBindingInterface
	at cached
}

func (s roleBindingClient) Get(ctx context.Context, name string, _ metav1.GetOptions) (*rbacv1.RoleBinding, error) {
	return cachedGet(ctx, s.at, name, s.RoleBindingInterface.Get)
}

type clusterRoleClient struct {
	rbacclientv1.ClusterRoleInterface
	at cached
}

func (s clusterRoleClient) Get(ctx context.Context, name string, _ metav1.GetOptions) (*rbacv1.ClusterRole, error) {
	return cachedGet(ctx, s.at, name, s.ClusterRoleInterface.Get)
}

type clusterRoleBindingClient struct {
	rbacclientv1.ClusterRoleBindingInterface
	at cached
}

func (s clusterRoleBindingClient) Get(ctx context.Context, name string, _ metav1.GetOptions) (*rbacv1.ClusterRoleBinding, error) {
	return cachedGet(ctx, s.at, name, s.ClusterRoleBindingInterface.Get)
}

type mutatingWebhookClient struct {
	admissionregistrationclientv1.MutatingWebhookConfigurationInterface
	at cached
}

func (s mutatingWebhookClient) Get(ctx context.Context, name string, _ metav1.GetOptions) (*admissionregistrationv1.MutatingWebhookConfiguration, error) {
	return cachedGet(ctx, s.at, name, s.MutatingWebhookConfigurationInterface.Get)
}

type validatingWebhookClient struct {
	admissionregistrationclientv1.ValidatingWebhookConfigurationInterface
	at cached
}

func (s validatingWebhookClient) Get(ctx context.Context, name string, _ metav1.GetOptions) (*admissionregistrationv1.ValidatingWebhookConfiguration, error) {
	return cachedGet(ctx, s.at, name, s.ValidatingWebhookConfigurationInterface.Get)
}

type crdClient struct {
	apiextclientv1.CustomResourceDefinitionInterface
	at cached
}

func (s crdClient) Get(ctx context.Context, name string, _ metav1.GetOptions) (*apiextensionsv1.CustomResourceDefinition, error) {
	return cachedGet(ctx, s.at, name, s.CustomResourceDefinitionInterface.Get)
}

// cachedDynamic is a dynamic client whose Get reads from the caches.
type cachedDynamic struct {
	dynamic.Interface
	// at is where its resources' objects are found, the group-resource set by Resource.
	at cached
}

func (d cachedDynamic) Resource(gvr schema.GroupVersionResource) dynamic.NamespaceableResourceInterface {
	r := d.Interface.Resource(gvr)
	at := d.at
	at.gr = gvr.GroupResource()
	return cachedDynamicResource{r, r, at}
}

// cachedDynamicResource is one resource of the dynamic client: its cluster-scoped objects, or,
// through Namespace, those of one namespace.
type cachedDynamicResource struct {
	dynamic.ResourceInterface
	resource dynamic.NamespaceableResourceInterface
	at       cached
}

func (r cachedDynamicResource) Namespace(ns string) dynamic.ResourceInterface {
	at := r.at
	at.namespace = ns
	return cachedDynamicResource{r.resource.Namespace(ns), r.resource, at}
}

// Get reads from the caches, or from the API for a subresource or a miss.
func (r cachedDynamicResource) Get(ctx context.Context, name string, opts metav1.GetOptions, subresources ...string) (*unstructured.Unstructured, error) {
	if len(subresources) > 0 {
		return r.ResourceInterface.Get(ctx, name, opts, subresources...)
	}
	return cachedGet(ctx, r.at, name, func(ctx context.Context, name string, opts metav1.GetOptions) (*unstructured.Unstructured, error) {
		return r.ResourceInterface.Get(ctx, name, opts)
	})
}
