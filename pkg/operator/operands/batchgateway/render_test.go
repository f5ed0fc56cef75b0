package batchgateway

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/llm-infra/llm-infra-operator/bindata"
	batchv1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/batch/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/apis/batch/v1alpha1/testcases"
	networkpolicyv1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/networkpolicy/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine/enginetest"
)

func testCR(spec batchv1alpha1.LLMBatchGatewaySpec) *batchv1alpha1.LLMBatchGateway {
	return &batchv1alpha1.LLMBatchGateway{ObjectMeta: metav1.ObjectMeta{Name: "gw", Namespace: "llm"}, Spec: spec}
}

// asyncSpec is minimalSpec in async dispatch mode, with a Redis queue per model pool.
func asyncSpec() batchv1alpha1.LLMBatchGatewaySpec {
	spec := minimalSpec()
	spec.Processor.DispatchMode = batchv1alpha1.DispatchModeAsync
	spec.Processor.GlobalInferenceGateway = nil
	spec.Processor.ModelGateways = map[string]batchv1alpha1.InferenceGatewaySpec{"sim-model": {InferencePoolName: "sim-pool"}}
	spec.Processor.AsyncConfig = &batchv1alpha1.AsyncProcessorSpec{
		InferenceGateway: &batchv1alpha1.InferenceGatewaySpec{URL: "http://epp:8081"},
		Redis:            &batchv1alpha1.AsyncRedisSpec{},
	}
	return spec
}

// render renders a CR and returns the objects by asset.
func render(t *testing.T, cr *batchv1alpha1.LLMBatchGateway) map[string]renderedObject {
	t.Helper()
	objs, err := renderAll(renderInput{cr: cr, images: goldenImages, credentialsSecret: credentialsSecretFor(cr)})
	if err != nil {
		t.Fatalf("renderAll: %v", err)
	}
	byAsset := map[string]renderedObject{}
	for _, o := range objs {
		byAsset[o.asset] = o
	}
	return byAsset
}

func deploymentOf(t *testing.T, objs map[string]renderedObject, asset string) *appsv1.Deployment {
	t.Helper()
	return objs[asset].obj.(*appsv1.Deployment)
}

func TestRenderAllRendersEveryAssetInOrder(t *testing.T) {
	objs, err := renderAll(renderInput{cr: testCR(minimalSpec()), images: goldenImages, credentialsSecret: "creds"})
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != len(bindata.BatchGatewayAssets) {
		t.Fatalf("%d objects for %d assets", len(objs), len(bindata.BatchGatewayAssets))
	}
	for i, o := range objs {
		if o.asset != bindata.BatchGatewayAssets[i] {
			t.Errorf("object %d is %s, want %s", i, o.asset, bindata.BatchGatewayAssets[i])
		}
		meta := o.obj.(metav1.Object)
		if meta.GetName() == "" || meta.GetNamespace() != "llm" {
			t.Errorf("%s: name %q namespace %q", o.asset, meta.GetName(), meta.GetNamespace())
		}
		data, _ := json.Marshal(o.obj)
		if strings.Contains(string(data), "${") {
			t.Errorf("%s: a placeholder is left: %s", o.asset, data)
		}
		switch o.obj.(type) {
		case *corev1.ServiceAccount, *corev1.ConfigMap, *corev1.Service, *appsv1.Deployment, *policyv1.PodDisruptionBudget, *networkingv1.NetworkPolicy:
		case *unstructured.Unstructured:
			if kind := o.obj.GetObjectKind().GroupVersionKind(); kind.Group == "" || kind.Group == "apps" {
				t.Errorf("%s: built-in kind %v is unstructured", o.asset, kind)
			}
		default:
			t.Errorf("%s: unexpected type %T", o.asset, o.obj)
		}
	}
}

