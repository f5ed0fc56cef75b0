package live

import (
	"context"
	"fmt"
	"slices"
	"strings"

	securityv1 "github.com/openshift/api/security/v1"
	"github.com/openshift/library-go/pkg/security/uid"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// ServesSCC says whether the cluster serves SecurityContextConstraints: OpenShift, or the local
// cluster with OPENSHIFT=true (hack/openshift), as the operator's own platform probe sees it.
func ServesSCC(kube kubernetes.Interface) (bool, error) {
	platform, err := engine.NewPlatformProbe(kube.Discovery()).Platform()
	return platform == engine.OpenShift, err
}

// sccRejection is what SCC admission's message holds when no SCC admits a pod; the ReplicaSet
// controller puts it into a FailedCreate event.
const sccRejection = "security context constraint"

// SCCProblems says how the pods of namespaces break what OpenShift's SCC admission would let
// through as sccName: every pod must carry the annotation SCC admission sets
// (openshift.io/scc: sccName), and every container must run as a user in its namespace's
// openshift.io/sa.scc.uid-range; no ReplicaSet or StatefulSet may have been refused a pod by SCC
// admission (a FailedCreate event). Empty when all is well.
func SCCProblems(ctx context.Context, kube kubernetes.Interface, sccName string, namespaces ...string) ([]string, error) {
	var problems []string
	for _, ns := range namespaces {
		namespace, err := kube.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		block, err := uid.ParseBlock(namespace.Annotations[securityv1.UIDRangeAnnotation])
		if err != nil {
			problems = append(problems, fmt.Sprintf("namespace %s: annotation %s %q: %v", ns, securityv1.UIDRangeAnnotation, namespace.Annotations[securityv1.UIDRangeAnnotation], err))
			continue
		}
		pods, err := kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		for i := range pods.Items {
			problems = append(problems, podSCCProblems(&pods.Items[i], sccName, block)...)
		}
		events, err := kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "reason=FailedCreate"})
		if err != nil {
			return nil, err
		}
		for _, e := range events.Items {
			if strings.Contains(e.Message, sccRejection) {
				problems = append(problems, fmt.Sprintf("%s %s/%s was refused a pod %d times: %s", e.InvolvedObject.Kind, ns, e.InvolvedObject.Name, e.Count, e.Message))
			}
		}
	}
	return problems, nil
}

func podSCCProblems(pod *corev1.Pod, sccName string, block uid.Block) []string {
	var problems []string
	name := pod.Namespace + "/" + pod.Name
	if got := pod.Annotations[securityv1.ValidatedSCCAnnotation]; got != sccName {
		problems = append(problems, fmt.Sprintf("pod %s: admitted by SCC %q, want %q", name, got, sccName))
	}
	for _, c := range append(slices.Clone(pod.Spec.InitContainers), pod.Spec.Containers...) {
		user := (*int64)(nil)
		if pod.Spec.SecurityContext != nil {
			user = pod.Spec.SecurityContext.RunAsUser
		}
		if c.SecurityContext != nil && c.SecurityContext.RunAsUser != nil {
			user = c.SecurityContext.RunAsUser
		}
		switch {
		case user == nil:
			problems = append(problems, fmt.Sprintf("pod %s container %s: no user assigned (the SCC assigns one from %s)", name, c.Name, block.RangeString()))
		case *user < int64(block.Start) || *user > int64(block.End):
			problems = append(problems, fmt.Sprintf("pod %s container %s: runs as %d, outside the namespace's range %s", name, c.Name, *user, block.RangeString()))
		}
	}
	return problems
}
