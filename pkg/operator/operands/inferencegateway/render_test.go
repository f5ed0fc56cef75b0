package inferencegateway

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/utils/ptr"

	"github.com/llm-infra/llm-infra-operator/bindata"
	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1/testcases"
	networkpolicyv1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/networkpolicy/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine/enginetest"
)

func testGateway(spec v1alpha1.GatewaySpec) *v1alpha1.Gateway {
	return &v1alpha1.Gateway{ObjectMeta: metav1.ObjectMeta{Name: "gw", Namespace: "llm"}, Spec: spec}
}

// render renders a Gateway and returns the objects by asset.
func render(t *testing.T, cr *v1alpha1.Gateway) map[string]renderedObject {
	t.Helper()
	objs, err := renderAll(renderInput{cr: cr, mcpServers: mcpServerURLs(cr, nil)})
	if err != nil {
		t.Fatalf("renderAll: %v", err)
	}
	return byAsset(objs)
}

func deploymentOf(objs map[string]renderedObject) *appsv1.Deployment {
	return objs[bindata.InferenceGatewayDeployment].obj.(*appsv1.Deployment)
}

func gatewayContainerOf(t *testing.T, objs map[string]renderedObject) *corev1.Container {
	t.Helper()
	c := engine.ContainerOf(deploymentOf(objs), gatewayContainer)
	if c == nil {
		t.Fatal("no gateway container")
	}
	return c
}

func serviceOf(objs map[string]renderedObject) *corev1.Service {
	return objs[bindata.InferenceGatewayService].obj.(*corev1.Service)
}

func TestRenderAllRendersEveryAssetInOrder(t *testing.T) {
	objs, err := renderAll(renderInput{cr: testGateway(v1alpha1.GatewaySpec{})})
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != len(bindata.InferenceGatewayAssets) {
		t.Fatalf("%d objects, want %d", len(objs), len(bindata.InferenceGatewayAssets))
	}
	for i, o := range objs {
		if o.asset != bindata.InferenceGatewayAssets[i] {
			t.Errorf("object %d is %s, want %s", i, o.asset, bindata.InferenceGatewayAssets[i])
		}
		m := o.obj.(metav1.Object)
		if m.GetNamespace() != "llm" || m.GetName() == "" || strings.Contains(m.GetName(), "${") {
			t.Errorf("%s: name %q in namespace %q", o.asset, m.GetName(), m.GetNamespace())
		}
	}
}

// TestWanted: which objects a Gateway asks for, one feature at a time.
func TestWanted(t *testing.T) {
	always := []string{bindata.InferenceGatewayServiceAccount, bindata.InferenceGatewayService, bindata.InferenceGatewayDeployment}
	for _, tc := range []struct {
		name string
		spec v1alpha1.GatewaySpec
		want []string
	}{
		{name: "empty spec", want: always},
		{
			name: "existing ServiceAccount",
			spec: v1alpha1.GatewaySpec{ServiceAccount: &v1alpha1.ServiceAccountSpec{Create: false, Name: "mine"}},
			want: []string{bindata.InferenceGatewayService, bindata.InferenceGatewayDeployment},
		},
		{
			name: "inline routing",
			spec: v1alpha1.GatewaySpec{Routing: &v1alpha1.ModelRoutingSpec{Enabled: true, Config: "models: {}"}},
			want: append(always, bindata.InferenceGatewayRoutingConfigMap),
		},
		{
			name: "routing from the user's ConfigMap",
			spec: v1alpha1.GatewaySpec{Routing: &v1alpha1.ModelRoutingSpec{Enabled: true, ConfigMapRef: &corev1.ConfigMapKeySelector{Key: "r.yaml"}}},
			want: always,
		},
		{name: "inline routing off", spec: v1alpha1.GatewaySpec{Routing: &v1alpha1.ModelRoutingSpec{Config: "models: {}"}}, want: always},
		{name: "HPA", spec: v1alpha1.GatewaySpec{HPA: &v1alpha1.HPASpec{Enabled: true}}, want: append(always, bindata.InferenceGatewayHPA)},
		{name: "HPA off", spec: v1alpha1.GatewaySpec{HPA: &v1alpha1.HPASpec{}}, want: always},
		{name: "Ingress", spec: v1alpha1.GatewaySpec{Ingress: &v1alpha1.IngressSpec{Enabled: true, Host: "a.example"}}, want: append(always, bindata.InferenceGatewayIngress)},
		{
			name: "Gateway API, default mode",
			spec: v1alpha1.GatewaySpec{GatewayAPI: &v1alpha1.RoutingSpec{Enabled: true}},
			want: append(always, bindata.InferenceGatewayGatewayAPIGateway, bindata.InferenceGatewayHTTPRoute),
		},
		{
			name: "Gateway API, parentRefs",
			spec: v1alpha1.GatewaySpec{GatewayAPI: &v1alpha1.RoutingSpec{Enabled: true, Gateway: &v1alpha1.RoutingGatewaySpec{ParentRefs: []v1alpha1.ParentReference{{Name: "shared"}}}}},
			want: append(always, bindata.InferenceGatewayHTTPRoute),
		},
		{
			name: "telemetry with the metrics port declared",
			spec: v1alpha1.GatewaySpec{Telemetry: &v1alpha1.TelemetrySpec{Enabled: true, Metrics: &v1alpha1.MetricsSpec{Enabled: true}}},
			want: append(always, bindata.InferenceGatewayServiceMonitor),
		},
		{
			name: "metrics port without telemetry: nothing serves it",
			spec: v1alpha1.GatewaySpec{Telemetry: &v1alpha1.TelemetrySpec{Metrics: &v1alpha1.MetricsSpec{Enabled: true}}},
			want: always,
		},
		{
			name: "metrics with the ServiceMonitor turned off (issue 16, defect 7)",
			spec: v1alpha1.GatewaySpec{Telemetry: &v1alpha1.TelemetrySpec{Enabled: true, Metrics: &v1alpha1.MetricsSpec{Enabled: true, ServiceMonitor: &v1alpha1.ServiceMonitorSpec{Enabled: ptr.To(false)}}}},
			want: always,
		},
		{
			name: "metrics with the ServiceMonitor required",
			spec: v1alpha1.GatewaySpec{Telemetry: &v1alpha1.TelemetrySpec{Enabled: true, Metrics: &v1alpha1.MetricsSpec{Enabled: true, ServiceMonitor: &v1alpha1.ServiceMonitorSpec{Enabled: ptr.To(true)}}}},
			want: append(always, bindata.InferenceGatewayServiceMonitor),
		},
		{
			// Its CA's ConfigMap too once the Secret holds a certificate (rendered here without one):
			// TestBackendCAConfigMapOnlyWithACertificate.
			name: "server TLS with Gateway API: a BackendTLSPolicy (issue 16, defect 2)",
			spec: v1alpha1.GatewaySpec{
				Server:     &v1alpha1.ServerSpec{TLS: &v1alpha1.TLSConfig{Enabled: true, CertificateRef: secretRef("c", "crt"), KeyRef: secretRef("c", "key")}},
				GatewayAPI: &v1alpha1.RoutingSpec{Enabled: true},
			},
			want: append(always, bindata.InferenceGatewayGatewayAPIGateway, bindata.InferenceGatewayHTTPRoute,
				bindata.InferenceGatewayBackendTLSPolicy),
		},
		{
			name: "server TLS without Gateway API",
			spec: v1alpha1.GatewaySpec{Server: &v1alpha1.ServerSpec{TLS: &v1alpha1.TLSConfig{Enabled: true, CertificateRef: secretRef("c", "crt"), KeyRef: secretRef("c", "key")}}},
			want: always,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, o := range render(t, testGateway(tc.spec)) {
				if want := slices.Contains(tc.want, o.asset); o.wanted != want {
					t.Errorf("%s wanted = %v, want %v", o.asset, o.wanted, want)
				}
			}
		})
	}
}

