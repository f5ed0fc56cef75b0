package enginetest

import (
	"fmt"
	"strings"

	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// WellFormed checks what the API server checks of any rendered object's identity and metadata,
// without a cluster (test/reliability/dryrun sends the objects to a real one): apiVersion and
// kind set, the name valid for the kind (a Service's a DNS label, others' a DNS subdomain), the
// namespace (namespace, or none for cluster-scoped kinds given ""), the labels and annotations
// of the object and of a pod template valid. Fuzz tests run it on what renders from a CR whose
// name the CRD admits.
func WellFormed(obj runtime.Object, namespace string) error {
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return err
	}
	u := &unstructured.Unstructured{Object: content}
	what := fmt.Sprintf("%s %s", u.GetKind(), u.GetName())
	if u.GetAPIVersion() == "" || u.GetKind() == "" {
		return fmt.Errorf("%s: no apiVersion or kind", what)
	}
	if u.GetNamespace() != namespace {
		return fmt.Errorf("%s: namespace %q, want %q", what, u.GetNamespace(), namespace)
	}
	nameRule := apimachineryvalidation.NameIsDNSSubdomain
	if u.GetKind() == "Service" {
		// A DNS label: since Kubernetes 1.34 (RelaxedServiceNameValidation) a Service's name
		// may start with a digit, and the API servers this operator supports (1.36, the local
		// cluster's, where test/reliability/dryrun admits "0gw-service") allow it. Older ones
		// asked for a DNS-1035 label.
		nameRule = apimachineryvalidation.NameIsDNSLabel
	}
	errs := apimachineryvalidation.ValidateObjectMetaAccessor(u, namespace != "", nameRule, field.NewPath("metadata"))
	if template, ok, _ := unstructured.NestedMap(content, "spec", "template", "metadata"); ok {
		var meta metav1.ObjectMeta
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(template, &meta); err != nil {
			return err
		}
		path := field.NewPath("spec", "template", "metadata")
		errs = append(errs, metav1validation.ValidateLabels(meta.Labels, path.Child("labels"))...)
		errs = append(errs, apimachineryvalidation.ValidateAnnotations(meta.Annotations, path.Child("annotations"))...)
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s: %v", what, errs.ToAggregate())
	}
	return nil
}

// AdmittedName says whether the CRDs of the operands admit a CR of that name: an object name (a
// DNS subdomain) of at most max characters without dots (their CEL rules on metadata.name).
func AdmittedName(name string, max int) bool {
	return len(apimachineryvalidation.NameIsDNSSubdomain(name, false)) == 0 && len(name) <= max && !strings.Contains(name, ".")
}