// TestWanted checks which assets each feature asks for: a feature that is off leaves its
// objects unwanted (the controller deletes them) but named.
func TestWanted(t *testing.T) {
	core := []string{
		bindata.BatchGatewayAPIServerServiceAccount, bindata.BatchGatewayProcessorServiceAccount, bindata.BatchGatewayGCServiceAccount,
		bindata.BatchGatewayAPIServerConfigMap, bindata.BatchGatewayProcessorConfigMap, bindata.BatchGatewayGCConfigMap,
		bindata.BatchGatewayAPIServerService,
		bindata.BatchGatewayAPIServerDeployment, bindata.BatchGatewayProcessorDeployment, bindata.BatchGatewayGCDeployment,
	}
	asyncCore := []string{bindata.BatchGatewayAsyncProcessorServiceAccount, bindata.BatchGatewayAsyncProcessorDeployment}
	for _, tc := range []struct {
		name string
		spec func() batchv1alpha1.LLMBatchGatewaySpec
		want []string // beyond core
	}{
		{"minimal", minimalSpec, nil},
		{"async", asyncSpec, asyncCore},
		{"async mode without asyncConfig runs no async-processor", func() batchv1alpha1.LLMBatchGatewaySpec {
			s := asyncSpec()
			s.Processor.AsyncConfig = nil
			return s
		}, nil},
		{"asyncConfig in sync mode runs no async-processor", func() batchv1alpha1.LLMBatchGatewaySpec {
			s := asyncSpec()
			s.Processor.DispatchMode = batchv1alpha1.DispatchModeSync
			return s
		}, nil},
		{"async with worker pools", func() batchv1alpha1.LLMBatchGatewaySpec {
			s := asyncSpec()
			s.Processor.AsyncConfig.WorkerPools = []batchv1alpha1.AsyncWorkerPool{{Name: "w", Workers: 1}}
			return s
		}, append([]string{bindata.BatchGatewayAsyncProcessorConfigMap}, asyncCore...)},
		{"async with transforms", func() batchv1alpha1.LLMBatchGatewaySpec {
			s := asyncSpec()
			s.Processor.AsyncConfig.TransformConfig = &batchv1alpha1.AsyncTransformConfig{
				RequestTransforms: []batchv1alpha1.AsyncRequestTransform{{Name: "t", Type: "x"}},
			}
			return s
		}, append([]string{bindata.BatchGatewayAsyncProcessorConfigMap}, asyncCore...)},
		{"network policies", func() batchv1alpha1.LLMBatchGatewaySpec {
			s := minimalSpec()
			s.NetworkPolicy = &networkpolicyv1alpha1.ServingNetworkPolicy{Enabled: true}
			return s
		}, []string{bindata.BatchGatewayAPIServerNetworkPolicy, bindata.BatchGatewayProcessorNetworkPolicy, bindata.BatchGatewayGCNetworkPolicy}},
		{"async network policies", func() batchv1alpha1.LLMBatchGatewaySpec {
			s := asyncSpec()
			s.NetworkPolicy = &networkpolicyv1alpha1.ServingNetworkPolicy{Enabled: true}
			return s
		}, append([]string{bindata.BatchGatewayAPIServerNetworkPolicy, bindata.BatchGatewayProcessorNetworkPolicy, bindata.BatchGatewayGCNetworkPolicy,
			bindata.BatchGatewayAsyncProcessorNetworkPolicy}, asyncCore...)},
		{"network policies off", func() batchv1alpha1.LLMBatchGatewaySpec {
			s := asyncSpec()
			s.NetworkPolicy = &networkpolicyv1alpha1.ServingNetworkPolicy{From: []networkpolicyv1alpha1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{}}}}
			return s
		}, asyncCore},
		{"monitoring", func() batchv1alpha1.LLMBatchGatewaySpec {
			s := minimalSpec()
			s.Monitoring = &batchv1alpha1.MonitoringSpec{Enabled: true}
			return s
		}, []string{bindata.BatchGatewayAPIServerServiceMonitor, bindata.BatchGatewayProcessorPodMonitor, bindata.BatchGatewayGCPodMonitor}},
		{"monitoring disabled", func() batchv1alpha1.LLMBatchGatewaySpec {
			s := minimalSpec()
			s.Monitoring = &batchv1alpha1.MonitoringSpec{}
			return s
		}, nil},
		{"async monitoring, model server monitor", func() batchv1alpha1.LLMBatchGatewaySpec {
			s := asyncSpec()
			s.Monitoring = &batchv1alpha1.MonitoringSpec{Enabled: true}
			s.Processor.AsyncConfig.ModelServerMonitor = &batchv1alpha1.AsyncModelServerMonitorSpec{Enabled: true}
			return s
		}, append([]string{
			bindata.BatchGatewayAPIServerServiceMonitor, bindata.BatchGatewayProcessorPodMonitor, bindata.BatchGatewayGCPodMonitor,
			bindata.BatchGatewayAsyncProcessorPodMonitor, bindata.BatchGatewayAsyncProcessorModelServerPodMonitor,
		}, asyncCore...)},
		{"grafana and alerts", func() batchv1alpha1.LLMBatchGatewaySpec {
			s := minimalSpec()
			s.Grafana = &batchv1alpha1.GrafanaSpec{Enabled: true}
			s.PrometheusRule = &batchv1alpha1.PrometheusRuleSpec{Enabled: true}
			return s
		}, []string{bindata.BatchGatewayDashboards, bindata.BatchGatewayPrometheusRule}},
		{"async grafana and alerts", func() batchv1alpha1.LLMBatchGatewaySpec {
			s := asyncSpec()
			s.Grafana = &batchv1alpha1.GrafanaSpec{Enabled: true}
			s.PrometheusRule = &batchv1alpha1.PrometheusRuleSpec{Enabled: true}
			return s
		}, append([]string{
			bindata.BatchGatewayDashboards, bindata.BatchGatewayPrometheusRule,
			bindata.BatchGatewayAsyncProcessorDashboard, bindata.BatchGatewayAsyncProcessorPrometheusRule,
		}, asyncCore...)},
		{"TLS from cert-manager", func() batchv1alpha1.LLMBatchGatewaySpec {
			s := minimalSpec()
			s.TLS = &batchv1alpha1.TLSSpec{Enabled: true, CertManager: &batchv1alpha1.CertManagerSpec{IssuerName: "ca"}}
			return s
		}, []string{bindata.BatchGatewayAPIServerCertificate}},
		{"TLS from a Secret needs no Certificate", func() batchv1alpha1.LLMBatchGatewaySpec {
			s := minimalSpec()
			s.TLS = &batchv1alpha1.TLSSpec{Enabled: true, SecretName: "cert"}
			return s
		}, nil},
		{"HTTPRoute", func() batchv1alpha1.LLMBatchGatewaySpec {
			s := minimalSpec()
			s.HTTPRoute = &batchv1alpha1.HTTPRouteSpec{Enabled: true}
			return s
		}, []string{bindata.BatchGatewayAPIServerHTTPRoute}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := map[string]bool{}
			for _, a := range append(core, tc.want...) {
				want[a] = true
			}
			for asset, o := range render(t, testCR(tc.spec())) {
				if o.wanted != want[asset] {
					t.Errorf("%s: wanted = %v", asset, o.wanted)
				}
			}
		})
	}
}

// TestUnwantedObjectsAreNamed: the controller deletes exactly the object a feature made.
func TestUnwantedObjectsAreNamed(t *testing.T) {
	names := NamesFor("gw")
	want := map[string]string{
		bindata.BatchGatewayAsyncProcessorDeployment:            names.AsyncProcessor,
		bindata.BatchGatewayAsyncProcessorConfigMap:             names.AsyncProcessorConfig,
		bindata.BatchGatewayDashboards:                          names.Dashboards,
		bindata.BatchGatewayAsyncProcessorDashboard:             names.AsyncDashboards,
		bindata.BatchGatewayAPIServerCertificate:                names.APIServerTLS,
		bindata.BatchGatewayAPIServerHTTPRoute:                  names.APIServer,
		bindata.BatchGatewayPrometheusRule:                      names.Alerts,
		bindata.BatchGatewayAsyncProcessorPrometheusRule:        names.AsyncProcessor,
		bindata.BatchGatewayAsyncProcessorModelServerPodMonitor: names.AsyncModelServerMonitor,
	}
	for asset, o := range render(t, testCR(minimalSpec())) {
		name := o.obj.(metav1.Object).GetName()
		if w, ok := want[asset]; ok && name != w {
			t.Errorf("%s: name %q, want %q", asset, name, w)
		}
	}
}