// TestUnwantedObjectsAreNamed: an object the CR does not ask for still has its name, so that the
// controller can delete the one it made.
func TestUnwantedObjectsAreNamed(t *testing.T) {
	names := map[string]string{
		bindata.InferenceGatewayRoutingConfigMap:  "gw-routing",
		bindata.InferenceGatewayHPA:               "gw-hpa",
		bindata.InferenceGatewayIngress:           "gw",
		bindata.InferenceGatewayGatewayAPIGateway: "gw",
		bindata.InferenceGatewayHTTPRoute:         "gw",
		bindata.InferenceGatewayServiceMonitor:    "gw",
	}
	for asset, o := range render(t, testGateway(v1alpha1.GatewaySpec{})) {
		if want, ok := names[asset]; ok {
			if o.wanted {
				t.Errorf("%s is wanted by an empty spec", asset)
			}
			if m := o.obj.(metav1.Object); m.GetName() != want || m.GetNamespace() != "llm" {
				t.Errorf("%s: %s/%s, want llm/%s", asset, m.GetNamespace(), m.GetName(), want)
			}
		}
	}
}

// everything turns on every feature.
func everything() v1alpha1.GatewaySpec {
	spec := fullSpec()
	spec.HPA = &v1alpha1.HPASpec{Enabled: true}
	spec.Ingress = &v1alpha1.IngressSpec{Enabled: true, Host: "api.example.com"}
	spec.GatewayAPI = &v1alpha1.RoutingSpec{Enabled: true}
	spec.Service = &v1alpha1.ServiceSpec{Port: 80}
	spec.NetworkPolicy = &networkpolicyv1alpha1.ServingNetworkPolicy{Enabled: true}
	return spec
}

// TestLabels: one label set on every object and pod template; the selectors stay upstream's.
func TestLabels(t *testing.T) {
	// With the server certificate's CA, which the backend CA ConfigMap needs to be wanted.
	cr := testGateway(everything())
	objs := byAsset(must(renderAll(renderInput{cr: cr, mcpServers: mcpServerURLs(cr, nil), backendCA: "CA PEM"})))
	want := objectLabels("gw", componentGateway)
	for asset, o := range objs {
		// The PodDisruptionBudget's wanted is the engine's to decide (TestPodDisruptionBudgets).
		if !o.wanted && asset != bindata.InferenceGatewayPDB {
			t.Errorf("%s not wanted", asset)
		}
		labels := o.obj.(metav1.Object).GetLabels()
		for k, v := range want {
			if labels[k] != v {
				t.Errorf("%s: label %s = %q, want %q", asset, k, labels[k], v)
			}
		}
		if _, ok := labels[engine.ManagedByLabel]; ok {
			t.Errorf("%s: managed-by is the engine's to set", asset)
		}
	}
	d := deploymentOf(objs)
	if !reflect.DeepEqual(d.Spec.Selector.MatchLabels, selectorLabels("gw")) || !reflect.DeepEqual(serviceOf(objs).Spec.Selector, selectorLabels("gw")) {
		t.Errorf("selectors %v, %v: want upstream's %v", d.Spec.Selector.MatchLabels, serviceOf(objs).Spec.Selector, selectorLabels("gw"))
	}
	pod := d.Spec.Template.Labels
	for k, v := range want {
		if pod[k] != v {
			t.Errorf("pod label %s = %q, want %q", k, pod[k], v)
		}
	}
	if pod[appLabel] != "gw" {
		t.Errorf("the pods do not carry the selector's label")
	}
}

// TestPortConsistency: the port the gateway listens on (SERVER_PORT) is the container port http,
// the probes' port, and what the Service targets; the HTTPRoute and the Ingress send traffic to
// the Service's port.
func TestPortConsistency(t *testing.T) {
	tlsOn := &v1alpha1.TLSConfig{Enabled: true, CertificateRef: secretRef("c", "crt"), KeyRef: secretRef("c", "key")}
	for _, tc := range []struct {
		name                string
		spec                v1alpha1.GatewaySpec
		server, service     int32
		https               bool
		metricsPort         int32
		wantNoMetricsOnPort bool
	}{
		{name: "defaults", server: 8080, service: 8080},
		{name: "server port", spec: v1alpha1.GatewaySpec{Server: &v1alpha1.ServerSpec{Port: 9000}}, server: 9000, service: 9000},
		{name: "service port", spec: v1alpha1.GatewaySpec{Service: &v1alpha1.ServiceSpec{Port: 80}}, server: 8080, service: 80},
		{
			name:   "both, as in the golden case upstream broke",
			spec:   v1alpha1.GatewaySpec{Server: &v1alpha1.ServerSpec{Port: 8081}, Service: &v1alpha1.ServiceSpec{Port: 9000}},
			server: 8081, service: 9000,
		},
		{name: "TLS on the server's port", spec: v1alpha1.GatewaySpec{Server: &v1alpha1.ServerSpec{Port: 8443, TLS: tlsOn}}, server: 8443, service: 8443, https: true},
		{
			name:   "listener TLS without server or service (upstream's backend port 8443, §7.21)",
			spec:   v1alpha1.GatewaySpec{GatewayAPI: &v1alpha1.RoutingSpec{Enabled: true, Gateway: &v1alpha1.RoutingGatewaySpec{TLS: &v1alpha1.RoutingTLSSpec{Enabled: true}}}},
			server: 8080, service: 8080,
		},
		{
			name:   "metrics without a server block",
			spec:   v1alpha1.GatewaySpec{Telemetry: &v1alpha1.TelemetrySpec{Enabled: true, Metrics: &v1alpha1.MetricsSpec{Enabled: true, Port: 9500}}},
			server: 8080, service: 8080, metricsPort: 9500,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := tc.spec
			if spec.GatewayAPI == nil {
				spec.GatewayAPI = &v1alpha1.RoutingSpec{Enabled: true}
			}
			spec.Ingress = &v1alpha1.IngressSpec{Enabled: true, Host: "a.example"}
			objs := render(t, testGateway(spec))
			c := gatewayContainerOf(t, objs)
			wantPorts := []corev1.ContainerPort{{Name: portHTTP, ContainerPort: tc.server}}
			if tc.metricsPort != 0 {
				wantPorts = append(wantPorts, corev1.ContainerPort{Name: portMetrics, ContainerPort: tc.metricsPort})
			}
			if !reflect.DeepEqual(c.Ports, wantPorts) {
				t.Errorf("container ports %v, want %v", c.Ports, wantPorts)
			}
			env := effectiveEnv(c.Env)
			if env["SERVER_PORT"] != portString(tc.server) {
				t.Errorf("SERVER_PORT %s, want %d", env["SERVER_PORT"], tc.server)
			}
			if tc.metricsPort != 0 && env["TELEMETRY_METRICS_PORT"] != portString(tc.metricsPort) {
				t.Errorf("TELEMETRY_METRICS_PORT %s, want %d", env["TELEMETRY_METRICS_PORT"], tc.metricsPort)
			}
			wantScheme := corev1.URIScheme("")
			if tc.https {
				wantScheme = corev1.URISchemeHTTPS
			}
			for _, p := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe} {
				if p.HTTPGet.Port != intstr.FromInt32(tc.server) || p.HTTPGet.Scheme != wantScheme || p.HTTPGet.Path != "/health" {
					t.Errorf("probe %+v, want /health on %d (scheme %q)", p.HTTPGet, tc.server, wantScheme)
				}
			}
			svc := serviceOf(objs)
			wantSvc := []corev1.ServicePort{{Name: portHTTP, Port: tc.service, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromString(portHTTP)}}
			if tc.https && serverTLSEnabled(&tc.spec) {
				wantSvc[0].AppProtocol = ptr.To("https")
			}
			if tc.metricsPort != 0 {
				wantSvc = append(wantSvc, corev1.ServicePort{Name: portMetrics, Port: tc.metricsPort, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromString(portMetrics)})
			}
			if !reflect.DeepEqual(svc.Spec.Ports, wantSvc) {
				t.Errorf("Service ports %v, want %v", svc.Spec.Ports, wantSvc)
			}
			route := objs[bindata.InferenceGatewayHTTPRoute].obj.(*unstructured.Unstructured)
			rules, _, _ := unstructured.NestedSlice(route.Object, "spec", "rules")
			backend := rules[0].(map[string]interface{})["backendRefs"].([]interface{})[0].(map[string]interface{})
			if backend["port"] != int64(tc.service) || backend["name"] != "gw" {
				t.Errorf("HTTPRoute backend %v, want gw:%d", backend, tc.service)
			}
			ing := objs[bindata.InferenceGatewayIngress].obj.(*networkingv1.Ingress)
			if b := ing.Spec.Rules[0].HTTP.Paths[0].Backend.Service; b.Name != "gw" || b.Port.Number != tc.service {
				t.Errorf("Ingress backend %+v, want gw:%d", b, tc.service)
			}
		})
	}
}

