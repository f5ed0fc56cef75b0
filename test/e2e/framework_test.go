package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	operatorv1 "github.com/openshift/api/operator/v1"
	corev1 "k8s.io/api/core/v1"
	apiextclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/retry"

	"github.com/llm-infra/llm-infra-operator/bindata"
	lwsoperatorv1 "github.com/llm-infra/llm-infra-operator/pkg/apis/operator/v1"
	"github.com/llm-infra/llm-infra-operator/pkg/generated/clientset/versioned"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/operands/lws"
	"github.com/llm-infra/llm-infra-operator/test/internal/live"
)

// Names the suite relies on. They mirror the operator's (pkg/operator/lws/names.go), which
// are unexported: the suite checks behaviour from the outside, as an administrator would.
const (
	crName              = lwsoperatorv1.SingletonName
	lwsCRDName          = "leaderworkersets.leaderworkerset.x-k8s.io"
	deploymentName      = "lws-controller-manager"
	configMapName       = "lws-manager-config"
	webhookSecretName   = "webhook-server-cert"
	metricsSecretName   = "metrics-server-cert"
	mutatingWebhookName = "lws-mutating-webhook-configuration"
	validatingWebhook   = "lws-validating-webhook-configuration"
	managedByLabel      = "app.kubernetes.io/managed-by"
	managedByValue      = "llm-infra-operator"
	hashAnnotationPfx   = "operator.llm-infra.io/hash-"
	webhookSecretHash   = hashAnnotationPfx + "secret-" + webhookSecretName
	managerContainer    = "manager"
	zapLogLevelArg      = "--zap-log-level="
	infraNodeLabel      = "node-role.kubernetes.io/infra"
	operatorLeaseSuffix = "-lock"
	operatorName        = "llm-infra-operator"
	// metricsCertificateName is the cert-manager Certificate of metricsSecretName.
	metricsCertificateName = "lws-metrics-cert"
	// infrastructureCRD is OpenShift's Infrastructure, whose object "cluster" controllercmd reads.
	infrastructureCRD = "infrastructures.config.openshift.io"
	// certManagerCRD is how the suite tells whether cert-manager is installed.
	certManagerCRD = "certificates.cert-manager.io"
	// serviceMonitorCRD decides whether the operand has a ServiceMonitor.
	serviceMonitorCRD = "servicemonitors.monitoring.coreos.com"
	// platformLabel marks the specs whose outcome depends on the platform (which certificate
	// source Automatic picks, which SCC admits the controller's pods): the short form on the
	// OpenShift-like cluster runs only them (make test-e2e-short-openshift,
	// -ginkgo.label-filter=platform) after make test-e2e-local ran every spec on plain
	// Kubernetes; OPENSHIFT=true make test-e2e-local runs every spec there.
	platformLabel = "platform"
)

// Timeouts. The operator is watch-driven, so everything but rollouts and cert-manager's work
// should take seconds.
const (
	poll            = 250 * time.Millisecond
	settleTimeout   = 3 * time.Minute
	driftTimeout    = 30 * time.Second
	quietPeriod     = 20 * time.Second
	shortQuiet      = 15 * time.Second
	objectGoneAfter = 2 * time.Minute
)

var (
	gvrDeployments  = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	gvrSecrets      = schema.GroupVersionResource{Version: "v1", Resource: "secrets"}
	gvrConfigMaps   = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	gvrCertificates = schema.GroupVersionResource{Group: "cert-manager.io", Version: "v1", Resource: "certificates"}
	// gvrCertificateRequests: cert-manager's requests, which go with the Certificate that made them.
	gvrCertificateRequests = schema.GroupVersionResource{Group: "cert-manager.io", Version: "v1", Resource: "certificaterequests"}
	gvrCRDs                = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	gvrCRs                 = lwsoperatorv1.GroupVersion.WithResource("leaderworkersetoperators")
	gvrLWS                 = live.LeaderWorkerSets
)

// framework holds the clients and settings every spec uses.
type framework struct {
	config    *rest.Config
	kube      kubernetes.Interface
	apiext    apiextclient.Interface
	dynamic   dynamic.Interface
	operator  versioned.Interface
	namespace string
}

var fw *framework

