// Package registry is the contract between the operator and its operands: an operand registers
// each custom resource kind it serves as one Registration (its API, CRD, assets, controller,
// images, optional APIs, RBAC needs, admission table, example, render), and everything that
// lists the operator's kinds reads the list (pkg/operator/operands.All) instead of naming them:
// the starter's wiring, informers and Degraded metric, the images the operator reads, the RBAC
// coverage test, the fuzz targets, the dry-run, admission and faults suites, the bundle's owned
// CRDs and alm-examples, code and CRD generation, verify.sh, the manifest tests and the tables
// of ARCHITECTURE.md. What must exist outside Go is generated from it by make generate
// (hack/kindgen: the users' roles and the ClusterRole's rules for the CRs; hack/bundlegen: the
// CSV's owned CRDs, from the CRDs), or checked against it by a test that fails when a kind is
// missing.
package registry

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apiextclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"

	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"

	"github.com/llm-infra/llm-infra-operator/pkg/apis/batch/v1alpha1/testcases"
	"github.com/llm-infra/llm-infra-operator/pkg/generated/clientset/versioned"
	crinformers "github.com/llm-infra/llm-infra-operator/pkg/generated/informers/externalversions"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// Registration is one custom resource kind the operator serves, registered once by its
// operand.
type Registration struct {
	// Operand names the kind's controller in metrics (the "operand" label), logs and the
	// reliability suites; unique.
	Operand string
	// GVK is the CR's group, version and kind; Resource its plural; Namespaced its scope.
	GVK        schema.GroupVersionKind
	Resource   string
	Namespaced bool
	// APIPackage is the Go package of the kind's API types, relative to the repository
	// ("pkg/apis/batch/v1alpha1"): code and CRD generation run over it.
	APIPackage string
	// OperandPackage is the Go package of its operand ("pkg/operator/operands/batchgateway"):
	// its fuzz targets run in make fuzz.
	OperandPackage string
	// Images are the RELATED_IMAGE_* environment variables the operand reads its images from.
	Images []Image
	// OptionalAPIs are the optional APIs the kind uses; namespace is the operator's.
	OptionalAPIs func(namespace string) []engine.OptionalAPI
	// CRDs are CRDs the operand itself installs and watches by name (the LeaderWorkerSet CRD).
	CRDs []string
	// Assets are the embedded manifests of the kind's objects, in the order they are applied.
	Assets []string
	// Requests are the API requests the kind's controller makes, as RBAC rules; namespace is
	// the operator's. The operator's RBAC in deploy/ must grant them (test/manifests).
	Requests func(namespace string) []Request
	// Admission is the kind's admission table: the CRs the API server must reject (each with
	// its errors) and those it must accept.
	Admission Admission
	// Example is the kind's sample CR, a file of deploy/examples (alm-examples, make
	// run-local, the faults suite).
	Example string
	// Render renders an admitted CR as the sync applies it, without a cluster: the dry-run
	// suite sends the objects to an API server, the fuzz tests feed it anything.
	Render func(cr *unstructured.Unstructured, env RenderEnv) ([]runtime.Object, error)
	// Start builds the kind's controller(s) when the kind's first CR exists; the starter runs
	// them once every informer they watch synced.
	Start func(ctx context.Context, deps *Deps) (*Started, error)
}

// CRDName is the name of the kind's CustomResourceDefinition.
func (r Registration) CRDName() string { return r.Resource + "." + r.GVK.Group }

// CRDFile is the file of deploy/ that holds the kind's CRD (hack/update-crds.sh writes it).
func (r Registration) CRDFile() string {
	return "00_" + r.GVK.Group + "_" + r.Resource + ".crd.yaml"
}

// GVR is the kind's group, version and resource.
func (r Registration) GVR() schema.GroupVersionResource {
	return r.GVK.GroupVersion().WithResource(r.Resource)
}

