// Package enginetest helps the operands' unit tests, which run on client-go's fake clients.
package enginetest

import (
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	clienttesting "k8s.io/client-go/testing"
)

// FakeWithTracker is a generated fake clientset: reactors on top of an object tracker.
type FakeWithTracker interface {
	PrependReactor(verb, resource string, reaction clienttesting.ReactionFunc)
	Tracker() clienttesting.ObjectTracker
}

// resourceVersions numbers the fakes' objects: seeds (Versioned) and writes (VersionObjects)
// draw from one counter, so an object's resourceVersion changes with every write.
var resourceVersions atomic.Int64

// Versioned are copies of a fake clientset's seed objects with a resourceVersion each, as the
// API server would have given them (the operator takes an unchanged resourceVersion for
// unchanged content).
func Versioned(objs ...runtime.Object) []runtime.Object {
	out := make([]runtime.Object, 0, len(objs))
	for _, obj := range objs {
		obj = obj.DeepCopyObject()
		if m, err := meta.Accessor(obj); err == nil && m.GetResourceVersion() == "" {
			m.SetResourceVersion(strconv.FormatInt(resourceVersions.Add(1), 10))
		}
		out = append(out, obj)
	}
	return out
}

// VersionObjects makes fake clientsets behave like the API server in the two ways the
// operator relies on and the fakes do not: every create and update gets a new resourceVersion
// (so a test can tell whether an informer caught up), and metadata.generation starts at 1 and
// grows when an update changes the spec (so Deployment rollouts and observedGeneration mean
// something). Status updates never change the generation.
func VersionObjects(fakes ...FakeWithTracker) {
	counter := &resourceVersions
	for _, f := range fakes {
		tracker := f.Tracker()
		f.PrependReactor("*", "*", func(action clienttesting.Action) (bool, runtime.Object, error) {
			var obj runtime.Object
			switch a := action.(type) {
			case clienttesting.CreateAction:
				obj = a.GetObject()
			case clienttesting.UpdateAction:
				obj = a.GetObject()
			default:
				return false, nil, nil
			}
			m, err := meta.Accessor(obj)
			if err != nil {
				return false, nil, nil
			}
			m.SetResourceVersion(strconv.FormatInt(counter.Add(1), 10))
			if action.GetVerb() == "create" {
				if m.GetGeneration() == 0 {
					m.SetGeneration(1)
				}
				return false, nil, nil
			}
			old, err := tracker.Get(action.GetResource(), action.GetNamespace(), m.GetName())
			if err != nil {
				return false, nil, nil
			}
			oldMeta, _ := meta.Accessor(old)
			m.SetGeneration(oldMeta.GetGeneration())
			if action.GetSubresource() == "" && !equality.Semantic.DeepEqual(specOf(old), specOf(obj)) {
				m.SetGeneration(oldMeta.GetGeneration() + 1)
			}
			return false, nil, nil
		})
	}
}

// specOf is an object's spec, or nil for kinds without one.
func specOf(obj runtime.Object) any {
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil
	}
	return content["spec"]
}

// WaitFor polls cond every few milliseconds until it holds, and fails the test after 10 s.
// Fakes deliver watch events asynchronously: tests wait for informers this way, never by
// sleeping.
func WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Recording is a fake clientset that records its actions.
type Recording interface {
	Actions() []clienttesting.Action
	ClearActions()
}

// ClearActions forgets the actions every fake recorded so far.
func ClearActions(fakes ...Recording) {
	for _, f := range fakes {
		f.ClearActions()
	}
}

// Actions lists, as "verb resource namespace/name", the calls of the given verbs the fakes
// recorded (Events aside: recording them is not the operand's work).
func Actions(verbs []string, fakes ...Recording) []string {
	var out []string
	for _, f := range fakes {
		for _, a := range f.Actions() {
			if !slices.Contains(verbs, a.GetVerb()) || a.GetResource().Resource == "events" {
				continue
			}
			out = append(out, a.GetVerb()+" "+a.GetResource().Resource+" "+a.GetNamespace()+"/"+actionName(a))
		}
	}
	return out
}

// WriteVerbs and ReadVerbs classify API calls.
var (
	WriteVerbs = []string{"create", "update", "patch", "delete", "deletecollection"}
	ReadVerbs  = []string{"get", "list"}
)

func actionName(a clienttesting.Action) string {
	switch a := a.(type) {
	case clienttesting.GetAction:
		return a.GetName()
	case clienttesting.DeleteAction:
		return a.GetName()
	case clienttesting.CreateAction:
		if m, err := meta.Accessor(a.GetObject()); err == nil {
			return m.GetName()
		}
	case clienttesting.UpdateAction:
		if m, err := meta.Accessor(a.GetObject()); err == nil {
			return m.GetName()
		}
	}
	return ""
}

// EstablishedCRD is a CRD whose API is served, for the fake apiextensions client.
func EstablishedCRD(name string) *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Status: apiextensionsv1.CustomResourceDefinitionStatus{Conditions: []apiextensionsv1.CustomResourceDefinitionCondition{
			{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue},
		}},
	}
}

// ServeBuiltInsFromTracker makes a fake dynamic client serve the built-in kinds (client-go's
// scheme) from a typed fake's tracker, so both fakes see one cluster. Objects the dynamic client
// creates or updates are converted to their typed form first: the typed fake's readers expect
// it. (client-go's global scheme decides what is built in: the dynamic fake adds custom list
// kinds to the scheme it is given.)
func ServeBuiltInsFromTracker(dyn *dynamicfake.FakeDynamicClient, tracker clienttesting.ObjectTracker) {
	scheme := clientgoscheme.Scheme
	serve := clienttesting.ObjectReaction(tracker)
	dyn.PrependReactor("*", "*", func(action clienttesting.Action) (bool, runtime.Object, error) {
		gvr := action.GetResource()
		if !scheme.IsGroupRegistered(gvr.Group) {
			return false, nil, nil
		}
		switch a := action.(type) {
		case clienttesting.CreateActionImpl:
			a.Object = typedFrom(scheme, a.Object)
			action = a
		case clienttesting.UpdateActionImpl:
			a.Object = typedFrom(scheme, a.Object)
			action = a
		}
		handled, obj, err := serve(action)
		return handled, unstructuredFrom(obj), err
	})
}

// typedFrom converts an unstructured object of a kind the scheme knows to its typed form.
func typedFrom(scheme *runtime.Scheme, obj runtime.Object) runtime.Object {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return obj
	}
	typed, err := scheme.New(u.GroupVersionKind())
	if err != nil {
		return obj
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, typed); err != nil {
		return obj
	}
	return typed
}

// unstructuredFrom converts what the tracker returns to the unstructured form the dynamic
// client hands out.
func unstructuredFrom(obj runtime.Object) runtime.Object {
	if obj == nil {
		return nil
	}
	if _, ok := obj.(*unstructured.Unstructured); ok {
		return obj
	}
	if _, ok := obj.(*unstructured.UnstructuredList); ok {
		return obj
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return obj
	}
	return &unstructured.Unstructured{Object: content}
}
