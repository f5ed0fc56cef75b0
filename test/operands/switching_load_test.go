package operands

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	"github.com/llm-infra/llm-infra-operator/pkg/apis/crdtest"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/operands/batchgateway"
	"github.com/llm-infra/llm-infra-operator/test/differential"
)

// Switching from the upstream operators under load (docs/switching.md, docs/reliability.md):
// the load stack's Gateway and LLMBatchGateway are first served by exactly what the upstream
// operators make for them, rendered by upstream's own code (hack/tools/igwrender: the inference
// gateway operator's reconcilers; hack/tools/upstreamrender: the batch gateway operator's values
// mapping and Helm over its charts; both through test/differential), with no operator of this
// project running; then this operator starts while the load runs, adopts every object and rolls
// each Deployment once.
//
// What upstream's objects are given, and why (nothing of what they render is edited):
//   - the batch gateway's images are the ones upstream's operator is deployed with
//     (config/manager/manager.yaml at 3b125d3d sets LLM_D_BATCH_GATEWAY_APISERVER_IMAGE and the
//     others to quay.io/opendatahub/odh-llm-d-batch-gateway-*:odh-stable), which are
//     deploy/10_deployment.yaml's RELATED_IMAGE_BATCH_GATEWAY_* too: the renderer's own are
//     placeholders (registry.example/...) that the real-pod agent's image table does not map.
//     Read here from deploy/, so that the two operators run the same programs and the switch
//     changes what this operator changes, not the image;
//   - the CRs are the load stack's own (the run-local samples): their backends are the suite's
//     Redis, PostgreSQL, S3 and simulator already, upstream's CRDs default them;
//   - the Gateway's status is the one upstream's reconciler wrote (igw-render's); upstream's
//     batch renderer renders no status, so the LLMBatchGateway has none before the switch.

// upstreamObject is an object an upstream operator made for one of the stack's CRs, as the spec
// created it.
type upstreamObject struct {
	obj *unstructured.Unstructured
	uid types.UID
}

func (o upstreamObject) key() string { return o.obj.GetKind() + " " + o.obj.GetName() }

// deployUpstreamStack stops the operator (started again with its usual arguments after the
// spec) and makes the load stack in ns as the upstream operators would have: the samples'
// Secrets and simulator, the Gateway and the LLMBatchGateway, and, owned by each, what upstream
// renders for it. Returns once upstream's pods serve a chat completion and a batch.
func deployUpstreamStack(ctx context.Context, ns string) *stack {
	stopOperatorForSpec()
	s := &stack{ns: ns}
	batchObjs, batchCR := batchSample(ns)
	for _, o := range batchObjs {
		if o != batchCR {
			apply(ctx, ns, o)
		}
	}
	gwObjs, err := render("inference-gateway.yaml", map[string]string{"NAMESPACE": ns, "BATCH_NAMESPACE": ns})
	Expect(err).NotTo(HaveOccurred())
	gwCR := byKind(gwObjs, "Gateway", gatewayCR)
	apply(ctx, ns, byKind(gwObjs, "Secret", "openai-secret"))

	By("creating the LLMBatchGateway and what upstream's batch gateway operator renders for it")
	s.batchCR = createSampleCR(ctx, ns, batchCR)
	objs, err := upstreamBatchRenderer().Render(upstreamBatchCR(s.batchCR))
	Expect(err).NotTo(HaveOccurred(), "upstream's render of %s", batchCR.GetName())
	s.upstream = append(s.upstream, createUpstreamObjects(ctx, ns, s.batchCR, objs)...)

	By("creating the Gateway and what upstream's inference gateway operator renders for it")
	s.gatewayCR = createSampleCR(ctx, ns, gwCR)
	crds := differential.InferenceGatewayCRDs(GinkgoT())
	stored, _, err := crds.Stored(asUpstreamCR(s.gatewayCR), nil)
	Expect(err).NotTo(HaveOccurred())
	objs, status, err := differential.StartInferenceGatewayUpstream(GinkgoT(), "").Render(stored, nil)
	Expect(err).NotTo(HaveOccurred(), "upstream's render of %s", gwCR.GetName())
	s.upstream = append(s.upstream, createUpstreamObjects(ctx, ns, s.gatewayCR, objs)...)
	live, err := resource(s.gatewayCR, ns).Get(ctx, gatewayCR, metav1.GetOptions{})
	Expect(err).NotTo(HaveOccurred())
	live.Object["status"] = status
	_, err = resource(s.gatewayCR, ns).UpdateStatus(ctx, live, metav1.UpdateOptions{FieldManager: fieldManager})
	Expect(err).NotTo(HaveOccurred(), "upstream's status of %s", gatewayCR)

	By("waiting until upstream's pods serve")
	waitDeploymentReady(ctx, ns, "vllm-sim")
	for _, d := range upstreamDeployments(s) {
		waitDeploymentReady(ctx, ns, d)
	}
	s.gateway = serviceURL(ctx, ns, gatewayCR, 8080, "http")
	s.api = serviceURL(ctx, ns, batchCR.GetName()+"-apiserver", 8000, "http")
	eventuallyChat(ctx, s.gateway, nil, "upstream's gateway")
	runBatch(ctx, batchClient{url: s.api}, 1, "upstream")
	// Nothing of this operator's served that: no object of the namespace is its yet.
	for _, o := range s.upstream {
		Expect(o.obj.GetLabels()).NotTo(HaveKeyWithValue(engine.ManagedByLabel, engine.ManagedByValue), o.key())
	}
	return s
}

