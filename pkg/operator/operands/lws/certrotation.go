package lws

import (
	"bytes"
	"context"
	"crypto/x509"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/cert"

	"github.com/openshift/library-go/pkg/crypto"
	"github.com/openshift/library-go/pkg/operator/certrotation"
	"github.com/openshift/library-go/pkg/operator/events"

	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// Validity of what OperatorCA issues. The serving certificates are renewed at the latest
// halfway through their life, so a missed sync or two never lets one expire; certrotation
// renews the signer at 80% of its life and keeps the old CA in the bundle while certificates
// it signed may still be served.
const (
	OperatorCAValidity          = 2 * 365 * 24 * time.Hour
	OperatorCARefresh           = 365 * 24 * time.Hour
	OperatorServingCertValidity = 90 * 24 * time.Hour
	OperatorServingCertRefresh  = 45 * 24 * time.Hour
)

// OperatorCA is a CA the operator keeps itself, with library-go's certrotation: a signing CA in
// a Secret (RotatedSigningCASecret), the bundle of CAs to trust in a ConfigMap
// (CABundleConfigMap, under ca-bundle.crt) and serving certificates it signs
// (RotatedSelfSignedCertKeySecret), each renewed before it expires. Every call checks and, when
// due, rotates: the operand's periodic resync is what rotates them.
type OperatorCA struct {
	Namespace string
	// SignerSecret and BundleConfigMap name the CA's Secret and its bundle's ConfigMap.
	SignerSecret    string
	BundleConfigMap string
	// Owner, when set, becomes an owner reference of everything the CA writes.
	Owner *metav1.OwnerReference
	// Description is set on the objects (openshift.io/description) to say what they are for.
	Description string

	Secrets          corev1listers.SecretLister
	ConfigMaps       corev1listers.ConfigMapLister
	SecretClient     corev1client.SecretsGetter
	ConfigMapsClient corev1client.ConfigMapsGetter
	Recorder         events.Recorder
}

// IssuedCA is the CA's state after Ensure: the signer and the bundle to trust.
type IssuedCA struct {
	Signer *crypto.CA
	// Bundle is every CA certificate a client must trust (the current signer and, after a
	// rotation, the previous ones still valid), PEM-encoded.
	Bundle      []byte
	bundleCerts []*x509.Certificate
}

// Ensure creates or rotates the signing CA and its bundle.
func (c OperatorCA) Ensure(ctx context.Context) (*IssuedCA, error) {
	annotations := certrotation.AdditionalAnnotations{Description: c.Description}
	signer, _, err := certrotation.RotatedSigningCASecret{
		Namespace: c.Namespace, Name: c.SignerSecret,
		Validity: OperatorCAValidity, Refresh: OperatorCARefresh,
		Owner: c.Owner, AdditionalAnnotations: annotations,
		Lister: c.Secrets, Client: labellingSecrets{c.SecretClient}, EventRecorder: c.Recorder,
	}.EnsureSigningCertKeyPair(ctx)
	if err != nil {
		return nil, fmt.Errorf("signing CA Secret %s: %w", cache.NewObjectName(c.Namespace, c.SignerSecret).String(), err)
	}
	if signer == nil {
		// certrotation ignores a write conflict and returns nothing: the informer brings the
		// newer Secret and the next sync.
		return nil, fmt.Errorf("signing CA Secret %s changed while it was written; retrying", cache.NewObjectName(c.Namespace, c.SignerSecret).String())
	}
	certs, err := certrotation.CABundleConfigMap{
		Namespace: c.Namespace, Name: c.BundleConfigMap,
		Owner: c.Owner, AdditionalAnnotations: annotations,
		Lister: c.ConfigMaps, Client: c.ConfigMapsClient, EventRecorder: c.Recorder,
	}.EnsureConfigMapCABundle(ctx, signer, cache.NewObjectName(c.Namespace, c.SignerSecret).String())
	if err != nil {
		return nil, fmt.Errorf("CA bundle ConfigMap %s: %w", cache.NewObjectName(c.Namespace, c.BundleConfigMap).String(), err)
	}
	if len(certs) == 0 {
		return nil, fmt.Errorf("CA bundle ConfigMap %s changed while it was written; retrying", cache.NewObjectName(c.Namespace, c.BundleConfigMap).String())
	}
	bundle, err := crypto.EncodeCertificates(certs...)
	if err != nil {
		return nil, err
	}
	return &IssuedCA{Signer: signer, Bundle: bundle, bundleCerts: certs}, nil
}

// EnsureServingCertificate creates or renews the serving certificate of hostnames in the TLS
// Secret secretName (tls.crt, tls.key), signed by ca. An existing Secret of another issuer is
// taken over: its certificate is replaced.
func (c OperatorCA) EnsureServingCertificate(ctx context.Context, ca *IssuedCA, secretName string, hostnames []string) (*corev1.Secret, error) {
	secret, err := certrotation.RotatedSelfSignedCertKeySecret{
		Namespace: c.Namespace, Name: secretName,
		Validity: OperatorServingCertValidity, Refresh: OperatorServingCertRefresh,
		Owner: c.Owner, AdditionalAnnotations: certrotation.AdditionalAnnotations{Description: c.Description},
		CertCreator: &certrotation.ServingRotation{Hostnames: func() []string { return hostnames }},
		Lister:      c.Secrets, Client: labellingSecrets{c.SecretClient}, EventRecorder: c.Recorder,
	}.EnsureTargetCertKeyPair(ctx, ca.Signer, ca.bundleCerts)
	if err != nil {
		return nil, fmt.Errorf("serving certificate Secret %s: %w", cache.NewObjectName(c.Namespace, secretName).String(), err)
	}
	if secret == nil {
		return nil, fmt.Errorf("serving certificate Secret %s changed while it was written; retrying", cache.NewObjectName(c.Namespace, secretName).String())
	}
	return secret, nil
}

// labellingSecrets puts the operator's managed-by label on every Secret certrotation creates or
// updates through it. certrotation labels what it writes only with its own
// (auth.openshift.io/managed-certificate-type), and the ValidatingAdmissionPolicy installed with
// the operator (deploy/15_secrets-policy.yaml) refuses the operator's ServiceAccount any Secret
// without the managed-by label: without it the operator's CA could not be created at all.
type labellingSecrets struct{ corev1client.SecretsGetter }

func (l labellingSecrets) Secrets(namespace string) corev1client.SecretInterface {
	return labellingSecretInterface{l.SecretsGetter.Secrets(namespace)}
}

type labellingSecretInterface struct{ corev1client.SecretInterface }

func (l labellingSecretInterface) Create(ctx context.Context, secret *corev1.Secret, opts metav1.CreateOptions) (*corev1.Secret, error) {
	return l.SecretInterface.Create(ctx, withManagedByLabel(secret), opts)
}

func (l labellingSecretInterface) Update(ctx context.Context, secret *corev1.Secret, opts metav1.UpdateOptions) (*corev1.Secret, error) {
	return l.SecretInterface.Update(ctx, withManagedByLabel(secret), opts)
}

// withManagedByLabel is a copy of the Secret with the operator's managed-by label.
func withManagedByLabel(secret *corev1.Secret) *corev1.Secret {
	labelled := secret.DeepCopy()
	if labelled.Labels == nil {
		labelled.Labels = map[string]string{}
	}
	labelled.Labels[engine.ManagedByLabel] = engine.ManagedByValue
	return labelled
}

// CertificateSignedBy says whether the TLS Secret's certificate (tls.crt, its first
// certificate) verifies against one of the CAs of the PEM bundle. It is how a step tells
// which certificate source issued a Secret, whatever annotations earlier sources left on it.
func CertificateSignedBy(secret *corev1.Secret, bundle []byte) bool {
	if secret == nil || len(bundle) == 0 {
		return false
	}
	leaves, err := cert.ParseCertsPEM(secret.Data[corev1.TLSCertKey])
	if err != nil || len(leaves) == 0 {
		return false
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(bundle) {
		return false
	}
	intermediates := x509.NewCertPool()
	for _, c := range leaves[1:] {
		intermediates.AddCert(c)
	}
	_, err = leaves[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: intermediates, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}})
	return err == nil
}

