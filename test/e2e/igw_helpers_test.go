package e2e

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"path/filepath"
	"sort"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	igwv1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1/testcases"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/operands/inferencegateway"
)

// goldenIGWDir holds upstream's golden Gateways and MCPs and the objects upstream created for
// them (test/golden/README.md).
const goldenIGWDir = "../golden/inference-gateway"

// igwNamespacePrefix starts the name of every namespace the inference gateway specs create; they
// delete them at the end.
const igwNamespacePrefix = "e2e-igw-"

// igwReadyTimeout bounds how long a Gateway or MCP takes to become Available: kwok starts the
// pods at once, so this is the operator's and the controller manager's work on a busy machine.
const igwReadyTimeout = 4 * time.Minute

// gatewayContainer is the gateway's container in its Deployment.
const gatewayContainer = "inference-gateway"

var (
	gvrGatewayCRs      = igwv1alpha1.GroupVersion.WithResource("gateways")
	gvrMCPCRs          = igwv1alpha1.GroupVersion.WithResource("mcps")
	gvrHPAs            = schema.GroupVersionResource{Group: "autoscaling", Version: "v2", Resource: "horizontalpodautoscalers"}
	gvrIngresses       = schema.GroupVersionResource{Group: "networking.k8s.io", Version: "v1", Resource: "ingresses"}
	gvrGatewayAPIGWs   = inferencegateway.GatewayAPIGatewayGVR
	gvrHTTPRoutes      = inferencegateway.HTTPRouteGVR
	gvrBackendTLS      = inferencegateway.BackendTLSPolicyGVR
	gatewayAPIGWCRD    = "gateways.gateway.networking.k8s.io"
	httpRouteCRD       = "httproutes.gateway.networking.k8s.io"
	igwBuiltInGVRs     = []schema.GroupVersionResource{gvrDeployments, gvrConfigMaps, gvrServices, gvrServiceAccounts, gvrHPAs, gvrIngresses}
	gatewayAPIGVRs     = []schema.GroupVersionResource{gvrGatewayAPIGWs, gvrHTTPRoutes}
	igwUserSecretLabel = map[string]string{"e2e": "user-secret"}
)

// goldenGateway is one upstream golden case: its Gateway, read through the loader the API
// tests use (testcases.Golden), for its own namespace.
type goldenGateway struct {
	name      string
	namespace string
	// obj is the CR as upstream wrote it, for the namespace, without upstream's fixed uid.
	obj map[string]any
	// cr is obj decoded, to read.
	cr *igwv1alpha1.Gateway
}

// goldenGateways reads every golden Gateway; there are six.
func goldenGateways() []goldenGateway {
	cases, err := testcases.GoldenOf(goldenIGWDir, "Gateway", testcases.InferenceGatewayGoldenRefused)
	Expect(err).NotTo(HaveOccurred())
	Expect(cases).To(HaveLen(6), "golden Gateways in %s", goldenIGWDir)
	var out []goldenGateway
	for _, c := range cases {
		obj, err := c.Object()
		Expect(err).NotTo(HaveOccurred())
		cr := &igwv1alpha1.Gateway{}
		Expect(runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(obj, cr, true)).To(Succeed(), c.Name)
		name := strings.TrimPrefix(c.Name, "golden ")
		namespace := igwNamespacePrefix + name
		if len(namespace) > 63 {
			namespace = strings.TrimRight(namespace[:63], "-")
		}
		cr.Namespace, cr.UID, cr.ResourceVersion = namespace, "", ""
		u := &unstructured.Unstructured{Object: obj}
		u.SetNamespace(namespace)
		u.SetUID("")
		out = append(out, goldenGateway{name: name, namespace: namespace, obj: u.Object, cr: cr})
	}
	return out
}

// goldenIGWObjects reads the objects upstream created for a case.
func goldenIGWObjects(goldenCase string) []*unstructured.Unstructured {
	return yamlObjects(filepath.Join(goldenIGWDir, goldenCase, "objects.yaml"))
}

// providerSecrets are the Secrets a Gateway's providers read, with every key they name. The
// values are fake: kwok runs no container that would read them.
func providerSecrets(gw *igwv1alpha1.Gateway) []*corev1.Secret {
	byName := map[string]*corev1.Secret{}
	for _, p := range gw.Spec.Providers {
		for _, e := range p.Env {
			if e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil {
				continue
			}
			ref := e.ValueFrom.SecretKeyRef
			s, ok := byName[ref.Name]
			if !ok {
				s = &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: ref.Name, Namespace: gw.Namespace, Labels: igwUserSecretLabel},
					StringData: map[string]string{}}
				byName[ref.Name] = s
			}
			s.StringData[ref.Key] = "e2e-not-a-real-key"
		}
	}
	var out []*corev1.Secret
	for _, s := range byName {
		out = append(out, s)
	}
	return out
}

