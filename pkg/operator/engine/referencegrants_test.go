package engine

import (
	"context"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextfake "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/fake"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
)

var (
	gatewayKind = schema.GroupKind{Group: "core.inference-gateway.com", Kind: "Gateway"}
	mcpKind     = schema.GroupKind{Group: "core.inference-gateway.com", Kind: "MCP"}
)

// testGrant is a ReferenceGrant in namespace from Gateways of fromNamespace to MCPs named name
// (every MCP when name is empty).
func testGrant(namespace, fromNamespace, name string) *unstructured.Unstructured {
	to := map[string]any{"group": mcpKind.Group, "kind": mcpKind.Kind}
	if name != "" {
		to["name"] = name
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "gateway.networking.k8s.io/v1beta1",
		"kind":       "ReferenceGrant",
		"metadata":   map[string]any{"name": "allow-" + fromNamespace + "-" + name, "namespace": namespace},
		"spec": map[string]any{
			"from": []any{map[string]any{"group": gatewayKind.Group, "kind": gatewayKind.Kind, "namespace": fromNamespace}},
			"to":   []any{to},
		},
	}}
}

func TestReferenceGrantsAllow(t *testing.T) {
	ref := Reference{From: gatewayKind, FromNamespace: "llm", To: mcpKind, ToNamespace: "tools", Name: "time"}
	otherFromKind := testGrant("tools", "llm", "time")
	_ = unstructured.SetNestedSlice(otherFromKind.Object, []any{map[string]any{"group": gatewayKind.Group, "kind": "Orchestrator", "namespace": "llm"}}, "spec", "from")
	secretKind := Reference{From: gatewayKind, FromNamespace: "llm", To: schema.GroupKind{Kind: "Secret"}, ToNamespace: "tools", Name: "time"}
	coreGrant := testGrant("tools", "llm", "")
	_ = unstructured.SetNestedSlice(coreGrant.Object, []any{map[string]any{"group": "", "kind": "Secret"}}, "spec", "to")
	tests := []struct {
		name   string
		grants ReferenceGrants
		ref    Reference
		allows bool
	}{
		{name: "the object by name", grants: ReferenceGrants{testGrant("tools", "llm", "time")}, ref: ref, allows: true},
		{name: "every object of the kind", grants: ReferenceGrants{testGrant("tools", "llm", "")}, ref: ref, allows: true},
		{name: "another object", grants: ReferenceGrants{testGrant("tools", "llm", "other")}, ref: ref},
		{name: "another from-namespace", grants: ReferenceGrants{testGrant("tools", "elsewhere", "")}, ref: ref},
		{name: "another from-kind", grants: ReferenceGrants{otherFromKind}, ref: ref},
		{name: "a grant of another namespace", grants: ReferenceGrants{testGrant("other", "llm", "")}, ref: ref},
		{name: "a grant to another kind", grants: ReferenceGrants{testGrant("tools", "llm", "")}, ref: secretKind},
		{name: "the core group's Secret", grants: ReferenceGrants{coreGrant}, ref: secretKind, allows: true},
		{name: "none", ref: ref},
		{name: "one of several", grants: ReferenceGrants{testGrant("tools", "elsewhere", ""), testGrant("tools", "llm", "time")}, ref: ref, allows: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.grants.Allow(tt.ref); got != tt.allows {
				t.Errorf("Allow = %v, want %v", got, tt.allows)
			}
		})
	}
}

// fakeReferenceGrantAPIs are optional APIs over fake clients (client-go's dynamic fake and the
// apiextensions fake) holding the given ReferenceGrants, with the CRD established or not.
func fakeReferenceGrantAPIs(t *testing.T, crdInstalled bool, grants ...runtime.Object) *OptionalAPIs {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	var crds []runtime.Object
	if crdInstalled {
		crds = append(crds, &apiextensionsv1.CustomResourceDefinition{
			ObjectMeta: metav1.ObjectMeta{Name: CRDName(ReferenceGrantGVR)},
			Status: apiextensionsv1.CustomResourceDefinitionStatus{Conditions: []apiextensionsv1.CustomResourceDefinitionCondition{
				{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue},
			}},
		})
	}
	apiext := apiextfake.NewSimpleClientset(crds...)
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{ReferenceGrantGVR: "ReferenceGrantList"}, grants...)
	o := NewOptionalAPIs(ctx, dyn, apiext, 0, NewCaches(), ReferenceGrantAPI)
	crd := o.CRDWatches()[0]
	go crd.Informer.Run(ctx.Done())
	waitUntil(t, "the CRD watch to list", crd.Informer.HasSynced)
	return o
}

