package lws

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	componentconfigv1alpha1 "k8s.io/component-base/config/v1alpha1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	lwsconfigv1alpha1 "sigs.k8s.io/lws/api/config/v1alpha1"

	lwsoperatorv1 "github.com/llm-infra/llm-infra-operator/pkg/apis/operator/v1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// leaderElectionID is upstream's lock name, kept so that an operand installed by upstream's
// manifests and one installed here never run as two leaders.
const leaderElectionID = "b8b2488c.x-k8s.io"

// operandConfiguration is the controller's component config, built from upstream's own Go type
// so a field that upstream renames fails to compile instead of being silently ignored.
// The operator supplies the certificates (from one of its sources), so the controller's own
// certificate management is off. tls is the cluster's TLS profile's settings, nil for the
// controller's defaults.
func operandConfiguration(namespace string, tls *lwsconfigv1alpha1.TLSOptions) *lwsconfigv1alpha1.Configuration {
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
			TLS:     tls,
		},
		InternalCertManagement: &lwsconfigv1alpha1.InternalCertManagement{Enable: ptr.To(false)},
	}
}

// operandConfigMap renders the ConfigMap the controller reads its component config from.
func operandConfigMap(r engine.Renderer, namespace string, tls *lwsconfigv1alpha1.TLSOptions) (*corev1.ConfigMap, error) {
	config, err := yaml.Marshal(operandConfiguration(namespace, tls))
	if err != nil {
		return nil, fmt.Errorf("encode the operand configuration: %w", err)
	}
	cm := &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: configMapName, Namespace: namespace},
		Data:       map[string]string{configMapKey: string(config)},
	}
	r.Stamp(cm)
	return cm, nil
}

// applyOperandConfigMap applies the controller's config with the TLS settings of the cluster's
// TLS profile, where OpenShift publishes one; a profile change changes the ConfigMap, whose hash
// rolls the controller's pods.
func applyOperandConfigMap(ctx context.Context, run *syncRun, _ []string) error {
	var tls *lwsconfigv1alpha1.TLSOptions
	profile, found, err := clusterTLSProfile(run.optional)
	if err != nil {
		return err
	}
	if found {
		tls = tlsOptions(profile)
	}
	cm, err := operandConfigMap(run.render, run.namespace, tls)
	if err != nil {
		return err
	}
	if err := run.applier.Apply(ctx, cm); err != nil {
		return err
	}
	run.mountedConfigMaps = append(run.mountedConfigMaps, cm)
	return nil
}

func removeOperandConfigMap(ctx context.Context, run *syncRun, _ []string) error {
	return run.applier.DeleteOwned(ctx, schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, run.namespace, configMapName, engine.ManagedByOperator, engine.FromAPI)
}

// applyServiceMonitor applies the ServiceMonitor when the Prometheus operator's CRD is installed.
// Monitoring is optional: without the CRD the step is skipped and never blocks the operand.
func applyServiceMonitor(ctx context.Context, run *syncRun, assets []string) error {
	if run.optional.Installed(ServiceMonitorGVR) != nil {
		return nil
	}
	monitor, err := run.render.Object(assets[0])
	if err != nil {
		return err
	}
	if err := withMetricsCA(monitor, run.certs.serving); err != nil {
		return err
	}
	return run.applier.Apply(ctx, monitor)
}

// withMetricsCA points the ServiceMonitor's TLS verification at the CA of the source the pods
// serve with: cert-manager's ca.crt in the metrics Secret (the manifest's), the operator's
// bundle, or the service CA OpenShift publishes in the namespace.
func withMetricsCA(monitor *unstructured.Unstructured, source lwsoperatorv1.CertificateSource) error {
	var ca map[string]any
	switch source {
	case lwsoperatorv1.CertificateSourceOperator:
		ca = map[string]any{"configMap": map[string]any{"name": operatorCABundleName, "key": "ca-bundle.crt"}}
	case lwsoperatorv1.CertificateSourceServiceCA:
		ca = map[string]any{"configMap": map[string]any{"name": serviceCAConfigMap, "key": serviceCAKey}}
	default:
		return nil
	}
	endpoints, _, err := unstructured.NestedSlice(monitor.Object, "spec", "endpoints")
	if err != nil {
		return err
	}
	for i := range endpoints {
		endpoint, ok := endpoints[i].(map[string]any)
		if !ok {
			continue
		}
		if err := unstructured.SetNestedField(endpoint, ca, "tlsConfig", "ca"); err != nil {
			return err
		}
	}
	return unstructured.SetNestedSlice(monitor.Object, endpoints, "spec", "endpoints")
}

func removeServiceMonitor(ctx context.Context, run *syncRun, assets []string) error {
	if run.optional.Installed(ServiceMonitorGVR) != nil {
		return nil
	}
	return engine.RemoveAssets(ctx, run, assets)
}