// TestLabels: one label set on every object and pod template; selectors stay upstream's.
func TestLabels(t *testing.T) {
	spec := asyncSpec()
	spec.Monitoring = &batchv1alpha1.MonitoringSpec{Enabled: true}
	spec.Grafana = &batchv1alpha1.GrafanaSpec{Enabled: true}
	spec.PrometheusRule = &batchv1alpha1.PrometheusRuleSpec{Enabled: true, Labels: map[string]string{"prometheus": "k8s", PartOfLabel: "other"}}
	spec.Processor.AsyncConfig.ModelServerMonitor = &batchv1alpha1.AsyncModelServerMonitorSpec{Enabled: true}
	spec.Processor.AsyncConfig.WorkerPools = []batchv1alpha1.AsyncWorkerPool{{Name: "w", Workers: 1}}
	spec.TLS = &batchv1alpha1.TLSSpec{Enabled: true, CertManager: &batchv1alpha1.CertManagerSpec{IssuerName: "ca"}}
	spec.HTTPRoute = &batchv1alpha1.HTTPRouteSpec{Enabled: true}
	for asset, o := range render(t, testCR(spec)) {
		labels := o.obj.(metav1.Object).GetLabels()
		component := labels[componentLabel]
		for k, v := range objectLabels("gw", component) {
			if labels[k] != v {
				t.Errorf("%s: label %s = %q, want %q", asset, k, labels[k], v)
			}
		}
		if d, ok := o.obj.(*appsv1.Deployment); ok {
			if !reflect.DeepEqual(d.Spec.Selector.MatchLabels, selectorLabels("gw", component)) {
				t.Errorf("%s: selector %v", asset, d.Spec.Selector.MatchLabels)
			}
			if !reflect.DeepEqual(d.Spec.Template.Labels, objectLabels("gw", component)) {
				t.Errorf("%s: pod template labels %v", asset, d.Spec.Template.Labels)
			}
		}
		kind := o.obj.GetObjectKind().GroupVersionKind().Kind
		if (kind == "ServiceMonitor" || kind == "PodMonitor") && labels[scrapeLabel] != "true" {
			t.Errorf("%s: no %s label", asset, scrapeLabel)
		}
		if kind == "PrometheusRule" && labels["prometheus"] != "k8s" {
			t.Errorf("%s: spec.prometheusRule.labels not added: %v", asset, labels)
		}
	}
}

// fieldMapping is one row of TestFieldMappings: a CR field group, and what it changes.
type fieldMapping struct {
	name  string
	spec  func(*batchv1alpha1.LLMBatchGatewaySpec)
	check func(t *testing.T, objs map[string]renderedObject)
}

