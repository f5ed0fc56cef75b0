package main

import (
	"os"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/llm-infra/llm-infra-operator/pkg/operator/operands"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/registry"
)

// TestCommittedFilesAreCurrent: deploy/ holds what make generate writes now (make verify checks
// the same; this makes make test say it too).
func TestCommittedFilesAreCurrent(t *testing.T) {
	files, err := generate(operands.All(), "../../deploy")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(roleFiles)+1 {
		t.Errorf("%d files for %d groups' roles and the ClusterRole", len(files), len(roleFiles))
	}
	for path, want := range files {
		if got, err := os.ReadFile(path); err != nil || string(got) != string(want) {
			t.Errorf("%s is not current (%v): run make generate", path, err)
		}
	}
}

// TestANewKindIsGenerated: a namespaced kind added to a group has its roles and its CR rules
// without an edit; a kind of a new group fails until roleFiles names the group's file.
func TestANewKindIsGenerated(t *testing.T) {
	all := operands.All()
	var gpu registry.Registration
	for _, r := range all {
		if r.GVK.Kind == "GPU" {
			gpu = r
		}
	}
	widget := gpu
	widget.Operand, widget.GVK, widget.Resource = "widget", schema.GroupVersionKind{Group: gpu.GVK.Group, Version: gpu.GVK.Version, Kind: "Widget"}, "widgets"
	requests := gpu.Requests
	widget.Requests = func(ns string) []registry.Request {
		var out []registry.Request
		for _, r := range requests(ns) {
			r.Resources = append([]string(nil), r.Resources...)
			for i, res := range r.Resources {
				if base, sub, _ := strings.Cut(res, "/"); base == "gpus" && r.APIGroups[0] == gpu.GVK.Group {
					r.Resources[i] = strings.TrimSuffix("widgets/"+sub, "/")
				}
			}
			out = append(out, r)
		}
		return out
	}
	files, err := generate(append(all, widget), "../../deploy")
	if err != nil {
		t.Fatal(err)
	}
	roles := string(files["../../deploy/09_inferencegateway-roles.yaml"])
	rules := string(files["../../deploy/03_clusterrole.yaml"])
	for _, want := range []string{"  - widgets\n", "  - widgets/status\n"} {
		if !strings.Contains(roles, want) {
			t.Errorf("the users' roles lack %q:\n%s", want, roles)
		}
	}
	for _, want := range []string{"  - gpus\n  - widgets\n  verbs:\n  - update\n", "  - widgets/finalizers\n", ", " + lastKind(all, gpu.GVK.Group) + " and Widget\n"} {
		if !strings.Contains(rules, want) {
			t.Errorf("the ClusterRole lacks %q", want)
		}
	}

	widget.GVK.Group = "widgets.example.com"
	if _, err := generate(append(all, widget), "../../deploy"); err == nil || !strings.Contains(err.Error(), "roleFiles") {
		t.Errorf("a kind of a new group without a roles file: %v", err)
	}
}

// lastKind is the last registered namespaced kind of the group: the kind the ClusterRole's
// header names before a kind added after it.
func lastKind(all []registry.Registration, group string) string {
	last := ""
	for _, r := range all {
		if r.Namespaced && r.GVK.Group == group {
			last = r.GVK.Kind
		}
	}
	return last
}