// TestBackendsSpeakHTTPS: with server TLS, whatever routes to the gateway must speak HTTPS
// (issue 16, defect 2: "Client sent an HTTP request to an HTTPS server"): the Service port says
// appProtocol https, an Ingress carries the common controllers' backend-protocol annotations
// (the spec's own win), and Gateway API gets a BackendTLSPolicy on the Service's port that
// verifies the Service's name against the certificate's CA.
func TestBackendsSpeakHTTPS(t *testing.T) {
	tls := &v1alpha1.TLSConfig{Enabled: true, CertificateRef: secretRef("gw-cert", "tls.crt"), KeyRef: secretRef("gw-cert", "tls.key")}
	spec := v1alpha1.GatewaySpec{
		Server:     &v1alpha1.ServerSpec{TLS: tls},
		Ingress:    &v1alpha1.IngressSpec{Enabled: true, Host: "api.example.com", Annotations: map[string]string{"route.openshift.io/termination": "passthrough"}},
		GatewayAPI: &v1alpha1.RoutingSpec{Enabled: true},
	}
	objs, err := renderAll(renderInput{cr: testGateway(spec), backendCA: "CA PEM"})
	if err != nil {
		t.Fatal(err)
	}
	byA := byAsset(objs)
	svc := byA[bindata.InferenceGatewayService].obj.(*corev1.Service)
	if p := svc.Spec.Ports[0]; p.AppProtocol == nil || *p.AppProtocol != "https" {
		t.Errorf("Service port %+v: want appProtocol https", p)
	}
	ing := byA[bindata.InferenceGatewayIngress].obj.(*networkingv1.Ingress)
	if got := ing.Annotations["nginx.ingress.kubernetes.io/backend-protocol"]; got != "HTTPS" {
		t.Errorf("Ingress annotations %v: want ingress-nginx's backend protocol HTTPS", ing.Annotations)
	}
	if got := ing.Annotations["route.openshift.io/termination"]; got != "passthrough" {
		t.Errorf("route.openshift.io/termination %q: the spec's annotation must win", got)
	}
	policy := byA[bindata.InferenceGatewayBackendTLSPolicy].obj.(*unstructured.Unstructured)
	want := `{"targetRefs":[{"group":"","kind":"Service","name":"gw","sectionName":"http"}],"validation":{"caCertificateRefs":[{"group":"","kind":"ConfigMap","name":"gw-backend-ca"}],"hostname":"gw.llm.svc"}}`
	if got := jsonOf(t, policy.Object["spec"]); got != want {
		t.Errorf("BackendTLSPolicy spec\n got %s\nwant %s", got, want)
	}
	if ca := byA[bindata.InferenceGatewayBackendCA].obj.(*corev1.ConfigMap); !reflect.DeepEqual(ca.Data, map[string]string{"ca.crt": "CA PEM"}) {
		t.Errorf("CA ConfigMap %s data %v", ca.Name, ca.Data)
	}
	if svc.Spec.Ports[0].Name != policy.Object["spec"].(map[string]interface{})["targetRefs"].([]interface{})[0].(map[string]interface{})["sectionName"] {
		t.Errorf("the policy's sectionName is not the Service's port %q", svc.Spec.Ports[0].Name)
	}

	plain := byAsset(must(renderAll(renderInput{cr: testGateway(v1alpha1.GatewaySpec{Ingress: spec.Ingress})})))
	if p := plain[bindata.InferenceGatewayService].obj.(*corev1.Service).Spec.Ports[0]; p.AppProtocol != nil {
		t.Errorf("appProtocol %q without TLS", *p.AppProtocol)
	}
	if a := plain[bindata.InferenceGatewayIngress].obj.(*networkingv1.Ingress).Annotations; a["nginx.ingress.kubernetes.io/backend-protocol"] != "" {
		t.Errorf("backend-protocol without TLS: %v", a)
	}
}

// TestBackendCAOf: the CA for the BackendTLSPolicy is the certificate Secret's ca.crt, else the
// served chain, certificates only (issue 33: a bundle at the certificate's key that also holds
// the private key must not copy the key into the ConfigMap); none without TLS or Secret.
func TestBackendCAOf(t *testing.T) {
	tlsSpec := v1alpha1.GatewaySpec{Server: &v1alpha1.ServerSpec{TLS: &v1alpha1.TLSConfig{Enabled: true, CertificateRef: secretRef("c", "cert.pem"), KeyRef: secretRef("k", "key.pem")}}}
	chain, root := testCertificatePEM(t, []string{"gw.llm.svc"}), testCertificatePEM(t, nil)
	const privateKey = "-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----\n"
	secrets := map[string]*corev1.Secret{
		"c": {Data: map[string][]byte{"cert.pem": []byte(chain), "ca.crt": []byte(root)}},
	}
	lookup := func(name string) *corev1.Secret { return secrets[name] }
	if got := backendCAOf(&tlsSpec, lookup); got != root {
		t.Errorf("with ca.crt: %q", got)
	}
	delete(secrets["c"].Data, "ca.crt")
	if got := backendCAOf(&tlsSpec, lookup); got != chain {
		t.Errorf("without ca.crt: %q", got)
	}
	secrets["c"].Data["cert.pem"] = []byte(chain + privateKey)
	if got := backendCAOf(&tlsSpec, lookup); got != chain {
		t.Errorf("a bundle holding the key: got %q, want the certificate alone", got)
	}
	delete(secrets, "c")
	if got := backendCAOf(&tlsSpec, lookup); got != "" {
		t.Errorf("without the Secret: %q", got)
	}
	if got := backendCAOf(&v1alpha1.GatewaySpec{}, lookup); got != "" {
		t.Errorf("without TLS: %q", got)
	}
}