// Request is an API request a controller makes, as an RBAC rule, in one namespace (granted
// there by the operator's Role or ClusterRole) or, with Namespace empty, in every namespace or
// cluster-scoped (granted by the operator's ClusterRole).
type Request struct {
	Namespace string
	rbacv1.PolicyRule
}

// Image is an image the operator deploys, from its environment (OLM fills RELATED_IMAGE_*
// from the bundle's relatedImages, so disconnected mirrors work without the operator knowing).
type Image struct {
	// Env is the environment variable ("RELATED_IMAGE_OPERAND_IMAGE").
	Env string
	// Component says what runs it, for messages.
	Component string
	// Required refuses to start the operator without it; otherwise the CRs that need the
	// missing image say so in their conditions.
	Required bool
}

// Admission is a kind's admission table (pkg/apis/*/*/testcases).
type Admission struct {
	// Base is the smallest valid CR, as YAML: the dry-run suite varies its name.
	Base string
	// Golden is the directory of the upstream operator's golden cases under test/golden
	// ("batch-gateway"), whose CRs of this kind must be admitted and rendered; empty: none.
	Golden string
	// GoldenRefused are the golden CRs of Golden this kind's API refuses by design, by case
	// name ("golden <case>"), with the errors the API server returns (admission.GoldenOf).
	GoldenRefused      map[string][]string
	Rejected, Accepted []testcases.Case
	// Updates are changes to a stored Base, each case's Patch applied to it as an update, with
	// their verdicts: they exercise the rules that compare with the stored object (oldSelf),
	// which a create never evaluates.
	Updates []testcases.Case
	// UpdatesWithStatus are changes to a stored Base whose status was then set to Status
	// (YAML, written through the status subresource), for the rules that read the status (a
	// GPU's credentialsRef is fixed while it holds an allocation).
	Status            string
	UpdatesWithStatus []testcases.Case
}

// RenderEnv is what a render without a cluster is given in place of the operator's
// environment.
type RenderEnv struct {
	// Namespace is the operator's namespace.
	Namespace string
	// Image returns the image of an Image's Env.
	Image func(env string) string
	// Platform is the cluster's platform ("": Kubernetes).
	Platform engine.Platform
}

// Deps is what the starter hands every registration's Start.
type Deps struct {
	// NamespacedDeps are what the engine's namespaced controller needs; its Clients read
	// through this registration's own layer of the caches (Caches).
	engine.NamespacedDeps
	// Namespace is the operator's namespace.
	Namespace string
	Caches    *engine.Caches
	Kube      kubernetes.Interface
	APIExt    apiextclient.Interface
	Dynamic   dynamic.Interface
	// Config is the operator's client configuration (with its rate limits).
	Config *rest.Config
	// CR is the clientset of every API group of pkg/apis; CRInformers its informer factory
	// (every namespace).
	CR          versioned.Interface
	CRInformers crinformers.SharedInformerFactory
	// Namespaced is the informer factory of the operator's namespace.
	Namespaced informers.SharedInformerFactory
	// CRDWatch returns the watch of a CRD of the registration's CRDs.
	CRDWatch func(name string) *engine.CRDWatch
	// Image returns the image of an Image's Env ("" when it is not set).
	Image func(env string) string
	// Policy is what the administrator allows CRs to name (the operator's environment); the
	// zero Policy allows everything.
	Policy engine.Policy
	Clock  clock.Clock
	// Recorder is the operator's event recorder.
	Recorder events.Recorder
	Resync   time.Duration
}

// Started is what a registration's Start built.
type Started struct {
	Controllers []Controller
	// Degraded feeds llm_infra_operator_degraded with the kind's CRs.
	Degraded engine.DegradedSource
	// Informers are informers of the registration's own (not from the Deps' factories) that the
	// starter starts and waits for.
	Informers []cache.SharedIndexInformer
	// Start starts informer factories of the registration's own, before the wait.
	Start func(stop <-chan struct{})
}

// Controller is a controller and how many of its syncs run at once.
type Controller struct {
	factory.Controller
	Workers int
}

