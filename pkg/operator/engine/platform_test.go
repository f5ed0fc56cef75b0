package engine

import (
	"errors"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	fakediscovery "k8s.io/client-go/discovery/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
)

// TestPlatformProbe (fake discovery): OpenShift is the API group security.openshift.io in
// discovery, asked once; a failed request is an error and is asked again.
func TestPlatformProbe(t *testing.T) {
	for _, tc := range []struct {
		groups []string
		want   Platform
	}{
		{[]string{"apps/v1", "security.openshift.io/v1", "route.openshift.io/v1"}, OpenShift},
		{[]string{"apps/v1", "batch/v1", "route.openshift.io/v1"}, Kubernetes},
	} {
		client := kubefake.NewSimpleClientset()
		fake := client.Discovery().(*fakediscovery.FakeDiscovery)
		for _, gv := range tc.groups {
			fake.Resources = append(fake.Resources, &metav1.APIResourceList{GroupVersion: gv})
		}
		p := NewPlatformProbe(fake)
		for range 2 {
			if got, err := p.Platform(); err != nil || got != tc.want {
				t.Errorf("groups %v: Platform() = %q, %v; want %q", tc.groups, got, err, tc.want)
			}
		}
		if n := len(client.Actions()); n != 1 {
			t.Errorf("groups %v: %d discovery requests, want one", tc.groups, n)
		}
	}

	client := kubefake.NewSimpleClientset()
	client.PrependReactor("get", "group", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New("connection refused")
	})
	fake := client.Discovery().(*fakediscovery.FakeDiscovery)
	p := NewPlatformProbe(fake)
	for range 2 {
		if got, err := p.Platform(); err == nil {
			t.Errorf("a failing discovery: Platform() = %q, want an error", got)
		}
	}

	var none *PlatformProbe
	if got, err := none.Platform(); err != nil || got != Kubernetes {
		t.Errorf("nil probe: %q, %v; want Kubernetes", got, err)
	}
	if got, _ := KnownPlatform(OpenShift).Platform(); got != OpenShift {
		t.Errorf("KnownPlatform(OpenShift) = %q", got)
	}
}
