// Package upgrade is make test-upgrade's suite (hack/test-upgrade.sh): the users' operands on
// the previous release of the operator, an upgrade as OLM makes it, and what the operands saw.
package upgrade

import (
	"fmt"
	"os"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

// kind is a custom resource kind of the operator and the condition that says it serves.
type kind struct {
	name      string
	gvr       schema.GroupVersionResource
	condition string
}

var (
	lwsKind     = kind{"LeaderWorkerSetOperator", schema.GroupVersionResource{Group: "operator.openshift.io", Version: "v1", Resource: "leaderworkersetoperators"}, "Available"}
	batchKind   = kind{"LLMBatchGateway", schema.GroupVersionResource{Group: "batch.llm-d.ai", Version: "v1alpha1", Resource: "llmbatchgateways"}, "Ready"}
	gatewayKind = kind{"Gateway", schema.GroupVersionResource{Group: "core.inference-gateway.com", Version: "v1alpha1", Resource: "gateways"}, "Available"}
	mcpKind     = kind{"MCP", schema.GroupVersionResource{Group: "core.inference-gateway.com", Version: "v1alpha1", Resource: "mcps"}, "Available"}
	kinds       = []kind{lwsKind, batchKind, gatewayKind, mcpKind}
)

// plan is how many CRs of each shape the suite makes, spread over namespaces.
type plan struct {
	namespaces int
	// batch CRs per shape (golden case folders of test/golden/batch-gateway)
	batchS3, batchFS, batchAsync int
	gateways, mcps               int
}

// The full form is the issue's: 20 LLMBatchGateways, 20 Gateways and 10 MCPs (with LWS 51 CRs,
// 96 Deployments). The short form keeps every shape: 11 CRs, 20 Deployments.
var (
	fullPlan  = plan{namespaces: 5, batchS3: 10, batchFS: 5, batchAsync: 5, gateways: 20, mcps: 10}
	shortPlan = plan{namespaces: 2, batchS3: 2, batchFS: 1, batchAsync: 1, gateways: 4, mcps: 2}
)

// The batch shapes: the CR of a golden case (valid for both releases' CRDs: both carry them).
const (
	batchS3Case    = "batch_v1alpha1_llmbatchgateway_sync"
	batchFSCase    = "dev-sync-fs"
	batchAsyncCase = "batch_v1alpha1_llmbatchgateway_async"
	goldenBatchDir = "../golden/batch-gateway"
	// mcpGroup labels the MCPs every Gateway of the namespace discovers.
	mcpGroup = "upgrade"
)

// object is one CR the suite made.
type object struct {
	kind      kind
	namespace string
	name      string
}

func (o object) key() string { return o.kind.name + " " + o.namespace + "/" + o.name }

// workload is every object the suite creates: the supporting ones (namespaces, Secrets,
// volumes) and the CRs.
type workload struct {
	namespaces []string
	supporting []*unstructured.Unstructured
	crs        []*unstructured.Unstructured
	objects    []object
}

func (p plan) namespace(i int) string { return fmt.Sprintf("upgrade-%d", i%p.namespaces) }

// build makes the workload of a plan. LWS `cluster` comes from deploy/examples.
func (p plan) build() (*workload, error) {
	w := &workload{}
	for i := 0; i < p.namespaces; i++ {
		ns := p.namespace(i)
		w.namespaces = append(w.namespaces, ns)
		w.supporting = append(w.supporting, mustUnstructured(&corev1.Secret{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
			ObjectMeta: metav1.ObjectMeta{Name: "batch-gateway-secrets", Namespace: ns},
			StringData: map[string]string{"redis-url": "redis://redis.invalid:6379/0", "postgresql-url": "postgresql://u:p@postgres.invalid:5432/db", "s3-secret-access-key": "upgrade-fake"},
		}))
	}
	lws, err := readCR("../../deploy/examples/leaderworkersetoperator_cluster.yaml")
	if err != nil {
		return nil, err
	}
	w.add(lwsKind, lws, "", "cluster")

	n := 0
	addBatch := func(caseName string, count int, fs bool) error {
		for i := 0; i < count; i++ {
			cr, err := readCR(filepath.Join(goldenBatchDir, caseName, "cr.yaml"))
			if err != nil {
				return err
			}
			ns, name := p.namespace(n), fmt.Sprintf("batch-%d", n)
			n++
			if fs {
				// Each file-storage gateway gets a volume of its own, bound statically (the local
				// cluster has no provisioner), so its pods can be scheduled.
				claim := name + "-files"
				if err := unstructured.SetNestedField(cr.Object, claim, "spec", "fileStorage", "fs", "claimName"); err != nil {
					return err
				}
				w.supporting = append(w.supporting, volume(ns, claim)...)
			}
			w.add(batchKind, cr, ns, name)
		}
		return nil
	}
	if err := addBatch(batchS3Case, p.batchS3, false); err != nil {
		return nil, err
	}
	if err := addBatch(batchFSCase, p.batchFS, true); err != nil {
		return nil, err
	}
	if err := addBatch(batchAsyncCase, p.batchAsync, false); err != nil {
		return nil, err
	}
	for i := 0; i < p.mcps; i++ {
		w.add(mcpKind, mustYAML(fmt.Sprintf(`apiVersion: core.inference-gateway.com/v1alpha1
kind: MCP
metadata: {labels: {mcp-group: %s}}
spec: {image: registry.example/mcp:v1, server: {port: 8080, path: /mcp}}
`, mcpGroup)), p.namespace(i), fmt.Sprintf("mcp-%d", i))
	}
	for i := 0; i < p.gateways; i++ {
		w.add(gatewayKind, mustYAML(fmt.Sprintf(`apiVersion: core.inference-gateway.com/v1alpha1
kind: Gateway
spec:
  mcp:
    enabled: true
    serviceDiscovery: {enabled: true, selector: {matchLabels: {mcp-group: %s}}}
`, mcpGroup)), p.namespace(i), fmt.Sprintf("gateway-%d", i))
	}
	return w, nil
}

func (w *workload) add(k kind, cr *unstructured.Unstructured, namespace, name string) {
	cr.SetNamespace(namespace)
	cr.SetName(name)
	cr.SetUID("")
	w.crs = append(w.crs, cr)
	w.objects = append(w.objects, object{kind: k, namespace: namespace, name: name})
}

// volume is a PersistentVolume bound in advance to the claim of that name.
func volume(namespace, claim string) []*unstructured.Unstructured {
	size := resource.MustParse("1Gi")
	pvName := namespace + "-" + claim
	pv := &corev1.PersistentVolume{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolume"},
		ObjectMeta: metav1.ObjectMeta{Name: pvName},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: size},
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimDelete,
			PersistentVolumeSource:        corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/tmp/" + pvName}},
			ClaimRef:                      &corev1.ObjectReference{Namespace: namespace, Name: claim},
		},
	}
	empty := ""
	pvc := &corev1.PersistentVolumeClaim{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"},
		ObjectMeta: metav1.ObjectMeta{Name: claim, Namespace: namespace},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
			StorageClassName: &empty,
			VolumeName:       pvName,
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: size}},
		},
	}
	return []*unstructured.Unstructured{mustUnstructured(pv), mustUnstructured(pvc)}
}

func readCR(path string) (*unstructured.Unstructured, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(data, &u.Object); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return u, nil
}

func mustYAML(s string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(s), &u.Object); err != nil {
		panic(err)
	}
	return u
}

func mustUnstructured(obj any) *unstructured.Unstructured {
	data, err := yaml.Marshal(obj)
	if err != nil {
		panic(err)
	}
	return mustYAML(string(data))
}
