package batchgateway

import (
	"reflect"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"

	"github.com/llm-infra/llm-infra-operator/bindata"
	batchv1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/batch/v1alpha1"
)

// TestFSStorageIsWritable: with filesystem storage, the pods that mount the volume can write to
// a volume whose root belongs to root (issue 16, defect 4: "mkdirat ...: permission denied"
// while /ready stayed 200). Plain Kubernetes: fsGroup 65532 with OnRootMismatch. OpenShift: no
// fsGroup, which the restricted-v2 SCC injects from the namespace's range (and would reject
// outside it).
func TestFSStorageIsWritable(t *testing.T) {
	spec := minimalSpec()
	spec.FileStorage = &batchv1alpha1.FileStorageSpec{FS: &batchv1alpha1.FSStorageSpec{ClaimName: "files"}}
	mounting := []string{bindata.BatchGatewayAPIServerDeployment, bindata.BatchGatewayProcessorDeployment, bindata.BatchGatewayGCDeployment}
	for _, tc := range []struct {
		name      string
		spec      batchv1alpha1.LLMBatchGatewaySpec
		openShift bool
		fsGroup   *int64
	}{
		{"fs on Kubernetes", spec, false, ptr.To[int64](65532)},
		{"fs on OpenShift: the SCC's", spec, true, nil},
		{"S3 on Kubernetes: no volume, no fsGroup", minimalSpec(), false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := renderAll(renderInput{cr: testCR(tc.spec), images: goldenImages, credentialsSecret: "creds", openShift: tc.openShift})
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range objs {
				if !slices.Contains(mounting, o.asset) {
					continue
				}
				sc := o.obj.(*appsv1.Deployment).Spec.Template.Spec.SecurityContext
				if !reflect.DeepEqual(sc.FSGroup, tc.fsGroup) {
					t.Errorf("%s: fsGroup %v, want %v", o.asset, deref(sc.FSGroup), deref(tc.fsGroup))
				}
				if tc.fsGroup != nil && (sc.FSGroupChangePolicy == nil || *sc.FSGroupChangePolicy != corev1.FSGroupChangeOnRootMismatch) {
					t.Errorf("%s: fsGroupChangePolicy %v, want OnRootMismatch (no walk of a large volume at every start)", o.asset, sc.FSGroupChangePolicy)
				}
				if sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
					t.Errorf("%s: the pod must stay non-root: %+v", o.asset, sc)
				}
			}
		})
	}
}

// TestAsyncProcessorAlwaysHasItsToken: llm-d-async builds a Kubernetes client at start-up
// (ctrl.GetConfigOrDie, whatever --metrics-endpoint-auth says) and exits without a token (issue
// 16, defect 5). The pod asks for it, so a ServiceAccount edited to automount false, or a
// policy defaulting it off, cannot take it away.
func TestAsyncProcessorAlwaysHasItsToken(t *testing.T) {
	objs := render(t, testCR(asyncSpec()))
	d := deploymentOf(t, objs, bindata.BatchGatewayAsyncProcessorDeployment)
	if got := d.Spec.Template.Spec.AutomountServiceAccountToken; got == nil || !*got {
		t.Errorf("async processor pod automountServiceAccountToken = %v, want true", got)
	}
	for _, arg := range d.Spec.Template.Spec.Containers[0].Args {
		if arg == "--metrics-endpoint-auth=false" {
			return // the token is needed even so: that is the point
		}
	}
	t.Errorf("args %v: the test assumes metrics auth off", d.Spec.Template.Spec.Containers[0].Args)
}

