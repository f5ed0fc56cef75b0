package operands

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
)

// The LeaderWorkerSet sample (hack/operands/samples/leaderworkerset.yaml) and what upstream's
// controller names and labels (sigs.k8s.io/lws api/leaderworkerset/v1).
const (
	lwsName           = "sim"
	lwsLeadersService = "sim-leaders"
	lwsGroups         = 2
	lwsSize           = 2
	lwsNameLabel      = "leaderworkerset.sigs.k8s.io/name"
	lwsGroupLabel     = "leaderworkerset.sigs.k8s.io/group-index"
	lwsWorkerLabel    = "leaderworkerset.sigs.k8s.io/worker-index"
	lwsRevisionLabel  = "leaderworkerset.sigs.k8s.io/template-revision-hash"
	// The example that installs the controller, as make run-local applies it.
	lwsOperatorExample = "../../deploy/examples/leaderworkersetoperator_cluster.yaml"
)

// ensureLWSController makes LeaderWorkerSetOperator/cluster (deploy/examples) unless it exists,
// and waits until it is Available: the controller's pod runs (the real-pod agent runs
// registry.k8s.io/lws/lws as the lws-manager built from the pinned source) and is Ready, and
// the API server serves the three kinds its CRDs define. A CR made here is deleted after the
// specs of the container that called it.
func ensureLWSController(ctx context.Context) {
	text, err := os.ReadFile(lwsOperatorExample)
	Expect(err).NotTo(HaveOccurred())
	objs, err := decodeAll(text)
	Expect(err).NotTo(HaveOccurred())
	cr := byKind(objs, "LeaderWorkerSetOperator", "cluster")
	_, err = resource(cr, "").Create(ctx, cr, metav1.CreateOptions{FieldManager: fieldManager})
	if err == nil {
		DeferCleanup(func(ctx SpecContext) {
			_ = resource(cr, "").Delete(ctx, cr.GetName(), metav1.DeleteOptions{})
		})
	} else {
		Expect(apierrors.IsAlreadyExists(err)).To(BeTrue(), "create LeaderWorkerSetOperator/cluster: %v", err)
	}
	waitCondition(ctx, cr, "", "Available")
	// The operator installed the CRDs after the suite's REST mapper cached discovery, and a
	// cache that was filled once is not refreshed on a miss.
	Eventually(func() error {
		fw.mapper.(meta.ResettableRESTMapper).Reset()
		for _, gk := range []schema.GroupKind{
			{Group: "leaderworkerset.x-k8s.io", Kind: "LeaderWorkerSet"},
			{Group: dsGroup, Kind: "DisaggregatedSet"},
			{Group: dsGroup, Kind: "DisaggregatedSetRoleScaler"},
		} {
			if _, err := fw.mapper.RESTMapping(gk, "v1"); err != nil {
				return err
			}
		}
		return nil
	}).WithContext(ctx).WithTimeout(readyTimeout).WithPolling(poll).Should(Succeed())
}

// lwsPods are the sample's pods as they are now, by name.
func lwsPods(g Gomega, ctx context.Context, ns string) map[string]corev1.Pod {
	pods, err := fw.kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: lwsNameLabel + "=" + lwsName})
	g.Expect(err).NotTo(HaveOccurred())
	out := map[string]corev1.Pod{}
	for _, p := range pods.Items {
		out[p.Name] = p
	}
	return out
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// waitLWSReady waits until the LeaderWorkerSet is Available with every group ready and updated,
// and each of its lwsGroups*lwsSize pods Ready and of one revision, other than oldRevision
// (after a template change, whose status and pods the controller updates a moment later).
// createLeaderWorkerSet renders the suite's LeaderWorkerSet and its leaders' Service into ns,
// applies the Service and creates the LeaderWorkerSet through the webhooks that serve it (through
// names them, for the log). A controller is Ready before the API server trusts its webhook's
// certificate (the CA is injected into the webhook configurations when issued): until then,
// admission fails, so the create is retried.
func createLeaderWorkerSet(ctx context.Context, ns, through string) *unstructured.Unstructured {
	objs, err := render("leaderworkerset.yaml", map[string]string{"NAMESPACE": ns})
	Expect(err).NotTo(HaveOccurred())
	lws := byKind(objs, "LeaderWorkerSet", lwsName)
	apply(ctx, ns, byKind(objs, "Service", lwsLeadersService))
	By("creating LeaderWorkerSet " + ns + "/" + lwsName + " through " + through)
	Eventually(func() error {
		_, err := resource(lws, ns).Create(ctx, lws.DeepCopy(), metav1.CreateOptions{FieldManager: fieldManager})
		if apierrors.IsAlreadyExists(err) {
			return nil
		}
		return err
	}).WithContext(ctx).WithTimeout(readyTimeout).WithPolling(poll).Should(Succeed())
	return lws
}

