package batchgateway

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/openshift/library-go/pkg/operator/events"

	batchv1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/batch/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// syncRun is the sync of one CR: the CR as read at its start, and what the steps produced for
// the steps after them.
type syncRun struct {
	*Operand
	cr       *batchv1alpha1.LLMBatchGateway
	key      string
	names    Names
	recorder events.Recorder
	applier  engine.Applier
	// stamp sets the operator's labels and the controller owner reference on every object.
	stamp engine.Renderer

	// credentialsSecret is the Secret in the CR's namespace that the pods mount.
	credentialsSecret string
	// credentials is the referenced Secret (the source of a cross-namespace copy), once read;
	// only its data's hash leaves the operator.
	credentials *corev1.Secret
	// rendered holds every asset rendered for the CR.
	rendered map[string]renderedObject
	// applied are the Deployments this sync applied, by component; only their generations may
	// be recorded in status.
	applied map[string]*appsv1.Deployment
	// invalid holds the spec's validation errors; nothing is applied then.
	invalid error
}

// ApplyAsset applies one rendered object, or, when the CR does not ask for it, deletes the
// object of that name if this CR's operator made it. Objects of an optional API need its CRD:
// asking for one without it is reported, naming the CRD and the field.
func (run *syncRun) ApplyAsset(ctx context.Context, asset string) error {
	ro, ok := run.rendered[asset]
	if !ok {
		return fmt.Errorf("%s was not rendered", asset)
	}
	if u, isCustom := ro.obj.(*unstructured.Unstructured); isCustom {
		gvr := engine.GVRFor(u.GroupVersionKind())
		if err := run.optional.Installed(gvr); err != nil {
			if !ro.wanted {
				return nil // without the CRD, nothing of that kind exists
			}
			return engine.Problem(engine.ReasonCRDMissing,
				"%s asks for a %s, whose CustomResourceDefinition %s is not installed: install it and the operator creates the object without a restart, or turn %s off",
				featureOf(asset), u.GetKind(), engine.CRDName(gvr), featureOf(asset))
		}
	}
	if !ro.wanted {
		return run.applier.DeleteObject(ctx, ro.obj, engine.ControlledBy(run.cr), engine.FromCache)
	}
	if d, isDeployment := ro.obj.(*appsv1.Deployment); isDeployment {
		return run.applyDeployment(ctx, asset, d)
	}
	run.stamp.Stamp(metaOf(ro.obj))
	return run.applier.Apply(ctx, ro.obj)
}

// RemoveAsset deletes an asset's object if this CR's operator made it. The operand is removed
// by garbage collection when its CR is deleted; this serves a walk backwards.
func (run *syncRun) RemoveAsset(ctx context.Context, asset string) error {
	ro, ok := run.rendered[asset]
	if !ok {
		return nil
	}
	return run.applier.DeleteObject(ctx, ro.obj, engine.ControlledBy(run.cr), engine.FromCache)
}

// applyDeployment applies a component's Deployment with a hash of everything it mounts, so a
// change of a ConfigMap's or Secret's data rolls its pods, and the restricted security
// context.
func (run *syncRun) applyDeployment(ctx context.Context, asset string, d *appsv1.Deployment) error {
	component := d.Labels[componentLabel]
	configMaps, secrets := run.mountedBy(component)
	if err := prepareDeployment(run.stamp, d, configMaps, secrets); err != nil {
		return err
	}
	actual, err := run.applier.ApplyDeployment(ctx, d, run.cr.Status.Generations)
	if err != nil {
		return err
	}
	run.applied[component] = actual
	return nil
}

// prepareDeployment stamps a component's Deployment and adds the hash of everything it mounts
// and the restricted security context.
func prepareDeployment(stamp engine.Renderer, d *appsv1.Deployment, configMaps []*corev1.ConfigMap, secrets []*corev1.Secret) error {
	hashes, err := engine.ConfigHashAnnotations(configMaps, secrets)
	if err != nil {
		return err
	}
	stamp.Stamp(d)
	return engine.RunHooks(d, engine.WithPodTemplateAnnotations(hashes), engine.WithRestrictedSecurityContext)
}

// mountedBy lists the ConfigMaps (as rendered) and Secrets (as watched) a component's pods
// mount or read.
func (run *syncRun) mountedBy(component string) ([]*corev1.ConfigMap, []*corev1.Secret) {
	configMaps := renderedConfigMaps(run.rendered, component)
	var secrets []*corev1.Secret
	if run.credentials != nil {
		secrets = append(secrets, run.credentials)
	}
	for _, ref := range run.tlsSecretsOf(component) {
		if s, err := run.watchedSecret(ref); err == nil {
			secrets = append(secrets, s)
		}
	}
	return configMaps, secrets
}

// renderedConfigMaps are the ConfigMaps a component's pods mount, as rendered.
func renderedConfigMaps(rendered map[string]renderedObject, component string) []*corev1.ConfigMap {
	var configMaps []*corev1.ConfigMap
	for _, asset := range configMapsOf[component] {
		if ro, ok := rendered[asset]; ok && ro.wanted {
			if cm, ok := ro.obj.(*corev1.ConfigMap); ok {
				configMaps = append(configMaps, cm)
			}
		}
	}
	return configMaps
}

// featureOf names the CR field that asks for an optional object.
func featureOf(asset string) string {
	if f, ok := optionalFeatures[asset]; ok {
		return f
	}
	return "the spec"
}

// metaOf is a rendered object's metadata (every rendered object has some).
func metaOf(obj runtime.Object) metav1.Object {
	m, err := meta.Accessor(obj)
	if err != nil {
		panic(fmt.Sprintf("rendered %T without metadata: %v", obj, err))
	}
	return m
}
