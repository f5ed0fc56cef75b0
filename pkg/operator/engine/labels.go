// Package engine is what every operand of llm-infra-operator shares: a table of named steps
// walked forwards to apply an operand and backwards to remove it, step outcomes that become
// conditions in one place, rendering of embedded manifests, applying through library-go's
// resourceapply with reads answered by informer caches, optional APIs whose informers start when
// their CRDs appear, Deployment hooks and cert-manager helpers. Operands (package
// pkg/operator/operands/...) supply their tables, names, CR loading and status writing.
package engine

import (
	"k8s.io/apimachinery/pkg/labels"
)

const (
	// ManagedByLabel marks every object the operator creates. Informers select on it, so their
	// memory does not grow with objects the operator does not manage, and removal deletes only
	// objects that carry it.
	ManagedByLabel = "app.kubernetes.io/managed-by"
	// ManagedByValue is ManagedByLabel's value.
	ManagedByValue = "llm-infra-operator"
	// PartOfLabel groups an operand's objects for administrators (`kubectl get -l`).
	PartOfLabel = "app.kubernetes.io/part-of"

	// ConfigHashAnnotationPrefix prefixes pod-template annotations that carry a hash of the data
	// of each mounted ConfigMap and Secret: a change of data rolls the pods, a change of
	// metadata does not.
	ConfigHashAnnotationPrefix = "operator.llm-infra.io/hash-"
)

// ManagedBySelector selects the objects the operator manages.
func ManagedBySelector() string {
	return labels.SelectorFromSet(labels.Set{ManagedByLabel: ManagedByValue}).String()
}

// IsManaged says whether an object carries the operator's managed-by label.
func IsManaged(objLabels map[string]string) bool {
	return objLabels[ManagedByLabel] == ManagedByValue
}
