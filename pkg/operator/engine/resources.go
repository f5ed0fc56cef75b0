package engine

import (
	"fmt"
	"io/fs"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"
	"sigs.k8s.io/yaml"
)

// Resource is a kind the engine reads or writes and the resource that serves it, declared:
// the engine never guesses a plural (apimachinery's guess calls Gateway API's Gateways
// "gatewaies").
type Resource struct {
	Kind       string
	GVR        schema.GroupVersionResource
	Namespaced bool
}

// The optional APIs the operands use: cert-manager, Gateway API and the Prometheus operator.
var (
	IssuerGVR            = schema.GroupVersionResource{Group: "cert-manager.io", Version: "v1", Resource: "issuers"}
	CertificateGVR       = schema.GroupVersionResource{Group: "cert-manager.io", Version: "v1", Resource: "certificates"}
	GatewayAPIGatewayGVR = schema.GroupVersionResource{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "gateways"}
	HTTPRouteGVR         = schema.GroupVersionResource{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "httproutes"}
	BackendTLSPolicyGVR  = schema.GroupVersionResource{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "backendtlspolicies"}
	ReferenceGrantGVR    = schema.GroupVersionResource{Group: "gateway.networking.k8s.io", Version: "v1beta1", Resource: "referencegrants"}
	ServiceMonitorGVR    = schema.GroupVersionResource{Group: "monitoring.coreos.com", Version: "v1", Resource: "servicemonitors"}
	PodMonitorGVR        = schema.GroupVersionResource{Group: "monitoring.coreos.com", Version: "v1", Resource: "podmonitors"}
	PrometheusRuleGVR    = schema.GroupVersionResource{Group: "monitoring.coreos.com", Version: "v1", Resource: "prometheusrules"}
	// CertificateRequestGVR: cert-manager's requests for a Certificate, which the operator
	// never makes but deletes with the Certificate that controls them (DeletedWith).
	CertificateRequestGVR = schema.GroupVersionResource{Group: "cert-manager.io", Version: "v1", Resource: "certificaterequests"}
)

// deletedWith maps a kind to the kind of its dependents that the engine deletes together
// with an object of it, instead of leaving them to the garbage collector. cert-manager names a
// Certificate's first request <certificate>-1: while the request of a deleted Certificate waits
// for the garbage collector, a Certificate made again under the same name (a CR deleted and
// created again, LWS set to Removed and back to Managed) cannot get its request, and cert-manager
// retries with a back-off that doubles into minutes (cert-manager/cert-manager#7912; seen in CI
// as an LWS CR that stayed unavailable for six minutes).
var deletedWith = map[schema.GroupVersionResource]schema.GroupVersionResource{
	CertificateGVR: CertificateRequestGVR,
}

// DeletedWith is the kind of dependents deleted together with an object of gvr, if any.
func DeletedWith(gvr schema.GroupVersionResource) (schema.GroupVersionResource, bool) {
	dependents, ok := deletedWith[gvr]
	return dependents, ok
}

// DependentVerbs are the requests deleting dependents makes: a list of the owner's namespace
// (the operator's label selected) and a delete of each dependent the owner controlled.
var DependentVerbs = []string{"list", "delete"}

// Resources declares every kind an operand's manifests hold and every kind the engine reads
// from caches. A manifest of a kind not declared here fails its kind's table, and so every
// test of its operand.
var Resources = []Resource{
	{"ServiceAccount", schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}, true},
	{"ConfigMap", schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, true},
	{"Service", schema.GroupVersionResource{Version: "v1", Resource: "services"}, true},
	{"Secret", schema.GroupVersionResource{Version: "v1", Resource: "secrets"}, true},
	{"Deployment", schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, true},
	{"HorizontalPodAutoscaler", schema.GroupVersionResource{Group: "autoscaling", Version: "v2", Resource: "horizontalpodautoscalers"}, true},
	{"PodDisruptionBudget", schema.GroupVersionResource{Group: "policy", Version: "v1", Resource: "poddisruptionbudgets"}, true},
	{"NetworkPolicy", schema.GroupVersionResource{Group: "networking.k8s.io", Version: "v1", Resource: "networkpolicies"}, true},
	{"Ingress", schema.GroupVersionResource{Group: "networking.k8s.io", Version: "v1", Resource: "ingresses"}, true},
	{"Role", schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles"}, true},
	{"RoleBinding", schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "rolebindings"}, true},
	{"ClusterRole", schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"}, false},
	{"ClusterRoleBinding", schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterrolebindings"}, false},
	{"MutatingWebhookConfiguration", schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "mutatingwebhookconfigurations"}, false},
	{"ValidatingWebhookConfiguration", schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingwebhookconfigurations"}, false},
	{"CustomResourceDefinition", schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}, false},
	{"Issuer", IssuerGVR, true},
	{"Certificate", CertificateGVR, true},
	{"Gateway", GatewayAPIGatewayGVR, true},
	{"HTTPRoute", HTTPRouteGVR, true},
	{"BackendTLSPolicy", BackendTLSPolicyGVR, true},
	{"ReferenceGrant", ReferenceGrantGVR, true},
	{"ServiceMonitor", ServiceMonitorGVR, true},
	{"PodMonitor", PodMonitorGVR, true},
	{"PrometheusRule", PrometheusRuleGVR, true},
}

