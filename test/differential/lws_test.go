package differential

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// TestUpstreamRendersLWS: upstream's reconciler, as lws-render drives it, applies one object of
// every manifest of its bindata for the minimal LeaderWorkerSetOperator (Managed), in the
// namespace it is given, and writes Available and Degraded; for Removed it renders nothing. It
// also builds lws-render ahead of the differential test (hack/prebuild.sh).
func TestUpstreamRendersLWS(t *testing.T) {
	const namespace, image = "lws-ns", "example.com/lws:1"
	upstream := StartLWSUpstream(t, namespace, image)
	cr := func(state string) map[string]interface{} {
		return map[string]interface{}{
			"apiVersion": "operator.openshift.io/v1", "kind": "LeaderWorkerSetOperator",
			"metadata": map[string]interface{}{"name": "cluster", "uid": "00000000-0000-0000-0000-000000000001", "generation": int64(1)},
			"spec":     map[string]interface{}{"managementState": state},
		}
	}
	objects, status, err := upstream.Render(cr("Managed"))
	if err != nil {
		t.Fatal(err)
	}
	var want, got []string
	assets, err := filepath.Glob(filepath.Join(lwsModuleDir(), "bindata", "assets", "*", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range assets {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(data, &u.Object); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		// lws-controller-config/config.yaml is the controller's Configuration: the ConfigMap's
		// data, not an object.
		if filepath.Base(filepath.Dir(path)) != "lws-controller-config" {
			want = append(want, u.GetKind()+"/"+u.GetName())
		}
	}
	for _, o := range objects {
		u := &unstructured.Unstructured{Object: o}
		got = append(got, u.GetKind()+"/"+u.GetName())
		if ns := u.GetNamespace(); ns != "" && ns != namespace {
			t.Errorf("%s/%s in namespace %q, want %q", u.GetKind(), u.GetName(), ns, namespace)
		}
		if u.GetKind() == "Deployment" {
			containers, _, _ := unstructured.NestedSlice(o, "spec", "template", "spec", "containers")
			if len(containers) == 0 || containers[0].(map[string]interface{})["image"] != image {
				t.Errorf("Deployment's containers: %v, want the image %s", containers, image)
			}
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("objects:\n got %v\nwant %v", got, want)
	}
	conditions, _, _ := unstructured.NestedSlice(status, "conditions")
	var types []string
	for _, c := range conditions {
		types = append(types, c.(map[string]interface{})["type"].(string))
	}
	slices.Sort(types)
	if !slices.Equal(types, []string{"Available", "Degraded"}) {
		t.Errorf("status conditions %v, want Available and Degraded", types)
	}

	objects, _, err = upstream.Render(cr("Removed"))
	if err != nil || len(objects) != 0 {
		t.Errorf("Removed: %d objects, error %v; want none (upstream's reconciler returns unless Managed)", len(objects), err)
	}
}
