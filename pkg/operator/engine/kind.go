package engine

import (
	"context"
	"io/fs"
	"slices"

	operatorv1 "github.com/openshift/api/operator/v1"
	appsv1 "k8s.io/api/apps/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/tools/cache"
)

// Object is a custom resource's Go type as the engine handles it (the generated types'
// pointers: *v1alpha1.Gateway).
type Object interface {
	metav1.Object
	runtime.Object
}

// StatusClient writes a namespaced CR's status. The generated typed client of the kind in one
// namespace satisfies it (client.CoreV1alpha1().Gateways(namespace)).
type StatusClient[T Object] interface {
	UpdateStatus(ctx context.Context, cr T, opts metav1.UpdateOptions) (T, error)
}

// Asset is one row of a kind's asset table: an embedded manifest of an object each CR has (or
// may have), in the order the objects are applied.
type Asset struct {
	// Path is the manifest's path in the kind's Manifests.
	Path string
	// Feature names the CR field that asks for the object, for the message about an optional
	// API whose CRD is missing ("spec.monitoring.enabled"). Empty: "the spec".
	Feature string
	// SkippedWithoutCRD makes the object best effort: an object of an optional API that the CR
	// does not ask for by name (a ServiceMonitor that follows from serving metrics). Without its
	// CRD the object is skipped and Degraded=False's message notes it, with this advice; with
	// someone else's object of its name in the way, that object stays and is only noted too.
	// Empty: either is Degraded=True (CRDNotInstalled, ObjectNotOwned). A kind's Required says
	// when a CR asks for such an object by name after all.
	SkippedWithoutCRD string
	// DisruptionBudgetOf makes the asset, a PodDisruptionBudget manifest that names the
	// budget, the budget of the Deployment asset at this path: the engine fills in its spec
	// and wants it only while that Deployment keeps more than one replica (DisruptionBudget).
	DisruptionBudgetOf string
}

// Paths lists the manifests of an asset table, in order: a kind's one list of assets.
func Paths(assets []Asset) []string {
	out := make([]string, len(assets))
	for i, a := range assets {
		out[i] = a.Path
	}
	return out
}

// Rendered is one asset rendered for one CR.
type Rendered struct {
	// Asset is the manifest's path.
	Asset string
	// Object is typed for built-in kinds (*appsv1.Deployment) and unstructured for the kinds of
	// optional APIs.
	Object runtime.Object
	// Wanted says whether the CR asks for the object. An object the CR does not ask for (a
	// feature turned off) is deleted if this CR's operator made it.
	Wanted bool
}

// Transition is a condition that a status write changes (its status or its reason). Before is
// nil for a condition the CR did not have.
type Transition struct {
	Before, After *metav1.Condition
}

// Event is how a transition is announced on the CR: a Normal or a Warning event with a reason;
// the message is the condition's.
type Event struct {
	Warning bool
	Reason  string
}

// EventPolicy says which transitions are announced, and how (ok false: not announced).
type EventPolicy func(t Transition) (e Event, ok bool)