// stopOperatorForSpec stops the operator, which is started again with its usual arguments
// after the spec: the upstream operators' objects serve until the spec starts it.
func stopOperatorForSpec() {
	By("stopping the operator: the upstream operators' objects serve until it starts")
	DeferCleanup(func() { restartWithUsualArgs("the operator with its usual arguments again") })
	Expect(localOperator(os.Getenv("OPERATOR_ARGS")).Stop()).To(Succeed())
}

// createSampleCR creates a sample's CR (this operator's CRD, the same group, version and
// schema as upstream's for these samples) and returns it as created, its UID set.
func createSampleCR(ctx context.Context, ns string, cr *unstructured.Unstructured) *unstructured.Unstructured {
	cr = cr.DeepCopy()
	cr.SetNamespace(ns)
	created, err := resource(cr, ns).Create(ctx, cr, metav1.CreateOptions{FieldManager: fieldManager})
	Expect(err).NotTo(HaveOccurred(), "create %s %s/%s", cr.GetKind(), ns, cr.GetName())
	return created
}

// asUpstreamCR is the CR as upstream's operator reads it: its name, namespace and UID (its
// objects' owner) and its spec, the rest for upstream's CRD to default.
func asUpstreamCR(cr *unstructured.Unstructured) map[string]any {
	spec, _, _ := unstructured.NestedMap(cr.Object, "spec")
	return map[string]any{
		"apiVersion": cr.GetAPIVersion(), "kind": cr.GetKind(),
		"metadata": map[string]any{"name": cr.GetName(), "namespace": cr.GetNamespace(), "uid": string(cr.GetUID())},
		"spec":     spec,
	}
}

// upstreamBatchCR is cr defaulted by upstream's LLMBatchGateway CRD, as upstream's operator
// reads it from the API server.
func upstreamBatchCR(cr *unstructured.Unstructured) map[string]any {
	crd, err := crdtest.Load(differential.UpstreamCRDPath())
	Expect(err).NotTo(HaveOccurred())
	defaulted, errs := crd.Create(asUpstreamCR(cr))
	Expect(errs.ToAggregate()).NotTo(HaveOccurred(), "upstream's CRD refuses %s", cr.GetName())
	return defaulted
}

// upstreamBatchRenderer is upstream's batch gateway renderer with the images upstream's operator
// is deployed with, which deploy/10_deployment.yaml gives this operator too (see above).
func upstreamBatchRenderer() *differential.Upstream {
	images := batchgateway.ImagesFromEnv(deploymentEnv(filepath.Join("..", "..", "deploy", "10_deployment.yaml")))
	Expect([]string{images.APIServer, images.Processor, images.GC}).NotTo(ContainElement(BeEmpty()), "deploy/10_deployment.yaml's batch gateway images")
	return differential.StartUpstreamWith(GinkgoT(), differential.UpstreamImages{
		APIServer: images.APIServer, Processor: images.Processor, GC: images.GC, Async: images.AsyncProcessor,
	})
}

// deploymentEnv is the lookup of the operator container's environment in a Deployment's file.
func deploymentEnv(path string) func(string) string {
	data, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	var d appsv1.Deployment
	Expect(yaml.Unmarshal(data, &d)).To(Succeed(), path)
	Expect(d.Spec.Template.Spec.Containers).NotTo(BeEmpty(), path)
	env := map[string]string{}
	for _, e := range d.Spec.Template.Spec.Containers[0].Env {
		env[e.Name] = e.Value
	}
	return func(name string) string { return env[name] }
}

// createUpstreamObjects creates what upstream rendered for owner, as upstream's operator
// creates it (its labels, annotations and owner references), the Deployments last: their pods
// need the ServiceAccounts and ConfigMaps.
func createUpstreamObjects(ctx context.Context, ns string, owner *unstructured.Unstructured, rendered []map[string]any) []upstreamObject {
	var objs []*unstructured.Unstructured
	for _, r := range rendered {
		objs = append(objs, &unstructured.Unstructured{Object: r})
	}
	sort.SliceStable(objs, func(i, j int) bool {
		return objs[i].GetKind() != "Deployment" && objs[j].GetKind() == "Deployment"
	})
	var out []upstreamObject
	for _, o := range objs {
		Expect(o.GetNamespace()).To(Equal(ns), o.GetName())
		Expect(o.GetOwnerReferences()).To(ContainElement(HaveField("UID", owner.GetUID())), "%s %s is not owned by %s", o.GetKind(), o.GetName(), owner.GetName())
		created, err := resource(o, ns).Create(ctx, o, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred(), "create upstream's %s %s/%s", o.GetKind(), ns, o.GetName())
		out = append(out, upstreamObject{obj: created, uid: created.GetUID()})
	}
	return out
}