// TestBackendCAConfigMapOnlyWithACertificate: the BackendTLSPolicy's CA ConfigMap is written
// only when the certificate's Secret holds a CERTIFICATE block, and then with nothing else
// (issue 33: "none written if there are none"); the BackendTLSPolicy is there either way.
func TestBackendCAConfigMapOnlyWithACertificate(t *testing.T) {
	spec := v1alpha1.GatewaySpec{
		Server:     &v1alpha1.ServerSpec{TLS: &v1alpha1.TLSConfig{Enabled: true, CertificateRef: secretRef("c", "tls.crt"), KeyRef: secretRef("c", "tls.key")}},
		GatewayAPI: &v1alpha1.RoutingSpec{Enabled: true},
	}
	cert := testCertificatePEM(t, []string{"gw.llm.svc"})
	const privateKey = "-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----\n"
	for _, tc := range []struct {
		name   string
		secret *corev1.Secret
		wantCA string // "": no ConfigMap
	}{
		{"no Secret yet", nil, ""},
		{"a certificate", &corev1.Secret{Data: map[string][]byte{"tls.crt": []byte(cert)}}, cert},
		{"a bundle of the certificate and its key", &corev1.Secret{Data: map[string][]byte{"tls.crt": []byte(cert + privateKey)}}, cert},
		{"only a private key", &corev1.Secret{Data: map[string][]byte{"tls.crt": []byte(privateKey)}}, ""},
		{"text that is no PEM", &corev1.Secret{Data: map[string][]byte{"tls.crt": []byte("not a certificate")}}, ""},
		{"an empty ca.crt and no certificate", &corev1.Secret{Data: map[string][]byte{"ca.crt": nil, "tls.crt": []byte(privateKey)}}, ""},
		{"ca.crt holding only a key", &corev1.Secret{Data: map[string][]byte{"ca.crt": []byte(privateKey), "tls.crt": []byte(cert)}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gw := testGateway(spec)
			ca := backendCAOf(&gw.Spec, func(string) *corev1.Secret { return tc.secret })
			byA := byAsset(must(renderAll(renderInput{cr: gw, backendCA: ca})))
			if !byA[bindata.InferenceGatewayBackendTLSPolicy].wanted {
				t.Error("no BackendTLSPolicy")
			}
			cm := byA[bindata.InferenceGatewayBackendCA]
			if cm.wanted != (tc.wantCA != "") {
				t.Fatalf("CA ConfigMap wanted = %v, want %v", cm.wanted, tc.wantCA != "")
			}
			if got := cm.obj.(*corev1.ConfigMap).Data; cm.wanted && !reflect.DeepEqual(got, map[string]string{"ca.crt": tc.wantCA}) {
				t.Errorf("CA ConfigMap data %q, want the certificate alone", got)
			}
		})
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestServerTLS: the gateway serves HTTPS with the referenced certificate and key, which are
// mounted where SERVER_TLS_*_PATH point, from one Secret or two (§7.5).
func TestServerTLS(t *testing.T) {
	spec := v1alpha1.GatewaySpec{Server: &v1alpha1.ServerSpec{TLS: &v1alpha1.TLSConfig{
		Enabled: true, CertificateRef: secretRef("cert", "tls.crt"), KeyRef: secretRef("key", "private.pem"),
	}}}
	objs := render(t, testGateway(spec))
	d := deploymentOf(objs)
	c := gatewayContainerOf(t, objs)
	want := corev1.Volume{Name: "inference-gateway-tls", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
		{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "cert"}, Items: []corev1.KeyToPath{{Key: "tls.crt", Path: "tls.crt"}}}},
		{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "key"}, Items: []corev1.KeyToPath{{Key: "private.pem", Path: "tls.key"}}}},
	}}}}
	if !reflect.DeepEqual(d.Spec.Template.Spec.Volumes, []corev1.Volume{want}) {
		t.Errorf("volumes %+v", d.Spec.Template.Spec.Volumes)
	}
	if !reflect.DeepEqual(c.VolumeMounts, []corev1.VolumeMount{{Name: "inference-gateway-tls", MountPath: "/app/tls", ReadOnly: true}}) {
		t.Errorf("mounts %+v", c.VolumeMounts)
	}
	env := effectiveEnv(c.Env)
	if env["SERVER_TLS_CERT_PATH"] != "/app/tls/tls.crt" || env["SERVER_TLS_KEY_PATH"] != "/app/tls/tls.key" {
		t.Errorf("TLS paths %q, %q", env["SERVER_TLS_CERT_PATH"], env["SERVER_TLS_KEY_PATH"])
	}
	// The gateway calls itself at SERVER_HOST (issue 16, defect 1): the Service's name, which the
	// pod resolves to the address it listens on, and whose certificate it trusts.
	if env["SERVER_HOST"] != "gw.llm.svc" {
		t.Errorf("SERVER_HOST %q, want the Service's name gw.llm.svc", env["SERVER_HOST"])
	}
	if got, want := d.Spec.Template.Spec.HostAliases, []corev1.HostAlias{{IP: "0.0.0.0", Hostnames: []string{"gw.llm.svc"}}}; !reflect.DeepEqual(got, want) {
		t.Errorf("hostAliases %+v, want %+v", got, want)
	}
	if dirs := strings.Split(env["SSL_CERT_DIR"], ":"); !slices.Contains(dirs, "/app/tls") || !slices.Contains(dirs, "/etc/ssl/certs") {
		t.Errorf("SSL_CERT_DIR %q: want the mounted certificate's directory and the system's", env["SSL_CERT_DIR"])
	}
	if off := deploymentOf(render(t, testGateway(v1alpha1.GatewaySpec{}))); off.Spec.Template.Spec.HostAliases != nil {
		t.Errorf("hostAliases without TLS: %+v", off.Spec.Template.Spec.HostAliases)
	}
	for _, p := range c.Ports {
		if p.ContainerPort == 8443 {
			t.Errorf("upstream's https port 8443, which nothing serves, is back: %v", c.Ports)
		}
	}
	if len(serviceOf(objs).Spec.Ports) != 1 {
		t.Errorf("Service ports %v: want only http", serviceOf(objs).Spec.Ports)
	}
}

func TestServiceTypeAndAnnotations(t *testing.T) {
	annotations := map[string]string{"service.beta.kubernetes.io/aws-load-balancer-type": "nlb"}
	svc := serviceOf(render(t, testGateway(v1alpha1.GatewaySpec{Service: &v1alpha1.ServiceSpec{Type: "LoadBalancer", Port: 443, Annotations: annotations}})))
	if svc.Spec.Type != corev1.ServiceTypeLoadBalancer || !reflect.DeepEqual(svc.Annotations, annotations) || svc.Spec.Ports[0].Port != 443 {
		t.Errorf("Service type %q, annotations %v, port %d", svc.Spec.Type, svc.Annotations, svc.Spec.Ports[0].Port)
	}
	if svc := serviceOf(render(t, testGateway(v1alpha1.GatewaySpec{}))); svc.Spec.Type != "" || svc.Annotations != nil {
		t.Errorf("an empty spec sets type %q and annotations %v; the API server's default ClusterIP is wanted", svc.Spec.Type, svc.Annotations)
	}
}

