package engine

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

func testDeployment() *appsv1.Deployment {
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

func TestWithPodTemplateAnnotations(t *testing.T) {
	d := testDeployment()
	d.Spec.Template.Annotations = map[string]string{"kept": "yes", "replaced": "old"}
	if err := WithPodTemplateAnnotations(map[string]string{"replaced": "new", "added": "x"})(d); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"kept": "yes", "replaced": "new", "added": "x"}
	if got := d.Spec.Template.Annotations; !reflect.DeepEqual(got, want) {
		t.Errorf("annotations = %v, want %v", got, want)
	}
}

func TestWithRestrictedSecurityContext(t *testing.T) {
	d := testDeployment()
	d.Spec.Template.Spec.Containers[1].SecurityContext = &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(true), ReadOnlyRootFilesystem: ptr.To(false)}
	d.Spec.Template.Spec.InitContainers = []corev1.Container{{Name: "init"}}
	if err := WithRestrictedSecurityContext(d); err != nil {
		t.Fatal(err)
	}
	pod := d.Spec.Template.Spec
	if pod.SecurityContext.RunAsNonRoot == nil || !*pod.SecurityContext.RunAsNonRoot {
		t.Error("runAsNonRoot not set")
	}
	if pod.SecurityContext.SeccompProfile == nil || pod.SecurityContext.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Error("seccomp RuntimeDefault not set")
	}
	for _, c := range append(append([]corev1.Container{}, pod.InitContainers...), pod.Containers...) {
		sc := c.SecurityContext
		if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
			t.Errorf("container %s: root filesystem not read-only", c.Name)
		}
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
			ObjectMeta: metav1.ObjectMeta{Name: "cert", Namespace: "ns", Annotations: annotations},
			Data:       map[string][]byte{"tls.crt": []byte(data)},
		}
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "config"}, Data: map[string]string{"k": "v"}}
	base, err := ConfigHashAnnotations([]*corev1.ConfigMap{cm}, []*corev1.Secret{secret("one", nil)})
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
			got, err := ConfigHashAnnotations([]*corev1.ConfigMap{cm}, []*corev1.Secret{tt.secret})
			if err != nil {
				t.Fatal(err)
			}
			if changed := !reflect.DeepEqual(got, base); changed != tt.wantChanged {
				t.Errorf("hash changed = %v, want %v (%v -> %v)", changed, tt.wantChanged, base, got)
			}
		})
	}
	want := []string{ConfigHashAnnotationPrefix + "configmap-config", ConfigHashAnnotationPrefix + "secret-cert"}
	for _, k := range want {
		if _, ok := base[k]; !ok {
			t.Errorf("annotation %s missing in %v", k, base)
		}
	}
}