// upstreamDeployments are the names of the Deployments upstream made for the stack.
func upstreamDeployments(s *stack) []string {
	var out []string
	for _, o := range s.upstream {
		if o.obj.GetKind() == "Deployment" {
			out = append(out, o.obj.GetName())
		}
	}
	slices.Sort(out)
	return out
}

// waitServedAtGeneration waits until the CR's condition typ is True for its latest generation.
func waitServedAtGeneration(ctx context.Context, cr *unstructured.Unstructured, ns, typ string) {
	Eventually(func(g Gomega) {
		live, err := resource(cr, ns).Get(ctx, cr.GetName(), metav1.GetOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		observed, _, _ := unstructured.NestedInt64(live.Object, "status", "observedGeneration")
		g.Expect(observed).To(Equal(live.GetGeneration()), "%s %s: observed generation", cr.GetKind(), cr.GetName())
		g.Expect(condition(g, ctx, cr, ns, typ)).To(HaveKeyWithValue("status", "True"), "%s %s: %s", cr.GetKind(), cr.GetName(), typ)
	}).WithContext(ctx).WithTimeout(readyTimeout).WithPolling(poll).Should(Succeed())
}

// replicaSetsOf counts the ReplicaSets of each of ns's Deployments names (one per pod template
// it ran: upstream's, then one per rollout).
func replicaSetsOf(ctx context.Context, ns string, names []string) map[string]int {
	sets, err := fw.kube.AppsV1().ReplicaSets(ns).List(ctx, metav1.ListOptions{})
	Expect(err).NotTo(HaveOccurred())
	out := map[string]int{}
	for _, name := range names {
		out[name] = 0
	}
	for _, rs := range sets.Items {
		if ref := metav1.GetControllerOf(&rs); ref != nil && ref.Kind == "Deployment" {
			if _, ok := out[ref.Name]; ok {
				out[ref.Name]++
			}
		}
	}
	return out
}

// switchedFromUpstream: this operator started (with the spec's lease) where the upstream
// operators' objects serve: it takes the lease, adopts each object (its UID kept, now managed)
// and rolls each Deployment once. Returns once every CR is Ready/Available at its generation and
// every rollout is complete, with the number of Deployments rolled.
var switchedFromUpstream = fault{phase: "switched from the upstream operators' objects", inject: func(ctx context.Context, s *stack) int {
	names := upstreamDeployments(s)
	Expect(names).NotTo(BeEmpty(), "no Deployment of upstream's in the stack")
	generations := deploymentGenerations(ctx, s.ns, names)
	Expect(replicaSetsOf(ctx, s.ns, names)).To(HaveEach(1), "upstream's Deployments have rolled before the switch")
	op := localOperator(leaseArgs())
	started := time.Now()
	_, err := op.Start()
	Expect(err).NotTo(HaveOccurred())
	waitLeaseTaken(ctx, started)
	_, err = waitDeploymentsChanged(ctx, s.ns, generations, len(names))
	Expect(err).NotTo(HaveOccurred(), "this operator did not change every Deployment of upstream's")
	waitDeploymentsRolled(ctx, s.ns, names...)
	waitServedAtGeneration(ctx, s.batchCR, s.ns, "Ready")
	waitServedAtGeneration(ctx, s.gatewayCR, s.ns, "Available")
	GinkgoWriter.Printf("the switch: every CR served and %d Deployments rolled %.1fs after the operator started\n", len(names), time.Since(started).Seconds())

	// Adopted: the same object (no Deployment deleted and made anew, which would take all its
	// pods at once), now this operator's.
	for _, o := range s.upstream {
		live, err := resource(o.obj, s.ns).Get(ctx, o.obj.GetName(), metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred(), "upstream's %s is gone", o.key())
		Expect(live.GetUID()).To(Equal(o.uid), "upstream's %s was deleted and made anew", o.key())
		Expect(live.GetLabels()).To(HaveKeyWithValue(engine.ManagedByLabel, engine.ManagedByValue), "upstream's %s is not managed by this operator", o.key())
	}
	// Rolled once: upstream's ReplicaSet and this operator's.
	Expect(replicaSetsOf(ctx, s.ns, names)).To(HaveEach(2), "ReplicaSets of upstream's Deployments after the switch")
	GinkgoWriter.Printf("the switch: %d upstream objects adopted (UIDs kept), each of %v rolled once\n", len(s.upstream), names)
	return len(names)
}}
