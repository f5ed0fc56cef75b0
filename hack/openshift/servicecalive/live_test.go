// Package servicecalive is the live test of the local cluster's OpenShift service CA
// (hack/openshift/serviceca.sh): against a running cluster named by SERVICE_CA_KUBECONFIG
// (skipped without it), what OpenShift's service CA does for a user: a serving certificate for
// an annotated Service, the CA bundle injected into a webhook configuration, a CRD's conversion
// webhook, an APIService and a ConfigMap, and openshift-service-ca.crt in a new namespace.
// hack/openshift/live-tests.sh runs it on a cluster started with OPENSHIFT=true.
package servicecalive

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

const (
	servingCertAnnotation = "service.beta.openshift.io/serving-cert-secret-name"
	injectAnnotation      = "service.beta.openshift.io/inject-cabundle"
	publishedName         = "openshift-service-ca.crt"
	publishedKey          = "service-ca.crt"
	timeout               = 60 * time.Second
)

type clients struct {
	kube    kubernetes.Interface
	ext     apiextensionsclient.Interface
	dynamic dynamic.Interface
}

func connect(t *testing.T) clients {
	t.Helper()
	path := os.Getenv("SERVICE_CA_KUBECONFIG")
	if path == "" {
		t.Skip("SERVICE_CA_KUBECONFIG is not set: no cluster with the service CA to test")
	}
	config, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatal(err)
	}
	return clients{kube: kubernetes.NewForConfigOrDie(config), ext: apiextensionsclient.NewForConfigOrDie(config), dynamic: dynamic.NewForConfigOrDie(config)}
}

// eventually polls get until it returns a value that is not nil (the cluster's controllers act
// asynchronously; polling for their result is the synchronisation, not a delay).
func eventually[T any](t *testing.T, what string, get func(ctx context.Context) (*T, error)) *T {
	t.Helper()
	var got *T
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		v, err := get(ctx)
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		got = v
		return v != nil, nil
	})
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return got
}

