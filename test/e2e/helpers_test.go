package e2e

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// --- The operand's Deployment and pods ---

func getDeployment(ctx context.Context) (*appsv1.Deployment, error) {
	return fw.kube.AppsV1().Deployments(fw.namespace).Get(ctx, deploymentName, metav1.GetOptions{})
}

func managerContainerOf(d *appsv1.Deployment) *corev1.Container {
	for i := range d.Spec.Template.Spec.Containers {
		if d.Spec.Template.Spec.Containers[i].Name == managerContainer {
			return &d.Spec.Template.Spec.Containers[i]
		}
	}
	return nil
}

func zapLogLevel(d *appsv1.Deployment) string {
	c := managerContainerOf(d)
	if c == nil {
		return ""
	}
	for _, a := range c.Args {
		if strings.HasPrefix(a, zapLogLevelArg) {
			return strings.TrimPrefix(a, zapLogLevelArg)
		}
	}
	return ""
}

// operandPods lists the Deployment's pods that are not being deleted.
func operandPods(ctx context.Context, g Gomega) []corev1.Pod {
	return deploymentPods(ctx, g, fw.namespace, deploymentName)
}

// deploymentPods lists the pods a Deployment selects that are not being deleted.
func deploymentPods(ctx context.Context, g Gomega, namespace, name string) []corev1.Pod {
	d, err := fw.kube.AppsV1().Deployments(namespace).Get(ctx, name, metav1.GetOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	selector, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	g.Expect(err).NotTo(HaveOccurred())
	pods, err := fw.kube.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector.String()})
	g.Expect(err).NotTo(HaveOccurred())
	var live []corev1.Pod
	for _, p := range pods.Items {
		if p.DeletionTimestamp == nil {
			live = append(live, p)
		}
	}
	return live
}

func podUIDs(pods []corev1.Pod) map[types.UID]bool {
	out := map[types.UID]bool{}
	for _, p := range pods {
		out[p.UID] = true
	}
	return out
}

// waitRolledOut waits until the Deployment has rolled out its latest spec completely: every
// replica updated, ready and available, no old pod left, and check holds for every pod.
func waitRolledOut(ctx context.Context, what string, check func(Gomega, *corev1.Pod)) {
	waitDeploymentRolledOut(ctx, fw.namespace, deploymentName, what, check)
}