// gwClient reads and writes the Gateways of one namespace.
type gwClient struct{ namespace string }

func igwGateways(namespace string) gwClient { return gwClient{namespace} }

func (c gwClient) get(ctx context.Context, name string) (*igwv1alpha1.Gateway, error) {
	return fw.operator.CoreV1alpha1().Gateways(c.namespace).Get(ctx, name, metav1.GetOptions{})
}

func (c gwClient) mustGet(ctx context.Context, name string) *igwv1alpha1.Gateway {
	GinkgoHelper()
	gw, err := c.get(ctx, name)
	Expect(err).NotTo(HaveOccurred(), "get Gateway %s/%s", c.namespace, name)
	return gw
}

// create creates a Gateway, given as an object, unless one of its name exists, and returns it.
// It goes through the dynamic client with strict field validation, as kubectl would: a typed
// Gateway would drop fields set to false, which the API then defaults to true.
func (c gwClient) create(ctx context.Context, obj map[string]any) *igwv1alpha1.Gateway {
	GinkgoHelper()
	u := &unstructured.Unstructured{Object: obj}
	u.SetNamespace(c.namespace)
	By(fmt.Sprintf("creating Gateway %s/%s", c.namespace, u.GetName()))
	_, err := fw.dynamic.Resource(gvrGatewayCRs).Namespace(c.namespace).Create(ctx, u, metav1.CreateOptions{FieldValidation: metav1.FieldValidationStrict})
	if !apierrors.IsAlreadyExists(err) {
		Expect(err).NotTo(HaveOccurred(), "create Gateway %s/%s", c.namespace, u.GetName())
	}
	return c.mustGet(ctx, u.GetName())
}

// createYAML creates a Gateway written as YAML.
func (c gwClient) createYAML(ctx context.Context, manifest string) *igwv1alpha1.Gateway {
	GinkgoHelper()
	return c.create(ctx, objectFromYAML(manifest))
}

// patch applies a JSON merge patch, written as YAML, to a Gateway's spec (null removes a
// field), with strict field validation, and returns the Gateway as stored.
func (c gwClient) patch(ctx context.Context, name, patchYAML string) *igwv1alpha1.Gateway {
	GinkgoHelper()
	By(fmt.Sprintf("patching Gateway %s/%s: %s", c.namespace, name, strings.Join(strings.Fields(patchYAML), " ")))
	raw, err := yaml.YAMLToJSON([]byte(patchYAML))
	Expect(err).NotTo(HaveOccurred())
	gw, err := fw.operator.CoreV1alpha1().Gateways(c.namespace).Patch(ctx, name, types.MergePatchType, raw,
		metav1.PatchOptions{FieldValidation: metav1.FieldValidationStrict})
	Expect(err).NotTo(HaveOccurred(), "patch Gateway %s/%s", c.namespace, name)
	return gw
}

// objectFromYAML decodes an object written as YAML.
func objectFromYAML(manifest string) map[string]any {
	GinkgoHelper()
	obj := map[string]any{}
	Expect(yaml.Unmarshal([]byte(manifest), &obj)).To(Succeed())
	return obj
}

// createMCP creates an MCP written as YAML in a namespace, with strict field validation.
func createMCP(ctx context.Context, namespace, manifest string) *igwv1alpha1.MCP {
	GinkgoHelper()
	u := &unstructured.Unstructured{Object: objectFromYAML(manifest)}
	u.SetNamespace(namespace)
	By(fmt.Sprintf("creating MCP %s/%s", namespace, u.GetName()))
	_, err := fw.dynamic.Resource(gvrMCPCRs).Namespace(namespace).Create(ctx, u, metav1.CreateOptions{FieldValidation: metav1.FieldValidationStrict})
	if !apierrors.IsAlreadyExists(err) {
		Expect(err).NotTo(HaveOccurred(), "create MCP %s/%s", namespace, u.GetName())
	}
	m, err := fw.operator.CoreV1alpha1().MCPs(namespace).Get(ctx, u.GetName(), metav1.GetOptions{})
	Expect(err).NotTo(HaveOccurred())
	return m
}