// MergeCABundles is the union of PEM bundles, each certificate once, in the order first seen.
// Bundles that do not parse are skipped: a broken bundle an injector wrote must not stop the
// operator from writing a good one.
func MergeCABundles(bundles ...[]byte) ([]byte, error) {
	var merged []*x509.Certificate
	for _, b := range bundles {
		if len(b) == 0 {
			continue
		}
		certs, err := cert.ParseCertsPEM(b)
		if err != nil {
			continue
		}
		for _, c := range certs {
			if !containsCert(merged, c) {
				merged = append(merged, c)
			}
		}
	}
	if len(merged) == 0 {
		return nil, nil
	}
	return crypto.EncodeCertificates(merged...)
}

// BundleTrusts says whether the PEM bundle holds every certificate of the PEM cas.
func BundleTrusts(bundle, cas []byte) bool {
	want, err := cert.ParseCertsPEM(cas)
	if err != nil || len(want) == 0 {
		return false
	}
	have, err := cert.ParseCertsPEM(bundle)
	if err != nil {
		return false
	}
	for _, c := range want {
		if !containsCert(have, c) {
			return false
		}
	}
	return true
}

func containsCert(certs []*x509.Certificate, c *x509.Certificate) bool {
	for _, have := range certs {
		if bytes.Equal(have.Raw, c.Raw) {
			return true
		}
	}
	return false
}

// IssuedTLSSecrets returns the named TLS Secrets from the caches once cert-manager has issued
// them (both tls.crt and tls.key present), and the names of those it has not issued yet.
func IssuedTLSSecrets(caches *engine.Caches, namespace string, names ...string) (issued []*corev1.Secret, missing []string, err error) {
	for _, name := range names {
		obj, err := caches.Get(engine.Secrets, namespace, name)
		if apierrors.IsNotFound(err) {
			missing = append(missing, name)
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("get Secret %s: %w", namespace+"/"+name, err)
		}
		secret, ok := obj.(*corev1.Secret)
		if !ok {
			return nil, nil, fmt.Errorf("unexpected %T in the Secret cache", obj)
		}
		if len(secret.Data[corev1.TLSCertKey]) == 0 || len(secret.Data[corev1.TLSPrivateKeyKey]) == 0 {
			missing = append(missing, name)
			continue
		}
		issued = append(issued, secret)
	}
	return issued, missing, nil
}