// waitDeploymentRolledOut is waitRolledOut for any Deployment.
func waitDeploymentRolledOut(ctx context.Context, namespace, name, what string, check func(Gomega, *corev1.Pod)) {
	By(fmt.Sprintf("waiting for Deployment %s/%s to roll out: %s", namespace, name, what))
	Eventually(ctx, func(g Gomega) {
		d, err := fw.kube.AppsV1().Deployments(namespace).Get(ctx, name, metav1.GetOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		want := int32(1)
		if d.Spec.Replicas != nil {
			want = *d.Spec.Replicas
		}
		g.Expect(d.Status.ObservedGeneration).To(Equal(d.Generation), "Deployment observedGeneration")
		g.Expect(d.Status.UpdatedReplicas).To(Equal(want), "updated replicas")
		g.Expect(d.Status.ReadyReplicas).To(Equal(want), "ready replicas")
		g.Expect(d.Status.AvailableReplicas).To(Equal(want), "available replicas")
		g.Expect(d.Status.Replicas).To(Equal(want), "replicas (old ones must be gone)")
		pods := deploymentPods(ctx, g, namespace, name)
		g.Expect(pods).To(HaveLen(int(want)), "pods of the Deployment")
		for i := range pods {
			g.Expect(pods[i].Status.Phase).To(Equal(corev1.PodRunning), "pod %s phase", pods[i].Name)
			g.Expect(podReady(&pods[i])).To(BeTrue(), "pod %s ready", pods[i].Name)
			if check != nil {
				check(g, &pods[i])
			}
		}
	}).WithTimeout(settleTimeout).WithPolling(poll).Should(Succeed(), what)
}

// replicaSetUIDs lists the ReplicaSets the Deployment owns.
func replicaSets(ctx context.Context) []appsv1.ReplicaSet {
	d, err := getDeployment(ctx)
	Expect(err).NotTo(HaveOccurred())
	list, err := fw.kube.AppsV1().ReplicaSets(fw.namespace).List(ctx, metav1.ListOptions{})
	Expect(err).NotTo(HaveOccurred())
	var out []appsv1.ReplicaSet
	for _, rs := range list.Items {
		for _, o := range rs.OwnerReferences {
			if o.UID == d.UID {
				out = append(out, rs)
			}
		}
	}
	return out
}

// --- The operator process ---

// operatorLeaseHolder is the holder of the operator's leader-election Lease (controllercmd's
// "<component>-lock" in the operator namespace): each operator process has its own identity,
// so a change means a new process leads. Empty when there is no holder.
func operatorLeaseHolder(ctx context.Context) string {
	lease, err := fw.kube.CoordinationV1().Leases(fw.namespace).Get(ctx, operatorName+operatorLeaseSuffix, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return ""
	}
	Expect(err).NotTo(HaveOccurred(), "get the operator's Lease")
	if lease.Spec.HolderIdentity == nil {
		return ""
	}
	return *lease.Spec.HolderIdentity
}

// operatorIdentity says which operator process runs: its Lease holder and, when the environment
// tells how (E2E_OPERATOR_PID_CMD), its pid.
type operatorIdentity struct {
	leaseHolder string
	pid         string
}

func currentOperator(ctx context.Context) operatorIdentity {
	return operatorIdentity{leaseHolder: operatorLeaseHolder(ctx), pid: hookOutput(ctx, os.Getenv("E2E_OPERATOR_PID_CMD"))}
}

// restartOperator restarts the operator with E2E_RESTART_OPERATOR, or, without it, by deleting
// the operator's pod (deploy/10_deployment.yaml's selector) and waiting for a new one; then it
// waits until a new process holds the leader Lease, that is, runs the controllers.
func restartOperator(ctx context.Context) {
	before := currentOperator(ctx)
	Expect(before.leaseHolder).NotTo(BeEmpty(), "the operator holds no leader Lease %s/%s%s", fw.namespace, operatorName, operatorLeaseSuffix)
	if hook := os.Getenv("E2E_RESTART_OPERATOR"); hook != "" {
		runHook(ctx, "E2E_RESTART_OPERATOR", hook)
	} else {
		selector := "app.kubernetes.io/name=" + operatorName
		pods, err := fw.kube.CoreV1().Pods(fw.namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
		Expect(err).NotTo(HaveOccurred())
		Expect(pods.Items).NotTo(BeEmpty(), "no operator pod (%s) in %s; set E2E_RESTART_OPERATOR when the operator does not run as a pod", selector, fw.namespace)
		old := podUIDs(pods.Items)
		for _, p := range pods.Items {
			By("deleting the operator pod " + p.Name)
			Expect(fw.kube.CoreV1().Pods(fw.namespace).Delete(ctx, p.Name, metav1.DeleteOptions{})).To(Succeed())
		}
		Eventually(ctx, func(g Gomega) {
			pods, err := fw.kube.CoreV1().Pods(fw.namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
			g.Expect(err).NotTo(HaveOccurred())
			ready := 0
			for i := range pods.Items {
				p := &pods.Items[i]
				if !old[p.UID] && p.DeletionTimestamp == nil && podReady(p) {
					ready++
				}
			}
			g.Expect(ready).To(BeNumerically(">=", 1), "a new, ready operator pod")
		}).WithTimeout(settleTimeout).WithPolling(poll).Should(Succeed())
	}
	By("waiting for the new operator process to take the leader Lease")
	Eventually(ctx, func(g Gomega) {
		holder := operatorLeaseHolder(ctx)
		g.Expect(holder).NotTo(BeEmpty())
		g.Expect(holder).NotTo(Equal(before.leaseHolder))
	}).WithTimeout(3 * time.Minute).WithPolling(poll).Should(Succeed())
}

// --- Events ---

// eventSnapshot remembers the events of the operator namespace, so that a new occurrence of an
// event (a new object, or a higher count of an aggregated one) can be told from an old one.
type eventSnapshot map[string]int32

func snapshotEvents(ctx context.Context) eventSnapshot {
	list, err := fw.kube.CoreV1().Events(fw.namespace).List(ctx, metav1.ListOptions{})
	Expect(err).NotTo(HaveOccurred())
	out := eventSnapshot{}
	for _, e := range list.Items {
		out[e.Name] = e.Count
	}
	return out
}

// newEvent finds an event with the reason whose message contains text, emitted after the snapshot.
func newEvent(ctx context.Context, g Gomega, since eventSnapshot, reason, text string) *corev1.Event {
	list, err := fw.kube.CoreV1().Events(fw.namespace).List(ctx, metav1.ListOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	var seen []string
	for i := range list.Items {
		e := &list.Items[i]
		if e.Reason != reason {
			continue
		}
		seen = append(seen, e.Message)
		count, known := since[e.Name]
		if strings.Contains(e.Message, text) && (!known || e.Count > count) {
			return e
		}
	}
	g.Expect(seen).To(ContainElement(ContainSubstring(text)), "a new %s event in %s whose message contains %q", reason, fw.namespace, text)
	g.Expect(false).To(BeTrue(), "the %s event containing %q is older than the change", reason, text)
	return nil
}

// --- Measurements ---

var (
	measurementsMu sync.Mutex
	measurements   []string
)

// measure records a duration in the spec's report and in the suite's summary.
func measure(name string, d time.Duration) {
	line := fmt.Sprintf("%-58s %6.2fs", name, d.Seconds())
	fmt.Fprintf(GinkgoWriter, "MEASURED %s\n", line)
	AddReportEntry(name, d.Round(time.Millisecond).String())
	measurementsMu.Lock()
	measurements = append(measurements, line)
	measurementsMu.Unlock()
}

var _ = AfterSuite(func() {
	measurementsMu.Lock()
	defer measurementsMu.Unlock()
	if len(measurements) == 0 {
		return
	}
	fmt.Fprintf(GinkgoWriter, "\nMeasurements:\n  %s\n", strings.Join(measurements, "\n  "))
})
