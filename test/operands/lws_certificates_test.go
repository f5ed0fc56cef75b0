package operands

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	lwsoperatorv1 "github.com/llm-infra/llm-infra-operator/pkg/apis/operator/v1"
)

// The controller's webhook configuration and metrics Service as the operator installs them
// (bindata/assets/lws), and their serving Secrets, which every certificate source fills.
const (
	lwsValidatingWebhooks = "lws-validating-webhook-configuration"
	lwsMetricsService     = "lws-controller-manager-metrics-service"
	lwsMetricsPort        = 8443
	lwsWebhookSecret      = "webhook-server-cert"
	lwsMetricsSecret      = "metrics-server-cert"
)

var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// lwsCertificateSources are the sources the cluster offers, the one in use last (so that
// restoring the CR's spec afterwards switches nothing): Operator everywhere, CertManager where
// cert-manager's Certificate CRD exists, ServiceCA where OpenShift's service CA publishes its CA
// in the controller's namespace.
func lwsCertificateSources(ctx context.Context, ns string, inUse lwsoperatorv1.CertificateSource) []lwsoperatorv1.CertificateSource {
	sources := []lwsoperatorv1.CertificateSource{lwsoperatorv1.CertificateSourceOperator}
	if _, err := fw.dyn.Resource(crdGVR).Get(ctx, "certificates.cert-manager.io", metav1.GetOptions{}); err == nil {
		sources = append(sources, lwsoperatorv1.CertificateSourceCertManager)
	} else {
		Expect(apierrors.IsNotFound(err)).To(BeTrue(), "cert-manager's CRD: %v", err)
	}
	if cm, err := fw.kube.CoreV1().ConfigMaps(ns).Get(ctx, "openshift-service-ca.crt", metav1.GetOptions{}); err == nil && cm.Data["service-ca.crt"] != "" {
		sources = append(sources, lwsoperatorv1.CertificateSourceServiceCA)
	} else if err != nil {
		Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the service CA's ConfigMap: %v", err)
	}
	Expect(sources).To(ContainElement(inUse))
	sources = slices.DeleteFunc(sources, func(s lwsoperatorv1.CertificateSource) bool { return s == inUse })
	return append(sources, inUse)
}

// lwsSettled waits until LeaderWorkerSetOperator/cluster has observed its spec and serves with
// certificates of source (ServingCertificates' reason), Available and no longer Progressing
// (a switch ends once no pod of the old template is left).
func lwsSettled(ctx context.Context, cr *unstructured.Unstructured, source lwsoperatorv1.CertificateSource) {
	By(fmt.Sprintf("waiting for LeaderWorkerSetOperator/%s to serve with certificates of %s", cr.GetName(), source))
	Eventually(func(g Gomega) {
		live, err := resource(cr, "").Get(ctx, cr.GetName(), metav1.GetOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		observed, _, _ := unstructured.NestedInt64(live.Object, "status", "observedGeneration")
		g.Expect(observed).To(Equal(live.GetGeneration()), "status.observedGeneration")
		want := map[string][2]string{
			"ServingCertificates": {"True", string(source)},
			"Available":           {"True", ""},
			"Progressing":         {"False", ""},
		}
		for typ, w := range want {
			c := condition(g, ctx, live, "", typ)
			g.Expect(c).To(HaveKeyWithValue("status", w[0]), "%s: %v", typ, c["message"])
			if w[1] != "" {
				g.Expect(c).To(HaveKeyWithValue("reason", w[1]), "%s: %v", typ, c["message"])
			}
		}
	}).WithContext(ctx).WithTimeout(readyTimeout).WithPolling(poll).Should(Succeed())
}

// servedLeaf is the leaf certificate a TLS server at addr presents, DER. Not verified here: the
// caller compares it with the Secret it must come from.
func servedLeaf(ctx context.Context, addr string) ([]byte, error) {
	d := tls.Dialer{NetDialer: &net.Dialer{Timeout: 5 * time.Second}, Config: &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS12}} //nolint:gosec // compared with the Secret below
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	certs := conn.(*tls.Conn).ConnectionState().PeerCertificates
	if len(certs) == 0 {
		return nil, fmt.Errorf("%s presented no certificate", addr)
	}
	return certs[0].Raw, nil
}

// secretLeaf is the first certificate of a TLS Secret's tls.crt, DER.
func secretLeaf(g Gomega, ctx context.Context, ns, name string) []byte {
	s, err := fw.kube.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	block, _ := pem.Decode(s.Data["tls.crt"])
	g.Expect(block).NotTo(BeNil(), "Secret %s/%s has no certificate in tls.crt", ns, name)
	return block.Bytes
}

