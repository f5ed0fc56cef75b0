package operands

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// What upstream's DisaggregatedSet controller (sigs.k8s.io/lws v0.10.0,
// api/disaggregatedset/v1 and pkg/controllers/disaggregatedset) names and labels, and the
// DisaggregatedSet these specs make of the LeaderWorkerSet sample's simulator pod.
const (
	dsGroup         = "disaggregatedset.x-k8s.io"
	dsName          = "pd"
	dsNameLabel     = dsGroup + "/name"
	dsRoleLabel     = dsGroup + "/role"
	dsSliceLabel    = dsGroup + "/slice"
	dsRevisionLabel = dsGroup + "/revision"
	// A prefill role of one group of two (a leader and a worker), replicas in the spec
	// (scaling Static); a decode role of groups of one whose replicas an autoscaler sets through
	// its DisaggregatedSetRoleScaler (scaling External), which the controller seeds with 1.
	dsPrefill, dsPrefillSize = "prefill", 2
	dsDecode, dsDecodeSize   = "decode", 1
	// The scaler the controller makes for an External role: <disaggregatedset>-<role>.
	dsDecodeScaler = dsName + "-" + dsDecode
)

// dsRole is what a role's LeaderWorkerSet must reach: its groups and their size.
type dsRole struct{ replicas, size int }

// dsKind is an object of the DisaggregatedSet API group or the LeaderWorkerSet's, for the
// dynamic client.
func dsKind(group, kind, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(group + "/v1")
	u.SetKind(kind)
	u.SetName(name)
	return u
}

// newDisaggregatedSet is the DisaggregatedSet of the specs: both roles run the LeaderWorkerSet
// sample's pod (hack/operands/samples/leaderworkerset.yaml: llm-d-inference-sim on port 8000).
func newDisaggregatedSet(ns string) *unstructured.Unstructured {
	objs, err := render("leaderworkerset.yaml", map[string]string{"NAMESPACE": ns})
	Expect(err).NotTo(HaveOccurred())
	pod, found, err := unstructured.NestedMap(byKind(objs, "LeaderWorkerSet", lwsName).Object, "spec", "leaderWorkerTemplate", "leaderTemplate")
	Expect(err).NotTo(HaveOccurred())
	Expect(found).To(BeTrue(), "the sample's leaderTemplate")
	ds := dsKind(dsGroup, "DisaggregatedSet", dsName)
	ds.SetNamespace(ns)
	ds.Object["spec"] = map[string]any{
		"roles": []any{
			map[string]any{
				"name": dsPrefill,
				"spec": map[string]any{
					"replicas": int64(1),
					"leaderWorkerTemplate": map[string]any{
						"size": int64(dsPrefillSize), "leaderTemplate": pod, "workerTemplate": runtime.DeepCopyJSON(pod),
					},
				},
			},
			map[string]any{
				"name":    dsDecode,
				"scaling": map[string]any{"mode": "External"},
				"spec": map[string]any{
					"leaderWorkerTemplate": map[string]any{"size": int64(dsDecodeSize), "workerTemplate": runtime.DeepCopyJSON(pod)},
				},
			},
		},
	}
	return ds
}

// dsLeaderWorkerSets are the DisaggregatedSet's LeaderWorkerSets as they are now, by role.
func dsLeaderWorkerSets(g Gomega, ctx context.Context, ns string) map[string]*unstructured.Unstructured {
	list, err := resource(dsKind("leaderworkerset.x-k8s.io", "LeaderWorkerSet", ""), ns).List(ctx, metav1.ListOptions{LabelSelector: dsNameLabel + "=" + dsName})
	g.Expect(err).NotTo(HaveOccurred())
	out := map[string]*unstructured.Unstructured{}
	for i := range list.Items {
		l := &list.Items[i]
		role := l.GetLabels()[dsRoleLabel]
		g.Expect(out).NotTo(HaveKey(role), "two LeaderWorkerSets of role %s", role)
		out[role] = l
	}
	return out
}

// dsPods are the pods of a role as they are now, by name.
func dsPods(g Gomega, ctx context.Context, ns, role string) map[string]corev1.Pod {
	pods, err := fw.kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: dsNameLabel + "=" + dsName + "," + dsRoleLabel + "=" + role})
	g.Expect(err).NotTo(HaveOccurred())
	out := map[string]corev1.Pod{}
	for _, p := range pods.Items {
		out[p.Name] = p
	}
	return out
}

