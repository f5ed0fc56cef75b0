package engine

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/cache"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"
	"github.com/openshift/library-go/pkg/operator/resource/resourcemerge"

	apiextscheme "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/scheme"
)

// typedScheme knows every built-in kind the engine applies through a typed resourceapply
// function; anything else is an optional API's custom resource, applied unstructured.
var typedScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, apiextscheme.AddToScheme} {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	return s
}()

// Applier applies rendered objects with library-go's resourceapply and deletes objects the
// operator owns. Its reads go through the caches, and resourceapply compares what it renders
// with what they hold, so a sync with nothing to change sends no request.
type Applier struct {
	Clients *CachedClients
	// Cache is shared by every sync of an operand: resourceapply skips an object whose
	// required form and live resourceVersion are unchanged since it last applied it. Only the
	// applies that need it use it: the unstructured apply (optional APIs, HPAs, Ingresses),
	// whose comparison of a spec the API server defaults would otherwise write every time, and
	// the webhook configurations (their webhooks are compared with the fields the server defaults).
	Cache    resourceapply.ResourceCache
	Recorder events.Recorder
	// Adopt says whether an existing object of a rendered name may be taken over. Nil adopts
	// everything (an operand whose objects live in the operator's own namespace); namespaced
	// operands accept only objects they made, so that a name clash never overwrites someone
	// else's object.
	Adopt func(existing metav1.Object) bool
	// TrackAnnotations records on each object the annotations the operator set on it, so that
	// one taken out of the rendered object is removed (see RemoveDroppedAnnotations). The
	// namespaced operands render annotations from their CRs' specs; LWS renders fixed ones.
	TrackAnnotations bool
}

// AppliedAnnotationsKey records on an object the keys of the annotations the operator set on
// it, comma-separated.
const AppliedAnnotationsKey = "operator.llm-infra.io/applied-annotations"

// RemoveDroppedAnnotations records which annotations the rendered object m sets, and marks for
// removal those the live object (as cached) got from an earlier apply but m no longer has.
// library-go's apply merges the required annotations into the live ones, so an annotation
// taken out of a CR's spec would otherwise stay forever; a key with a "-" suffix is its way to
// remove one. Annotations someone else set are never in the record, so they stay.
func RemoveDroppedAnnotations(caches *Caches, m metav1.Object, gr schema.GroupResource) {
	required := map[string]string{}
	var keys []string
	for k, v := range m.GetAnnotations() {
		if k == AppliedAnnotationsKey {
			continue
		}
		required[k] = v
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(keys) > 0 {
		required[AppliedAnnotationsKey] = strings.Join(keys, ",")
	}
	if live, err := caches.GetMeta(gr, m.GetNamespace(), m.GetName()); err == nil {
		recorded, ok := live.GetAnnotations()[AppliedAnnotationsKey]
		for _, k := range strings.Split(recorded, ",") {
			if _, wanted := required[k]; k != "" && !wanted {
				required[k+"-"] = ""
			}
		}
		if ok && len(keys) == 0 {
			required[AppliedAnnotationsKey+"-"] = ""
		}
	}
	if len(required) == 0 {
		required = nil
	}
	m.SetAnnotations(required)
}

// trackAnnotations applies RemoveDroppedAnnotations when the Applier tracks annotations.
func (a Applier) trackAnnotations(obj runtime.Object) error {
	if !a.TrackAnnotations {
		return nil
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return err
	}
	gvr, err := ResourceFor(KindOf(obj))
	if err != nil {
		return err
	}
	RemoveDroppedAnnotations(a.Clients.Caches, m, gvr.GroupResource())
	return nil
}

// WithRecorder returns a copy that reports events to recorder (the CR being synced, say).
func (a Applier) WithRecorder(recorder events.Recorder) Applier {
	a.Recorder = recorder
	return a
}

// Apply applies one rendered object: built-in kinds through their typed resourceapply function,
// custom resources of optional APIs through the unstructured apply. Deployments need a
// generation: use ApplyDeployment.
func (a Applier) Apply(ctx context.Context, obj runtime.Object) error {
	typed, err := asTyped(obj)
	if err != nil {
		return err
	}
	if err := a.trackAnnotations(typed); err != nil {
		return err
	}
	if err := a.recreateFailedCertificate(ctx, typed); err != nil {
		return err
	}
	_, err = a.applyAdopting(ctx, typed, func(a Applier) (bool, error) { return a.apply(ctx, typed) })
	var se *StepError
	if err != nil && !errors.As(err, &se) {
		return fmt.Errorf("apply %s: %w", describe(typed), err)
	}
	return err
}

// applyAdopting runs one apply (write, a resourceapply call through the Applier it is given)
// under the adoption rules, reading from the API only when it must. An object the caches hold
// is checked against Adopt and applied. One they lack is created without a read: their
// informers listed before the first sync and hold every object the operator labelled, so a
// miss is almost always an object that does not exist (one read per created object otherwise,
// thousands at scale). When the create finds the name taken (someone else's object, or ours
// that the informer has not delivered yet), the object is read, checked against Adopt (an
// object the operator may not take over is never written) and applied over, that read
// answering resourceapply's own. It counts the write it made.
func (a Applier) applyAdopting(ctx context.Context, obj runtime.Object, write func(Applier) (bool, error)) (bool, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return false, err
	}
	gvr, err := ResourceFor(KindOf(obj))
	if err != nil {
		return false, err
	}
	gr, namespace, name := gvr.GroupResource(), m.GetNamespace(), m.GetName()
	cached, err := a.Clients.Caches.GetMeta(gr, namespace, name)
	switch {
	case err == nil:
		if err := a.checkAdoptable(obj, cached); err != nil {
			return false, err
		}
		return a.countedWrite(ctx, gr, &applyReads{}, write)
	case meta.IsNoMatchError(err):
		return a.countedWrite(ctx, gr, &applyReads{}, write)
	case !apierrors.IsNotFound(err):
		return false, fmt.Errorf("get %s: %w", describe(obj), err)
	}

	first := a
	var held *warningHold
	if a.Recorder != nil {
		held = holdWarnings(a.Recorder)
		first.Recorder = held
	}
	ref := objectRef{gr: gr, namespace: namespace, name: name}
	modified, err := first.countedWrite(ctx, gr, &applyReads{absent: &ref}, write)
	if !apierrors.IsAlreadyExists(err) {
		held.flush()
		return modified, err
	}
	held.drop()
	// The create's failure is this function's business, not an event on the CR.
	live, err := a.Clients.Dynamic.Resource(gvr).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return false, fmt.Errorf("get %s: %w", describe(obj), err)
	}
	if err := a.checkAdoptable(obj, live); err != nil {
		return false, err
	}
	known, err := inFormOf(obj, live)
	if err != nil {
		return false, err
	}
	return a.countedWrite(ctx, gr, &applyReads{known: &knownObject{objectRef: ref, obj: known}}, write)
}

