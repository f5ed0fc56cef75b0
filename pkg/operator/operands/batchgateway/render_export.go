package batchgateway

import (
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"

	batchv1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/batch/v1alpha1"
)

// Render returns the objects a sync applies for cr (those the spec asks for), in the order it
// applies them, as it applies them: stamped with the operator's labels and owner reference,
// each Deployment with the hash of the ConfigMaps it mounts (the Secrets are left out: they are
// the user's) and the restricted security context. It serves checks from outside the package:
// test/reliability/dryrun sends the objects to a real API server.
func Render(cr *batchv1alpha1.LLMBatchGateway, images Images) ([]runtime.Object, error) {
	rendered, err := renderAll(renderInput{cr: cr, images: images, credentialsSecret: credentialsSecretFor(cr)})
	if err != nil {
		return nil, err
	}
	byAsset := map[string]renderedObject{}
	for _, ro := range rendered {
		byAsset[ro.asset] = ro
	}
	stamp := ownerStamp(cr)
	var objs []runtime.Object
	for _, ro := range rendered {
		if !ro.wanted {
			continue
		}
		if d, ok := ro.obj.(*appsv1.Deployment); ok {
			if err := prepareDeployment(stamp, d, renderedConfigMaps(byAsset, d.Labels[componentLabel]), nil); err != nil {
				return nil, err
			}
		} else {
			stamp.Stamp(metaOf(ro.obj))
		}
		objs = append(objs, ro.obj)
	}
	return objs, nil
}