// A Deployment waits only for the Secrets the kubelet needs to start its pods (issue 34): one
// named only as optional would hold back pods that can run without it.
func TestWaitForMountedSecrets(t *testing.T) {
	const secret = "creds"
	volume := func(source corev1.VolumeSource) func(*corev1.PodSpec) {
		return func(pod *corev1.PodSpec) {
			pod.Volumes = append(pod.Volumes, corev1.Volume{Name: fmt.Sprint("v", len(pod.Volumes)), VolumeSource: source})
		}
	}
	secretVolume := func(optional *bool) func(*corev1.PodSpec) {
		return volume(corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: secret, Optional: optional}})
	}
	projected := func(optional *bool) func(*corev1.PodSpec) {
		return volume(corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
			{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "config"}}},
			{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: secret}, Optional: optional}},
		}}})
	}
	env := func(init bool, optional *bool) func(*corev1.PodSpec) {
		return func(pod *corev1.PodSpec) {
			e := corev1.EnvVar{Name: "KEY", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
				LocalObjectReference: corev1.LocalObjectReference{Name: secret}, Key: "key", Optional: optional}}}
			if init {
				pod.InitContainers = append(pod.InitContainers, corev1.Container{Name: "init", Env: []corev1.EnvVar{e}})
			} else {
				pod.Containers[1].Env = append(pod.Containers[1].Env, e)
			}
		}
	}
	envFrom := func(init bool, optional *bool) func(*corev1.PodSpec) {
		return func(pod *corev1.PodSpec) {
			from := corev1.EnvFromSource{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: secret}, Optional: optional}}
			if init {
				pod.InitContainers = append(pod.InitContainers, corev1.Container{Name: "init", EnvFrom: []corev1.EnvFromSource{from}})
			} else {
				pod.Containers[0].EnvFrom = append(pod.Containers[0].EnvFrom, from)
			}
		}
	}
	optional, required := ptr.To(true), ptr.To(false)
	for _, c := range []struct {
		name string
		// pod names the Secret in the pod template; none: the template does not name it.
		pod  []func(*corev1.PodSpec)
		ref  string
		want bool // held back
	}{
		{name: "Secret volume", pod: []func(*corev1.PodSpec){secretVolume(nil)}, want: true},
		{name: "Secret volume, optional false", pod: []func(*corev1.PodSpec){secretVolume(required)}, want: true},
		{name: "Secret volume, optional", pod: []func(*corev1.PodSpec){secretVolume(optional)}},
		{name: "projected Secret", pod: []func(*corev1.PodSpec){projected(nil)}, want: true},
		{name: "projected Secret, optional", pod: []func(*corev1.PodSpec){projected(optional)}},
		{name: "env secretKeyRef", pod: []func(*corev1.PodSpec){env(false, nil)}, want: true},
		{name: "env secretKeyRef, optional", pod: []func(*corev1.PodSpec){env(false, optional)}},
		{name: "init container's env secretKeyRef", pod: []func(*corev1.PodSpec){env(true, nil)}, want: true},
		{name: "init container's env secretKeyRef, optional", pod: []func(*corev1.PodSpec){env(true, optional)}},
		{name: "envFrom secretRef", pod: []func(*corev1.PodSpec){envFrom(false, nil)}, want: true},
		{name: "envFrom secretRef, optional", pod: []func(*corev1.PodSpec){envFrom(false, optional)}},
		{name: "init container's envFrom secretRef", pod: []func(*corev1.PodSpec){envFrom(true, nil)}, want: true},
		{name: "init container's envFrom secretRef, optional", pod: []func(*corev1.PodSpec){envFrom(true, optional)}},
		{name: "optional as env, needed as a volume", pod: []func(*corev1.PodSpec){env(false, optional), secretVolume(nil)}, want: true},
		{name: "needed as env, optional as a volume", pod: []func(*corev1.PodSpec){env(false, nil), secretVolume(optional)}, want: true},
		{name: "optional in every form", pod: []func(*corev1.PodSpec){env(true, optional), envFrom(false, optional), secretVolume(optional), projected(optional)}},
		{name: "not named by the pods (the source of a copy they mount)", want: true},
		{name: "a namesake in another namespace, optional here", pod: []func(*corev1.PodSpec){secretVolume(optional)}, ref: "other/" + secret, want: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := testDeployment()
			for _, name := range c.pod {
				name(&d.Spec.Template.Spec)
			}
			ref := types.NamespacedName{Namespace: d.Namespace, Name: secret}
			if c.ref != "" {
				ref.Namespace, ref.Name, _ = strings.Cut(c.ref, "/")
			}
			err := WaitForMountedSecrets(d, []types.NamespacedName{ref})
			var se *StepError
			switch {
			case !c.want && err != nil:
				t.Errorf("held back by %s: %v", ref, err)
			case c.want && !errors.As(err, &se):
				t.Errorf("applied while %s is missing (err %v)", ref, err)
			case c.want && (se.Condition != ConditionProgressing || se.Reason != ReasonWaitingForMountedSecrets || !strings.Contains(se.Message, ref.String())):
				t.Errorf("held back with %+v, want Progressing %s naming %s", se, ReasonWaitingForMountedSecrets, ref)
			}
		})
	}
	if err := WaitForMountedSecrets(testDeployment(), nil); err != nil {
		t.Errorf("nothing missing: %v", err)
	}
}

func TestWithNonRootUser(t *testing.T) {
	tests := []struct {
		name string
		sc   *corev1.PodSecurityContext
		want *int64
	}{
		{name: "no security context: left to WithRestrictedSecurityContext", sc: nil, want: nil},
		{name: "no user", sc: &corev1.PodSecurityContext{}, want: ptr.To[int64](NonRootUser)},
		{name: "the manifest's user stays", sc: &corev1.PodSecurityContext{RunAsUser: ptr.To[int64](1001)}, want: ptr.To[int64](1001)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := testDeployment()
			d.Spec.Template.Spec.SecurityContext = tt.sc
			if err := WithNonRootUser(d); err != nil {
				t.Fatal(err)
			}
			var got *int64
			if sc := d.Spec.Template.Spec.SecurityContext; sc != nil {
				got = sc.RunAsUser
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("runAsUser = %v, want %v", ptr.Deref(got, -1), ptr.Deref(tt.want, -1))
			}
		})
	}
}