// lwsCertificateSpecs run in the LeaderWorkerSet controller's container (lws_test.go), after the
// LeaderWorkerSet and DisaggregatedSet specs: each switch of source rolls the controller.
func lwsCertificateSpecs() {
	It("serves its webhooks and metrics with the certificates of every source the cluster offers: the real controller starts, serves the source's certificate, and its webhooks admit and refuse DisaggregatedSets and LeaderWorkerSets", func(ctx SpecContext) {
		cr := dsKind("operator.openshift.io", "LeaderWorkerSetOperator", "cluster")
		live, err := resource(cr, "").Get(ctx, cr.GetName(), metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		original, _, _ := unstructured.NestedFieldCopy(live.Object, "spec", "certificates")
		inUse := lwsoperatorv1.CertificateSource(condition(Default, ctx, live, "", "ServingCertificates")["reason"].(string))

		vwc, err := fw.kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(ctx, lwsValidatingWebhooks, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		webhookSvc := vwc.Webhooks[0].ClientConfig.Service
		Expect(webhookSvc).NotTo(BeNil())
		ns := webhookSvc.Namespace
		sources := lwsCertificateSources(ctx, ns, inUse)
		GinkgoWriter.Printf("certificate sources offered: %v (in use: %s)\n", sources, inUse)

		DeferCleanup(func(ctx SpecContext) {
			By("restoring the CR's spec.certificates")
			patch, err := json.Marshal(map[string]any{"spec": map[string]any{"certificates": original}})
			Expect(err).NotTo(HaveOccurred())
			_, err = resource(cr, "").Patch(ctx, cr.GetName(), types.MergePatchType, patch, metav1.PatchOptions{FieldManager: fieldManager})
			Expect(err).NotTo(HaveOccurred())
			lwsSettled(ctx, cr, inUse)
		})

		testNS := namespace(ctx, "operands-lws-certificates")
		ds := newDisaggregatedSet(testNS)
		lwsObjs, err := render("leaderworkerset.yaml", map[string]string{"NAMESPACE": testNS})
		Expect(err).NotTo(HaveOccurred())
		lws := byKind(lwsObjs, "LeaderWorkerSet", lwsName)
		lws.SetNamespace(testNS)
		invalidDS := ds.DeepCopy()
		Expect(unstructured.SetNestedField(invalidDS.Object, map[string]any{"type": "ExclusiveSlice"}, "spec", "placementPolicy")).To(Succeed())

		for _, source := range sources {
			By("spec.certificates.source " + string(source))
			patch := fmt.Sprintf(`{"spec":{"certificates":{"source":%q}}}`, source)
			_, err := resource(cr, "").Patch(ctx, cr.GetName(), types.MergePatchType, []byte(patch), metav1.PatchOptions{FieldManager: fieldManager})
			Expect(err).NotTo(HaveOccurred())
			lwsSettled(ctx, cr, source)

			By("the webhook and metrics servers present the certificates of the Secrets " + string(source) + " filled")
			for _, s := range []struct {
				service, secret string
				port            int32
			}{
				{webhookSvc.Name, lwsWebhookSecret, *webhookSvc.Port},
				{lwsMetricsService, lwsMetricsSecret, lwsMetricsPort},
			} {
				svc, err := fw.kube.CoreV1().Services(ns).Get(ctx, s.service, metav1.GetOptions{})
				Expect(err).NotTo(HaveOccurred())
				addr := net.JoinHostPort(svc.Spec.ClusterIP, fmt.Sprint(s.port))
				// The controller reloads a renewed Secret's files within seconds of the kubelet's refresh.
				Eventually(func(g Gomega) {
					served, err := servedLeaf(ctx, addr)
					g.Expect(err).NotTo(HaveOccurred())
					g.Expect(served).To(Equal(secretLeaf(g, ctx, ns, s.secret)), "%s (%s) does not serve Secret %s", s.service, addr, s.secret)
				}).WithContext(ctx).WithTimeout(readyTimeout).WithPolling(poll).Should(Succeed())
			}

			By("the webhooks, called by the API server with the caBundle it injected, admit and refuse")
			for _, obj := range []*unstructured.Unstructured{ds, lws} {
				_, err := resource(obj, testNS).Create(ctx, obj.DeepCopy(), metav1.CreateOptions{FieldManager: fieldManager, DryRun: []string{metav1.DryRunAll}})
				Expect(err).NotTo(HaveOccurred(), "%s, source %s", obj.GetKind(), source)
			}
			_, err = resource(invalidDS, testNS).Create(ctx, invalidDS.DeepCopy(), metav1.CreateOptions{FieldManager: fieldManager, DryRun: []string{metav1.DryRunAll}})
			Expect(err).To(MatchError(ContainSubstring(`admission webhook "vdisaggregatedset.kb.io" denied the request: spec.placementPolicy.topology: Required value`)), "source %s", source)
		}
	})
}
