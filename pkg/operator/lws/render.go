package lws

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/llm-infra/llm-infra-operator/bindata"
)

// renderer turns an embedded manifest into the object the operator applies: placeholders
// substituted, the operator's labels set and, on everything but the CRD, an owner reference to
// the LeaderWorkerSetOperator.
type renderer struct {
	namespace string
	image     string
	// owner is the LeaderWorkerSetOperator; nil renders without an owner reference (tests).
	owner *metav1.OwnerReference
}

// substitute replaces the placeholders in an embedded manifest.
func (r renderer) substitute(asset string) ([]byte, error) {
	raw, err := bindata.Asset(asset)
	if err != nil {
		return nil, err
	}
	replacer := strings.NewReplacer(bindata.NamespacePlaceholder, r.namespace, bindata.OperandImagePlaceholder, r.image)
	return []byte(replacer.Replace(string(raw))), nil
}

// object renders an embedded manifest into an unstructured object.
func (r renderer) object(asset string) (*unstructured.Unstructured, error) {
	raw, err := r.substitute(asset)
	if err != nil {
		return nil, err
	}
	jsonBytes, err := yaml.YAMLToJSON(raw)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", asset, err)
	}
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(jsonBytes); err != nil {
		return nil, fmt.Errorf("decode %s: %w", asset, err)
	}
	r.stamp(obj)
	return obj, nil
}

// stamp sets the operator's labels and owner reference on an object it manages.
func (r renderer) stamp(obj metav1.Object) {
	labels := obj.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[ManagedByLabel] = ManagedByValue
	labels[PartOfLabel] = PartOfValue
	obj.SetLabels(labels)

	// The CRD never gets an owner reference: garbage collection of the CRD after the CR is
	// deleted would delete every user's LeaderWorkerSet with it.
	if r.owner == nil || obj.GetName() == lwsCRDName {
		return
	}
	obj.SetOwnerReferences([]metav1.OwnerReference{*r.owner})
}

// renderTyped renders an embedded manifest into its typed form, for steps that change the
// object before applying it.
func renderTyped[T any](r renderer, asset string) (*T, error) {
	obj, err := r.object(asset)
	if err != nil {
		return nil, err
	}
	return fromUnstructured[T](obj)
}
