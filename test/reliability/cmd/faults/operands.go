package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	batchv1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/batch/v1alpha1"
	igwv1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/operands"
	"github.com/llm-infra/llm-infra-operator/test/internal/live"
)

var (
	// batchGVR is the kind the hostile-object scenario uses.
	batchGVR   = batchv1alpha1.GroupVersion.WithResource("llmbatchgateways")
	userLWSGVR = live.LeaderWorkerSets
	secretGVR  = schema.GroupVersionResource{Version: "v1", Resource: "secrets"}
	pvcGVR     = schema.GroupVersionResource{Version: "v1", Resource: "persistentvolumeclaims"}
)

// A CR of an operand: where it is and the manifest it is made from.
type crSpec struct {
	gvr       schema.GroupVersionResource
	namespace string
	manifest  string // relative to the repository
	// ready names the condition that must be True once it converged; readyStatus, when set,
	// is the status it must have instead (a converged state that is not True).
	ready, readyStatus string
}

// operand is one row of the operand table: how to create its CRs, how to tell it converged,
// and the objects of a clean run, measured by the suite itself (snapshots of the operator's
// objects: managed-by label, owner references, labels) after a convergence, a removal and a
// deletion without faults.
type operand struct {
	name string
	crs  []crSpec
	// removable: spec.managementState Removed removes the operand (LWS).
	removable bool
	// finalizer: deleting the CR runs the operator's cleanup before the CR goes (LWS); without
	// one, garbage collection removes the objects, and no kill point is spread over it.
	finalizer bool

	// The objects of clean runs (converged, Removed, the CR deleted), and the operator's writes
	// in each.
	applied, removed, absent           snapshot
	writes, removeWrites, deleteWrites int
}

// tableRows are the rows of the operand table, by operand package: the kinds of one package
// share a row (their CRs in one namespace, one clean run: an Orchestrator discovers the Agents
// of its namespace). A package without an entry is a row of its own, named after its first
// kind's operand, in the namespace rel-<operand>.
var tableRows = map[string]operand{
	"pkg/operator/operands/lws":                    {name: "lws", removable: true, finalizer: true},
	"pkg/operator/operands/batchgateway":           {name: "batch-gateway"},
	"pkg/operator/operands/inferencegateway":       {name: "inference-gateway"},
	"pkg/operator/operands/inferencegatewayagents": {name: "inference-gateway-agents"},
}

// rowNamespaces are where the namespaced CRs of a row go, by row name.
var rowNamespaces = map[string]string{"batch-gateway": "rel-batch", "inference-gateway": "rel-igw", "inference-gateway-agents": "rel-agents"}

// crOverrides are, by kind, a CR other than the kind's example (Registration.Example) or a
// convergence other than Available=True. A kind without an entry: its example, Available=True.
var crOverrides = map[string]crSpec{
	// A PVC-backed gateway: its credentials Secret and its PVC are the user's.
	"LLMBatchGateway": {manifest: "test/golden/batch-gateway/extra-minimal-sync-fs/cr.yaml", ready: batchv1alpha1.ConditionReady},
	"Gateway":         {manifest: "test/golden/inference-gateway/gateway-minimal/cr.yaml"},
	// (An Agent's Ready needs the agent's card, which no pod of the local cluster serves.)
	"Orchestrator": {ready: igwv1alpha1.ConditionReady},
	// No provider's key (no Secret runpod-credentials): the GPU converges to Failed,
	// ProviderUnavailable without a request to any provider, so nothing leaves the machine; with
	// no allocation its finalizer lets it go at once.
	"GPU": {ready: igwv1alpha1.ConditionReady, readyStatus: "False"},
}

// operandTable is one row per operand package of the registry, each with a CR of every kind
// the package registers: the registry's kinds are the table's.
func (s *suite) operandTable() []*operand {
	var all []*operand
	rows := map[string]*operand{}
	for _, r := range operands.All() {
		o := rows[r.OperandPackage]
		if o == nil {
			row, ok := tableRows[r.OperandPackage]
			if !ok {
				row = operand{name: r.Operand}
			}
			o = &row
			rows[r.OperandPackage] = o
			all = append(all, o)
		}
		cr := crOverrides[r.GVK.Kind]
		cr.gvr = r.GVR()
		if cr.manifest == "" {
			cr.manifest = "deploy/examples/" + r.Example
		}
		if cr.ready == "" {
			cr.ready = "Available"
		}
		if r.Namespaced {
			cr.namespace = rowNamespaces[o.name]
			if cr.namespace == "" {
				cr.namespace = "rel-" + o.name
			}
		}
		o.crs = append(o.crs, cr)
	}
	want := map[string]bool{}
	for _, n := range splitList(s.operandNames) {
		want[n] = true
	}
	var out []*operand
	for _, o := range all {
		if want[o.name] || want["all"] {
			out = append(out, o)
		}
	}
	return out
}

func splitList(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' })
}

