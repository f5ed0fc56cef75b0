package main

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestAnchorWorkloads(t *testing.T) {
	got, err := anchorWorkloads("lws, batch,gateway", "100,500", "100")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, w := range got {
		ids = append(ids, w.id())
	}
	if want := []string{"lws", "batch-100", "batch-500", "gateway-100"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("workloads = %v, want %v", ids, want)
	}
	for _, tc := range []struct{ kinds, sizes string }{{"lws,agents", "100"}, {"batch", "0"}, {"batch", "x"}} {
		if _, err := anchorWorkloads(tc.kinds, tc.sizes, "100"); err == nil {
			t.Errorf("anchorWorkloads(%q, %q): no error", tc.kinds, tc.sizes)
		}
	}
	for kind, a := range anchorsByKind {
		if _, err := anchorWorkloads(kind, "1", "1"); err != nil {
			t.Errorf("anchor kind %q is not a workload kind: %v", kind, err)
		}
		if a.port < 1 {
			t.Errorf("%s: port offset %d", a.name, a.port)
		}
	}
}

// TestLWSAnchorClusterScoped reads the cluster-scoped objects from bindata file names.
func TestLWSAnchorClusterScoped(t *testing.T) {
	dir := t.TempDir()
	assets := filepath.Join(dir, "src", "anchor-lws-operator", "bindata", "assets", "lws-controller-generated")
	if err := os.MkdirAll(assets, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{
		"apiextensions.k8s.io_v1_customresourcedefinition_leaderworkersets.leaderworkerset.x-k8s.io.yaml",
		"rbac.authorization.k8s.io_v1_clusterrole_lws-manager-role.yaml",
		"apps_v1_deployment_lws-controller-manager.yaml",
		"v1_service_lws-webhook-service.yaml",
	} {
		if err := os.WriteFile(filepath.Join(assets, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	refs, err := lwsAnchorClusterScoped(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range refs {
		got = append(got, r.gvr.Resource+"/"+r.name)
	}
	want := []string{"customresourcedefinitions/leaderworkersets.leaderworkerset.x-k8s.io", "clusterroles/lws-manager-role"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("cluster-scoped = %v, want %v", got, want)
	}
}
