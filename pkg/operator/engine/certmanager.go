package engine

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// IssuedTLSSecrets returns the named TLS Secrets from the caches once cert-manager has issued
// them (both tls.crt and tls.key present), and the names of those it has not issued yet.
func IssuedTLSSecrets(caches *Caches, namespace string, names ...string) (issued []*corev1.Secret, missing []string, err error) {
	for _, name := range names {
		obj, err := caches.Get(Secrets, namespace, name)
		if apierrors.IsNotFound(err) {
			missing = append(missing, name)
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("get Secret %s: %w", qualifiedName(namespace, name), err)
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
