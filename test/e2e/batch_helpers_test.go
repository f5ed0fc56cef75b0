package e2e

import (
	"context"
	"fmt"
	"os"
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
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/yaml"

	batchv1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/batch/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/operands/batchgateway"
)

var (
	gvrServices        = schema.GroupVersionResource{Version: "v1", Resource: "services"}
	gvrServiceAccounts = schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}
)

// goldenBatchDir holds the upstream operator's golden CRs and objects (test/golden/README.md).
const goldenBatchDir = "../golden/batch-gateway"

// batchNamespacePrefix starts the name of every namespace the batch gateway specs create; the
// suite deletes them at the end.
const batchNamespacePrefix = "e2e-bg-"

// batchReadyTimeout bounds how long a CR takes to become Ready: kwok starts the pods at once,
// so this is mostly the operator's and the controller manager's work on a busy machine.
const batchReadyTimeout = 4 * time.Minute

// goldenBatchCases lists the golden case directories.
func goldenBatchCases() []string {
	entries, err := os.ReadDir(goldenBatchDir)
	Expect(err).NotTo(HaveOccurred())
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	Expect(out).To(HaveLen(12), "golden cases in %s", goldenBatchDir)
	return out
}

// goldenBatchCR reads a golden case's CR for namespace (upstream's fixed uid removed).
func goldenBatchCR(goldenCase, namespace string) *batchv1alpha1.LLMBatchGateway {
	raw, err := os.ReadFile(filepath.Join(goldenBatchDir, goldenCase, "cr.yaml"))
	Expect(err).NotTo(HaveOccurred())
	cr := &batchv1alpha1.LLMBatchGateway{}
	Expect(yaml.UnmarshalStrict(raw, cr)).To(Succeed(), "%s/cr.yaml", goldenCase)
	cr.Namespace, cr.UID, cr.ResourceVersion = namespace, "", ""
	return cr
}

// goldenBatchObjects reads the objects upstream created for a case.
func goldenBatchObjects(goldenCase string) []*unstructured.Unstructured {
	return yamlObjects(filepath.Join(goldenBatchDir, goldenCase, "objects.yaml"))
}

// yamlObjects reads every object of a multi-document YAML file.
func yamlObjects(path string) []*unstructured.Unstructured {
	f, err := os.Open(path)
	Expect(err).NotTo(HaveOccurred())
	defer f.Close()
	decoder := utilyaml.NewYAMLOrJSONDecoder(f, 4096)
	var out []*unstructured.Unstructured
	for {
		obj := &unstructured.Unstructured{}
		if err := decoder.Decode(&obj.Object); err != nil {
			Expect(err.Error()).To(Equal("EOF"))
			break
		}
		if len(obj.Object) > 0 {
			out = append(out, obj)
		}
	}
	return out
}

// batchCredentials is the credentials Secret a CR names, with every key the backends need.
// The values are fake: kwok runs no container that would read them.
func batchCredentials(namespace, name string) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: map[string]string{"e2e": "user-secret"}},
		StringData: map[string]string{
			"redis-url":            "redis://redis.example.invalid:6379/0",
			"postgresql-url":       "postgresql://user:e2e-not-a-real-password@postgres.example.invalid:5432/batch",
			"s3-secret-access-key": "e2e-not-a-real-key",
		},
	}
}

// prepareBatchNamespace creates a namespace with what a CR of the upstream samples needs: its
// credentials Secret and, for file storage on a PVC, a bound PVC (a hostPath PV nothing
// mounts: kwok's pods are not real).
func prepareBatchNamespace(ctx context.Context, namespace string, cr *batchv1alpha1.LLMBatchGateway) {
	ensureRestrictedNamespace(ctx, namespace)
	secretNamespace := cr.Spec.SecretRef.Namespace
	if secretNamespace == "" {
		secretNamespace = namespace
	}
	ensureObject(ctx, batchCredentials(secretNamespace, cr.Spec.SecretRef.Name))
	if fs := cr.Spec.FileStorage.FS; fs != nil {
		ensureBoundPVC(ctx, namespace, fs.ClaimName)
	}
}