// controlledBy: obj's controller owner reference names the DisaggregatedSet.
func controlledBy(g Gomega, obj metav1.Object, ds *unstructured.Unstructured) {
	ref := metav1.GetControllerOf(obj)
	g.Expect(ref).NotTo(BeNil(), "%s has no controller", obj.GetName())
	g.Expect([]any{ref.Kind, ref.Name, ref.UID}).To(Equal([]any{"DisaggregatedSet", dsName, ds.GetUID()}), "%s's controller", obj.GetName())
}

// waitDSServing waits until every role's LeaderWorkerSet (one per role, all of one revision,
// named <ds>-<slice>-<revision>-<role> and controlled by the DisaggregatedSet) has its groups
// Ready and is Available, each of its pods Ready, and each role has upstream's headless Service
// <leaderworkerset>-prv selecting that role's pods of that revision (made once the revision is
// ready on every role). Returns the pods by role and the revision.
func waitDSServing(ctx context.Context, ds *unstructured.Unstructured, want map[string]dsRole) (map[string]map[string]corev1.Pod, string) {
	ns := ds.GetNamespace()
	By(fmt.Sprintf("waiting for DisaggregatedSet %s/%s to serve: %v", ns, dsName, want))
	var pods map[string]map[string]corev1.Pod
	var revision string
	Eventually(func(g Gomega) {
		sets := dsLeaderWorkerSets(g, ctx, ns)
		g.Expect(slices.Sorted(maps.Keys(sets))).To(Equal(slices.Sorted(maps.Keys(want))), "the roles' LeaderWorkerSets")
		revision = sets[dsPrefill].GetLabels()[dsRevisionLabel]
		g.Expect(revision).NotTo(BeEmpty())
		pods = map[string]map[string]corev1.Pod{}
		for role, w := range want {
			l := sets[role]
			g.Expect(l.GetName()).To(Equal(fmt.Sprintf("%s-0-%s-%s", dsName, revision, role)))
			g.Expect(l.GetLabels()).To(And(HaveKeyWithValue(dsRevisionLabel, revision), HaveKeyWithValue(dsSliceLabel, "0")), "%s", l.GetName())
			controlledBy(g, l, ds)
			replicas, _, _ := unstructured.NestedInt64(l.Object, "spec", "replicas")
			ready, _, _ := unstructured.NestedInt64(l.Object, "status", "readyReplicas")
			g.Expect([]int64{replicas, ready}).To(Equal([]int64{int64(w.replicas), int64(w.replicas)}), "%s: spec.replicas, status.readyReplicas", l.GetName())
			g.Expect(condition(g, ctx, l, ns, "Available")).To(HaveKeyWithValue("status", "True"), "%s", l.GetName())
			pods[role] = dsPods(g, ctx, ns, role)
			g.Expect(pods[role]).To(HaveLen(w.replicas*w.size), "pods of role %s", role)
			for _, p := range pods[role] {
				g.Expect(p.DeletionTimestamp).To(BeNil(), "pod %s is being deleted", p.Name)
				g.Expect(podReady(&p)).To(BeTrue(), "pod %s is not Ready", p.Name)
				g.Expect(p.Labels).To(HaveKeyWithValue(lwsNameLabel, l.GetName()), "pod %s", p.Name)
			}
		}
		svcs, err := fw.kube.CoreV1().Services(ns).List(ctx, metav1.ListOptions{LabelSelector: dsNameLabel + "=" + dsName})
		g.Expect(err).NotTo(HaveOccurred())
		selectors := map[string]map[string]string{}
		for _, s := range svcs.Items {
			g.Expect(s.Spec.ClusterIP).To(Equal(corev1.ClusterIPNone), "Service %s is not headless", s.Name)
			controlledBy(g, &s, ds)
			selectors[s.Name] = s.Spec.Selector
		}
		wantSelectors := map[string]map[string]string{}
		for role := range want {
			wantSelectors[sets[role].GetName()+"-prv"] = map[string]string{dsNameLabel: dsName, dsRoleLabel: role, dsRevisionLabel: revision, dsSliceLabel: "0"}
		}
		g.Expect(selectors).To(Equal(wantSelectors), "the roles' Services and their selectors")
	}).WithContext(ctx).WithTimeout(readyTimeout).WithPolling(poll).Should(Succeed())
	return pods, revision
}