// countedWrite runs one write of an object, its clients' reads going through reads, and counts
// it (llm_infra_operator_writes_total): create or update after what resourceapply's read found.
func (a Applier) countedWrite(ctx context.Context, gr schema.GroupResource, reads *applyReads, write func(Applier) (bool, error)) (bool, error) {
	a.Clients = a.Clients.withReads(reads)
	modified, err := write(a)
	if err == nil && modified {
		countWrite(ctx, gr.String(), reads.writeVerb())
	}
	return modified, err
}

// inFormOf converts live (as the dynamic client read it) into the form of required: typed for
// a built-in kind, so that the typed clients' reads can answer with it.
func inFormOf(required runtime.Object, live *unstructured.Unstructured) (runtime.Object, error) {
	if _, ok := required.(*unstructured.Unstructured); ok {
		return live, nil
	}
	live.SetGroupVersionKind(KindOf(required))
	return asTyped(live)
}

// apply applies one object with resourceapply and says whether it wrote it.
func (a Applier) apply(ctx context.Context, obj runtime.Object) (modified bool, err error) {
	c, rec, cache := a.Clients, LogNormalEvents(a.Recorder), a.Cache
	switch t := obj.(type) {
	// The core kinds go through resourceapply's functions without a resource cache: they compare
	// the required object with the live one field by field (the live one from the informers'
	// caches, so no request), while the cache hashes the whole required object with
	// fmt.Sprintf("%v") once or twice on every apply; that hashing was 6.6% of the operator's
	// CPU in bench-anchors' gateway-500 profile, more than the comparison it skips.
	case *corev1.ServiceAccount:
		_, modified, err = resourceapply.ApplyServiceAccount(ctx, c, rec, t)
	case *corev1.ConfigMap:
		_, modified, err = resourceapply.ApplyConfigMap(ctx, c, rec, t)
	case *corev1.Service:
		_, modified, err = resourceapply.ApplyService(ctx, c, rec, t)
	case *corev1.Secret:
		_, modified, err = resourceapply.ApplySecret(ctx, c, rec, t)
	case *rbacv1.ClusterRole:
		_, modified, err = resourceapply.ApplyClusterRole(ctx, c, rec, t)
	case *rbacv1.ClusterRoleBinding:
		_, modified, err = resourceapply.ApplyClusterRoleBinding(ctx, c, rec, t)
	case *rbacv1.Role:
		_, modified, err = resourceapply.ApplyRole(ctx, c, rec, t)
	case *rbacv1.RoleBinding:
		_, modified, err = resourceapply.ApplyRoleBinding(ctx, c, rec, t)
	case *admissionregistrationv1.MutatingWebhookConfiguration:
		_, modified, err = resourceapply.ApplyMutatingWebhookConfigurationImproved(ctx, c, rec, t, cache)
	case *admissionregistrationv1.ValidatingWebhookConfiguration:
		_, modified, err = resourceapply.ApplyValidatingWebhookConfigurationImproved(ctx, c, rec, t, cache)
	case *apiextensionsv1.CustomResourceDefinition:
		_, modified, err = resourceapply.ApplyCustomResourceDefinitionV1(ctx, c, rec, t)
	case *unstructured.Unstructured:
		var gvr schema.GroupVersionResource
		if gvr, err = ResourceFor(t.GroupVersionKind()); err == nil {
			_, modified, err = resourceapply.ApplyUnstructuredResourceImproved(ctx, c.DynamicClient(), rec, t, cache, gvr, nil, nil)
		}
	case *autoscalingv2.HorizontalPodAutoscaler, *networkingv1.Ingress, *policyv1.PodDisruptionBudget, *networkingv1.NetworkPolicy:
		// resourceapply has no typed function for the first two, and its PodDisruptionBudget
		// and NetworkPolicy functions read through clients the cached clients do not have; its unstructured apply compares the
		// spec, and its resource cache skips an object unchanged since the last apply.
		modified, err = a.applyAsUnstructured(ctx, obj)
	default:
		err = fmt.Errorf("the engine has no apply function for %T", obj)
	}
	return modified, err
}

