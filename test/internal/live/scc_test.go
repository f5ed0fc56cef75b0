package live

import (
	"context"
	"strings"
	"testing"

	securityv1 "github.com/openshift/api/security/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"
)

// TestSCCProblems (fake clientset): what the suites' SCC check finds in a namespace.
func TestSCCProblems(t *testing.T) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "llm", Annotations: map[string]string{securityv1.UIDRangeAnnotation: "1000680000/10000"}}}
	pod := func(name, scc string, podUser, containerUser *int64) *corev1.Pod {
		p := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "llm", Name: name, Annotations: map[string]string{securityv1.ValidatedSCCAnnotation: scc}},
			Spec: corev1.PodSpec{
				SecurityContext: &corev1.PodSecurityContext{RunAsUser: podUser},
				Containers:      []corev1.Container{{Name: "c", SecurityContext: &corev1.SecurityContext{RunAsUser: containerUser}}},
			},
		}
		return p
	}
	refused := &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Namespace: "llm", Name: "e"},
		InvolvedObject: corev1.ObjectReference{Kind: "ReplicaSet", Name: "gw-1"},
		Reason:         "FailedCreate", Count: 3,
		Message: `pods "gw-1-" is forbidden: unable to validate against any security context constraint: [provider "restricted-v2": .spec.securityContext.runAsUser: Invalid value: 65532: must be in the ranges: [1000680000, 1000689999]]`,
	}
	tests := []struct {
		name string
		objs []runtime.Object
		want []string // substrings, one per problem
	}{
		{"admitted, user from the range", []runtime.Object{ns, pod("a", "restricted-v2", ptr.To[int64](1000680000), nil)}, nil},
		{"the container's own user counts", []runtime.Object{ns, pod("a", "restricted-v2", ptr.To[int64](1000680000), ptr.To[int64](65532))}, []string{"runs as 65532"}},
		{"another SCC", []runtime.Object{ns, pod("a", "anyuid", ptr.To[int64](1000680000), nil)}, []string{`admitted by SCC "anyuid"`}},
		{"not admitted by SCC at all", []runtime.Object{ns, pod("a", "", nil, nil)}, []string{`admitted by SCC ""`, "no user assigned"}},
		{"refused by SCC admission", []runtime.Object{ns, refused}, []string{"ReplicaSet llm/gw-1 was refused a pod 3 times"}},
		{"namespace without a range", []runtime.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "llm"}}}, []string{"openshift.io/sa.scc.uid-range"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			problems, err := SCCProblems(context.Background(), kubefake.NewSimpleClientset(tt.objs...), "restricted-v2", "llm")
			if err != nil {
				t.Fatal(err)
			}
			if len(problems) != len(tt.want) {
				t.Fatalf("problems %q, want %d: %q", problems, len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				if !strings.Contains(problems[i], w) {
					t.Errorf("problem %q, want it to say %q", problems[i], w)
				}
			}
		})
	}
}
