package lws

import (
	"context"
	"fmt"
	"strings"

	operatorv1 "github.com/openshift/api/operator/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/openshift/library-go/pkg/operator/loglevel"

	lwsoperatorv1 "github.com/llm-infra/llm-infra-operator/pkg/apis/operator/v1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// applyDeployment renders the controller's Deployment, runs the hooks and applies it with the
// generation the operator last wrote, so a manual edit (replicas, image) is reverted.
func applyDeployment(ctx context.Context, run *syncRun, assets []string) error {
	required, err := renderDeployment(run, assets[0])
	if err != nil {
		return err
	}
	actual, err := run.applier.ApplyDeployment(ctx, required, run.cr.Status.Generations)
	if err != nil {
		return err
	}
	run.deployment = actual
	run.appliedDeployment = actual
	return nil
}

// renderDeployment is the Deployment as the CR and the mounted ConfigMaps and Secrets want it.
func renderDeployment(run *syncRun, asset string) (*appsv1.Deployment, error) {
	required, err := engine.RenderTyped[appsv1.Deployment](run.render, asset)
	if err != nil {
		return nil, err
	}
	hashes, err := engine.ConfigHashAnnotations(run.mountedConfigMaps, run.mountedSecrets)
	if err != nil {
		return nil, err
	}
	err = engine.RunHooks(required,
		withLogLevel(run.cr.Spec.LogLevel),
		withNodePlacement(run.cr.Spec.NodePlacement),
		engine.WithPodTemplateAnnotations(hashes),
		engine.WithRestrictedSecurityContext,
	)
	if err != nil {
		return nil, err
	}
	return required, nil
}

// withLogLevel sets the controller's --zap-log-level from the CR's logLevel, with library-go's
// mapping (Normal 2, Debug 4, Trace 6, TraceAll 8).
func withLogLevel(level operatorv1.LogLevel) engine.DeploymentHook {
	return withContainerArg(managerContainer, zapLogLevelArgument, fmt.Sprint(loglevel.LogLevelToVerbosity(level)))
}

// withNodePlacement applies the CR's nodePlacement, when set.
func withNodePlacement(placement *lwsoperatorv1.NodePlacement) engine.DeploymentHook {
	if placement == nil {
		return func(*appsv1.Deployment) error { return nil }
	}
	return placementHook(placement.NodeSelector, placement.Tolerations)
}

// withContainerArg sets the argument starting with prefix (say "--zap-log-level=") of the
// named container to prefix+value, replacing one that is there or appending it.
func withContainerArg(container, prefix, value string) engine.DeploymentHook {
	return func(d *appsv1.Deployment) error {
		c := engine.ContainerOf(d, container)
		if c == nil {
			return fmt.Errorf("container %q not found", container)
		}
		arg := prefix + value
		for i, a := range c.Args {
			if strings.HasPrefix(a, prefix) {
				c.Args[i] = arg
				return nil
			}
		}
		c.Args = append(c.Args, arg)
		return nil
	}
}

// placementHook applies a CR's placement: a non-empty nodeSelector replaces the pod's, set
// tolerations (even an empty list) replace the pod's; anything unset keeps the manifest's. The
// CR's maps and slices are copied, never shared with the Deployment.
func placementHook(nodeSelector map[string]string, tolerations []corev1.Toleration) engine.DeploymentHook {
	return func(d *appsv1.Deployment) error {
		pod := &d.Spec.Template.Spec
		if len(nodeSelector) > 0 {
			pod.NodeSelector = make(map[string]string, len(nodeSelector))
			for k, v := range nodeSelector {
				pod.NodeSelector[k] = v
			}
		}
		if tolerations != nil {
			pod.Tolerations = make([]corev1.Toleration, len(tolerations))
			for i := range tolerations {
				tolerations[i].DeepCopyInto(&pod.Tolerations[i])
			}
		}
		return nil
	}
}
