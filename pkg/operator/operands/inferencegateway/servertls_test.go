package inferencegateway

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine/enginetest"
)

// testCertificatePEM is a self-signed serving certificate for dnsNames and ips, PEM.
func testCertificatePEM(t *testing.T, dnsNames []string, ips ...net.IP) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "gateway"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		DNSNames: dnsNames, IPAddresses: ips,
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

// TestServerCertificateProblem: the gateway presents the first certificate of the chain and
// calls itself at the Service's name, so that certificate must be valid for the name (issue
// 16, defect 1: a certificate for 127.0.0.1 or another host serves no model).
func TestServerCertificateProblem(t *testing.T) {
	const host = "gw.llm.svc"
	for _, tc := range []struct {
		name string
		pem  string
		want string // a part of the problem; "" for none
	}{
		{"the Service's name", testCertificatePEM(t, []string{host, host + ".cluster.local"}), ""},
		{"a wildcard for the namespace's Services", testCertificatePEM(t, []string{"*.llm.svc"}), ""},
		{"the chain: the first certificate decides", testCertificatePEM(t, []string{host}) + testCertificatePEM(t, []string{"ca.example.com"}), ""},
		{"a key before the certificate", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n" + testCertificatePEM(t, []string{host}), ""},
		{"loopback only (the case of issue 16)", testCertificatePEM(t, nil, net.ParseIP("127.0.0.1")), "is not valid for gw.llm.svc (it is for [127.0.0.1])"},
		{"another host", testCertificatePEM(t, []string{"api.example.com"}), "is not valid for gw.llm.svc (it is for [api.example.com])"},
		{"the chain: a later certificate does not count", testCertificatePEM(t, []string{"api.example.com"}) + testCertificatePEM(t, []string{host}), "is not valid for gw.llm.svc"},
		{"not PEM", "tls.crt", "holds no PEM certificate"},
		{"empty", "", "holds no PEM certificate"},
		{"a certificate block that does not parse", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n", "does not parse"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := serverCertificateProblem([]byte(tc.pem), host)
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("problem %q, want %q", got, tc.want)
			}
		})
	}
}

// TestServerCertificateInvalidIsReported: a Gateway whose server certificate is not valid for
// the name the gateway calls itself by is Degraded with ServerCertificateInvalid, naming the
// Secret and the names but never the content; a certificate for the Service's name clears it.
// The Deployment is applied either way (the pods start; a fixed Secret rolls them).
func TestServerCertificateInvalidIsReported(t *testing.T) {
	env := newFakeEnv(t, nil)
	certificate := testCertificatePEM(t, nil, net.ParseIP("127.0.0.1"))
	tls := secret("gw-tls", map[string]string{"tls.crt": certificate, "tls.key": "k"})
	if _, err := env.kube.CoreV1().Secrets(ns).Create(env.ctx, tls, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.createGateway(&v1alpha1.Gateway{ObjectMeta: metav1.ObjectMeta{Name: "gw"}, Spec: v1alpha1.GatewaySpec{
		Server: &v1alpha1.ServerSpec{TLS: &v1alpha1.TLSConfig{Enabled: true, CertificateRef: secretRef("gw-tls", "tls.crt"), KeyRef: secretRef("gw-tls", "tls.key")}},
	}})
	_ = env.syncGateway("gw") // the Secret's watch starts in this sync
	enginetest.WaitFor(t, "the Secret in its watch", func() bool { _, err := env.op.secrets().Get(typesName(ns, "gw-tls")); return err == nil })
	if err := env.syncGateway("gw"); err != nil {
		t.Fatal(err)
	}
	degraded := env.expectCondition("gw", v1alpha1.ConditionDegraded, metav1.ConditionTrue, v1alpha1.ReasonServerCertificateInvalid)
	for _, part := range []string{"Secret llm/gw-tls", "not valid for gw.llm.svc", "[127.0.0.1]"} {
		if !strings.Contains(degraded.Message, part) {
			t.Errorf("message %q does not say %q", degraded.Message, part)
		}
	}
	if strings.Contains(degraded.Message, "BEGIN") {
		t.Errorf("the message shows the certificate: %q", degraded.Message)
	}
	if env.deployment("gw") == nil {
		t.Errorf("no Deployment: a certificate problem must not block the rest")
	}

	tls.Data["tls.crt"] = []byte(testCertificatePEM(t, []string{"gw.llm.svc"}))
	if _, err := env.kube.CoreV1().Secrets(ns).Update(env.ctx, tls, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	enginetest.WaitFor(t, "the new certificate in the watch", func() bool {
		obj, err := env.op.secrets().Get(typesName(ns, "gw-tls"))
		return err == nil && serverCertificateProblem(secretData(obj, "tls.crt"), "gw.llm.svc") == ""
	})
	if err := env.syncGateway("gw"); err != nil {
		t.Fatal(err)
	}
	if c := meta.FindStatusCondition(env.gateway("gw").Status.Conditions, v1alpha1.ConditionDegraded); c == nil || c.Status != metav1.ConditionFalse {
		t.Errorf("with a certificate for gw.llm.svc: Degraded = %+v", c)
	}
}

// secretData is one key of a cached Secret.
func secretData(obj interface{}, key string) []byte {
	s, _ := obj.(*corev1.Secret)
	if s == nil {
		return nil
	}
	return s.Data[key]
}