func TestFieldMappings(t *testing.T) {
	for _, tc := range []fieldMapping{
		{"replicas of every component, asyncConfig.replicas included", func(s *batchv1alpha1.LLMBatchGatewaySpec) {
			*s = asyncSpec()
			s.APIServer.Replicas, s.Processor.Replicas, s.GC.Replicas = ptr.To[int32](0), ptr.To[int32](5), ptr.To[int32](2)
			s.Processor.AsyncConfig.Replicas = ptr.To[int32](3)
		}, func(t *testing.T, objs map[string]renderedObject) {
			for asset, want := range map[string]int32{
				bindata.BatchGatewayAPIServerDeployment: 0, bindata.BatchGatewayProcessorDeployment: 5,
				bindata.BatchGatewayGCDeployment: 2, bindata.BatchGatewayAsyncProcessorDeployment: 3,
			} {
				if got := *deploymentOf(t, objs, asset).Spec.Replicas; got != want {
					t.Errorf("%s: replicas %d, want %d", asset, got, want)
				}
			}
		}},
		{"image pull policy", func(s *batchv1alpha1.LLMBatchGatewaySpec) {
			*s = asyncSpec()
			s.APIServer.ImagePullPolicy, s.GC.ImagePullPolicy = corev1.PullNever, corev1.PullAlways
			s.Processor.AsyncConfig.ImagePullPolicy = corev1.PullIfNotPresent
		}, func(t *testing.T, objs map[string]renderedObject) {
			for asset, want := range map[string]corev1.PullPolicy{
				bindata.BatchGatewayAPIServerDeployment: corev1.PullNever, bindata.BatchGatewayProcessorDeployment: corev1.PullAlways,
				bindata.BatchGatewayGCDeployment: corev1.PullAlways, bindata.BatchGatewayAsyncProcessorDeployment: corev1.PullIfNotPresent,
			} {
				if got := container(deploymentOf(t, objs, asset)).ImagePullPolicy; got != want {
					t.Errorf("%s: pull policy %s, want %s", asset, got, want)
				}
			}
		}},
		{"resources merge with the defaults", func(s *batchv1alpha1.LLMBatchGatewaySpec) {
			s.Processor.Resources = &corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3")}}
		}, func(t *testing.T, objs map[string]renderedObject) {
			got := container(deploymentOf(t, objs, bindata.BatchGatewayProcessorDeployment)).Resources
			want := corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3"), corev1.ResourceMemory: resource.MustParse("512Mi")},
				Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")},
			}
			if !equality.Semantic.DeepEqual(got, want) {
				t.Errorf("resources %v, want %v", got, want)
			}
		}},
		{"apiserver ports: container, config and Service follow; the Service's API port stays 8000", func(s *batchv1alpha1.LLMBatchGatewaySpec) {
			s.APIServer.Config = &batchv1alpha1.APIServerConfigSpec{Port: 9090, ObservabilityPort: 9091}
		}, func(t *testing.T, objs map[string]renderedObject) {
			ports := container(deploymentOf(t, objs, bindata.BatchGatewayAPIServerDeployment)).Ports
			if ports[0].ContainerPort != 9090 || ports[1].ContainerPort != 9091 {
				t.Errorf("container ports %v", ports)
			}
			svc := objs[bindata.BatchGatewayAPIServerService].obj.(*corev1.Service)
			if p := svc.Spec.Ports; p[0].Port != 8000 || p[0].TargetPort.StrVal != "http" || p[1].Port != 9091 {
				t.Errorf("service ports %v", p)
			}
			if cfg := objs[bindata.BatchGatewayAPIServerConfigMap].obj.(*corev1.ConfigMap).Data[configFileKey]; !strings.Contains(cfg, `port: "9090"`) {
				t.Errorf("config.yaml:\n%s", cfg)
			}
		}},
		{"orphan recovery: config.yaml keys and values as upstream's chart renders them", func(s *batchv1alpha1.LLMBatchGatewaySpec) {
			s.Processor.Config = &batchv1alpha1.ProcessorConfigSpec{HeartbeatInterval: "10s"}
			s.GC.Config = &batchv1alpha1.GCConfigSpec{Reconciler: &batchv1alpha1.GCReconcilerConfig{Enabled: ptr.To(false), Interval: "30s"}}
		}, func(t *testing.T, objs map[string]renderedObject) {
			for asset, want := range map[string]string{
				bindata.BatchGatewayProcessorConfigMap: "\nheartbeat_interval: 10s\n",
				bindata.BatchGatewayGCConfigMap:        "\nreconciler:\n  enabled: false\n  interval: 30s\n",
			} {
				if cfg := objs[asset].obj.(*corev1.ConfigMap).Data[configFileKey]; !strings.Contains(cfg, want) {
					t.Errorf("%s: config.yaml lacks %q:\n%s", asset, want, cfg)
				}
			}
		}},
		{"verbosity", func(s *batchv1alpha1.LLMBatchGatewaySpec) {
			s.APIServer.Config = &batchv1alpha1.APIServerConfigSpec{Logging: &batchv1alpha1.LoggingConfig{Verbosity: 4}}
			s.Processor.Config = &batchv1alpha1.ProcessorConfigSpec{Logging: &batchv1alpha1.LoggingConfig{Verbosity: 5}}
			s.GC.Config = &batchv1alpha1.GCConfigSpec{Logging: &batchv1alpha1.LoggingConfig{Verbosity: 6}}
		}, func(t *testing.T, objs map[string]renderedObject) {
			for asset, want := range map[string]string{
				bindata.BatchGatewayAPIServerDeployment: "--v=4", bindata.BatchGatewayProcessorDeployment: "--v=5", bindata.BatchGatewayGCDeployment: "--v=6",
			} {
				if args := container(deploymentOf(t, objs, asset)).Args; args[1] != want {
					t.Errorf("%s: args %v, want %s", asset, args, want)
				}
			}
		}},
		{"OpenTelemetry env on the apiserver, the processor and the async-processor, not the gc", func(s *batchv1alpha1.LLMBatchGatewaySpec) {
			*s = asyncSpec()
			s.OTEL = &batchv1alpha1.OTELSpec{Endpoint: "http://otel:4317", Insecure: true, RedisTracing: true}
		}, func(t *testing.T, objs map[string]renderedObject) {
			env := container(deploymentOf(t, objs, bindata.BatchGatewayAPIServerDeployment)).Env
			if len(env) != 7 || env[2].Value != "http://otel:4317" || env[3].Value != "true" ||
				env[4].Value != "parentbased_traceidratio" || env[5].Value != "1.0" ||
				env[6].Value != "k8s.namespace.name=$(NAMESPACE),k8s.pod.name=$(POD_NAME),service.version=0.0.1" {
				t.Errorf("apiserver env %v", env)
			}
			if env := container(deploymentOf(t, objs, bindata.BatchGatewayGCDeployment)).Env; env != nil {
				t.Errorf("gc env %v", env)
			}
			async := container(deploymentOf(t, objs, bindata.BatchGatewayAsyncProcessorDeployment))
			names := []string{}
			for _, e := range async.Env {
				names = append(names, e.Name)
			}
			if want := "LOG_LEVEL POD_NAME NAMESPACE OTEL_EXPORTER_OTLP_ENDPOINT OTEL_EXPORTER_OTLP_INSECURE OTEL_TRACES_SAMPLER OTEL_TRACES_SAMPLER_ARG OTEL_SERVICE_NAME OTEL_RESOURCE_ATTRIBUTES REDIS_URL"; strings.Join(names, " ") != want {
				t.Errorf("async env %v", names)
			}
			if !slices.Contains(async.Args, "--redis-tracing=true") {
				t.Errorf("async args %v", async.Args)
			}
		}},
		{"fs storage: the PVC is mounted at the base path in every batch pod", func(s *batchv1alpha1.LLMBatchGatewaySpec) {
			s.FileStorage = &batchv1alpha1.FileStorageSpec{FS: &batchv1alpha1.FSStorageSpec{ClaimName: "files", BasePath: "/data"}}
		}, func(t *testing.T, objs map[string]renderedObject) {
			for _, asset := range []string{bindata.BatchGatewayAPIServerDeployment, bindata.BatchGatewayProcessorDeployment, bindata.BatchGatewayGCDeployment} {
				d := deploymentOf(t, objs, asset)
				vols, mounts := d.Spec.Template.Spec.Volumes, container(d).VolumeMounts
				v, m := vols[len(vols)-2], mounts[len(mounts)-2]
				if v.Name != "files-storage" || v.PersistentVolumeClaim.ClaimName != "files" || m.MountPath != "/data" || vols[len(vols)-1].Name != "secrets" {
					t.Errorf("%s: volumes %v mounts %v", asset, vols, mounts)
				}
			}
		}},
		{"TLS from cert-manager: Certificate, volume, Service port https, config", func(s *batchv1alpha1.LLMBatchGatewaySpec) {
			s.TLS = &batchv1alpha1.TLSSpec{Enabled: true, CertManager: &batchv1alpha1.CertManagerSpec{IssuerName: "ca", IssuerKind: "Issuer"}}
		}, func(t *testing.T, objs map[string]renderedObject) {
			names := NamesFor("gw")
			cert := objs[bindata.BatchGatewayAPIServerCertificate].obj.(*unstructured.Unstructured)
			want := map[string]interface{}{
				"secretName": names.APIServerTLS,
				"issuerRef":  map[string]interface{}{"name": "ca", "kind": "Issuer"},
				"dnsNames":   []interface{}{names.APIServer + ".llm.svc", names.APIServer + ".llm.svc.cluster.local"},
			}
			if !reflect.DeepEqual(cert.Object["spec"], want) {
				t.Errorf("certificate spec %v", cert.Object["spec"])
			}
			d := deploymentOf(t, objs, bindata.BatchGatewayAPIServerDeployment)
			if v := d.Spec.Template.Spec.Volumes[1]; v.Name != "tls" || v.Secret.SecretName != names.APIServerTLS {
				t.Errorf("volumes %v", d.Spec.Template.Spec.Volumes)
			}
			if m := container(d).VolumeMounts[1]; m.Name != "tls" || m.MountPath != "/etc/tls" {
				t.Errorf("mounts %v", container(d).VolumeMounts)
			}
			if p := objs[bindata.BatchGatewayAPIServerService].obj.(*corev1.Service).Spec.Ports[0]; p.Name != "https" || p.TargetPort.StrVal != "http" {
				t.Errorf("service port %v", p)
			}
		}},
		{"cert-manager dnsNames from the CR", func(s *batchv1alpha1.LLMBatchGatewaySpec) {
			s.TLS = &batchv1alpha1.TLSSpec{Enabled: true, CertManager: &batchv1alpha1.CertManagerSpec{IssuerName: "ca", DNSNames: []string{"batch.example.com"}}}
		}, func(t *testing.T, objs map[string]renderedObject) {
			cert := objs[bindata.BatchGatewayAPIServerCertificate].obj.(*unstructured.Unstructured)
			names, _, _ := unstructured.NestedStringSlice(cert.Object, "spec", "dnsNames")
			kind, _, _ := unstructured.NestedString(cert.Object, "spec", "issuerRef", "kind")
			if !reflect.DeepEqual(names, []string{"batch.example.com"}) || kind != "ClusterIssuer" {
				t.Errorf("dnsNames %v issuer kind %s", names, kind)
			}
		}},
		{"TLS from a Secret", func(s *batchv1alpha1.LLMBatchGatewaySpec) {
			s.TLS = &batchv1alpha1.TLSSpec{Enabled: true, SecretName: "my-cert"}
		}, func(t *testing.T, objs map[string]renderedObject) {
			if v := deploymentOf(t, objs, bindata.BatchGatewayAPIServerDeployment).Spec.Template.Spec.Volumes[1]; v.Secret == nil || v.Secret.SecretName != "my-cert" {
				t.Errorf("tls volume %v", v)
			}
		}},
		{"imagePullSecrets on batch pods and on the async-processor's ServiceAccount", func(s *batchv1alpha1.LLMBatchGatewaySpec) {
			*s = asyncSpec()
			s.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "registry"}}
		}, func(t *testing.T, objs map[string]renderedObject) {
			want := []corev1.LocalObjectReference{{Name: "registry"}}
			for _, asset := range []string{bindata.BatchGatewayAPIServerDeployment, bindata.BatchGatewayProcessorDeployment, bindata.BatchGatewayGCDeployment} {
				if got := deploymentOf(t, objs, asset).Spec.Template.Spec.ImagePullSecrets; !reflect.DeepEqual(got, want) {
					t.Errorf("%s: %v", asset, got)
				}
			}
			if got := deploymentOf(t, objs, bindata.BatchGatewayAsyncProcessorDeployment).Spec.Template.Spec.ImagePullSecrets; got != nil {
				t.Errorf("async pod: %v", got)
			}
			if got := objs[bindata.BatchGatewayAsyncProcessorServiceAccount].obj.(*corev1.ServiceAccount).ImagePullSecrets; !reflect.DeepEqual(got, want) {
				t.Errorf("async ServiceAccount: %v", got)
			}
		}},
		{"credentials Secret copied from another namespace", func(s *batchv1alpha1.LLMBatchGatewaySpec) {
			*s = asyncSpec()
			s.SecretRef = corev1.SecretReference{Name: "shared", Namespace: "creds"}
		}, func(t *testing.T, objs map[string]renderedObject) {
			d := deploymentOf(t, objs, bindata.BatchGatewayGCDeployment)
			if s := d.Spec.Template.Spec.Volumes[1].Projected.Sources[0].Secret.Name; s != "gw-credentials" {
				t.Errorf("projected secret %s", s)
			}
			env := container(deploymentOf(t, objs, bindata.BatchGatewayAsyncProcessorDeployment)).Env
			if ref := env[len(env)-1].ValueFrom.SecretKeyRef; ref.Name != "gw-credentials" || ref.Key != "redis-url" {
				t.Errorf("REDIS_URL from %v", ref)
			}
		}},
		{"HTTPRoute: upstream's default parent", func(s *batchv1alpha1.LLMBatchGatewaySpec) {
			s.HTTPRoute = &batchv1alpha1.HTTPRouteSpec{Enabled: true}
		}, func(t *testing.T, objs map[string]renderedObject) {
			route := objs[bindata.BatchGatewayAPIServerHTTPRoute].obj.(*unstructured.Unstructured)
			refs, _, _ := unstructured.NestedSlice(route.Object, "spec", "parentRefs")
			if !reflect.DeepEqual(refs, []interface{}{map[string]interface{}{"name": "llm-d-inference-gateway"}}) {
				t.Errorf("parentRefs %v", refs)
			}
			backend, _, _ := unstructured.NestedSlice(route.Object, "spec", "rules")
			if !strings.Contains(toJSON(backend), `"backendRefs":[{"name":"gw-batch-gateway-apiserver","port":8000}]`) {
				t.Errorf("rules %s", toJSON(backend))
			}
		}},
		{"HTTPRoute: parents and annotations from the CR", func(s *batchv1alpha1.LLMBatchGatewaySpec) {
			s.HTTPRoute = &batchv1alpha1.HTTPRouteSpec{Enabled: true, Annotations: map[string]string{"a": "b"}, ParentRefs: []batchv1alpha1.ParentReference{
				{Name: "gw1"}, {Name: "gw2", Namespace: "ingress", SectionName: "https"},
			}}
		}, func(t *testing.T, objs map[string]renderedObject) {
			route := objs[bindata.BatchGatewayAPIServerHTTPRoute].obj.(*unstructured.Unstructured)
			refs, _, _ := unstructured.NestedSlice(route.Object, "spec", "parentRefs")
			want := []interface{}{
				map[string]interface{}{"name": "gw1"},
				map[string]interface{}{"name": "gw2", "namespace": "ingress", "sectionName": "https"},
			}
			if !reflect.DeepEqual(refs, want) || route.GetAnnotations()["a"] != "b" {
				t.Errorf("parentRefs %v annotations %v", refs, route.GetAnnotations())
			}
		}},
		{"model server monitor", func(s *batchv1alpha1.LLMBatchGatewaySpec) {
			*s = asyncSpec()
			s.Processor.AsyncConfig.ModelServerMonitor = &batchv1alpha1.AsyncModelServerMonitorSpec{
				Enabled: true, Selector: map[string]string{"app": "vllm"}, Port: "http", Interval: "5s",
			}
		}, func(t *testing.T, objs map[string]renderedObject) {
			pm := objs[bindata.BatchGatewayAsyncProcessorModelServerPodMonitor].obj.(*unstructured.Unstructured)
			sel, _, _ := unstructured.NestedStringMap(pm.Object, "spec", "selector", "matchLabels")
			eps, _, _ := unstructured.NestedSlice(pm.Object, "spec", "podMetricsEndpoints")
			ep := eps[0].(map[string]interface{})
			// The chart's llm-d.ai/role: decode stays (Helm merges the CR's map into it).
			if !reflect.DeepEqual(sel, map[string]string{"app": "vllm", "llm-d.ai/role": "decode"}) || ep["port"] != "http" || ep["path"] != "/metrics" || ep["interval"] != "5s" {
				t.Errorf("selector %v endpoint %v", sel, ep)
			}
		}},
		{"async-processor: config volume, TLS volume and flags", func(s *batchv1alpha1.LLMBatchGatewaySpec) {
			*s = asyncSpec()
			s.Processor.AsyncConfig.WorkerPools = []batchv1alpha1.AsyncWorkerPool{{Name: "w", Workers: 2}}
			s.Processor.AsyncConfig.TLS = &batchv1alpha1.AsyncTLSSpec{SecretName: "igw-tls", CACertKey: "ca.crt", CertKey: "tls.crt", KeyKey: "tls.key", InsecureSkipVerify: true}
		}, func(t *testing.T, objs map[string]renderedObject) {
			d := deploymentOf(t, objs, bindata.BatchGatewayAsyncProcessorDeployment)
			vols := d.Spec.Template.Spec.Volumes
			if len(vols) != 2 || vols[0].ConfigMap.Name != "gw-async-processor-config" || vols[1].Secret.SecretName != "igw-tls" {
				t.Errorf("volumes %v", vols)
			}
			args := strings.Join(container(d).Args, " ")
			for _, want := range []string{
				"--pool-config-file=/etc/async-processor/config/worker-pools.json",
				"--tls-insecure-skip-verify=true --tls-ca-cert=/etc/tls/ca.crt --tls-cert=/etc/tls/tls.crt --tls-key=/etc/tls/tls.key",
			} {
				if !strings.Contains(args, want) {
					t.Errorf("args %s lack %s", args, want)
				}
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := minimalSpec()
			tc.spec(&spec)
			tc.check(t, render(t, testCR(spec)))
		})
	}
}