// ensureRestrictedNamespace creates a namespace that enforces the restricted Pod Security
// profile, unless it exists.
func ensureRestrictedNamespace(ctx context.Context, namespace string) {
	_, err := fw.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace,
		Labels: map[string]string{"pod-security.kubernetes.io/enforce": "restricted"}}}, metav1.CreateOptions{})
	if !apierrors.IsAlreadyExists(err) {
		Expect(err).NotTo(HaveOccurred(), "create namespace %s", namespace)
	}
}

// ensureObject creates a built-in object unless it exists.
func ensureObject(ctx context.Context, obj *corev1.Secret) {
	_, err := fw.kube.CoreV1().Secrets(obj.Namespace).Create(ctx, obj, metav1.CreateOptions{})
	if !apierrors.IsAlreadyExists(err) {
		Expect(err).NotTo(HaveOccurred(), "create Secret %s/%s", obj.Namespace, obj.Name)
	}
}

// ensureBoundPVC creates a PVC and a PV reserved for it, and waits until they are bound.
func ensureBoundPVC(ctx context.Context, namespace, name string) {
	pvName := namespace + "-" + name
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: pvName, Labels: map[string]string{"e2e": "batch-gateway"}},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimDelete,
			PersistentVolumeSource:        corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/nonexistent/e2e/" + pvName}},
			ClaimRef:                      &corev1.ObjectReference{Namespace: namespace, Name: name},
			StorageClassName:              "",
		},
	}
	if _, err := fw.kube.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{}); !apierrors.IsAlreadyExists(err) {
		Expect(err).NotTo(HaveOccurred(), "create PV %s", pvName)
	}
	storageClass := ""
	pvc := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
			StorageClassName: &storageClass,
			VolumeName:       pvName,
		},
	}
	if _, err := fw.kube.CoreV1().PersistentVolumeClaims(namespace).Create(ctx, pvc, metav1.CreateOptions{}); !apierrors.IsAlreadyExists(err) {
		Expect(err).NotTo(HaveOccurred(), "create PVC %s/%s", namespace, name)
	}
	Eventually(ctx, func(g Gomega) {
		got, err := fw.kube.CoreV1().PersistentVolumeClaims(namespace).Get(ctx, name, metav1.GetOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(got.Status.Phase).To(Equal(corev1.ClaimBound))
	}).WithTimeout(time.Minute).WithPolling(poll).Should(Succeed(), "PVC %s/%s bound", namespace, name)
}

func batchClient(namespace string) batchCRClient {
	return batchCRClient{namespace}
}

type batchCRClient struct{ namespace string }

func (c batchCRClient) get(ctx context.Context, name string) (*batchv1alpha1.LLMBatchGateway, error) {
	return fw.operator.BatchV1alpha1().LLMBatchGateways(c.namespace).Get(ctx, name, metav1.GetOptions{})
}

func (c batchCRClient) create(ctx context.Context, cr *batchv1alpha1.LLMBatchGateway) *batchv1alpha1.LLMBatchGateway {
	created, err := fw.operator.BatchV1alpha1().LLMBatchGateways(c.namespace).Create(ctx, cr, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred(), "create LLMBatchGateway %s/%s", c.namespace, cr.Name)
	return created
}

// update changes a CR's spec, retrying on conflicts (the operator writes its status).
func (c batchCRClient) update(ctx context.Context, name string, change func(*batchv1alpha1.LLMBatchGateway)) *batchv1alpha1.LLMBatchGateway {
	var updated *batchv1alpha1.LLMBatchGateway
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cr, err := c.get(ctx, name)
		if err != nil {
			return err
		}
		change(cr)
		updated, err = fw.operator.BatchV1alpha1().LLMBatchGateways(c.namespace).Update(ctx, cr, metav1.UpdateOptions{})
		return err
	})
	Expect(err).NotTo(HaveOccurred(), "update LLMBatchGateway %s/%s", c.namespace, name)
	return updated
}

