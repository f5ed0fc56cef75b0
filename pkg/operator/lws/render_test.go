package lws

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/llm-infra/llm-infra-operator/bindata"
)

func TestRenderEveryAsset(t *testing.T) {
	owner := &metav1.OwnerReference{APIVersion: "operator.openshift.io/v1", Kind: "LeaderWorkerSetOperator", Name: "cluster", UID: "uid-1"}
	r := renderer{namespace: "my-ns", image: "example.com/lws:1", owner: owner}
	for _, asset := range allAssets() {
		t.Run(asset, func(t *testing.T) {
			raw, err := r.substitute(asset)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(raw), bindata.NamespacePlaceholder) || strings.Contains(string(raw), bindata.OperandImagePlaceholder) {
				t.Error("placeholders left after substitution")
			}
			obj, err := r.object(asset)
			if err != nil {
				t.Fatal(err)
			}
			if obj.GetLabels()[ManagedByLabel] != ManagedByValue || obj.GetLabels()[PartOfLabel] != PartOfValue {
				t.Errorf("labels = %v", obj.GetLabels())
			}
			if ns := obj.GetNamespace(); ns != "" && ns != "my-ns" {
				t.Errorf("namespace = %q", ns)
			}
			refs := obj.GetOwnerReferences()
			if obj.GetName() == lwsCRDName {
				if len(refs) != 0 {
					t.Errorf("the CRD must carry no owner reference: %v", refs)
				}
				return
			}
			if len(refs) != 1 || refs[0].UID != owner.UID {
				t.Errorf("owner references = %v", refs)
			}
		})
	}
}

func TestRenderSetsTheImage(t *testing.T) {
	d := renderedDeployment(t)
	if got := managerContainerOf(d).Image; got != testImage {
		t.Errorf("image = %q, want %q", got, testImage)
	}
}

func TestRenderKeepsDollarSignsOfTheCRD(t *testing.T) {
	// The CRD's descriptions contain "$(VAR_NAME)"; only the two placeholders are replaced.
	raw, err := renderer{namespace: "ns", image: "img"}.substitute(bindata.LWSCRD)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), "$(") {
		t.Error("substitution must not touch other $ expressions")
	}
}

func TestRenderUnknownAsset(t *testing.T) {
	if _, err := (renderer{}).object("assets/lws/missing.yaml"); err == nil {
		t.Error("expected an error for a missing asset")
	}
}