// igwConditions is a one-line view of a CR's conditions, for failure messages.
func igwConditions(kind string, m metav1.Object, generation, observed int64, conditions []metav1.Condition) string {
	var parts []string
	for _, c := range conditions {
		parts = append(parts, fmt.Sprintf("%s=%s(%s: %s)", c.Type, c.Status, c.Reason, c.Message))
	}
	sort.Strings(parts)
	return fmt.Sprintf("%s %s/%s generation %d, observedGeneration %d: %s", kind, m.GetNamespace(), m.GetName(), generation, observed, strings.Join(parts, "; "))
}

func gatewayConditions(gw *igwv1alpha1.Gateway) string {
	return igwConditions("Gateway", gw, gw.Generation, gw.Status.ObservedGeneration, gw.Status.Conditions)
}

// waitGateway polls a Gateway until check passes for its latest generation, and returns it.
func waitGateway(ctx context.Context, namespace, name, what string, check func(Gomega, *igwv1alpha1.Gateway)) *igwv1alpha1.Gateway {
	GinkgoHelper()
	By(fmt.Sprintf("waiting for Gateway %s/%s: %s", namespace, name, what))
	var last *igwv1alpha1.Gateway
	Eventually(ctx, func(g Gomega) {
		gw, err := igwGateways(namespace).get(ctx, name)
		g.Expect(err).NotTo(HaveOccurred())
		last = gw
		g.Expect(gw.Status.ObservedGeneration).To(Equal(gw.Generation), gatewayConditions(gw))
		check(g, gw)
	}).WithTimeout(igwReadyTimeout).WithPolling(poll).Should(Succeed(), what)
	return last
}

// expectIGWCondition asserts that a condition has the status and, unless empty, the reason.
func expectIGWCondition(g Gomega, conditions []metav1.Condition, summary, condType string, status metav1.ConditionStatus, reason string) *metav1.Condition {
	c := meta.FindStatusCondition(conditions, condType)
	g.Expect(c).NotTo(BeNil(), "no %s condition: %s", condType, summary)
	g.Expect(c.Status).To(Equal(status), "%s: %s", condType, summary)
	if reason != "" {
		g.Expect(c.Reason).To(Equal(reason), "%s reason: %s", condType, summary)
	}
	return c
}

// waitGatewaySettled waits until a Gateway is Available, not Degraded and not Progressing, and
// its Deployment is rolled out completely.
func waitGatewaySettled(ctx context.Context, namespace, name string) *igwv1alpha1.Gateway {
	GinkgoHelper()
	waitDeploymentRolledOut(ctx, namespace, name, "Gateway "+name, nil)
	return waitGateway(ctx, namespace, name, "Available=True, Progressing=False, Degraded=False", func(g Gomega, gw *igwv1alpha1.Gateway) {
		summary := gatewayConditions(gw)
		expectIGWCondition(g, gw.Status.Conditions, summary, igwv1alpha1.ConditionAvailable, metav1.ConditionTrue, "")
		expectIGWCondition(g, gw.Status.Conditions, summary, igwv1alpha1.ConditionDegraded, metav1.ConditionFalse, "")
		expectIGWCondition(g, gw.Status.Conditions, summary, igwv1alpha1.ConditionProgressing, metav1.ConditionFalse, "")
		g.Expect(gw.Status.ReadyReplicas).To(BeNumerically(">=", 1), summary)
	})
}