func TestServiceCA(t *testing.T) {
	c := connect(t)
	ctx := context.Background()
	ns := "serviceca-live-" + rand.String(5)
	if _, err := c.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.kube.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{}) })

	// The service CA's bundle as every namespace gets it, a new one included.
	bundle := eventually(t, "openshift-service-ca.crt with a CA in "+ns, func(ctx context.Context) (*string, error) {
		cm, err := c.kube.CoreV1().ConfigMaps(ns).Get(ctx, publishedName, metav1.GetOptions{})
		if err != nil || cm.Data[publishedKey] == "" {
			return nil, err
		}
		b := cm.Data[publishedKey]
		return &b, nil
	})
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM([]byte(*bundle)) {
		t.Fatalf("%s/%s holds no certificate: %q", ns, publishedName, *bundle)
	}

	t.Run("serving certificate", func(t *testing.T) {
		svc := &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: "echo", Annotations: map[string]string{servingCertAnnotation: "echo-tls"}},
			Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "https", Port: 443}}, Selector: map[string]string{"app": "echo"}},
		}
		if _, err := c.kube.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		secret := eventually(t, "Secret echo-tls", func(ctx context.Context) (*corev1.Secret, error) {
			return c.kube.CoreV1().Secrets(ns).Get(ctx, "echo-tls", metav1.GetOptions{})
		})
		if secret.Type != corev1.SecretTypeTLS || len(secret.Data[corev1.TLSPrivateKeyKey]) == 0 {
			t.Errorf("Secret echo-tls: type %s, %d bytes of key; want a kubernetes.io/tls Secret with a key", secret.Type, len(secret.Data[corev1.TLSPrivateKeyKey]))
		}
		chain := parseCerts(t, secret.Data[corev1.TLSCertKey])
		leaf, intermediates := chain[0], x509.NewCertPool()
		for _, c := range chain[1:] {
			intermediates.AddCert(c)
		}
		want := []string{fmt.Sprintf("echo.%s.svc", ns), fmt.Sprintf("echo.%s.svc.cluster.local", ns)}
		got := slices.Sorted(slices.Values(leaf.DNSNames))
		if !slices.Equal(got, want) {
			t.Errorf("SANs %v, want %v", got, want)
		}
		for _, name := range want {
			if _, err := leaf.Verify(x509.VerifyOptions{DNSName: name, Roots: roots, Intermediates: intermediates, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err != nil {
				t.Errorf("tls.crt for %s does not verify against %s: %v", name, publishedName, err)
			}
		}
	})

	injected := func(t *testing.T, what string, get func(ctx context.Context) ([]byte, error)) {
		t.Helper()
		eventually(t, what+" injected", func(ctx context.Context) (*[]byte, error) {
			b, err := get(ctx)
			if err != nil || len(b) == 0 {
				return nil, err
			}
			return &b, nil
		})
		b, _ := get(ctx)
		if !bytes.Equal(b, []byte(*bundle)) {
			t.Errorf("%s: caBundle is not the service CA's bundle:\n%s", what, b)
		}
	}
	annotated := metav1.ObjectMeta{Name: ns, Annotations: map[string]string{injectAnnotation: "true"}}
	service := func(path string) *admissionregistrationv1.ServiceReference {
		return &admissionregistrationv1.ServiceReference{Namespace: ns, Name: "echo", Path: &path}
	}

	t.Run("mutating webhook configuration", func(t *testing.T) {
		none, ignore := admissionregistrationv1.SideEffectClassNone, admissionregistrationv1.Ignore
		// Selects no namespace (a label nobody has): registered for the injection only.
		hook := &admissionregistrationv1.MutatingWebhookConfiguration{
			ObjectMeta: annotated,
			Webhooks: []admissionregistrationv1.MutatingWebhook{{
				Name: "echo.serviceca-live.llm-infra.io", AdmissionReviewVersions: []string{"v1"}, SideEffects: &none, FailurePolicy: &ignore,
				ClientConfig:      admissionregistrationv1.WebhookClientConfig{Service: service("/mutate")},
				NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"serviceca-live.llm-infra.io/never": ns}},
				Rules: []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
					Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}}},
			}},
		}
		hooks := c.kube.AdmissionregistrationV1().MutatingWebhookConfigurations()
		if _, err := hooks.Create(ctx, hook, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = hooks.Delete(context.Background(), hook.Name, metav1.DeleteOptions{}) })
		injected(t, "MutatingWebhookConfiguration "+hook.Name, func(ctx context.Context) ([]byte, error) {
			h, err := hooks.Get(ctx, hook.Name, metav1.GetOptions{})
			if err != nil {
				return nil, err
			}
			return h.Webhooks[0].ClientConfig.CABundle, nil
		})
	})

	t.Run("CRD conversion webhook", func(t *testing.T) {
		group := ns + ".serviceca-live.llm-infra.io"
		schemaless := &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptr(true)}}
		path := "/convert"
		crd := &apiextensionsv1.CustomResourceDefinition{
			ObjectMeta: metav1.ObjectMeta{Name: "echoes." + group, Annotations: map[string]string{injectAnnotation: "true"}},
			Spec: apiextensionsv1.CustomResourceDefinitionSpec{
				Group: group, Scope: apiextensionsv1.NamespaceScoped,
				Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "echoes", Singular: "echo", Kind: "Echo", ListKind: "EchoList"},
				Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
					{Name: "v1", Served: true, Storage: true, Schema: schemaless},
					{Name: "v2", Served: true, Schema: schemaless},
				},
				Conversion: &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.WebhookConverter, Webhook: &apiextensionsv1.WebhookConversion{
					ConversionReviewVersions: []string{"v1"},
					ClientConfig:             &apiextensionsv1.WebhookClientConfig{Service: &apiextensionsv1.ServiceReference{Namespace: ns, Name: "echo", Path: &path}},
				}},
			},
		}
		crds := c.ext.ApiextensionsV1().CustomResourceDefinitions()
		if _, err := crds.Create(ctx, crd, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = crds.Delete(context.Background(), crd.Name, metav1.DeleteOptions{}) })
		injected(t, "CRD "+crd.Name, func(ctx context.Context) ([]byte, error) {
			got, err := crds.Get(ctx, crd.Name, metav1.GetOptions{})
			if err != nil {
				return nil, err
			}
			return got.Spec.Conversion.Webhook.ClientConfig.CABundle, nil
		})
	})

	t.Run("APIService", func(t *testing.T) {
		// Unstructured: the aggregator's clientset is not among this repository's modules. The
		// APIService is deleted once injected: an unavailable one would fail discovery for every
		// client of the cluster meanwhile. Its group is not the CRD's, whose APIService the API
		// server registers itself.
		apiServices := c.dynamic.Resource(schema.GroupVersionResource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"})
		group := ns + ".aggregated.serviceca-live.llm-infra.io"
		obj := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
			"metadata": map[string]any{"name": "v1." + group, "annotations": map[string]any{injectAnnotation: "true"}},
			"spec": map[string]any{"group": group, "version": "v1", "groupPriorityMinimum": int64(1000), "versionPriority": int64(15),
				"service": map[string]any{"namespace": ns, "name": "echo", "port": int64(443)}},
		}}
		if _, err := apiServices.Create(ctx, obj, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = apiServices.Delete(context.Background(), obj.GetName(), metav1.DeleteOptions{}) })
		injected(t, "APIService "+obj.GetName(), func(ctx context.Context) ([]byte, error) {
			got, err := apiServices.Get(ctx, obj.GetName(), metav1.GetOptions{})
			if err != nil {
				return nil, err
			}
			s, _, err := unstructured.NestedString(got.Object, "spec", "caBundle")
			if err != nil || s == "" {
				return nil, err
			}
			return base64.StdEncoding.DecodeString(s)
		})
	})

	t.Run("ConfigMap", func(t *testing.T) {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "trust", Annotations: map[string]string{injectAnnotation: "true"}}}
		if _, err := c.kube.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		injected(t, "ConfigMap trust", func(ctx context.Context) ([]byte, error) {
			got, err := c.kube.CoreV1().ConfigMaps(ns).Get(ctx, cm.Name, metav1.GetOptions{})
			if err != nil {
				return nil, err
			}
			return []byte(got.Data[publishedKey]), nil
		})
	})
}

func parseCerts(t *testing.T, data []byte) []*x509.Certificate {
	t.Helper()
	var certs []*x509.Certificate
	for block, rest := pem.Decode(data); block != nil; block, rest = pem.Decode(rest) {
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		certs = append(certs, c)
	}
	if len(certs) == 0 {
		t.Fatalf("no certificate in %q", data)
	}
	return certs
}

func ptr[T any](v T) *T { return &v }
