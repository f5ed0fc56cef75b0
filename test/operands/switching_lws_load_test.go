package operands

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/llm-infra/llm-infra-operator/test/internal/load"
	"github.com/llm-infra/llm-infra-operator/test/internal/switching"
)

// Switching from openshift/lws-operator under load (docs/switching.md, docs/reliability.md): a
// user's LeaderWorkerSet (the LeaderWorkerSet sample: 2 groups of 2 simulators) is made and
// served by the LeaderWorkerSet controller openshift/lws-operator made for LeaderWorkerSetOperator
// `cluster` (test/upgrade/testdata/switching/lws-operator, what its reconciler applies at
// 87aecd42, as make test-switching puts it on the cluster), with no operator of this project
// running; then, while chat completions go through the LeaderWorkerSet's Service, README's
// section "Switching from openshift/lws-operator": step 1, this operator installed (deploy/) and
// started (step 3), and once it serves, step 4 (the old controller and its namespace deleted).
//
// Upstream's controller runs for real: its Deployment names registry.k8s.io/lws/lws:main, and
// the real-pod agent's image table maps the repository registry.k8s.io/lws/lws, whatever the tag,
// to the one LeaderWorkerSet controller built here, lws-manager from the pinned source
// (operand-git-ref, LWS v0.10.0; hack/operands/images.sh): upstream's operand-git-ref is `main`,
// and no build of LWS main exists here. So both controllers are the same program; what the
// switch changes is the Deployment, its namespace, arguments, configuration and certificates.
//
// What upstream's objects are given, and why (nothing of what they render is edited):
//   - the CR's UID (the testdata has a fixed one), as make test-switching does;
//   - an object of the testdata whose kind the cluster does not serve is not made, and only
//     lwsKindsMaybeAbsent may be: the operands' cluster installs no Prometheus operator CRDs
//     (make test-switching installs them, as upstream's reconciler stops at a failed apply);
//   - an object that exists already, only one of lwsThereAlready, is replaced by upstream's
//     content, its UID kept: on a cluster that switches, upstream's objects were there first.

// lwsKindsMaybeAbsent are kinds of upstream's objects the operands' cluster may not serve: the
// ServiceMonitor (monitoring.coreos.com, which this suite's cluster does not install).
var lwsKindsMaybeAbsent = []string{"ServiceMonitor"}

// lwsThereAlready are upstream's objects that may exist before the spec makes them: the three
// CRDs, which this operator installed for another spec's LeaderWorkerSetOperator and keeps at its
// deletion (with users' LeaderWorkerSets), and the ClusterRoles and binding deploy/ installs
// (docs/rbac.md).
var lwsThereAlready = append(slices.Clone(switching.LWSCRDs),
	"lws-manager-role", "lws-metrics-reader", "lws-manager-rolebinding")

// userLWS is the user's LeaderWorkerSet as it was made under upstream's controller: its UID and
// its StatefulSets' (by name), which the switch must keep.
type userLWS struct {
	obj          *unstructured.Unstructured
	uid          types.UID
	statefulSets map[string]types.UID
	// cr: LeaderWorkerSetOperator `cluster` as created, upstream's status on it.
	cr *unstructured.Unstructured
}

// simChatOp is one chat completion sent straight to a simulator's Service (in echo mode, its
// model sim-model); the answer must echo the request's text.
func simChatOp(url string) load.Op {
	return func(ctx context.Context, r *load.Recorder) {
		_ = r.Do("chat", func() error {
			const text = "load through the LeaderWorkerSet"
			body, err := send(ctx, http.MethodPost, url+"/v1/chat/completions", "application/json", simChatBody(text))
			if err != nil {
				return err
			}
			answer, err := simAnswer(body)
			if err != nil {
				return err
			}
			if answer == "" || !strings.HasPrefix(text, strings.TrimSpace(answer)) {
				return fmt.Errorf("answered %q to %q", answer, text)
			}
			return nil
		})
	}
}

// lwsOperatorCR is LeaderWorkerSetOperator `cluster` of the LeaderWorkerSetOperator testdata.
func lwsOperatorCR() *unstructured.Unstructured {
	text, err := os.ReadFile(filepath.Join("..", "..", switching.LWSOperatorTestdata, "cr.yaml"))
	Expect(err).NotTo(HaveOccurred())
	objs, err := decodeAll(text)
	Expect(err).NotTo(HaveOccurred())
	return byKind(objs, "LeaderWorkerSetOperator", "cluster")
}