// roleService is the DNS name of a role's Service, <leaderworkerset>-prv.<namespace>.
func roleService(ns, revision, role string) string {
	return fmt.Sprintf("%s-0-%s-%s-prv.%s", dsName, revision, role, ns)
}

// podIPs are the pods' IPs.
func podIPs(pods map[string]corev1.Pod) []string {
	var ips []string
	for _, p := range pods {
		ips = append(ips, p.Status.PodIP)
	}
	slices.Sort(ips)
	return ips
}

// chatFromPod sends a chat completion from a pod's network namespace to url (curl, which
// resolves the name with the pod's resolv.conf), and returns the answer's text and the address
// that answered.
func chatFromPod(ctx context.Context, pod, url, text string) (answer, remote string, err error) {
	out, err := fromPod(ctx, pod, "curl", "-sS", "--fail-with-body", "--max-time", "10", "-H", "Content-Type: application/json",
		"--data-binary", string(simChatBody(text)), "-w", "\n%{remote_ip}", url+"/v1/chat/completions")
	if err != nil {
		return "", "", fmt.Errorf("%v: %s", err, out)
	}
	body, remote, _ := strings.Cut(strings.TrimSpace(out), "\n")
	answer, err = simAnswer([]byte(body))
	return answer, remote, err
}

// resolveFromPod is what a name resolves to in a pod (getent, with the pod's resolv.conf), sorted.
func resolveFromPod(ctx context.Context, pod, name string) ([]string, error) {
	out, err := fromPod(ctx, pod, "getent", "ahostsv4", name)
	if err != nil {
		return nil, fmt.Errorf("%v: %s", err, out)
	}
	var ips []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if f := strings.Fields(line); len(f) > 0 && !slices.Contains(ips, f[0]) {
			ips = append(ips, f[0])
		}
	}
	slices.Sort(ips)
	return ips, nil
}

