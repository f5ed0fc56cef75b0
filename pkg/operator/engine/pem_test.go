package engine

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"strings"
	"testing"

	certutil "k8s.io/client-go/util/cert"
)

func TestCertificatesOnly(t *testing.T) {
	certificate := func(cn string) string {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		c, err := certutil.NewSelfSignedCACert(certutil.Config{CommonName: cn}, key)
		if err != nil {
			t.Fatal(err)
		}
		return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw}))
	}
	key := func() string {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		der, err := x509.MarshalECPrivateKey(k)
		if err != nil {
			t.Fatal(err)
		}
		return string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}))
	}
	ca, intermediate, privateKey := certificate("ca"), certificate("intermediate"), key()

	for _, tc := range []struct {
		name string
		in   string
		want string
	}{
		{name: "one certificate, kept byte for byte", in: ca, want: ca},
		{name: "a chain with blank lines between, kept byte for byte", in: intermediate + "\n" + ca + "\n", want: intermediate + "\n" + ca + "\n"},
		{name: "a bundle with the key: the key left out", in: intermediate + privateKey + ca, want: intermediate + ca},
		{name: "the key first", in: privateKey + ca, want: ca},
		{name: "a key alone: nothing", in: privateKey, want: ""},
		{name: "text before a certificate left out", in: "secret-token\n" + ca, want: ca},
		{name: "text after a certificate left out", in: ca + "password=hunter2\n", want: ca},
		{name: "a certificate block with headers left out", in: "-----BEGIN CERTIFICATE-----\nProc-Type: 4,ENCRYPTED\n\nAAAA\n-----END CERTIFICATE-----\n" + ca, want: ca},
		{name: "not PEM at all: nothing", in: "hunter2", want: ""},
		{name: "empty", in: "", want: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := CertificatesOnly([]byte(tc.in))
			if got != tc.want {
				t.Errorf("CertificatesOnly:\n got %q\nwant %q", got, tc.want)
			}
			if strings.Contains(got, "PRIVATE KEY") || strings.Contains(got, "hunter2") || strings.Contains(got, "secret-token") {
				t.Errorf("a non-certificate part was kept: %q", got)
			}
		})
	}
}
