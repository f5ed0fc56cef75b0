package batchgateway

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/llm-infra/llm-infra-operator/bindata"
	batchv1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/batch/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// issuersAllowed is a Policy whose ClusterIssuer list is set to list.
func issuersAllowed(list string) engine.Policy {
	return engine.PolicyFromEnv(func(env string) (string, bool) { return list, env == engine.AllowedClusterIssuersEnv })
}

// TestPolicyOfCertificate: the apiserver's Certificate from a ClusterIssuer the administrator
// does not allow is not wanted and is reported; a namespaced Issuer is always allowed; without
// a list every issuer is, as upstream (issue 33).
func TestPolicyOfCertificate(t *testing.T) {
	tests := []struct {
		name       string
		kind       string
		issuer     string
		policy     engine.Policy
		wanted     bool
		refusedFor string
	}{
		{name: "no list: any ClusterIssuer", kind: "ClusterIssuer", issuer: "le", wanted: true},
		{name: "an allowed ClusterIssuer", kind: "ClusterIssuer", issuer: "le", policy: issuersAllowed("internal-ca,le"), wanted: true},
		{name: "a ClusterIssuer not allowed", kind: "ClusterIssuer", issuer: "le", policy: issuersAllowed("internal-ca"), refusedFor: "le"},
		{name: "none allowed", kind: "ClusterIssuer", issuer: "le", policy: issuersAllowed(""), refusedFor: "le"},
		{name: "the namespace's Issuer", kind: "Issuer", issuer: "le", policy: issuersAllowed(""), wanted: true},
		{name: "no kind: cert-manager's default, an Issuer", issuer: "le", policy: issuersAllowed(""), wanted: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := minimalSpec()
			spec.TLS = &batchv1alpha1.TLSSpec{Enabled: true, CertManager: &batchv1alpha1.CertManagerSpec{IssuerName: tt.issuer, IssuerKind: tt.kind}}
			cr := testCR(spec)
			refused := notAllowed(cr, tt.policy)
			switch {
			case tt.refusedFor == "" && len(refused) > 0:
				t.Errorf("refused %+v", refused)
			case tt.refusedFor != "" && (len(refused) != 1 || refused[0].Name != tt.refusedFor || refused[0].Field != "spec.tls.certManager.issuerName"):
				t.Errorf("refused %+v, want the ClusterIssuer %s", refused, tt.refusedFor)
			}
			objs, err := renderAll(renderInput{cr: cr, images: goldenImages, credentialsSecret: credentialsSecretFor(cr), policy: tt.policy})
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(objs, func(o renderedObject) bool { return o.asset == bindata.BatchGatewayAPIServerCertificate })
			if objs[i].wanted != tt.wanted {
				t.Errorf("Certificate wanted %v, want %v", objs[i].wanted, tt.wanted)
			}
		})
	}
}

// TestClusterIssuerNotAllowed: the sync applies everything but the Certificate, and Degraded
// with a Warning event names the issuer and where the administrator lists the allowed ones.
func TestClusterIssuerNotAllowed(t *testing.T) {
	env := newFakeEnv(t, withCRDs(optionalCRDs...), withObjects(credentials(ns, "creds", nil)), withPolicy(issuersAllowed("internal-ca")))
	cr := minimalCR(t, "gw")
	cr.Spec.TLS = &batchv1alpha1.TLSSpec{Enabled: true, CertManager: &batchv1alpha1.CertManagerSpec{IssuerName: "letsencrypt", IssuerKind: "ClusterIssuer"}}
	env.create(cr)
	if err := env.sync(ns, "gw"); err != nil {
		t.Fatal(err)
	}
	if env.object(engine.CertificateGVR, ns, NamesFor("gw").APIServerTLS) != nil {
		t.Error("a Certificate from a ClusterIssuer not allowed was created")
	}
	if env.object(podConfigMaps, ns, NamesFor("gw").APIServerConfig) == nil {
		t.Error("the rest of the CR must be applied")
	}
	c := env.expectCondition(ns, "gw", batchv1alpha1.ConditionDegraded, metav1.ConditionTrue, "ClusterIssuerNotAllowed")
	for _, want := range []string{`"letsencrypt"`, engine.AllowedClusterIssuersEnv, "issuerKind: Issuer"} {
		if !strings.Contains(c.Message, want) {
			t.Errorf("Degraded %q lacks %q", c.Message, want)
		}
	}
	if !slices.ContainsFunc(env.recorder.Events(), func(ev *corev1.Event) bool {
		return ev.Type == corev1.EventTypeWarning && ev.Reason == "ClusterIssuerNotAllowed"
	}) {
		t.Error("no Warning event ClusterIssuerNotAllowed")
	}
}
