// Command certgen writes the local live cluster's key material when openssl
// is not installed (hack/local-cluster.sh prefers openssl): a CA, the
// kube-apiserver serving certificate signed by it, and the ServiceAccount
// token signing key pair. Standard library only.
//
//	certgen -dir DIR -san IP:127.0.0.1,DNS:localhost,...
//
// Files: ca.crt ca.key apiserver.crt apiserver.key sa.key sa.pub (PEM).
package main

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"flag"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"
)

func main() {
	dir := flag.String("dir", ".", "output directory")
	sans := flag.String("san", "IP:127.0.0.1,DNS:localhost", "comma-separated IP:x / DNS:x subject alternative names of the serving certificate")
	flag.Parse()
	if err := run(*dir, *sans); err != nil {
		fmt.Fprintln(os.Stderr, "certgen:", err)
		os.Exit(1)
	}
}

func run(dir, sans string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	now := time.Now()

	caKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	caTmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "llm-infra-local-cluster-ca"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.AddDate(10, 0, 0),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return err
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return err
	}

	srvKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	srvTmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: "kube-apiserver"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.AddDate(10, 0, 0),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, san := range strings.Split(sans, ",") {
		kind, value, ok := strings.Cut(strings.TrimSpace(san), ":")
		switch {
		case ok && kind == "IP" && net.ParseIP(value) != nil:
			srvTmpl.IPAddresses = append(srvTmpl.IPAddresses, net.ParseIP(value))
		case ok && kind == "DNS" && value != "":
			srvTmpl.DNSNames = append(srvTmpl.DNSNames, value)
		default:
			return fmt.Errorf("bad SAN %q (want IP:<ip> or DNS:<name>)", san)
		}
	}
	srvDER, err := x509.CreateCertificate(rand.Reader, srvTmpl, caCert, &srvKey.PublicKey, caKey)
	if err != nil {
		return err
	}

	saKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	saPub, err := x509.MarshalPKIXPublicKey(&saKey.PublicKey)
	if err != nil {
		return err
	}

	files := []struct {
		name, typ string
		der       []byte
	}{
		{"ca.crt", "CERTIFICATE", caDER},
		{"ca.key", "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(caKey)},
		{"apiserver.crt", "CERTIFICATE", srvDER},
		{"apiserver.key", "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(srvKey)},
		{"sa.key", "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(saKey)},
		{"sa.pub", "PUBLIC KEY", saPub},
	}
	for _, f := range files {
		data := pem.EncodeToMemory(&pem.Block{Type: f.typ, Bytes: f.der})
		if err := os.WriteFile(filepath.Join(dir, f.name), data, 0o600); err != nil {
			return err
		}
	}
	return nil
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		panic(err)
	}
	return n
}