var _ = BeforeSuite(func() {
	loading := clientcmd.NewDefaultClientConfigLoadingRules() // honours $KUBECONFIG
	config, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(loading, &clientcmd.ConfigOverrides{}).ClientConfig()
	Expect(err).NotTo(HaveOccurred(), "load the kubeconfig ($KUBECONFIG)")
	config.QPS, config.Burst = 50, 100
	config.UserAgent = "llm-infra-operator-e2e"

	fw = &framework{config: config, namespace: envOr("E2E_OPERATOR_NAMESPACE", "openshift-llm-infra-operator")}
	fw.kube = kubernetes.NewForConfigOrDie(config)
	fw.apiext = apiextclient.NewForConfigOrDie(config)
	fw.dynamic = dynamic.NewForConfigOrDie(config)
	fw.operator = versioned.NewForConfigOrDie(config)

	_, err = fw.apiext.ApiextensionsV1().CustomResourceDefinitions().Get(context.Background(),
		"leaderworkersetoperators.operator.openshift.io", metav1.GetOptions{})
	Expect(err).NotTo(HaveOccurred(), "the LeaderWorkerSetOperator CRD must be installed (deploy/00_*.yaml)")
	_, err = fw.kube.CoreV1().Namespaces().Get(context.Background(), fw.namespace, metav1.GetOptions{})
	Expect(err).NotTo(HaveOccurred(), "the operator namespace %s (E2E_OPERATOR_NAMESPACE) must exist", fw.namespace)
})

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// runHook runs one of the optional shell hooks the environment hands the suite
// (E2E_START_CERT_MANAGER, E2E_RESTART_OPERATOR), streaming its output into the spec's log.
func runHook(ctx context.Context, envName, command string) {
	By(fmt.Sprintf("running %s: %s", envName, command))
	cmd := exec.CommandContext(ctx, "bash", "-c", command)
	cmd.Stdout = GinkgoWriter
	cmd.Stderr = GinkgoWriter
	Expect(cmd.Run()).To(Succeed(), "%s (%s) failed", envName, command)
}

// hookOutput runs an optional hook and returns its trimmed output, or "" when it fails.
func hookOutput(ctx context.Context, command string) string {
	if command == "" {
		return ""
	}
	out, err := exec.CommandContext(ctx, "bash", "-c", command).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// --- The CR ---

func getCR(ctx context.Context) (*lwsoperatorv1.LeaderWorkerSetOperator, error) {
	return fw.operator.OperatorV1().LeaderWorkerSetOperators().Get(ctx, crName, metav1.GetOptions{})
}

// sampleCR is deploy/examples/leaderworkersetoperator_cluster.yaml's content.
func sampleCR() *lwsoperatorv1.LeaderWorkerSetOperator {
	cr := &lwsoperatorv1.LeaderWorkerSetOperator{ObjectMeta: metav1.ObjectMeta{Name: crName}}
	cr.Spec.ManagementState = operatorv1.Managed
	cr.Spec.LogLevel = operatorv1.Normal
	cr.Spec.OperatorLogLevel = operatorv1.Normal
	return cr
}

// ensureCR creates the CR from the sample unless it exists.
func ensureCR(ctx context.Context) *lwsoperatorv1.LeaderWorkerSetOperator {
	cr, err := getCR(ctx)
	if apierrors.IsNotFound(err) {
		By("creating LeaderWorkerSetOperator/cluster (Managed)")
		cr, err = fw.operator.OperatorV1().LeaderWorkerSetOperators().Create(ctx, sampleCR(), metav1.CreateOptions{})
	}
	Expect(err).NotTo(HaveOccurred())
	return cr
}

// updateCR changes the CR's spec, retrying on conflicts (the operator writes its status).
func updateCR(ctx context.Context, change func(*lwsoperatorv1.LeaderWorkerSetOperator)) *lwsoperatorv1.LeaderWorkerSetOperator {
	var updated *lwsoperatorv1.LeaderWorkerSetOperator
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cr, err := getCR(ctx)
		if err != nil {
			return err
		}
		change(cr)
		updated, err = fw.operator.OperatorV1().LeaderWorkerSetOperators().Update(ctx, cr, metav1.UpdateOptions{})
		return err
	})
	Expect(err).NotTo(HaveOccurred(), "update LeaderWorkerSetOperator/cluster")
	return updated
}

