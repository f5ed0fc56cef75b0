package engine

import (
	"context"
	"errors"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"

	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"
)

// issuing is a Certificate's Issuing condition as cert-manager writes it.
func issuing(status, reason, message string) map[string]any {
	return map[string]any{"type": "Issuing", "status": status, "reason": reason, "message": message}
}

// What cert-manager v1.21.2's issuing controller writes when the self-signed issuer refused a
// request built from a private key the key manager had replaced (failIssueCertificate with the
// request's Ready condition), and when an Issuer is missing (another failure, not cert-manager's
// race).
var (
	replacedKeyIssuing = issuing("False", "Failed",
		"The certificate request has failed to complete and will be retried: Error generating certificate template: CSR not signed by referenced private key")
	missingIssuerIssuing = issuing("False", "Failed",
		`The certificate request has failed to complete and will be retried: issuer.cert-manager.io "serving" not found`)
)

// certificate is the Certificate "serving" in namespace ns, with the operator's label or not,
// and the conditions given.
func certificate(uid string, labelled bool, conditions ...map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "cert-manager.io/v1", "kind": "Certificate",
		"metadata": map[string]any{"name": "serving", "namespace": "ns", "uid": uid},
		"spec":     map[string]any{"secretName": "serving-cert", "issuerRef": map[string]any{"name": "serving"}},
	}}
	if labelled {
		u.SetLabels(map[string]string{ManagedByLabel: ManagedByValue})
	}
	if len(conditions) > 0 {
		items := make([]any, len(conditions))
		for i, c := range conditions {
			items[i] = c
		}
		_ = unstructured.SetNestedSlice(u.Object, items, "status", "conditions")
	}
	return u
}

// A Certificate of the operator that cert-manager failed by its own key race is deleted, with
// its requests, and made again by the next apply; every other Certificate (issuing, issued,
// failed for a reason an administrator must fix, or not the operator's) is left to cert-manager.
func TestApplyRecreatesACertificateFailedOnAReplacedKey(t *testing.T) {
	tests := []struct {
		name      string
		live      *unstructured.Unstructured
		recreated bool
	}{
		{"failed on a replaced key", certificate("old", true, map[string]any{"type": "Ready", "status": "False", "reason": "DoesNotExist"}, replacedKeyIssuing), true},
		{"failed: the Issuer is missing", certificate("old", true, missingIssuerIssuing), false},
		{"issuing", certificate("old", true, issuing("True", "DoesNotExist", "Issuing certificate as Secret does not exist")), false},
		{"issued", certificate("old", true, map[string]any{"type": "Ready", "status": "True", "reason": "Ready"}), false},
		{"not the operator's, failed on a replaced key", certificate("old", false, replacedKeyIssuing), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			request := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "cert-manager.io/v1", "kind": "CertificateRequest",
				"metadata": map[string]any{"name": "serving-1", "namespace": "ns", "uid": "req",
					"labels": map[string]any{ManagedByLabel: ManagedByValue}},
			}}
			request.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "cert-manager.io/v1", Kind: "Certificate", Name: "serving", UID: "old", Controller: ptr.To(true)}})
			dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
				map[schema.GroupVersionResource]string{CertificateGVR: "CertificateList", CertificateRequestGVR: "CertificateRequestList"},
				tt.live, request)
			// The caches answer from the fake's objects, as a synced informer would.
			caches := NewCaches()
			caches.Add(CertificateGVR.GroupResource(), func(namespace, name string) (runtime.Object, error) {
				return dyn.Resource(CertificateGVR).Namespace(namespace).Get(context.Background(), name, metav1.GetOptions{})
			})
			recorder := events.NewInMemoryRecorder("test", clock.RealClock{})
			applier := Applier{
				Clients:  &CachedClients{Dynamic: dyn, Caches: caches},
				Cache:    resourceapply.NewResourceCache(),
				Recorder: recorder,
			}
			ctx := context.Background()
			rendered := certificate("", true)

			err := applier.Apply(ctx, rendered)
			var se *StepError
			if got := errors.As(err, &se) && se.Reason == ReasonCertificateRecreated && se.Blocking; got != tt.recreated {
				t.Fatalf("Apply = %v; want a blocking %s outcome: %v", err, ReasonCertificateRecreated, tt.recreated)
			}
			if !tt.recreated {
				if err != nil {
					t.Fatalf("Apply = %v", err)
				}
				live, err := dyn.Resource(CertificateGVR).Namespace("ns").Get(ctx, "serving", metav1.GetOptions{})
				if err != nil || live.GetUID() != "old" {
					t.Errorf("the Certificate was replaced: %v, %v", live, err)
				}
				return
			}
			if _, err := dyn.Resource(CertificateGVR).Namespace("ns").Get(ctx, "serving", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				t.Errorf("the failed Certificate is still there: %v", err)
			}
			if _, err := dyn.Resource(CertificateRequestGVR).Namespace("ns").Get(ctx, "serving-1", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				t.Errorf("its request is still there (a Certificate made again under its name could not get its own): %v", err)
			}
			if !slices.ContainsFunc(recorder.Events(), func(e *corev1.Event) bool { return e.Reason == ReasonCertificateRecreated }) {
				t.Errorf("no %s event: %v", ReasonCertificateRecreated, recorder.Events())
			}
			// The sync the deletion brings makes it again, with no status: cert-manager
			// issues it at once.
			if err := applier.Apply(ctx, rendered); err != nil {
				t.Fatalf("the apply after the deletion: %v", err)
			}
			live, err := dyn.Resource(CertificateGVR).Namespace("ns").Get(ctx, "serving", metav1.GetOptions{})
			if err != nil {
				t.Fatalf("the Certificate was not made again: %v", err)
			}
			if live.GetUID() == types.UID("old") || live.Object["status"] != nil {
				t.Errorf("the Certificate made again is the old one: uid %s, status %v", live.GetUID(), live.Object["status"])
			}
		})
	}
}