// TestTLSWithHTTPRouteSpeaksHTTPS: with spec.tls and spec.httpRoute, the apiserver's port says
// appProtocol https and a BackendTLSPolicy makes the Gateway speak HTTPS to it, verifying the
// Service's name against the TLS Secret's CA (issue 16, defect 2: plain HTTP reached the HTTPS
// port). Without the route, no policy.
func TestTLSWithHTTPRouteSpeaksHTTPS(t *testing.T) {
	spec := minimalSpec()
	spec.TLS = &batchv1alpha1.TLSSpec{Enabled: true, SecretName: "api-tls"}
	spec.HTTPRoute = &batchv1alpha1.HTTPRouteSpec{Enabled: true}
	objs, err := renderAll(renderInput{cr: testCR(spec), images: goldenImages, credentialsSecret: "creds", backendCA: "CA PEM"})
	if err != nil {
		t.Fatal(err)
	}
	byA := map[string]renderedObject{}
	for _, o := range objs {
		byA[o.asset] = o
	}
	svc := byA[bindata.BatchGatewayAPIServerService].obj.(*corev1.Service)
	if p := svc.Spec.Ports[0]; p.Name != "https" || p.AppProtocol == nil || *p.AppProtocol != "https" {
		t.Errorf("apiserver port %+v: want https with appProtocol https", p)
	}
	policy := byA[bindata.BatchGatewayAPIServerBackendTLSPolicy]
	if !policy.wanted {
		t.Fatal("no BackendTLSPolicy")
	}
	u := policy.obj.(*unstructured.Unstructured)
	targets, _, _ := unstructured.NestedSlice(u.Object, "spec", "targetRefs")
	hostname, _, _ := unstructured.NestedString(u.Object, "spec", "validation", "hostname")
	refs, _, _ := unstructured.NestedSlice(u.Object, "spec", "validation", "caCertificateRefs")
	names := NamesFor("gw")
	if len(targets) != 1 || targets[0].(map[string]interface{})["name"] != svc.Name || targets[0].(map[string]interface{})["sectionName"] != "https" {
		t.Errorf("targetRefs %v: want the Service %s, port https", targets, svc.Name)
	}
	if hostname != svc.Name+".llm.svc" {
		t.Errorf("hostname %q, want %s.llm.svc", hostname, svc.Name)
	}
	ca := byA[bindata.BatchGatewayAPIServerBackendCA]
	cm := ca.obj.(*corev1.ConfigMap)
	if !ca.wanted || len(refs) != 1 || refs[0].(map[string]interface{})["name"] != cm.Name || cm.Data["ca.crt"] != "CA PEM" {
		t.Errorf("CA refs %v, ConfigMap %s wanted %v data %v", refs, cm.Name, ca.wanted, cm.Data)
	}
	if cm.Name != names.APIServer+"-backend-ca" {
		t.Errorf("CA ConfigMap %q", cm.Name)
	}

	spec.HTTPRoute = nil
	for _, o := range render(t, testCR(spec)) {
		if (o.asset == bindata.BatchGatewayAPIServerBackendTLSPolicy || o.asset == bindata.BatchGatewayAPIServerBackendCA) && o.wanted {
			t.Errorf("%s without an HTTPRoute", o.asset)
		}
	}
}

// TestBackendCAConfigMapOnlyWithACertificate: the BackendTLSPolicy's CA ConfigMap is written only
// when the apiserver's TLS Secret holds a certificate (backendCA keeps its CERTIFICATE blocks,
// engine.CertificatesOnly: "" when there are none, or no Secret yet), issue 33: "none written if
// there are none"; the BackendTLSPolicy is there either way.
func TestBackendCAConfigMapOnlyWithACertificate(t *testing.T) {
	spec := minimalSpec()
	spec.TLS = &batchv1alpha1.TLSSpec{Enabled: true, SecretName: "api-tls"}
	spec.HTTPRoute = &batchv1alpha1.HTTPRouteSpec{Enabled: true}
	const certificate = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"
	for _, tc := range []struct {
		name      string
		backendCA string
	}{
		{"no certificate in the Secret, or no Secret yet", ""},
		{"a certificate", certificate},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := renderAll(renderInput{cr: testCR(spec), images: goldenImages, credentialsSecret: "creds", backendCA: tc.backendCA})
			if err != nil {
				t.Fatal(err)
			}
			byA := map[string]renderedObject{}
			for _, o := range objs {
				byA[o.asset] = o
			}
			if !byA[bindata.BatchGatewayAPIServerBackendTLSPolicy].wanted {
				t.Error("no BackendTLSPolicy")
			}
			cm := byA[bindata.BatchGatewayAPIServerBackendCA]
			if cm.wanted != (tc.backendCA != "") {
				t.Fatalf("CA ConfigMap wanted = %v, want %v", cm.wanted, tc.backendCA != "")
			}
			if got := cm.obj.(*corev1.ConfigMap).Data["ca.crt"]; cm.wanted && got != tc.backendCA {
				t.Errorf("CA ConfigMap ca.crt = %q, want %q", got, tc.backendCA)
			}
		})
	}
}

func deref(p *int64) interface{} {
	if p == nil {
		return nil
	}
	return *p
}
