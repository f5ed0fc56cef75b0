// Package live checks, against a local cluster started with OPENSHIFT=true (make
// test-openshift-cluster), that pods are admitted as on OpenShift. Skipped unless
// OPENSHIFT_LIVE_KUBECONFIG names the cluster's admin kubeconfig.
package live

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	securityv1 "github.com/openshift/api/security/v1"
	"github.com/openshift/library-go/pkg/security/uid"
	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	watchtools "k8s.io/client-go/tools/watch"
	"k8s.io/utils/ptr"
)

const developer = "scc-live-developer"

func TestSCCAdmission(t *testing.T) {
	kubeconfig := os.Getenv("OPENSHIFT_LIVE_KUBECONFIG")
	if kubeconfig == "" {
		t.Skip("OPENSHIFT_LIVE_KUBECONFIG is not set (make test-openshift-cluster sets it)")
	}
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	admin := kubernetes.NewForConfigOrDie(config)
	// A user who may create pods in the namespace (the edit role) and, being authenticated, use
	// restricted-v2 only: the admin, in system:masters, may use every SCC.
	devConfig := rest.CopyConfig(config)
	devConfig.Impersonate = rest.ImpersonationConfig{UserName: developer, Groups: []string{"system:authenticated"}}
	dev := kubernetes.NewForConfigOrDie(devConfig)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	ns, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "scc-live-"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = admin.CoreV1().Namespaces().Delete(context.Background(), ns.Name, metav1.DeleteOptions{})
	})

	// 1. The namespace gets its three annotations.
	annotated, err := until(ctx, admin.CoreV1().Namespaces(), ns.Name, &corev1.Namespace{}, func(obj runtime.Object) bool {
		a := obj.(*corev1.Namespace).Annotations
		return a[securityv1.UIDRangeAnnotation] != "" && a[securityv1.SupplementalGroupsAnnotation] != "" && a[securityv1.MCSAnnotation] != ""
	})
	if err != nil {
		t.Fatalf("namespace %s not annotated: %v", ns.Name, err)
	}
	a := annotated.(*corev1.Namespace).Annotations
	t.Logf("namespace %s: %s=%s %s=%s %s=%s", ns.Name,
		securityv1.UIDRangeAnnotation, a[securityv1.UIDRangeAnnotation],
		securityv1.SupplementalGroupsAnnotation, a[securityv1.SupplementalGroupsAnnotation],
		securityv1.MCSAnnotation, a[securityv1.MCSAnnotation])
	block, err := uid.ParseBlock(a[securityv1.UIDRangeAnnotation])
	if err != nil {
		t.Fatal(err)
	}

	// 2. A Deployment's pod with no runAsUser: restricted-v2, the namespace's first UID.
	labels := map[string]string{"app": "scc-live"}
	_, err = admin.AppsV1().Deployments(ns.Name).Create(ctx, &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "scc-live"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.invalid/app:1"}}},
			},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var pod *corev1.Pod
	_, err = watchtools.UntilWithSync(ctx, &cache.ListWatch{
		ListFunc: func(o metav1.ListOptions) (runtime.Object, error) {
			o.LabelSelector = "app=scc-live"
			return admin.CoreV1().Pods(ns.Name).List(ctx, o)
		},
		WatchFunc: func(o metav1.ListOptions) (watch.Interface, error) {
			o.LabelSelector = "app=scc-live"
			return admin.CoreV1().Pods(ns.Name).Watch(ctx, o)
		},
	}, &corev1.Pod{}, nil, func(e watch.Event) (bool, error) {
		if p, ok := e.Object.(*corev1.Pod); ok && e.Type != watch.Deleted {
			pod = p
			return true, nil
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("no pod of the Deployment: %v", err)
	}
	sc := pod.Spec.Containers[0].SecurityContext
	t.Logf("Deployment pod %s: %s=%s runAsUser=%v", pod.Name, securityv1.ValidatedSCCAnnotation, pod.Annotations[securityv1.ValidatedSCCAnnotation], runAsUser(sc))
	if got := pod.Annotations[securityv1.ValidatedSCCAnnotation]; got != "restricted-v2" {
		t.Errorf("the Deployment's pod got scc %q, want restricted-v2", got)
	}
	if sc == nil || sc.RunAsUser == nil || *sc.RunAsUser != int64(block.Start) {
		t.Errorf("the Deployment's pod runs as %v, want %d (first of %s)", runAsUser(sc), block.Start, block)
	}

	// 3 and 4: the developer's pods outside restricted-v2 are rejected with the plugin's message.
	if _, err := admin.RbacV1().RoleBindings(ns.Name).Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "developer-edit"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "edit"},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: developer}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The API server's authorizer sees the binding through its informer, a moment after the
	// create returns (CI once had the first pod refused by RBAC, not by SCC admission): ask as
	// the developer until it may create pods there.
	if err := untilAllowed(ctx, dev, ns.Name, "create", "pods"); err != nil {
		t.Fatalf("the developer's RoleBinding in %s: %v", ns.Name, err)
	}
	for _, tc := range []struct {
		name   string
		spec   func(*corev1.PodSpec)
		denied string
	}{
		{"run-as-65532", func(s *corev1.PodSpec) {
			s.SecurityContext = &corev1.PodSecurityContext{RunAsUser: ptr.To[int64](65532)}
		}, fmt.Sprintf("must be in the ranges: [%d, %d]", block.Start, block.End)},
		{"host-network", func(s *corev1.PodSpec) { s.HostNetwork = true }, "Host network is not allowed to be used"},
	} {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: tc.name}, Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "app", Image: "registry.invalid/app:1"}},
		}}
		tc.spec(&p.Spec)
		_, err := dev.CoreV1().Pods(ns.Name).Create(ctx, p, metav1.CreateOptions{})
		t.Logf("pod %s as %s: %v", tc.name, developer, err)
		if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "unable to validate against any security context constraint") || !strings.Contains(err.Error(), tc.denied) {
			t.Errorf("pod %s: want Forbidden by SCC admission with %q, got %v", tc.name, tc.denied, err)
		}
	}
}

