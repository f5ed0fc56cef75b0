package engine

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
)

// ScaleToZero stops the pods of an existing Deployment the operator made (owned) by setting its
// spec.replicas to 0, and returns it as written (nil when it wrote nothing): what an operand does when its pods must stop
// holding something they may no longer have (the batch gateway's credentials once no
// ReferenceGrant allows them), while the Deployment itself, and so the Service and everything
// that names it, stays. Nothing else of the spec changes. A Deployment that does not exist or is
// at 0 already costs no write; one someone else made is left running and reported, as
// DeleteOwned leaves it in place. mode says where it is looked up first (FromCache: a sync
// sends no request for a Deployment already at 0); the write starts from the whole object read
// from the API, since the cached copy lacks its pod template (DropPodTemplate), and its
// resourceVersion makes a concurrent change a conflict (an error: the sync is retried) rather
// than something overwritten. The next apply of the rendered Deployment writes its replicas
// back: the scale changed the generation the CR's status recorded, so resourceapply replaces
// the whole spec with the rendered one.
// The Deployment returned is what a status written in the same sync should read: the caches
// may not hold the write yet.
func (a Applier) ScaleToZero(ctx context.Context, namespace, name string, owned Owned, mode LookupMode) (*appsv1.Deployment, error) {
	d, err := a.deploymentToScale(ctx, namespace, name, owned, mode)
	if d == nil || err != nil {
		return nil, err
	}
	if mode == FromCache {
		if d, err = a.deploymentToScale(ctx, namespace, name, owned, FromAPI); d == nil || err != nil {
			return nil, err
		}
	}
	scaled := d.DeepCopy()
	scaled.Spec.Replicas = ptr.To[int32](0)
	written, err := a.Clients.Kube.AppsV1().Deployments(namespace).Update(ctx, scaled, metav1.UpdateOptions{})
	if err != nil {
		return nil, fmt.Errorf("scale deployments %s to 0: %w", cache.NewObjectName(namespace, name).String(), err)
	}
	countWrite(ctx, Deployments.String(), "update")
	LogNormalEvents(a.Recorder).Eventf("DeploymentScaledToZero", "Scaled deployments %s to 0 replicas", cache.NewObjectName(namespace, name).String())
	return written, nil
}

// deploymentToScale is the Deployment ScaleToZero would write, as mode reads it: nil when it
// does not exist, is someone else's (reported) or is at 0 already.
func (a Applier) deploymentToScale(ctx context.Context, namespace, name string, owned Owned, mode LookupMode) (*appsv1.Deployment, error) {
	var d *appsv1.Deployment
	var err error
	if mode == FromCache {
		var obj runtime.Object
		if obj, err = a.Clients.Caches.Get(Deployments, namespace, name); err == nil {
			var ok bool
			if d, ok = obj.(*appsv1.Deployment); !ok {
				return nil, fmt.Errorf("unexpected %T in the cache of deployments", obj)
			}
		}
	} else {
		d, err = a.Clients.Kube.AppsV1().Deployments(namespace).Get(ctx, name, metav1.GetOptions{})
	}
	switch {
	case apierrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("get deployments %s: %w", cache.NewObjectName(namespace, name).String(), err)
	case !owned(d):
		a.Recorder.Warningf("ScaleToZeroSkipped", "deployments %s is not managed by %s; left running",
			cache.NewObjectName(namespace, name).String(), ManagedByValue)
		return nil, nil
	case d.Spec.Replicas != nil && *d.Spec.Replicas == 0:
		return nil, nil
	}
	return d, nil
}
