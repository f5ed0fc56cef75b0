package podenv

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// fakeSources is an in-memory Sources.
type fakeSources struct {
	configMaps map[string]*corev1.ConfigMap
	secrets    map[string]*corev1.Secret
}

func (f fakeSources) ConfigMap(ns, name string) (*corev1.ConfigMap, error) {
	if cm, ok := f.configMaps[ns+"/"+name]; ok {
		return cm, nil
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "configmaps"}, name)
}

func (f fakeSources) Secret(ns, name string) (*corev1.Secret, error) {
	if s, ok := f.secrets[ns+"/"+name]; ok {
		return s, nil
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "secrets"}, name)
}

func TestExpand(t *testing.T) {
	vars := map[string]string{"A": "a", "EMPTY": ""}
	for in, want := range map[string]string{
		"plain":           "plain",
		"$(A)":            "a",
		"x$(A)y$(A)":      "xaya",
		"$$(A)":           "$(A)",
		"$$":              "$",
		"$(UNKNOWN)":      "$(UNKNOWN)",
		"$(EMPTY)x":       "x",
		"$(A":             "$(A",
		"$A":              "$A",
		"tail$":           "tail$",
		"$(A)$(UNKNOWN)$": "a$(UNKNOWN)$",
	} {
		if got := Expand(in, lookupIn(vars)); got != want {
			t.Errorf("Expand(%q) = %q, want %q", in, got, want)
		}
	}
}

func opt(b bool) *bool { return &b }

func TestResolve(t *testing.T) {
	src := fakeSources{
		configMaps: map[string]*corev1.ConfigMap{"ns/cfg": {Data: map[string]string{"mode": "fast", "LEVEL": "2"}}},
		secrets:    map[string]*corev1.Secret{"ns/creds": {Data: map[string][]byte{"token": []byte("s3cret"), "USER": []byte("bob"), "1bad": []byte("skipped")}}},
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", UID: "u-1", Labels: map[string]string{"app": "x"}},
		Spec: corev1.PodSpec{NodeName: "n0", ServiceAccountName: "sa"}}
	info := Pod{Pod: pod, PodIP: "127.16.0.10", HostIP: "127.16.0.1",
		NodeAllocatable: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("4Gi"), corev1.ResourceCPU: resource.MustParse("8")}}
	c := &corev1.Container{
		Name: "c",
		EnvFrom: []corev1.EnvFromSource{
			{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cfg"}}, Prefix: "CFG_"},
			{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "creds"}}},
			{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "missing"}, Optional: opt(true)}},
		},
		Env: []corev1.EnvVar{
			{Name: "TOKEN", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "creds"}, Key: "token"}}},
			{Name: "MODE", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "cfg"}, Key: "mode"}}},
			{Name: "URL", Value: "http://$(USER):$(TOKEN)@host/$(MODE)/$(LATER)"},
			{Name: "LATER", Value: "later"},
			{Name: "POD_IP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.podIP"}}},
			{Name: "APP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.labels['app']"}}},
			{Name: "MEM_MI", ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: "limits.memory", Divisor: resource.MustParse("1Mi")}}},
			{Name: "OPTIONAL", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "creds"}, Key: "nope", Optional: opt(true)}}},
			{Name: "SVC", Value: "$(KUBERNETES_SERVICE_HOST)"},
			{Name: "PATH", Value: "/custom"},
		},
	}
	svcEnv := []Var{{"KUBERNETES_SERVICE_HOST", "127.96.0.1"}, {"USER", "from-service-env-loses"}}
	got, err := Resolve(src, info, c, []Var{{"PATH", "/image"}, {"IMAGE_ONLY", "1"}}, svcEnv)
	if err != nil {
		t.Fatal(err)
	}
	want := []Var{
		{"IMAGE_ONLY", "1"},
		{"CFG_LEVEL", "2"}, {"CFG_mode", "fast"}, {"USER", "bob"}, {"token", "s3cret"},
		{"TOKEN", "s3cret"}, {"MODE", "fast"},
		{"URL", "http://bob:s3cret@host/fast/$(LATER)"},
		{"LATER", "later"}, {"POD_IP", "127.16.0.10"}, {"APP", "x"}, {"MEM_MI", "4096"},
		{"SVC", "127.96.0.1"}, {"PATH", "/custom"},
		{"KUBERNETES_SERVICE_HOST", "127.96.0.1"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Resolve:\n got %v\nwant %v", got, want)
	}
}