// Kind is one namespaced custom resource kind, as its operand supplies it: the API (kind,
// resource, validation, status), the asset table, the run (the steps before the render, the
// render itself, what a Deployment needs before it is applied) and the status writer. The
// engine's Namespaced controller does the rest: queue keys ("namespace/name", the periodic
// resync fanned out to every CR), informers of the kinds the CRs' objects are (selected by the
// operator's managed-by label) and of the optional APIs, watches of referenced objects, the
// event sink on the CR, owner references, apply and delete of every asset, one status write per
// sync (only when it changed) with the events of its transitions, the Degraded metric, and the
// render that tests and the dry-run suite use (Render).
//
// T is the CR's Go type (a pointer), S the operand's own state of one sync: what its steps
// produce for the later steps, the render and the status writer.
type Kind[T Object, S any] struct {
	// Operand labels the kind's metrics (the "operand" label) and names it in the registry;
	// unique among all kinds.
	Operand string
	// ControllerName names the controller in logs and events ("InferenceGatewayController").
	ControllerName string
	// GVK is the CR's group, version and kind; Resource its plural.
	GVK      schema.GroupVersionKind
	Resource string
	// PartOf is the app.kubernetes.io/part-of label of every object of the kind's CRs.
	PartOf string
	// Workers is how many CRs sync at once (at least 1).
	Workers int

	// Client is the kind's typed client in a namespace; the engine writes status through it.
	Client func(namespace string) StatusClient[T]
	// Informer watches the CRs in every namespace (the generated informer factory's).
	Informer cache.SharedIndexInformer
	// Conditions reads a CR's conditions: the status transitions and the Degraded metric.
	Conditions func(T) []metav1.Condition
	// Generations reads the generations of the Deployments the operator applied, as the CR's
	// status records them (openshift/api's GenerationStatus): a hand edit of a Deployment's spec
	// is then reverted, also after a restart. Nil for a status without them: the engine
	// remembers the generations it applied while it runs, and trusts a live Deployment it has
	// not applied yet.
	Generations func(T) []operatorv1.GenerationStatus

	// Manifests holds the embedded manifests the asset table names.
	Manifests fs.FS
	// Assets is the asset table: every object a CR may have, in the order they are applied.
	// The engine adds one step per kind of object, in this order, after the render.
	Assets []Asset
	// StepNames names the step of each kind of asset ("Deployment": "Deployments"); a kind not
	// listed names its own step.
	StepNames map[string]string
	// Writes are the resources the kind's steps write besides the assets' (a copy of a
	// referenced Secret): watched like the assets' kinds, and in the RBAC the kind needs.
	Writes []schema.GroupVersionResource
	// OptionalAPIs are the optional APIs the kind uses, in every namespace.
	OptionalAPIs []OptionalAPI
	// References are the resources of the objects a CR references by name (a credentials
	// Secret in any namespace): run.References(gr) watches exactly those.
	References []schema.GroupResource

	// Validate checks what the CRD's rules cannot (or could not when an old CR was stored).
	// A CR that breaks it changes nothing: run.Invalid says why, and what runs keeps running.
	Validate func(T) field.ErrorList
	// InvalidReason is the reason of an invalid CR's conditions; nil: ReasonValidationFailed.
	InvalidReason func(field.ErrorList) string
	// Precondition is checked after Validate, before the table: a non-nil outcome stops the
	// sync (an image the operator was not given). Nil: none.
	Precondition func(run *Run[T, S]) *StepError

	// NewState is the operand's state at the start of a sync of cr. A render without a cluster
	// (Render) uses it as it is, so it holds the defaults the steps before the render refine.
	NewState func(cr T) S
	// Steps are the operand's steps before the render (watch references, discover peers).
	Steps []Step[*Run[T, S]]
	// Render renders every asset of the table for the CR, wanted or not. It reads the CR,
	// run.State and watched references (run.References), and runs without a cluster too: then
	// every reference is missing and the state is NewState's.
	Render func(run *Run[T, S]) ([]Rendered, error)
	// RenderFailed reports a spec that cannot be rendered; nil: Degraded, ApplyFailed,
	// blocking.
	RenderFailed func(err error) *StepError
	// PrepareDeployment changes a Deployment before it is applied, from what the sync has
	// read (the hash of the Secrets it mounts, the live replicas while an HPA owns them). It
	// must work on a run without a cluster (Render): references not watched are missing.
	PrepareDeployment func(run *Run[T, S], d *appsv1.Deployment) error
	// PodSecurity is how every Deployment meets the restricted Pod Security profile on the
	// cluster's platform, after PrepareDeployment.
	PodSecurity PodSecurity
	// Required says whether cr asks by name for a best-effort asset (Asset.SkippedWithoutCRD):
	// then a missing CRD or someone else's object is a problem, as for any asset (a
	// ServiceMonitor the spec turns on explicitly). Nil: never.
	Required func(cr T, asset string) bool

	// Status sets cr's status (cr is a copy of run.CR) from the sync's outcome: the one place
	// where the kind's step outcomes become conditions. run.Invalid is set when the spec is
	// invalid, run.Applied holds the Deployments this sync applied.
	Status func(run *Run[T, S], result *Outcome, cr T)
	// Events announces status transitions on the CR; nil: AvailabilityEvents.
	Events EventPolicy
	// StatusIsState says that the status holds state a later sync acts on (a GPU's allocation):
	// then an update of the CR that changed only its status queues it like any other. Otherwise
	// such an update is the controller's own status write coming back, and the sync it would
	// queue renders and applies everything to find nothing to do (OnlyStatusChanged).
	StatusIsState bool

	// Finalizer, when set, is kept on every CR (see finalizer.go): Finalize runs for a deleted
	// CR until it returns done, and Update writes the finalizer. Nil Finalize: none.
	Finalizer string
	Finalize  func(ctx context.Context, run *Run[T, S]) (done bool, err error)
	Update    func(namespace string) Updater[T]

	// Related maps the event of an object the CR does not own to the keys of the CRs it
	// matters to: a user's object of an optional API (a ReferenceGrant), another kind's CR (an
	// MCP a Gateway's discovery selects). ok false: the default mapping of optional APIs'
	// objects, the CR that controls the object.
	Related func(obj runtime.Object, crs func() []T) (keys []string, ok bool)
	// RelatedInformers are the informers whose events Related maps (besides the optional
	// APIs', which it always sees).
	RelatedInformers []cache.SharedIndexInformer
}

