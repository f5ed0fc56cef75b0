package e2e

import (
	"context"
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	batchv1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/batch/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/apis/batch/v1alpha1/testcases"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/operands/batchgateway"
	"github.com/llm-infra/llm-infra-operator/test/internal/live"
)

var (
	gvrBatchCRs       = batchv1alpha1.GroupVersion.WithResource("llmbatchgateways")
	gvrServiceMonitor = schema.GroupVersionResource{Group: "monitoring.coreos.com", Version: "v1", Resource: "servicemonitors"}
	gvrPodMonitor     = schema.GroupVersionResource{Group: "monitoring.coreos.com", Version: "v1", Resource: "podmonitors"}
	gvrReferenceGrant = schema.GroupVersionResource{Group: "gateway.networking.k8s.io", Version: "v1beta1", Resource: "referencegrants"}
)

// The LLM batch gateway specs run in namespaces of their own (batchNamespacePrefix), in order,
// and leave the cluster as they found it: their namespaces deleted, and the optional CRD sets
// back to how they were.
var _ = Describe("LLMBatchGateway", Ordered, ContinueOnFailure, func() {
	var installedAtStart map[string]bool

	BeforeAll(func(ctx SpecContext) {
		installedAtStart = map[string]bool{
			crdSetGatewayAPI:     crdExists(ctx, "referencegrants.gateway.networking.k8s.io"),
			crdSetMonitoringCore: crdExists(ctx, serviceMonitorCRD),
		}
		_, err := fw.apiext.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, "llmbatchgateways.batch.llm-d.ai", metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred(), "the LLMBatchGateway CRD must be installed (deploy/00_batch.llm-d.ai_llmbatchgateways.crd.yaml)")
	})

	AfterAll(func(ctx SpecContext) {
		deleteBatchNamespaces(ctx)
		for set, was := range installedAtStart {
			if was && !crdExists(ctx, setProbeCRD(set)) {
				installOptionalCRDs(ctx, set)
			}
			if !was && crdExists(ctx, setProbeCRD(set)) {
				uninstallOptionalCRDs(ctx, set)
			}
		}
	})

	AfterEach(func(ctx SpecContext) {
		if CurrentSpecReport().Failed() {
			dumpBatchDiagnostics(ctx)
		}
	})

	It("B1. brings every upstream golden CR to Ready, with upstream's object names and Deployment selectors", func(ctx SpecContext) {
		cases := goldenBatchCases()
		// extra-prometheus-rule-async renders upstream's PrometheusRules: their CRD first, so
		// every case's objects can exist (AfterAll puts the set back as it was).
		if !crdExists(ctx, serviceMonitorCRD) {
			installOptionalCRDs(ctx, crdSetMonitoringCore)
		}
		for _, c := range cases {
			namespace := goldenNamespace(c)
			cr := goldenBatchCR(c, namespace)
			prepareBatchNamespace(ctx, namespace, cr)
			batchClient(namespace).create(ctx, cr)
		}
		for _, c := range cases {
			namespace := goldenNamespace(c)
			cr := waitBatchReady(ctx, namespace, goldenBatchCR(c, namespace).Name)
			Expect(cr.Status.ComponentStatus).NotTo(BeNil())
			Expect(cr.Status.ComponentStatus.APIServer.ReadyReplicas).To(BeNumerically(">=", 1), batchConditions(cr))
			expectFewEventsComingUp(ctx, namespace, "LLMBatchGateway", cr.Name)

			By("comparing the objects of " + c + " with upstream's")
			for _, golden := range goldenBatchObjects(c) {
				gvr := engine.MustResourceFor(golden.GroupVersionKind())
				live, err := fw.dynamic.Resource(gvr).Namespace(namespace).Get(ctx, golden.GetName(), metav1.GetOptions{})
				Expect(err).NotTo(HaveOccurred(), "upstream's %s %s has no counterpart", golden.GetKind(), golden.GetName())
				Expect(engine.IsManaged(live.GetLabels())).To(BeTrue(), "%s %s labels %v", live.GetKind(), live.GetName(), live.GetLabels())
				ref := metav1.GetControllerOfNoCopy(live)
				Expect(ref).NotTo(BeNil())
				Expect(ref.UID).To(Equal(cr.UID), "%s %s is controlled by its CR", live.GetKind(), live.GetName())
				if golden.GetKind() == "Deployment" {
					want, _, _ := unstructured.NestedMap(golden.Object, "spec", "selector")
					got, _, _ := unstructured.NestedMap(live.Object, "spec", "selector")
					Expect(got).To(Equal(want), "Deployment %s selector", golden.GetName())
				}
			}
		}
	})

	It("B2. leaves Ready gateways alone: no write while nothing changes", func(ctx SpecContext) {
		namespace := goldenNamespace("dev-sync")
		before := objectVersions(ctx, namespace)
		cr, err := batchClient(namespace).get(ctx, "batch-gateway-dev")
		Expect(err).NotTo(HaveOccurred())
		Consistently(ctx, func(g Gomega) {
			g.Expect(objectVersions(ctx, namespace)).To(Equal(before))
			now, err := batchClient(namespace).get(ctx, cr.Name)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(now.ResourceVersion).To(Equal(cr.ResourceVersion), "the CR's status was rewritten")
		}).WithTimeout(shortQuiet).WithPolling(2 * poll).Should(Succeed())
	})

	It("B3. rejects invalid LLMBatchGateways at admission, each with a message that says what to fix", func(ctx SpecContext) {
		namespace := batchNamespacePrefix + "admission"
		_, err := fw.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}, metav1.CreateOptions{})
		if !apierrors.IsAlreadyExists(err) {
			Expect(err).NotTo(HaveOccurred())
		}
		expectAdmission(ctx, gvrBatchCRs, namespace, testcases.Rejected, testcases.Accepted)
	})

	It("B4. rolls only the Deployments whose configuration changed, and every pod when the credentials rotate", func(ctx SpecContext) {
		namespace := goldenNamespace("dev-sync")
		cr, err := batchClient(namespace).get(ctx, "batch-gateway-dev")
		Expect(err).NotTo(HaveOccurred())
		names := batchgateway.NamesFor(cr.Name)
		before := map[string]map[string]string{}
		for _, d := range batchDeployments(cr) {
			before[d] = podTemplateHashes(getBatchDeployment(ctx, namespace, d))
		}

		By("changing the processor's number of workers")
		batchClient(namespace).update(ctx, cr.Name, func(cr *batchv1alpha1.LLMBatchGateway) {
			if cr.Spec.Processor.Config == nil {
				cr.Spec.Processor.Config = &batchv1alpha1.ProcessorConfigSpec{}
			}
			cr.Spec.Processor.Config.NumWorkers = 7
		})
		Eventually(ctx, func(g Gomega) {
			cm, err := fw.kube.CoreV1().ConfigMaps(namespace).Get(ctx, names.ProcessorConfig, metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(cm.Data["config.yaml"]).To(ContainSubstring("num_workers: 7"))
			g.Expect(podTemplateHashes(getBatchDeployment(ctx, namespace, names.Processor))).NotTo(Equal(before[names.Processor]))
		}).WithTimeout(driftTimeout).WithPolling(poll).Should(Succeed())
		Expect(podTemplateHashes(getBatchDeployment(ctx, namespace, names.APIServer))).To(Equal(before[names.APIServer]), "the apiserver rolled for a processor setting")
		Expect(podTemplateHashes(getBatchDeployment(ctx, namespace, names.GC))).To(Equal(before[names.GC]), "the gc rolled for a processor setting")
		waitBatchReady(ctx, namespace, cr.Name)

		By("touching only the credentials Secret's metadata: nothing rolls")
		mid := map[string]map[string]string{}
		for _, d := range batchDeployments(cr) {
			mid[d] = podTemplateHashes(getBatchDeployment(ctx, namespace, d))
		}
		secret, err := fw.kube.CoreV1().Secrets(namespace).Get(ctx, cr.Spec.SecretRef.Name, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		secret.Annotations = map[string]string{"touched": "yes"}
		_, err = fw.kube.CoreV1().Secrets(namespace).Update(ctx, secret, metav1.UpdateOptions{})
		Expect(err).NotTo(HaveOccurred())
		Consistently(ctx, func(g Gomega) {
			for _, d := range batchDeployments(cr) {
				g.Expect(podTemplateHashes(getBatchDeployment(ctx, namespace, d))).To(Equal(mid[d]))
			}
		}).WithTimeout(shortQuiet).WithPolling(poll).Should(Succeed())

		By("rotating the credentials: every component rolls")
		secret, err = fw.kube.CoreV1().Secrets(namespace).Get(ctx, cr.Spec.SecretRef.Name, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		secret.Data["redis-url"] = []byte("redis://rotated.example.invalid:6379/0")
		_, err = fw.kube.CoreV1().Secrets(namespace).Update(ctx, secret, metav1.UpdateOptions{})
		Expect(err).NotTo(HaveOccurred())
		key := engine.ConfigHashAnnotationPrefix + "secret-" + cr.Spec.SecretRef.Name
		Eventually(ctx, func(g Gomega) {
			for _, d := range batchDeployments(cr) {
				got := podTemplateHashes(getBatchDeployment(ctx, namespace, d))[key]
				g.Expect(got).NotTo(BeEmpty(), "%s has no %s", d, key)
				g.Expect(got).NotTo(Equal(mid[d][key]), "%s did not roll", d)
			}
		}).WithTimeout(driftTimeout).WithPolling(poll).Should(Succeed())
		waitBatchReady(ctx, namespace, cr.Name)
	})

	It("B5. adopts the objects the upstream operator created: no duplicate, no selector change", func(ctx SpecContext) {
		namespace := batchNamespacePrefix + "adopt"
		cr := goldenBatchCR("dev-sync", namespace)
		prepareBatchNamespace(ctx, namespace, cr)
		// Until the reference is fixed, the operator applies nothing (ReferenceNotPermitted):
		// that leaves room to create the objects as upstream did, owned by this CR.
		cr.Spec.SecretRef.Namespace = batchNamespacePrefix + "no-such-namespace"
		created := batchClient(namespace).create(ctx, cr)
		waitBatchCondition(ctx, namespace, cr.Name, batchv1alpha1.ConditionReady, metav1.ConditionFalse, batchv1alpha1.ReasonReferenceNotPermitted)
		Expect(ownedObjects(ctx, namespace, created)).To(BeEmpty(), "nothing may be applied while the reference is refused")

		By("creating upstream's objects, owned by the CR")
		upstream := map[string]types.UID{}
		for _, obj := range goldenBatchObjects("dev-sync") {
			obj.SetNamespace(namespace)
			refs := obj.GetOwnerReferences()
			refs[0].UID = created.UID
			obj.SetOwnerReferences(refs)
			live, err := fw.dynamic.Resource(engine.MustResourceFor(obj.GroupVersionKind())).Namespace(namespace).Create(ctx, obj, metav1.CreateOptions{})
			Expect(err).NotTo(HaveOccurred(), "create upstream's %s %s", obj.GetKind(), obj.GetName())
			upstream[live.GetKind()+" "+live.GetName()] = live.GetUID()
		}

		batchClient(namespace).update(ctx, cr.Name, func(cr *batchv1alpha1.LLMBatchGateway) { cr.Spec.SecretRef.Namespace = "" })
		waitBatchReady(ctx, namespace, cr.Name)
		owned := ownedObjects(ctx, namespace, created)
		Expect(owned).To(HaveLen(len(upstream)), "the operator must adopt, not duplicate: %v", owned)
		for key, uid := range upstream {
			kind, name, _ := strings.Cut(key, " ")
			live, err := fw.dynamic.Resource(engine.MustResourceFor(schema.GroupVersionKind{Group: groupOfKind(kind), Version: "v1", Kind: kind})).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
			Expect(err).NotTo(HaveOccurred())
			Expect(live.GetUID()).To(Equal(uid), "%s was replaced instead of adopted", key)
			Expect(engine.IsManaged(live.GetLabels())).To(BeTrue(), "%s was not adopted: labels %v", key, live.GetLabels())
		}
		cond := meta.FindStatusCondition(mustGetBatch(ctx, namespace, cr.Name).Status.Conditions, engine.ConditionDegraded)
		Expect(cond).NotTo(BeNil())
		Expect(cond.Status).To(Equal(metav1.ConditionFalse), "adoption must not fail: %s", cond.Message)
	})

	It("B6. refuses a cross-namespace Secret without a ReferenceGrant, copies it with one", func(ctx SpecContext) {
		if crdExists(ctx, "referencegrants.gateway.networking.k8s.io") {
			uninstallOptionalCRDs(ctx, crdSetGatewayAPI)
		}
		namespace, shared := batchNamespacePrefix+"cross", batchNamespacePrefix+"shared"
		cr := goldenBatchCR("dev-sync", namespace)
		cr.Spec.SecretRef.Namespace = shared
		prepareBatchNamespace(ctx, shared, goldenBatchCR("dev-sync", shared))
		prepareBatchNamespace(ctx, namespace, cr)
		created := batchClient(namespace).create(ctx, cr)
		c := waitBatchCondition(ctx, namespace, cr.Name, batchv1alpha1.ConditionReady, metav1.ConditionFalse, batchv1alpha1.ReasonReferenceNotPermitted)
		Expect(meta.FindStatusCondition(c.Status.Conditions, batchv1alpha1.ConditionReady).Message).To(ContainSubstring("referencegrants.gateway.networking.k8s.io"))

		By("installing Gateway API: still no ReferenceGrant")
		installOptionalCRDs(ctx, crdSetGatewayAPI)
		Eventually(ctx, func(g Gomega) {
			cr, err := batchClient(namespace).get(ctx, cr.Name)
			g.Expect(err).NotTo(HaveOccurred())
			ready := meta.FindStatusCondition(cr.Status.Conditions, batchv1alpha1.ConditionReady)
			g.Expect(ready).NotTo(BeNil())
			g.Expect(ready.Reason).To(Equal(batchv1alpha1.ReasonReferenceNotPermitted))
			g.Expect(ready.Message).To(ContainSubstring("no ReferenceGrant in " + shared))
		}).WithTimeout(driftTimeout).WithPolling(poll).Should(Succeed())

		By("granting the reference")
		grant := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "gateway.networking.k8s.io/v1beta1", "kind": "ReferenceGrant",
			"metadata": map[string]any{"name": "allow-batch-gateways", "namespace": shared},
			"spec": map[string]any{
				"from": []any{map[string]any{"group": batchv1alpha1.GroupName, "kind": "LLMBatchGateway", "namespace": namespace}},
				"to":   []any{map[string]any{"group": "", "kind": "Secret", "name": cr.Spec.SecretRef.Name}},
			},
		}}
		_, err := fw.dynamic.Resource(gvrReferenceGrant).Namespace(shared).Create(ctx, grant, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		waitBatchReady(ctx, namespace, cr.Name)
		copied, err := fw.kube.CoreV1().Secrets(namespace).Get(ctx, batchgateway.NamesFor(cr.Name).Credentials, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred(), "the copy of the Secret")
		Expect(copied.Annotations).To(HaveKeyWithValue("batch.llm-d.ai/copied-from", shared+"/"+cr.Spec.SecretRef.Name))
		Expect(metav1.GetControllerOf(copied).UID).To(Equal(created.UID))

		By("revoking the grant: the copy goes and the CR's Deployments scale to 0, so no pod keeps the credentials")
		names := batchgateway.NamesFor(cr.Name)
		Expect(fw.dynamic.Resource(gvrReferenceGrant).Namespace(shared).Delete(ctx, grant.GetName(), metav1.DeleteOptions{})).To(Succeed())
		revoked := waitBatchCondition(ctx, namespace, cr.Name, batchv1alpha1.ConditionReady, metav1.ConditionFalse, batchv1alpha1.ReasonReferenceNotPermitted)
		Expect(meta.FindStatusCondition(revoked.Status.Conditions, batchv1alpha1.ConditionReady).Message).To(ContainSubstring("scaled to 0 replicas"))
		Eventually(ctx, func(g Gomega) {
			_, err := fw.kube.CoreV1().Secrets(namespace).Get(ctx, names.Credentials, metav1.GetOptions{})
			g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the copy of the Secret is still there: %v", err)
			for _, name := range []string{names.APIServer, names.Processor} {
				d, err := fw.kube.AppsV1().Deployments(namespace).Get(ctx, name, metav1.GetOptions{})
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(d.Spec.Replicas).To(HaveValue(BeEquivalentTo(0)), "Deployment %s", name)
			}
		}).WithTimeout(driftTimeout).WithPolling(poll).Should(Succeed())

		By("granting it again: the Deployments come back")
		grant.SetResourceVersion("")
		_, err = fw.dynamic.Resource(gvrReferenceGrant).Namespace(shared).Create(ctx, grant, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		waitBatchReady(ctx, namespace, cr.Name)
		for _, name := range []string{names.APIServer, names.Processor} {
			d, err := fw.kube.AppsV1().Deployments(namespace).Get(ctx, name, metav1.GetOptions{})
			Expect(err).NotTo(HaveOccurred())
			Expect(d.Spec.Replicas).To(HaveValue(BeNumerically(">", 0)), "Deployment %s", name)
		}
	})

	It("B7. reports ValidationFailed for an object stored before the rules, and leaves its running objects alone", func(ctx SpecContext) {
		namespace := goldenNamespace("dev-sync-fs")
		cr, err := batchClient(namespace).get(ctx, "batch-gateway-dev")
		Expect(err).NotTo(HaveOccurred())
		waitBatchReady(ctx, namespace, cr.Name)
		before := objectVersions(ctx, namespace)

		By("storing a spec the current rules reject (global and per-model gateways), as an older CRD allowed")
		withoutProcessorRules(ctx, func() {
			batchClient(namespace).update(ctx, cr.Name, func(cr *batchv1alpha1.LLMBatchGateway) {
				cr.Spec.Processor.ModelGateways = map[string]batchv1alpha1.InferenceGatewaySpec{"m": {URL: "http://m.example.invalid:8000"}}
			})
		})
		invalid := waitBatchCondition(ctx, namespace, cr.Name, batchv1alpha1.ConditionReady, metav1.ConditionFalse, batchv1alpha1.ReasonValidationFailed)
		for _, condType := range componentConditions(invalid) {
			c := meta.FindStatusCondition(invalid.Status.Conditions, condType)
			Expect(c.Reason).To(Equal(batchv1alpha1.ReasonValidationFailed))
			Expect(c.Message).To(ContainSubstring("spec.processor.globalInferenceGateway"))
		}
		Expect(objectVersions(ctx, namespace)).To(Equal(before), "an invalid spec changed running objects")

		By("fixing the spec")
		batchClient(namespace).update(ctx, cr.Name, func(cr *batchv1alpha1.LLMBatchGateway) { cr.Spec.Processor.ModelGateways = nil })
		waitBatchReady(ctx, namespace, cr.Name)
	})

	It("B8. picks up an optional CRD installed later, and deletes exactly a feature's objects when it is turned off", func(ctx SpecContext) {
		if crdExists(ctx, serviceMonitorCRD) {
			uninstallOptionalCRDs(ctx, crdSetMonitoringCore)
		}
		namespace := batchNamespacePrefix + "features"
		cr := goldenBatchCR("dev-sync", namespace)
		prepareBatchNamespace(ctx, namespace, cr)
		other := goldenBatchCR("dev-sync", namespace)
		other.Name = "other-gw"
		for _, c := range []*batchv1alpha1.LLMBatchGateway{cr, other} {
			c.Spec.Monitoring = &batchv1alpha1.MonitoringSpec{Enabled: true}
			c.Spec.Grafana = &batchv1alpha1.GrafanaSpec{Enabled: true}
			batchClient(namespace).create(ctx, c)
		}
		before := operatorPID(ctx)
		degraded := waitBatchCondition(ctx, namespace, cr.Name, engine.ConditionDegraded, metav1.ConditionTrue, engine.ReasonCRDMissing)
		msg := meta.FindStatusCondition(degraded.Status.Conditions, engine.ConditionDegraded).Message
		Expect(msg).To(ContainSubstring(serviceMonitorCRD))
		Expect(msg).To(ContainSubstring("spec.monitoring.enabled"))
		waitBatchReady(ctx, namespace, cr.Name) // the missing CRD never stops the gateway

		By("installing the Prometheus operator's CRDs")
		installOptionalCRDs(ctx, crdSetMonitoringCore)
		waitBatchCondition(ctx, namespace, cr.Name, engine.ConditionDegraded, metav1.ConditionFalse, engine.ReasonAsExpected)
		names, otherNames := batchgateway.NamesFor(cr.Name), batchgateway.NamesFor(other.Name)
		Eventually(ctx, func(g Gomega) {
			for _, n := range []batchgateway.Names{names, otherNames} {
				_, err := fw.dynamic.Resource(gvrServiceMonitor).Namespace(namespace).Get(ctx, n.APIServer, metav1.GetOptions{})
				g.Expect(err).NotTo(HaveOccurred())
				_, err = fw.dynamic.Resource(gvrPodMonitor).Namespace(namespace).Get(ctx, n.GC, metav1.GetOptions{})
				g.Expect(err).NotTo(HaveOccurred())
			}
		}).WithTimeout(driftTimeout).WithPolling(poll).Should(Succeed())
		Expect(operatorPID(ctx)).To(Equal(before), "the operator restarted to pick up the CRDs")

		By("turning monitoring and dashboards off for one of the two CRs")
		otherVersions := map[string]string{}
		for k, v := range objectVersions(ctx, namespace) {
			if strings.Contains(k, other.Name) {
				otherVersions[k] = v
			}
		}
		batchClient(namespace).update(ctx, cr.Name, func(cr *batchv1alpha1.LLMBatchGateway) { cr.Spec.Monitoring, cr.Spec.Grafana = nil, nil })
		Eventually(ctx, func(g Gomega) {
			_, err := fw.dynamic.Resource(gvrServiceMonitor).Namespace(namespace).Get(ctx, names.APIServer, metav1.GetOptions{})
			g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "ServiceMonitor %s", names.APIServer)
			_, err = fw.dynamic.Resource(gvrPodMonitor).Namespace(namespace).Get(ctx, names.GC, metav1.GetOptions{})
			g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "PodMonitor %s", names.GC)
			_, err = fw.kube.CoreV1().ConfigMaps(namespace).Get(ctx, names.Dashboards, metav1.GetOptions{})
			g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "ConfigMap %s", names.Dashboards)
		}).WithTimeout(driftTimeout).WithPolling(poll).Should(Succeed())
		_, err := fw.dynamic.Resource(gvrServiceMonitor).Namespace(namespace).Get(ctx, otherNames.APIServer, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred(), "the other CR's ServiceMonitor was deleted")
		after := objectVersions(ctx, namespace)
		for k, v := range otherVersions {
			Expect(after).To(HaveKeyWithValue(k, v), "the other CR's %s was touched", k)
		}
	})

	It("B9. deletes every object of a CR through garbage collection, leaves the user's Secret and the other CRs' objects", func(ctx SpecContext) {
		namespace := batchNamespacePrefix + "features"
		cr := mustGetBatch(ctx, namespace, "batch-gateway-dev")
		other := mustGetBatch(ctx, namespace, "other-gw")
		owned := ownedObjects(ctx, namespace, cr)
		Expect(owned).NotTo(BeEmpty())
		otherOwned := ownedObjects(ctx, namespace, other)
		otherVersions := objectVersions(ctx, namespace)

		Expect(fw.operator.BatchV1alpha1().LLMBatchGateways(namespace).Delete(ctx, cr.Name, metav1.DeleteOptions{})).To(Succeed())
		Eventually(ctx, func(g Gomega) {
			g.Expect(ownedObjects(ctx, namespace, cr)).To(BeEmpty())
		}).WithTimeout(objectGoneAfter).WithPolling(poll).Should(Succeed())
		_, err := fw.kube.CoreV1().Secrets(namespace).Get(ctx, cr.Spec.SecretRef.Name, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred(), "the user's Secret must stay")
		Expect(ownedObjects(ctx, namespace, other)).To(Equal(otherOwned))
		now := objectVersions(ctx, namespace)
		for _, key := range otherOwned {
			Expect(now[key]).To(Equal(otherVersions[key]), "the other CR's %s was touched", key)
		}
	})
})

