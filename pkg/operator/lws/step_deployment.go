package lws

import (
	"context"
	"fmt"
	"strings"

	operatorv1 "github.com/openshift/api/operator/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/openshift/library-go/pkg/operator/loglevel"
	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"
	"github.com/openshift/library-go/pkg/operator/resource/resourcehash"
	"github.com/openshift/library-go/pkg/operator/resource/resourcemerge"

	lwsoperatorv1 "github.com/llm-infra/llm-infra-operator/pkg/apis/operator/v1"
)

// deploymentHook changes the rendered Deployment to match the CR. Each hook does one thing and
// is tested alone.
type deploymentHook func(*appsv1.Deployment) error

// applyDeployment renders the controller's Deployment, runs the hooks and applies it with the
// generation the operator last wrote, so a manual edit (replicas, image) is reverted.
func applyDeployment(ctx context.Context, run *syncRun) error {
	required, err := renderTyped[appsv1.Deployment](run.render, run.step.assets[0])
	if err != nil {
		return err
	}
	hashes, err := configHashAnnotations(run.mountedConfigMaps, run.mountedSecrets)
	if err != nil {
		return err
	}
	hooks := []deploymentHook{
		withLogLevel(run.cr.Spec.LogLevel),
		withNodePlacement(run.cr.Spec.NodePlacement),
		withPodTemplateAnnotations(hashes),
		withRestrictedSecurityContext,
	}
	for _, hook := range hooks {
		if err := hook(required); err != nil {
			return fmt.Errorf("prepare Deployment %s: %w", required.Name, err)
		}
	}
	expected := resourcemerge.ExpectedDeploymentGeneration(required, run.cr.Status.Generations)
	actual, _, err := resourceapply.ApplyDeployment(ctx, run.kubeClient.AppsV1(), run.recorder, required, expected)
	if err != nil {
		return fmt.Errorf("apply Deployment %s: %w", required.Name, err)
	}
	run.deployment = actual
	run.appliedDeployment = actual
	return nil
}

// withLogLevel sets the controller's --zap-log-level from the CR's logLevel, with library-go's
// mapping (Normal 2, Debug 4, Trace 6, TraceAll 8).
func withLogLevel(level operatorv1.LogLevel) deploymentHook {
	return func(d *appsv1.Deployment) error {
		c := managerContainerOf(d)
		if c == nil {
			return fmt.Errorf("container %q not found", managerContainer)
		}
		arg := fmt.Sprintf("%s%d", zapLogLevelArgument, loglevel.LogLevelToVerbosity(level))
		for i, a := range c.Args {
			if strings.HasPrefix(a, zapLogLevelArgument) {
				c.Args[i] = arg
				return nil
			}
		}
		c.Args = append(c.Args, arg)
		return nil
	}
}

// withNodePlacement applies the CR's nodePlacement: a non-empty nodeSelector replaces the pod's,
// set tolerations (even an empty list) replace the pod's; anything unset keeps upstream's.
// The CR's maps and slices are copied, never shared with the Deployment.
func withNodePlacement(placement *lwsoperatorv1.NodePlacement) deploymentHook {
	return func(d *appsv1.Deployment) error {
		if placement == nil {
			return nil
		}
		pod := &d.Spec.Template.Spec
		if len(placement.NodeSelector) > 0 {
			pod.NodeSelector = make(map[string]string, len(placement.NodeSelector))
			for k, v := range placement.NodeSelector {
				pod.NodeSelector[k] = v
			}
		}
		if placement.Tolerations != nil {
			pod.Tolerations = make([]corev1.Toleration, len(placement.Tolerations))
			for i := range placement.Tolerations {
				placement.Tolerations[i].DeepCopyInto(&pod.Tolerations[i])
			}
		}
		return nil
	}
}

// withPodTemplateAnnotations adds annotations to the pod template; a changed value rolls the pods.
func withPodTemplateAnnotations(annotations map[string]string) deploymentHook {
	return func(d *appsv1.Deployment) error {
		if len(annotations) == 0 {
			return nil
		}
		if d.Spec.Template.Annotations == nil {
			d.Spec.Template.Annotations = map[string]string{}
		}
		for k, v := range annotations {
			d.Spec.Template.Annotations[k] = v
		}
		return nil
	}
}

// withRestrictedSecurityContext makes every container of the pod meet the restricted Pod
// Security profile, whatever the manifest says, so the operand runs in a namespace that
// enforces it.
func withRestrictedSecurityContext(d *appsv1.Deployment) error {
	pod := &d.Spec.Template.Spec
	if pod.SecurityContext == nil {
		pod.SecurityContext = &corev1.PodSecurityContext{}
	}
	pod.SecurityContext.RunAsNonRoot = ptr.To(true)
	pod.SecurityContext.SeccompProfile = &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}
	for i := range pod.Containers {
		c := &pod.Containers[i]
		if c.SecurityContext == nil {
			c.SecurityContext = &corev1.SecurityContext{}
		}
		c.SecurityContext.AllowPrivilegeEscalation = ptr.To(false)
		c.SecurityContext.Capabilities = &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}
	}
	return nil
}

// configHashAnnotations hashes the data (never the metadata) of the mounted ConfigMaps and
// Secrets with library-go's resourcehash, one annotation each.
func configHashAnnotations(configMaps []*corev1.ConfigMap, secrets []*corev1.Secret) (map[string]string, error) {
	ret := map[string]string{}
	for _, cm := range configMaps {
		hash, err := resourcehash.GetConfigMapHash(cm)
		if err != nil {
			return nil, err
		}
		ret[configHashAnnotationPrefix+"configmap-"+cm.Name] = hash
	}
	for _, s := range secrets {
		hash, err := resourcehash.GetSecretHash(s)
		if err != nil {
			return nil, err
		}
		ret[configHashAnnotationPrefix+"secret-"+s.Name] = hash
	}
	return ret, nil
}

func managerContainerOf(d *appsv1.Deployment) *corev1.Container {
	for i := range d.Spec.Template.Spec.Containers {
		if d.Spec.Template.Spec.Containers[i].Name == managerContainer {
			return &d.Spec.Template.Spec.Containers[i]
		}
	}
	return nil
}
