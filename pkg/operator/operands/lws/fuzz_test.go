package lws

import (
	"encoding/json"
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	lwsoperatorv1 "github.com/llm-infra/llm-infra-operator/pkg/apis/operator/v1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// FuzzRender renders LeaderWorkerSetOperator specs built from fuzz input (seeded with every
// field set): rendering never panics, the same input renders the same objects, every object
// has a kind, a name and the operator's label, and the Deployment takes nodePlacement as given.
func FuzzRender(f *testing.F) {
	for _, spec := range []string{
		`{"managementState":"Managed"}`,
		`{"managementState":"Managed","logLevel":"TraceAll","nodePlacement":{"nodeSelector":{"node-role.kubernetes.io/infra":""},"tolerations":[{"key":"a","operator":"Exists","effect":"NoSchedule"}]}}`,
		`{"managementState":"Removed","nodePlacement":{"tolerations":[]}}`,
		`{"managementState":"Managed","networkPolicy":{"enabled":true,"monitoringNamespace":"monitoring"}}`,
	} {
		f.Add([]byte(spec), "my-ns")
	}
	f.Fuzz(func(t *testing.T, specJSON []byte, namespace string) {
		var spec lwsoperatorv1.LeaderWorkerSetOperatorSpec
		if err := json.Unmarshal(specJSON, &spec); err != nil {
			return
		}
		cr := &lwsoperatorv1.LeaderWorkerSetOperator{ObjectMeta: metav1.ObjectMeta{Name: lwsoperatorv1.SingletonName, UID: "uid"}, Spec: spec}
		first, err1 := Render(cr, namespace, testImage)
		second, err2 := Render(cr.DeepCopy(), namespace, testImage)
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("errors differ: %v, %v", err1, err2)
		}
		if err1 != nil {
			return
		}
		if !reflect.DeepEqual(first, second) {
			t.Fatal("the same CR renders different objects")
		}
		want := len(Assets()) + 1 // and the ConfigMap
		if !spec.NetworkPolicyEnabled() {
			want--
		}
		if len(first) != want {
			t.Fatalf("%d objects for %d assets, the ConfigMap and spec.networkPolicy %+v", len(first), len(Assets()), spec.NetworkPolicy)
		}
		for _, obj := range first {
			u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
			if err != nil {
				t.Fatal(err)
			}
			m := &unstructured.Unstructured{Object: u}
			if m.GetKind() == "" || m.GetAPIVersion() == "" || m.GetName() == "" || !engine.IsManaged(m.GetLabels()) {
				t.Fatalf("malformed object: %s %s %s labels %v", m.GetAPIVersion(), m.GetKind(), m.GetName(), m.GetLabels())
			}
		}
		var d *appsv1.Deployment
		for _, obj := range first {
			if dep, ok := obj.(*appsv1.Deployment); ok {
				d = dep
			}
		}
		if d == nil {
			t.Fatal("no Deployment")
		}
		if p := spec.NodePlacement; p != nil && p.Tolerations != nil && !reflect.DeepEqual(d.Spec.Template.Spec.Tolerations, p.Tolerations) {
			t.Fatalf("tolerations %v, want %v", d.Spec.Template.Spec.Tolerations, p.Tolerations)
		}
	})
}