// TestPodSecurityHooks: the restricted profile everywhere; a fixed user only where the platform
// lets a pod name one (on OpenShift the SCC assigns it).
func TestPodSecurityHooks(t *testing.T) {
	tests := []struct {
		name     string
		security PodSecurity
		platform Platform
		wantUser *int64
	}{
		{"restricted", PodSecurityRestricted, Kubernetes, nil},
		{"restricted", PodSecurityRestricted, OpenShift, nil},
		{"restricted non-root", PodSecurityRestrictedNonRoot, Kubernetes, ptr.To[int64](NonRootUser)},
		{"restricted non-root", PodSecurityRestrictedNonRoot, OpenShift, nil},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s on %s", tt.name, tt.platform), func(t *testing.T) {
			d := testDeployment()
			if err := RunHooks(d, tt.security.Hooks(tt.platform)...); err != nil {
				t.Fatal(err)
			}
			sc := d.Spec.Template.Spec.SecurityContext
			if sc == nil || !ptr.Deref(sc.RunAsNonRoot, false) || sc.SeccompProfile == nil {
				t.Fatalf("pod security context %+v, want the restricted profile", sc)
			}
			if !reflect.DeepEqual(sc.RunAsUser, tt.wantUser) {
				t.Errorf("runAsUser = %v, want %v", ptr.Deref(sc.RunAsUser, -1), ptr.Deref(tt.wantUser, -1))
			}
		})
	}
	if hooks := PodSecurityNone.Hooks(OpenShift); len(hooks) != 0 {
		t.Errorf("PodSecurityNone: %d hooks, want none", len(hooks))
	}
}

func TestRollout(t *testing.T) {
	deployment := func(generation, observed int64, replicas, updated, available int32) *appsv1.Deployment {
		return &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Generation: generation},
			Spec:       appsv1.DeploymentSpec{Replicas: ptr.To(replicas)},
			Status:     appsv1.DeploymentStatus{ObservedGeneration: observed, UpdatedReplicas: updated, AvailableReplicas: available},
		}
	}
	tests := []struct {
		name                        string
		d                           *appsv1.Deployment
		wantAvailable, wantComplete bool
	}{
		{name: "missing", d: nil},
		{name: "new spec not observed yet", d: deployment(2, 1, 1, 1, 1), wantAvailable: true},
		{name: "old replica serving, new one not updated", d: deployment(2, 2, 2, 1, 2), wantAvailable: true},
		{name: "nothing available", d: deployment(1, 1, 1, 1, 0)},
		{name: "complete", d: deployment(3, 3, 2, 2, 2), wantAvailable: true, wantComplete: true},
		{name: "scaled to zero is complete but not available", d: deployment(1, 1, 0, 0, 0), wantComplete: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Rollout(tt.d)
			if got.Exists != (tt.d != nil) || got.Available != tt.wantAvailable || got.Complete != tt.wantComplete {
				t.Errorf("Rollout = %+v, want available %v complete %v", got, tt.wantAvailable, tt.wantComplete)
			}
		})
	}
}

// NeededNames: a name is optional only while every reference to it is; empty names are left
// out; In sorts and namespaces them.
func TestNeededNames(t *testing.T) {
	type ref struct {
		name     string
		optional *bool
	}
	tests := []struct {
		name         string
		refs         []ref
		wantIn       []string
		wantOptional []string
	}{
		{"none", nil, nil, nil},
		{"required", []ref{{"b", nil}, {"a", ptr.To(false)}}, []string{"a", "b"}, nil},
		{"optional", []ref{{"a", ptr.To(true)}}, []string{"a"}, []string{"a"}},
		{"optional, then required", []ref{{"a", ptr.To(true)}, {"a", nil}}, []string{"a"}, nil},
		{"required, then optional", []ref{{"a", nil}, {"a", ptr.To(true)}}, []string{"a"}, nil},
		{"an empty name", []ref{{"", nil}, {"", ptr.To(true)}}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := NeededNames{}
			for _, r := range tt.refs {
				n.Add(r.name, r.optional)
			}
			var in []string
			for _, r := range n.In("ns") {
				if r.Namespace != "ns" {
					t.Errorf("%v: namespace %q", r, r.Namespace)
				}
				in = append(in, r.Name)
			}
			if !reflect.DeepEqual(in, tt.wantIn) {
				t.Errorf("In = %v, want %v", in, tt.wantIn)
			}
			var optional []string
			for name := range n.Optional() {
				optional = append(optional, name)
			}
			if !reflect.DeepEqual(optional, tt.wantOptional) {
				t.Errorf("Optional = %v, want %v", optional, tt.wantOptional)
			}
		})
	}
}
