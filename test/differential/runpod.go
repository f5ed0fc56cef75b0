package differential

import (
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
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// GPUClock is the clock of a GPU's differential run, upstream's (igw-render -clock) and the
// operator's alike: startedAt and expiresAt are this plus nothing and plus maxRuntime.
var GPUClock = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// RunPodProxyDomain is the domain of RunPod's proxy: a pod's http port p is reached at
// https://<pod>-<p>.proxy.runpod.net.
const RunPodProxyDomain = ".proxy.runpod.net"

// RunPodProxy is a loopback stand-in for RunPod's proxy: an HTTPS server with a certificate
// for *.proxy.runpod.net, made for the run, so that a GPU's readiness probe (upstream's own
// http.Client, or the operator's) is answered by the fake provider and nothing leaves the
// machine.
type RunPodProxy struct {
	// Address is the server's host:port, which every *.proxy.runpod.net host is dialled at.
	Address string
	// CAFile is the PEM file of the certificate (its own CA), for igw-render's -runpod-proxy-ca.
	CAFile string
	// Client reaches the stand-in for every *.proxy.runpod.net URL and refuses every other.
	Client *http.Client
}

// StartRunPodProxy serves handler as RunPod's proxy until the test ends.
func StartRunPodProxy(tb testing.TB, handler http.Handler) *RunPodProxy {
	tb.Helper()
	cert, certPEM, err := proxyCertificate()
	if err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(handler)
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	srv.StartTLS()
	tb.Cleanup(srv.Close)
	caFile := filepath.Join(tb.TempDir(), "runpod-proxy-ca.pem")
	if err := os.WriteFile(caFile, certPEM, 0o600); err != nil {
		tb.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(certPEM)
	address := srv.Listener.Addr().String()
	dialer := &net.Dialer{}
	transport := &http.Transport{
		Proxy: nil,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			host, _, err := net.SplitHostPort(addr)
			if err != nil || !strings.HasSuffix(host, RunPodProxyDomain) {
				return nil, fmt.Errorf("dial %s: only *%s is reachable in the test", addr, RunPodProxyDomain)
			}
			return dialer.DialContext(ctx, network, address)
		},
		TLSClientConfig:   &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12},
		DisableKeepAlives: true,
	}
	tb.Cleanup(transport.CloseIdleConnections)
	return &RunPodProxy{Address: address, CAFile: caFile, Client: &http.Client{Transport: transport, Timeout: 5 * time.Second}}
}

// proxyCertificate is a self-signed certificate for *.proxy.runpod.net, and its PEM.
func proxyCertificate() (tls.Certificate, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	template := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "*" + RunPodProxyDomain},
		DNSNames:              []string{"*" + RunPodProxyDomain},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, template, template, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	cert, err := tls.X509KeyPair(certPEM, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}))
	return cert, certPEM, err
}
