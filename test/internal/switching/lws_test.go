package switching

import (
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The testdata both suites put on the cluster: 24 objects, the three CRDs first (they define
// kinds of the rest), and the controller's Deployment with the image the real-pod agent's image
// table maps by repository (registry.k8s.io/lws/lws).
func TestReadObjectsLWSOperator(t *testing.T) {
	objs, err := ReadObjects(filepath.Join("..", "..", "..", LWSOperatorTestdata, "objects.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 24 {
		t.Errorf("%d objects, want 24 (docs/switching.md)", len(objs))
	}
	for i, name := range LWSCRDs {
		if i >= len(objs) || objs[i].GetKind() != "CustomResourceDefinition" {
			t.Fatalf("object %d is not a CRD: the CRDs are not first", i)
		}
		found := false
		for _, o := range objs[:len(LWSCRDs)] {
			found = found || o.GetName() == name
		}
		if !found {
			t.Errorf("CRD %s not among the first %d objects", name, len(LWSCRDs))
		}
	}
	var images []string
	for _, o := range objs {
		if o.GetKind() == "Deployment" && o.GetName() == LWSControllerName && o.GetNamespace() == LWSUpstreamNamespace {
			containers, _, _ := unstructured.NestedSlice(o.Object, "spec", "template", "spec", "containers")
			for _, c := range containers {
				images = append(images, c.(map[string]any)["image"].(string))
			}
		}
	}
	if len(images) != 1 || images[0] != "registry.k8s.io/lws/lws:main" {
		t.Errorf("the controller's images: %v, want [registry.k8s.io/lws/lws:main]", images)
	}
}

func TestOwnedBy(t *testing.T) {
	objs, err := ReadObjects(filepath.Join("..", "..", "..", LWSOperatorTestdata, "objects.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		OwnedBy(o, "uid-1")
		refs := o.GetOwnerReferences()
		if len(refs) != 1 || refs[0].UID != "uid-1" || refs[0].Kind != "LeaderWorkerSetOperator" {
			t.Errorf("%s %s: owner references %v", o.GetKind(), o.GetName(), refs)
		}
	}
}