// applyAsUnstructured applies a typed object of a kind resourceapply has no typed function for
// through its unstructured apply.
func (a Applier) applyAsUnstructured(ctx context.Context, obj runtime.Object) (bool, error) {
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return false, err
	}
	u := &unstructured.Unstructured{Object: content}
	gvk := KindOf(obj)
	u.SetGroupVersionKind(gvk)
	unstructured.RemoveNestedField(u.Object, "status")
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	gvr, err := ResourceFor(gvk)
	if err != nil {
		return false, err
	}
	_, modified, err := resourceapply.ApplyUnstructuredResourceImproved(ctx, a.Clients.DynamicClient(), LogNormalEvents(a.Recorder), u, a.Cache, gvr, nil, nil)
	return modified, err
}

// ApplyDeployment applies a Deployment with the generation the operator last wrote (recorded
// in the CR's status), so a manual edit of its spec (replicas, image) is reverted. It returns
// the Deployment as applied; record its generation with resourcemerge.SetDeploymentGeneration.
func (a Applier) ApplyDeployment(ctx context.Context, required *appsv1.Deployment, generations []operatorv1.GenerationStatus) (*appsv1.Deployment, error) {
	return a.applyDeployment(ctx, required, resourcemerge.ExpectedDeploymentGeneration(required, generations))
}

// applyDeployment applies a Deployment unless it has the generation expected and its
// metadata is as required.
func (a Applier) applyDeployment(ctx context.Context, required *appsv1.Deployment, expected int64) (*appsv1.Deployment, error) {
	if err := a.trackAnnotations(required); err != nil {
		return nil, err
	}
	var actual *appsv1.Deployment
	_, err := a.applyAdopting(ctx, required, func(a Applier) (bool, error) {
		var modified bool
		var err error
		actual, modified, err = a.applyDeploymentKeepingRestart(ctx, required, expected)
		return modified, err
	})
	var se *StepError
	if errors.As(err, &se) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("apply Deployment %s: %w", cache.NewObjectName(required.Namespace, required.Name).String(), err)
	}
	return actual, nil
}

// RestartedAtAnnotation is the pod-template annotation `kubectl rollout restart` sets to the
// time of the restart; a new value is what rolls the pods.
const RestartedAtAnnotation = "kubectl.kubernetes.io/restartedAt"