// AssetTable builds an asset table from a list of manifests (an operand's one list, in order)
// and what is particular about some of them, by path.
func AssetTable(paths []string, details map[string]Asset) []Asset {
	out := make([]Asset, len(paths))
	for i, p := range paths {
		a := details[p]
		a.Path = p
		out[i] = a
	}
	return out
}

// ObjectVerbs are the verbs the engine uses on the objects it applies: list and watch
// (informers selecting the managed-by label in every namespace), get (a cache miss reads from
// the API), create and update (resourceapply), delete (a feature turned off; with a UID
// precondition). Never patch.
var ObjectVerbs = []string{"get", "list", "watch", "create", "update", "delete"}

// Requests are the API requests the kind's controller makes, as RBAC rules in every
// namespace: the CRs (listed and watched; status updated; finalizers updated, which
// blockOwnerDeletion needs), events on them, the objects of its assets and writes, the
// optional APIs it watches and the objects its CRs reference.
func (k *Kind[T, S]) Requests() ([]rbacv1.PolicyRule, error) {
	rule := func(gvr schema.GroupVersionResource, verbs ...string) rbacv1.PolicyRule {
		return rbacv1.PolicyRule{APIGroups: []string{gvr.Group}, Resources: []string{gvr.Resource}, Verbs: verbs}
	}
	cr := k.GVK.GroupVersion().WithResource(k.Resource)
	crVerbs := []string{"list", "watch"}
	if k.Finalizer != "" {
		crVerbs = append(crVerbs, "update")
	}
	rules := []rbacv1.PolicyRule{
		rule(cr, crVerbs...),
		rule(cr.GroupVersion().WithResource(k.Resource+"/status"), "update"),
		rule(cr.GroupVersion().WithResource(k.Resource+"/finalizers"), "update"),
		rule(schema.GroupVersionResource{Version: "v1", Resource: "events"}, "create"),
	}
	objects, err := k.ObjectResources()
	if err != nil {
		return nil, err
	}
	for _, a := range k.Assets {
		gvk, err := ManifestKind(k.Manifests, a.Path)
		if err != nil {
			return nil, err
		}
		if gvr, err := ResourceFor(gvk); err == nil && !slices.Contains(objects, gvr) {
			objects = append(objects, gvr)
		}
	}
	for _, gvr := range objects {
		rules = append(rules, rule(gvr, ObjectVerbs...))
		if dependents, ok := DeletedWith(gvr); ok {
			rules = append(rules, rule(dependents, DependentVerbs...))
		}
	}
	for _, api := range k.OptionalAPIs {
		rules = append(rules, rule(api.GVR, "list", "watch"))
	}
	for _, gr := range k.References {
		// A metadata-only list and watch in every namespace, and a read of each referenced object.
		rules = append(rules, rule(gr.WithVersion(""), "get", "list", "watch"))
	}
	return rules, nil
}