func TestResolveConfigErrors(t *testing.T) {
	src := fakeSources{secrets: map[string]*corev1.Secret{"ns/creds": {Data: map[string][]byte{"a": []byte("1")}}}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"}}
	for name, env := range map[string]corev1.EnvVar{
		"missing secret": {Name: "X", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "nope"}, Key: "a"}}},
		"missing key":    {Name: "X", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "creds"}, Key: "b"}}},
		"missing cm":     {Name: "X", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "nope"}, Key: "a"}}},
		"unknown field":  {Name: "X", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "spec.nope"}}},
	} {
		_, err := Resolve(src, Pod{Pod: pod}, &corev1.Container{Env: []corev1.EnvVar{env}}, nil, nil)
		if !IsConfigError(err) {
			t.Errorf("%s: err = %v, want a ConfigError", name, err)
		}
	}
}

func TestServiceEnv(t *testing.T) {
	svc := func(ns, name, ip string, ports ...corev1.ServicePort) *corev1.Service {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: corev1.ServiceSpec{ClusterIP: ip, Ports: ports}}
	}
	services := []*corev1.Service{
		svc("default", "kubernetes", "127.96.0.1", corev1.ServicePort{Name: "https", Port: 443, Protocol: corev1.ProtocolTCP}),
		svc("ns", "my-api", "127.96.3.4", corev1.ServicePort{Name: "http", Port: 8000}),
		svc("ns", "headless", "None", corev1.ServicePort{Port: 80}),
		svc("other", "elsewhere", "127.96.9.9", corev1.ServicePort{Port: 80}),
	}
	got := map[string]string{}
	for _, v := range ServiceEnv("ns", nil, services) {
		got[v.Name] = v.Value
	}
	want := map[string]string{
		"KUBERNETES_SERVICE_HOST": "127.96.0.1", "KUBERNETES_SERVICE_PORT": "443", "KUBERNETES_SERVICE_PORT_HTTPS": "443",
		"KUBERNETES_PORT": "tcp://127.96.0.1:443", "KUBERNETES_PORT_443_TCP": "tcp://127.96.0.1:443",
		"KUBERNETES_PORT_443_TCP_PROTO": "tcp", "KUBERNETES_PORT_443_TCP_PORT": "443", "KUBERNETES_PORT_443_TCP_ADDR": "127.96.0.1",
		"MY_API_SERVICE_HOST": "127.96.3.4", "MY_API_SERVICE_PORT": "8000", "MY_API_SERVICE_PORT_HTTP": "8000",
		"MY_API_PORT": "tcp://127.96.3.4:8000", "MY_API_PORT_8000_TCP": "tcp://127.96.3.4:8000",
		"MY_API_PORT_8000_TCP_PROTO": "tcp", "MY_API_PORT_8000_TCP_PORT": "8000", "MY_API_PORT_8000_TCP_ADDR": "127.96.3.4",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ServiceEnv:\n got %v\nwant %v", got, want)
	}
	off := false
	for _, v := range ServiceEnv("ns", &off, services) {
		if v.Name == "MY_API_SERVICE_HOST" {
			t.Errorf("enableServiceLinks=false still lists the namespace's Services")
		}
	}
}

func TestArgv(t *testing.T) {
	got := Argv([]string{"/bin/app", "--url=$(URL)", "$$(URL)", "$(NOPE)"}, []Var{{"URL", "http://x"}})
	want := []string{"/bin/app", "--url=http://x", "$(URL)", "$(NOPE)"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Argv = %v, want %v", got, want)
	}
}