// TestGrantedObjects: discovery in the CR's own namespace needs no grant; in another, each
// object needs a ReferenceGrant there, the others are skipped and named with the grant to
// create; without the ReferenceGrant CRD nothing of another namespace is used, and the message
// says why.
func TestGrantedObjects(t *testing.T) {
	gw := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "gw", Namespace: "llm"}}
	objs := func(namespace string, names ...string) []*corev1.ConfigMap {
		var out []*corev1.ConfigMap
		for _, n := range names {
			out = append(out, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: n, Namespace: namespace}})
		}
		return out
	}
	tests := []struct {
		name         string
		crdInstalled bool
		grants       []runtime.Object
		namespace    string
		objs         []*corev1.ConfigMap
		kept         []string
		problem      []string // the message holds each; nil: no problem
	}{
		{name: "own namespace, no CRD", namespace: "llm", objs: objs("llm", "a", "b"), kept: []string{"a", "b"}},
		{name: "another namespace, no CRD", namespace: "tools", objs: objs("tools", "a"),
			problem: []string{"spec.mcp.serviceDiscovery", "namespace tools", "referencegrants.gateway.networking.k8s.io", "cross-namespace discovery is off"}},
		{name: "another namespace, no grant", crdInstalled: true, namespace: "tools", objs: objs("tools", "a", "b"),
			problem: []string{"skipped [a b]", "a ReferenceGrant in namespace tools from group core.inference-gateway.com, kind Gateway, namespace llm to group core.inference-gateway.com, kind MCP"}},
		{name: "a grant for every MCP", crdInstalled: true, grants: []runtime.Object{testGrant("tools", "llm", "")}, namespace: "tools",
			objs: objs("tools", "a", "b"), kept: []string{"a", "b"}},
		{name: "a grant for one MCP", crdInstalled: true, grants: []runtime.Object{testGrant("tools", "llm", "a")}, namespace: "tools",
			objs: objs("tools", "a", "b"), kept: []string{"a"}, problem: []string{"skipped [b]"}},
		{name: "a grant for another namespace's Gateways", crdInstalled: true, grants: []runtime.Object{testGrant("tools", "other", "")}, namespace: "tools",
			objs: objs("tools", "a"), problem: []string{"skipped [a]"}},
		{name: "nothing found, grant or not", crdInstalled: true, namespace: "tools"},
		{name: "many skipped: the first ten named", crdInstalled: true, namespace: "tools",
			objs: objs("tools", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"), problem: []string{"[a b c d e f g h i j] and 2 more"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := fakeReferenceGrantAPIs(t, tt.crdInstalled, tt.grants...)
			kept, problem, err := GrantedObjects(o, gw, gatewayKind, mcpKind, tt.namespace, "spec.mcp.serviceDiscovery", tt.objs)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, k := range kept {
				names = append(names, k.Name)
			}
			if !slices.Equal(names, tt.kept) {
				t.Errorf("kept %v, want %v", names, tt.kept)
			}
			switch {
			case tt.problem == nil && problem != nil:
				t.Errorf("problem %q, want none", problem.Message)
			case tt.problem != nil && problem == nil:
				t.Errorf("no problem, want one saying %q", tt.problem)
			case problem != nil:
				if problem.Condition != ConditionDegraded || problem.Reason != ReasonReferenceNotPermitted || problem.Blocking {
					t.Errorf("problem %+v, want Degraded %s, not blocking", problem, ReasonReferenceNotPermitted)
				}
				for _, want := range tt.problem {
					if !strings.Contains(problem.Message, want) {
						t.Errorf("message %q lacks %q", problem.Message, want)
					}
				}
			}
		})
	}
}

// TestCrossNamespaceKeys: a ReferenceGrant's event queues the CRs that discover in its
// namespace from another namespace, and no others.
func TestCrossNamespaceKeys(t *testing.T) {
	crs := []*corev1.ConfigMap{
		{ObjectMeta: metav1.ObjectMeta{Name: "into-tools", Namespace: "llm"}},
		{ObjectMeta: metav1.ObjectMeta{Name: "own", Namespace: "tools"}},
		{ObjectMeta: metav1.ObjectMeta{Name: "elsewhere", Namespace: "llm", Labels: map[string]string{"ns": "other"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "off", Namespace: "llm", Labels: map[string]string{"off": "true"}}},
	}
	selections := func(cr *corev1.ConfigMap) []LabelSelection {
		if cr.Labels["off"] != "" {
			return nil
		}
		ns := cr.Labels["ns"]
		if ns == "" {
			ns = "tools"
		}
		s, _ := NewLabelSelection(cr.Namespace, ns, nil, "f")
		return []LabelSelection{s}
	}
	if got := CrossNamespaceKeys(crs, selections, "tools"); !slices.Equal(got, []string{"llm/into-tools"}) {
		t.Errorf("keys %v, want [llm/into-tools]", got)
	}
	if ns, ok := IsReferenceGrant(testGrant("tools", "llm", "")); !ok || ns != "tools" {
		t.Errorf("IsReferenceGrant = %q, %v", ns, ok)
	}
	if _, ok := IsReferenceGrant(crs[0]); ok {
		t.Error("a ConfigMap is not a ReferenceGrant")
	}
}