func waitLWSReady(ctx context.Context, lws *unstructured.Unstructured, ns, oldRevision string) map[string]corev1.Pod {
	By(fmt.Sprintf("waiting for LeaderWorkerSet %s/%s: %d groups of %d Ready", ns, lws.GetName(), lwsGroups, lwsSize))
	var pods map[string]corev1.Pod
	Eventually(func(g Gomega) {
		g.Expect(condition(g, ctx, lws, ns, "Available")).To(HaveKeyWithValue("status", "True"))
		live, err := resource(lws, ns).Get(ctx, lws.GetName(), metav1.GetOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		ready, _, _ := unstructured.NestedInt64(live.Object, "status", "readyReplicas")
		updated, _, _ := unstructured.NestedInt64(live.Object, "status", "updatedReplicas")
		g.Expect(ready).To(BeEquivalentTo(lwsGroups), "status.readyReplicas")
		g.Expect(updated).To(BeEquivalentTo(lwsGroups), "status.updatedReplicas")
		pods = lwsPods(g, ctx, ns)
		g.Expect(pods).To(HaveLen(lwsGroups * lwsSize))
		revisions := map[string]bool{}
		for _, p := range pods {
			g.Expect(p.DeletionTimestamp).To(BeNil(), "pod %s is being deleted", p.Name)
			g.Expect(podReady(&p)).To(BeTrue(), "pod %s is not Ready", p.Name)
			revisions[p.Labels[lwsRevisionLabel]] = true
		}
		g.Expect(revisions).NotTo(HaveKey(oldRevision), "pods of the revision before the change")
		g.Expect(revisions).To(HaveLen(1), "the pods are of more than one revision")
	}).WithContext(ctx).WithTimeout(readyTimeout).WithPolling(poll).Should(Succeed())
	return pods
}

// processEnv is the environment of a pod's first process on this machine (the real-pod agent
// runs each container as a process; all of a container's share its environment at start).
func processEnv(pod string) map[string]string {
	procs := podProcesses(pod)
	Expect(procs).NotTo(BeEmpty(), "no process of pod %s on this machine", pod)
	data, err := os.ReadFile(filepath.Join("/proc", fmt.Sprint(procs[0].pid), "environ"))
	Expect(err).NotTo(HaveOccurred())
	env := map[string]string{}
	for _, kv := range bytes.Split(data, []byte{0}) {
		if k, v, ok := strings.Cut(string(kv), "="); ok {
			env[k] = v
		}
	}
	return env
}

// fromPod runs a host program inside the namespaces of a pod's first process (its network, and
// its mount namespace and root, which hold the pod's /etc/resolv.conf and /etc/hosts), as
// `kubectl exec` does on the real-pod agent; its output.
func fromPod(ctx context.Context, pod string, argv ...string) (string, error) {
	procs := podProcesses(pod)
	if len(procs) == 0 {
		return "", fmt.Errorf("no process of pod %s on this machine", pod)
	}
	args := append([]string{"--target", fmt.Sprint(procs[0].pid), "--mount", "--net", "--root", "--"}, argv...)
	out, err := exec.CommandContext(ctx, "nsenter", args...).CombinedOutput()
	return string(out), err
}

// leaderAddress is LWS_LEADER_ADDRESS as upstream's pod webhook makes it:
// <lws>-<group>.<subdomain>.<namespace>, the subdomain being the headless Service named after the
// LeaderWorkerSet.
func leaderAddress(ns, group string) string {
	return fmt.Sprintf("%s-%s.%s.%s", lwsName, group, lwsName, ns)
}

// simChat sends one chat completion to the simulator at url (its model is sim-model, in echo
// mode) and returns the answer's text.
func simChat(ctx context.Context, url, text string) (string, error) {
	code, data, err := do(ctx, http.MethodPost, url+"/v1/chat/completions", jsonHeader(), bytes.NewReader(simChatBody(text)))
	if err != nil {
		return "", err
	}
	if code != http.StatusOK {
		return "", fmt.Errorf("%d %s", code, data)
	}
	return simAnswer(data)
}

// simChatBody is a chat completion request for the simulator's sim-model.
func simChatBody(text string) []byte {
	body, _ := json.Marshal(map[string]any{
		"model": "sim-model", "max_tokens": 32,
		"messages": []map[string]string{{"role": "user", "content": text}},
	})
	return body
}

// simAnswer is the text of a chat completion's first choice.
func simAnswer(data []byte) (string, error) {
	var r chatResponse
	if err := json.Unmarshal(data, &r); err != nil || len(r.Choices) == 0 {
		return "", fmt.Errorf("no answer in %s (%v)", data, err)
	}
	return r.Choices[0].Message.Content, nil
}

// One controller for the LeaderWorkerSet, DisaggregatedSet (disaggregatedset_test.go) and
// certificate (lws_certificates_test.go) specs: installing it again for each would cost a
// removal and an install. ContinueOnFailure: a failed spec does not skip the others, which wait
// for what they need themselves.
var _ = Describe("LeaderWorkerSet controller on real pods", Ordered, ContinueOnFailure, func() {
	BeforeAll(func(ctx SpecContext) { ensureLWSController(ctx) })
	Context("a LeaderWorkerSet", leaderWorkerSetSpecs)
	Context("a DisaggregatedSet", disaggregatedSetSpecs)
	Context("its certificate sources", lwsCertificateSpecs)
})

func leaderWorkerSetSpecs() {
	var ns string
	var lws *unstructured.Unstructured

	BeforeAll(func(ctx SpecContext) {
		ns = namespace(ctx, "operands-lws")
		lws = createLeaderWorkerSet(ctx, ns, "the controller's webhooks")
	})

	It("answers: 2 groups of 2 Ready on the real controller, each process with LWS's env, each worker reaching its leader at LWS_LEADER_ADDRESS, a chat completion through its Service", Label("short"), func(ctx SpecContext) {
		pods := waitLWSReady(ctx, lws, ns, "")

		By("the controller made the leaders' StatefulSet and one workers' StatefulSet per group")
		sts, err := fw.kube.AppsV1().StatefulSets(ns).List(ctx, metav1.ListOptions{LabelSelector: lwsNameLabel + "=" + lwsName})
		Expect(err).NotTo(HaveOccurred())
		replicas := map[string]int32{}
		for _, s := range sts.Items {
			replicas[s.Name] = s.Status.ReadyReplicas
		}
		Expect(replicas).To(Equal(map[string]int32{lwsName: lwsGroups, lwsName + "-0": lwsSize - 1, lwsName + "-1": lwsSize - 1}))

		By("every process has the env LWS's pod webhook gave its container")
		leaderIP := map[string]string{}
		for _, p := range pods {
			group, worker := p.Labels[lwsGroupLabel], p.Labels[lwsWorkerLabel]
			env := processEnv(p.Name)
			Expect(env).To(HaveKeyWithValue("LWS_LEADER_ADDRESS", leaderAddress(ns, group)), "pod %s", p.Name)
			Expect(env).To(HaveKeyWithValue("LWS_GROUP_SIZE", fmt.Sprint(lwsSize)), "pod %s", p.Name)
			Expect(env).To(HaveKeyWithValue("LWS_WORKER_INDEX", worker), "pod %s", p.Name)
			if worker == "0" {
				Expect(p.Name).To(Equal(lwsName + "-" + group))
				leaderIP[group] = p.Status.PodIP
			}
		}
		Expect(leaderIP).To(HaveLen(lwsGroups))

		By("each worker reaches its own leader at LWS_LEADER_ADDRESS, from its own network namespace")
		for _, p := range pods {
			if p.Labels[lwsWorkerLabel] == "0" {
				continue
			}
			group := p.Labels[lwsGroupLabel]
			out, err := fromPod(ctx, p.Name, "curl", "-sSf", "--max-time", "10", "-o", "/dev/null", "-w", "%{remote_ip}",
				fmt.Sprintf("http://%s:8000/health", leaderAddress(ns, group)))
			Expect(err).NotTo(HaveOccurred(), "worker %s: %s", p.Name, out)
			Expect(out).To(Equal(leaderIP[group]), "worker %s reached %s, not its leader", p.Name, out)
			GinkgoWriter.Printf("worker %s reached leader %s at %s\n", p.Name, leaderAddress(ns, group), out)
		}

		By("a chat completion through the leaders' Service")
		url := serviceURL(ctx, ns, lwsLeadersService, 8000, "http")
		answer, err := simChat(ctx, url, "hello leaders")
		Expect(err).NotTo(HaveOccurred())
		// llm-d-inference-sim in echo mode answers with the request's text (cut at max_tokens).
		Expect(answer).NotTo(BeEmpty())
		Expect("hello leaders").To(HavePrefix(strings.TrimSpace(answer)))
		GinkgoWriter.Printf("chat completion through %s: %q\n", url, answer)
	})

	It("refuses an invalid LeaderWorkerSet with the real webhook's message", Label("short"), func(ctx SpecContext) {
		invalid := lws.DeepCopy()
		invalid.SetName(lwsName + "-invalid")
		Expect(unstructured.SetNestedField(invalid.Object, map[string]any{
			"type":                       "RollingUpdate",
			"rollingUpdateConfiguration": map[string]any{"maxUnavailable": int64(0), "maxSurge": int64(0)},
		}, "spec", "rolloutStrategy")).To(Succeed())
		_, err := resource(invalid, ns).Create(ctx, invalid, metav1.CreateOptions{FieldManager: fieldManager})
		Expect(err).To(HaveOccurred())
		// The CRD's schema has no such rule: only upstream's validating webhook refuses it.
		Expect(err.Error()).To(ContainSubstring(`admission webhook "vleaderworkerset.kb.io" denied the request`))
		Expect(err.Error()).To(ContainSubstring("spec.rolloutStrategy.rollingUpdateConfiguration.maxUnavailable: Invalid value: 0: must not be 0 when `maxSurge` is 0"))
		_, err = resource(invalid, ns).Get(ctx, invalid.GetName(), metav1.GetOptions{})
		Expect(apierrors.IsNotFound(err)).To(BeTrue(), "LeaderWorkerSet %s exists: %v", invalid.GetName(), err)
	})

	It("replaces the groups one by one on a rolling update of its template", func(ctx SpecContext) {
		before := waitLWSReady(ctx, lws, ns, "")
		oldRevision := before[lwsName+"-0"].Labels[lwsRevisionLabel]
		leaders := metav1.ListOptions{LabelSelector: lwsNameLabel + "=" + lwsName + "," + lwsWorkerLabel + "=0"}
		list, err := fw.kube.CoreV1().Pods(ns).List(ctx, leaders)
		Expect(err).NotTo(HaveOccurred())
		leaders.ResourceVersion = list.ResourceVersion
		w, err := fw.kube.CoreV1().Pods(ns).Watch(ctx, leaders)
		Expect(err).NotTo(HaveOccurred())
		defer w.Stop()
		// The leaders' steps, "down <group>" (the old leader is deleted) and "up <group>" (the
		// new one is Ready), each once, in the order the watch saw them.
		var mu sync.Mutex
		var order []string
		go func() {
			defer GinkgoRecover()
			for ev := range w.ResultChan() {
				p, ok := ev.Object.(*corev1.Pod)
				if !ok {
					continue
				}
				step := ""
				switch old := p.Labels[lwsRevisionLabel] == oldRevision; {
				case old && (ev.Type == watch.Deleted || p.DeletionTimestamp != nil):
					step = "down " + p.Labels[lwsGroupLabel]
				case !old && ev.Type != watch.Deleted && p.DeletionTimestamp == nil && podReady(p):
					step = "up " + p.Labels[lwsGroupLabel]
				}
				mu.Lock()
				if step != "" && !slices.Contains(order, step) {
					order = append(order, step)
				}
				mu.Unlock()
			}
		}()

		By("changing the template: an env var in the leaders' and the workers' container")
		patch := []map[string]any{}
		for _, tmpl := range []string{"leaderTemplate", "workerTemplate"} {
			patch = append(patch, map[string]any{
				"op": "add", "path": "/spec/leaderWorkerTemplate/" + tmpl + "/spec/containers/0/env",
				"value": []map[string]string{{"name": "SAMPLE_REVISION", "value": "2"}},
			})
		}
		data, err := json.Marshal(patch)
		Expect(err).NotTo(HaveOccurred())
		_, err = resource(lws, ns).Patch(ctx, lwsName, types.JSONPatchType, data, metav1.PatchOptions{FieldManager: fieldManager})
		Expect(err).NotTo(HaveOccurred())

		after := waitLWSReady(ctx, lws, ns, oldRevision)
		for name, p := range after {
			Expect(p.UID).NotTo(Equal(before[name].UID), "pod %s was not replaced", name)
			Expect(processEnv(name)).To(HaveKeyWithValue("SAMPLE_REVISION", "2"), "pod %s", name)
		}

		By("one group at a time: the first group's new leader was Ready before the second's old one went")
		steps := func() []string { mu.Lock(); defer mu.Unlock(); return slices.Clone(order) }
		// The watch may deliver the last step a moment after the list above showed it.
		Eventually(steps).WithContext(ctx).WithTimeout(readyTimeout).WithPolling(poll).Should(HaveLen(2 * lwsGroups))
		GinkgoWriter.Printf("rolling update, the leaders' steps: %v\n", steps())
		first := strings.TrimPrefix(steps()[0], "down ")
		Expect(steps()[:2]).To(Equal([]string{"down " + first, "up " + first}), "the second group went down before the first was back")

		By("the groups answer after the update")
		answer, err := simChat(ctx, serviceURL(ctx, ns, lwsLeadersService, 8000, "http"), "after the update")
		Expect(err).NotTo(HaveOccurred())
		Expect("after the update").To(HavePrefix(strings.TrimSpace(answer)))
	})
}
