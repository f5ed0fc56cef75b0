package engine

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextfake "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/fake"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"
)

// An optional API's informer follows its CRD: it stops when the CRD goes away, and a new one
// lists the objects when the CRD is back (the old one would wait out its list back-off, and
// a feature turned off meanwhile would leave its objects behind).
func TestOptionalAPIInformerFollowsItsCRD(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	gvr := schema.GroupVersionResource{Group: "monitoring.coreos.com", Version: "v1", Resource: "servicemonitors"}
	crdName := CRDName(gvr)
	established := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: crdName},
		Status: apiextensionsv1.CustomResourceDefinitionStatus{Conditions: []apiextensionsv1.CustomResourceDefinitionCondition{
			{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue},
		}},
	}
	apiext := apiextfake.NewSimpleClientset(established)
	monitor := func(name string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("monitoring.coreos.com/v1")
		u.SetKind("ServiceMonitor")
		u.SetNamespace("ns")
		u.SetName(name)
		u.SetLabels(map[string]string{ManagedByLabel: ManagedByValue})
		return u
	}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{gvr: "ServiceMonitorList"}, monitor("before"))
	caches := NewCaches()
	o := NewOptionalAPIs(ctx, dyn, apiext, 0, caches, OptionalAPI{GVR: gvr})
	crd := o.CRDWatches()[0]
	go crd.Informer.Run(ctx.Done())
	waitUntil(t, "the CRD watch to see the CRD", crd.Established)

	if objs, err := o.List(gvr, "ns"); err != nil || len(objs) != 1 {
		t.Fatalf("List with the CRD established = %d objects, %v; want 1", len(objs), err)
	}
	if _, err := caches.Get(gvr.GroupResource(), "ns", "before"); err != nil {
		t.Errorf("the caches do not answer from the informer: %v", err)
	}

	// The CRD goes away: the informer stops, reads say NotFound, Installed names the CRD.
	if err := apiext.ApiextensionsV1().CustomResourceDefinitions().Delete(ctx, crdName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the CRD watch to see the deletion", func() bool { return !crd.Established() })
	if err := o.Installed(gvr); err == nil {
		t.Fatal("Installed without the CRD = nil, want the missing CRD")
	}
	api := o.apis[gvr]
	api.mu.Lock()
	stopped := api.informer == nil
	api.mu.Unlock()
	if !stopped {
		t.Error("the informer still runs after its CRD went away")
	}
	if _, err := caches.Get(gvr.GroupResource(), "ns", "before"); err == nil {
		t.Error("the caches still answer for an API whose CRD is gone")
	}

	// The CRD is back, with other objects: a new informer lists them.
	if err := dyn.Resource(gvr).Namespace("ns").Delete(ctx, "before", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := dyn.Resource(gvr).Namespace("ns").Create(ctx, monitor("after"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	established.ResourceVersion = ""
	if _, err := apiext.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, established, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the CRD watch to see the CRD again", crd.Established)
	objs, err := o.List(gvr, "ns")
	if err != nil || len(objs) != 1 {
		t.Fatalf("List after the CRD came back = %d objects, %v; want 1", len(objs), err)
	}
	if name := objs[0].(*unstructured.Unstructured).GetName(); name != "after" {
		t.Errorf("List after the CRD came back = %s, want the new object", name)
	}
	if _, err := caches.Get(gvr.GroupResource(), "ns", "after"); err != nil {
		t.Errorf("the caches do not answer from the new informer: %v", err)
	}
}

// A controller is triggered by, and waits for, the CRD watches of its own optional APIs only:
// another kind's may not be started.
func TestCRDWatchesOfAreTheGivenAPIs(t *testing.T) {
	gvr := func(resource string) schema.GroupVersionResource {
		return schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: resource}
	}
	o := NewOptionalAPIs(context.Background(), nil, apiextfake.NewSimpleClientset(), 0, NewCaches(),
		OptionalAPI{GVR: gvr("as")}, OptionalAPI{GVR: gvr("bs")}, OptionalAPI{GVR: gvr("cs")})
	for _, tc := range []struct {
		name string
		apis []OptionalAPI
		want []string
	}{
		{"none", nil, nil},
		{"one of three", []OptionalAPI{{GVR: gvr("bs")}}, []string{"bs.example.com"}},
		{"twice and an unregistered one", []OptionalAPI{{GVR: gvr("cs")}, {GVR: gvr("as")}, {GVR: gvr("cs"), Namespace: "ns"}, {GVR: gvr("zs")}},
			[]string{"as.example.com", "cs.example.com"}},
	} {
		var got []string
		for _, w := range o.CRDWatchesOf(tc.apis) {
			got = append(got, w.Name)
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: CRDWatchesOf = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// An optional API's informer lists and watches only what the operator uses: its labelled
// objects, every object (AllObjects), and of those the one of Name, by a field selector that
// the API server authorizes by that name, so RBAC can grant the list and watch with
// resourceNames (issue 33).
func TestOptionalAPISelectsItsObjects(t *testing.T) {
	gvr := schema.GroupVersionResource{Group: "config.openshift.io", Version: "v1", Resource: "apiservers"}
	for _, tc := range []struct {
		name                 string
		api                  OptionalAPI
		wantLabels, wantName string
	}{
		{"labelled objects", OptionalAPI{GVR: gvr}, ManagedBySelector(), ""},
		{"every object", OptionalAPI{GVR: gvr, AllObjects: true}, "", ""},
		{"the labelled object of a name", OptionalAPI{GVR: gvr, Namespace: "ns", Name: "lws-selfsigned-issuer"}, ManagedBySelector(), "metadata.name=lws-selfsigned-issuer"},
		{"the object of a name, labelled or not", OptionalAPI{GVR: gvr, Name: "cluster", AllObjects: true}, "", "metadata.name=cluster"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var lo metav1.ListOptions
			tc.api.selectObjects(&lo)
			if lo.LabelSelector != tc.wantLabels || lo.FieldSelector != tc.wantName {
				t.Errorf("list options: labels %q, fields %q; want %q, %q", lo.LabelSelector, lo.FieldSelector, tc.wantLabels, tc.wantName)
			}

			// The informer asks the API server with those options.
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			crd := &apiextensionsv1.CustomResourceDefinition{
				ObjectMeta: metav1.ObjectMeta{Name: CRDName(gvr)},
				Status: apiextensionsv1.CustomResourceDefinitionStatus{Conditions: []apiextensionsv1.CustomResourceDefinitionCondition{
					{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue},
				}},
			}
			dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{gvr: "APIServerList"})
			o := NewOptionalAPIs(ctx, dyn, apiextfake.NewSimpleClientset(crd), 0, NewCaches(), tc.api)
			watch := o.CRDWatches()[0]
			go watch.Informer.Run(ctx.Done())
			waitUntil(t, "the CRD watch to see the CRD", watch.Established)
			if _, err := o.List(gvr, tc.api.Namespace); err != nil {
				t.Fatal(err)
			}
			var lists int
			for _, a := range dyn.Actions() {
				list, ok := a.(clienttesting.ListAction)
				if !ok || a.GetResource() != gvr {
					continue
				}
				lists++
				r := list.GetListRestrictions()
				if r.Labels.String() != tc.wantLabels || r.Fields.String() != tc.wantName || a.GetNamespace() != tc.api.Namespace {
					t.Errorf("listed namespace %q with labels %q, fields %q; want %q, %q, %q", a.GetNamespace(), r.Labels, r.Fields, tc.api.Namespace, tc.wantLabels, tc.wantName)
				}
			}
			if lists == 0 {
				t.Error("the informer listed nothing")
			}
		})
	}
}

// Operands that use one API share an informer: it covers every namespace, and every object of a
// name, that one of them uses.
func TestMergeOptionalAPIs(t *testing.T) {
	gvr := schema.GroupVersionResource{Group: "cert-manager.io", Version: "v1", Resource: "issuers"}
	other := schema.GroupVersionResource{Group: "cert-manager.io", Version: "v1", Resource: "certificates"}
	for _, tc := range []struct {
		name string
		apis []OptionalAPI
		want []OptionalAPI
	}{
		{"one", []OptionalAPI{{GVR: gvr, Namespace: "ns", Name: "a"}}, []OptionalAPI{{GVR: gvr, Namespace: "ns", Name: "a"}}},
		{"the same twice", []OptionalAPI{{GVR: gvr, Namespace: "ns", Name: "a"}, {GVR: gvr, Namespace: "ns", Name: "a"}},
			[]OptionalAPI{{GVR: gvr, Namespace: "ns", Name: "a"}}},
		{"two names: every object", []OptionalAPI{{GVR: gvr, Namespace: "ns", Name: "a"}, {GVR: gvr, Namespace: "ns", Name: "b"}},
			[]OptionalAPI{{GVR: gvr, Namespace: "ns"}}},
		{"a name and every object: every object", []OptionalAPI{{GVR: gvr, Name: "a"}, {GVR: gvr}}, []OptionalAPI{{GVR: gvr}}},
		{"two namespaces: all of them", []OptionalAPI{{GVR: gvr, Namespace: "ns", Name: "a"}, {GVR: gvr, Namespace: "other", Name: "a"}},
			[]OptionalAPI{{GVR: gvr, Name: "a"}}},
		{"unlabelled wins", []OptionalAPI{{GVR: gvr}, {GVR: gvr, AllObjects: true}}, []OptionalAPI{{GVR: gvr, AllObjects: true}}},
		{"two APIs stay apart", []OptionalAPI{{GVR: gvr, Name: "a"}, {GVR: other}}, []OptionalAPI{{GVR: gvr, Name: "a"}, {GVR: other}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := mergeOptionalAPIs(tc.apis); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("mergeOptionalAPIs = %+v, want %+v", got, tc.want)
			}
		})
	}
}
