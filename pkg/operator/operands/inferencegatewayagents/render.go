package inferencegatewayagents

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/llm-infra/llm-infra-operator/bindata"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// instancePlaceholders are the values of the manifests' placeholders for one CR.
func instancePlaceholders(namespace, name, image string) map[string]string {
	return map[string]string{
		bindata.NamespacePlaceholder:                namespace,
		bindata.InferenceGatewayInstancePlaceholder: name,
		bindata.InferenceGatewayImagePlaceholder:    image,
	}
}

// manifest reads an embedded manifest with its placeholders substituted (inside string values
// only, engine.Renderer) into its typed form. The engine stamps the operator's label and the
// owner reference when it applies the object.
func manifest[T any](asset string, placeholders map[string]string) (*T, error) {
	u, err := engine.Renderer{Manifests: bindata.FS, Placeholders: placeholders}.Manifest(asset)
	if err != nil {
		return nil, fmt.Errorf("render %s: %w", asset, err)
	}
	obj, err := engine.FromUnstructured[T](u)
	if err != nil {
		return nil, fmt.Errorf("render %s: %w", asset, err)
	}
	return obj, nil
}

// container is the named container of a rendered Deployment; its absence is a defect of the
// embedded manifest.
func container(d *appsv1.Deployment, name string) (*corev1.Container, error) {
	c := engine.ContainerOf(d, name)
	if c == nil {
		return nil, fmt.Errorf("the manifest of Deployment %s has no container %q", d.Name, name)
	}
	return c, nil
}