// batchConditions is a one-line view of a CR's conditions, for failure messages.
func batchConditions(cr *batchv1alpha1.LLMBatchGateway) string {
	var parts []string
	for _, c := range cr.Status.Conditions {
		parts = append(parts, fmt.Sprintf("%s=%s(%s: %s)", c.Type, c.Status, c.Reason, c.Message))
	}
	sort.Strings(parts)
	return fmt.Sprintf("%s/%s generation %d, observedGeneration %d: %s", cr.Namespace, cr.Name, cr.Generation, cr.Status.ObservedGeneration, strings.Join(parts, "; "))
}

// waitBatchCondition waits until a CR's condition has the status and reason (any reason when
// empty), for its latest generation, and returns the CR.
func waitBatchCondition(ctx context.Context, namespace, name, condType string, status metav1.ConditionStatus, reason string) *batchv1alpha1.LLMBatchGateway {
	By(fmt.Sprintf("waiting for LLMBatchGateway %s/%s %s=%s %s", namespace, name, condType, status, reason))
	var last *batchv1alpha1.LLMBatchGateway
	Eventually(ctx, func(g Gomega) {
		cr, err := batchClient(namespace).get(ctx, name)
		g.Expect(err).NotTo(HaveOccurred())
		last = cr
		g.Expect(cr.Status.ObservedGeneration).To(Equal(cr.Generation), batchConditions(cr))
		c := meta.FindStatusCondition(cr.Status.Conditions, condType)
		g.Expect(c).NotTo(BeNil(), batchConditions(cr))
		g.Expect(c.Status).To(Equal(status), batchConditions(cr))
		if reason != "" {
			g.Expect(c.Reason).To(Equal(reason), batchConditions(cr))
		}
	}).WithTimeout(batchReadyTimeout).WithPolling(poll).Should(Succeed())
	return last
}

// waitBatchReady waits until every component of a CR is available and Ready is True.
func waitBatchReady(ctx context.Context, namespace, name string) *batchv1alpha1.LLMBatchGateway {
	cr := waitBatchCondition(ctx, namespace, name, batchv1alpha1.ConditionReady, metav1.ConditionTrue, batchv1alpha1.ReasonAllComponentsReady)
	for _, condType := range componentConditions(cr) {
		c := meta.FindStatusCondition(cr.Status.Conditions, condType)
		Expect(c).NotTo(BeNil(), batchConditions(cr))
		Expect(c.Status).To(Equal(metav1.ConditionTrue), batchConditions(cr))
	}
	return cr
}

// componentConditions are the component conditions a CR must have.
func componentConditions(cr *batchv1alpha1.LLMBatchGateway) []string {
	out := []string{batchv1alpha1.ConditionAPIServerAvailable, batchv1alpha1.ConditionProcessorAvailable, batchv1alpha1.ConditionGCAvailable}
	if cr.Spec.Processor.DispatchMode == batchv1alpha1.DispatchModeAsync {
		out = append(out, batchv1alpha1.ConditionAsyncProcessorAvailable)
	}
	return out
}

// batchDeployments are the names of a CR's Deployments.
func batchDeployments(cr *batchv1alpha1.LLMBatchGateway) []string {
	n := batchgateway.NamesFor(cr.Name)
	out := []string{n.APIServer, n.Processor, n.GC}
	if cr.Spec.Processor.DispatchMode == batchv1alpha1.DispatchModeAsync {
		out = append(out, n.AsyncProcessor)
	}
	return out
}

func getBatchDeployment(ctx context.Context, namespace, name string) *appsv1.Deployment {
	d, err := fw.kube.AppsV1().Deployments(namespace).Get(ctx, name, metav1.GetOptions{})
	Expect(err).NotTo(HaveOccurred(), "Deployment %s/%s", namespace, name)
	return d
}