// StartNamespaced builds the engine's controller of a namespaced kind.
func StartNamespaced[T engine.Object, S any](ctx context.Context, deps *Deps, kind *engine.Kind[T, S]) (*Started, error) {
	c, err := engine.NewNamespaced(ctx, kind, deps.NamespacedDeps)
	if err != nil {
		return nil, err
	}
	return &Started{Controllers: []Controller{{c.Controller(), c.Workers()}}, Degraded: c.Degraded()}, nil
}

// Namespaced is the registration of a namespaced kind on the engine: r completed with what
// its Kind declares (its identity: operand, GVK and resource; assets, optional APIs, the
// requests its controller makes, the render, the controller). kind must build a Kind from Deps
// without clients (Offline) that renders. The Kind is the one place of a namespaced kind's
// identity: r must not declare it again (a second copy that nothing compared is what this
// replaced), nor what else the Kind declares.
func Namespaced[T engine.Object, S any](r Registration, kind func(deps *Deps) *engine.Kind[T, S]) Registration {
	offline := kind(&Deps{})
	if r.Operand != "" || !r.GVK.Empty() || r.Resource != "" || r.Assets != nil || r.OptionalAPIs != nil || r.Requests != nil {
		panic(fmt.Sprintf("registry.Namespaced(%s): the registration declares what its Kind declares (Operand, GVK, Resource, Assets, OptionalAPIs, Requests)", offline.GVK.Kind))
	}
	r.Operand, r.GVK, r.Resource = offline.Operand, offline.GVK, offline.Resource
	r.Namespaced = true
	r.Assets = engine.Paths(offline.Assets)
	optional := offline.OptionalAPIs
	r.OptionalAPIs = func(string) []engine.OptionalAPI { return optional }
	r.Requests = func(string) []Request {
		rules, err := offline.Requests()
		if err != nil {
			panic(fmt.Sprintf("%s: %v", r.GVK.Kind, err)) // the embedded manifests are broken: every test fails
		}
		out := make([]Request, len(rules))
		for i, rule := range rules {
			out[i] = Request{PolicyRule: rule}
		}
		return out
	}
	r.Render = func(u *unstructured.Unstructured, env RenderEnv) ([]runtime.Object, error) {
		cr := reflect.New(reflect.TypeFor[T]().Elem()).Interface().(T)
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, cr); err != nil {
			return nil, err
		}
		platform := env.Platform
		if platform == "" {
			platform = engine.Kubernetes
		}
		return kind(&Deps{Namespace: env.Namespace, Image: env.Image}).RenderCROn(cr, platform)
	}
	r.Start = func(ctx context.Context, deps *Deps) (*Started, error) {
		return StartNamespaced(ctx, deps, kind(deps))
	}
	return r
}

// Check fails when registrations collide or lack what every kind needs.
func Check(all []Registration) error {
	var problems []string
	operands, kinds := map[string]bool{}, map[schema.GroupKind]bool{}
	for _, r := range all {
		if r.Operand == "" || operands[r.Operand] {
			problems = append(problems, fmt.Sprintf("operand name %q is empty or used twice", r.Operand))
		}
		operands[r.Operand] = true
		if kinds[r.GVK.GroupKind()] {
			problems = append(problems, fmt.Sprintf("%s is registered twice", r.GVK.GroupKind()))
		}
		kinds[r.GVK.GroupKind()] = true
		for what, missing := range map[string]bool{
			"Resource": r.Resource == "", "APIPackage": r.APIPackage == "", "OperandPackage": r.OperandPackage == "",
			"Example": r.Example == "", "Admission.Base": r.Admission.Base == "", "Render": r.Render == nil,
			"Start": r.Start == nil, "Requests": r.Requests == nil,
		} {
			if missing {
				problems = append(problems, fmt.Sprintf("%s has no %s", r.GVK.Kind, what))
			}
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("registry: %s", strings.Join(problems, "; "))
	}
	return nil
}