// object reads a CR's manifest: its namespace set, the golden files' fixed uid dropped.
func (s *suite) object(c crSpec) (*unstructured.Unstructured, error) {
	raw, err := os.ReadFile(filepath.Join(s.root, c.manifest))
	if err != nil {
		return nil, err
	}
	obj := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(raw, &obj.Object); err != nil {
		return nil, fmt.Errorf("%s: %w", c.manifest, err)
	}
	unstructured.RemoveNestedField(obj.Object, "metadata", "uid")
	obj.SetNamespace(c.namespace)
	return obj, nil
}

func (s *suite) client(gvr schema.GroupVersionResource, namespace string) dynamic.ResourceInterface {
	if namespace == "" {
		return s.dyn.Resource(gvr)
	}
	return s.dyn.Resource(gvr).Namespace(namespace)
}

// create creates the operand's CRs.
func (s *suite) create(ctx context.Context, o *operand) error {
	for _, c := range o.crs {
		obj, err := s.object(c)
		if err != nil {
			return err
		}
		if _, err := s.client(c.gvr, c.namespace).Create(ctx, obj, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create %s %s: %w", obj.GetKind(), obj.GetName(), err)
		}
	}
	return nil
}

// remove deletes the operand's CRs.
func (s *suite) remove(ctx context.Context, o *operand) error {
	for _, c := range o.crs {
		obj, err := s.object(c)
		if err != nil {
			return err
		}
		err = s.client(c.gvr, c.namespace).Delete(ctx, obj.GetName(), metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return nil
}

// setManagementState patches the LWS CR's spec.managementState.
func (s *suite) setManagementState(ctx context.Context, o *operand, state string) error {
	c := o.crs[0]
	obj, err := s.object(c)
	if err != nil {
		return err
	}
	patch := fmt.Sprintf(`{"spec":{"managementState":%q}}`, state)
	_, err = s.client(c.gvr, c.namespace).Patch(ctx, obj.GetName(), types.MergePatchType, []byte(patch), metav1.PatchOptions{})
	return err
}

// ready: every CR exists with its ready condition True.
func (s *suite) ready(o *operand) func(context.Context) (bool, error) {
	return func(ctx context.Context) (bool, error) {
		for _, c := range o.crs {
			obj, err := s.object(c)
			if err != nil {
				return false, err
			}
			cur, err := s.client(c.gvr, c.namespace).Get(ctx, obj.GetName(), metav1.GetOptions{})
			if err != nil {
				return false, nil
			}
			want := c.readyStatus
			if want == "" {
				want = "True"
			}
			if st, _, _ := condition(cur, c.ready); st != want {
				return false, nil
			}
		}
		return true, nil
	}
}

// conditions says, for a failure's message, what the CRs of every operand say of their ready
// condition: "not ready yet" alone left a CI failure without a cause.
func (s *suite) conditions(ctx context.Context) string {
	var out []string
	for _, o := range s.operands {
		for _, c := range o.crs {
			obj, err := s.object(c)
			if err != nil {
				continue
			}
			id := obj.GetKind() + " " + obj.GetName()
			if c.namespace != "" {
				id = obj.GetKind() + " " + c.namespace + "/" + obj.GetName()
			}
			cur, err := s.client(c.gvr, c.namespace).Get(ctx, obj.GetName(), metav1.GetOptions{})
			if err != nil {
				out = append(out, id+": "+err.Error())
				continue
			}
			st, reason, message := condition(cur, c.ready)
			out = append(out, fmt.Sprintf("%s: %s=%s (%s: %s)", id, c.ready, st, reason, message))
		}
	}
	return strings.Join(out, "; ")
}

// removedReady: the LWS CR says Available=False, reason Removed.
func (s *suite) removedReady(o *operand) func(context.Context) (bool, error) {
	return func(ctx context.Context) (bool, error) {
		c := o.crs[0]
		cur, err := s.client(c.gvr, c.namespace).Get(ctx, "cluster", metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		st, reason, _ := condition(cur, "Available")
		return st == "False" && reason == "Removed", nil
	}
}

// gone: none of the operand's CRs exists any more (a finalizer left behind shows here).
func (s *suite) gone(o *operand) func(context.Context) (bool, error) {
	return func(ctx context.Context) (bool, error) {
		for _, c := range o.crs {
			obj, err := s.object(c)
			if err != nil {
				return false, err
			}
			_, err = s.client(c.gvr, c.namespace).Get(ctx, obj.GetName(), metav1.GetOptions{})
			if err == nil {
				return false, nil
			}
			if !apierrors.IsNotFound(err) {
				return false, err
			}
		}
		return true, nil
	}
}

// --- users' data ---

// userObject is an object of the user's, which the operator must never delete: found again
// with the same UID.
type userObject struct {
	gvr             schema.GroupVersionResource
	namespace, name string
	uid             types.UID
}

func (u userObject) String() string { return resourceKey(u.gvr) + " " + u.namespace + "/" + u.name }

// seed is a distinctive value for a seeded Secret key: the secrets check greps for it.
func (s *suite) seed(key string) []byte {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	v := "relsecret-" + key + "-" + hex.EncodeToString(b)
	s.secrets = append(s.secrets, v)
	return []byte(v)
}

// createUserData makes the namespaces of the operands' CRs and what their CRs reference: the
// batch gateway's credentials Secret and PVC, the inference gateway's provider Secret, every
// Secret value seeded.
func (s *suite) createUserData(ctx context.Context) error {
	for _, ns := range []string{"rel-users", "rel-batch", "rel-igw", "rel-agents", "rel-hostile"} {
		_, err := s.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	secrets := []*corev1.Secret{
		{ObjectMeta: metav1.ObjectMeta{Name: "batch-gateway-secrets", Namespace: "rel-batch"}, Data: map[string][]byte{
			"redis-url": s.seed("redis-url"), "postgresql-url": s.seed("postgresql-url"), "s3-secret-access-key": s.seed("s3"),
		}},
		{ObjectMeta: metav1.ObjectMeta{Name: "batch-gateway-secrets", Namespace: "rel-hostile"}, Data: map[string][]byte{
			"redis-url": s.seed("redis-url"), "postgresql-url": s.seed("postgresql-url"), "s3-secret-access-key": s.seed("s3"),
		}},
		{ObjectMeta: metav1.ObjectMeta{Name: "openai-secret", Namespace: "rel-igw"}, Data: map[string][]byte{"api_key": s.seed("api-key")}},
		{ObjectMeta: metav1.ObjectMeta{Name: "inference-gateway-providers-secret", Namespace: "rel-agents"}, Data: map[string][]byte{"OPENAI_API_KEY": s.seed("agent-api-key")}},
		{ObjectMeta: metav1.ObjectMeta{Name: "telegram-bot-credentials", Namespace: "rel-agents"}, Data: map[string][]byte{
			"token": s.seed("telegram-token"), "allowedUsers": s.seed("telegram-users")}},
	}
	for _, sec := range secrets {
		created, err := s.kube.CoreV1().Secrets(sec.Namespace).Create(ctx, sec, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		s.users = append(s.users, userObject{gvr: secretGVR, namespace: sec.Namespace, name: sec.Name, uid: created.UID})
	}
	noClass := ""
	for _, ns := range []string{"rel-batch", "rel-hostile"} {
		pvc := &corev1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{Name: "batch-gateway-files", Namespace: ns},
			Spec: corev1.PersistentVolumeClaimSpec{
				AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
				StorageClassName: &noClass,
				Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
			},
		}
		// The cluster has no provisioner: a volume bound to the claim beforehand, so the pods
		// that mount it are scheduled (kwok runs them; nothing is mounted).
		pv := &corev1.PersistentVolume{
			ObjectMeta: metav1.ObjectMeta{Name: "rel-" + ns + "-files"},
			Spec: corev1.PersistentVolumeSpec{
				AccessModes:            pvc.Spec.AccessModes,
				Capacity:               corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
				ClaimRef:               &corev1.ObjectReference{Namespace: ns, Name: pvc.Name},
				PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/tmp/" + ns}},
			},
		}
		if _, err := s.kube.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
		created, err := s.kube.CoreV1().PersistentVolumeClaims(ns).Create(ctx, pvc, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		s.users = append(s.users, userObject{gvr: pvcGVR, namespace: ns, name: pvc.Name, uid: created.UID})
	}
	return nil
}

// createUserLWS creates the user's LeaderWorkerSet. The LWS operand must be Removed: no
// webhook of its controller (which runs no container here) is called; the API server's
// webhook configuration cache may trail their deletion by a moment.
func (s *suite) createUserLWS(ctx context.Context) error {
	obj := live.PauseLeaderWorkerSet("rel-users", "user-lws", 1)
	var created *unstructured.Unstructured
	var lastErr error
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		created, lastErr = s.dyn.Resource(userLWSGVR).Namespace("rel-users").Create(ctx, obj, metav1.CreateOptions{})
		if lastErr == nil {
			s.users = append(s.users, userObject{gvr: userLWSGVR, namespace: "rel-users", name: "user-lws", uid: created.GetUID()})
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
	return fmt.Errorf("create the user's LeaderWorkerSet: %w", lastErr)
}

// checkUsers counts the user's objects still there (same UID, not being deleted); a loss is a
// failure, recorded once per object.
func (s *suite) checkUsers(ctx context.Context, when string) {
	lost := 0
	for _, u := range s.users {
		obj, err := s.client(u.gvr, u.namespace).Get(ctx, u.name, metav1.GetOptions{})
		if err != nil || obj.GetUID() != u.uid || obj.GetDeletionTimestamp() != nil {
			lost++
			s.res.Fail("user object %s lost %s", u, when)
		}
	}
	if lost > s.lost {
		s.lost = lost
	}
}