func toJSON(v interface{}) string {
	data, _ := json.Marshal(v)
	return string(data)
}

func TestRenderAllErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		spec   func(*batchv1alpha1.LLMBatchGatewaySpec)
		images Images
		err    string
	}{
		{"no file storage", func(s *batchv1alpha1.LLMBatchGatewaySpec) { s.FileStorage = nil }, goldenImages, "spec.fileStorage"},
		{"TLS without a certificate source", func(s *batchv1alpha1.LLMBatchGatewaySpec) {
			s.TLS = &batchv1alpha1.TLSSpec{Enabled: true}
		}, goldenImages, "needs secretName or certManager"},
		{"TLS with both certificate sources", func(s *batchv1alpha1.LLMBatchGatewaySpec) {
			s.TLS = &batchv1alpha1.TLSSpec{Enabled: true, SecretName: "c", CertManager: &batchv1alpha1.CertManagerSpec{IssuerName: "ca"}}
		}, goldenImages, "mutually exclusive"},
		{"HTTPRoute parent without a name", func(s *batchv1alpha1.LLMBatchGatewaySpec) {
			s.HTTPRoute = &batchv1alpha1.HTTPRouteSpec{Enabled: true, ParentRefs: []batchv1alpha1.ParentReference{{Name: "g"}, {Namespace: "x"}}}
		}, goldenImages, "parentRefs[1].name"},
		{"no image", func(*batchv1alpha1.LLMBatchGatewaySpec) {}, Images{APIServer: "a", Processor: "p"}, "no container image configured for the gc"},
		{"no async image in async mode", func(s *batchv1alpha1.LLMBatchGatewaySpec) { *s = asyncSpec() },
			Images{APIServer: "a", Processor: "p", GC: "g"}, "async-processor"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := minimalSpec()
			tc.spec(&spec)
			_, err := renderAll(renderInput{cr: testCR(spec), images: tc.images, credentialsSecret: "creds"})
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("err = %v, want %q", err, tc.err)
			}
		})
	}
	// Without async mode the async-processor's image is not needed.
	if _, err := renderAll(renderInput{cr: testCR(minimalSpec()), images: Images{APIServer: "a", Processor: "p", GC: "g"}, credentialsSecret: "c"}); err != nil {
		t.Errorf("sync mode without an async image: %v", err)
	}
}

