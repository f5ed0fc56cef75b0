package lws

import (
	"context"
	"maps"

	operatorv1 "github.com/openshift/api/operator/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"

	"github.com/openshift/library-go/pkg/controller/factory"

	"github.com/openshift/library-go/pkg/operator/loglevel"
	"github.com/openshift/library-go/pkg/operator/v1helpers"

	"github.com/llm-infra/llm-infra-operator/bindata"
	lwsoperatorv1 "github.com/llm-infra/llm-infra-operator/pkg/apis/operator/v1"
	"github.com/llm-infra/llm-infra-operator/pkg/apis/operator/v1/testcases"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/operatorclient"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/registry"
)

// ImageEnv names the environment variable that carries the LeaderWorkerSet controller's image.
const ImageEnv = "RELATED_IMAGE_OPERAND_IMAGE"

// Registrations is the LeaderWorkerSetOperator kind: the singleton "cluster", with
// library-go's operator client, one queue key, a finalizer and a table walked backwards on
// Removed; it keeps that shape on the registry. Its controller also drives the operator's own
// log level (operatorLogLevel).
func Registrations() []registry.Registration {
	return []registry.Registration{{
		Operand:        OperandName,
		GVK:            lwsoperatorv1.GroupVersion.WithKind("LeaderWorkerSetOperator"),
		Resource:       "leaderworkersetoperators",
		APIPackage:     "pkg/apis/operator/v1",
		OperandPackage: "pkg/operator/operands/lws",
		Images:         []registry.Image{{Env: ImageEnv, Component: "the LeaderWorkerSet controller", Required: true}},
		OptionalAPIs:   OptionalAPIs,
		CRDs:           CRDNames,
		Assets:         Assets(),
		Requests:       requests,
		Admission:      registry.Admission{Base: testcases.Base, Rejected: testcases.Rejected, Accepted: testcases.Accepted},
		Example:        "leaderworkersetoperator_cluster.yaml",
		Render: func(u *unstructured.Unstructured, env registry.RenderEnv) ([]runtime.Object, error) {
			cr, err := engine.FromUnstructured[lwsoperatorv1.LeaderWorkerSetOperator](u)
			if err != nil {
				return nil, err
			}
			return Render(cr, env.Namespace, env.Image(ImageEnv))
		},
		Start: start,
	}}
}

// start builds the operator client of the singleton, the operand's controller and library-go's
// log level controller.
func start(_ context.Context, deps *registry.Deps) (*registry.Started, error) {
	operatorClient, operatorInformers, err := operatorclient.New(deps.Clock, deps.Config)
	if err != nil {
		return nil, err
	}
	webhooks := NewWebhookFactories(deps.Kube, deps.Resync)
	_, controller := New(Config{
		Namespace:      deps.Namespace,
		Image:          deps.Image(ImageEnv),
		OperatorClient: operatorClient,
		Clients:        deps.Clients,
		CRD:            deps.CRDWatch(CRDName),
		Optional:       deps.Optional,
		Listeners:      deps.Listeners,
		Informers:      append(RegisterInformers(deps.Caches, deps.Listeners, deps.Namespaced, webhooks), disaggregatedSetCRDInformers(deps)...),
		Secrets:        deps.Namespaced.Core().V1().Secrets().Lister(),
		ConfigMaps:     deps.Namespaced.Core().V1().ConfigMaps().Lister(),
		Recorder:       deps.Recorder,
		Resync:         deps.Resync,
	})
	return &registry.Started{
		Controllers: []registry.Controller{
			{Controller: controller, Workers: 1},
			{Controller: loglevel.NewClusterOperatorLoggingController(operatorClient, deps.Recorder), Workers: 1},
		},
		Degraded:  Degraded(operatorClient),
		Informers: append([]cache.SharedIndexInformer{operatorClient.Informer()}, webhooks.Informers()...),
		Start: func(stop <-chan struct{}) {
			operatorInformers.Start(stop)
			webhooks.Start(stop)
		},
	}, nil
}

// disaggregatedSetCRDInformers are the starter's watches of the DisaggregatedSet CRDs (it
// registers them in the caches), whose events trigger a sync as the LeaderWorkerSet CRD's do.
func disaggregatedSetCRDInformers(deps *registry.Deps) []factory.Informer {
	var out []factory.Informer
	for _, name := range DisaggregatedSetCRDNames {
		out = append(out, deps.CRDWatch(name).Informer)
	}
	return out
}

// Degraded reports the singleton's Degraded condition (an OperatorCondition), once the CR
// exists and has one.
func Degraded(client v1helpers.OperatorClient) engine.DegradedSource {
	return func() []engine.DegradedState {
		_, status, _, err := client.GetOperatorState()
		if err != nil || status == nil {
			return nil
		}
		c := v1helpers.FindOperatorCondition(status.Conditions, engine.ConditionDegraded)
		if c == nil {
			return nil
		}
		return []engine.DegradedState{{Name: lwsoperatorv1.SingletonName, Degraded: c.Status == operatorv1.ConditionTrue, Reason: c.Reason}}
	}
}

