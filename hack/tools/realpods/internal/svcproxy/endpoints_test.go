package svcproxy

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func pod(ns, name, ip string, ready bool, labels map[string]string) *corev1.Pod {
	st := corev1.ConditionFalse
	if ready {
		st = corev1.ConditionTrue
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}}}}},
		Status:     corev1.PodStatus{PodIP: ip, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: st}}},
	}
}

func TestPodEndpoints(t *testing.T) {
	app := map[string]string{"app": "api"}
	terminating := pod("ns", "gone", "127.16.0.13", true, app)
	now := metav1.Now()
	terminating.DeletionTimestamp = &now
	pods := []*corev1.Pod{
		pod("ns", "b", "127.16.0.12", true, app),
		pod("ns", "a", "127.16.0.11", true, app),
		pod("ns", "unready", "127.16.0.14", false, app),
		pod("ns", "no-ip", "", true, app),
		pod("ns", "other-app", "127.16.0.15", true, map[string]string{"app": "web"}),
		pod("elsewhere", "same-labels", "127.16.0.16", true, app),
		terminating,
	}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "api"}, Spec: corev1.ServiceSpec{Selector: app}}
	named := corev1.ServicePort{Port: 80, TargetPort: intstr.FromString("http")}
	if got, want := PodEndpoints(svc, named, pods), []Backend{{Addr: "127.16.0.11:8080"}, {Addr: "127.16.0.12:8080"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("named targetPort: %v, want %v", got, want)
	}
	numbered := corev1.ServicePort{Port: 80, TargetPort: intstr.FromInt32(9000)}
	if got := PodEndpoints(svc, numbered, pods); len(got) != 2 || got[0].Addr != "127.16.0.11:9000" {
		t.Errorf("numbered targetPort: %v", got)
	}
	if got := PodEndpoints(svc, corev1.ServicePort{Port: 81}, pods); len(got) != 2 || got[0].Addr != "127.16.0.11:81" {
		t.Errorf("no targetPort: %v", got)
	}
	svc.Spec.PublishNotReadyAddresses = true
	if got := PodEndpoints(svc, named, pods); len(got) != 3 {
		t.Errorf("publishNotReadyAddresses: %v, want the unready pod too", got)
	}
	if got := PodEndpoints(&corev1.Service{ObjectMeta: svc.ObjectMeta}, named, pods); got != nil {
		t.Errorf("no selector: %v", got)
	}
}

func TestHostBackend(t *testing.T) {
	k := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "kubernetes"}}
	if b, ok, err := HostBackend(k, corev1.ServicePort{Port: 443}, "127.0.0.1:16443"); !ok || err != nil || b != (Backend{Addr: "127.0.0.1:16443", Host: true}) {
		t.Errorf("kubernetes: %v %v %v", b, ok, err)
	}
	db := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "db", Annotations: map[string]string{HostAddressAnnotation: "127.0.0.1"}}}
	if b, ok, err := HostBackend(db, corev1.ServicePort{Port: 5432, TargetPort: intstr.FromInt32(15432)}, ""); !ok || err != nil || b.Addr != "127.0.0.1:15432" {
		t.Errorf("annotated: %v %v %v", b, ok, err)
	}
	db.Annotations[HostAddressAnnotation] = "192.0.2.1"
	if _, _, err := HostBackend(db, corev1.ServicePort{Port: 5432}, ""); err == nil {
		t.Error("a host address off loopback is no error")
	}
	db.Spec.Selector = map[string]string{"app": "db"}
	if _, ok, _ := HostBackend(db, corev1.ServicePort{Port: 5432}, ""); ok {
		t.Error("a Service with a selector goes to the host")
	}
}

func TestParseForward(t *testing.T) {
	f, err := ParseForward("127.0.0.1:19080=batch/apiserver:8000")
	if err != nil || f != (Forward{Listen: "127.0.0.1:19080", Namespace: "batch", Service: "apiserver", Port: "8000"}) {
		t.Errorf("ParseForward = %+v, %v", f, err)
	}
	for _, bad := range []string{"19080=batch/apiserver:8000", "0.0.0.0:1=a/b:c", "127.0.0.1:1=a:b", "127.0.0.1:1", "127.0.0.1:1=a/b"} {
		if _, err := ParseForward(bad); err == nil {
			t.Errorf("ParseForward(%q) is no error", bad)
		}
	}
}