// untilAllowed polls SelfSubjectAccessReviews as client's user until verb on resource in
// namespace is allowed (a review has no watch), for at most 30 seconds.
func untilAllowed(ctx context.Context, client kubernetes.Interface, namespace, verb, resource string) error {
	review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
		ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: namespace, Verb: verb, Resource: resource}}}
	return wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		got, err := client.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
		if err != nil {
			return false, err
		}
		return got.Status.Allowed, nil
	})
}

// until waits, with a watch, until the named object satisfies done.
func until[T any](ctx context.Context, client interface {
	List(context.Context, metav1.ListOptions) (T, error)
	Watch(context.Context, metav1.ListOptions) (watch.Interface, error)
}, name string, obj runtime.Object, done func(runtime.Object) bool) (runtime.Object, error) {
	selector := fields.OneTermEqualSelector("metadata.name", name).String()
	ev, err := watchtools.UntilWithSync(ctx, &cache.ListWatch{
		ListFunc: func(o metav1.ListOptions) (runtime.Object, error) {
			o.FieldSelector = selector
			list, err := client.List(ctx, o)
			return any(list).(runtime.Object), err
		},
		WatchFunc: func(o metav1.ListOptions) (watch.Interface, error) {
			o.FieldSelector = selector
			return client.Watch(ctx, o)
		},
	}, obj, nil, func(e watch.Event) (bool, error) { return e.Type != watch.Deleted && done(e.Object), nil })
	if err != nil {
		return nil, err
	}
	return ev.Object, nil
}

func runAsUser(sc *corev1.SecurityContext) any {
	if sc == nil || sc.RunAsUser == nil {
		return nil
	}
	return *sc.RunAsUser
}
