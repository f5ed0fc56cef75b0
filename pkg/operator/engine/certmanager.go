package engine

import (
	"context"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"
)

// ReasonCertificateRecreated: the operator deleted one of its cert-manager Certificates whose
// issuance cert-manager failed by its own race (failedOnReplacedKey) and makes it again.
const ReasonCertificateRecreated = "CertificateRecreated"

// replacedKeyFailure is how cert-manager's self-signed issuer fails a request whose CSR the
// private key it is given did not sign (pkg/controller/certificaterequests/selfsigned).
const replacedKeyFailure = "CSR not signed by referenced private key"

var certificateGK = schema.GroupKind{Group: CertificateGVR.Group, Kind: "Certificate"}

// failedOnReplacedKey says whether cert-manager gave up the Certificate's last issuance for a
// reason of its own, not the Issuer's: its key manager replaced the private key while a request
// built from the old one was in flight, the self-signed issuer refused that request, and
// cert-manager put the Certificate into its retry back-off (an hour, then doubling) instead of
// building a request from the new key (cert-manager/cert-manager#6331, #9097; fixed by #9116,
// which no release has yet: v1.21.2 fails this way). The Issuing condition False with the
// request's failure is what cert-manager leaves on the Certificate until it retries.
func failedOnReplacedKey(cert *unstructured.Unstructured) bool {
	conditions, _, _ := unstructured.NestedSlice(cert.Object, "status", "conditions")
	for _, c := range conditions {
		condition, ok := c.(map[string]any)
		if !ok || condition["type"] != "Issuing" || condition["status"] != "False" {
			continue
		}
		message, _ := condition["message"].(string)
		return strings.Contains(message, replacedKeyFailure)
	}
	return false
}

// recreateFailedCertificate deletes a Certificate of the operator that failedOnReplacedKey (its
// requests with it, DeletedWith), so that the sync its deletion brings makes it again and
// cert-manager issues it at once, with no back-off. The serving Secrets wait for it: an hour
// without them is an operand that does not start or a switch of certificates that does not
// finish. Any other failure is the Issuer's or the administrator's to fix, and cert-manager's
// back-off is right for it. The outcome holds the later steps until the new Certificate is
// applied.
func (a Applier) recreateFailedCertificate(ctx context.Context, obj runtime.Object) error {
	if KindOf(obj).GroupKind() != certificateGK {
		return nil
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return err
	}
	namespace, name := m.GetNamespace(), m.GetName()
	live, err := a.Clients.Caches.Get(CertificateGVR.GroupResource(), namespace, name)
	if err != nil {
		// Absent, or its API not served: the apply that follows handles both.
		return nil
	}
	cert, ok := live.(*unstructured.Unstructured)
	if !ok || !ManagedByOperator(cert) || !failedOnReplacedKey(cert) {
		return nil
	}
	if err := a.DeleteOwned(ctx, CertificateGVR, namespace, name, ManagedByOperator, FromCache); err != nil {
		return err
	}
	outcome := WaitingFor(ReasonCertificateRecreated,
		"cert-manager failed to issue the Certificate %s by a race of its own (its key manager replaced the private key under the request: cert-manager/cert-manager#6331) and would retry only after its back-off of an hour; the operator deleted the Certificate and makes it again",
		cache.NewObjectName(namespace, name))
	if a.Recorder != nil {
		a.Recorder.Warning(ReasonCertificateRecreated, outcome.Message)
	}
	return outcome
}