// removeLWSOperatorCR deletes LeaderWorkerSetOperator `cluster` if it exists and waits until it
// is gone (the operator, running, removes its controller and then its finalizer).
func removeLWSOperatorCR(ctx context.Context, cr *unstructured.Unstructured) {
	err := resource(cr, "").Delete(ctx, cr.GetName(), metav1.DeleteOptions{})
	if apierrors.IsNotFound(err) {
		return
	}
	Expect(err).NotTo(HaveOccurred())
	Eventually(func() bool {
		_, err := resource(cr, "").Get(ctx, cr.GetName(), metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	}).WithContext(ctx).WithTimeout(readyTimeout).WithPolling(poll).Should(BeTrue(), "LeaderWorkerSetOperator %s not gone", cr.GetName())
}

// createUpstreamLWSObjects creates openshift/lws-operator's objects owned by the CR of that UID
// (see above for the two cases that are not a plain create).
func createUpstreamLWSObjects(ctx context.Context, owner types.UID) {
	objs, err := switching.ReadObjects(filepath.Join("..", "..", switching.LWSOperatorTestdata, "objects.yaml"))
	Expect(err).NotTo(HaveOccurred())
	var absent, replaced []string
	for _, u := range objs {
		switching.OwnedBy(u, owner)
		gvk := u.GroupVersionKind()
		if _, err := fw.mapper.RESTMapping(gvk.GroupKind(), gvk.Version); meta.IsNoMatchError(err) {
			Expect(lwsKindsMaybeAbsent).To(ContainElement(u.GetKind()), "the cluster does not serve %s", gvk)
			absent = append(absent, u.GetKind()+" "+u.GetName())
			continue
		}
		ri := resource(u, u.GetNamespace())
		_, err := ri.Create(ctx, u, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			Expect(lwsThereAlready).To(ContainElement(u.GetName()), "upstream's %s %s is there already", u.GetKind(), u.GetName())
			live, getErr := ri.Get(ctx, u.GetName(), metav1.GetOptions{})
			Expect(getErr).NotTo(HaveOccurred())
			u.SetResourceVersion(live.GetResourceVersion())
			_, err = ri.Update(ctx, u, metav1.UpdateOptions{})
			replaced = append(replaced, u.GetKind()+" "+u.GetName())
		}
		Expect(err).NotTo(HaveOccurred(), "upstream's %s %s/%s", u.GetKind(), u.GetNamespace(), u.GetName())
	}
	// The CRDs' kinds are served once established; the suite's REST mapper caches discovery
	// and is not refreshed on a miss.
	Eventually(func() error {
		fw.mapper.(meta.ResettableRESTMapper).Reset()
		_, err := fw.mapper.RESTMapping(schema.GroupKind{Group: "leaderworkerset.x-k8s.io", Kind: "LeaderWorkerSet"}, "v1")
		return err
	}).WithContext(ctx).WithTimeout(readyTimeout).WithPolling(poll).Should(Succeed())
	GinkgoWriter.Printf("openshift/lws-operator's %d objects: not served here %v; there already, upstream's put in their place %v\n", len(objs), absent, replaced)
}

// upstreamControllerRuns: each replica of upstream's controller Deployment is available and a
// process of the built LWS controller (lws-manager of make fetch-operands) on this machine, which
// the real-pod agent's image table maps its image to.
func upstreamControllerRuns(ctx context.Context) {
	d, err := fw.kube.AppsV1().Deployments(switching.LWSUpstreamNamespace).Get(ctx, switching.LWSControllerName, metav1.GetOptions{})
	Expect(err).NotTo(HaveOccurred())
	Expect(d.Status.AvailableReplicas).To(Equal(*d.Spec.Replicas), "upstream's controller: available replicas")
	pods, err := fw.kube.CoreV1().Pods(switching.LWSUpstreamNamespace).List(ctx, metav1.ListOptions{LabelSelector: "control-plane=controller-manager"})
	Expect(err).NotTo(HaveOccurred())
	Expect(pods.Items).To(HaveLen(int(*d.Spec.Replicas)))
	built, err := os.Stat(filepath.Join(fw.bin, "lws-manager"))
	Expect(err).NotTo(HaveOccurred(), "the built LWS controller")
	for _, p := range pods.Items {
		Expect(p.Spec.Containers[0].Image).To(Equal("registry.k8s.io/lws/lws:main"), "pod %s", p.Name)
		// The agent binds the program into the container (hack/tools/realpods/ARCHITECTURE.md):
		// the same file as the build's.
		runs := false
		for _, proc := range podProcesses(p.Name) {
			exe, err := os.Stat(filepath.Join("/proc", fmt.Sprint(proc.pid), "exe"))
			runs = runs || err == nil && os.SameFile(exe, built)
		}
		Expect(runs).To(BeTrue(), "no process of upstream's controller pod %s runs %s", p.Name, filepath.Join(fw.bin, "lws-manager"))
	}
}

// statefulSetUIDs are the UIDs of the user's LeaderWorkerSet's StatefulSets, by name.
func statefulSetUIDs(ctx context.Context, ns string) map[string]types.UID {
	sts, err := fw.kube.AppsV1().StatefulSets(ns).List(ctx, metav1.ListOptions{LabelSelector: lwsNameLabel + "=" + lwsName})
	Expect(err).NotTo(HaveOccurred())
	out := map[string]types.UID{}
	for _, s := range sts.Items {
		out[s.Name] = s.UID
	}
	return out
}

// deployUnderLWSOperator stops the operator (started again with its usual arguments after the
// spec), puts on the cluster what openshift/lws-operator makes for `cluster`, and the user's
// LeaderWorkerSet in ns under upstream's controller. Returns once it answers through its
// Service.
func deployUnderLWSOperator(ctx context.Context, ns string) *stack {
	cr := lwsOperatorCR()
	// Registered before the operator's restore, so run after it: the operator removes its
	// controller and the finalizer, and the next spec finds no CR.
	DeferCleanup(func(ctx SpecContext) { removeLWSOperatorCR(ctx, cr) })
	By("no LeaderWorkerSetOperator before upstream's (another spec's is removed by the operator)")
	removeLWSOperatorCR(ctx, cr)
	stopOperatorForSpec()

	By("creating LeaderWorkerSetOperator cluster, upstream's status on it, and what openshift/lws-operator makes for it")
	_, err := fw.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: switching.LWSUpstreamNamespace}}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred(), "namespace %s (left by an earlier run?)", switching.LWSUpstreamNamespace)
	DeferCleanup(func(ctx SpecContext) {
		// Gone with step 4 unless the spec failed before it.
		_ = fw.kube.CoreV1().Namespaces().Delete(ctx, switching.LWSUpstreamNamespace, metav1.DeleteOptions{})
	})
	status := cr.Object["status"]
	created, err := resource(cr, "").Create(ctx, cr.DeepCopy(), metav1.CreateOptions{FieldManager: fieldManager})
	Expect(err).NotTo(HaveOccurred())
	created.Object["status"] = status
	created, err = resource(cr, "").UpdateStatus(ctx, created, metav1.UpdateOptions{FieldManager: fieldManager})
	Expect(err).NotTo(HaveOccurred(), "upstream's status of LeaderWorkerSetOperator cluster")
	createUpstreamLWSObjects(ctx, created.GetUID())

	By("waiting until upstream's LeaderWorkerSet controller is Ready")
	waitDeploymentsRolled(ctx, switching.LWSUpstreamNamespace, switching.LWSControllerName)
	upstreamControllerRuns(ctx)

	// Admission goes through upstream's webhooks, trusted once cert-manager's CA injector filled
	// their CA bundle from upstream's Certificate.
	lws := createLeaderWorkerSet(ctx, ns, "upstream's webhooks (the user's)")
	pods := waitLWSReady(ctx, lws, ns, "")
	for _, p := range pods {
		Expect(processEnv(p.Name)).To(HaveKeyWithValue("LWS_GROUP_SIZE", fmt.Sprint(lwsSize)), "pod %s: upstream's pod webhook", p.Name)
	}
	live, err := resource(lws, ns).Get(ctx, lwsName, metav1.GetOptions{})
	Expect(err).NotTo(HaveOccurred())
	s := &stack{ns: ns, chat: serviceURL(ctx, ns, lwsLeadersService, 8000, "http"),
		lws: &userLWS{obj: lws, uid: live.GetUID(), statefulSets: statefulSetUIDs(ctx, ns), cr: created}}
	Expect(s.lws.statefulSets).To(HaveLen(1+lwsGroups), "the leaders' StatefulSet and one workers' per group")
	Eventually(func() error {
		_, err := simChat(ctx, s.chat, "upstream's controller")
		return err
	}).WithContext(ctx).WithTimeout(readyTimeout).WithPolling(poll).Should(Succeed())
	return s
}

