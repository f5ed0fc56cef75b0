package lws

import (
	"reflect"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/llm-infra/llm-infra-operator/bindata"
	lwsoperatorv1 "github.com/llm-infra/llm-infra-operator/pkg/apis/operator/v1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// renderedDeployment is the Deployment as the manifest gives it, before any hook.
func renderedDeployment(t *testing.T) *appsv1.Deployment {
	t.Helper()
	d, err := engine.RenderTyped[appsv1.Deployment](testRenderer(), bindata.LWSDeployment)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestWithLogLevel(t *testing.T) {
	tests := []struct {
		level operatorv1.LogLevel
		want  string
	}{
		{"", "--zap-log-level=2"},
		{operatorv1.Normal, "--zap-log-level=2"},
		{operatorv1.Debug, "--zap-log-level=4"},
		{operatorv1.Trace, "--zap-log-level=6"},
		{operatorv1.TraceAll, "--zap-log-level=8"},
	}
	for _, tt := range tests {
		t.Run(string(tt.level), func(t *testing.T) {
			d := renderedDeployment(t)
			if err := withLogLevel(tt.level)(d); err != nil {
				t.Fatal(err)
			}
			var found []string
			for _, a := range engine.ContainerOf(d, managerContainer).Args {
				if len(a) >= len(zapLogLevelArgument) && a[:len(zapLogLevelArgument)] == zapLogLevelArgument {
					found = append(found, a)
				}
			}
			if len(found) != 1 || found[0] != tt.want {
				t.Errorf("log level args = %v, want exactly [%s]", found, tt.want)
			}
		})
	}
}

func TestWithLogLevelNeedsTheManagerContainer(t *testing.T) {
	d := renderedDeployment(t)
	d.Spec.Template.Spec.Containers[0].Name = "renamed"
	if err := withLogLevel(operatorv1.Debug)(d); err == nil {
		t.Error("expected an error when the manager container is missing")
	}
}

func TestWithNodePlacement(t *testing.T) {
	upstream := renderedDeployment(t).Spec.Template.Spec
	infraToleration := corev1.Toleration{Key: "node-role.kubernetes.io/infra", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}
	tests := []struct {
		name            string
		placement       *lwsoperatorv1.NodePlacement
		wantSelector    map[string]string
		wantTolerations []corev1.Toleration
	}{
		{name: "unset keeps upstream", placement: nil, wantSelector: upstream.NodeSelector, wantTolerations: upstream.Tolerations},
		{name: "empty keeps upstream", placement: &lwsoperatorv1.NodePlacement{}, wantSelector: upstream.NodeSelector, wantTolerations: upstream.Tolerations},
		{name: "empty nodeSelector map keeps upstream", placement: &lwsoperatorv1.NodePlacement{NodeSelector: map[string]string{}}, wantSelector: upstream.NodeSelector, wantTolerations: upstream.Tolerations},
		{
			name:         "nodeSelector replaces",
			placement:    &lwsoperatorv1.NodePlacement{NodeSelector: map[string]string{"node-role.kubernetes.io/infra": ""}},
			wantSelector: map[string]string{"node-role.kubernetes.io/infra": ""}, wantTolerations: upstream.Tolerations,
		},
		{
			name:         "empty tolerations list replaces with none",
			placement:    &lwsoperatorv1.NodePlacement{Tolerations: []corev1.Toleration{}},
			wantSelector: upstream.NodeSelector, wantTolerations: []corev1.Toleration{},
		},
		{
			name:         "tolerations replace",
			placement:    &lwsoperatorv1.NodePlacement{Tolerations: []corev1.Toleration{infraToleration}},
			wantSelector: upstream.NodeSelector, wantTolerations: []corev1.Toleration{infraToleration},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := renderedDeployment(t)
			// Start from a Deployment that has a toleration of its own, so "replace" is visible.
			if tt.placement != nil && tt.placement.Tolerations != nil {
				d.Spec.Template.Spec.Tolerations = []corev1.Toleration{{Key: "upstream"}}
			}
			if err := withNodePlacement(tt.placement)(d); err != nil {
				t.Fatal(err)
			}
			pod := d.Spec.Template.Spec
			if !reflect.DeepEqual(pod.NodeSelector, tt.wantSelector) {
				t.Errorf("nodeSelector = %#v, want %#v", pod.NodeSelector, tt.wantSelector)
			}
			if !reflect.DeepEqual(pod.Tolerations, tt.wantTolerations) {
				t.Errorf("tolerations = %#v, want %#v", pod.Tolerations, tt.wantTolerations)
			}
		})
	}
}

func TestWithNodePlacementDoesNotAliasTheCR(t *testing.T) {
	placement := &lwsoperatorv1.NodePlacement{
		NodeSelector: map[string]string{"a": "b"},
		Tolerations:  []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpExists}},
	}
	d := renderedDeployment(t)
	if err := withNodePlacement(placement)(d); err != nil {
		t.Fatal(err)
	}
	d.Spec.Template.Spec.NodeSelector["a"] = "changed"
	d.Spec.Template.Spec.Tolerations[0].Key = "changed"
	if placement.NodeSelector["a"] != "b" || placement.Tolerations[0].Key != "k" {
		t.Errorf("changing the Deployment changed the CR: %+v", placement)
	}
}