// mapper is apimachinery's RESTMapper over Resources.
var mapper = func() *meta.DefaultRESTMapper {
	m := meta.NewDefaultRESTMapper(nil)
	for _, r := range Resources {
		scope := meta.RESTScopeRoot
		if r.Namespaced {
			scope = meta.RESTScopeNamespace
		}
		gvk := r.GVR.GroupVersion().WithKind(r.Kind)
		m.AddSpecific(gvk, r.GVR, r.GVR.GroupVersion().WithResource(strings.ToLower(r.Kind)), scope)
	}
	return m
}()

// ResourceFor maps a kind to the resource Resources declares for it.
func ResourceFor(gvk schema.GroupVersionKind) (schema.GroupVersionResource, error) {
	mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return schema.GroupVersionResource{}, fmt.Errorf("the engine does not know %s: declare it in engine.Resources: %w", gvk, err)
	}
	return mapping.Resource, nil
}

// ManifestKind reads the kind of an embedded manifest.
func ManifestKind(manifests fs.FS, path string) (schema.GroupVersionKind, error) {
	raw, err := fs.ReadFile(manifests, path)
	if err != nil {
		return schema.GroupVersionKind{}, err
	}
	var tm metav1.TypeMeta
	if err := yaml.Unmarshal(raw, &tm); err != nil || tm.Kind == "" {
		return schema.GroupVersionKind{}, fmt.Errorf("embedded manifest %s has no kind: %v", path, err)
	}
	return schema.FromAPIVersionAndKind(tm.APIVersion, tm.Kind), nil
}

// ObjectOf is the object of an informer event, a tombstone (the object deleted while the watch
// was down) unwrapped.
func ObjectOf(obj any) (runtime.Object, metav1.Object, bool) {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	ro, ok := obj.(runtime.Object)
	if !ok {
		return nil, nil, false
	}
	m, err := meta.Accessor(ro)
	if err != nil {
		return nil, nil, false
	}
	return ro, m, true
}

// ObjectResources are the resources of the objects a kind's CRs have: its assets' kinds (the
// built-in ones: the optional APIs' are watched by OptionalAPIs) and what its steps write.
// Each is watched (managed-by label, every namespace) and needs RBAC.
func (k *Kind[T, S]) ObjectResources() ([]schema.GroupVersionResource, error) {
	var out []schema.GroupVersionResource
	seen := map[schema.GroupVersionResource]bool{}
	add := func(gvr schema.GroupVersionResource) {
		if !seen[gvr] {
			seen[gvr] = true
			out = append(out, gvr)
		}
	}
	optional := map[schema.GroupResource]bool{}
	for _, api := range k.OptionalAPIs {
		optional[api.GVR.GroupResource()] = true
	}
	for _, a := range k.Assets {
		gvk, err := ManifestKind(k.Manifests, a.Path)
		if err != nil {
			return nil, err
		}
		gvr, err := ResourceFor(gvk)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", a.Path, err)
		}
		if !optional[gvr.GroupResource()] {
			add(gvr)
		}
	}
	for _, gvr := range k.Writes {
		add(gvr)
	}
	return out, nil
}

// MustResourceFor is ResourceFor for kinds known to be declared (tests, the e2e suite); it
// panics on any other.
func MustResourceFor(gvk schema.GroupVersionKind) schema.GroupVersionResource {
	gvr, err := ResourceFor(gvk)
	if err != nil {
		panic(err)
	}
	return gvr
}