// expectAdmission creates every case's object on the API server (server-side dry run, strict
// field validation) in namespace ("" for a cluster-scoped kind): each rejected case must fail
// with every error it names, each accepted case must pass admission (a name that exists fails
// only after it, with AlreadyExists). Every API's table has the same Case type
// (pkg/apis/internal/admission). An older API server's wording of an error is expected where it
// differs (live.ForServer).
func expectAdmission(ctx context.Context, gvr schema.GroupVersionResource, namespace string, rejected, accepted []testcases.Case) {
	GinkgoHelper()
	server, err := fw.kube.Discovery().ServerVersion()
	Expect(err).NotTo(HaveOccurred())
	minor, err := live.ServerMinor(server.Major, server.Minor)
	Expect(err).NotTo(HaveOccurred())
	create := func(c testcases.Case) error {
		obj, err := c.Object()
		Expect(err).NotTo(HaveOccurred())
		u := &unstructured.Unstructured{Object: obj}
		u.SetNamespace(namespace)
		_, err = fw.dynamic.Resource(gvr).Namespace(namespace).Create(ctx, u, strictDryRun)
		return err
	}
	for _, c := range rejected {
		err := create(c)
		Expect(err).To(HaveOccurred(), "case %q was accepted", c.Name)
		Expect(apierrors.IsInvalid(err) || apierrors.IsBadRequest(err)).To(BeTrue(), "case %q: %v", c.Name, err)
		for _, want := range c.Errors {
			Expect(err.Error()).To(ContainSubstring(live.ForServer(minor, want)), "case %q", c.Name)
		}
	}
	for _, c := range accepted {
		if err := create(c); !apierrors.IsAlreadyExists(err) {
			Expect(err).NotTo(HaveOccurred(), "case %q", c.Name)
		}
	}
}