// applyDeploymentKeepingRestart is resourceapply.ApplyDeployment that keeps a user's
// `kubectl rollout restart`. resourceapply replaces the whole spec with the rendered one when
// the generation is not the one the operator wrote, and a restart bumps the generation: without
// the live template's restartedAt the operator would write the old template back and roll the
// pods a second time, undoing the restart. So when the rendered template does not set the
// annotation, the live template's value is carried into what is applied (the live Deployment
// read through the apply's own clients: the caches, which keep that one annotation of the
// template (DropPodTemplate), or the object a create that found the name taken just read).
// The spec hash stays the hash of the rendered spec: it records what the operator asks for,
// and a restart is no change of that, so it writes no metadata. What follows a restart is
// one update whose spec equals the live one (the API server persists nothing and keeps the
// generation, which the operator then records); a restart together with any other edit of
// the spec has that edit reverted and the restart kept.
func (a Applier) applyDeploymentKeepingRestart(ctx context.Context, rendered *appsv1.Deployment, expected int64) (*appsv1.Deployment, bool, error) {
	required := rendered.DeepCopy()
	if err := resourceapply.SetSpecHashAnnotation(&required.ObjectMeta, rendered.Spec); err != nil {
		return nil, false, err
	}
	if _, renderedSetsIt := rendered.Spec.Template.Annotations[RestartedAtAnnotation]; !renderedSetsIt {
		live, err := a.Clients.Deployments(rendered.Namespace).Get(ctx, rendered.Name, metav1.GetOptions{})
		switch {
		case err == nil:
			if restartedAt, ok := live.Spec.Template.Annotations[RestartedAtAnnotation]; ok {
				if required.Spec.Template.Annotations == nil {
					required.Spec.Template.Annotations = map[string]string{}
				}
				required.Spec.Template.Annotations[RestartedAtAnnotation] = restartedAt
			}
		case !apierrors.IsNotFound(err):
			return nil, false, err
		}
	}
	// ApplyDeployment is this call after hashing the spec it is given, which would hash the
	// carried annotation too. Deprecated only for its force argument, false here.
	return resourceapply.ApplyDeploymentWithForce(ctx, a.Clients, LogNormalEvents(a.Recorder), required, expected, false)
}

// checkAdoptable refuses to apply over an existing object the operand may not take over.
func (a Applier) checkAdoptable(obj runtime.Object, existing metav1.Object) error {
	if a.Adopt == nil || a.Adopt(existing) {
		return nil
	}
	return Problem(ReasonObjectNotOwned,
		"%s exists and was not created for this resource (no %s=%s label and no owner reference to it): the operator leaves it untouched; delete or rename it to let the operator create its own",
		describe(obj), ManagedByLabel, ManagedByValue)
}

// Owned says whether the operator may delete an existing object.
type Owned func(existing metav1.Object) bool

// Lookups says where DeleteOwned looks for the object: the caches only (a feature turned off:
// what the operator made carries its label and so is cached, and a quiet sync must not read
// from the API), or the API (removing the whole operand, where finding and reporting a
// foreign object of the same name matters more than a read).
type LookupMode int

const (
	// FromCache finds objects in the caches only.
	FromCache LookupMode = iota
	// FromAPI reads the object from the API.
	FromAPI
)

// DeleteOwned deletes an object only if owned says the operator made it: an object of the same
// name that someone else made is left alone and reported. The UID precondition makes sure the
// object deleted is the one that was checked.
func (a Applier) DeleteOwned(ctx context.Context, gvr schema.GroupVersionResource, namespace, name string, owned Owned, mode LookupMode) error {
	client := a.Clients.Dynamic.Resource(gvr).Namespace(namespace)
	var live metav1.Object
	var err error
	if mode == FromCache {
		live, err = a.Clients.Caches.GetMeta(gvr.GroupResource(), namespace, name)
	} else {
		live, err = client.Get(ctx, name, metav1.GetOptions{})
	}
	if apierrors.IsNotFound(err) || meta.IsNoMatchError(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("get %s %s: %w", gvr.Resource, cache.NewObjectName(namespace, name).String(), err)
	}
	if !owned(live) {
		a.Recorder.Warningf("RemovalSkipped", "%s %s is not managed by %s; left in place",
			gvr.Resource, cache.NewObjectName(namespace, name).String(), ManagedByValue)
		return nil
	}
	uid := live.GetUID()
	err = client.Delete(ctx, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("delete %s %s: %w", gvr.Resource, cache.NewObjectName(namespace, name).String(), err)
	}
	countWrite(ctx, gvr.GroupResource().String(), "delete")
	LogNormalEvents(a.Recorder).Eventf("OperandObjectDeleted", "Deleted %s %s", gvr.Resource, cache.NewObjectName(namespace, name).String())
	return a.deleteDependents(ctx, gvr, namespace, uid)
}