// disaggregatedSetSpecs run in the LeaderWorkerSet controller's container (lws_test.go): upstream's
// DisaggregatedSet controller and webhook are part of the same lws-manager.
func disaggregatedSetSpecs() {
	var ns string
	var ds *unstructured.Unstructured

	BeforeAll(func(ctx SpecContext) {
		ns = namespace(ctx, "operands-disaggregatedset")
		ds = newDisaggregatedSet(ns)
		// As for the LeaderWorkerSet: the API server may not trust the webhook's certificate yet.
		By("waiting until the real webhook admits the DisaggregatedSet (server-side dry run)")
		Eventually(func() error {
			_, err := resource(ds, ns).Create(ctx, ds.DeepCopy(), metav1.CreateOptions{FieldManager: fieldManager, DryRun: []string{metav1.DryRunAll}})
			return err
		}).WithContext(ctx).WithTimeout(readyTimeout).WithPolling(poll).Should(Succeed())
	})

	It("refuses an invalid DisaggregatedSet with the real webhook's message", Label("short"), func(ctx SpecContext) {
		// Rules of upstream's vdisaggregatedset.kb.io that the CRD's schema does not have.
		cases := []struct {
			name    string
			path    []string
			value   any
			message string
		}{
			{"a role with a partition", []string{"spec", "roles", "0", "spec", "rolloutStrategy"},
				map[string]any{"type": "RollingUpdate", "rollingUpdateConfiguration": map[string]any{"partition": int64(1)}},
				"spec.roles[0].spec.rolloutStrategy.rollingUpdateConfiguration.partition: Forbidden: partition is not supported by DisaggregatedSet; rolling updates are managed across roles by the DisaggregatedSet controller"},
			{"an External role with two slices", []string{"spec", "slices"}, int64(2),
				"spec.slices: Forbidden: spec.slices > 1 is not supported while any role has scaling.mode: External (alpha restriction)"},
			{"a placement policy without a topology", []string{"spec", "placementPolicy"}, map[string]any{"type": "ExclusiveSlice"},
				"spec.placementPolicy.topology: Required value: topology is required when type is not None"},
		}
		for i, c := range cases {
			By("creating " + c.name)
			invalid := ds.DeepCopy()
			invalid.SetName(fmt.Sprintf("%s-invalid-%d", dsName, i))
			Expect(setPath(invalid.Object, c.path, c.value)).To(Succeed(), c.name)
			_, err := resource(invalid, ns).Create(ctx, invalid, metav1.CreateOptions{FieldManager: fieldManager})
			Expect(err).To(HaveOccurred(), c.name)
			Expect(err.Error()).To(ContainSubstring(`admission webhook "vdisaggregatedset.kb.io" denied the request`), c.name)
			Expect(err.Error()).To(ContainSubstring(c.message), c.name)
			_, err = resource(invalid, ns).Get(ctx, invalid.GetName(), metav1.GetOptions{})
			Expect(apierrors.IsNotFound(err)).To(BeTrue(), "%s: DisaggregatedSet %s exists: %v", c.name, invalid.GetName(), err)
		}
	})

	It("serves: a LeaderWorkerSet per role Available on the real controller, each role's Service answering a chat completion from the other role's pod, the decode role's RoleScaler bound", func(ctx SpecContext) {
		By("creating DisaggregatedSet " + ns + "/" + dsName)
		created, err := resource(ds, ns).Create(ctx, ds.DeepCopy(), metav1.CreateOptions{FieldManager: fieldManager})
		Expect(err).NotTo(HaveOccurred())
		ds = created
		pods, revision := waitDSServing(ctx, ds, map[string]dsRole{dsPrefill: {1, dsPrefillSize}, dsDecode: {1, dsDecodeSize}})

		By("each role's pods answer through its Service, asked from a pod of the other role")
		for _, route := range [][2]string{{dsDecode, dsPrefill}, {dsPrefill, dsDecode}} {
			from, to := route[0], route[1]
			client := slices.Sorted(maps.Keys(pods[from]))[0]
			url := "http://" + roleService(ns, revision, to) + ":8000"
			text := "from " + from + " to " + to
			answer, remote, err := chatFromPod(ctx, client, url, text)
			Expect(err).NotTo(HaveOccurred(), "%s -> %s", client, url)
			// llm-d-inference-sim in echo mode answers with the request's text (cut at max_tokens).
			Expect(answer).NotTo(BeEmpty())
			Expect(text).To(HavePrefix(strings.TrimSpace(answer)))
			Expect(podIPs(pods[to])).To(ContainElement(remote), "%s answered, not a pod of role %s", remote, to)
			GinkgoWriter.Printf("pod %s (%s) -> %s: answered by %s: %q\n", client, from, url, remote, answer)
		}

		By("the decode role's scaler " + dsDecodeScaler + ": bound, seeded with 1, observing the role's one group; none for the Static prefill role")
		Eventually(func(g Gomega) {
			s, err := resource(dsKind(dsGroup, "DisaggregatedSetRoleScaler", dsDecodeScaler), ns).Get(ctx, dsDecodeScaler, metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			controlledBy(g, s, ds)
			expectScaler(g, ctx, s, 1)
		}).WithContext(ctx).WithTimeout(readyTimeout).WithPolling(poll).Should(Succeed())
		_, err = resource(dsKind(dsGroup, "DisaggregatedSetRoleScaler", ""), ns).Get(ctx, dsName+"-"+dsPrefill, metav1.GetOptions{})
		Expect(apierrors.IsNotFound(err)).To(BeTrue(), "a scaler for the Static prefill role: %v", err)

		By("the DisaggregatedSet's own status: v0.10.0's controller writes none")
		// Upstream's API declares status.conditions (Available, Progressing, Degraded) and
		// status.roleStatuses, but v0.10.0's controller never writes a DisaggregatedSet's status
		// (pkg/controllers/disaggregatedset: the only status write is the scalers'), so serving
		// is shown above by what it made. When a release writes them, this fails: assert them.
		live, err := resource(ds, ns).Get(ctx, dsName, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(live.Object).NotTo(HaveKey("status"))
	})

	It("scales the decode role through its RoleScaler's scale subresource: the role's LeaderWorkerSet, pods and Service follow, the prefill role is untouched", func(ctx SpecContext) {
		before, revision := waitDSServing(ctx, ds, map[string]dsRole{dsPrefill: {1, dsPrefillSize}, dsDecode: {1, dsDecodeSize}})
		scaler := resource(dsKind(dsGroup, "DisaggregatedSetRoleScaler", dsDecodeScaler), ns)

		By("reading the scale subresource as an autoscaler does before its first write")
		scale, err := scaler.Get(ctx, dsDecodeScaler, metav1.GetOptions{}, "scale")
		Expect(err).NotTo(HaveOccurred())
		Expect(scale.GetAPIVersion() + " " + scale.GetKind()).To(Equal("autoscaling/v1 Scale"))
		Expect(scale.Object).To(HaveKeyWithValue("spec", HaveKeyWithValue("replicas", BeEquivalentTo(1))))
		Expect(scale.Object).To(HaveKeyWithValue("status", And(
			HaveKeyWithValue("replicas", BeEquivalentTo(1)),
			HaveKeyWithValue("selector", decodeLeaders))))

		By("writing spec.replicas=2 through the scale subresource (what HPA and KEDA write)")
		_, err = scaler.Patch(ctx, dsDecodeScaler, types.MergePatchType, []byte(`{"spec":{"replicas":2}}`), metav1.PatchOptions{FieldManager: fieldManager}, "scale")
		Expect(err).NotTo(HaveOccurred())

		after, afterRevision := waitDSServing(ctx, ds, map[string]dsRole{dsPrefill: {1, dsPrefillSize}, dsDecode: {2, dsDecodeSize}})
		Expect(afterRevision).To(Equal(revision), "scaling is no rollout")
		for name, p := range before[dsPrefill] {
			Expect(after[dsPrefill]).To(HaveKeyWithValue(name, HaveField("UID", p.UID)), "prefill pod %s was replaced", name)
		}
		for name, p := range before[dsDecode] {
			Expect(after[dsDecode]).To(HaveKeyWithValue(name, HaveField("UID", p.UID)), "decode pod %s was replaced", name)
		}

		By("the scaler observes two groups, and its selector (an autoscaler's) finds the two decode leaders")
		Eventually(func(g Gomega) {
			s, err := scaler.Get(ctx, dsDecodeScaler, metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			expectScaler(g, ctx, s, 2)
		}).WithContext(ctx).WithTimeout(readyTimeout).WithPolling(poll).Should(Succeed())
		leaders, err := fw.kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: decodeLeaders})
		Expect(err).NotTo(HaveOccurred())
		var names []string
		for _, p := range leaders.Items {
			names = append(names, p.Name)
		}
		Expect(names).To(ConsistOf(slices.Collect(maps.Keys(after[dsDecode]))))

		By("the decode role's Service resolves to both decode pods, from a prefill pod")
		client := slices.Sorted(maps.Keys(after[dsPrefill]))[0]
		Eventually(func() ([]string, error) {
			return resolveFromPod(ctx, client, roleService(ns, revision, dsDecode))
		}).WithContext(ctx).WithTimeout(readyTimeout).WithPolling(poll).Should(Equal(podIPs(after[dsDecode])))
	})
}

// decodeLeaders is the selector upstream's scaler publishes: one pod per group of the role (its
// leader), as HPA's per-pod averaging needs.
const decodeLeaders = dsNameLabel + "=" + dsName + "," + dsRoleLabel + "=" + dsDecode + "," + lwsWorkerLabel + "=0"

// expectScaler: the decode role's scaler is Ready (reason Bound) for its generation, wants and
// observes replicas groups and publishes the leaders' selector.
func expectScaler(g Gomega, ctx context.Context, s *unstructured.Unstructured, replicas int64) {
	want, _, _ := unstructured.NestedInt64(s.Object, "spec", "replicas")
	observed, _, _ := unstructured.NestedInt64(s.Object, "status", "replicas")
	generation, _, _ := unstructured.NestedInt64(s.Object, "status", "observedGeneration")
	selector, _, _ := unstructured.NestedString(s.Object, "status", "selector")
	g.Expect([]int64{want, observed, generation}).To(Equal([]int64{replicas, replicas, s.GetGeneration()}), "spec.replicas, status.replicas, status.observedGeneration")
	g.Expect(selector).To(Equal(decodeLeaders))
	g.Expect(condition(g, ctx, s, s.GetNamespace(), "Ready")).To(And(HaveKeyWithValue("status", "True"), HaveKeyWithValue("reason", "Bound")))
}

// setPath sets a field of obj, a list index being a number among the path's keys.
func setPath(obj map[string]any, path []string, value any) error {
	var cur any = obj
	for i, key := range path {
		last := i == len(path)-1
		switch c := cur.(type) {
		case map[string]any:
			if last {
				c[key] = value
				return nil
			}
			cur = c[key]
		case []any:
			var n int
			if _, err := fmt.Sscan(key, &n); err != nil || n >= len(c) {
				return fmt.Errorf("%v: no item %s", path, key)
			}
			if last {
				c[n] = value
				return nil
			}
			cur = c[n]
		default:
			return fmt.Errorf("%v: %s is not a map or a list", path, strings.Join(path[:i], "."))
		}
	}
	return nil
}