func setManagementState(ctx context.Context, state operatorv1.ManagementState) {
	By("setting managementState " + string(state))
	updateCR(ctx, func(cr *lwsoperatorv1.LeaderWorkerSetOperator) { cr.Spec.ManagementState = state })
}

func findCondition(cr *lwsoperatorv1.LeaderWorkerSetOperator, condType string) *operatorv1.OperatorCondition {
	for i := range cr.Status.Conditions {
		if cr.Status.Conditions[i].Type == condType {
			return &cr.Status.Conditions[i]
		}
	}
	return nil
}

// conditionsSummary is a one-line view of the CR's main conditions, for failure messages.
func conditionsSummary(cr *lwsoperatorv1.LeaderWorkerSetOperator) string {
	var parts []string
	for _, c := range cr.Status.Conditions {
		parts = append(parts, fmt.Sprintf("%s=%s(%s: %s)", c.Type, c.Status, c.Reason, c.Message))
	}
	return fmt.Sprintf("generation %d, observedGeneration %d, conditions %s",
		cr.Generation, cr.Status.ObservedGeneration, strings.Join(parts, "; "))
}

// expectCondition asserts, inside an Eventually, that a condition has the status (and the
// reason, unless empty) and that the operator has seen the CR's latest generation.
func expectCondition(g Gomega, cr *lwsoperatorv1.LeaderWorkerSetOperator, condType string, status operatorv1.ConditionStatus, reason string) {
	g.Expect(cr.Status.ObservedGeneration).To(Equal(cr.Generation), "observedGeneration: %s", conditionsSummary(cr))
	c := findCondition(cr, condType)
	g.Expect(c).NotTo(BeNil(), "no %s condition: %s", condType, conditionsSummary(cr))
	g.Expect(c.Status).To(Equal(status), "%s: %s", condType, conditionsSummary(cr))
	if reason != "" {
		g.Expect(c.Reason).To(Equal(reason), "%s reason: %s", condType, conditionsSummary(cr))
	}
}

// waitForCR polls the CR until check passes.
func waitForCR(ctx context.Context, timeout time.Duration, what string, check func(Gomega, *lwsoperatorv1.LeaderWorkerSetOperator)) *lwsoperatorv1.LeaderWorkerSetOperator {
	By("waiting for LeaderWorkerSetOperator/cluster: " + what)
	var last *lwsoperatorv1.LeaderWorkerSetOperator
	Eventually(ctx, func(g Gomega) {
		cr, err := getCR(ctx)
		g.Expect(err).NotTo(HaveOccurred())
		last = cr
		check(g, cr)
	}).WithTimeout(timeout).WithPolling(poll).Should(Succeed(), what)
	return last
}

// waitSettled waits until the operand is installed and quiet: Available=True, Degraded=False,
// Progressing=False, for the CR's latest generation.
func waitSettled(ctx context.Context) *lwsoperatorv1.LeaderWorkerSetOperator {
	return waitForCR(ctx, settleTimeout, "Available=True, Progressing=False, Degraded=False", func(g Gomega, cr *lwsoperatorv1.LeaderWorkerSetOperator) {
		expectCondition(g, cr, operatorv1.OperatorStatusTypeAvailable, operatorv1.ConditionTrue, "")
		expectCondition(g, cr, operatorv1.OperatorStatusTypeDegraded, operatorv1.ConditionFalse, "")
		expectCondition(g, cr, operatorv1.OperatorStatusTypeProgressing, operatorv1.ConditionFalse, "")
	})
}

// --- Operand objects ---

// objectRef names one object the operator manages.
type objectRef struct {
	gvr       schema.GroupVersionResource
	kind      string
	namespace string
	name      string
}

func (o objectRef) String() string {
	if o.namespace == "" {
		return o.kind + " " + o.name
	}
	return o.kind + " " + o.namespace + "/" + o.name
}

func (o objectRef) client() dynamic.ResourceInterface {
	if o.namespace == "" {
		return fw.dynamic.Resource(o.gvr)
	}
	return fw.dynamic.Resource(o.gvr).Namespace(o.namespace)
}