// requests are what the controller does: with its CR, the singleton "cluster" (genericoperatorclient:
// an informer of every CR, then reads, updates and status writes by name; the finalizers
// subresource for the finalizer), with the Secrets and ConfigMaps of the operator's namespace
// that are not assets (certrotation's CA, its bundle and serving certificates, the operand
// ConfigMap; cert-manager's and the service CA's issued Secrets, read and deleted on removal),
// with the ServiceAccounts there (watched: the controller's is installed, checkInstalledRBAC),
// with OpenShift's APIServer configuration "cluster" (read by name: its TLS profile), with the installed RBAC of
// earlier releases (releaseInstalledRBAC: read and updated by name), and with each of the
// operand's objects: watch the kind, create the object, and get, update and delete it by name
// (the CRD: watched by name, never deleted), and list and delete the dependents deleted
// with it (DeletedWith). Objects of the operator's namespace are granted there.
func requests(namespace string) []registry.Request {
	cr := func(resource string, verbs []string, names ...string) registry.Request {
		return registry.Request{PolicyRule: rbacv1.PolicyRule{APIGroups: []string{lwsoperatorv1.GroupVersion.Group},
			Resources: []string{resource}, Verbs: verbs, ResourceNames: names}}
	}
	out := []registry.Request{
		cr("leaderworkersetoperators", []string{"list", "watch"}),
		cr("leaderworkersetoperators", []string{"get", "update", "patch"}, lwsoperatorv1.SingletonName),
		cr("leaderworkersetoperators/status", []string{"update", "patch"}, lwsoperatorv1.SingletonName),
		cr("leaderworkersetoperators/finalizers", []string{"update"}, lwsoperatorv1.SingletonName),
		{Namespace: namespace, PolicyRule: rbacv1.PolicyRule{APIGroups: []string{""},
			Resources: []string{"secrets", "configmaps"}, Verbs: engine.ObjectVerbs}},
		// The installed ServiceAccount's informer (checkInstalledRBAC).
		{Namespace: namespace, PolicyRule: rbacv1.PolicyRule{APIGroups: []string{""},
			Resources: []string{"serviceaccounts"}, Verbs: []string{"list", "watch"}}},
	}
	// The informers that select one object by name (the webhook configurations', some optional
	// APIs') list and watch it by that name; those of objects the operator reads and never makes
	// (OpenShift's APIServer configuration) are asked for here, the others with the operand's
	// assets below.
	byName := maps.Clone(watchedByName)
	for _, api := range OptionalAPIs(namespace) {
		if api.Name != "" {
			byName[api.GVR] = api.Name
		}
		if api.AllObjects {
			var names []string
			if api.Name != "" {
				names = []string{api.Name}
			}
			out = append(out, registry.Request{Namespace: api.Namespace, PolicyRule: rbacv1.PolicyRule{APIGroups: []string{api.GVR.Group},
				Resources: []string{api.GVR.Resource}, Verbs: []string{"list", "watch"}, ResourceNames: names}})
		}
	}
	out = append(out, installedRBACRequests(namespace)...)
	for _, asset := range Assets() {
		obj, err := engine.DecodeManifest(bindata.MustAsset(asset))
		if err != nil {
			panic(err) // the embedded manifests are broken: every test fails
		}
		gvr, err := engine.ResourceFor(obj.GroupVersionKind())
		if err != nil {
			panic(err)
		}
		ns := ""
		if obj.GetNamespace() != "" {
			ns = namespace
		}
		// resourceapply creates and updates, never patches (engine.ObjectVerbs). An object
		// watched by name (a CRD, an optional API's one object) is listed and watched by name.
		named, unnamed := []string{"get", "update", "delete"}, []string{"list", "watch", "create"}
		switch {
		case gvr.Resource == "customresourcedefinitions":
			named, unnamed = []string{"get", "update", "list", "watch"}, []string{"create"}
		case byName[gvr] == obj.GetName():
			named, unnamed = []string{"get", "update", "delete", "list", "watch"}, []string{"create"}
		}
		rule := func(verbs []string, names ...string) registry.Request {
			return registry.Request{Namespace: ns, PolicyRule: rbacv1.PolicyRule{
				APIGroups: []string{gvr.Group}, Resources: []string{gvr.Resource}, Verbs: verbs, ResourceNames: names}}
		}
		out = append(out, rule(named, obj.GetName()), rule(unnamed))
		if dependents, ok := engine.DeletedWith(gvr); ok {
			out = append(out, registry.Request{Namespace: ns, PolicyRule: rbacv1.PolicyRule{
				APIGroups: []string{dependents.Group}, Resources: []string{dependents.Resource}, Verbs: engine.DependentVerbs}})
		}
	}
	return out
}
