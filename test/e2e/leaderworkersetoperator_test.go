package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	operatorv1 "github.com/openshift/api/operator/v1"
	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/llm-infra/llm-infra-operator/bindata"
	lwsoperatorv1 "github.com/llm-infra/llm-infra-operator/pkg/apis/operator/v1"
	lwscases "github.com/llm-infra/llm-infra-operator/pkg/apis/operator/v1/testcases"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/operands/lws"
	"github.com/llm-infra/llm-infra-operator/test/internal/live"
)

// The specs share the one LeaderWorkerSetOperator, so they run in order. Each leaves it Managed
// and settled (Available), except the last, which deletes and recreates it. ContinueOnFailure:
// a failed spec does not hide what the others would find; each starts by bringing the CR back
// to Managed and settled.
var _ = Describe("LeaderWorkerSetOperator", Ordered, ContinueOnFailure, func() {
	var (
		// certManagerAtStart: cert-manager's CRDs existed when the suite started.
		certManagerAtStart bool
		// lwsNamespace holds the user's LeaderWorkerSet of specs 9 and 10.
		lwsNamespace string
		lwsUID       types.UID
	)

	BeforeAll(func(ctx SpecContext) {
		certManagerAtStart = crdExists(ctx, certManagerCRD)
		fmt.Fprintf(GinkgoWriter, "operator namespace %s; cert-manager installed at start: %v\n", fw.namespace, certManagerAtStart)
	})

	AfterEach(func(ctx SpecContext) {
		if CurrentSpecReport().Failed() {
			dumpDiagnostics(context.WithoutCancel(ctx))
		}
	})

	AfterAll(func(ctx SpecContext) {
		if lwsNamespace != "" {
			By("deleting the test namespace " + lwsNamespace)
			err := fw.kube.CoreV1().Namespaces().Delete(ctx, lwsNamespace, metav1.DeleteOptions{})
			if !apierrors.IsNotFound(err) {
				Expect(err).NotTo(HaveOccurred())
			}
		}
	})

	// managedAndSettled is where every spec after the install starts.
	managedAndSettled := func(ctx context.Context) *lwsoperatorv1.LeaderWorkerSetOperator {
		cr := ensureCR(ctx)
		if cr.Spec.ManagementState != operatorv1.Managed {
			setManagementState(ctx, operatorv1.Managed)
		}
		return waitSettled(ctx)
	}

	It("L11. without cert-manager, Automatic has the operator issue the certificates; CertManager is Degraded until cert-manager is installed, then switches to it without a restart", Label(platformLabel), func(ctx SpecContext) {
		if certManagerAtStart {
			Skip(fmt.Sprintf("cert-manager is installed (CRD %s exists) at suite start: its absence cannot be observed here", certManagerCRD))
		}
		startCertManager := os.Getenv("E2E_START_CERT_MANAGER")
		Expect(startCertManager).NotTo(BeEmpty(),
			"cert-manager is not installed and E2E_START_CERT_MANAGER (a command that installs it) is not set")

		// Without cert-manager, Automatic is OpenShift's service CA where the cluster publishes it
		// (the local cluster with OPENSHIFT=true runs the real one), else the operator's own CA.
		withoutCertManager, caBundleOf := lwsoperatorv1.CertificateSourceOperator, operatorCABundleData
		if serviceCAPublished(ctx) {
			withoutCertManager, caBundleOf = lwsoperatorv1.CertificateSourceServiceCA, serviceCABundleData
		}
		By(fmt.Sprintf("Automatic without cert-manager: %s", withoutCertManager))
		ensureCR(ctx)
		start := time.Now()
		waitServingFrom(ctx, withoutCertManager)
		measure(fmt.Sprintf("install without cert-manager -> Available (%s)", withoutCertManager), time.Since(start))
		Eventually(ctx, func(g Gomega) {
			bundle := caBundleOf(ctx, g)
			for _, name := range []string{webhookSecretName, metricsSecretName} {
				s, err := fw.kube.CoreV1().Secrets(fw.namespace).Get(ctx, name, metav1.GetOptions{})
				g.Expect(err).NotTo(HaveOccurred(), "Secret %s", name)
				g.Expect(lws.CertificateSignedBy(s, bundle)).To(BeTrue(), "Secret %s is signed by the CA of %s", name, withoutCertManager)
			}
			expectCABundles(ctx, g, bundle)
		}).WithTimeout(time.Minute).WithPolling(poll).Should(Succeed())
		before := currentOperator(ctx)

		setCertificateSource(ctx, lwsoperatorv1.CertificateSourceCertManager)
		waitForCR(ctx, time.Minute, "Degraded=True reason CertManagerMissing, the operand still Available", func(g Gomega, cr *lwsoperatorv1.LeaderWorkerSetOperator) {
			expectCondition(g, cr, operatorv1.OperatorStatusTypeDegraded, operatorv1.ConditionTrue, "CertManagerMissing")
			g.Expect(findCondition(cr, operatorv1.OperatorStatusTypeDegraded).Message).To(ContainSubstring("cert-manager"))
			expectCondition(g, cr, operatorv1.OperatorStatusTypeAvailable, operatorv1.ConditionTrue, "")
			expectCondition(g, cr, lwsoperatorv1.ConditionServingCertificates, operatorv1.ConditionTrue, string(withoutCertManager))
		})

		start = time.Now()
		runHook(ctx, "E2E_START_CERT_MANAGER", startCertManager)
		waitServingFrom(ctx, lwsoperatorv1.CertificateSourceCertManager)
		measure("cert-manager installed -> serving its certificates", time.Since(start))
		Eventually(ctx, func(g Gomega) {
			s, err := fw.kube.CoreV1().Secrets(fw.namespace).Get(ctx, webhookSecretName, metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			expectCABundles(ctx, g, s.Data["ca.crt"])
			_, err = fw.kube.CoreV1().Secrets(fw.namespace).Get(ctx, operatorCASecret, metav1.GetOptions{})
			g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the operator's CA Secret is removed after the switch: %v", err)
		}).WithTimeout(2 * time.Minute).WithPolling(poll).Should(Succeed())

		setCertificateSource(ctx, "")
		waitServingFrom(ctx, lwsoperatorv1.CertificateSourceCertManager)
		after := currentOperator(ctx)
		Expect(after).To(Equal(before), "the operator process must be the same one (no restart): before %+v, after %+v", before, after)
	}, NodeTimeout(10*time.Minute))

	It("L0. the LWS controller holds its rights from the install, the operator none of them (SubjectAccessReviews)", func(ctx SpecContext) {
		expectRightsFromTheInstall(ctx)
	}, NodeTimeout(time.Minute))

	It("L1. installs the operand: Available, every object labelled and owned by the CR, the CRDs (LeaderWorkerSet, DisaggregatedSet, DisaggregatedSetRoleScaler) not owned", Label(platformLabel), func(ctx SpecContext) {
		ensureCR(ctx)
		cr := waitSettled(ctx)
		Expect(cr.Finalizers).To(ContainElement("operator.llm-infra.io/lws-cleanup"), "the cleanup finalizer")

		for _, ref := range operandObjects(ctx) {
			obj, err := ref.get(ctx)
			Expect(err).NotTo(HaveOccurred(), "%s must exist", ref)
			Expect(obj.GetLabels()).To(HaveKeyWithValue(managedByLabel, managedByValue), "%s labels", ref)
			if ref.kind == "CustomResourceDefinition" {
				Expect(obj.GetOwnerReferences()).To(BeEmpty(), "%s must not be owned by the CR: deleting the CR would delete every user's object of its kind", ref)
				continue
			}
			Expect(obj.GetOwnerReferences()).To(ContainElement(SatisfyAll(
				HaveField("UID", Equal(cr.UID)),
				HaveField("Kind", Equal("LeaderWorkerSetOperator")),
				HaveField("Name", Equal(crName)),
			)), "%s must be owned by LeaderWorkerSetOperator/cluster (uid %s)", ref, cr.UID)
		}
		for _, ref := range certificateSecrets() {
			obj, err := ref.get(ctx)
			Expect(err).NotTo(HaveOccurred(), "%s must exist", ref)
			Expect(obj.GetLabels()).To(HaveKeyWithValue(managedByLabel, managedByValue), "%s labels (Certificate secretTemplate)", ref)
		}
		// On a cluster with SCC admission (OPENSHIFT=true), the controller's pods were admitted
		// under restricted-v2 with a user of the namespace's range, and none was refused.
		scc, err := live.ServesSCC(fw.kube)
		Expect(err).NotTo(HaveOccurred())
		if os.Getenv("OPENSHIFT") == "true" {
			Expect(scc).To(BeTrue(), "OPENSHIFT=true, but the cluster does not serve SecurityContextConstraints")
		}
		if scc {
			problems, err := live.SCCProblems(ctx, fw.kube, "restricted-v2", fw.namespace)
			Expect(err).NotTo(HaveOccurred())
			Expect(problems).To(BeEmpty())
		}
		// Where OpenShift's Infrastructure is served, the operator read its topology at start
		// for the leader election (controllercmd warns when it cannot, by an event).
		if os.Getenv("OPENSHIFT") == "true" {
			Expect(crdExists(ctx, infrastructureCRD)).To(BeTrue(), "OPENSHIFT=true, but the cluster does not serve %s", infrastructureCRD)
			list, err := fw.kube.CoreV1().Events(fw.namespace).List(ctx, metav1.ListOptions{FieldSelector: "reason=ControlPlaneTopology"})
			Expect(err).NotTo(HaveOccurred())
			for _, e := range list.Items {
				Fail(fmt.Sprintf("the operator could not read the control plane's topology at start: %s", e.Message))
			}
		}
	}, NodeTimeout(5*time.Minute))

	It("L2. has cert-manager issue the certificates and inject the CA, and does not fight cainjector", func(ctx SpecContext) {
		managedAndSettled(ctx)

		var caBundle []byte
		By("waiting for the issued Secrets and the injected CA bundles")
		Eventually(ctx, func(g Gomega) {
			for _, name := range []string{webhookSecretName, metricsSecretName} {
				s, err := fw.kube.CoreV1().Secrets(fw.namespace).Get(ctx, name, metav1.GetOptions{})
				g.Expect(err).NotTo(HaveOccurred(), "Secret %s", name)
				g.Expect(s.Type).To(Equal(corev1.SecretTypeTLS), "Secret %s type", name)
				g.Expect(s.Data).To(HaveKeyWithValue(corev1.TLSCertKey, Not(BeEmpty())), "Secret %s", name)
				g.Expect(s.Data).To(HaveKeyWithValue(corev1.TLSPrivateKeyKey, Not(BeEmpty())), "Secret %s", name)
				if name == webhookSecretName {
					g.Expect(s.Data).To(HaveKeyWithValue("ca.crt", Not(BeEmpty())), "Secret %s", name)
					caBundle = s.Data["ca.crt"]
				}
			}
			expectCABundles(ctx, g, caBundle)
		}).WithTimeout(2 * time.Minute).WithPolling(poll).Should(Succeed())

		By("checking that the webhook configurations and the CRD stay untouched for " + quietPeriod.String())
		refs := []objectRef{
			refByName(operandObjects(ctx), "MutatingWebhookConfiguration", mutatingWebhookName),
			refByName(operandObjects(ctx), "ValidatingWebhookConfiguration", validatingWebhook),
			refByName(operandObjects(ctx), "CustomResourceDefinition", lwsCRDName),
		}
		before := resourceVersions(ctx, refs)
		Consistently(ctx, func() []string { return changedSince(ctx, refs, before) }).
			WithTimeout(quietPeriod).WithPolling(time.Second).Should(BeEmpty(), "the operator and cainjector take turns writing")
	}, NodeTimeout(5*time.Minute))

	It("L14. switches the certificates to the operator's CA and back to cert-manager, the webhooks answering every request throughout", func(ctx SpecContext) {
		Expect(crdExists(ctx, certManagerCRD)).To(BeTrue(), "cert-manager must be installed (spec 11 installs it on the local cluster)")
		managedAndSettled(ctx)
		waitServingFrom(ctx, lwsoperatorv1.CertificateSourceCertManager)

		webhook := startOperandWebhook(ctx)
		defer webhook.stop()
		probe := startAdmissionProbe(ctx)
		defer probe.finish()
		Eventually(ctx, func() int64 { return probe.ok.Load() }).WithTimeout(time.Minute).WithPolling(poll).Should(BeNumerically(">=", 3),
			"dry-run creates of a LeaderWorkerSet should pass the webhooks (served by the stand-in) before the switch")
		Expect(probe.failed.Load()).To(BeZero(), "no failure before the switch")

		setCertificateSource(ctx, lwsoperatorv1.CertificateSourceOperator)
		start := time.Now()
		waitServingFrom(ctx, lwsoperatorv1.CertificateSourceOperator)
		measure("switch cert-manager -> operator's CA", time.Since(start))
		Eventually(ctx, func(g Gomega) {
			expectCABundles(ctx, g, operatorCABundleData(ctx, g))
			for _, ref := range []objectRef{assetRef(bindata.LWSIssuer), assetRef(bindata.LWSWebhookCertificate), assetRef(bindata.LWSMetricsCertificate)} {
				_, err := ref.get(ctx)
				g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "%s is removed after the switch: %v", ref, err)
			}
		}).WithTimeout(time.Minute).WithPolling(poll).Should(Succeed())

		setCertificateSource(ctx, lwsoperatorv1.CertificateSourceAutomatic)
		start = time.Now()
		waitServingFrom(ctx, lwsoperatorv1.CertificateSourceCertManager)
		measure("switch operator's CA -> cert-manager (Automatic)", time.Since(start))
		Eventually(ctx, func(g Gomega) {
			s, err := fw.kube.CoreV1().Secrets(fw.namespace).Get(ctx, webhookSecretName, metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			expectCABundles(ctx, g, s.Data["ca.crt"])
			_, err = fw.kube.CoreV1().ConfigMaps(fw.namespace).Get(ctx, operatorCABundle, metav1.GetOptions{})
			g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the operator's CA bundle is removed after the switch: %v", err)
		}).WithTimeout(2 * time.Minute).WithPolling(poll).Should(Succeed())

		ok, failures := probe.finish()
		fmt.Fprintf(GinkgoWriter, "admission probe: %d dry-run creates passed the webhooks, %d failed\n", ok, len(failures))
		Expect(failures).To(BeEmpty(), "the webhooks must answer throughout both switches")
		Expect(ok).To(BeNumerically(">", 10), "the probe must have run during the switches")
		setCertificateSource(ctx, "")
	}, NodeTimeout(10*time.Minute))

	It("L12. rejects invalid LeaderWorkerSetOperators at admission, each with a message that says what to fix, and accepts the valid ones", func(ctx SpecContext) {
		// The CR "cluster" exists: a valid case's dry-run create then fails on the name alone.
		ensureCR(ctx)
		expectAdmission(ctx, gvrCRs, "", lwscases.Rejected, lwscases.Accepted)
	})

	It("L3. places the controller's pods by nodePlacement, and back to upstream's placement when unset", func(ctx SpecContext) {
		managedAndSettled(ctx)
		nodes, err := fw.kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: infraNodeLabel})
		Expect(err).NotTo(HaveOccurred())
		if len(nodes.Items) == 0 {
			Skip("no node carries the label " + infraNodeLabel)
		}
		infraNodes := map[string]bool{}
		for _, n := range nodes.Items {
			infraNodes[n.Name] = true
		}
		fmt.Fprintf(GinkgoWriter, "infra nodes: %v\n", infraNodes)

		wantSelector := map[string]string{infraNodeLabel: ""}
		wantTolerations := []corev1.Toleration{{Key: infraNodeLabel, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}
		By("setting nodePlacement: the infra node selector and toleration")
		updateCR(ctx, func(cr *lwsoperatorv1.LeaderWorkerSetOperator) {
			cr.Spec.NodePlacement = &lwsoperatorv1.NodePlacement{NodeSelector: wantSelector, Tolerations: wantTolerations}
		})
		Eventually(ctx, func(g Gomega) {
			d, err := getDeployment(ctx)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(d.Spec.Template.Spec.NodeSelector).To(Equal(wantSelector))
			g.Expect(d.Spec.Template.Spec.Tolerations).To(Equal(wantTolerations))
		}).WithTimeout(driftTimeout).WithPolling(poll).Should(Succeed())
		waitRolledOut(ctx, "pods on infra nodes", func(g Gomega, p *corev1.Pod) {
			g.Expect(infraNodes).To(HaveKey(p.Spec.NodeName), "pod %s runs on %q, not an infra node", p.Name, p.Spec.NodeName)
		})
		waitSettled(ctx)

		By("unsetting nodePlacement")
		updateCR(ctx, func(cr *lwsoperatorv1.LeaderWorkerSetOperator) { cr.Spec.NodePlacement = nil })
		Eventually(ctx, func(g Gomega) {
			d, err := getDeployment(ctx)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(d.Spec.Template.Spec.NodeSelector).To(BeEmpty())
			g.Expect(d.Spec.Template.Spec.Tolerations).To(BeEmpty())
		}).WithTimeout(driftTimeout).WithPolling(poll).Should(Succeed())
		waitRolledOut(ctx, "upstream placement", func(g Gomega, p *corev1.Pod) {
			g.Expect(p.Spec.NodeSelector).To(BeEmpty(), "pod %s node selector", p.Name)
		})
		waitSettled(ctx)
	}, NodeTimeout(8*time.Minute))

	It("L4. brings the controller back when its pods are deleted", func(ctx SpecContext) {
		managedAndSettled(ctx)
		var pods []corev1.Pod
		Eventually(ctx, func(g Gomega) { pods = operandPods(ctx, g); g.Expect(pods).NotTo(BeEmpty()) }).
			WithTimeout(time.Minute).WithPolling(poll).Should(Succeed())
		old := podUIDs(pods)
		start := time.Now()
		for _, p := range pods {
			By("deleting pod " + p.Name)
			Expect(fw.kube.CoreV1().Pods(fw.namespace).Delete(ctx, p.Name, metav1.DeleteOptions{})).To(Succeed())
		}
		waitRolledOut(ctx, "new pods", func(g Gomega, p *corev1.Pod) {
			g.Expect(old).NotTo(HaveKey(p.UID), "pod %s is an old one", p.Name)
		})
		waitSettled(ctx)
		measure("pods deleted -> new pods ready, CR Available", time.Since(start))
	}, NodeTimeout(5*time.Minute))

	Describe("L5. repairs drift within 30s (watches, not the 10-minute resync)", func() {
		// deleteAndWaitRecreated deletes an operand object and waits for a new one (new UID).
		deleteAndWaitRecreated := func(ctx context.Context, kind, name string) {
			ref := refByName(operandObjects(ctx), kind, name)
			obj, err := ref.get(ctx)
			Expect(err).NotTo(HaveOccurred(), "%s must exist before the test", ref)
			oldUID := obj.GetUID()
			By("deleting " + ref.String())
			start := time.Now()
			Expect(ref.client().Delete(ctx, name, metav1.DeleteOptions{})).To(Succeed())
			Eventually(ctx, func(g Gomega) {
				obj, err := ref.get(ctx)
				g.Expect(err).NotTo(HaveOccurred(), "%s is not back", ref)
				g.Expect(obj.GetUID()).NotTo(Equal(oldUID), "%s is still the old object", ref)
				g.Expect(obj.GetDeletionTimestamp()).To(BeNil(), "%s is still being deleted", ref)
			}).WithTimeout(driftTimeout).WithPolling(100 * time.Millisecond).Should(Succeed())
			measure("drift repair: deleted "+ref.String(), time.Since(start))
		}

		It("recreates a deleted ValidatingWebhookConfiguration (and cainjector refills it)", func(ctx SpecContext) {
			managedAndSettled(ctx)
			deleteAndWaitRecreated(ctx, "ValidatingWebhookConfiguration", validatingWebhook)
			Eventually(ctx, func(g Gomega) {
				s, err := fw.kube.CoreV1().Secrets(fw.namespace).Get(ctx, webhookSecretName, metav1.GetOptions{})
				g.Expect(err).NotTo(HaveOccurred())
				expectCABundles(ctx, g, s.Data["ca.crt"])
			}).WithTimeout(time.Minute).WithPolling(poll).Should(Succeed())
			waitSettled(ctx)
		}, NodeTimeout(5*time.Minute))

		It("recreates the deleted Service lws-webhook-service", func(ctx SpecContext) {
			managedAndSettled(ctx)
			deleteAndWaitRecreated(ctx, "Service", "lws-webhook-service")
			waitSettled(ctx)
		}, NodeTimeout(5*time.Minute))

		It("recreates the deleted Certificate lws-serving-cert", func(ctx SpecContext) {
			managedAndSettled(ctx)
			deleteAndWaitRecreated(ctx, "Certificate", "lws-serving-cert")
			By("waiting for the recreated Certificate to be Ready")
			Eventually(ctx, func(g Gomega) {
				c, err := fw.dynamic.Resource(gvrCertificates).Namespace(fw.namespace).Get(ctx, "lws-serving-cert", metav1.GetOptions{})
				g.Expect(err).NotTo(HaveOccurred())
				conds, _, _ := unstructured.NestedSlice(c.Object, "status", "conditions")
				g.Expect(conds).To(ContainElement(SatisfyAll(HaveKeyWithValue("type", "Ready"), HaveKeyWithValue("status", "True"))))
			}).WithTimeout(2 * time.Minute).WithPolling(poll).Should(Succeed())
			waitSettled(ctx)
		}, NodeTimeout(5*time.Minute))

		It("reverts a hand edit of the Deployment's replicas and image", func(ctx SpecContext) {
			managedAndSettled(ctx)
			d, err := getDeployment(ctx)
			Expect(err).NotTo(HaveOccurred())
			wantReplicas := ptrVal(d.Spec.Replicas)
			wantImage := managerContainerOf(d).Image
			const driftImage = "registry.invalid/e2e/not-the-lws-controller:drift"
			patch, _ := json.Marshal(map[string]any{"spec": map[string]any{
				"replicas": 3,
				"template": map[string]any{"spec": map[string]any{"containers": []any{
					map[string]any{"name": managerContainer, "image": driftImage},
				}}},
			}})
			By("setting replicas 3 and image " + driftImage + " by hand")
			start := time.Now()
			_, err = fw.kube.AppsV1().Deployments(fw.namespace).Patch(ctx, deploymentName, types.StrategicMergePatchType, patch, metav1.PatchOptions{})
			Expect(err).NotTo(HaveOccurred())
			Eventually(ctx, func(g Gomega) {
				d, err := getDeployment(ctx)
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(ptrVal(d.Spec.Replicas)).To(Equal(wantReplicas), "replicas")
				g.Expect(managerContainerOf(d).Image).To(Equal(wantImage), "image")
			}).WithTimeout(driftTimeout).WithPolling(100 * time.Millisecond).Should(Succeed())
			measure("drift repair: Deployment replicas+image edited", time.Since(start))
			waitRolledOut(ctx, "the operator's image again", func(g Gomega, p *corev1.Pod) {
				g.Expect(p.Spec.Containers[0].Image).To(Equal(wantImage))
			})
			waitSettled(ctx)
		}, NodeTimeout(5*time.Minute))
	})

	It("L6. honours logLevel (operand --zap-log-level, new rollout) and operatorLogLevel (event)", func(ctx SpecContext) {
		managedAndSettled(ctx)
		d, err := getDeployment(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(zapLogLevel(d)).To(Equal("2"), "Normal is --zap-log-level=2")
		oldRS := map[types.UID]bool{}
		for _, rs := range replicaSets(ctx) {
			oldRS[rs.UID] = true
		}

		By("setting logLevel Debug")
		updateCR(ctx, func(cr *lwsoperatorv1.LeaderWorkerSetOperator) { cr.Spec.LogLevel = operatorv1.Debug })
		Eventually(ctx, func(g Gomega) {
			d, err := getDeployment(ctx)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(managerContainerOf(d).Args).To(ContainElement(zapLogLevelArg + "4"))
		}).WithTimeout(driftTimeout).WithPolling(poll).Should(Succeed())
		By("checking that a new ReplicaSet rolled out with --zap-log-level=4")
		Eventually(ctx, func(g Gomega) {
			var fresh []appsv1.ReplicaSet
			for _, rs := range replicaSets(ctx) {
				if !oldRS[rs.UID] {
					fresh = append(fresh, rs)
				}
			}
			g.Expect(fresh).To(HaveLen(1), "one new ReplicaSet")
			g.Expect(fresh[0].Spec.Template.Spec.Containers[0].Args).To(ContainElement(zapLogLevelArg + "4"))
		}).WithTimeout(time.Minute).WithPolling(poll).Should(Succeed())
		waitRolledOut(ctx, "--zap-log-level=4", func(g Gomega, p *corev1.Pod) {
			g.Expect(p.Spec.Containers[0].Args).To(ContainElement(zapLogLevelArg + "4"))
		})
		waitSettled(ctx)

		By("setting operatorLogLevel Debug")
		events := snapshotEvents(ctx)
		updateCR(ctx, func(cr *lwsoperatorv1.LeaderWorkerSetOperator) { cr.Spec.OperatorLogLevel = operatorv1.Debug })
		Eventually(ctx, func(g Gomega) {
			e := newEvent(ctx, g, events, "OperatorLogLevelChange", `to "Debug"`)
			fmt.Fprintf(GinkgoWriter, "event: %s %s\n", e.Reason, e.Message)
		}).WithTimeout(time.Minute).WithPolling(poll).Should(Succeed())

		By("setting logLevel and operatorLogLevel back to Normal")
		events = snapshotEvents(ctx)
		updateCR(ctx, func(cr *lwsoperatorv1.LeaderWorkerSetOperator) {
			cr.Spec.LogLevel = operatorv1.Normal
			cr.Spec.OperatorLogLevel = operatorv1.Normal
		})
		Eventually(ctx, func(g Gomega) {
			newEvent(ctx, g, events, "OperatorLogLevelChange", `to "Normal"`)
		}).WithTimeout(time.Minute).WithPolling(poll).Should(Succeed())
		waitRolledOut(ctx, "--zap-log-level=2", func(g Gomega, p *corev1.Pod) {
			g.Expect(p.Spec.Containers[0].Args).To(ContainElement(zapLogLevelArg + "2"))
		})
		waitSettled(ctx)
	}, NodeTimeout(8*time.Minute))

	It("L7. rolls the pods when a mounted Secret's data changes, not when only its metadata does", func(ctx SpecContext) {
		managedAndSettled(ctx)
		d, err := getDeployment(ctx)
		Expect(err).NotTo(HaveOccurred())
		oldHash := d.Spec.Template.Annotations[webhookSecretHash]
		Expect(oldHash).NotTo(BeEmpty(), "pod template annotation %s", webhookSecretHash)
		secret, err := fw.kube.CoreV1().Secrets(fw.namespace).Get(ctx, webhookSecretName, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		var pods []corev1.Pod
		Eventually(ctx, func(g Gomega) { pods = operandPods(ctx, g); g.Expect(pods).NotTo(BeEmpty()) }).
			WithTimeout(time.Minute).WithPolling(poll).Should(Succeed())
		oldPods := podUIDs(pods)

		By("deleting Secret " + webhookSecretName + ": cert-manager issues a new certificate")
		start := time.Now()
		Expect(fw.kube.CoreV1().Secrets(fw.namespace).Delete(ctx, webhookSecretName, metav1.DeleteOptions{})).To(Succeed())
		Eventually(ctx, func(g Gomega) {
			s, err := fw.kube.CoreV1().Secrets(fw.namespace).Get(ctx, webhookSecretName, metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(s.UID).NotTo(Equal(secret.UID))
			g.Expect(s.Data[corev1.TLSCertKey]).NotTo(BeEmpty())
			d, err := getDeployment(ctx)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(d.Spec.Template.Annotations[webhookSecretHash]).NotTo(Or(BeEmpty(), Equal(oldHash)), "the pod template's hash of the Secret")
		}).WithTimeout(2 * time.Minute).WithPolling(poll).Should(Succeed())
		measure("Secret re-issued -> pod template hash changed", time.Since(start))
		waitRolledOut(ctx, "pods with the new certificate", func(g Gomega, p *corev1.Pod) {
			g.Expect(oldPods).NotTo(HaveKey(p.UID), "pod %s is an old one", p.Name)
		})
		waitSettled(ctx)

		By("annotating Secret " + webhookSecretName + " (metadata only)")
		d, err = getDeployment(ctx)
		Expect(err).NotTo(HaveOccurred())
		generation, template := d.Generation, d.Spec.Template.DeepCopy()
		patch := fmt.Sprintf(`{"metadata":{"annotations":{"e2e.llm-infra.io/touched":%q}}}`, time.Now().UTC().Format(time.RFC3339Nano))
		_, err = fw.kube.CoreV1().Secrets(fw.namespace).Patch(ctx, webhookSecretName, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
		Expect(err).NotTo(HaveOccurred())
		Consistently(ctx, func(g Gomega) {
			d, err := getDeployment(ctx)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(d.Generation).To(Equal(generation), "Deployment generation")
			g.Expect(d.Spec.Template).To(Equal(*template), "pod template")
		}).WithTimeout(shortQuiet).WithPolling(500 * time.Millisecond).Should(Succeed())
	}, NodeTimeout(8*time.Minute))

	It("L15. makes a Certificate again at once when cert-manager failed it by its own key race (cert-manager#6331), instead of waiting out cert-manager's back-off of an hour", func(ctx SpecContext) {
		managedAndSettled(ctx)
		certs := fw.dynamic.Resource(gvrCertificates).Namespace(fw.namespace)
		old, err := certs.Get(ctx, metricsCertificateName, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred(), "the Certificate %s (cert-manager is the source here)", metricsCertificateName)
		events := snapshotEvents(ctx)

		// The race cannot be caused on demand, so the test writes what cert-manager v1.21.2's
		// issuing controller leaves on the Certificate after it: Issuing=False with the
		// self-signed issuer's failure, and the failure time that starts its back-off.
		By("writing on Certificate " + metricsCertificateName + " the failure cert-manager leaves after its key race")
		Eventually(ctx, func(g Gomega) {
			c, err := certs.Get(ctx, metricsCertificateName, metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(c.GetUID()).To(Equal(old.GetUID()), "the Certificate was replaced before the failure was written")
			now := time.Now().UTC().Format(time.RFC3339)
			conditions, _, _ := unstructured.NestedSlice(c.Object, "status", "conditions")
			conditions = append(conditions, map[string]any{"type": "Issuing", "status": "False", "reason": "Failed", "lastTransitionTime": now,
				"message": "The certificate request has failed to complete and will be retried: Error generating certificate template: CSR not signed by referenced private key"})
			g.Expect(unstructured.SetNestedSlice(c.Object, conditions, "status", "conditions")).To(Succeed())
			g.Expect(unstructured.SetNestedField(c.Object, now, "status", "lastFailureTime")).To(Succeed())
			g.Expect(unstructured.SetNestedField(c.Object, int64(1), "status", "failedIssuanceAttempts")).To(Succeed())
			_, err = certs.UpdateStatus(ctx, c, metav1.UpdateOptions{})
			g.Expect(err).NotTo(HaveOccurred())
		}).WithTimeout(time.Minute).WithPolling(poll).Should(Succeed())

		By("waiting for the operator to make the Certificate again, and cert-manager to mark it Ready")
		Eventually(ctx, func(g Gomega) {
			newEvent(ctx, g, events, "CertificateRecreated", metricsCertificateName)
			c, err := certs.Get(ctx, metricsCertificateName, metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(c.GetUID()).NotTo(Equal(old.GetUID()), "the failed Certificate is still there")
			conditions, _, _ := unstructured.NestedSlice(c.Object, "status", "conditions")
			g.Expect(conditions).To(ContainElement(And(HaveKeyWithValue("type", "Ready"), HaveKeyWithValue("status", "True"))), "the new Certificate's conditions")
		}).WithTimeout(2 * time.Minute).WithPolling(poll).Should(Succeed())
		waitSettled(ctx)
	}, NodeTimeout(6*time.Minute))

	It("L8. leaves everything alone when Unmanaged, and takes over again when Managed", func(ctx SpecContext) {
		managedAndSettled(ctx)
		setManagementState(ctx, operatorv1.Unmanaged)
		waitForCR(ctx, time.Minute, "Progressing reason Unmanaged", func(g Gomega, cr *lwsoperatorv1.LeaderWorkerSetOperator) {
			expectCondition(g, cr, operatorv1.OperatorStatusTypeProgressing, operatorv1.ConditionFalse, "Unmanaged")
		})
		deployment := refByName(operandObjects(ctx), "Deployment", deploymentName)
		others := append(without(operandObjects(ctx), deployment), certificateSecrets()...)
		before := resourceVersions(ctx, others)

		By("scaling the Deployment to 3 by hand")
		_, err := fw.kube.AppsV1().Deployments(fw.namespace).Patch(ctx, deploymentName, types.MergePatchType, []byte(`{"spec":{"replicas":3}}`), metav1.PatchOptions{})
		Expect(err).NotTo(HaveOccurred())
		Consistently(ctx, func(g Gomega) {
			d, err := getDeployment(ctx)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(ptrVal(d.Spec.Replicas)).To(Equal(int32(3)), "replicas")
			g.Expect(changedSince(ctx, others, before)).To(BeEmpty(), "operand objects written while Unmanaged")
		}).WithTimeout(shortQuiet).WithPolling(500 * time.Millisecond).Should(Succeed())

		setManagementState(ctx, operatorv1.Managed)
		start := time.Now()
		Eventually(ctx, func(g Gomega) {
			d, err := getDeployment(ctx)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(ptrVal(d.Spec.Replicas)).To(Equal(int32(2)), "replicas")
		}).WithTimeout(driftTimeout).WithPolling(poll).Should(Succeed())
		measure("Managed again -> replicas back to 2", time.Since(start))
		waitRolledOut(ctx, "two replicas", nil)
		waitSettled(ctx)
	}, NodeTimeout(5*time.Minute))

	It("L13. writes nothing after a restart when nothing changed", func(ctx SpecContext) {
		managedAndSettled(ctx)
		crRef := objectRef{gvr: gvrCRs, kind: "LeaderWorkerSetOperator", name: crName}
		refs := append(append([]objectRef{crRef}, operandObjects(ctx)...), certificateSecrets()...)
		// Let anything still in flight land first: the status write that made the CR look
		// settled can be followed by another (the rollout's ready replicas, the generations),
		// so wait for a window of 5 s in which nothing is written, starting over on each write.
		Eventually(ctx, func(g Gomega) {
			settled := resourceVersions(ctx, refs)
			g.Consistently(func() []string { return changedSince(ctx, refs, settled) }).
				WithTimeout(5 * time.Second).WithPolling(time.Second).Should(BeEmpty())
		}).WithTimeout(time.Minute).Should(Succeed(), "the cluster must be quiet before the restart")

		before := resourceVersions(ctx, refs)
		start := time.Now()
		restartOperator(ctx)
		measure("operator restart -> new leader", time.Since(start))
		By("checking that nothing is written for " + quietPeriod.String() + " after the new operator took over")
		Consistently(ctx, func() []string { return changedSince(ctx, refs, before) }).
			WithTimeout(quietPeriod).WithPolling(time.Second).Should(BeEmpty(), "objects written by a no-op restart")
		waitSettled(ctx)
	}, NodeTimeout(6*time.Minute))

	It("L9. removes the operand when Removed, keeps the CRD and users' LeaderWorkerSets, and reinstalls when Managed", func(ctx SpecContext) {
		managedAndSettled(ctx)
		objects := operandObjects(ctx)
		setManagementState(ctx, operatorv1.Removed)
		start := time.Now()
		expectOperandGone(ctx, objects)
		measure("Removed -> operand gone", time.Since(start))
		installed := expectInstalledRBACKept(ctx, nil)
		expectCRDKeptWithoutConversionWebhook(ctx)
		waitForCR(ctx, time.Minute, "Available=False reason Removed", func(g Gomega, cr *lwsoperatorv1.LeaderWorkerSetOperator) {
			expectCondition(g, cr, operatorv1.OperatorStatusTypeAvailable, operatorv1.ConditionFalse, "Removed")
		})
		// That status is written after the removal: the Certificates' requests went with them.
		expectNoCertificateRequests(ctx)

		By("creating a LeaderWorkerSet while Removed (no webhooks to call)")
		ns, err := fw.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "e2e-lws-"}}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		lwsNamespace = ns.Name
		var created *unstructured.Unstructured
		// The API server's webhook configuration cache may trail the deletion by a moment.
		Eventually(ctx, func() error {
			created, err = fw.dynamic.Resource(gvrLWS).Namespace(lwsNamespace).Create(ctx, userLeaderWorkerSet(lwsNamespace), metav1.CreateOptions{})
			return err
		}).WithTimeout(30*time.Second).WithPolling(time.Second).Should(Succeed(), "create a LeaderWorkerSet")
		lwsUID = created.GetUID()

		setManagementState(ctx, operatorv1.Managed)
		start = time.Now()
		waitSettled(ctx)
		measure("Managed again -> Available", time.Since(start))
		for _, ref := range objects {
			_, err := ref.get(ctx)
			Expect(err).NotTo(HaveOccurred(), "%s must be back", ref)
		}
		Eventually(ctx, func(g Gomega) {
			s, err := fw.kube.CoreV1().Secrets(fw.namespace).Get(ctx, webhookSecretName, metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			expectCABundles(ctx, g, s.Data["ca.crt"])
		}).WithTimeout(time.Minute).WithPolling(poll).Should(Succeed(), "the CRD's conversion webhook and the webhooks are back with CA bundles")
		expectUserLeaderWorkerSet(ctx, lwsNamespace, lwsUID)
		expectInstalledRBACKept(ctx, installed)
	}, NodeTimeout(8*time.Minute))

	It("L10. cleans up when the CR is deleted, keeps the CRD and users' LeaderWorkerSets, then installs again when recreated", func(ctx SpecContext) {
		managedAndSettled(ctx)
		objects := operandObjects(ctx)
		By("deleting LeaderWorkerSetOperator/cluster")
		start := time.Now()
		Expect(fw.operator.OperatorV1().LeaderWorkerSetOperators().Delete(ctx, crName, metav1.DeleteOptions{})).To(Succeed())
		Eventually(ctx, func(g Gomega) {
			_, err := getCR(ctx)
			g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the CR is still there: %v", err)
		}).WithTimeout(objectGoneAfter).WithPolling(poll).Should(Succeed(), "the finalizer must let the CR go after cleaning up")
		measure("CR deleted -> CR gone", time.Since(start))
		// The finalizer went after the removal: so did the Certificates' requests.
		expectNoCertificateRequests(ctx)
		expectOperandGone(ctx, objects)
		expectInstalledRBACKept(ctx, nil)
		expectCRDKeptWithoutConversionWebhook(ctx)
		if lwsNamespace != "" {
			expectUserLeaderWorkerSet(ctx, lwsNamespace, lwsUID)
		}

		By("recreating LeaderWorkerSetOperator/cluster")
		start = time.Now()
		cr := ensureCR(ctx)
		waitSettled(ctx)
		measure("CR recreated -> Available", time.Since(start))
		for _, ref := range withoutCRD(objects) {
			obj, err := ref.get(ctx)
			Expect(err).NotTo(HaveOccurred(), "%s must be back", ref)
			Expect(obj.GetOwnerReferences()).To(ContainElement(HaveField("UID", Equal(cr.UID))), "%s must be owned by the new CR", ref)
		}
	}, NodeTimeout(8*time.Minute))
})

// expectCABundles checks that cainjector filled in caBundle in every webhook of both webhook
// configurations and in the CRD's conversion webhook, with the webhook certificate's CA.
func expectCABundles(ctx context.Context, g Gomega, ca []byte) {
	g.Expect(ca).NotTo(BeEmpty(), "the webhook certificate's ca.crt")
	m, err := fw.kube.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(ctx, mutatingWebhookName, metav1.GetOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(m.Webhooks).NotTo(BeEmpty())
	for _, w := range m.Webhooks {
		g.Expect(string(w.ClientConfig.CABundle)).To(Equal(string(ca)), "caBundle of mutating webhook %s", w.Name)
	}
	v, err := fw.kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(ctx, validatingWebhook, metav1.GetOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(v.Webhooks).NotTo(BeEmpty())
	for _, w := range v.Webhooks {
		g.Expect(string(w.ClientConfig.CABundle)).To(Equal(string(ca)), "caBundle of validating webhook %s", w.Name)
	}
	crd, err := fw.apiext.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, lwsCRDName, metav1.GetOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(crd.Spec.Conversion).NotTo(BeNil())
	g.Expect(crd.Spec.Conversion.Strategy).To(Equal(apiextensionsv1.WebhookConverter), "CRD conversion strategy")
	g.Expect(crd.Spec.Conversion.Webhook).NotTo(BeNil())
	g.Expect(crd.Spec.Conversion.Webhook.ClientConfig).NotTo(BeNil())
	g.Expect(string(crd.Spec.Conversion.Webhook.ClientConfig.CABundle)).To(Equal(string(ca)), "caBundle of the CRD's conversion webhook")
}

// expectNoCertificateRequests checks, once, that no CertificateRequest of the operator's
// Certificates is left in the operator's namespace. The operator deletes them right after the
// Certificates: cert-manager names a Certificate's first request after it, so one left to the
// garbage collector (seconds to minutes) would block the Certificate made again when the
// operand comes back (cert-manager/cert-manager#7912).
func expectNoCertificateRequests(ctx context.Context) {
	list, err := fw.dynamic.Resource(gvrCertificateRequests).Namespace(fw.namespace).List(ctx,
		metav1.ListOptions{LabelSelector: managedByLabel + "=" + managedByValue})
	if apierrors.IsNotFound(err) {
		By("cert-manager is not installed (a focused run without L11): no CertificateRequests to look for")
		return
	}
	Expect(err).NotTo(HaveOccurred())
	var left []string
	for _, r := range list.Items {
		left = append(left, r.GetName())
	}
	Expect(left).To(BeEmpty(), "CertificateRequests of the deleted Certificates")
}

// expectOperandGone waits until every operand object but the CRD, and the issued Secrets, are gone.
// expectRightsFromTheInstall asks the API server (SubjectAccessReviews) what the two
// ServiceAccounts may do, as deploy/ installed them: the LeaderWorkerSet controller holds its
// rights (pods and LeaderWorkerSets everywhere, nodes, leader election, delegated
// authentication) and the operator none of them, nor any way to grant them.
func expectRightsFromTheInstall(ctx context.Context) {
	By("asking the API server what the controller's and the operator's ServiceAccounts may do")
	type access struct {
		verb, group, resource, namespace, name string
	}
	controller := "system:serviceaccount:" + fw.namespace + ":" + deploymentName
	operator := "system:serviceaccount:" + fw.namespace + ":llm-infra-operator"
	for _, tc := range []struct {
		user    string
		a       access
		allowed bool
	}{
		{controller, access{"create", "", "pods", "any-namespace", ""}, true},
		{controller, access{"patch", "", "nodes", "", ""}, true},
		{controller, access{"update", "leaderworkerset.x-k8s.io", "leaderworkersets/status", "any-namespace", ""}, true},
		{controller, access{"create", "apps", "statefulsets", "any-namespace", ""}, true},
		{controller, access{"update", "coordination.k8s.io", "leases", fw.namespace, ""}, true},
		{controller, access{"create", "authentication.k8s.io", "tokenreviews", "", ""}, true},
		{operator, access{"create", "", "pods", "any-namespace", ""}, false},
		{operator, access{"create", "", "pods", fw.namespace, ""}, false},
		{operator, access{"patch", "", "nodes", "", ""}, false},
		{operator, access{"create", "apps", "statefulsets", "any-namespace", ""}, false},
		{operator, access{"create", "rbac.authorization.k8s.io", "clusterroles", "", ""}, false},
		{operator, access{"create", "rbac.authorization.k8s.io", "clusterrolebindings", "", ""}, false},
		{operator, access{"bind", "rbac.authorization.k8s.io", "clusterroles", "", "lws-manager-role"}, false},
		{operator, access{"update", "rbac.authorization.k8s.io", "clusterroles", "", "cluster-admin"}, false},
		{operator, access{"update", "rbac.authorization.k8s.io", "clusterroles", "", "lws-manager-role"}, true},
	} {
		review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: tc.user,
			ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: tc.a.verb, Group: tc.a.group, Resource: tc.a.resource,
				Namespace: tc.a.namespace, Name: tc.a.name},
		}}
		if res, sub, ok := strings.Cut(tc.a.resource, "/"); ok {
			review.Spec.ResourceAttributes.Resource, review.Spec.ResourceAttributes.Subresource = res, sub
		}
		got, err := fw.kube.AuthorizationV1().SubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(got.Status.Allowed).To(Equal(tc.allowed), "%s may %+v: %v (%s)", tc.user, tc.a, got.Status.Allowed, got.Status.Reason)
	}
}

// installedRBAC is the LeaderWorkerSet controller's ServiceAccount and RBAC, which deploy/ installs
// with the operator (13_lws-manager-role.yaml, 14_lws-operand-rbac.yaml) and the operator
// never makes, changes or deletes.
func installedRBAC() []objectRef {
	rbac := func(resource, kind, namespace, name string) objectRef {
		return objectRef{gvr: schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: resource}, kind: kind, namespace: namespace, name: name}
	}
	return []objectRef{
		{gvr: schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}, kind: "ServiceAccount", namespace: fw.namespace, name: deploymentName},
		rbac("clusterroles", "ClusterRole", "", "lws-manager-role"),
		rbac("clusterrolebindings", "ClusterRoleBinding", "", "lws-manager-rolebinding"),
		rbac("clusterroles", "ClusterRole", "", "lws-metrics-auth-role"),
		rbac("clusterrolebindings", "ClusterRoleBinding", "", "lws-metrics-auth-rolebinding"),
		rbac("clusterroles", "ClusterRole", "", "lws-metrics-reader"),
		rbac("roles", "Role", fw.namespace, "lws-leader-election-role"),
		rbac("rolebindings", "RoleBinding", fw.namespace, "lws-leader-election-rolebinding"),
	}
}

// expectInstalledRBACKept checks that the controller's installed RBAC is there, unlabelled by the
// operator, with the same UIDs as before (before nil: any) and returns the UIDs.
func expectInstalledRBACKept(ctx context.Context, before map[objectRef]types.UID) map[objectRef]types.UID {
	By("checking that the LWS controller's installed ServiceAccount and RBAC are kept")
	uids := map[objectRef]types.UID{}
	for _, ref := range installedRBAC() {
		obj, err := ref.get(ctx)
		Expect(err).NotTo(HaveOccurred(), "%s, installed with the operator, must stay", ref)
		Expect(obj.GetLabels()).NotTo(HaveKey("app.kubernetes.io/managed-by"), "%s is the install's, not the operator's", ref)
		if before != nil {
			Expect(obj.GetUID()).To(Equal(before[ref]), "%s was deleted and made again", ref)
		}
		uids[ref] = obj.GetUID()
	}
	return uids
}

func expectOperandGone(ctx context.Context, objects []objectRef) {
	gone := append(withoutCRD(objects), certificateSecrets()...)
	By(fmt.Sprintf("waiting for %d operand objects to be deleted", len(gone)))
	Eventually(ctx, func(g Gomega) {
		var left []string
		for _, ref := range gone {
			_, err := ref.get(ctx)
			if err == nil {
				left = append(left, ref.String())
			} else if !apierrors.IsNotFound(err) {
				g.Expect(err).NotTo(HaveOccurred(), "get %s", ref)
			}
		}
		g.Expect(left).To(BeEmpty(), "operand objects still present")
	}).WithTimeout(objectGoneAfter).WithPolling(poll).Should(Succeed())
}

func expectCRDKeptWithoutConversionWebhook(ctx context.Context) {
	By("checking that the LeaderWorkerSet CRD stays, with conversion strategy None, and the DisaggregatedSet CRDs stay")
	Eventually(ctx, func(g Gomega) {
		for _, name := range []string{"disaggregatedsets.disaggregatedset.x-k8s.io", "disaggregatedsetrolescalers.disaggregatedset.x-k8s.io"} {
			crd, err := fw.apiext.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, name, metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred(), "CRD %s must stay", name)
			g.Expect(crd.DeletionTimestamp).To(BeNil(), "CRD %s is being deleted", name)
		}
		crd, err := fw.apiext.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, lwsCRDName, metav1.GetOptions{})
		g.Expect(err).NotTo(HaveOccurred(), "the LeaderWorkerSet CRD must stay")
		g.Expect(crd.DeletionTimestamp).To(BeNil(), "the LeaderWorkerSet CRD is being deleted")
		g.Expect(crd.Spec.Conversion).NotTo(BeNil())
		g.Expect(crd.Spec.Conversion.Strategy).To(Equal(apiextensionsv1.NoneConverter),
			"the conversion webhook must not point at the deleted Service")
	}).WithTimeout(time.Minute).WithPolling(poll).Should(Succeed())
}

// userLeaderWorkerSet is a minimal LeaderWorkerSet: one group of one pod.
func userLeaderWorkerSet(namespace string) *unstructured.Unstructured {
	return live.PauseLeaderWorkerSet(namespace, "e2e-user-lws", 1)
}

func expectUserLeaderWorkerSet(ctx context.Context, namespace string, uid types.UID) {
	obj, err := fw.dynamic.Resource(gvrLWS).Namespace(namespace).Get(ctx, "e2e-user-lws", metav1.GetOptions{})
	Expect(err).NotTo(HaveOccurred(), "the user's LeaderWorkerSet must survive")
	Expect(obj.GetUID()).To(Equal(uid), "the user's LeaderWorkerSet must be the same object")
	Expect(obj.GetDeletionTimestamp()).To(BeNil())
}
