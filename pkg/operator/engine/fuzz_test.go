package engine

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/llm-infra/llm-infra-operator/bindata"
)

// TestConfigHashKeysOfLongNames: an object's name may have 253 characters, an annotation key's
// name part 63. Found by test/reliability/dryrun: an LLMBatchGateway with a name of 18
// characters or more got a processor Deployment that the API server refused.
func TestConfigHashKeysOfLongNames(t *testing.T) {
	fits := strings.Repeat("s", 63-len("hash-secret-"))
	if got := configHashKey("secret-", fits); got != ConfigHashAnnotationPrefix+"secret-"+fits {
		t.Errorf("a key that fits changed: %s", got)
	}
	if got := configHashKey("configmap-", "gw-config"); got != ConfigHashAnnotationPrefix+"configmap-gw-config" {
		t.Errorf("a key that fits changed: %s", got)
	}
	long := strings.Repeat("n", 253)
	for _, name := range []string{fits + "s", long, long[:100] + "." + long[:50], strings.Repeat("a-", 40) + "b"} {
		got := configHashKey("secret-", name)
		if errs := validation.IsQualifiedName(got); len(errs) > 0 {
			t.Errorf("%s: %v", got, errs)
		}
		if !strings.HasPrefix(got, ConfigHashAnnotationPrefix+"secret-"+name[:20]) {
			t.Errorf("%s does not keep the start of the name %s", got, name)
		}
	}
	if configHashKey("secret-", long) == configHashKey("secret-", long[:252]+"m") {
		t.Error("two long names that share their start got the same key")
	}
}

// FuzzConfigHashAnnotations: for any ConfigMaps and Secrets (names up to an object name's 253
// characters), the annotations are valid pod-template annotations, one per object, the same on
// every call, and they change with the data.
func FuzzConfigHashAnnotations(f *testing.F) {
	f.Add("config", "k", "v", "cert", []byte("tls"))
	f.Add(strings.Repeat("n", 253), "", "", strings.Repeat("s", 52), []byte{})
	f.Add("a.b", "key.with.dots", "x", "a-", []byte{0xff})
	f.Fuzz(func(t *testing.T, cmName, key, value, secretName string, data []byte) {
		if len(apimachineryvalidation.NameIsDNSSubdomain(cmName, false)) > 0 || len(apimachineryvalidation.NameIsDNSSubdomain(secretName, false)) > 0 {
			return // the API server admits no such object
		}
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: cmName}, Data: map[string]string{key: value}}
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: secretName}, Data: map[string][]byte{key: data}}
		first, err := ConfigHashAnnotations([]*corev1.ConfigMap{cm}, []*corev1.Secret{secret})
		if err != nil {
			t.Fatal(err)
		}
		second, _ := ConfigHashAnnotations([]*corev1.ConfigMap{cm.DeepCopy()}, []*corev1.Secret{secret.DeepCopy()})
		if !reflect.DeepEqual(first, second) {
			t.Fatalf("two calls differ: %v, %v", first, second)
		}
		if len(first) != 2 {
			t.Fatalf("%d annotations for a ConfigMap and a Secret: %v", len(first), first)
		}
		if errs := apimachineryvalidation.ValidateAnnotations(first, field.NewPath("annotations")); len(errs) > 0 {
			t.Fatalf("invalid annotations %v: %v", first, errs)
		}
		changed := secret.DeepCopy()
		changed.Data[key] = append([]byte("x"), data...)
		third, _ := ConfigHashAnnotations([]*corev1.ConfigMap{cm}, []*corev1.Secret{changed})
		if reflect.DeepEqual(first, third) {
			t.Fatal("the Secret's data changed and its hash did not")
		}
	})
}

// FuzzRendererObject renders every embedded manifest with fuzzed placeholder values and
// labels: no panic, the same object on every call, a value never changes the object's structure
// (a placeholder's value is taken as a string), and the operator's labels are set.
func FuzzRendererObject(f *testing.F) {
	f.Add("my-ns", "example.com/lws:1", "team", "llm")
	f.Add("${NAMESPACE}", "$(VAR) $$", "", "")
	f.Add("ns: {a: [1]}\n- b", "\"quoted\"", "a/b", "x")
	// The LeaderWorkerSet CRD is left out: at 1 MB it would slow every run down.
	assets := []string{bindata.LWSDeployment, bindata.LWSWebhookService, bindata.LWSWebhookCertificate, bindata.LWSMutatingWebhookConfiguration, bindata.LWSMetricsService}
	f.Fuzz(func(t *testing.T, namespace, image, labelKey, labelValue string) {
		r := Renderer{
			Manifests:    bindata.FS,
			Placeholders: map[string]string{bindata.NamespacePlaceholder: namespace, bindata.OperandImagePlaceholder: image},
			Labels:       map[string]string{labelKey: labelValue},
			Owner:        &metav1.OwnerReference{APIVersion: "v1", Kind: "X", Name: "x", UID: "u"},
		}
		plain := Renderer{Manifests: bindata.FS}
		for _, asset := range assets {
			first, err := r.Object(asset)
			if err != nil {
				t.Fatalf("%s: %v", asset, err)
			}
			second, _ := r.Object(asset)
			if !reflect.DeepEqual(first.Object, second.Object) {
				t.Fatalf("%s renders differently from the same input", asset)
			}
			original, _ := plain.Manifest(asset)
			if first.GetKind() != original.GetKind() || first.GetAPIVersion() != original.GetAPIVersion() || first.GetName() != original.GetName() && !strings.Contains(original.GetName(), "${") {
				t.Fatalf("%s: a placeholder's value changed the object: %s %s", asset, first.GetKind(), first.GetName())
			}
			if first.GetLabels()[ManagedByLabel] != ManagedByValue {
				t.Fatalf("%s: labels %v", asset, first.GetLabels())
			}
		}
	})
}
