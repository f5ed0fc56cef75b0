package engine

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// LabelSelection is what a CR's discovery selects: the objects of one kind in one namespace whose
// labels match a selector (a Gateway's MCP servers, an Orchestrator's Agents and MCPs). The
// discovering CR lists them from an informer, and the informer's events queue the CRs that
// select the object before or after the event (SelectingKeys with QueueingHandler), so that
// adding, relabelling or removing one reaches them at once.
type LabelSelection struct {
	// Namespace is the namespace of the selected objects.
	Namespace string
	// Selector matches their labels.
	Selector labels.Selector
}

// NewLabelSelection is the selection of a discovery spec: namespace, or the CR's own when empty;
// selector, or every object of the namespace when nil (as upstream). A selector that does not
// parse is an error naming field.
func NewLabelSelection(crNamespace, namespace string, selector *metav1.LabelSelector, field string) (LabelSelection, error) {
	if namespace == "" {
		namespace = crNamespace
	}
	if selector == nil {
		return LabelSelection{Namespace: namespace, Selector: labels.Everything()}, nil
	}
	s, err := metav1.LabelSelectorAsSelector(selector)
	if err != nil {
		return LabelSelection{}, fmt.Errorf("%s: %w", field, err)
	}
	return LabelSelection{Namespace: namespace, Selector: s}, nil
}

// Matches says whether obj is selected.
func (s LabelSelection) Matches(obj metav1.Object) bool {
	return s.Selector != nil && obj.GetNamespace() == s.Namespace && s.Selector.Matches(labels.Set(obj.GetLabels()))
}

// SelectingKeys maps an event of a discoverable object (an informer's object or tombstone) to the
// queue keys of the CRs whose selections match it: list lists the CRs, selections returns a CR's
// selections of that kind (none while its discovery is off or its selector does not parse).
// Pass it to QueueingHandler, which looks at the object before and after an update.
func SelectingKeys[CR metav1.Object](list func() ([]CR, error), selections func(CR) []LabelSelection) func(obj any) []string {
	return func(obj any) []string {
		_, m, ok := ObjectOf(obj)
		if !ok {
			return nil
		}
		crs, err := list()
		if err != nil {
			return nil
		}
		var keys []string
		for _, cr := range crs {
			for _, s := range selections(cr) {
				if s.Matches(m) {
					keys = append(keys, cr.GetNamespace()+"/"+cr.GetName())
					break
				}
			}
		}
		return keys
	}
}
