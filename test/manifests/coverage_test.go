package manifests

import (
	"fmt"
	"slices"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/component-helpers/auth/rbac/validation"
)

// uncovered returns the parts of want that the rules of owner do not grant, one string per
// missing (verb, group, resource, name) or (verb, URL): Kubernetes' own escalation check
// (k8s.io/component-helpers/auth/rbac/validation.Covers, what the API server runs before it
// lets the operator create a Role), want split into single permissions.
func uncovered(owner []rbacv1.PolicyRule, want rbacv1.PolicyRule) []string {
	_, missing := validation.Covers(owner, []rbacv1.PolicyRule{want})
	var out []string
	for _, m := range missing {
		for _, verb := range m.Verbs {
			for _, url := range m.NonResourceURLs {
				out = append(out, fmt.Sprintf("%s %s", verb, url))
			}
			names := m.ResourceNames
			if len(names) == 0 {
				names = []string{""}
			}
			for _, group := range m.APIGroups {
				for _, resource := range m.Resources {
					for _, name := range names {
						out = append(out, describe(verb, group, resource, name))
					}
				}
			}
		}
	}
	return out
}

// describe names a single permission, e.g. `update pods/finalizers (core group, any name)`.
func describe(verb, group, resource, name string) string {
	if group == "" {
		group = "core"
	}
	if name == "" {
		return fmt.Sprintf("%s %s (%s group, any name)", verb, resource, group)
	}
	return fmt.Sprintf("%s %s (%s group, name %s)", verb, resource, group, name)
}

// uncoveredRules is uncovered for every rule of want.
func uncoveredRules(owner, want []rbacv1.PolicyRule) []string {
	var missing []string
	for _, r := range want {
		missing = append(missing, uncovered(owner, r)...)
	}
	return missing
}

func TestUncovered(t *testing.T) {
	rule := func(groups, resources, verbs, names []string) rbacv1.PolicyRule {
		return rbacv1.PolicyRule{APIGroups: groups, Resources: resources, Verbs: verbs, ResourceNames: names}
	}
	l := func(s ...string) []string { return s }
	for _, tc := range []struct {
		name    string
		owner   []rbacv1.PolicyRule
		want    rbacv1.PolicyRule
		missing []string
	}{
		{"same rule", []rbacv1.PolicyRule{rule(l(""), l("pods"), l("get", "list"), nil)},
			rule(l(""), l("pods"), l("get", "list"), nil), nil},
		{"split across rules", []rbacv1.PolicyRule{rule(l(""), l("pods"), l("get"), nil), rule(l(""), l("pods"), l("list"), nil)},
			rule(l(""), l("pods"), l("get", "list"), nil), nil},
		{"missing verb", []rbacv1.PolicyRule{rule(l(""), l("pods"), l("get"), nil)},
			rule(l(""), l("pods"), l("get", "delete"), nil), l("delete pods (core group, any name)")},
		{"wrong group", []rbacv1.PolicyRule{rule(l("apps"), l("pods"), l("get"), nil)},
			rule(l(""), l("pods"), l("get"), nil), l("get pods (core group, any name)")},
		{"wildcards", []rbacv1.PolicyRule{rule(l("*"), l("*"), l("*"), nil)},
			rule(l("apps"), l("deployments", "deployments/status"), l("get", "patch"), l("x")), nil},
		{"subresource wildcard", []rbacv1.PolicyRule{rule(l("apps"), l("*/status"), l("get"), nil)},
			rule(l("apps"), l("deployments/status", "deployments"), l("get"), nil), l("get deployments (apps group, any name)")},
		{"named rule covers that name", []rbacv1.PolicyRule{rule(l(""), l("secrets"), l("get"), l("a", "b"))},
			rule(l(""), l("secrets"), l("get"), l("b")), nil},
		{"named rule does not cover another name", []rbacv1.PolicyRule{rule(l(""), l("secrets"), l("get"), l("a"))},
			rule(l(""), l("secrets"), l("get"), l("b")), l("get secrets (core group, name b)")},
		{"named rule does not cover every name", []rbacv1.PolicyRule{rule(l(""), l("secrets"), l("get"), l("a"))},
			rule(l(""), l("secrets"), l("get"), nil), l("get secrets (core group, any name)")},
		{"non-resource URL", []rbacv1.PolicyRule{{NonResourceURLs: l("/metrics"), Verbs: l("get")}},
			rbacv1.PolicyRule{NonResourceURLs: l("/metrics"), Verbs: l("get")}, nil},
		{"non-resource URL prefix", []rbacv1.PolicyRule{{NonResourceURLs: l("/debug/*"), Verbs: l("get")}},
			rbacv1.PolicyRule{NonResourceURLs: l("/debug/pprof", "/metrics"), Verbs: l("get")}, l("get /metrics")},
		{"resource rule does not grant a URL", []rbacv1.PolicyRule{rule(l("*"), l("*"), l("*"), nil)},
			rbacv1.PolicyRule{NonResourceURLs: l("/metrics"), Verbs: l("get")}, l("get /metrics")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := uncovered(tc.owner, tc.want); !slices.Equal(got, tc.missing) {
				t.Errorf("uncovered = %q, want %q", got, tc.missing)
			}
		})
	}
}