func (o objectRef) get(ctx context.Context) (*unstructured.Unstructured, error) {
	return o.client().Get(ctx, o.name, metav1.GetOptions{})
}

// assetRef renders an embedded manifest for the operator's namespace and returns what it names.
func assetRef(asset string) objectRef {
	r := engine.Renderer{Manifests: bindata.FS, Placeholders: map[string]string{bindata.NamespacePlaceholder: fw.namespace, bindata.OperandImagePlaceholder: "unused"}}
	obj, err := r.Object(asset)
	Expect(err).NotTo(HaveOccurred(), "render %s", asset)
	return objectRef{gvr: engine.MustResourceFor(obj.GroupVersionKind()), kind: obj.GetKind(), namespace: obj.GetNamespace(), name: obj.GetName()}
}

// operandObjects is every object the operator creates for the operand: the embedded manifests
// (the ServiceMonitor only when its CRD is installed) and the operand's ConfigMap. The CRD is
// part of it; callers that must leave it out use withoutCRD.
func operandObjects(ctx context.Context) []objectRef {
	withServiceMonitor := crdExists(ctx, serviceMonitorCRD)
	var refs []objectRef
	for _, asset := range lws.Assets() {
		if asset == bindata.LWSServiceMonitor && !withServiceMonitor {
			continue
		}
		// Made only when spec.networkPolicy.enabled, which the suite's CR leaves unset.
		if asset == bindata.LWSNetworkPolicy {
			continue
		}
		refs = append(refs, assetRef(asset))
	}
	return append(refs, objectRef{gvr: gvrConfigMaps, kind: "ConfigMap", namespace: fw.namespace, name: configMapName})
}

// certificateSecrets are the Secrets cert-manager issues for the operand's Certificates.
func certificateSecrets() []objectRef {
	return []objectRef{
		{gvr: gvrSecrets, kind: "Secret", namespace: fw.namespace, name: webhookSecretName},
		{gvr: gvrSecrets, kind: "Secret", namespace: fw.namespace, name: metricsSecretName},
	}
}

func withoutCRD(refs []objectRef) []objectRef {
	var out []objectRef
	for _, r := range refs {
		if r.kind != "CustomResourceDefinition" {
			out = append(out, r)
		}
	}
	return out
}

func without(refs []objectRef, drop objectRef) []objectRef {
	var out []objectRef
	for _, r := range refs {
		if r != drop {
			out = append(out, r)
		}
	}
	return out
}

func refByName(refs []objectRef, kind, name string) objectRef {
	for _, r := range refs {
		if r.kind == kind && r.name == name {
			return r
		}
	}
	Fail(fmt.Sprintf("no operand object %s %s", kind, name))
	return objectRef{}
}

func crdExists(ctx context.Context, name string) bool {
	_, err := fw.apiext.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, name, metav1.GetOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		Expect(err).NotTo(HaveOccurred(), "get CRD %s", name)
	}
	return err == nil
}

// resourceVersions reads the resourceVersion of every object (absent objects map to "").
func resourceVersions(ctx context.Context, refs []objectRef) map[string]string {
	out := map[string]string{}
	for _, r := range refs {
		obj, err := r.get(ctx)
		if apierrors.IsNotFound(err) {
			out[r.String()] = ""
			continue
		}
		Expect(err).NotTo(HaveOccurred(), "get %s", r)
		out[r.String()] = obj.GetResourceVersion()
	}
	return out
}

// changedSince lists the objects whose resourceVersion differs from before, with the field
// managers that last wrote them, to say who wrote.
func changedSince(ctx context.Context, refs []objectRef, before map[string]string) []string {
	var changed []string
	for _, r := range refs {
		obj, err := r.get(ctx)
		rv := ""
		if err == nil {
			rv = obj.GetResourceVersion()
		} else if !apierrors.IsNotFound(err) {
			changed = append(changed, fmt.Sprintf("%s: %v", r, err))
			continue
		}
		if rv != before[r.String()] {
			changed = append(changed, fmt.Sprintf("%s: resourceVersion %q -> %q%s", r, before[r.String()], rv, lastWriters(obj)))
		}
	}
	return changed
}

