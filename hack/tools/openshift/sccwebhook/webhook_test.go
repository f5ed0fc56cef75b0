package sccwebhook

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	securityv1 "github.com/openshift/api/security/v1"
	"github.com/openshift/apiserver-library-go/pkg/securitycontextconstraints/sccadmission"
	securityfake "github.com/openshift/client-go/security/clientset/versioned/fake"
	securityinformers "github.com/openshift/client-go/security/informers/externalversions"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/client-go/informers"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"

	"github.com/llm-infra/llm-infra-operator/hack/tools/openshift/manifests"
)

// fakeSCCAuthorizer stands in for the API server's RBAC: the groups that may use each SCC, as
// OpenShift's ClusterRoleBindings grant them (system:authenticated may use restricted-v2).
type fakeSCCAuthorizer map[string][]string

func (f fakeSCCAuthorizer) Authorize(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	if a.GetVerb() != "use" || a.GetResource() != "securitycontextconstraints" {
		return authorizer.DecisionNoOpinion, "", nil
	}
	for _, g := range a.GetUser().GetGroups() {
		for _, allowed := range f[a.GetName()] {
			if g == allowed {
				return authorizer.DecisionAllow, "", nil
			}
		}
	}
	return authorizer.DecisionNoOpinion, "", nil
}

// newHandler is the real plugin on fake clientsets holding OpenShift's default SCCs (as
// manifests.Objects installs them) and one namespace annotated as nsalloc annotates it.
func newHandler(t *testing.T) *Handler {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	objs, err := manifests.Objects()
	if err != nil {
		t.Fatal(err)
	}
	// Created one by one: the objects handed to this fake's constructor are not listed.
	security := securityfake.NewSimpleClientset()
	for _, obj := range objs {
		if obj.GetKind() != "SecurityContextConstraints" {
			continue
		}
		scc := &securityv1.SecurityContextConstraints{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, scc); err != nil {
			t.Fatal(err)
		}
		if _, err := security.SecurityV1().SecurityContextConstraints().Create(ctx, scc, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	kube := kubefake.NewClientset(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team", Annotations: map[string]string{
		securityv1.UIDRangeAnnotation:           "1000010000/10000",
		securityv1.SupplementalGroupsAnnotation: "1000010000/10000",
		securityv1.MCSAnnotation:                "s0:c3,c2",
	}}})
	kubeInformers := informers.NewSharedInformerFactory(kube, 0)
	securityInformers := securityinformers.NewSharedInformerFactory(security, 0)
	plugin := sccadmission.NewConstraint()
	sccadmission.NewInitializer(securityInformers.Security().V1().SecurityContextConstraints()).Initialize(plugin)
	plugin.SetExternalKubeInformerFactory(kubeInformers)
	plugin.SetAuthorizer(fakeSCCAuthorizer{"restricted-v2": {"system:authenticated"}})
	if err := plugin.ValidateInitialization(); err != nil {
		t.Fatal(err)
	}
	kubeInformers.Start(ctx.Done())
	securityInformers.Start(ctx.Done())
	kubeInformers.WaitForCacheSync(ctx.Done())
	securityInformers.WaitForCacheSync(ctx.Done())
	return &Handler{Plugin: plugin}
}

func pod(mutate func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "team"},
		Spec: corev1.PodSpec{
			ServiceAccountName: "default",
			Containers:         []corev1.Container{{Name: "c", Image: "registry.example/app:1"}},
		},
	}
	if mutate != nil {
		mutate(p)
	}
	return p
}

func TestReview(t *testing.T) {
	h := newHandler(t)
	developer := authenticationv1.UserInfo{Username: "alice", Groups: []string{"system:authenticated"}}
	admin := authenticationv1.UserInfo{Username: "root", Groups: []string{"system:masters", "system:authenticated"}}
	for _, tc := range []struct {
		name    string
		user    authenticationv1.UserInfo
		pod     *corev1.Pod
		scc     string // the admitted pod's openshift.io/scc, or
		denied  string // part of the denial's message
		checkFn func(t *testing.T, p *corev1.Pod)
	}{
		{
			name: "no runAsUser: restricted-v2 sets the namespace's first UID, its level, drops capabilities",
			user: developer, pod: pod(nil), scc: "restricted-v2",
			checkFn: func(t *testing.T, p *corev1.Pod) {
				sc := p.Spec.Containers[0].SecurityContext
				if sc == nil || sc.RunAsUser == nil || *sc.RunAsUser != 1000010000 {
					t.Errorf("runAsUser: got %+v, want 1000010000", sc)
				}
				if sc == nil || sc.Capabilities == nil || len(sc.Capabilities.Drop) != 1 || sc.Capabilities.Drop[0] != "ALL" {
					t.Errorf("capabilities: got %+v, want drop ALL", sc)
				}
				ps := p.Spec.SecurityContext
				if ps == nil || ps.SELinuxOptions == nil || ps.SELinuxOptions.Level != "s0:c3,c2" || ps.FSGroup == nil || *ps.FSGroup != 1000010000 {
					t.Errorf("pod security context: got %+v", ps)
				}
			},
		},
		{
			name: "runAsUser outside the namespace's range",
			user: developer, pod: pod(func(p *corev1.Pod) {
				p.Spec.SecurityContext = &corev1.PodSecurityContext{RunAsUser: ptr.To[int64](65532)}
			}),
			denied: "unable to validate against any security context constraint",
		},
		{
			name: "hostNetwork",
			user: developer, pod: pod(func(p *corev1.Pod) { p.Spec.HostNetwork = true }),
			denied: "Host network is not allowed to be used",
		},
		{
			// privileged names system:masters among its groups (the fake authorizer allows no more).
			name: "a member of system:masters: privileged admits runAsUser 65532",
			user: admin, pod: pod(func(p *corev1.Pod) {
				p.Spec.SecurityContext = &corev1.PodSecurityContext{RunAsUser: ptr.To[int64](65532)}
			}),
			scc: "privileged",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw, err := json.Marshal(tc.pod)
			if err != nil {
				t.Fatal(err)
			}
			resp := h.Review(context.Background(), &admissionv1.AdmissionRequest{
				UID: "1", Resource: metav1.GroupVersionResource{Version: "v1", Resource: "pods"},
				Namespace: "team", Name: "p", Operation: admissionv1.Create, UserInfo: tc.user,
				Object: runtime.RawExtension{Raw: raw},
			})
			if tc.denied != "" {
				if resp.Allowed || resp.Result == nil || !strings.Contains(resp.Result.Message, tc.denied) || resp.Result.Code != 403 {
					t.Fatalf("want denied with %q, got allowed=%v result=%+v", tc.denied, resp.Allowed, resp.Result)
				}
				return
			}
			if !resp.Allowed {
				t.Fatalf("denied: %+v", resp.Result)
			}
			patch, err := jsonpatch.DecodePatch(resp.Patch)
			if err != nil {
				t.Fatal(err)
			}
			patched, err := patch.Apply(raw)
			if err != nil {
				t.Fatal(err)
			}
			got := &corev1.Pod{}
			if err := json.Unmarshal(patched, got); err != nil {
				t.Fatal(err)
			}
			if s := got.Annotations[securityv1.ValidatedSCCAnnotation]; s != tc.scc {
				t.Errorf("openshift.io/scc = %q, want %q (patch %s)", s, tc.scc, resp.Patch)
			}
			if resp.AuditAnnotations["reason"] == "" {
				t.Errorf("no audit annotation reason: %v", resp.AuditAnnotations)
			}
			if tc.checkFn != nil {
				tc.checkFn(t, got)
			}
		})
	}
}