// strictDryRun creates nothing, and rejects unknown fields as kubectl does (the API server's
// default only warns).
var strictDryRun = metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: metav1.FieldValidationStrict}

// goldenNamespace is the namespace of a golden case's CR: its name made a DNS label.
func goldenNamespace(goldenCase string) string {
	name := batchNamespacePrefix + strings.ReplaceAll(goldenCase, "_", "-")
	if len(name) > 63 {
		name = strings.TrimRight(name[:63], "-")
	}
	return name
}

// mustGetBatch reads a CR.
func mustGetBatch(ctx context.Context, namespace, name string) *batchv1alpha1.LLMBatchGateway {
	cr, err := batchClient(namespace).get(ctx, name)
	Expect(err).NotTo(HaveOccurred())
	return cr
}

// setProbeCRD is a CRD whose presence tells whether a CRD set is installed.
func setProbeCRD(set string) string {
	if set == crdSetGatewayAPI {
		return "referencegrants.gateway.networking.k8s.io"
	}
	return serviceMonitorCRD
}

// groupOfKind is the API group of the built-in kinds the operand creates.
func groupOfKind(kind string) string {
	if kind == "Deployment" {
		return "apps"
	}
	return ""
}

// operatorPID is which operator process runs: the leader Lease's holder and, when the
// environment tells how to read it, the pid.
func operatorPID(ctx context.Context) operatorIdentity {
	return currentOperator(ctx)
}

