package lws

import (
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

func hookDeployment() *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "ns"},
		Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			Containers: []corev1.Container{
				{Name: "main", Args: []string{"--config=/c", "--v=2"}},
				{Name: "sidecar"},
			},
		}}},
	}
}

func TestWithContainerArg(t *testing.T) {
	tests := []struct {
		name      string
		container string
		prefix    string
		value     string
		wantArgs  []string
		wantErr   bool
	}{
		{name: "replaces an argument with the prefix", container: "main", prefix: "--v=", value: "4", wantArgs: []string{"--config=/c", "--v=4"}},
		{name: "appends a missing argument", container: "main", prefix: "--zap-log-level=", value: "6", wantArgs: []string{"--config=/c", "--v=2", "--zap-log-level=6"}},
		{name: "unknown container", container: "missing", prefix: "--v=", value: "1", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := hookDeployment()
			err := withContainerArg(tt.container, tt.prefix, tt.value)(d)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if got := engine.ContainerOf(d, tt.container).Args; !reflect.DeepEqual(got, tt.wantArgs) {
				t.Errorf("args = %v, want %v", got, tt.wantArgs)
			}
		})
	}
}

func TestPlacementHookDoesNotAliasTheInput(t *testing.T) {
	selector := map[string]string{"a": "b"}
	tolerations := []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpExists}}
	d := hookDeployment()
	if err := placementHook(selector, tolerations)(d); err != nil {
		t.Fatal(err)
	}
	d.Spec.Template.Spec.NodeSelector["a"] = "changed"
	d.Spec.Template.Spec.Tolerations[0].Key = "changed"
	if selector["a"] != "b" || tolerations[0].Key != "k" {
		t.Errorf("changing the Deployment changed the input: %v %v", selector, tolerations)
	}
}

// FuzzDeploymentHooks runs the hooks every operand runs on a Deployment with fuzzed input: no
// panic, the same Deployment from the same input, and the CR's maps and slices never shared
// with the Deployment.
func FuzzDeploymentHooks(f *testing.F) {
	f.Add("manager", "--zap-log-level=", "4", "node-role.kubernetes.io/infra", "", "key", "Exists", "NoSchedule", "k", "v")
	f.Add("", "", "", "", "", "", "", "", "", "")
	f.Fuzz(func(t *testing.T, container, prefix, value, selectorKey, selectorValue, tolKey, tolOp, tolEffect, annKey, annValue string) {
		build := func() (*appsv1.Deployment, error) {
			d := &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				Containers: []corev1.Container{{Name: "manager", Args: []string{"--zap-log-level=2"}}, {Name: "other"}},
			}}}}
			selector := map[string]string{selectorKey: selectorValue}
			tolerations := []corev1.Toleration{{Key: tolKey, Operator: corev1.TolerationOperator(tolOp), Effect: corev1.TaintEffect(tolEffect)}}
			err := engine.RunHooks(d,
				withContainerArg(container, prefix, value),
				placementHook(selector, tolerations),
				engine.WithPodTemplateAnnotations(map[string]string{annKey: annValue}),
				engine.WithRestrictedSecurityContext,
			)
			selector[selectorKey] = "mutated"
			tolerations[0].Key = "mutated"
			return d, err
		}
		first, err1 := build()
		second, err2 := build()
		if (err1 == nil) != (err2 == nil) || !reflect.DeepEqual(first, second) {
			t.Fatalf("the same input gave different Deployments (%v, %v)", err1, err2)
		}
		if err1 != nil {
			if engine.ContainerOf(first, container) != nil {
				t.Fatalf("error for a container that exists: %v", err1)
			}
			return
		}
		pod := first.Spec.Template.Spec
		if pod.NodeSelector[selectorKey] != selectorValue || pod.Tolerations[0].Key != tolKey {
			t.Fatal("the Deployment shares the CR's nodePlacement")
		}
		args := engine.ContainerOf(first, container).Args
		if n := len(args); n == 0 || args[n-1] != prefix+value && !contains(args, prefix+value) {
			t.Fatalf("args %v lack %q", args, prefix+value)
		}
		for _, c := range pod.Containers {
			if c.SecurityContext == nil || c.SecurityContext.AllowPrivilegeEscalation == nil || *c.SecurityContext.AllowPrivilegeEscalation {
				t.Fatalf("container %q may escalate privileges", c.Name)
			}
		}
	})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
