package engine

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	"github.com/openshift/library-go/pkg/controller/factory"
)

// DropManagedFields is an informer transform that removes managedFields before an object is
// cached: the operator never reads them, and they are often the largest part of an object's
// metadata. An update sent from a cached copy without them leaves the server's managedFields
// as they are.
func DropManagedFields(obj any) (any, error) {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		return tombstone, nil
	}
	if m, ok := obj.(metav1.Object); ok {
		m.SetManagedFields(nil)
	}
	return obj, nil
}

// DropPodTemplate is the transform of the Deployment informer the namespaced kinds share (the
// managed-by one): DropManagedFields, and the pod template (spec.template, its metadata and
// its pod spec) is removed, most of a Deployment's size, but for one annotation. library-go's
// ApplyDeployment decides whether to write from the metadata (the spec hash annotation) and
// the generation alone, and when it writes it replaces the whole spec with the required one,
// so a cached copy's missing template is never sent. The one part of the template read is
// RestartedAtAnnotation, which the apply carries over so a `kubectl rollout restart` stays
// (applyDeploymentKeepingRestart): it is kept. The status code reads the generation,
// spec.replicas, spec.strategy and status, which stay, as does every other field of the spec.
// Other objects pass unchanged.
func DropPodTemplate(obj any) (any, error) {
	obj, err := DropManagedFields(obj)
	if d, ok := obj.(*appsv1.Deployment); ok {
		restartedAt, restarted := d.Spec.Template.Annotations[RestartedAtAnnotation]
		d.Spec.Template = corev1.PodTemplateSpec{}
		if restarted {
			d.Spec.Template.Annotations = map[string]string{RestartedAtAnnotation: restartedAt}
		}
	}
	return obj, err
}

// DropCRDSchemas is the transform of the optional APIs' CRD watches, which are read for the
// Established condition alone: DropManagedFields, and the versions' schemas and printer columns
// and the annotations are removed. Those are most of a CRD's size (a Gateway API or Prometheus
// operator CRD holds hundreds of KiB of schema, and once more in kubectl's last-applied
// annotation when it was applied client-side); bench-anchors' heap profile before any CR found
// 1.5-3.5 MiB of cached CRDs. The watch of a CRD the operator applies (the LeaderWorkerSet
// CRD) keeps it whole: resourceapply compares the required CRD with it.
func DropCRDSchemas(obj any) (any, error) {
	obj, err := DropManagedFields(obj)
	if crd, ok := obj.(*apiextensionsv1.CustomResourceDefinition); ok {
		crd.Annotations = nil
		for i := range crd.Spec.Versions {
			crd.Spec.Versions[i].Schema = nil
			crd.Spec.Versions[i].AdditionalPrinterColumns = nil
		}
	}
	return obj, err
}

// managedTransform is the transform of a managed-by informer of a group-resource: DropPodTemplate
// for Deployments, DropManagedFields for every other kind.
func managedTransform(gr schema.GroupResource) cache.TransformFunc {
	if gr == Deployments {
		return DropPodTemplate
	}
	return DropManagedFields
}

// Informed is an informer of one group-resource an operand applies.
type Informed struct {
	GroupResource schema.GroupResource
	Informer      cache.SharedIndexInformer
	// Transform is the informer's transform; nil is DropManagedFields. An informer shared by
	// several operands must get the same transform from each: the last one set is the one used.
	Transform cache.TransformFunc
}

// RegisterInformers gives each informer its transform (DropManagedFields unless it names
// another), registers it in the caches (the engine's reads come from there) and returns them
// all, for the operand's controller to be triggered by their events: through listeners (one
// listener per informer). Call it before the informers start.
func RegisterInformers(caches *Caches, listeners *Listeners, informed ...Informed) []factory.Informer {
	watched := make([]factory.Informer, 0, len(informed))
	for _, i := range informed {
		transform := i.Transform
		if transform == nil {
			transform = DropManagedFields
		}
		_ = i.Informer.SetTransform(transform)
		caches.AddInformer(i.GroupResource, i.Informer)
		watched = append(watched, listeners.For(i.Informer))
	}
	return watched
}