// TestReplicasAndHPA: with the autoscaler on, the Deployment has no replicas (they are the
// autoscaler's, and an apply must never reset them), and the autoscaler targets the Deployment.
func TestReplicasAndHPA(t *testing.T) {
	behavior := &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleDown: &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: ptr.To[int32](300)}}
	memory := autoscalingv2.MetricSpec{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
		Name: corev1.ResourceMemory, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To[int32](70)},
	}}
	cpu80 := autoscalingv2.MetricSpec{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
		Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To[int32](80)},
	}}
	target := autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "gw"}
	for _, tc := range []struct {
		name         string
		replicas     *int32
		hpa          *v1alpha1.HPASpec
		wantReplicas *int32
		wantHPA      *autoscalingv2.HorizontalPodAutoscalerSpec
	}{
		{name: "defaults", wantReplicas: ptr.To[int32](1)},
		{name: "replicas", replicas: ptr.To[int32](3), wantReplicas: ptr.To[int32](3)},
		{name: "HPA off", replicas: ptr.To[int32](3), hpa: &v1alpha1.HPASpec{Config: &v1alpha1.CustomHorizontalPodAutoscalerSpec{MaxReplicas: 5}}, wantReplicas: ptr.To[int32](3)},
		{
			name: "HPA without config", replicas: ptr.To[int32](3), hpa: &v1alpha1.HPASpec{Enabled: true},
			wantHPA: &autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: target, MinReplicas: ptr.To[int32](1), MaxReplicas: 10, Metrics: []autoscalingv2.MetricSpec{cpu80}},
		},
		{
			name: "HPA with config",
			hpa: &v1alpha1.HPASpec{Enabled: true, Config: &v1alpha1.CustomHorizontalPodAutoscalerSpec{
				ScaleTargetRef: &v1alpha1.CrossVersionObjectReference{Kind: "Deployment", Name: "gw"},
				MinReplicas:    ptr.To[int32](2), MaxReplicas: 5, Metrics: []autoscalingv2.MetricSpec{memory}, Behavior: behavior,
			}},
			wantHPA: &autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: target, MinReplicas: ptr.To[int32](2), MaxReplicas: 5, Metrics: []autoscalingv2.MetricSpec{memory}, Behavior: behavior},
		},
		{
			name:    "HPA with a range only: the default metric",
			hpa:     &v1alpha1.HPASpec{Enabled: true, Config: &v1alpha1.CustomHorizontalPodAutoscalerSpec{MaxReplicas: 4}},
			wantHPA: &autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: target, MinReplicas: ptr.To[int32](1), MaxReplicas: 4, Metrics: []autoscalingv2.MetricSpec{cpu80}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := render(t, testGateway(v1alpha1.GatewaySpec{Replicas: tc.replicas, HPA: tc.hpa}))
			if got := deploymentOf(objs).Spec.Replicas; !reflect.DeepEqual(got, tc.wantReplicas) {
				t.Errorf("replicas %v, want %v", ptr.Deref(got, -1), ptr.Deref(tc.wantReplicas, -1))
			}
			hpa := objs[bindata.InferenceGatewayHPA]
			if hpa.wanted != (tc.wantHPA != nil) {
				t.Fatalf("HPA wanted %v", hpa.wanted)
			}
			if tc.wantHPA != nil && !equality.Semantic.DeepEqual(hpa.obj.(*autoscalingv2.HorizontalPodAutoscaler).Spec, *tc.wantHPA) {
				t.Errorf("HPA spec %+v\nwant %+v", hpa.obj.(*autoscalingv2.HorizontalPodAutoscaler).Spec, *tc.wantHPA)
			}
		})
	}
}

// TestVolumes: what the gateway reads from files is mounted where its env points.
func TestVolumes(t *testing.T) {
	configMap := func(name string) corev1.VolumeSource {
		return corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: name}}}
	}
	for _, tc := range []struct {
		name    string
		spec    v1alpha1.GatewaySpec
		volumes []corev1.Volume
		mounts  []corev1.VolumeMount
	}{
		{name: "none"},
		{
			name:    "inline routing",
			spec:    v1alpha1.GatewaySpec{Routing: &v1alpha1.ModelRoutingSpec{Enabled: true, Config: "models: {}"}},
			volumes: []corev1.Volume{{Name: "model-routing", VolumeSource: configMap("gw-routing")}},
			mounts:  []corev1.VolumeMount{{Name: "model-routing", MountPath: routingDir, ReadOnly: true}},
		},
		{
			name: "inline routing wins over configMapRef",
			spec: v1alpha1.GatewaySpec{Routing: &v1alpha1.ModelRoutingSpec{Enabled: true, Config: "models: {}", ConfigMapRef: &corev1.ConfigMapKeySelector{
				LocalObjectReference: corev1.LocalObjectReference{Name: "mine"}, Key: "r.yaml",
			}}},
			volumes: []corev1.Volume{{Name: "model-routing", VolumeSource: configMap("gw-routing")}},
			mounts:  []corev1.VolumeMount{{Name: "model-routing", MountPath: routingDir, ReadOnly: true}},
		},
		{
			name: "routing ConfigMap",
			spec: v1alpha1.GatewaySpec{Routing: &v1alpha1.ModelRoutingSpec{Enabled: true, ConfigMapRef: &corev1.ConfigMapKeySelector{
				LocalObjectReference: corev1.LocalObjectReference{Name: "mine"}, Key: "r.yaml",
			}}},
			volumes: []corev1.Volume{{Name: "model-routing", VolumeSource: configMap("mine")}},
			mounts:  []corev1.VolumeMount{{Name: "model-routing", MountPath: routingDir, ReadOnly: true}},
		},
		{
			name:    "guardrails policies",
			spec:    v1alpha1.GatewaySpec{Guardrails: &v1alpha1.GuardrailsSpec{Enabled: true, ConfigMapRef: &corev1.LocalObjectReference{Name: "rego"}}},
			volumes: []corev1.Volume{{Name: "guardrails-policies", VolumeSource: configMap("rego")}},
			mounts:  []corev1.VolumeMount{{Name: "guardrails-policies", MountPath: guardrailsDir, ReadOnly: true}},
		},
		{name: "guardrails off", spec: v1alpha1.GatewaySpec{Guardrails: &v1alpha1.GuardrailsSpec{ConfigMapRef: &corev1.LocalObjectReference{Name: "rego"}}}},
		{
			name: "OIDC CA",
			spec: v1alpha1.GatewaySpec{Auth: &v1alpha1.AuthSpec{Enabled: true, OIDC: &v1alpha1.OIDCSpec{CACertRef: &corev1.ConfigMapKeySelector{
				LocalObjectReference: corev1.LocalObjectReference{Name: "ca"}, Key: "ca.crt",
			}}}},
			volumes: []corev1.Volume{{Name: "oidc-ca", VolumeSource: configMap("ca")}},
			mounts:  []corev1.VolumeMount{{Name: "oidc-ca", MountPath: oidcCAPath, SubPath: "ca.crt", ReadOnly: true}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := render(t, testGateway(tc.spec))
			if got := deploymentOf(objs).Spec.Template.Spec.Volumes; !reflect.DeepEqual(got, tc.volumes) {
				t.Errorf("volumes %+v, want %+v", got, tc.volumes)
			}
			if got := gatewayContainerOf(t, objs).VolumeMounts; !reflect.DeepEqual(got, tc.mounts) {
				t.Errorf("mounts %+v, want %+v", got, tc.mounts)
			}
		})
	}
	cm := render(t, testGateway(v1alpha1.GatewaySpec{Routing: &v1alpha1.ModelRoutingSpec{Enabled: true, Config: "models: {}\n"}}))[bindata.InferenceGatewayRoutingConfigMap]
	if got := cm.obj.(*corev1.ConfigMap).Data; !reflect.DeepEqual(got, map[string]string{"routing.yaml": "models: {}\n"}) {
		t.Errorf("routing ConfigMap data %v", got)
	}
}

func TestResources(t *testing.T) {
	q := resource.MustParse
	for _, tc := range []struct {
		name string
		spec *v1alpha1.ResourceRequirements
		want corev1.ResourceRequirements
	}{
		{name: "defaults", want: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: q("100m"), corev1.ResourceMemory: q("256Mi")},
			Limits:   corev1.ResourceList{corev1.ResourceCPU: q("2"), corev1.ResourceMemory: q("1Gi")},
		}},
		{
			name: "each value replaces its default",
			spec: &v1alpha1.ResourceRequirements{Requests: &v1alpha1.ResourceList{Memory: "512Mi"}, Limits: &v1alpha1.ResourceList{CPU: "500m"}},
			want: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: q("100m"), corev1.ResourceMemory: q("512Mi")},
				Limits:   corev1.ResourceList{corev1.ResourceCPU: q("500m"), corev1.ResourceMemory: q("1Gi")},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := gatewayContainerOf(t, render(t, testGateway(v1alpha1.GatewaySpec{Resources: tc.spec}))).Resources
			if !equality.Semantic.DeepEqual(got, tc.want) {
				t.Errorf("resources %v, want %v", got, tc.want)
			}
		})
	}
}

