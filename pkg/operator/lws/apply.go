package lws

import (
	"context"
	"encoding/json"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"
)

// applyAssets is the default apply of a step: render each manifest and apply it.
func applyAssets(ctx context.Context, run *syncRun, assets []string) error {
	for _, asset := range assets {
		obj, err := run.render.object(asset)
		if err != nil {
			return err
		}
		if err := run.applyObject(ctx, obj); err != nil {
			return err
		}
	}
	return nil
}

// applyObject applies one rendered object with library-go's resourceapply. Built-in kinds go
// through ApplyDirectly, which picks the typed apply function (and the shared resource cache,
// where that function takes one); custom resources of optional APIs go through the
// unstructured apply.
func (run *syncRun) applyObject(ctx context.Context, obj *unstructured.Unstructured) error {
	gvk := obj.GroupVersionKind()
	switch gvk.Group {
	case issuerGVR.Group, serviceMonitorGVR.Group:
		_, _, err := resourceapply.ApplyUnstructuredResourceImproved(ctx, run.dynamicClient, run.recorder, obj, run.cache, gvrFor(gvk), nil, nil)
		if err != nil {
			return fmt.Errorf("apply %s %s: %w", gvk.Kind, obj.GetName(), err)
		}
		return nil
	}
	manifest, err := json.Marshal(obj.Object)
	if err != nil {
		return err
	}
	asset := func(string) ([]byte, error) { return manifest, nil }
	for _, result := range resourceapply.ApplyDirectly(ctx, run.clients, run.recorder, run.cache, asset, obj.GetName()) {
		if result.Error != nil {
			return fmt.Errorf("apply %s %s: %w", gvk.Kind, obj.GetName(), result.Error)
		}
	}
	return nil
}

// gvrFor maps a kind to its resource. Every kind the operand uses has a regular plural.
func gvrFor(gvk schema.GroupVersionKind) schema.GroupVersionResource {
	gvr, _ := meta.UnsafeGuessKindToResource(gvk)
	return gvr
}

// removeAssets deletes the objects of the given manifests, last first.
func removeAssets(ctx context.Context, run *syncRun, assets []string) error {
	for i := len(assets) - 1; i >= 0; i-- {
		obj, err := run.render.object(assets[i])
		if err != nil {
			return err
		}
		if err := run.deleteOwned(ctx, gvrFor(obj.GroupVersionKind()), obj.GetNamespace(), obj.GetName()); err != nil {
			return err
		}
	}
	return nil
}

// deleteOwned deletes an object only if it carries the operator's managed-by label: an object
// of the same name that someone else made is left alone and reported. The UID precondition
// makes sure the object deleted is the one that was checked.
func (run *syncRun) deleteOwned(ctx context.Context, gvr schema.GroupVersionResource, namespace, name string) error {
	client := run.dynamicClient.Resource(gvr).Namespace(namespace)
	live, err := client.Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) || meta.IsNoMatchError(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("get %s %s: %w", gvr.Resource, name, err)
	}
	if live.GetLabels()[ManagedByLabel] != ManagedByValue {
		run.recorder.Warningf("RemovalSkipped", "%s %s is not managed by %s (label %s); left in place",
			gvr.Resource, qualifiedName(namespace, name), ManagedByValue, ManagedByLabel)
		return nil
	}
	uid := live.GetUID()
	err = client.Delete(ctx, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("delete %s %s: %w", gvr.Resource, name, err)
	}
	run.recorder.Eventf("OperandObjectDeleted", "Deleted %s %s", gvr.Resource, qualifiedName(namespace, name))
	return nil
}

func qualifiedName(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}
