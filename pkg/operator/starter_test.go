package operator

import (
	"testing"

	"k8s.io/client-go/rest"
)

func TestWithClientLimitsCopies(t *testing.T) {
	original := &rest.Config{Host: "https://127.0.0.1:6443", QPS: 5, Burst: 10}
	got := withClientLimits(original)
	if got.QPS != 50 || got.Burst != 100 {
		t.Errorf("limits = %v/%d, want 50/100", got.QPS, got.Burst)
	}
	if original.QPS != 5 || original.Burst != 10 {
		t.Errorf("the caller's config was changed: %v/%d", original.QPS, original.Burst)
	}
	if got.Host != original.Host {
		t.Errorf("host = %q, want %q", got.Host, original.Host)
	}
}