// switchedFromLWSOperator: README's switch from openshift/lws-operator while the load runs:
// step 1 (the CRDs detached from the CR), step 3 (deploy/ installed, this operator started with
// the spec's lease), and once LeaderWorkerSetOperator `cluster` is Available at its generation
// and this operator's controller Ready, step 4 (the old controller and its namespace deleted).
// The user's LeaderWorkerSet and its StatefulSets must be the same objects; its pods are
// compared by servingUnderFaults (operator: the switch must replace or restart none).
var switchedFromLWSOperator = fault{phase: "LWS controller switched from openshift/lws-operator's", operator: true, inject: func(ctx context.Context, s *stack) int {
	Expect(s.lws).NotTo(BeNil(), "the stack has no user's LeaderWorkerSet")
	opNS := envOr("OPERATOR_NAMESPACE", "openshift-llm-infra-operator")
	By("step 1: the three CRDs detached from the CR")
	Expect(switching.DetachLWSCRDs(ctx, fw.dyn)).To(Succeed())
	By("step 3: this operator installed (deploy/) and started")
	upgradeHook(ctx, "install-current")
	op := localOperator(leaseArgs())
	started := time.Now()
	_, err := op.Start()
	Expect(err).NotTo(HaveOccurred())
	waitLeaseTaken(ctx, started)
	waitServedAtGeneration(ctx, s.lws.cr, "", "Available")
	waitDeploymentsRolled(ctx, opNS, switching.LWSControllerName)
	served := time.Since(started)
	// Untouched until step 4: both controllers served until then.
	upstreamControllerRuns(ctx)
	By("step 4: the old controller and its namespace deleted")
	step4 := time.Now()
	Expect(switching.DeleteLWSUpstream(ctx, fw.kube, poll, readyTimeout)).To(Succeed())
	GinkgoWriter.Printf("the switch: LeaderWorkerSetOperator Available at its generation and this operator's controller Ready %.1fs after the operator started "+
		"(both controllers ran until step 4); step 4 took %.1fs\n", served.Seconds(), time.Since(step4).Seconds())

	By("the user's LeaderWorkerSet and its StatefulSets are the same objects, served by this operator's controller")
	live, err := resource(s.lws.obj, s.ns).Get(ctx, lwsName, metav1.GetOptions{})
	Expect(err).NotTo(HaveOccurred())
	Expect(live.GetUID()).To(Equal(s.lws.uid), "the user's LeaderWorkerSet was deleted and made anew")
	Expect(statefulSetUIDs(ctx, s.ns)).To(Equal(s.lws.statefulSets), "the user's StatefulSets (by name and UID)")
	waitLWSReady(ctx, s.lws.obj, s.ns, "")
	for _, name := range switching.LWSCRDs {
		crd, err := fw.dyn.Resource(switching.CRDs).Get(ctx, name, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred(), "CRD %s", name)
		Expect(crd.GetOwnerReferences()).To(BeEmpty(), "CRD %s", name)
	}
	hooks, err := fw.dyn.Resource(schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingwebhookconfigurations"}).
		Get(ctx, lwsValidatingWebhooks, metav1.GetOptions{})
	Expect(err).NotTo(HaveOccurred())
	webhooks, _, _ := unstructured.NestedSlice(hooks.Object, "webhooks")
	for _, h := range webhooks {
		ns, _, _ := unstructured.NestedString(h.(map[string]any), "clientConfig", "service", "namespace")
		Expect(ns).To(Equal(opNS), "webhook %v: served from namespace %s", h.(map[string]any)["name"], ns)
	}
	return 0
}}
