package operands

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

// servingCert is a self-signed serving certificate for the names and addresses a Gateway is
// reached by, and a client that trusts it.
func servingCert(dnsNames []string, ips []net.IP) (certPEM, keyPEM []byte, client *http.Client) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	Expect(err).NotTo(HaveOccurred())
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: dnsNames[0]},
		NotBefore:    time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA:        true, BasicConstraintsValid: true,
		DNSNames: dnsNames, IPAddresses: ips,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	Expect(err).NotTo(HaveOccurred())
	keyDER, err := x509.MarshalECPrivateKey(key)
	Expect(err).NotTo(HaveOccurred())
	cert, err := x509.ParseCertificate(der)
	Expect(err).NotTo(HaveOccurred())
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	client = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), client
}

// TLS on the Gateway's server (issue 16, defects 1 and 2). The gateway calls itself at
// https://SERVER_HOST:SERVER_PORT for every provider request: before the fix it was Ready and
// served no model. Here a certificate that does not name the Service first makes the Gateway
// Degraded/ServerCertificateInvalid (the operator says why instead of reporting a gateway that
// serves nothing), then the right certificate clears it and a chat completion goes through the
// Service over HTTPS, the gateway's calls to itself included (/v1/models lists the provider's
// models only when they succeed).
var _ = Describe("Inference gateway TLS on real pods", Ordered, func() {
	It("reports a certificate without the Service's name, then serves chat completions over HTTPS", func(ctx SpecContext) {
		ns := namespace(ctx, "operands-gateway-tls")
		gw, plain := deployGatewaySample(ctx, ns, nil)
		eventuallyChat(ctx, plain, nil, "before TLS")
		svc, err := fw.kube.CoreV1().Services(ns).Get(ctx, gatewayCR, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		serviceHost := gatewayCR + "." + ns + ".svc"

		By("a certificate for another name: Degraded/ServerCertificateInvalid, naming the Service's name")
		wrongPEM, wrongKey, _ := servingCert([]string{"not-the-gateway.example"}, []net.IP{net.ParseIP(svc.Spec.ClusterIP)})
		apply(ctx, ns, tlsSecret(wrongPEM, wrongKey))
		patch := []byte(`{"spec":{"server":{"tls":{"enabled":true,` +
			`"certificateRef":{"name":"gateway-tls","key":"tls.crt"},"keyRef":{"name":"gateway-tls","key":"tls.key"}}}}}`)
		_, err = resource(gw, ns).Patch(ctx, gatewayCR, types.MergePatchType, patch, metav1.PatchOptions{})
		Expect(err).NotTo(HaveOccurred(), "spec.server.tls with host 0.0.0.0 must be accepted")
		Eventually(func(g Gomega) {
			c := condition(g, ctx, gw, ns, "Degraded")
			g.Expect(c["status"]).To(Equal("True"))
			g.Expect(c["reason"]).To(Equal("ServerCertificateInvalid"))
			g.Expect(c["message"]).To(ContainSubstring(serviceHost))
		}).WithContext(ctx).WithTimeout(readyTimeout).WithPolling(poll).Should(Succeed())

		By("the certificate for the Service's names: Degraded clears, the Deployment rolls out")
		names := []string{serviceHost + ".cluster.local", serviceHost, gatewayCR}
		certPEM, keyPEM, client := servingCert(names, []net.IP{net.ParseIP(svc.Spec.ClusterIP)})
		apply(ctx, ns, tlsSecret(certPEM, keyPEM))
		Eventually(func(g Gomega) {
			c := condition(g, ctx, gw, ns, "Degraded")
			g.Expect(c["status"]).To(Equal("False"), "%v", c["message"])
		}).WithContext(ctx).WithTimeout(readyTimeout).WithPolling(poll).Should(Succeed())
		waitRolledOut(ctx, ns)
		waitCondition(ctx, gw, ns, "Available")

		url := fmt.Sprintf("https://%s:8080", svc.Spec.ClusterIP)
		By("a chat completion over HTTPS through " + url)
		Eventually(func(g Gomega) {
			resp, err := postWith(ctx, client, url+"/v1/chat/completions", chatRequest("over tls", false))
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(resp.code).To(Equal(http.StatusOK), string(resp.body))
			g.Expect(string(resp.body)).To(ContainSubstring("over tls"))
		}).WithContext(ctx).WithTimeout(readyTimeout).WithPolling(poll).Should(Succeed())
		resp, err := postWith(ctx, client, url+"/v1/models", nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.code).To(Equal(http.StatusOK), string(resp.body))
		Expect(string(resp.body)).To(ContainSubstring(simModel), "the gateway lists no models over TLS (its calls to itself fail)")
		By("plain HTTP is no longer served on the port")
		code, body, err := do(ctx, http.MethodGet, plain+"/v1/models", nil, nil)
		Expect(err != nil || code == http.StatusBadRequest).To(BeTrue(), "plain HTTP still answered %d %s", code, body)
	})
})

func tlsSecret(certPEM, keyPEM []byte) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "gateway-tls"},
		"type":       "kubernetes.io/tls",
		"stringData": map[string]any{"tls.crt": string(certPEM), "tls.key": string(keyPEM)},
	}}
}

type response struct {
	code int
	body []byte
}

// postWith sends body (POST) or nothing (GET) with client.
func postWith(ctx context.Context, client *http.Client, url string, body []byte) (response, error) {
	method := http.MethodGet
	if body != nil {
		method = http.MethodPost
	}
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return response{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return response{}, err
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	_, err = buf.ReadFrom(resp.Body)
	return response{code: resp.StatusCode, body: buf.Bytes()}, err
}
