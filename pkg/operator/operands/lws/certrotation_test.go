package lws

import (
	"context"
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	kubefake "k8s.io/client-go/kubernetes/fake"
	corev1listers "k8s.io/client-go/listers/core/v1"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"

	"github.com/openshift/library-go/pkg/crypto"
	"github.com/openshift/library-go/pkg/operator/events"

	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine/enginetest"
)

func servingSecret(t *testing.T, ca *crypto.CA) *corev1.Secret {
	t.Helper()
	cert, err := ca.MakeServerCertForDuration(sets.New("svc.ns.svc"), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	crt, key, err := cert.GetPEMBytes()
	if err != nil {
		t.Fatal(err)
	}
	return &corev1.Secret{Data: map[string][]byte{corev1.TLSCertKey: crt, corev1.TLSPrivateKeyKey: key}}
}

func TestCertificateSignedBy(t *testing.T) {
	caA, pemA := enginetest.NewCA(t, "a")
	_, pemB := enginetest.NewCA(t, "b")
	both, err := MergeCABundles(pemA, pemB)
	if err != nil {
		t.Fatal(err)
	}
	signedByA := servingSecret(t, caA)
	tests := []struct {
		name   string
		secret *corev1.Secret
		bundle []byte
		want   bool
	}{
		{name: "signed by the bundle's CA", secret: signedByA, bundle: pemA, want: true},
		{name: "signed by one CA of a bundle of two", secret: signedByA, bundle: both, want: true},
		{name: "signed by another CA", secret: signedByA, bundle: pemB},
		{name: "no bundle", secret: signedByA},
		{name: "no Secret", bundle: pemA},
		{name: "not PEM", secret: &corev1.Secret{Data: map[string][]byte{corev1.TLSCertKey: []byte("rotated")}}, bundle: pemA},
		{name: "a self-signed certificate is its own CA", secret: &corev1.Secret{Data: map[string][]byte{corev1.TLSCertKey: pemB}}, bundle: pemB, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CertificateSignedBy(tt.secret, tt.bundle); got != tt.want {
				t.Errorf("CertificateSignedBy = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestMergeCABundlesAndBundleTrusts(t *testing.T) {
	_, pemA := enginetest.NewCA(t, "a")
	_, pemB := enginetest.NewCA(t, "b")
	_, pemC := enginetest.NewCA(t, "c")
	merged, err := MergeCABundles(pemA, []byte("not PEM"), nil, pemB, pemA)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		bundle []byte
		cas    []byte
		want   bool
	}{
		{name: "the merge trusts the first CA", bundle: merged, cas: pemA, want: true},
		{name: "the merge trusts the second CA", bundle: merged, cas: pemB, want: true},
		{name: "the merge does not trust a third", bundle: merged, cas: pemC},
		{name: "a bundle of one does not trust both", bundle: pemA, cas: merged},
		{name: "nothing to trust is never trusted", bundle: merged},
		{name: "an empty bundle trusts nothing", cas: pemA},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := BundleTrusts(tt.bundle, tt.cas); got != tt.want {
				t.Errorf("BundleTrusts = %v, want %v", got, tt.want)
			}
		})
	}
	again, err := MergeCABundles(merged, pemB)
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != string(merged) {
		t.Error("merging a CA the bundle holds must not change it (each certificate once, order kept)")
	}
	if empty, err := MergeCABundles(nil, []byte("junk")); err != nil || empty != nil {
		t.Errorf("no certificate at all: %q, %v; want nil", empty, err)
	}
}

// TestOperatorCALabelsItsSecrets: every Secret the operator's CA writes, created or rotated,
// carries the managed-by label, which the ValidatingAdmissionPolicy of deploy/ requires of
// every Secret the operator's ServiceAccount writes. A Secret left from a release before the
// label (certrotation's own label only) gets it at its next rotation.
func TestOperatorCALabelsItsSecrets(t *testing.T) {
	const namespace = "lws-ns"
	ctx := context.Background()
	// An expired serving certificate of an earlier release: certrotation must renew it.
	stale := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "serving", Namespace: namespace, Labels: map[string]string{"auth.openshift.io/managed-certificate-type": "target"}},
		Type:       corev1.SecretTypeTLS,
		Data:       map[string][]byte{corev1.TLSCertKey: []byte("expired"), corev1.TLSPrivateKeyKey: []byte("expired")},
	}
	client := kubefake.NewClientset(stale.DeepCopy())
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	ca := OperatorCA{
		Namespace: namespace, SignerSecret: "signer", BundleConfigMap: "bundle", Description: "test",
		Secrets: corev1listers.NewSecretLister(indexer), ConfigMaps: corev1listers.NewConfigMapLister(indexer),
		SecretClient: client.CoreV1(), ConfigMapsClient: client.CoreV1(),
		Recorder: events.NewInMemoryRecorder("test", clock.RealClock{}),
	}
	if err := indexer.Add(stale); err != nil {
		t.Fatal(err)
	}
	issued, err := ca.Ensure(ctx)
	if err != nil {
		t.Fatalf("Ensure: %v", err)
	}
	for _, name := range []string{"fresh", "serving"} {
		if _, err := ca.EnsureServingCertificate(ctx, issued, name, []string{"svc." + namespace + ".svc"}); err != nil {
			t.Fatalf("EnsureServingCertificate %s: %v", name, err)
		}
	}
	// The verb tells a create from an update: both actions have the same methods.
	written := map[string]string{}
	for _, a := range client.Actions() {
		w, ok := a.(clienttesting.CreateAction)
		if !ok || a.GetResource().Resource != "secrets" {
			continue
		}
		s := w.GetObject().(*corev1.Secret)
		written[s.Name] = a.GetVerb()
		if !engine.IsManaged(s.Labels) {
			t.Errorf("%s of Secret %s without %s=%s: labels %v", a.GetVerb(), s.Name, engine.ManagedByLabel, engine.ManagedByValue, s.Labels)
		}
	}
	want := map[string]string{"signer": "create", "fresh": "create", "serving": "update"}
	if !reflect.DeepEqual(written, want) {
		t.Errorf("Secrets written %v, want %v", written, want)
	}
}
