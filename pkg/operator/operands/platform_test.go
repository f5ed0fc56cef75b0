package operands

import (
	"fmt"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"

	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/registry"
)

// TestPodsOnEachPlatform renders every namespaced kind's admitted CRs (its admission table's
// accepted cases) on both platforms and checks every pod against what the platform admits
// (issue 29): the restricted profile everywhere, with a read-only root filesystem and every
// emptyDir size-limited (issue 33); on OpenShift no user, group or fsGroup of the pod's own,
// since restricted-v2 assigns them from the namespace's ranges and rejects any outside them
// (65532 is); on Kubernetes a non-root user where the image runs as root.
func TestPodsOnEachPlatform(t *testing.T) {
	env := registry.RenderEnv{Namespace: "operator", Image: func(env string) string { return "example.com/" + strings.ToLower(env) + ":v1" }}
	for _, r := range All() {
		if !r.Namespaced {
			continue
		}
		for _, platform := range []engine.Platform{engine.Kubernetes, engine.OpenShift} {
			t.Run(fmt.Sprintf("%s on %s", r.GVK.Kind, platform), func(t *testing.T) {
				env.Platform = platform
				deployments := 0
				for _, c := range r.Admission.Accepted {
					obj, err := c.Object()
					if err != nil {
						t.Fatal(err)
					}
					u := &unstructured.Unstructured{Object: obj}
					if u.GetNamespace() == "" {
						u.SetNamespace("example")
					}
					objs, err := r.Render(u, env)
					if err != nil {
						t.Errorf("%s: %v", c.Name, err)
						continue
					}
					for _, o := range objs {
						if d, ok := o.(*appsv1.Deployment); ok {
							deployments++
							for _, problem := range podProblems(&d.Spec.Template.Spec, platform) {
								t.Errorf("%s: Deployment %s: %s", c.Name, d.Name, problem)
							}
						}
					}
				}
				// A kind whose accepted CRs render no Deployment would pass on nothing.
				if deployments == 0 && r.GVK.Kind != "GPU" {
					t.Errorf("no Deployment rendered from %d accepted CRs", len(r.Admission.Accepted))
				}
			})
		}
	}
}

// podProblems says where pod breaks what platform admits.
func podProblems(pod *corev1.PodSpec, platform engine.Platform) []string {
	var problems []string
	sc := pod.SecurityContext
	if sc == nil || !ptr.Deref(sc.RunAsNonRoot, false) || sc.SeccompProfile == nil || sc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		return []string{fmt.Sprintf("pod security context %+v: want the restricted profile (runAsNonRoot, RuntimeDefault seccomp)", sc)}
	}
	if platform == engine.OpenShift && (sc.RunAsUser != nil || sc.RunAsGroup != nil || sc.FSGroup != nil || len(sc.SupplementalGroups) > 0) {
		problems = append(problems, fmt.Sprintf("pod sets user %v, group %v, fsGroup %v, supplemental groups %v: the SCC assigns them on OpenShift",
			ptr.Deref(sc.RunAsUser, -1), ptr.Deref(sc.RunAsGroup, -1), ptr.Deref(sc.FSGroup, -1), sc.SupplementalGroups))
	}
	if platform == engine.Kubernetes && sc.RunAsUser != nil && *sc.RunAsUser == 0 {
		problems = append(problems, "runs as root")
	}
	for _, c := range append(append([]corev1.Container{}, pod.InitContainers...), pod.Containers...) {
		csc := c.SecurityContext
		if csc == nil || ptr.Deref(csc.AllowPrivilegeEscalation, true) || csc.Capabilities == nil || len(csc.Capabilities.Drop) == 0 {
			problems = append(problems, fmt.Sprintf("container %s: security context %+v: want no privilege escalation and capabilities dropped", c.Name, csc))
			continue
		}
		if !ptr.Deref(csc.ReadOnlyRootFilesystem, false) {
			problems = append(problems, fmt.Sprintf("container %s: root filesystem writable: want readOnlyRootFilesystem, with an emptyDir where the program writes (issue 33)", c.Name))
		}
		if platform == engine.OpenShift && (csc.RunAsUser != nil || csc.RunAsGroup != nil) {
			problems = append(problems, fmt.Sprintf("container %s sets user %v, group %v: the SCC assigns them on OpenShift", c.Name, ptr.Deref(csc.RunAsUser, -1), ptr.Deref(csc.RunAsGroup, -1)))
		}
	}
	// The writable places a read-only root leaves are bounded: an emptyDir without a size limit
	// could fill the node's disk.
	for _, v := range pod.Volumes {
		if v.EmptyDir != nil && v.EmptyDir.SizeLimit == nil {
			problems = append(problems, fmt.Sprintf("emptyDir %s has no sizeLimit", v.Name))
		}
	}
	return problems
}