// withoutProcessorRules runs change while the LLMBatchGateway CRD lacks the CEL rules on
// spec.processor, as an older CRD did, then puts the CRD back exactly as it was.
func withoutProcessorRules(ctx context.Context, change func()) {
	const crdName = "llmbatchgateways.batch.llm-d.ai"
	original, err := fw.apiext.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, crdName, metav1.GetOptions{})
	Expect(err).NotTo(HaveOccurred())
	relaxed := original.DeepCopy()
	spec := relaxed.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
	processor := spec.Properties["processor"]
	Expect(processor.XValidations).NotTo(BeEmpty(), "the CRD has no rules on spec.processor")
	processor.XValidations = nil
	spec.Properties["processor"] = processor
	relaxed.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = spec
	_, err = fw.apiext.ApiextensionsV1().CustomResourceDefinitions().Update(ctx, relaxed, metav1.UpdateOptions{})
	Expect(err).NotTo(HaveOccurred())
	defer func() {
		restored, err := fw.apiext.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, crdName, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		restored.Spec = original.Spec
		_, err = fw.apiext.ApiextensionsV1().CustomResourceDefinitions().Update(ctx, restored, metav1.UpdateOptions{})
		Expect(err).NotTo(HaveOccurred(), "restore the CRD")
	}()
	// The API server applies a CRD change asynchronously: retry until the relaxed schema takes.
	Eventually(ctx, func() error {
		defer GinkgoRecover()
		return tryOnce(change)
	}).WithTimeout(driftTimeout).WithPolling(poll).Should(Succeed())
}

// tryOnce runs f and turns a failed assertion into an error, so Eventually can retry it.
func tryOnce(f func()) (err error) {
	failures := InterceptGomegaFailures(f)
	if len(failures) > 0 {
		return fmt.Errorf("%s", strings.Join(failures, "; "))
	}
	return nil
}

// dumpBatchDiagnostics prints every LLMBatchGateway the specs made, with its conditions, and
// the operator's log tail.
func dumpBatchDiagnostics(ctx context.Context) {
	crs, err := fw.operator.BatchV1alpha1().LLMBatchGateways(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		fmt.Fprintf(GinkgoWriter, "list LLMBatchGateways: %v\n", err)
	} else {
		for i := range crs.Items {
			fmt.Fprintf(GinkgoWriter, "%s\n", batchConditions(&crs.Items[i]))
		}
	}
	dumpDiagnostics(ctx)
}