func TestMergeResources(t *testing.T) {
	q := resource.MustParse
	defaults := corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: q("500m"), corev1.ResourceMemory: q("512Mi")},
		Limits:   corev1.ResourceList{corev1.ResourceCPU: q("2"), corev1.ResourceMemory: q("1Gi")},
	}
	for _, tc := range []struct {
		name string
		cr   *corev1.ResourceRequirements
		want corev1.ResourceRequirements
	}{
		{"no resources: the defaults", nil, defaults},
		{"requests only: the default limits stay", &corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: q("111m"), corev1.ResourceMemory: q("99Mi")},
		}, corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: q("111m"), corev1.ResourceMemory: q("99Mi")},
			Limits:   defaults.Limits,
		}},
		{"a request above the default limit drops that limit", &corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: q("3")},
		}, corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: q("3"), corev1.ResourceMemory: q("512Mi")},
			Limits:   corev1.ResourceList{corev1.ResourceMemory: q("1Gi")},
		}},
		{"a limit below the default request drops that request", &corev1.ResourceRequirements{
			Limits: corev1.ResourceList{corev1.ResourceMemory: q("256Mi")},
		}, corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: q("500m")},
			Limits:   corev1.ResourceList{corev1.ResourceCPU: q("2"), corev1.ResourceMemory: q("256Mi")},
		}},
		{"other resource names pass through", &corev1.ResourceRequirements{
			Limits:   corev1.ResourceList{"nvidia.com/gpu": q("1"), corev1.ResourceEphemeralStorage: q("1Gi")},
			Requests: corev1.ResourceList{corev1.ResourceEphemeralStorage: q("500Mi")},
		}, corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: q("500m"), corev1.ResourceMemory: q("512Mi"), corev1.ResourceEphemeralStorage: q("500Mi")},
			Limits:   corev1.ResourceList{corev1.ResourceCPU: q("2"), corev1.ResourceMemory: q("1Gi"), "nvidia.com/gpu": q("1"), corev1.ResourceEphemeralStorage: q("1Gi")},
		}},
		{"what the CR sets itself is kept, even requests above its own limits", &corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: q("4")},
			Limits:   corev1.ResourceList{corev1.ResourceCPU: q("1")},
		}, corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: q("4"), corev1.ResourceMemory: q("512Mi")},
			Limits:   corev1.ResourceList{corev1.ResourceCPU: q("1"), corev1.ResourceMemory: q("1Gi")},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := defaults.DeepCopy()
			got := mergeResources(defaults, tc.cr)
			if !equality.Semantic.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
			if !equality.Semantic.DeepEqual(defaults, *before) {
				t.Errorf("the defaults were changed")
			}
		})
	}
}