// deleteDependents deletes, right after their owner, the dependents DeletedWith names for its
// kind: those carrying the operator's label (cert-manager copies a Certificate's labels to its
// requests) whose controller is the deleted owner, each with a UID precondition. The owner is
// gone by then, so a later sync does not come back here: what a failure leaves is deleted by
// the garbage collector in its own time, as before.
func (a Applier) deleteDependents(ctx context.Context, owner schema.GroupVersionResource, namespace string, ownerUID types.UID) error {
	gvr, ok := DeletedWith(owner)
	if !ok {
		return nil
	}
	client := a.Clients.Dynamic.Resource(gvr).Namespace(namespace)
	list, err := client.List(ctx, metav1.ListOptions{LabelSelector: ManagedBySelector()})
	if apierrors.IsNotFound(err) || meta.IsNoMatchError(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("list %s in %s to delete those of the deleted %s: %w", gvr.Resource, namespace, owner.Resource, err)
	}
	for i := range list.Items {
		dependent := &list.Items[i]
		if ref := metav1.GetControllerOfNoCopy(dependent); ref == nil || ref.UID != ownerUID {
			continue
		}
		uid := dependent.GetUID()
		err := client.Delete(ctx, dependent.GetName(), metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
		if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
			continue
		}
		if err != nil {
			return fmt.Errorf("delete %s %s: %w", gvr.Resource, cache.NewObjectName(namespace, dependent.GetName()).String(), err)
		}
		countWrite(ctx, gvr.GroupResource().String(), "delete")
	}
	return nil
}

// DeleteObject is DeleteOwned for a rendered object.
func (a Applier) DeleteObject(ctx context.Context, obj runtime.Object, owned Owned, mode LookupMode) error {
	m, err := meta.Accessor(obj)
	if err != nil {
		return err
	}
	gvr, err := ResourceFor(KindOf(obj))
	if err != nil {
		return err
	}
	return a.DeleteOwned(ctx, gvr, m.GetNamespace(), m.GetName(), owned, mode)
}

// ManagedByOperator is the ownership test of objects the operator labels.
func ManagedByOperator(existing metav1.Object) bool { return IsManaged(existing.GetLabels()) }

// ControlledBy is the ownership test of a namespaced operand: the operator's label, or a
// controller owner reference to the CR (objects an earlier operator of the same CR created,
// which the operand adopts).
func ControlledBy(owner metav1.Object) func(existing metav1.Object) bool {
	return func(existing metav1.Object) bool {
		if ref := metav1.GetControllerOfNoCopy(existing); ref != nil {
			return ref.UID == owner.GetUID()
		}
		return IsManaged(existing.GetLabels())
	}
}

// asTyped converts an unstructured object of a built-in kind into its typed form; custom
// resources stay unstructured. Typed objects are returned as they are.
func asTyped(obj runtime.Object) (runtime.Object, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return obj, nil
	}
	gvk := u.GroupVersionKind()
	if !typedScheme.Recognizes(gvk) {
		return u, nil
	}
	typed, err := typedScheme.New(gvk)
	if err != nil {
		return nil, err
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, typed); err != nil {
		return nil, fmt.Errorf("convert %s: %w", describe(u), err)
	}
	typed.GetObjectKind().SetGroupVersionKind(gvk)
	return typed, nil
}

// KindOf returns an object's kind: from its TypeMeta, or, for typed objects built in Go
// without one, from the scheme.
func KindOf(obj runtime.Object) schema.GroupVersionKind {
	if gvk := obj.GetObjectKind().GroupVersionKind(); !gvk.Empty() {
		return gvk
	}
	if gvks, _, err := typedScheme.ObjectKinds(obj); err == nil && len(gvks) > 0 {
		return gvks[0]
	}
	return schema.GroupVersionKind{}
}

// describe names an object for messages: "Deployment ns/name".
func describe(obj runtime.Object) string {
	kind := KindOf(obj).Kind
	m, err := meta.Accessor(obj)
	if err != nil {
		return kind
	}
	return kind + " " + cache.NewObjectName(m.GetNamespace(), m.GetName()).String()
}
