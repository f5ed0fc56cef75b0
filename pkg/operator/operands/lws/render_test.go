package lws

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/llm-infra/llm-infra-operator/bindata"
	lwsoperatorv1 "github.com/llm-infra/llm-infra-operator/pkg/apis/operator/v1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// operandRenderer is the renderer a sync of the CR "cluster" (UID uid-1) uses.
func operandRenderer() engine.Renderer {
	op := &Operand{namespace: "my-ns", image: "example.com/lws:1"}
	cr := &lwsoperatorv1.LeaderWorkerSetOperator{ObjectMeta: metav1.ObjectMeta{Name: "cluster", UID: "uid-1"}}
	return op.newRun(cr).render
}

func TestRenderEveryAsset(t *testing.T) {
	r := operandRenderer()
	for _, asset := range Assets() {
		t.Run(asset, func(t *testing.T) {
			obj, err := r.Object(asset)
			if err != nil {
				t.Fatal(err)
			}
			raw, err := obj.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(raw), bindata.NamespacePlaceholder) || strings.Contains(string(raw), bindata.OperandImagePlaceholder) {
				t.Error("placeholders left after substitution")
			}
			if obj.GetLabels()[engine.ManagedByLabel] != engine.ManagedByValue || obj.GetLabels()[engine.PartOfLabel] != PartOfValue {
				t.Errorf("labels = %v", obj.GetLabels())
			}
			if ns := obj.GetNamespace(); ns != "" && ns != "my-ns" {
				t.Errorf("namespace = %q", ns)
			}
			refs := obj.GetOwnerReferences()
			if keptCRDs[obj.GetName()] {
				if len(refs) != 0 {
					t.Errorf("the CRD must carry no owner reference: %v", refs)
				}
				return
			}
			if len(refs) != 1 || refs[0].UID != "uid-1" || refs[0].Kind != "LeaderWorkerSetOperator" {
				t.Errorf("owner references = %v", refs)
			}
		})
	}
}

func TestRenderSetsTheImage(t *testing.T) {
	d := renderedDeployment(t)
	if got := engine.ContainerOf(d, managerContainer).Image; got != testImage {
		t.Errorf("image = %q, want %q", got, testImage)
	}
}

func TestRenderKeepsDollarSignsOfTheCRD(t *testing.T) {
	// The CRD's descriptions contain "$(VAR_NAME)"; only the two placeholders are replaced.
	obj, err := operandRenderer().Object(bindata.LWSCRD)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := obj.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), "$(") {
		t.Error("substitution must not touch other $ expressions")
	}
}