// podTemplateHashes are a Deployment's configuration hash annotations.
func podTemplateHashes(d *appsv1.Deployment) map[string]string {
	out := map[string]string{}
	for k, v := range d.Spec.Template.Annotations {
		if strings.HasPrefix(k, engine.ConfigHashAnnotationPrefix) {
			out[k] = v
		}
	}
	return out
}

// ownedObjects lists the objects in a namespace, of the operand's built-in kinds, that a CR
// controls (its UID in a controller owner reference).
func ownedObjects(ctx context.Context, namespace string, owner *batchv1alpha1.LLMBatchGateway) []string {
	return controlledObjects(ctx, namespace, owner.UID, gvrDeployments, gvrConfigMaps, gvrServices, gvrServiceAccounts, gvrSecrets)
}

// controlledObjects lists the objects ("Kind name") of the given resources in a namespace whose
// controller owner reference names owner.
func controlledObjects(ctx context.Context, namespace string, owner types.UID, gvrs ...schema.GroupVersionResource) []string {
	var out []string
	for _, gvr := range gvrs {
		list, err := fw.dynamic.Resource(gvr).Namespace(namespace).List(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred(), "list %s in %s", gvr.Resource, namespace)
		for i := range list.Items {
			if ref := metav1.GetControllerOfNoCopy(&list.Items[i]); ref != nil && ref.UID == owner {
				out = append(out, list.Items[i].GetKind()+" "+list.Items[i].GetName())
			}
		}
	}
	sort.Strings(out)
	return out
}

// objectVersions maps each object ("Kind name") of the operand's kinds in a namespace to what
// changes when someone writes it: its resourceVersion, or for a Deployment, whose status the
// controller manager keeps writing, its generation and metadata (a write of the operator's
// changes one of them). The UID tells a re-created object apart.
func objectVersions(ctx context.Context, namespace string) map[string]string {
	out := map[string]string{}
	for _, gvr := range []schema.GroupVersionResource{gvrDeployments, gvrConfigMaps, gvrServices, gvrServiceAccounts, gvrSecrets} {
		list, err := fw.dynamic.Resource(gvr).Namespace(namespace).List(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		for _, item := range list.Items {
			version := item.GetResourceVersion()
			if item.GetKind() == "Deployment" {
				version = fmt.Sprintf("generation %d, labels %v, annotations %v", item.GetGeneration(), item.GetLabels(), item.GetAnnotations())
			}
			out[item.GetKind()+" "+item.GetName()] = version + " uid " + string(item.GetUID())
		}
	}
	return out
}

// deleteBatchNamespaces deletes every namespace the batch specs created, and their PVs, and
// waits until they are gone.
func deleteBatchNamespaces(ctx context.Context) {
	deleting := deleteNamespacesWithPrefix(ctx, batchNamespacePrefix)
	Expect(fw.kube.CoreV1().PersistentVolumes().DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: "e2e=batch-gateway"})).To(Succeed())
	waitNamespacesGone(ctx, deleting)
}

// deleteNamespacesWithPrefix starts deleting every namespace whose name starts with prefix and
// returns their names.
func deleteNamespacesWithPrefix(ctx context.Context, prefix string) []string {
	namespaces, err := fw.kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	Expect(err).NotTo(HaveOccurred())
	var deleting []string
	for _, ns := range namespaces.Items {
		if strings.HasPrefix(ns.Name, prefix) {
			if err := fw.kube.CoreV1().Namespaces().Delete(ctx, ns.Name, metav1.DeleteOptions{}); !apierrors.IsNotFound(err) {
				Expect(err).NotTo(HaveOccurred(), "delete namespace %s", ns.Name)
			}
			deleting = append(deleting, ns.Name)
		}
	}
	return deleting
}

// waitNamespacesGone waits until the namespaces are gone.
func waitNamespacesGone(ctx context.Context, names []string) {
	Eventually(ctx, func(g Gomega) {
		for _, name := range names {
			_, err := fw.kube.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
			g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "namespace %s still there", name)
		}
	}).WithTimeout(objectGoneAfter).WithPolling(time.Second).Should(Succeed())
}
