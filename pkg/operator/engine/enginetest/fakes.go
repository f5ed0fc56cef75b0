// Package enginetest helps the operands' unit tests, which run on client-go's fake clients.
package enginetest

import (
	"strconv"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"
)

// FakeWithTracker is a generated fake clientset: reactors on top of an object tracker.
type FakeWithTracker interface {
	PrependReactor(verb, resource string, reaction clienttesting.ReactionFunc)
	Tracker() clienttesting.ObjectTracker
}

// VersionObjects makes fake clientsets behave like the API server in the two ways the
// operator relies on and the fakes do not: every create and update gets a new resourceVersion
// (so a test can tell whether an informer caught up), and metadata.generation starts at 1 and
// grows when an update changes the spec (so Deployment rollouts and observedGeneration mean
// something). Status updates never change the generation.
func VersionObjects(fakes ...FakeWithTracker) {
	var counter atomic.Int64
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