// waitGatewayDeployment polls a Gateway's Deployment until check passes.
func waitGatewayDeployment(ctx context.Context, namespace, name, what string, check func(Gomega, *appsv1.Deployment, *corev1.Container)) *appsv1.Deployment {
	GinkgoHelper()
	By(fmt.Sprintf("waiting for Deployment %s/%s: %s", namespace, name, what))
	var last *appsv1.Deployment
	Eventually(ctx, func(g Gomega) {
		d, err := fw.kube.AppsV1().Deployments(namespace).Get(ctx, name, metav1.GetOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		c := engine.ContainerOf(d, gatewayContainer)
		g.Expect(c).NotTo(BeNil(), "container %s", gatewayContainer)
		last = d
		check(g, d, c)
	}).WithTimeout(driftTimeout).WithPolling(poll).Should(Succeed(), what)
	return last
}

// envOf is a container's variable, nil when it has none of that name.
func envOf(c *corev1.Container, name string) *corev1.EnvVar {
	for i := range c.Env {
		if c.Env[i].Name == name {
			return &c.Env[i]
		}
	}
	return nil
}

// envValue is a container's plain variable ("" when absent or not plain).
func envValue(c *corev1.Container, name string) string {
	if e := envOf(c, name); e != nil {
		return e.Value
	}
	return ""
}

// volumeNamed is a pod template's volume, nil when it has none of that name.
func volumeNamed(d *appsv1.Deployment, name string) *corev1.Volume {
	for i := range d.Spec.Template.Spec.Volumes {
		if d.Spec.Template.Spec.Volumes[i].Name == name {
			return &d.Spec.Template.Spec.Volumes[i]
		}
	}
	return nil
}

// getObject reads one object of a namespace.
func getObject(ctx context.Context, gvr schema.GroupVersionResource, namespace, name string) (*unstructured.Unstructured, error) {
	return fw.dynamic.Resource(gvr).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
}

// expectControlledBy asserts that an object carries the operator's managed-by label and a
// controller owner reference to owner.
func expectControlledBy(g Gomega, obj *unstructured.Unstructured, owner types.UID) {
	g.Expect(engine.IsManaged(obj.GetLabels())).To(BeTrue(), "%s %s labels %v", obj.GetKind(), obj.GetName(), obj.GetLabels())
	ref := metav1.GetControllerOfNoCopy(obj)
	g.Expect(ref).NotTo(BeNil(), "%s %s has no controller", obj.GetKind(), obj.GetName())
	g.Expect(ref.UID).To(Equal(owner), "%s %s controller %s/%s", obj.GetKind(), obj.GetName(), ref.Kind, ref.Name)
}

// writeVersions maps each object ("Kind namespace/name") of the given resources in a namespace
// to what changes when someone writes its spec or metadata: its generation and metadata where it
// has a generation (controllers keep writing the status of Deployments and autoscalers), else
// its resourceVersion. The UID tells a re-created object apart.
func writeVersions(ctx context.Context, namespace string, gvrs []schema.GroupVersionResource) map[string]string {
	out := map[string]string{}
	for _, gvr := range gvrs {
		list, err := fw.dynamic.Resource(gvr).Namespace(namespace).List(ctx, metav1.ListOptions{})
		if meta.IsNoMatchError(err) || apierrors.IsNotFound(err) {
			continue // an optional API that is not installed
		}
		Expect(err).NotTo(HaveOccurred(), "list %s in %s", gvr.Resource, namespace)
		for _, item := range list.Items {
			version := item.GetResourceVersion()
			if item.GetGeneration() > 0 {
				version = fmt.Sprintf("generation %d, labels %v, annotations %v", item.GetGeneration(), item.GetLabels(), item.GetAnnotations())
			}
			out[item.GetKind()+" "+namespace+"/"+item.GetName()] = version + " uid " + string(item.GetUID())
		}
	}
	return out
}

// waitObjectGone waits until an object is deleted.
func waitObjectGone(ctx context.Context, gvr schema.GroupVersionResource, namespace, name string) {
	GinkgoHelper()
	Eventually(ctx, func(g Gomega) {
		_, err := getObject(ctx, gvr, namespace, name)
		g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "%s %s/%s still exists (%v)", gvr.Resource, namespace, name, err)
	}).WithTimeout(driftTimeout).WithPolling(poll).Should(Succeed())
}

// dumpIGWDiagnostics prints every Gateway and MCP of the specs' namespaces with their
// conditions, then the suite's diagnostics and the operator's log tail.
func dumpIGWDiagnostics(ctx context.Context) {
	if gws, err := fw.operator.CoreV1alpha1().Gateways(metav1.NamespaceAll).List(ctx, metav1.ListOptions{}); err == nil {
		for i := range gws.Items {
			gw := &gws.Items[i]
			fmt.Fprintf(GinkgoWriter, "%s; url %q, readyReplicas %d, mcpServers %v\n", gatewayConditions(gw), gw.Status.URL, gw.Status.ReadyReplicas, gw.Status.MCPServers)
		}
	} else {
		fmt.Fprintf(GinkgoWriter, "list Gateways: %v\n", err)
	}
	if mcps, err := fw.operator.CoreV1alpha1().MCPs(metav1.NamespaceAll).List(ctx, metav1.ListOptions{}); err == nil {
		for i := range mcps.Items {
			m := &mcps.Items[i]
			fmt.Fprintf(GinkgoWriter, "%s; url %q\n", igwConditions("MCP", m, m.Generation, m.Status.ObservedGeneration, m.Status.Conditions), m.Status.URL)
		}
	}
	dumpDiagnostics(ctx)
}

// servingCertificatePEM is a self-signed serving certificate for dnsName and its key, PEM.
func servingCertificatePEM(dnsName string) (certificate, key string) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	Expect(err).NotTo(HaveOccurred())
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: dnsName},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		DNSNames: []string{dnsName}, KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &priv.PublicKey, priv)
	Expect(err).NotTo(HaveOccurred())
	keyDER, err := x509.MarshalPKCS8PrivateKey(priv)
	Expect(err).NotTo(HaveOccurred())
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})), string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}))
}
