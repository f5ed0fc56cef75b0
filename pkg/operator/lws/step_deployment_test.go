package lws

import (
	"reflect"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/llm-infra/llm-infra-operator/bindata"
	lwsoperatorv1 "github.com/llm-infra/llm-infra-operator/pkg/apis/operator/v1"
)

// renderedDeployment is the Deployment as the manifest gives it, before any hook.
func renderedDeployment(t *testing.T) *appsv1.Deployment {
	t.Helper()
	d, err := renderTyped[appsv1.Deployment](renderer{namespace: testNamespace, image: testImage}, bindata.LWSDeployment)
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
			for _, a := range managerContainerOf(d).Args {
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

func TestWithRestrictedSecurityContext(t *testing.T) {
	d := renderedDeployment(t)
	d.Spec.Template.Spec.SecurityContext = nil
	d.Spec.Template.Spec.Containers[0].SecurityContext = nil
	if err := withRestrictedSecurityContext(d); err != nil {
		t.Fatal(err)
	}
	pod := d.Spec.Template.Spec
	if pod.SecurityContext.RunAsNonRoot == nil || !*pod.SecurityContext.RunAsNonRoot {
		t.Error("runAsNonRoot not set")
	}
	if pod.SecurityContext.SeccompProfile == nil || pod.SecurityContext.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Error("seccomp RuntimeDefault not set")
	}
	for _, c := range pod.Containers {
		sc := c.SecurityContext
		if sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
			t.Errorf("container %s may escalate privileges", c.Name)
		}
		if sc == nil || sc.Capabilities == nil || !reflect.DeepEqual(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) {
			t.Errorf("container %s does not drop ALL capabilities", c.Name)
		}
	}
}

func TestConfigHashAnnotations(t *testing.T) {
	secret := func(data string, annotations map[string]string) *corev1.Secret {
		return &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: webhookSecretName, Namespace: testNamespace, Annotations: annotations},
			Data:       map[string][]byte{"tls.crt": []byte(data)},
		}
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: configMapName}, Data: map[string]string{"k": "v"}}
	base, err := configHashAnnotations([]*corev1.ConfigMap{cm}, []*corev1.Secret{secret("one", nil)})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		secret      *corev1.Secret
		wantChanged bool
	}{
		{name: "same data", secret: secret("one", nil), wantChanged: false},
		{name: "metadata-only change", secret: secret("one", map[string]string{"touched": "yes"}), wantChanged: false},
		{name: "data change", secret: secret("two", nil), wantChanged: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := configHashAnnotations([]*corev1.ConfigMap{cm}, []*corev1.Secret{tt.secret})
			if err != nil {
				t.Fatal(err)
			}
			if changed := !reflect.DeepEqual(got, base); changed != tt.wantChanged {
				t.Errorf("hash changed = %v, want %v (%v -> %v)", changed, tt.wantChanged, base, got)
			}
		})
	}
	if len(base) != 2 {
		t.Errorf("want one annotation per mounted object, got %v", base)
	}
}
