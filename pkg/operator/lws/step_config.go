package lws

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	componentconfigv1alpha1 "k8s.io/component-base/config/v1alpha1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	lwsconfigv1alpha1 "sigs.k8s.io/lws/api/config/v1alpha1"

	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"
)

// leaderElectionID is upstream's lock name, kept so that an operand installed by upstream's
// manifests and one installed here never run as two leaders.
const leaderElectionID = "b8b2488c.x-k8s.io"

// operandConfiguration is the controller's component config, built from upstream's own Go type
// so a field that upstream renames fails to compile instead of being silently ignored.
// cert-manager supplies the certificates, so the controller's own certificate management is off.
func operandConfiguration(namespace string) *lwsconfigv1alpha1.Configuration {
	return &lwsconfigv1alpha1.Configuration{
		TypeMeta: metav1.TypeMeta{
			APIVersion: lwsconfigv1alpha1.GroupVersion.String(),
			Kind:       "Configuration",
		},
		ControllerManager: lwsconfigv1alpha1.ControllerManager{
			Webhook: lwsconfigv1alpha1.ControllerWebhook{Port: ptr.To(9443)},
			LeaderElection: &componentconfigv1alpha1.LeaderElectionConfiguration{
				LeaderElect:       ptr.To(true),
				ResourceName:      leaderElectionID,
				ResourceNamespace: namespace,
			},
			Metrics: lwsconfigv1alpha1.ControllerMetrics{BindAddress: ":8443"},
			Health:  lwsconfigv1alpha1.ControllerHealth{HealthProbeBindAddress: ":8081"},
		},
		InternalCertManagement: &lwsconfigv1alpha1.InternalCertManagement{Enable: ptr.To(false)},
	}
}

// operandConfigMap renders the ConfigMap the controller reads its component config from.
func operandConfigMap(r renderer) (*corev1.ConfigMap, error) {
	config, err := yaml.Marshal(operandConfiguration(r.namespace))
	if err != nil {
		return nil, fmt.Errorf("encode the operand configuration: %w", err)
	}
	cm := &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: configMapName, Namespace: r.namespace},
		Data:       map[string]string{configMapKey: string(config)},
	}
	r.stamp(cm)
	return cm, nil
}

func applyOperandConfigMap(ctx context.Context, run *syncRun) error {
	cm, err := operandConfigMap(run.render)
	if err != nil {
		return err
	}
	if _, _, err := resourceapply.ApplyConfigMapImproved(ctx, run.kubeClient.CoreV1(), run.recorder, cm, run.cache); err != nil {
		return fmt.Errorf("apply ConfigMap %s: %w", cm.Name, err)
	}
	run.mountedConfigMaps = append(run.mountedConfigMaps, cm)
	return nil
}

func removeOperandConfigMap(ctx context.Context, run *syncRun) error {
	return run.deleteOwned(ctx, schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, run.namespace, configMapName)
}

// applyServiceMonitor applies the ServiceMonitor when the Prometheus operator's CRD is installed.
// Monitoring is optional: without the CRD the step is skipped and never blocks the operand.
func applyServiceMonitor(ctx context.Context, run *syncRun) error {
	if run.optional.installed(serviceMonitorGVR) != nil {
		return nil
	}
	return applyAssets(ctx, run, run.step.assets)
}

func removeServiceMonitor(ctx context.Context, run *syncRun) error {
	if run.optional.installed(serviceMonitorGVR) != nil {
		return nil
	}
	return removeAssets(ctx, run, run.step.assets)
}

// fromUnstructured converts a rendered object into its typed form.
func fromUnstructured[T any](obj interface{ UnstructuredContent() map[string]any }) (*T, error) {
	into := new(T)
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.UnstructuredContent(), into); err != nil {
		return nil, fmt.Errorf("convert a rendered manifest: %w", err)
	}
	return into, nil
}
