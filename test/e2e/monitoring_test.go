package e2e

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"
)

// Platform monitoring: the operator's /metrics, served by controllercmd with delegated
// authentication and authorization, and deploy/monitoring/.
//
//	E2E_OPERATOR_METRICS_URL  the operator's /metrics as this machine reaches it, e.g.
//	                          https://127.0.0.1:32543/metrics (hack/test-e2e-local.sh sets it;
//	                          the local operator listens on OPERATOR_LISTEN). Unset, M1-M3 are
//	                          skipped: on a cluster the pod's port is not reachable from here,
//	                          and the API server's service proxy does not pass a caller's token.
const (
	metricsReaderRole = "llm-infra-operator-e2e-metrics-reader"
	metricsReaderSA   = "e2e-metrics-reader"
	metricsDeniedSA   = "e2e-metrics-denied"
)

var _ = Describe("Monitoring", Ordered, func() {
	var metricsURL string
	var client *http.Client

	BeforeAll(func(ctx SpecContext) {
		metricsURL = os.Getenv("E2E_OPERATOR_METRICS_URL")
		// The local operator serves controllercmd's self-signed certificate: these specs check who
		// may read /metrics, not the certificate (test/manifests checks that Prometheus verifies
		// the service CA's certificate on OpenShift).
		client = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
			TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // see above
		}}
		for _, sa := range []string{metricsReaderSA, metricsDeniedSA} {
			_, err := fw.kube.CoreV1().ServiceAccounts(fw.namespace).Create(ctx, &corev1.ServiceAccount{
				ObjectMeta: metav1.ObjectMeta{Name: sa}}, metav1.CreateOptions{})
			if !apierrors.IsAlreadyExists(err) {
				Expect(err).NotTo(HaveOccurred())
			}
			DeferCleanup(func(ctx SpecContext) {
				_ = fw.kube.CoreV1().ServiceAccounts(fw.namespace).Delete(ctx, sa, metav1.DeleteOptions{})
			})
		}
		// What OpenShift's prometheus-k8s ClusterRole grants for scraping.
		_, err := fw.kube.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{
			ObjectMeta: metav1.ObjectMeta{Name: metricsReaderRole},
			Rules:      []rbacv1.PolicyRule{{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}}},
		}, metav1.CreateOptions{})
		if !apierrors.IsAlreadyExists(err) {
			Expect(err).NotTo(HaveOccurred())
		}
		_, err = fw.kube.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: metricsReaderRole},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: metricsReaderRole},
			Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: metricsReaderSA, Namespace: fw.namespace}},
		}, metav1.CreateOptions{})
		if !apierrors.IsAlreadyExists(err) {
			Expect(err).NotTo(HaveOccurred())
		}
		DeferCleanup(func(ctx SpecContext) {
			_ = fw.kube.RbacV1().ClusterRoleBindings().Delete(ctx, metricsReaderRole, metav1.DeleteOptions{})
			_ = fw.kube.RbacV1().ClusterRoles().Delete(ctx, metricsReaderRole, metav1.DeleteOptions{})
		})
	})

	// scrape GETs /metrics with a bearer token ("" for none) and returns the status and body.
	scrape := func(ctx context.Context, token string) (int, string, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, metricsURL, nil)
		if err != nil {
			return 0, "", err
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := client.Do(req)
		if err != nil {
			return 0, "", err
		}
		defer func() { _ = resp.Body.Close() }()
		body, err := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body), err
	}
	tokenOf := func(ctx context.Context, sa string) string {
		GinkgoHelper()
		tr, err := fw.kube.CoreV1().ServiceAccounts(fw.namespace).CreateToken(ctx, sa, &authenticationv1.TokenRequest{
			Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](600)}}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred(), "TokenRequest for %s", sa)
		return tr.Status.Token
	}
	needsURL := func() {
		if metricsURL == "" {
			Skip("E2E_OPERATOR_METRICS_URL is not set (hack/test-e2e-local.sh sets it)")
		}
	}

	It("M1. refuses an unauthenticated scrape of /metrics", func(ctx SpecContext) {
		needsURL()
		code, body, err := scrape(ctx, "")
		Expect(err).NotTo(HaveOccurred())
		Expect(code).To(BeElementOf(http.StatusUnauthorized, http.StatusForbidden), "anonymous: %s", body)
		Expect(body).NotTo(ContainSubstring("llm_infra_operator_"))
	})

	It("M2. refuses a ServiceAccount that may not get /metrics", func(ctx SpecContext) {
		needsURL()
		code, body, err := scrape(ctx, tokenOf(ctx, metricsDeniedSA))
		Expect(err).NotTo(HaveOccurred())
		Expect(code).To(Equal(http.StatusForbidden), "a token without the permission: %s", body)
		Expect(body).NotTo(ContainSubstring("llm_infra_operator_"))
	})

	It("M3. serves the operator's metrics to a ServiceAccount that may get /metrics, as Prometheus does", func(ctx SpecContext) {
		needsURL()
		// A kind's controllers, and so its metrics' series, start with its first CR: the specs run
		// in random order, so this one makes sure the singleton exists (and leaves it settled, as
		// every spec does).
		ensureCR(ctx)
		waitSettled(ctx)
		token := tokenOf(ctx, metricsReaderSA)
		// The binding was just created: the authorizer's cache may still hold a denial.
		Eventually(func(g Gomega) {
			code, body, err := scrape(ctx, token)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(code).To(Equal(http.StatusOK), "with get on /metrics: %s", body)
			g.Expect(body).To(ContainSubstring(`llm_infra_operator_syncs_total{operand="lws"`))
			g.Expect(body).To(ContainSubstring("# TYPE llm_infra_operator_sync_duration_seconds histogram"))
		}).WithContext(ctx).WithTimeout(time.Minute).WithPolling(time.Second).Should(Succeed())
	})

	It("M4. deploy/monitoring/ is valid for the Prometheus operator's CRDs", func(ctx SpecContext) {
		installOptionalCRDs(ctx, crdSetMonitoringCore)
		DeferCleanup(func(ctx SpecContext) { uninstallOptionalCRDs(ctx, crdSetMonitoringCore) })
		files, err := filepath.Glob(filepath.Join("..", "..", "deploy", "monitoring", "*.yaml"))
		Expect(err).NotTo(HaveOccurred())
		Expect(files).NotTo(BeEmpty())
		for _, f := range files {
			data, err := os.ReadFile(f)
			Expect(err).NotTo(HaveOccurred())
			u := &unstructured.Unstructured{}
			Expect(yaml.Unmarshal(data, &u.Object)).To(Succeed(), f)
			gvk := u.GroupVersionKind()
			gvr := schema.GroupVersionResource{Group: gvk.Group, Version: gvk.Version, Resource: strings.ToLower(gvk.Kind) + "s"}
			// Strict: a field the CRD's schema does not know is an error, not silently pruned.
			_, err = fw.dynamic.Resource(gvr).Namespace(fw.namespace).Create(ctx, u, metav1.CreateOptions{
				DryRun: []string{metav1.DryRunAll}, FieldValidation: metav1.FieldValidationStrict})
			Expect(err).NotTo(HaveOccurred(), fmt.Sprintf("%s (%s)", f, gvr))
		}
	})
})