func TestIngress(t *testing.T) {
	for _, tc := range []struct {
		name        string
		ingress     v1alpha1.IngressSpec
		class       *string
		annotations map[string]string
		tls         []networkingv1.IngressTLS
	}{
		{name: "plain", ingress: v1alpha1.IngressSpec{Enabled: true, Host: "api.example.com"}},
		{
			name:        "class and annotations",
			ingress:     v1alpha1.IngressSpec{Enabled: true, Host: "api.example.com", ClassName: "nginx", Annotations: map[string]string{"a": "b"}},
			class:       ptr.To("nginx"),
			annotations: map[string]string{"a": "b"},
		},
		{
			name:    "TLS with the default Secret",
			ingress: v1alpha1.IngressSpec{Enabled: true, Host: "api.example.com", TLS: &v1alpha1.IngressTLSSpec{Enabled: true}},
			tls:     []networkingv1.IngressTLS{{Hosts: []string{"api.example.com"}, SecretName: "gw-tls"}},
		},
		{
			name: "TLS issued by cert-manager",
			ingress: v1alpha1.IngressSpec{Enabled: true, Host: "api.example.com", Annotations: map[string]string{"a": "b"},
				TLS: &v1alpha1.IngressTLSSpec{Enabled: true, SecretName: "api-cert", Issuer: "letsencrypt"}},
			annotations: map[string]string{"a": "b", "cert-manager.io/cluster-issuer": "letsencrypt"},
			tls:         []networkingv1.IngressTLS{{Hosts: []string{"api.example.com"}, SecretName: "api-cert"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := tc.ingress
			ing := render(t, testGateway(v1alpha1.GatewaySpec{Ingress: &spec}))[bindata.InferenceGatewayIngress].obj.(*networkingv1.Ingress)
			rule := ing.Spec.Rules[0]
			path := rule.HTTP.Paths[0]
			if rule.Host != "api.example.com" || path.Path != "/" || *path.PathType != networkingv1.PathTypePrefix ||
				path.Backend.Service.Name != "gw" || path.Backend.Service.Port.Number != 8080 {
				t.Errorf("rule %+v", rule)
			}
			if !reflect.DeepEqual(ing.Spec.IngressClassName, tc.class) || !reflect.DeepEqual(ing.Annotations, tc.annotations) || !reflect.DeepEqual(ing.Spec.TLS, tc.tls) {
				t.Errorf("class %v, annotations %v, tls %v", ing.Spec.IngressClassName, ing.Annotations, ing.Spec.TLS)
			}
		})
	}
}

func TestGatewayAPI(t *testing.T) {
	for _, tc := range []struct {
		name        string
		spec        v1alpha1.RoutingSpec
		gateway     string // the Gateway API Gateway's spec as JSON, "" for none
		annotations map[string]string
		parents     string
		hostnames   []interface{}
	}{
		{
			name:    "default mode",
			spec:    v1alpha1.RoutingSpec{Enabled: true},
			gateway: `{"gatewayClassName":"envoy","listeners":[{"name":"http","port":80,"protocol":"HTTP"}]}`,
			parents: `[{"name":"gw"}]`,
		},
		{
			name: "default mode with hostnames, class and TLS",
			spec: v1alpha1.RoutingSpec{Enabled: true,
				Gateway:   &v1alpha1.RoutingGatewaySpec{GatewayClassName: "istio", TLS: &v1alpha1.RoutingTLSSpec{Enabled: true, Issuer: "le", SecretName: "cert"}},
				HTTPRoute: &v1alpha1.RoutingHTTPRouteSpec{Hostnames: []v1alpha1.Hostname{"api.example.com", "b.example.com"}},
			},
			gateway:     `{"gatewayClassName":"istio","listeners":[{"hostname":"api.example.com","name":"https","port":443,"protocol":"HTTPS","tls":{"certificateRefs":[{"name":"cert"}]}}]}`,
			annotations: map[string]string{"cert-manager.io/cluster-issuer": "le"},
			parents:     `[{"name":"gw"}]`,
			hostnames:   []interface{}{"api.example.com", "b.example.com"},
		},
		{
			name: "parentRefs",
			spec: v1alpha1.RoutingSpec{Enabled: true, Gateway: &v1alpha1.RoutingGatewaySpec{ParentRefs: []v1alpha1.ParentReference{
				{Name: "shared", Namespace: ptr.To("infra"), SectionName: ptr.To("https"), Group: ptr.To("gateway.networking.k8s.io"), Kind: ptr.To("Gateway"), Port: ptr.To[int32](443)},
				{Name: "other"},
			}}},
			parents: `[{"group":"gateway.networking.k8s.io","kind":"Gateway","name":"shared","namespace":"infra","port":443,"sectionName":"https"},{"name":"other"}]`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := tc.spec
			objs := render(t, testGateway(v1alpha1.GatewaySpec{GatewayAPI: &spec}))
			gw := objs[bindata.InferenceGatewayGatewayAPIGateway]
			if gw.wanted != (tc.gateway != "") {
				t.Fatalf("Gateway API Gateway wanted %v", gw.wanted)
			}
			if tc.gateway != "" {
				u := gw.obj.(*unstructured.Unstructured)
				if got := jsonOf(t, u.Object["spec"]); got != tc.gateway {
					t.Errorf("Gateway API Gateway spec %s\nwant %s", got, tc.gateway)
				}
				if !reflect.DeepEqual(u.GetAnnotations(), tc.annotations) {
					t.Errorf("annotations %v, want %v", u.GetAnnotations(), tc.annotations)
				}
			}
			route := objs[bindata.InferenceGatewayHTTPRoute].obj.(*unstructured.Unstructured)
			if got := jsonOf(t, route.Object["spec"].(map[string]interface{})["parentRefs"]); got != tc.parents {
				t.Errorf("parentRefs %s, want %s", got, tc.parents)
			}
			if got, _, _ := unstructured.NestedSlice(route.Object, "spec", "hostnames"); !reflect.DeepEqual(got, tc.hostnames) {
				t.Errorf("hostnames %v, want %v", got, tc.hostnames)
			}
		})
	}
}

func jsonOf(t *testing.T, v interface{}) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestServiceMonitorSelectsTheService: the ServiceMonitor scrapes the Service's metrics port.
func TestServiceMonitorSelectsTheService(t *testing.T) {
	objs := render(t, testGateway(v1alpha1.GatewaySpec{Telemetry: &v1alpha1.TelemetrySpec{Enabled: true, Metrics: &v1alpha1.MetricsSpec{Enabled: true}}}))
	sm := objs[bindata.InferenceGatewayServiceMonitor].obj.(*unstructured.Unstructured)
	selector, _, _ := unstructured.NestedStringMap(sm.Object, "spec", "selector", "matchLabels")
	svc := serviceOf(objs)
	for k, v := range selector {
		if svc.Labels[k] != v {
			t.Errorf("the ServiceMonitor selects %s=%s, which the Service does not carry (%v)", k, v, svc.Labels)
		}
	}
	endpoints, _, _ := unstructured.NestedSlice(sm.Object, "spec", "endpoints")
	port := endpoints[0].(map[string]interface{})["port"]
	if port != portMetrics || svc.Spec.Ports[1].Name != portMetrics {
		t.Errorf("the ServiceMonitor scrapes port %v; the Service's ports are %v", port, svc.Spec.Ports)
	}
	if ns, _, _ := unstructured.NestedStringSlice(sm.Object, "spec", "namespaceSelector", "matchNames"); !reflect.DeepEqual(ns, []string{"llm"}) {
		t.Errorf("namespaceSelector %v", ns)
	}
}

