package e2e

import (
	"fmt"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	igwv1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1/testcases"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// fieldsGateway is the Gateway the field-group specs change one group at a time: one provider
// with its key from a Secret, and a disabled one.
const fieldsGateway = `
apiVersion: core.inference-gateway.com/v1alpha1
kind: Gateway
metadata:
  name: gw
spec:
  providers:
  - name: openai
    env:
    - name: OPENAI_API_KEY
      valueFrom:
        secretKeyRef: {name: openai, key: api-key}
  - name: ollama
    enabled: false
    env:
    - {name: OLLAMA_API_URL, value: "http://ollama.e2e.invalid:11434/v1"}
`

// The inference gateway specs run in namespaces of their own (igwNamespacePrefix), in order,
// and leave the cluster as they found it: their namespaces deleted, the Gateway API CRDs back to
// how they were. The field-group specs (G4 to G12) share one Gateway, each changing one group.
var _ = Describe("Gateway", Ordered, ContinueOnFailure, func() {
	var gatewayAPIAtStart bool
	fields := igwNamespacePrefix + "fields"
	gw := igwGateways(fields)

	BeforeAll(func(ctx SpecContext) {
		for _, crd := range []string{"gateways.core.inference-gateway.com", "mcps.core.inference-gateway.com"} {
			_, err := fw.apiext.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, crd, metav1.GetOptions{})
			Expect(err).NotTo(HaveOccurred(), "the CRD %s must be installed (deploy/00_core.inference-gateway.com_*.crd.yaml)", crd)
		}
		gatewayAPIAtStart = crdExists(ctx, gatewayAPIGWCRD)
	})

	AfterAll(func(ctx SpecContext) {
		waitNamespacesGone(ctx, deleteNamespacesWithPrefix(ctx, igwNamespacePrefix))
		if now := crdExists(ctx, gatewayAPIGWCRD); now && !gatewayAPIAtStart {
			uninstallOptionalCRDs(ctx, crdSetGatewayAPI)
		} else if !now && gatewayAPIAtStart {
			installOptionalCRDs(ctx, crdSetGatewayAPI)
		}
	})

	AfterEach(func(ctx SpecContext) {
		if CurrentSpecReport().Failed() {
			dumpIGWDiagnostics(ctx)
		}
	})

	It("G1. brings every upstream golden Gateway to Available, with a URL, ready replicas and upstream's objects, managed and controlled", func(ctx SpecContext) {
		if !crdExists(ctx, gatewayAPIGWCRD) {
			installOptionalCRDs(ctx, crdSetGatewayAPI) // extra-hpa-ports-gatewayapi-tls asks for a Gateway and an HTTPRoute
		}
		golden := goldenGateways()
		for _, c := range golden {
			ensureRestrictedNamespace(ctx, c.namespace)
			for _, s := range providerSecrets(c.cr) {
				ensureObject(ctx, s)
			}
			igwGateways(c.namespace).create(ctx, c.obj)
		}
		// status.url: the Service's cluster address with its port, or the first HTTPRoute
		// hostname (https with the listener's TLS).
		serviceURL := func(c goldenGateway, port int) string {
			return fmt.Sprintf("http://%s.%s.svc.cluster.local:%d", c.cr.Name, c.namespace, port)
		}
		for _, c := range golden {
			want := map[string]string{
				"extra-empty-spec":               serviceURL(c, 8080),
				"extra-hpa-ports-gatewayapi-tls": "https://api.example.com",
				"gateway-minimal":                serviceURL(c, 8080),
				"gateway-with-model-routing":     serviceURL(c, 8080),
				"gpu":                            serviceURL(c, 8080),
				"orchestrator":                   serviceURL(c, 8080),
			}[c.name]
			Expect(want).NotTo(BeEmpty(), "no expected URL for the golden case %s", c.name)
			live := waitGatewaySettled(ctx, c.namespace, c.cr.Name)
			Expect(live.Status.URL).To(Equal(want), "%s status.url", c.name)
			expectFewEventsComingUp(ctx, c.namespace, "Gateway", c.cr.Name)

			By("comparing the objects of " + c.name + " with upstream's")
			for _, golden := range goldenIGWObjects(c.name) {
				obj, err := getObject(ctx, engine.MustResourceFor(golden.GroupVersionKind()), c.namespace, golden.GetName())
				Expect(err).NotTo(HaveOccurred(), "upstream's %s %s has no counterpart", golden.GetKind(), golden.GetName())
				expectControlledBy(Default, obj, live.UID)
				if golden.GetKind() == "Deployment" {
					want, _, _ := unstructured.NestedMap(golden.Object, "spec", "selector")
					got, _, _ := unstructured.NestedMap(obj.Object, "spec", "selector")
					Expect(got).To(Equal(want), "Deployment %s selector", golden.GetName())
				}
			}
		}

		By("checking that the HorizontalPodAutoscaler of extra-hpa-ports-gatewayapi-tls scales the Deployment to its minReplicas, 2")
		i := slices.IndexFunc(golden, func(c goldenGateway) bool { return c.name == "extra-hpa-ports-gatewayapi-tls" })
		Expect(i).NotTo(Equal(-1), "the golden case extra-hpa-ports-gatewayapi-tls")
		scaled := golden[i]
		waitGateway(ctx, scaled.namespace, scaled.cr.Name, "readyReplicas 2", func(g Gomega, gw *igwv1alpha1.Gateway) {
			g.Expect(gw.Status.ReadyReplicas).To(Equal(int32(2)))
		})
	})

	It("G2. leaves settled Gateways alone: no write to their objects or their status while nothing changes", func(ctx SpecContext) {
		golden := goldenGateways()
		versions := func() map[string]string {
			out := map[string]string{}
			for _, c := range golden {
				live := igwGateways(c.namespace).mustGet(ctx, c.cr.Name)
				out["Gateway "+c.namespace+"/"+live.Name] = live.ResourceVersion
				for k, v := range writeVersions(ctx, c.namespace, slices.Concat(igwBuiltInGVRs, gatewayAPIGVRs)) {
					out[k] = v
				}
			}
			return out
		}
		before := versions()
		Consistently(ctx, func(g Gomega) {
			g.Expect(versions()).To(Equal(before))
		}).WithTimeout(shortQuiet * 2 / 3).WithPolling(time.Second).Should(Succeed())
	})

	It("G3. rejects invalid Gateways and MCPs at admission, each with its message, and accepts the valid ones", func(ctx SpecContext) {
		namespace := igwNamespacePrefix + "admission"
		ensureRestrictedNamespace(ctx, namespace)
		expectAdmission(ctx, gvrGatewayCRs, namespace, testcases.GatewayRejected, testcases.GatewayAccepted)
		expectAdmission(ctx, gvrMCPCRs, namespace, testcases.MCPRejected, testcases.MCPAccepted)
	})

	It("G4. passes the providers' env, each key from its Secret, and only for enabled providers; reports a missing Secret until it exists", func(ctx SpecContext) {
		ensureRestrictedNamespace(ctx, fields)
		gw.createYAML(ctx, fieldsGateway)
		waitGateway(ctx, fields, "gw", "Degraded=True SecretMissing naming the provider's Secret", func(g Gomega, gw *igwv1alpha1.Gateway) {
			summary := gatewayConditions(gw)
			degraded := expectIGWCondition(g, gw.Status.Conditions, summary, igwv1alpha1.ConditionDegraded, metav1.ConditionTrue, engine.ReasonSecretMissing)
			g.Expect(degraded.Message).To(ContainSubstring("Secret "+fields+"/openai"), summary)
		})
		By("creating the provider's Secret: the Gateway recovers without a change of its own")
		ensureObject(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "openai", Namespace: fields, Labels: igwUserSecretLabel},
			StringData: map[string]string{"api-key": "e2e-not-a-real-key"}})
		live := waitGatewaySettled(ctx, fields, "gw")
		Expect(live.Status.ProviderSummary).To(Equal("openai"), "status.providerSummary")
		Expect(live.Status.URL).To(Equal("http://gw." + fields + ".svc.cluster.local:8080"))
		waitGatewayDeployment(ctx, fields, "gw", "OPENAI_API_KEY from the Secret, no OLLAMA_API_URL", func(g Gomega, _ *appsv1.Deployment, c *corev1.Container) {
			key := envOf(c, "OPENAI_API_KEY")
			g.Expect(key).NotTo(BeNil(), "OPENAI_API_KEY")
			g.Expect(key.ValueFrom).NotTo(BeNil(), "OPENAI_API_KEY must come from the Secret")
			g.Expect(key.ValueFrom.SecretKeyRef).To(Equal(&corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "openai"}, Key: "api-key"}))
			g.Expect(envOf(c, "OLLAMA_API_URL")).To(BeNil(), "a disabled provider's env")
		})

		gw.patch(ctx, "gw", `{spec: {providers: [{name: openai, env: [{name: OPENAI_API_KEY, valueFrom: {secretKeyRef: {name: openai, key: api-key}}}]}, {name: ollama, enabled: true, env: [{name: OLLAMA_API_URL, value: "http://ollama.e2e.invalid:11434/v1"}]}]}}`)
		waitGatewayDeployment(ctx, fields, "gw", "OLLAMA_API_URL once ollama is enabled", func(g Gomega, _ *appsv1.Deployment, c *corev1.Container) {
			g.Expect(envValue(c, "OLLAMA_API_URL")).To(Equal("http://ollama.e2e.invalid:11434/v1"))
			g.Expect(envOf(c, "OPENAI_API_KEY")).NotTo(BeNil())
		})
	})

	It("G5. serves on spec.server.port: container port, SERVER_PORT, probes and the Service's target port agree", func(ctx SpecContext) {
		gw.patch(ctx, "gw", `{spec: {server: {port: 9090}, service: {port: 80}}}`)
		waitGatewayDeployment(ctx, fields, "gw", "port 9090 everywhere", func(g Gomega, _ *appsv1.Deployment, c *corev1.Container) {
			g.Expect(c.Ports).To(ContainElement(And(HaveField("Name", "http"), HaveField("ContainerPort", int32(9090)))), "container ports")
			g.Expect(envValue(c, "SERVER_PORT")).To(Equal("9090"))
			for _, probe := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe} {
				g.Expect(probe).NotTo(BeNil())
				g.Expect(probe.HTTPGet.Port).To(Equal(intstr.FromInt32(9090)), "probe port")
			}
		})
		svc, err := fw.kube.CoreV1().Services(fields).Get(ctx, "gw", metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(svc.Spec.Ports[0].Port).To(Equal(int32(80)), "the Service's port is spec.service.port")
		Expect(svc.Spec.Ports[0].TargetPort).To(Equal(intstr.FromString("http")), "the Service targets the container port by name")
		// What the Service's endpoints would be: its target port resolved on the pods. (The
		// local cluster's kwok gives pods loopback addresses, which EndpointSlices refuse.)
		waitDeploymentRolledOut(ctx, fields, "gw", "the Service's target port is the pods' 9090", func(g Gomega, p *corev1.Pod) {
			var ports []int32
			for _, c := range p.Spec.Containers {
				for _, port := range c.Ports {
					if port.Name == svc.Spec.Ports[0].TargetPort.StrVal {
						ports = append(ports, port.ContainerPort)
					}
				}
			}
			g.Expect(ports).To(ConsistOf(int32(9090)), "pod %s's ports named %s", p.Name, svc.Spec.Ports[0].TargetPort.StrVal)
		})
		waitGateway(ctx, fields, "gw", "status.url with the Service's port", func(g Gomega, gw *igwv1alpha1.Gateway) {
			g.Expect(gw.Status.URL).To(Equal("http://gw." + fields + ".svc.cluster.local:80"))
		})
	})

	It("G6. sets the Service's type and annotations, and removes an annotation taken out of the spec", func(ctx SpecContext) {
		gw.patch(ctx, "gw", `{spec: {service: {type: NodePort, annotations: {e2e.example.com/a: "1", e2e.example.com/b: "2"}}}}`)
		waitService := func(what string, check func(Gomega, *corev1.Service)) *corev1.Service {
			By("waiting for Service gw: " + what)
			var last *corev1.Service
			Eventually(ctx, func(g Gomega) {
				svc, err := fw.kube.CoreV1().Services(fields).Get(ctx, "gw", metav1.GetOptions{})
				g.Expect(err).NotTo(HaveOccurred())
				last = svc
				check(g, svc)
			}).WithTimeout(driftTimeout).WithPolling(poll).Should(Succeed(), what)
			return last
		}
		svc := waitService("NodePort with annotations a and b", func(g Gomega, svc *corev1.Service) {
			g.Expect(svc.Spec.Type).To(Equal(corev1.ServiceTypeNodePort))
			g.Expect(svc.Annotations).To(HaveKeyWithValue("e2e.example.com/a", "1"))
			g.Expect(svc.Annotations).To(HaveKeyWithValue("e2e.example.com/b", "2"))
		})

		By("annotating the Service by hand: the operator must keep what it did not set")
		svc.Annotations["e2e.example.com/by-hand"] = "kept"
		_, err := fw.kube.CoreV1().Services(fields).Update(ctx, svc, metav1.UpdateOptions{})
		Expect(err).NotTo(HaveOccurred())

		gw.patch(ctx, "gw", `{spec: {service: {type: ClusterIP, annotations: {e2e.example.com/b: null}}}}`)
		waitService("ClusterIP, annotation b removed, a kept", func(g Gomega, svc *corev1.Service) {
			g.Expect(svc.Spec.Type).To(Equal(corev1.ServiceTypeClusterIP))
			g.Expect(svc.Annotations).To(HaveKeyWithValue("e2e.example.com/a", "1"))
			g.Expect(svc.Annotations).NotTo(HaveKey("e2e.example.com/b"))
		})
		gw.patch(ctx, "gw", `{spec: {service: {annotations: null}}}`)
		svc = waitService("no annotation of the spec left", func(g Gomega, svc *corev1.Service) {
			g.Expect(svc.Annotations).NotTo(HaveKey("e2e.example.com/a"))
		})
		Expect(svc.Annotations).To(HaveKeyWithValue("e2e.example.com/by-hand", "kept"))
	})

	It("G7. serves TLS with the referenced Secret: HTTPS probes, the Secret mounted, the gateway calling itself by the Service's name, an https URL", func(ctx SpecContext) {
		serviceHost := "gw." + fields + ".svc"
		By("a certificate for another name: the gateway would call itself at " + serviceHost + " and fail, so the Gateway says so")
		wrong, key := servingCertificatePEM("api.e2e.example.com")
		ensureObject(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "gw-tls", Namespace: fields, Labels: igwUserSecretLabel},
			Type: corev1.SecretTypeOpaque, StringData: map[string]string{"tls.crt": wrong, "tls.key": key}})
		gw.patch(ctx, "gw", `{spec: {server: {tls: {enabled: true, certificateRef: {name: gw-tls, key: tls.crt}, keyRef: {name: gw-tls, key: tls.key}}}}}`)
		waitGateway(ctx, fields, "gw", "Degraded=True ServerCertificateInvalid naming the Secret and the name", func(g Gomega, gw *igwv1alpha1.Gateway) {
			summary := gatewayConditions(gw)
			degraded := expectIGWCondition(g, gw.Status.Conditions, summary, igwv1alpha1.ConditionDegraded, metav1.ConditionTrue, igwv1alpha1.ReasonServerCertificateInvalid)
			g.Expect(degraded.Message).To(And(ContainSubstring("Secret "+fields+"/gw-tls"), ContainSubstring(serviceHost), ContainSubstring("api.e2e.example.com")), summary)
			g.Expect(degraded.Message).NotTo(ContainSubstring("BEGIN"), "the certificate's content")
		})
		By("a certificate for " + serviceHost)
		right, key := servingCertificatePEM(serviceHost)
		secret, err := fw.kube.CoreV1().Secrets(fields).Get(ctx, "gw-tls", metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		secret.Data = map[string][]byte{"tls.crt": []byte(right), "tls.key": []byte(key)}
		_, err = fw.kube.CoreV1().Secrets(fields).Update(ctx, secret, metav1.UpdateOptions{})
		Expect(err).NotTo(HaveOccurred())
		waitGateway(ctx, fields, "gw", "Degraded=False", func(g Gomega, gw *igwv1alpha1.Gateway) {
			expectIGWCondition(g, gw.Status.Conditions, gatewayConditions(gw), igwv1alpha1.ConditionDegraded, metav1.ConditionFalse, "")
		})
		Eventually(ctx, func(g Gomega) {
			svc, err := fw.kube.CoreV1().Services(fields).Get(ctx, "gw", metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(svc.Spec.Ports[0].AppProtocol).To(HaveValue(Equal("https")), "the Service port's appProtocol")
		}).WithTimeout(driftTimeout).WithPolling(poll).Should(Succeed())
		waitGatewayDeployment(ctx, fields, "gw", "HTTPS probes and the TLS Secret mounted", func(g Gomega, d *appsv1.Deployment, c *corev1.Container) {
			for _, probe := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe} {
				g.Expect(probe.HTTPGet.Scheme).To(Equal(corev1.URISchemeHTTPS), "probe scheme")
			}
			volume := volumeNamed(d, "inference-gateway-tls")
			g.Expect(volume).NotTo(BeNil(), "the TLS volume")
			g.Expect(volume.Projected).NotTo(BeNil())
			var secrets []string
			for _, s := range volume.Projected.Sources {
				if s.Secret != nil {
					secrets = append(secrets, s.Secret.Name)
				}
			}
			g.Expect(secrets).To(ConsistOf("gw-tls", "gw-tls"), "the certificate and the key from gw-tls")
			g.Expect(c.VolumeMounts).To(ContainElement(And(HaveField("Name", "inference-gateway-tls"), HaveField("MountPath", "/app/tls"))))
			g.Expect(envValue(c, "SERVER_TLS_CERT_PATH")).To(Equal("/app/tls/tls.crt"))
			g.Expect(envValue(c, "SERVER_TLS_KEY_PATH")).To(Equal("/app/tls/tls.key"))
			g.Expect(podTemplateHashes(d)).To(HaveKey(engine.ConfigHashAnnotationPrefix+"secret-gw-tls"), "the TLS Secret's hash")
			// The API server accepted the pod template: hostAliases with the wildcard address.
			g.Expect(envValue(c, "SERVER_HOST")).To(Equal(serviceHost), "the name the gateway calls itself by")
			g.Expect(d.Spec.Template.Spec.HostAliases).To(ConsistOf(corev1.HostAlias{IP: "0.0.0.0", Hostnames: []string{serviceHost}}))
			g.Expect(strings.Split(envValue(c, "SSL_CERT_DIR"), ":")).To(ContainElements("/etc/ssl/certs", "/app/tls"))
		})
		waitGateway(ctx, fields, "gw", "an https URL", func(g Gomega, gw *igwv1alpha1.Gateway) {
			g.Expect(gw.Status.URL).To(Equal("https://gw." + fields + ".svc.cluster.local:80"))
		})
	})

	It("G8. rolls the pods when a Secret they read rotates, and not when only its metadata changes", func(ctx SpecContext) {
		waitDeploymentRolledOut(ctx, fields, "gw", "before the rotation", nil)
		before := getBatchDeployment(ctx, fields, "gw")
		hashes := podTemplateHashes(before)
		Expect(hashes).To(HaveKey(engine.ConfigHashAnnotationPrefix + "secret-openai"))
		var oldPods []corev1.Pod
		Eventually(ctx, func(g Gomega) { oldPods = deploymentPods(ctx, g, fields, "gw") }).Should(Succeed())

		By("touching only the Secret's metadata: nothing rolls")
		secret, err := fw.kube.CoreV1().Secrets(fields).Get(ctx, "openai", metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		secret.Annotations = map[string]string{"touched": "yes"}
		_, err = fw.kube.CoreV1().Secrets(fields).Update(ctx, secret, metav1.UpdateOptions{})
		Expect(err).NotTo(HaveOccurred())
		Consistently(ctx, func(g Gomega) {
			g.Expect(podTemplateHashes(getBatchDeployment(ctx, fields, "gw"))).To(Equal(hashes))
		}).WithTimeout(shortQuiet / 3).WithPolling(poll).Should(Succeed())

		By("rotating the provider key and the TLS key")
		for name, key := range map[string]string{"openai": "api-key", "gw-tls": "tls.key"} {
			secret, err := fw.kube.CoreV1().Secrets(fields).Get(ctx, name, metav1.GetOptions{})
			Expect(err).NotTo(HaveOccurred())
			secret.Data[key] = []byte("e2e-rotated")
			_, err = fw.kube.CoreV1().Secrets(fields).Update(ctx, secret, metav1.UpdateOptions{})
			Expect(err).NotTo(HaveOccurred())
		}
		waitGatewayDeployment(ctx, fields, "gw", "new hashes of both Secrets", func(g Gomega, d *appsv1.Deployment, _ *corev1.Container) {
			now := podTemplateHashes(d)
			for _, name := range []string{"openai", "gw-tls"} {
				key := engine.ConfigHashAnnotationPrefix + "secret-" + name
				g.Expect(now[key]).NotTo(BeEmpty(), key)
				g.Expect(now[key]).NotTo(Equal(hashes[key]), "%s did not change", key)
			}
		})
		old := podUIDs(oldPods)
		waitDeploymentRolledOut(ctx, fields, "gw", "new pods after the rotation", func(g Gomega, p *corev1.Pod) {
			g.Expect(old).NotTo(HaveKey(p.UID), "pod %s is from before the rotation", p.Name)
		})
	})

	It("G9. creates, updates and deletes the HorizontalPodAutoscaler, and never resets the replicas it chose", func(ctx SpecContext) {
		gw.patch(ctx, "gw", `{spec: {hpa: {enabled: true, config: {minReplicas: 2, maxReplicas: 4}}}}`)
		live := gw.mustGet(ctx, "gw")
		Eventually(ctx, func(g Gomega) {
			hpa, err := getObject(ctx, gvrHPAs, fields, "gw-hpa")
			g.Expect(err).NotTo(HaveOccurred())
			expectControlledBy(g, hpa, live.UID)
			g.Expect(hpa.Object).To(HaveKeyWithValue("spec", And(
				HaveKeyWithValue("minReplicas", BeNumerically("==", 2)),
				HaveKeyWithValue("maxReplicas", BeNumerically("==", 4)),
				HaveKeyWithValue("scaleTargetRef", And(HaveKeyWithValue("kind", "Deployment"), HaveKeyWithValue("name", "gw"))))))
		}).WithTimeout(driftTimeout).WithPolling(poll).Should(Succeed())
		By("waiting for the autoscaler to scale the Deployment to its minReplicas")
		Eventually(ctx, func(g Gomega) {
			g.Expect(getBatchDeployment(ctx, fields, "gw").Spec.Replicas).To(HaveValue(Equal(int32(2))))
		}).WithTimeout(igwReadyTimeout).WithPolling(poll).Should(Succeed())

		By("changing the pods' environment while the autoscaler owns the replicas")
		gw.patch(ctx, "gw", `{spec: {providers: [{name: openai, env: [{name: OPENAI_API_KEY, valueFrom: {secretKeyRef: {name: openai, key: api-key}}}, {name: OPENAI_API_URL, value: "https://openai.e2e.invalid/v1"}]}]}}`)
		// The first Deployment with the new env is the operator's write: its replicas are what
		// the operator applied (the autoscaler would only put back a reset later).
		changed := waitGatewayDeployment(ctx, fields, "gw", "OPENAI_API_URL", func(g Gomega, _ *appsv1.Deployment, c *corev1.Container) {
			g.Expect(envValue(c, "OPENAI_API_URL")).To(Equal("https://openai.e2e.invalid/v1"))
		})
		Expect(changed.Spec.Replicas).To(HaveValue(Equal(int32(2))), "the operator's apply reset the autoscaler's replicas")

		gw.patch(ctx, "gw", `{spec: {hpa: {config: {maxReplicas: 5}}}}`)
		Eventually(ctx, func(g Gomega) {
			hpa, err := getObject(ctx, gvrHPAs, fields, "gw-hpa")
			g.Expect(err).NotTo(HaveOccurred())
			max, _, _ := unstructured.NestedInt64(hpa.Object, "spec", "maxReplicas")
			g.Expect(max).To(Equal(int64(5)))
		}).WithTimeout(driftTimeout).WithPolling(poll).Should(Succeed())

		By("turning the autoscaler off: spec.replicas counts again")
		gw.patch(ctx, "gw", `{spec: {hpa: null, replicas: 1}}`)
		waitObjectGone(ctx, gvrHPAs, fields, "gw-hpa")
		Eventually(ctx, func(g Gomega) {
			g.Expect(getBatchDeployment(ctx, fields, "gw").Spec.Replicas).To(HaveValue(Equal(int32(1))))
		}).WithTimeout(driftTimeout).WithPolling(poll).Should(Succeed())
	})

	It("G10. exposes the gateway through an Ingress from spec.ingress, and deletes it when turned off", func(ctx SpecContext) {
		gw.patch(ctx, "gw", `{spec: {ingress: {enabled: true, host: llm.e2e.example.com, className: nginx, annotations: {e2e.example.com/timeout: 10m}, tls: {enabled: true, secretName: llm-tls}}}}`)
		live := gw.mustGet(ctx, "gw")
		Eventually(ctx, func(g Gomega) {
			obj, err := getObject(ctx, gvrIngresses, fields, "gw")
			g.Expect(err).NotTo(HaveOccurred())
			expectControlledBy(g, obj, live.UID)
			g.Expect(obj.GetAnnotations()).To(HaveKeyWithValue("e2e.example.com/timeout", "10m"))
			// The gateway serves TLS since G7: the controller must speak HTTPS to it.
			g.Expect(obj.GetAnnotations()).To(HaveKeyWithValue("nginx.ingress.kubernetes.io/backend-protocol", "HTTPS"))
			class, _, _ := unstructured.NestedString(obj.Object, "spec", "ingressClassName")
			g.Expect(class).To(Equal("nginx"))
			rules, _, _ := unstructured.NestedSlice(obj.Object, "spec", "rules")
			g.Expect(rules).To(HaveLen(1))
			rule := rules[0].(map[string]any)
			g.Expect(rule).To(HaveKeyWithValue("host", "llm.e2e.example.com"))
			paths, _, _ := unstructured.NestedSlice(rule, "http", "paths")
			g.Expect(paths).To(HaveLen(1))
			service, _, _ := unstructured.NestedMap(paths[0].(map[string]any), "backend", "service")
			g.Expect(service).To(HaveKeyWithValue("name", "gw"))
			g.Expect(service).To(HaveKeyWithValue("port", HaveKeyWithValue("number", BeNumerically("==", 80))), "the Service's port")
			tls, _, _ := unstructured.NestedSlice(obj.Object, "spec", "tls")
			g.Expect(tls).To(ConsistOf(And(HaveKeyWithValue("secretName", "llm-tls"), HaveKeyWithValue("hosts", ConsistOf("llm.e2e.example.com")))))
		}).WithTimeout(driftTimeout).WithPolling(poll).Should(Succeed())
		waitGateway(ctx, fields, "gw", "the Ingress's URL", func(g Gomega, gw *igwv1alpha1.Gateway) {
			g.Expect(gw.Status.URL).To(Equal("https://llm.e2e.example.com"))
		})

		gw.patch(ctx, "gw", `{spec: {ingress: {annotations: null}}}`)
		Eventually(ctx, func(g Gomega) {
			obj, err := getObject(ctx, gvrIngresses, fields, "gw")
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(obj.GetAnnotations()).NotTo(HaveKey("e2e.example.com/timeout"))
		}).WithTimeout(driftTimeout).WithPolling(poll).Should(Succeed(), "the annotation taken out of spec.ingress is removed")

		gw.patch(ctx, "gw", `{spec: {ingress: null}}`)
		waitObjectGone(ctx, gvrIngresses, fields, "gw")
		waitGateway(ctx, fields, "gw", "the Service's URL again", func(g Gomega, gw *igwv1alpha1.Gateway) {
			g.Expect(gw.Status.URL).To(Equal("https://gw." + fields + ".svc.cluster.local:80"))
		})
	})

	It("G18. uses the MCPs of another namespace only while a ReferenceGrant there allows it, naming the grant to create; drops them when it goes (issue 33)", func(ctx SpecContext) {
		if !crdExists(ctx, "referencegrants.gateway.networking.k8s.io") {
			installOptionalCRDs(ctx, crdSetGatewayAPI)
		}
		tools, consumer := igwNamespacePrefix+"tools", igwNamespacePrefix+"consumer"
		ensureRestrictedNamespace(ctx, tools)
		ensureRestrictedNamespace(ctx, consumer)
		createMCP(ctx, tools, "apiVersion: core.inference-gateway.com/v1alpha1\nkind: MCP\nmetadata: {name: shared-time}\nspec: {image: registry.example/mcp:v1, server: {port: 3000, path: /sse}}\n")
		timeURL := "http://shared-time-service." + tools + ".svc.cluster.local:3000/sse"
		igwGateways(consumer).createYAML(ctx, fmt.Sprintf(`
apiVersion: core.inference-gateway.com/v1alpha1
kind: Gateway
metadata: {name: cross}
spec:
  mcp:
    enabled: true
    serviceDiscovery: {enabled: true, namespace: %s}
`, tools))
		waitGateway(ctx, consumer, "cross", "no MCP without the grant; Degraded names it and the grant", func(g Gomega, gw *igwv1alpha1.Gateway) {
			summary := gatewayConditions(gw)
			degraded := expectIGWCondition(g, gw.Status.Conditions, summary, igwv1alpha1.ConditionDegraded, metav1.ConditionTrue, engine.ReasonReferenceNotPermitted)
			g.Expect(degraded.Message).To(And(ContainSubstring("skipped [shared-time]"), ContainSubstring("a ReferenceGrant in namespace "+tools+" from group core.inference-gateway.com, kind Gateway, namespace "+consumer)), summary)
			g.Expect(gw.Status.MCPServers).To(BeEmpty())
		})

		By("granting the Gateways of " + consumer + " every MCP of " + tools)
		grant := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "gateway.networking.k8s.io/v1beta1", "kind": "ReferenceGrant",
			"metadata": map[string]any{"name": "gateways-of-consumer", "namespace": tools},
			"spec": map[string]any{
				"from": []any{map[string]any{"group": igwv1alpha1.GroupVersion.Group, "kind": "Gateway", "namespace": consumer}},
				"to":   []any{map[string]any{"group": igwv1alpha1.GroupVersion.Group, "kind": "MCP"}},
			},
		}}
		_, err := fw.dynamic.Resource(gvrReferenceGrant).Namespace(tools).Create(ctx, grant, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		waitGateway(ctx, consumer, "cross", "the granted MCP used, not Degraded", func(g Gomega, gw *igwv1alpha1.Gateway) {
			expectIGWCondition(g, gw.Status.Conditions, gatewayConditions(gw), igwv1alpha1.ConditionDegraded, metav1.ConditionFalse, "")
			g.Expect(gw.Status.MCPServers).To(Equal([]string{timeURL}))
		})

		By("deleting the grant: the MCP leaves at once (the grant's event, long before the periodic resync)")
		Expect(fw.dynamic.Resource(gvrReferenceGrant).Namespace(tools).Delete(ctx, grant.GetName(), metav1.DeleteOptions{})).To(Succeed())
		waitGateway(ctx, consumer, "cross", "the MCP dropped with its grant", func(g Gomega, gw *igwv1alpha1.Gateway) {
			expectIGWCondition(g, gw.Status.Conditions, gatewayConditions(gw), igwv1alpha1.ConditionDegraded, metav1.ConditionTrue, engine.ReasonReferenceNotPermitted)
			g.Expect(gw.Status.MCPServers).To(BeEmpty())
		})
	})

	It("G11. reports the missing Gateway API CRDs by name, then creates the Gateway and HTTPRoute once they are installed", func(ctx SpecContext) {
		if crdExists(ctx, gatewayAPIGWCRD) {
			uninstallOptionalCRDs(ctx, crdSetGatewayAPI)
		}
		gw.patch(ctx, "gw", `{spec: {gatewayAPI: {enabled: true, httpRoute: {hostnames: [api.e2e.example.com]}}}}`)
		waitGateway(ctx, fields, "gw", "Degraded=True CRDNotInstalled naming the CRD, still Available", func(g Gomega, gw *igwv1alpha1.Gateway) {
			summary := gatewayConditions(gw)
			degraded := expectIGWCondition(g, gw.Status.Conditions, summary, igwv1alpha1.ConditionDegraded, metav1.ConditionTrue, engine.ReasonCRDMissing)
			g.Expect(degraded.Message).To(SatisfyAny(ContainSubstring(gatewayAPIGWCRD), ContainSubstring(httpRouteCRD)), summary)
			g.Expect(degraded.Message).To(ContainSubstring("spec.gatewayAPI.enabled"), summary)
			expectIGWCondition(g, gw.Status.Conditions, summary, igwv1alpha1.ConditionAvailable, metav1.ConditionTrue, "")
		})

		installOptionalCRDs(ctx, crdSetGatewayAPI)
		live := waitGateway(ctx, fields, "gw", "Degraded=False once the CRDs are installed", func(g Gomega, gw *igwv1alpha1.Gateway) {
			expectIGWCondition(g, gw.Status.Conditions, gatewayConditions(gw), igwv1alpha1.ConditionDegraded, metav1.ConditionFalse, "")
		})
		Eventually(ctx, func(g Gomega) {
			gateway, err := getObject(ctx, gvrGatewayAPIGWs, fields, "gw")
			g.Expect(err).NotTo(HaveOccurred(), "the Gateway API Gateway")
			expectControlledBy(g, gateway, live.UID)
			route, err := getObject(ctx, gvrHTTPRoutes, fields, "gw")
			g.Expect(err).NotTo(HaveOccurred(), "the HTTPRoute")
			expectControlledBy(g, route, live.UID)
			hostnames, _, _ := unstructured.NestedStringSlice(route.Object, "spec", "hostnames")
			g.Expect(hostnames).To(Equal([]string{"api.e2e.example.com"}))
			parents, _, _ := unstructured.NestedSlice(route.Object, "spec", "parentRefs")
			g.Expect(parents).To(ConsistOf(HaveKeyWithValue("name", "gw")))
			rules, _, _ := unstructured.NestedSlice(route.Object, "spec", "rules")
			g.Expect(rules).To(HaveLen(1))
			backends, _, _ := unstructured.NestedSlice(rules[0].(map[string]any), "backendRefs")
			g.Expect(backends).To(ConsistOf(And(HaveKeyWithValue("name", "gw"), HaveKeyWithValue("port", BeNumerically("==", 80)))), "the Service's port")
			// The gateway serves TLS since G7: a BackendTLSPolicy makes the Gateway API
			// implementation speak HTTPS to it, verifying the Service's name against the CA.
			policy, err := getObject(ctx, gvrBackendTLS, fields, "gw")
			g.Expect(err).NotTo(HaveOccurred(), "the BackendTLSPolicy")
			expectControlledBy(g, policy, live.UID)
			hostname, _, _ := unstructured.NestedString(policy.Object, "spec", "validation", "hostname")
			g.Expect(hostname).To(Equal("gw." + fields + ".svc"))
			targets, _, _ := unstructured.NestedSlice(policy.Object, "spec", "targetRefs")
			g.Expect(targets).To(ConsistOf(And(HaveKeyWithValue("kind", "Service"), HaveKeyWithValue("name", "gw"), HaveKeyWithValue("sectionName", "http"))))
			ca, err := fw.kube.CoreV1().ConfigMaps(fields).Get(ctx, "gw-backend-ca", metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred(), "the BackendTLSPolicy's CA")
			secret, err := fw.kube.CoreV1().Secrets(fields).Get(ctx, "gw-tls", metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(ca.Data).To(HaveKeyWithValue("ca.crt", string(secret.Data["tls.crt"])), "the self-signed certificate is its own CA")
		}).WithTimeout(driftTimeout).WithPolling(poll).Should(Succeed())

		By("attaching the HTTPRoute to an existing Gateway (parentRefs): the operator's own Gateway API Gateway goes")
		gw.patch(ctx, "gw", `{spec: {gatewayAPI: {gateway: {parentRefs: [{name: shared, namespace: platform, sectionName: https}]}}}}`)
		waitObjectGone(ctx, gvrGatewayAPIGWs, fields, "gw")
		Eventually(ctx, func(g Gomega) {
			route, err := getObject(ctx, gvrHTTPRoutes, fields, "gw")
			g.Expect(err).NotTo(HaveOccurred(), "the HTTPRoute")
			parents, _, _ := unstructured.NestedSlice(route.Object, "spec", "parentRefs")
			g.Expect(parents).To(ConsistOf(And(HaveKeyWithValue("name", "shared"), HaveKeyWithValue("namespace", "platform"), HaveKeyWithValue("sectionName", "https"))))
		}).WithTimeout(driftTimeout).WithPolling(poll).Should(Succeed())

		gw.patch(ctx, "gw", `{spec: {gatewayAPI: null}}`)
		waitObjectGone(ctx, gvrHTTPRoutes, fields, "gw")
		waitObjectGone(ctx, gvrGatewayAPIGWs, fields, "gw")
		waitObjectGone(ctx, gvrBackendTLS, fields, "gw")
		Eventually(ctx, func() bool {
			_, err := fw.kube.CoreV1().ConfigMaps(fields).Get(ctx, "gw-backend-ca", metav1.GetOptions{})
			return apierrors.IsNotFound(err)
		}).WithTimeout(objectGoneAfter).WithPolling(poll).Should(BeTrue(), "the BackendTLSPolicy's CA ConfigMap goes with it")
	})

	It("G12. mounts the routing configuration, inline in its own ConfigMap or from the user's, and rolls the pods when it changes", func(ctx SpecContext) {
		gw.patch(ctx, "gw", "spec: {routing: {enabled: true, config: \"models: {}\\n\"}}")
		live := gw.mustGet(ctx, "gw")
		Eventually(ctx, func(g Gomega) {
			cm, err := getObject(ctx, gvrConfigMaps, fields, "gw-routing")
			g.Expect(err).NotTo(HaveOccurred())
			expectControlledBy(g, cm, live.UID)
			data, _, _ := unstructured.NestedStringMap(cm.Object, "data")
			g.Expect(data).To(Equal(map[string]string{"routing.yaml": "models: {}\n"}))
		}).WithTimeout(driftTimeout).WithPolling(poll).Should(Succeed())
		waitGatewayDeployment(ctx, fields, "gw", "the inline routing mounted", func(g Gomega, d *appsv1.Deployment, c *corev1.Container) {
			v := volumeNamed(d, "model-routing")
			g.Expect(v).NotTo(BeNil(), "volume model-routing")
			g.Expect(v.ConfigMap).NotTo(BeNil())
			g.Expect(v.ConfigMap.Name).To(Equal("gw-routing"))
			g.Expect(envValue(c, "ROUTING_ENABLED")).To(Equal("true"))
			g.Expect(envValue(c, "ROUTING_CONFIG_PATH")).To(Equal("/etc/inference-gateway/routing/routing.yaml"))
			g.Expect(podTemplateHashes(d)).To(HaveKey(engine.ConfigHashAnnotationPrefix + "configmap-gw-routing"))
		})

		By("switching to the user's ConfigMap")
		_, err := fw.kube.CoreV1().ConfigMaps(fields).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "my-routing", Namespace: fields},
			Data: map[string]string{"r.yaml": "models: {}\n"}}, metav1.CreateOptions{})
		if !apierrors.IsAlreadyExists(err) {
			Expect(err).NotTo(HaveOccurred())
		}
		gw.patch(ctx, "gw", `{spec: {routing: {config: null, configMapRef: {name: my-routing, key: r.yaml}}}}`)
		d := waitGatewayDeployment(ctx, fields, "gw", "the user's routing mounted", func(g Gomega, d *appsv1.Deployment, c *corev1.Container) {
			v := volumeNamed(d, "model-routing")
			g.Expect(v).NotTo(BeNil(), "volume model-routing")
			g.Expect(v.ConfigMap).NotTo(BeNil())
			g.Expect(v.ConfigMap.Name).To(Equal("my-routing"))
			g.Expect(envValue(c, "ROUTING_CONFIG_PATH")).To(Equal("/etc/inference-gateway/routing/r.yaml"))
			g.Expect(podTemplateHashes(d)).To(HaveKey(engine.ConfigHashAnnotationPrefix + "configmap-my-routing"))
		})
		waitObjectGone(ctx, gvrConfigMaps, fields, "gw-routing")

		By("changing the user's routing: the pods roll")
		key := engine.ConfigHashAnnotationPrefix + "configmap-my-routing"
		before := podTemplateHashes(d)[key]
		cm, err := fw.kube.CoreV1().ConfigMaps(fields).Get(ctx, "my-routing", metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		cm.Data["r.yaml"] = "models:\n  fast: {deployments: [{provider: openai, model: gpt-4o-mini}]}\n"
		_, err = fw.kube.CoreV1().ConfigMaps(fields).Update(ctx, cm, metav1.UpdateOptions{})
		Expect(err).NotTo(HaveOccurred())
		waitGatewayDeployment(ctx, fields, "gw", "a new hash of my-routing", func(g Gomega, d *appsv1.Deployment, _ *corev1.Container) {
			g.Expect(podTemplateHashes(d)[key]).NotTo(Equal(before))
		})

		gw.patch(ctx, "gw", `{spec: {routing: null}}`)
		waitGatewayDeployment(ctx, fields, "gw", "no routing", func(g Gomega, d *appsv1.Deployment, c *corev1.Container) {
			g.Expect(volumeNamed(d, "model-routing")).To(BeNil())
			g.Expect(envOf(c, "ROUTING_ENABLED")).To(BeNil())
		})
	})

	It("G16. turns guardrails on with mounted policies, failing closed by default, and open or external as asked; off removes them", func(ctx SpecContext) {
		_, err := fw.kube.CoreV1().ConfigMaps(fields).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "policies", Namespace: fields},
			Data: map[string]string{"deny.rego": "package guardrails\ndefault allow := true\n"}}, metav1.CreateOptions{})
		if !apierrors.IsAlreadyExists(err) {
			Expect(err).NotTo(HaveOccurred())
		}
		gw.patch(ctx, "gw", `{spec: {guardrails: {enabled: true, configMapRef: {name: policies}}}}`)
		waitGatewayDeployment(ctx, fields, "gw", "the policies mounted, failing closed", func(g Gomega, d *appsv1.Deployment, c *corev1.Container) {
			v := volumeNamed(d, "guardrails-policies")
			g.Expect(v).NotTo(BeNil(), "volume guardrails-policies")
			g.Expect(v.ConfigMap).NotTo(BeNil())
			g.Expect(v.ConfigMap.Name).To(Equal("policies"))
			g.Expect(envValue(c, "GUARDRAILS_ENABLED")).To(Equal("true"))
			g.Expect(envValue(c, "GUARDRAILS_POLICY_DIR")).To(Equal("/etc/inference-gateway/guardrails"))
			g.Expect(envValue(c, "GUARDRAILS_FAIL_MODE")).To(Equal("closed"), "upstream's default deny, in the gateway's words")
			g.Expect(podTemplateHashes(d)).To(HaveKey(engine.ConfigHashAnnotationPrefix + "configmap-policies"))
		})

		gw.patch(ctx, "gw", `{spec: {guardrails: {configMapRef: null, failMode: allow, externalUrl: "http://guardrails.e2e.example.com/check"}}}`)
		waitGatewayDeployment(ctx, fields, "gw", "an external guardrails service, failing open", func(g Gomega, d *appsv1.Deployment, c *corev1.Container) {
			g.Expect(volumeNamed(d, "guardrails-policies")).To(BeNil())
			g.Expect(envOf(c, "GUARDRAILS_POLICY_DIR")).To(BeNil())
			g.Expect(envValue(c, "GUARDRAILS_FAIL_MODE")).To(Equal("open"))
			g.Expect(envValue(c, "GUARDRAILS_EXTERNAL_URL")).To(Equal("http://guardrails.e2e.example.com/check"))
			g.Expect(envValue(c, "GUARDRAILS_EXTERNAL_TIMEOUT")).To(Equal("5s"))
		})

		gw.patch(ctx, "gw", `{spec: {guardrails: null}}`)
		waitGatewayDeployment(ctx, fields, "gw", "no guardrails", func(g Gomega, _ *appsv1.Deployment, c *corev1.Container) {
			for _, name := range []string{"GUARDRAILS_ENABLED", "GUARDRAILS_FAIL_MODE", "GUARDRAILS_EXTERNAL_URL"} {
				g.Expect(envOf(c, name)).To(BeNil(), name)
			}
		})
	})

	It("G13. gives each MCP server a URL and objects, follows MCP servers added and removed in the Gateway's status and MCP_SERVERS, rolls an MCP server when its TLS Secret rotates", func(ctx SpecContext) {
		namespace := igwNamespacePrefix + "mcp"
		ensureRestrictedNamespace(ctx, namespace)
		mcp := func(name, group, server string) string {
			return fmt.Sprintf("apiVersion: core.inference-gateway.com/v1alpha1\nkind: MCP\nmetadata: {name: %s, labels: {mcp-group: %s}}\nspec: {image: registry.example/mcp:v1, server: %s}\n", name, group, server)
		}
		memory := createMCP(ctx, namespace, mcp("memory", "group1", "{port: 8080, path: /mcp}"))
		createMCP(ctx, namespace, mcp("other", "group2", "{port: 8080}"))
		memoryURL := "http://memory-service." + namespace + ".svc.cluster.local:8080/mcp"
		By("waiting for MCP memory to be Available with its URL")
		Eventually(ctx, func(g Gomega) {
			m, err := fw.operator.CoreV1alpha1().MCPs(namespace).Get(ctx, "memory", metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			summary := igwConditions("MCP", m, m.Generation, m.Status.ObservedGeneration, m.Status.Conditions)
			g.Expect(m.Status.ObservedGeneration).To(Equal(m.Generation), summary)
			expectIGWCondition(g, m.Status.Conditions, summary, igwv1alpha1.ConditionAvailable, metav1.ConditionTrue, "")
			g.Expect(m.Status.URL).To(Equal(memoryURL))
			for _, ref := range []objectRef{{gvr: gvrDeployments, name: "memory"}, {gvr: gvrServices, name: "memory-service"}} {
				obj, err := getObject(ctx, ref.gvr, namespace, ref.name)
				g.Expect(err).NotTo(HaveOccurred())
				expectControlledBy(g, obj, memory.UID)
			}
		}).WithTimeout(igwReadyTimeout).WithPolling(poll).Should(Succeed())

		static := "https://static-mcp.e2e.example.com/mcp"
		igwGateways(namespace).createYAML(ctx, fmt.Sprintf(`
apiVersion: core.inference-gateway.com/v1alpha1
kind: Gateway
metadata: {name: orchestrator}
spec:
  mcp:
    enabled: true
    servers: [{name: static, url: %q}]
    serviceDiscovery: {enabled: true, selector: {matchLabels: {mcp-group: group1}}}
`, static))
		expectServers := func(what string, want ...string) {
			slices.Sort(want)
			waitGateway(ctx, namespace, "orchestrator", what, func(g Gomega, gw *igwv1alpha1.Gateway) {
				g.Expect(gw.Status.MCPServers).To(Equal(want), "status.mcpServers")
				g.Expect(gw.Status.MCPServerCount).To(Equal(int32(len(want))), "status.mcpServerCount")
			})
			waitGatewayDeployment(ctx, namespace, "orchestrator", "MCP_SERVERS "+what, func(g Gomega, _ *appsv1.Deployment, c *corev1.Container) {
				g.Expect(envValue(c, "MCP_SERVERS")).To(Equal(strings.Join(want, ",")))
			})
		}
		expectServers("the static server and memory, not other (group2)", static, memoryURL)

		timeURL := "http://time-service." + namespace + ".svc.cluster.local:3000/sse"
		createMCP(ctx, namespace, mcp("time", "group1", "{port: 3000, path: /sse}"))
		expectServers("time added", static, memoryURL, timeURL)

		By("deleting MCP memory")
		Expect(fw.operator.CoreV1alpha1().MCPs(namespace).Delete(ctx, "memory", metav1.DeleteOptions{})).To(Succeed())
		expectServers("memory removed", static, timeURL)
		waitObjectGone(ctx, gvrDeployments, namespace, "memory")
		waitObjectGone(ctx, gvrServices, namespace, "memory-service")

		By("relabelling MCP time out of the Gateway's selector")
		_, err := fw.operator.CoreV1alpha1().MCPs(namespace).Patch(ctx, "time", types.MergePatchType, []byte(`{"metadata":{"labels":{"mcp-group":"group2"}}}`), metav1.PatchOptions{})
		Expect(err).NotTo(HaveOccurred())
		expectServers("time relabelled out of the selector (long before the periodic resync)", static)

		By("rotating the TLS Secret of an MCP server: its pods roll")
		ensureObject(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "secure-tls", Namespace: namespace, Labels: igwUserSecretLabel},
			StringData: map[string]string{"tls.crt": "e2e-not-a-certificate", "tls.key": "e2e-not-a-key"}})
		createMCP(ctx, namespace, mcp("secure", "group2", "{port: 8443, tls: {enabled: true, secretName: secure-tls}}"))
		key := engine.ConfigHashAnnotationPrefix + "secret-secure-tls"
		var before string
		Eventually(ctx, func(g Gomega) {
			d, err := fw.kube.AppsV1().Deployments(namespace).Get(ctx, "secure", metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			before = podTemplateHashes(d)[key]
			g.Expect(before).NotTo(BeEmpty(), "the pod template's hash of the TLS Secret")
		}).WithTimeout(driftTimeout).WithPolling(poll).Should(Succeed())
		tls, err := fw.kube.CoreV1().Secrets(namespace).Get(ctx, "secure-tls", metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		tls.Data["tls.key"] = []byte("e2e-rotated")
		_, err = fw.kube.CoreV1().Secrets(namespace).Update(ctx, tls, metav1.UpdateOptions{})
		Expect(err).NotTo(HaveOccurred())
		Eventually(ctx, func(g Gomega) {
			d, err := fw.kube.AppsV1().Deployments(namespace).Get(ctx, "secure", metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(podTemplateHashes(d)[key]).NotTo(Equal(before), "the hash of the rotated TLS Secret")
		}).WithTimeout(driftTimeout).WithPolling(poll).Should(Succeed())
	})

	It("G14. leaves a foreign object of a managed name untouched and reports it as Degraded, naming it", func(ctx SpecContext) {
		foreign, err := fw.kube.CoreV1().Services(fields).Create(ctx, &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: "clash", Namespace: fields, Labels: map[string]string{"owner": "someone-else"}},
			Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "someone-else"},
				Ports: []corev1.ServicePort{{Name: "web", Port: 8000, TargetPort: intstr.FromInt32(8000)}}},
		}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		gw.createYAML(ctx, "apiVersion: core.inference-gateway.com/v1alpha1\nkind: Gateway\nmetadata: {name: clash}\nspec: {}\n")
		waitGateway(ctx, fields, "clash", "Degraded=True ObjectNotOwned naming the Service", func(g Gomega, gw *igwv1alpha1.Gateway) {
			summary := gatewayConditions(gw)
			degraded := expectIGWCondition(g, gw.Status.Conditions, summary, igwv1alpha1.ConditionDegraded, metav1.ConditionTrue, engine.ReasonObjectNotOwned)
			g.Expect(degraded.Message).To(ContainSubstring("Service "+fields+"/clash"), summary)
		})
		now, err := fw.kube.CoreV1().Services(fields).Get(ctx, "clash", metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(now.ResourceVersion).To(Equal(foreign.ResourceVersion), "the foreign Service was written")
		Expect(now.OwnerReferences).To(BeEmpty())
	})

	It("G17. creates the ServiceMonitor with metrics, deletes it when spec.telemetry.metrics.serviceMonitor.enabled is false, and leaves a user's ServiceMonitor of the name alone without Degraded (issue 16, defect 7)", func(ctx SpecContext) {
		if !crdExists(ctx, serviceMonitorCRD) {
			installOptionalCRDs(ctx, crdSetMonitoringCore)
			DeferCleanup(func(ctx SpecContext) { uninstallOptionalCRDs(ctx, crdSetMonitoringCore) })
		}
		ensureRestrictedNamespace(ctx, fields)
		sms := fw.dynamic.Resource(gvrServiceMonitor).Namespace(fields)
		created := gw.createYAML(ctx, "apiVersion: core.inference-gateway.com/v1alpha1\nkind: Gateway\nmetadata: {name: sm}\nspec: {telemetry: {enabled: true, metrics: {enabled: true}}}\n")
		Eventually(ctx, func(g Gomega) {
			obj, err := sms.Get(ctx, "sm", metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			expectControlledBy(g, obj, created.UID)
		}).WithTimeout(driftTimeout).WithPolling(poll).Should(Succeed(), "the Gateway's ServiceMonitor")

		By("turning the ServiceMonitor off: the operator deletes its own")
		gw.patch(ctx, "sm", `{spec: {telemetry: {metrics: {serviceMonitor: {enabled: false}}}}}`)
		waitObjectGone(ctx, gvrServiceMonitor, fields, "sm")

		By("a user's ServiceMonitor of the same name: neither written nor a reason for Degraded")
		user := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "monitoring.coreos.com/v1", "kind": "ServiceMonitor",
			"metadata": map[string]any{"name": "sm", "namespace": fields, "labels": map[string]any{"owner": "someone-else"}},
			"spec": map[string]any{
				"selector":  map[string]any{"matchLabels": map[string]any{"app": "someone-else"}},
				"endpoints": []any{map[string]any{"port": "web"}},
			},
		}}
		user, err := sms.Create(ctx, user, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		// Off, then unset (the default: created when possible, but someone else's is no problem).
		for _, patch := range []string{`{spec: {telemetry: {metrics: {serviceMonitor: {enabled: false}}}}}`, `{spec: {telemetry: {metrics: {serviceMonitor: null}}}}`} {
			live := gw.patch(ctx, "sm", patch)
			waitGateway(ctx, fields, "sm", "the spec observed, Degraded=False", func(g Gomega, gw *igwv1alpha1.Gateway) {
				summary := gatewayConditions(gw)
				g.Expect(gw.Status.ObservedGeneration).To(Equal(live.Generation), summary)
				expectIGWCondition(g, gw.Status.Conditions, summary, igwv1alpha1.ConditionDegraded, metav1.ConditionFalse, "")
			})
			now, err := sms.Get(ctx, "sm", metav1.GetOptions{})
			Expect(err).NotTo(HaveOccurred(), "the user's ServiceMonitor was deleted")
			Expect(now.GetResourceVersion()).To(Equal(user.GetResourceVersion()), "the user's ServiceMonitor was written (%s)", patch)
			Expect(now.GetOwnerReferences()).To(BeEmpty())
		}
	})

	It("G15. deletes every object of a deleted Gateway through garbage collection, and leaves the user's Secrets and ConfigMaps and the foreign Service", func(ctx SpecContext) {
		gvrs := slices.Concat(igwBuiltInGVRs, gatewayAPIGVRs)
		live := gw.mustGet(ctx, "gw")
		clash := gw.mustGet(ctx, "clash")
		Expect(controlledObjects(ctx, fields, live.UID, gvrs...)).NotTo(BeEmpty())
		for _, name := range []string{"gw", "clash"} {
			Expect(fw.operator.CoreV1alpha1().Gateways(fields).Delete(ctx, name, metav1.DeleteOptions{})).To(Succeed())
		}
		Eventually(ctx, func(g Gomega) {
			g.Expect(controlledObjects(ctx, fields, live.UID, gvrs...)).To(BeEmpty())
			g.Expect(controlledObjects(ctx, fields, clash.UID, gvrs...)).To(BeEmpty())
		}).WithTimeout(objectGoneAfter).WithPolling(poll).Should(Succeed())
		for _, name := range []string{"openai", "gw-tls"} {
			_, err := fw.kube.CoreV1().Secrets(fields).Get(ctx, name, metav1.GetOptions{})
			Expect(err).NotTo(HaveOccurred(), "the user's Secret %s must stay", name)
		}
		_, err := fw.kube.CoreV1().ConfigMaps(fields).Get(ctx, "my-routing", metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred(), "the user's ConfigMap must stay")
		_, err = fw.kube.CoreV1().Services(fields).Get(ctx, "clash", metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred(), "the foreign Service must stay")
	})
})