func lastWriters(obj *unstructured.Unstructured) string {
	if obj == nil {
		return ""
	}
	var parts []string
	for _, mf := range obj.GetManagedFields() {
		when := ""
		if mf.Time != nil {
			when = mf.Time.UTC().Format(time.RFC3339)
		}
		parts = append(parts, fmt.Sprintf("%s/%s%s@%s", mf.Manager, mf.Operation, subresourceSuffix(mf.Subresource), when))
	}
	return " (managedFields: " + strings.Join(parts, ", ") + ")"
}

func subresourceSuffix(s string) string {
	if s == "" {
		return ""
	}
	return "[" + s + "]"
}

// --- Diagnostics ---

// dumpDiagnostics prints what helps to understand a failure: the CR, the operand's Deployment
// and pods, the recent events of the operator namespace, and the operator's log when the
// environment says where it is.
func dumpDiagnostics(ctx context.Context) {
	w := GinkgoWriter
	fmt.Fprintf(w, "\n===== diagnostics (%s) =====\n", time.Now().UTC().Format(time.RFC3339))
	if cr, err := getCR(ctx); err == nil {
		fmt.Fprintf(w, "LeaderWorkerSetOperator/cluster: managementState %s, %s, finalizers %v, deletionTimestamp %v\n",
			cr.Spec.ManagementState, conditionsSummary(cr), cr.Finalizers, cr.DeletionTimestamp)
		for _, g := range cr.Status.Generations {
			fmt.Fprintf(w, "  status.generations: %s %s/%s lastGeneration %d\n", g.Resource, g.Namespace, g.Name, g.LastGeneration)
		}
	} else {
		fmt.Fprintf(w, "LeaderWorkerSetOperator/cluster: %v\n", err)
	}
	if d, err := fw.kube.AppsV1().Deployments(fw.namespace).Get(ctx, deploymentName, metav1.GetOptions{}); err == nil {
		fmt.Fprintf(w, "Deployment %s: generation %d, replicas %v, status %+v\n", deploymentName, d.Generation, ptrVal(d.Spec.Replicas), d.Status)
	} else {
		fmt.Fprintf(w, "Deployment %s: %v\n", deploymentName, err)
	}
	if pods, err := fw.kube.CoreV1().Pods(fw.namespace).List(ctx, metav1.ListOptions{}); err == nil {
		for _, p := range pods.Items {
			fmt.Fprintf(w, "pod %s: phase %s, node %s, ready %v, deleting %v\n", p.Name, p.Status.Phase, p.Spec.NodeName, podReady(&p), p.DeletionTimestamp != nil)
		}
	}
	if events, err := fw.kube.CoreV1().Events(fw.namespace).List(ctx, metav1.ListOptions{}); err == nil {
		items := events.Items
		sort.Slice(items, func(i, j int) bool { return eventTime(&items[i]).Before(eventTime(&items[j])) })
		if len(items) > 40 {
			items = items[len(items)-40:]
		}
		fmt.Fprintf(w, "last %d events in %s:\n", len(items), fw.namespace)
		for _, e := range items {
			fmt.Fprintf(w, "  %s %s %s/%s %s (x%d): %s\n", eventTime(&e).UTC().Format(time.RFC3339), e.Type,
				e.InvolvedObject.Kind, e.InvolvedObject.Name, e.Reason, e.Count, e.Message)
		}
	}
	if logFile := os.Getenv("E2E_OPERATOR_LOG"); logFile != "" {
		if data, err := os.ReadFile(logFile); err == nil {
			lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
			if len(lines) > 60 {
				lines = lines[len(lines)-60:]
			}
			fmt.Fprintf(w, "last %d lines of %s:\n%s\n", len(lines), logFile, strings.Join(lines, "\n"))
		}
	}
	fmt.Fprintf(w, "===== end of diagnostics =====\n")
}

func ptrVal[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

func eventTime(e *corev1.Event) time.Time {
	switch {
	case !e.LastTimestamp.IsZero():
		return e.LastTimestamp.Time
	case !e.EventTime.IsZero():
		return e.EventTime.Time
	default:
		return e.CreationTimestamp.Time
	}
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
