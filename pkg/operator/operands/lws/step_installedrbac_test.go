package lws

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	operatorv1 "github.com/openshift/api/operator/v1"

	"github.com/llm-infra/llm-infra-operator/bindata"
	lwsoperatorv1 "github.com/llm-infra/llm-infra-operator/pkg/apis/operator/v1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// TestReleaseInstalledRBAC (fake clients): the controller's ServiceAccount and RBAC as a release
// before issue 33 left them, owned by the CR, lose that owner reference and nothing else, on the
// way in (Managed) and on the way out (Removed: a CR deleted right after the upgrade); objects
// without it are not written; a missing one is not made.
func TestReleaseInstalledRBAC(t *testing.T) {
	crRef := metav1.OwnerReference{APIVersion: lwsoperatorv1.GroupVersion.String(), Kind: "LeaderWorkerSetOperator", Name: "cluster", UID: "cr-uid"}
	otherRef := metav1.OwnerReference{APIVersion: "operators.coreos.com/v1alpha1", Kind: "ClusterServiceVersion", Name: "csv", UID: "csv-uid"}
	rules := []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get"}}}
	for _, tc := range []struct {
		name  string
		state operatorv1.ManagementState
	}{
		{"Managed", operatorv1.Managed},
		{"Removed", operatorv1.Removed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "lws-manager-role", OwnerReferences: []metav1.OwnerReference{crRef, otherRef}}, Rules: rules}
			binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "lws-manager-rolebinding", ResourceVersion: "7"},
				RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "lws-manager-role"}}
			sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: deploymentName, Namespace: testNamespace, OwnerReferences: []metav1.OwnerReference{crRef}}}
			env := newFakeEnv(t, fullyInstalled(withObjects([]runtime.Object{role, binding, sa}...), withState(tc.state))...)
			if err := env.sync(); err != nil {
				t.Fatal(err)
			}
			// Read through the dynamic fake, which wrote them: the typed fake cannot read what it stored.
			gotRole := &rbacv1.ClusterRole{}
			get(t, env, rbacv1.SchemeGroupVersion.WithResource("clusterroles"), "", role.Name, gotRole)
			if !apiequality.Semantic.DeepEqual(gotRole.OwnerReferences, []metav1.OwnerReference{otherRef}) || !apiequality.Semantic.DeepEqual(gotRole.Rules, rules) {
				t.Errorf("ClusterRole: owner references %v, rules %v; want only the CSV's, and the rules unchanged", gotRole.OwnerReferences, gotRole.Rules)
			}
			gotSA := &corev1.ServiceAccount{}
			get(t, env, corev1.SchemeGroupVersion.WithResource("serviceaccounts"), testNamespace, sa.Name, gotSA)
			if len(gotSA.OwnerReferences) != 0 {
				t.Errorf("ServiceAccount keeps owner references %v", gotSA.OwnerReferences)
			}
			gotBinding := &rbacv1.ClusterRoleBinding{}
			get(t, env, rbacv1.SchemeGroupVersion.WithResource("clusterrolebindings"), "", binding.Name, gotBinding)
			if gotBinding.ResourceVersion != "7" {
				t.Errorf("a binding without the owner reference was written: resourceVersion %s", gotBinding.ResourceVersion)
			}
			if _, err := env.kube.RbacV1().Roles(testNamespace).Get(env.ctx, "lws-leader-election-role", metav1.GetOptions{}); err == nil {
				t.Error("a missing installed Role was made by the operator")
			}
			if !slices.ContainsFunc(env.recorder.Events(), func(e *corev1.Event) bool { return e.Reason == "InstalledObjectReleased" }) {
				t.Error("no InstalledObjectReleased event")
			}
		})
	}
}

// get reads an object through the fake dynamic client into out.
func get(t *testing.T, env *fakeEnv, gvr schema.GroupVersionResource, namespace, name string, out runtime.Object) {
	t.Helper()
	u, err := env.dynamic.Resource(gvr).Namespace(namespace).Get(env.ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, out); err != nil {
		t.Fatal(err)
	}
}

// TestMissingServiceAccountIsDegradedAndRecovers (fake clients): without the controller's
// installed ServiceAccount the sync stops before the Deployment (its pods could not be created)
// with a condition that says what to apply, and carries on once it is installed.
func TestMissingServiceAccountIsDegradedAndRecovers(t *testing.T) {
	env := newFakeEnv(t, fullyInstalled(func(s *envSetup) { s.withoutInstalledServiceAccount = true })...)
	if err := env.sync(); err != nil {
		t.Fatalf("a missing ServiceAccount is reported in status, not retried as an error: %v", err)
	}
	env.expectCondition(operatorv1.OperatorStatusTypeDegraded, operatorv1.ConditionTrue, lwsoperatorv1.ReasonOperandServiceAccountMissing)
	if msg := env.condition(operatorv1.OperatorStatusTypeDegraded).Message; !strings.Contains(msg, "deploy/14_lws-operand-rbac.yaml") {
		t.Errorf("the message should say what to apply: %q", msg)
	}
	if env.exists(bindata.LWSDeployment) {
		t.Error("the Deployment must wait for its ServiceAccount")
	}

	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: deploymentName, Namespace: testNamespace}}
	if _, err := env.kube.CoreV1().ServiceAccounts(testNamespace).Create(env.ctx, sa, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.waitFor("the installed ServiceAccount in the cache", func() bool {
		_, err := env.caches.Get(engine.ServiceAccounts, testNamespace, deploymentName)
		return err == nil
	})
	if err := env.sync(); err != nil {
		t.Fatal(err)
	}
	env.expectCondition(operatorv1.OperatorStatusTypeDegraded, operatorv1.ConditionFalse, "AsExpected")
	if !env.exists(bindata.LWSDeployment) {
		t.Error("the Deployment is not applied once the ServiceAccount is installed")
	}
}