func TestGatewayURL(t *testing.T) {
	tlsOn := &v1alpha1.TLSConfig{Enabled: true, CertificateRef: secretRef("c", "crt"), KeyRef: secretRef("c", "key")}
	hostnames := &v1alpha1.RoutingHTTPRouteSpec{Hostnames: []v1alpha1.Hostname{"*.example.com", "api.example.com"}}
	for _, tc := range []struct {
		name string
		spec v1alpha1.GatewaySpec
		want string
	}{
		{name: "Service, with its port", want: "http://gw.llm.svc.cluster.local:8080"},
		{name: "Service port", spec: v1alpha1.GatewaySpec{Service: &v1alpha1.ServiceSpec{Port: 80}}, want: "http://gw.llm.svc.cluster.local:80"},
		{name: "server TLS", spec: v1alpha1.GatewaySpec{Server: &v1alpha1.ServerSpec{Port: 8443, TLS: tlsOn}}, want: "https://gw.llm.svc.cluster.local:8443"},
		{name: "HTTPRoute hostname, wildcards skipped", spec: v1alpha1.GatewaySpec{GatewayAPI: &v1alpha1.RoutingSpec{Enabled: true, HTTPRoute: hostnames}}, want: "http://api.example.com"},
		{
			name: "HTTPRoute hostname with listener TLS",
			spec: v1alpha1.GatewaySpec{GatewayAPI: &v1alpha1.RoutingSpec{Enabled: true, HTTPRoute: hostnames,
				Gateway: &v1alpha1.RoutingGatewaySpec{TLS: &v1alpha1.RoutingTLSSpec{Enabled: true}}}},
			want: "https://api.example.com",
		},
		{
			name: "Gateway API without hostnames: the Service",
			spec: v1alpha1.GatewaySpec{GatewayAPI: &v1alpha1.RoutingSpec{Enabled: true, Gateway: &v1alpha1.RoutingGatewaySpec{TLS: &v1alpha1.RoutingTLSSpec{Enabled: true}}}},
			want: "http://gw.llm.svc.cluster.local:8080",
		},
		{name: "Gateway API off", spec: v1alpha1.GatewaySpec{GatewayAPI: &v1alpha1.RoutingSpec{HTTPRoute: hostnames}}, want: "http://gw.llm.svc.cluster.local:8080"},
		{
			name: "Ingress first",
			spec: v1alpha1.GatewaySpec{
				Ingress:    &v1alpha1.IngressSpec{Enabled: true, Host: "in.example.com", TLS: &v1alpha1.IngressTLSSpec{Enabled: true}},
				GatewayAPI: &v1alpha1.RoutingSpec{Enabled: true, HTTPRoute: hostnames},
			},
			want: "https://in.example.com",
		},
		{name: "Ingress without TLS", spec: v1alpha1.GatewaySpec{Ingress: &v1alpha1.IngressSpec{Enabled: true, Host: "in.example.com"}}, want: "http://in.example.com"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := gatewayURL(testGateway(tc.spec)); got != tc.want {
				t.Errorf("gatewayURL = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestServiceAccountName(t *testing.T) {
	for _, tc := range []struct {
		sa   *v1alpha1.ServiceAccountSpec
		want string
	}{
		{nil, "gw"},
		{&v1alpha1.ServiceAccountSpec{Create: true}, "gw"},
		{&v1alpha1.ServiceAccountSpec{Create: false, Name: "mine"}, "mine"},
	} {
		cr := testGateway(v1alpha1.GatewaySpec{ServiceAccount: tc.sa})
		if got := serviceAccountName(cr); got != tc.want {
			t.Errorf("serviceAccountName(%+v) = %q, want %q", tc.sa, got, tc.want)
		}
		objs := render(t, cr)
		if got := deploymentOf(objs).Spec.Template.Spec.ServiceAccountName; got != tc.want {
			t.Errorf("the pods run as %q, want %q", got, tc.want)
		}
		if got := objs[bindata.InferenceGatewayServiceAccount].obj.(*corev1.ServiceAccount).Name; got != tc.want {
			t.Errorf("the ServiceAccount is %q, want %q", got, tc.want)
		}
	}
}

// TestGatewayPodInputs: every ConfigMap and Secret the pods read at start-up, so that a change
// of any rolls them.
func TestGatewayPodInputs(t *testing.T) {
	ref := func(names ...string) []types.NamespacedName {
		var out []types.NamespacedName
		for _, n := range names {
			out = append(out, types.NamespacedName{Namespace: "llm", Name: n})
		}
		return out
	}
	spec := fullSpec()
	spec.Providers = []v1alpha1.ProviderSpec{
		{Name: "openai", Enabled: true, Env: []corev1.EnvVar{secretEnv("OPENAI_API_KEY", "keys", "openai"), {Name: "OPENAI_API_URL", ValueFrom: &corev1.EnvVarSource{
			ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "urls"}, Key: "openai"},
		}}}},
		{Name: "groq", Enabled: true, Env: []corev1.EnvVar{secretEnv("GROQ_API_KEY", "keys", "groq")}},
		{Name: "anthropic", Enabled: false, Env: []corev1.EnvVar{secretEnv("ANTHROPIC_API_KEY", "disabled", "k")}},
	}
	spec.Server.TLS.KeyRef = secretRef("key", "tls.key")
	got := gatewayPodInputs(testGateway(spec))
	want := podInputs{ConfigMaps: ref("ca", "gw-routing", "rego", "urls"), Secrets: ref("c", "key", "keys", "oidc"),
		OptionalSecrets: sets.New[string](), OptionalConfigMaps: sets.New[string]()}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("gatewayPodInputs\n got %+v\nwant %+v", got, want)
	}
	spec.Routing = &v1alpha1.ModelRoutingSpec{Enabled: true, ConfigMapRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "mine"}, Key: "r"}}
	if got := gatewayPodInputs(testGateway(spec)).ConfigMaps; !reflect.DeepEqual(got, ref("ca", "mine", "rego", "urls")) {
		t.Errorf("with a routing ConfigMap: %v", got)
	}
	if got := gatewayPodInputs(testGateway(v1alpha1.GatewaySpec{})); got.ConfigMaps != nil || got.Secrets != nil {
		t.Errorf("an empty spec reads %+v", got)
	}
}

// TestGatewayPodInputsOptional: a Secret or ConfigMap counts as optional (missing is no
// problem: the pods start without it) only while every reference to it is optional.
func TestGatewayPodInputsOptional(t *testing.T) {
	optional := func(e corev1.EnvVar) corev1.EnvVar {
		if ref := e.ValueFrom.SecretKeyRef; ref != nil {
			ref.Optional = ptr.To(true)
		}
		if ref := e.ValueFrom.ConfigMapKeyRef; ref != nil {
			ref.Optional = ptr.To(true)
		}
		return e
	}
	configMapEnv := func(name, cm string) corev1.EnvVar {
		return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{
			ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: cm}, Key: "k"}}}
	}
	tests := []struct {
		name                         string
		env                          []corev1.EnvVar
		wantSecrets, wantConfigMaps  []string
		optionalSecrets, optionalCMs []string
	}{
		{"required", []corev1.EnvVar{secretEnv("A", "keys", "a"), configMapEnv("U", "urls")}, []string{"keys"}, []string{"urls"}, nil, nil},
		{"optional", []corev1.EnvVar{optional(secretEnv("A", "keys", "a")), optional(configMapEnv("U", "urls"))}, []string{"keys"}, []string{"urls"}, []string{"keys"}, []string{"urls"}},
		{"optional once, required once", []corev1.EnvVar{optional(secretEnv("A", "keys", "a")), secretEnv("B", "keys", "b")}, []string{"keys"}, nil, nil, nil},
		{"a Secret and a ConfigMap of one name, the Secret optional", []corev1.EnvVar{optional(secretEnv("A", "same", "a")), configMapEnv("U", "same")}, []string{"same"}, []string{"same"}, []string{"same"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := gatewayPodInputs(testGateway(v1alpha1.GatewaySpec{Providers: []v1alpha1.ProviderSpec{{Name: "openai", Enabled: true, Env: tt.env}}}))
			names := func(refs []types.NamespacedName) []string {
				var out []string
				for _, r := range refs {
					out = append(out, r.Name)
				}
				return out
			}
			if !slices.Equal(names(got.Secrets), tt.wantSecrets) || !slices.Equal(names(got.ConfigMaps), tt.wantConfigMaps) {
				t.Errorf("inputs: Secrets %v, ConfigMaps %v; want %v, %v", got.Secrets, got.ConfigMaps, tt.wantSecrets, tt.wantConfigMaps)
			}
			if !got.OptionalSecrets.Equal(sets.New(tt.optionalSecrets...)) || !got.OptionalConfigMaps.Equal(sets.New(tt.optionalCMs...)) {
				t.Errorf("optional: Secrets %v, ConfigMaps %v; want %v, %v", sets.List(got.OptionalSecrets), sets.List(got.OptionalConfigMaps), tt.optionalSecrets, tt.optionalCMs)
			}
		})
	}
}

func TestRenderAllErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec v1alpha1.GatewaySpec
		want string
	}{
		{
			name: "TLS without references",
			spec: v1alpha1.GatewaySpec{Server: &v1alpha1.ServerSpec{TLS: &v1alpha1.TLSConfig{Enabled: true, CertificateRef: secretRef("c", "k")}}},
			want: "spec.server.tls.enabled needs certificateRef and keyRef",
		},
		{name: "ExternalName", spec: v1alpha1.GatewaySpec{Service: &v1alpha1.ServiceSpec{Type: "ExternalName"}}, want: "spec.service.type ExternalName"},
		{
			name: "a resource that is no quantity",
			spec: v1alpha1.GatewaySpec{Resources: &v1alpha1.ResourceRequirements{Limits: &v1alpha1.ResourceList{Memory: "lots"}}},
			want: `spec.resources.limits.memory "lots" is not a quantity`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := renderAll(renderInput{cr: testGateway(tc.spec)})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestPlaceholdersCannotInject: values substituted into a manifest stay inside their string.
func TestPlaceholdersCannotInject(t *testing.T) {
	cr := testGateway(v1alpha1.GatewaySpec{Image: "x\n  injected: true", ServiceAccount: &v1alpha1.ServiceAccountSpec{Create: true, Name: "${INSTANCE}"}})
	objs := render(t, cr)
	if got := gatewayContainerOf(t, objs).Image; got != "x\n  injected: true" {
		t.Errorf("image %q", got)
	}
	if got := deploymentOf(objs).Spec.Template.Spec.ServiceAccountName; got != "${INSTANCE}" {
		t.Errorf("a placeholder in a substituted value was substituted again: %q", got)
	}
}

// TestRenderAllLeavesTheCRAlone: rendering reads the CR; the objects share none of its maps or
// slices.
func TestRenderAllLeavesTheCRAlone(t *testing.T) {
	spec := everything()
	spec.Service.Annotations = map[string]string{"a": "b"}
	spec.Ingress.Annotations = map[string]string{"a": "b"}
	spec.Providers = []v1alpha1.ProviderSpec{{Name: "openai", Enabled: true, Env: []corev1.EnvVar{secretEnv("OPENAI_API_KEY", "keys", "k")}}}
	spec.HPA.Config = &v1alpha1.CustomHorizontalPodAutoscalerSpec{MinReplicas: ptr.To[int32](1), MaxReplicas: 3,
		Metrics: []autoscalingv2.MetricSpec{{Type: autoscalingv2.PodsMetricSourceType, Pods: &autoscalingv2.PodsMetricSource{}}}}
	spec.Replicas = ptr.To[int32](2)
	cr := testGateway(spec)
	before := cr.DeepCopy()
	objs := render(t, cr)
	for _, o := range objs {
		m := o.obj.(metav1.Object)
		m.GetLabels()["mutated"] = "yes"
		if a := m.GetAnnotations(); a != nil {
			a["mutated"] = "yes"
		}
	}
	c := gatewayContainerOf(t, objs)
	c.Env[0].ValueFrom.SecretKeyRef.Name = "mutated"
	hpa := objs[bindata.InferenceGatewayHPA].obj.(*autoscalingv2.HorizontalPodAutoscaler)
	*hpa.Spec.MinReplicas = 9
	hpa.Spec.Metrics[0].Type = "mutated"
	if !equality.Semantic.DeepEqual(cr, before) {
		t.Errorf("the CR changed")
	}
}

// FuzzRenderAll renders Gateway specs built from fuzz input: rendering never panics, the same
// input renders the same objects, and whatever renders keeps its ports consistent.
func FuzzRenderAll(f *testing.F) {
	for _, seed := range fuzzSeeds(f) {
		f.Add(seed, "gw", "http://m.example/mcp")
	}
	f.Fuzz(func(t *testing.T, specJSON []byte, name, mcpServer string) {
		var spec v1alpha1.GatewaySpec
		if err := json.Unmarshal(specJSON, &spec); err != nil {
			return
		}
		cr := &v1alpha1.Gateway{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}, Spec: spec}
		first, err1 := renderAll(renderInput{cr: cr, mcpServers: []string{mcpServer}})
		second, err2 := renderAll(renderInput{cr: cr.DeepCopy(), mcpServers: []string{mcpServer}})
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("errors differ: %v, %v", err1, err2)
		}
		_ = gatewayURL(cr)
		_ = gatewayPodInputs(cr)
		_ = providerSummary(&cr.Spec, func(string) *corev1.Secret { return &corev1.Secret{} })
		if err1 != nil {
			return
		}
		if len(first) != len(bindata.InferenceGatewayAssets) {
			t.Fatalf("%d objects", len(first))
		}
		for i := range first {
			if first[i].wanted != second[i].wanted || canonical(t, first[i].obj) != canonical(t, second[i].obj) {
				t.Fatalf("%s renders differently from the same input", first[i].asset)
			}
		}
		if enginetest.AdmittedName(name, 63) {
			for _, ro := range first {
				if err := enginetest.WellFormed(ro.obj, "ns"); err != nil {
					t.Fatalf("%s: %v", ro.asset, err)
				}
			}
		}
		objs := byAsset(first)
		c := engine.ContainerOf(deploymentOf(objs), gatewayContainer)
		if port := c.Ports[0].ContainerPort; effectiveEnv(c.Env)["SERVER_PORT"] != portString(port) || c.ReadinessProbe.HTTPGet.Port.IntVal != port {
			t.Fatalf("the gateway listens on %s, the container port is %d, the probe port %v", effectiveEnv(c.Env)["SERVER_PORT"], port, c.ReadinessProbe.HTTPGet.Port)
		}
	})
}

func canonical(t *testing.T, obj runtime.Object) string {
	t.Helper()
	data, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// fuzzSeeds are the golden CRs' specs plus one with every feature on.
func fuzzSeeds(f *testing.F) [][]byte {
	all, _ := json.Marshal(everything())
	seeds := [][]byte{all}
	for _, name := range goldenCases(f) {
		spec, _ := json.Marshal(goldenCR(f, name).Spec)
		seeds = append(seeds, spec)
	}
	// The admission table's valid Gateways, which test/reliability/dryrun renders too.
	for _, c := range testcases.GatewayAccepted {
		obj, err := c.Object()
		if err != nil {
			f.Fatal(err)
		}
		spec, _ := json.Marshal(obj["spec"])
		seeds = append(seeds, spec)
	}
	return seeds
}