func TestAsyncProcessorArgs(t *testing.T) {
	const tail = "--concurrency=8 --drain-timeout=2m --health-port=8081 --metrics-endpoint-auth=false --metrics-port=9090"
	for _, tc := range []struct {
		name  string
		async func(*batchv1alpha1.AsyncProcessorSpec)
		files map[string]string
		want  string
	}{
		{"no redis: no queue flags", func(a *batchv1alpha1.AsyncProcessorSpec) { a.Redis = nil }, nil, tail},
		{"queues derived from the model pools", func(*batchv1alpha1.AsyncProcessorSpec) {}, nil,
			`--message-queue-impl=redis-sortedset --redis.ss.queues-config [{"igw_base_url":"http://epp:8081","queue_name":"llm-d-async:requests:sim-pool","request_path_url":"/v1/completions"}] ` +
				"--redis.ss.result-queue-name result-list --redis.ss.poll-interval-ms 1000 --redis.ss.batch-size 10 " + tail},
		{"redis settings, prometheus, config files", func(a *batchv1alpha1.AsyncProcessorSpec) {
			a.Redis.PollIntervalMs, a.Redis.BatchSize = ptr.To[int32](500), ptr.To[int32](20)
			a.PrometheusURL, a.PrometheusCacheTTL = "http://prom:9090", "0s"
			a.Concurrency, a.DrainTimeout = ptr.To[int32](1), "5m"
		}, map[string]string{workerPoolsKey: "[]", transformConfigKey: "{}"},
			`--message-queue-impl=redis-sortedset --redis.ss.queues-config [{"igw_base_url":"http://epp:8081","queue_name":"llm-d-async:requests:sim-pool","request_path_url":"/v1/completions"}] ` +
				"--redis.ss.result-queue-name result-list --redis.ss.poll-interval-ms 500 --redis.ss.batch-size 20 " +
				"--prometheus-url=http://prom:9090 --prometheus-cache-ttl=0s " +
				"--pool-config-file=/etc/async-processor/config/worker-pools.json --transform-config-file=/etc/async-processor/config/transform-config.json " +
				"--concurrency=1 --drain-timeout=5m --health-port=8081 --metrics-endpoint-auth=false --metrics-port=9090"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := asyncSpec()
			tc.async(spec.Processor.AsyncConfig)
			if got := strings.Join(asyncProcessorArgs(&spec, tc.files), " "); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// TestAsyncSingleQueueFlagsWithoutPools: with no queue to derive, upstream's single-queue flags
// stay, gate included.
func TestAsyncSingleQueueFlagsWithoutPools(t *testing.T) {
	spec := asyncSpec()
	spec.Processor.ModelGateways = nil
	spec.Processor.AsyncConfig.Redis.GateType = "redis"
	got := strings.Join(asyncQueueArgs(&spec.Processor), " ")
	want := `--redis.ss.igw-base-url=http://epp:8081 --redis.ss.request-path-url /v1/completions --redis.ss.request-queue-name request-sortedset --redis.ss.gate-type=redis --redis.ss.gate-params={}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestCredentialsSecretFor(t *testing.T) {
	for _, tc := range []struct {
		ref  corev1.SecretReference
		want string
	}{
		{corev1.SecretReference{Name: "s"}, "s"},
		{corev1.SecretReference{Name: "s", Namespace: "llm"}, "s"},
		{corev1.SecretReference{Name: "s", Namespace: "shared"}, "gw-credentials"},
	} {
		cr := testCR(minimalSpec())
		cr.Spec.SecretRef = tc.ref
		if got := credentialsSecretFor(cr); got != tc.want {
			t.Errorf("credentialsSecretFor(%+v) = %q, want %q", tc.ref, got, tc.want)
		}
	}
}

// TestPlaceholdersCannotInject: values substituted into a manifest stay inside their string.
func TestPlaceholdersCannotInject(t *testing.T) {
	cr := testCR(minimalSpec())
	objs, err := renderAll(renderInput{cr: cr, images: goldenImages, credentialsSecret: "x\n  injected: true"})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		if o.asset != bindata.BatchGatewayAPIServerDeployment {
			continue
		}
		d := o.obj.(*appsv1.Deployment)
		if got := d.Spec.Template.Spec.Volumes[1].Projected.Sources[0].Secret.Name; got != "x\n  injected: true" {
			t.Errorf("secret name %q", got)
		}
	}
}

// TestRenderAllLeavesTheCRAlone: rendering reads the CR; the objects share none of its maps or
// slices.
func TestRenderAllLeavesTheCRAlone(t *testing.T) {
	spec := asyncSpec()
	spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "r"}}
	spec.PrometheusRule = &batchv1alpha1.PrometheusRuleSpec{Enabled: true, Labels: map[string]string{"a": "b"}}
	spec.HTTPRoute = &batchv1alpha1.HTTPRouteSpec{Enabled: true, Annotations: map[string]string{"a": "b"}}
	spec.Processor.Resources = &corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}
	cr := testCR(spec)
	before := cr.DeepCopy()
	objs := render(t, cr)
	for _, o := range objs {
		if m, ok := o.obj.(metav1.Object); ok {
			m.GetLabels()["mutated"] = "yes"
			if a := m.GetAnnotations(); a != nil {
				a["mutated"] = "yes"
			}
		}
	}
	objs[bindata.BatchGatewayAsyncProcessorServiceAccount].obj.(*corev1.ServiceAccount).ImagePullSecrets[0].Name = "mutated"
	container(deploymentOf(t, objs, bindata.BatchGatewayProcessorDeployment)).Resources.Requests[corev1.ResourceCPU] = resource.MustParse("9")
	if !equality.Semantic.DeepEqual(cr, before) {
		t.Errorf("the CR changed")
	}
}

// FuzzRenderAll renders CR specs built from fuzz input: rendering never panics, and the same
// input renders the same objects.
func FuzzRenderAll(f *testing.F) {
	for _, seed := range fuzzSeeds(f) {
		f.Add(seed, "gw", "creds")
	}
	f.Fuzz(func(t *testing.T, specJSON []byte, name, secret string) {
		var spec batchv1alpha1.LLMBatchGatewaySpec
		if err := json.Unmarshal(specJSON, &spec); err != nil {
			return
		}
		cr := &batchv1alpha1.LLMBatchGateway{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}, Spec: spec}
		first, err1 := renderAll(renderInput{cr: cr, images: goldenImages, credentialsSecret: secret})
		second, err2 := renderAll(renderInput{cr: cr.DeepCopy(), images: goldenImages, credentialsSecret: secret})
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("errors differ: %v, %v", err1, err2)
		}
		if err1 != nil {
			return
		}
		if len(first) != len(bindata.BatchGatewayAssets) {
			t.Fatalf("%d objects", len(first))
		}
		for i := range first {
			if first[i].wanted != second[i].wanted || !reflect.DeepEqual(canonical(t, first[i].obj), canonical(t, second[i].obj)) {
				t.Fatalf("%s renders differently from the same input", first[i].asset)
			}
		}
		if !enginetest.AdmittedName(name, 63) {
			return
		}
		for _, ro := range first {
			if err := enginetest.WellFormed(ro.obj, "ns"); err != nil {
				t.Fatalf("%s: %v", ro.asset, err)
			}
		}
	})
}

func canonical(t *testing.T, obj runtime.Object) string {
	data, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// fuzzSeeds are the golden CRs' specs plus one with every feature on.
func fuzzSeeds(f *testing.F) [][]byte {
	var seeds [][]byte
	all := asyncSpec()
	all.Monitoring = &batchv1alpha1.MonitoringSpec{Enabled: true}
	all.Grafana = &batchv1alpha1.GrafanaSpec{Enabled: true}
	all.PrometheusRule = &batchv1alpha1.PrometheusRuleSpec{Enabled: true, Labels: map[string]string{"a": "b"}}
	all.TLS = &batchv1alpha1.TLSSpec{Enabled: true, CertManager: &batchv1alpha1.CertManagerSpec{IssuerName: "ca"}}
	all.HTTPRoute = &batchv1alpha1.HTTPRouteSpec{Enabled: true, ParentRefs: []batchv1alpha1.ParentReference{{Name: "g"}}}
	all.OTEL = &batchv1alpha1.OTELSpec{Endpoint: "http://otel:4317", RedisTracing: true}
	all.Processor.AsyncConfig.ModelServerMonitor = &batchv1alpha1.AsyncModelServerMonitorSpec{Enabled: true}
	all.Processor.AsyncConfig.WorkerPools = []batchv1alpha1.AsyncWorkerPool{{Name: "w", Workers: 1}}
	data, _ := json.Marshal(all)
	seeds = append(seeds, data)
	for _, name := range goldenCases(f) {
		specJSON, _ := json.Marshal(goldenCR(f, name).Spec)
		seeds = append(seeds, specJSON)
	}
	// The admission table's valid CRs, which test/reliability/dryrun renders too.
	for _, c := range testcases.Accepted {
		obj, err := c.Object()
		if err != nil {
			f.Fatal(err)
		}
		specJSON, _ := json.Marshal(obj["spec"])
		seeds = append(seeds, specJSON)
	}
	return seeds
}

// TestOrphanRecoverySettingsRollTheirPods: a change of the heartbeat or of the reconciler
// changes the config.yaml its component mounts, so the pod-template hash (prepareDeployment)
// changes and the pods roll; the other component's hash stays.
func TestOrphanRecoverySettingsRollTheirPods(t *testing.T) {
	hashes := func(t *testing.T, spec batchv1alpha1.LLMBatchGatewaySpec, component string) map[string]string {
		t.Helper()
		objs := render(t, testCR(spec))
		var configMaps []*corev1.ConfigMap
		for _, asset := range configMapsOf[component] {
			configMaps = append(configMaps, objs[asset].obj.(*corev1.ConfigMap))
		}
		h, err := engine.ConfigHashAnnotations(configMaps, nil)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	for _, tc := range []struct {
		name    string
		change  func(*batchv1alpha1.LLMBatchGatewaySpec)
		rolls   string
		unmoved string
	}{
		{"heartbeat", func(s *batchv1alpha1.LLMBatchGatewaySpec) {
			s.Processor.Config = &batchv1alpha1.ProcessorConfigSpec{HeartbeatInterval: "1m"}
		}, componentProcessor, componentGC},
		{"reconciler interval", func(s *batchv1alpha1.LLMBatchGatewaySpec) {
			s.GC.Config = &batchv1alpha1.GCConfigSpec{Reconciler: &batchv1alpha1.GCReconcilerConfig{Interval: "2h"}}
		}, componentGC, componentProcessor},
		{"reconciler off", func(s *batchv1alpha1.LLMBatchGatewaySpec) {
			s.GC.Config = &batchv1alpha1.GCConfigSpec{Reconciler: &batchv1alpha1.GCReconcilerConfig{Enabled: ptr.To(false)}}
		}, componentGC, componentProcessor},
	} {
		t.Run(tc.name, func(t *testing.T) {
			changed := minimalSpec()
			tc.change(&changed)
			if before, after := hashes(t, minimalSpec(), tc.rolls), hashes(t, changed, tc.rolls); reflect.DeepEqual(before, after) {
				t.Errorf("%s: hash annotations unchanged: %v", tc.rolls, after)
			}
			if before, after := hashes(t, minimalSpec(), tc.unmoved), hashes(t, changed, tc.unmoved); !reflect.DeepEqual(before, after) {
				t.Errorf("%s: hash annotations %v, want %v", tc.unmoved, after, before)
			}
		})
	}
}
