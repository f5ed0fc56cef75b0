package manifests

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
)

// uncovered returns the parts of want that no rule in owner grants, one string per missing
// (verb, group, resource, name) or (verb, URL), the way the API server's escalation check
// compares rules: want is split into single permissions and each must be granted by one rule.
func uncovered(owner []rbacv1.PolicyRule, want rbacv1.PolicyRule) []string {
	var missing []string
	for _, verb := range want.Verbs {
		for _, url := range want.NonResourceURLs {
			if !slices.ContainsFunc(owner, func(r rbacv1.PolicyRule) bool {
				return has(r.Verbs, verb) && slices.ContainsFunc(r.NonResourceURLs, func(u string) bool { return urlMatches(u, url) })
			}) {
				missing = append(missing, fmt.Sprintf("%s %s", verb, url))
			}
		}
		names := want.ResourceNames
		if len(names) == 0 {
			names = []string{""} // any name: only a rule without resourceNames grants it
		}
		for _, group := range want.APIGroups {
			for _, resource := range want.Resources {
				for _, name := range names {
					if !slices.ContainsFunc(owner, func(r rbacv1.PolicyRule) bool {
						return has(r.Verbs, verb) && has(r.APIGroups, group) &&
							slices.ContainsFunc(r.Resources, func(res string) bool { return resourceMatches(res, resource) }) &&
							(len(r.ResourceNames) == 0 || (name != "" && slices.Contains(r.ResourceNames, name)))
					}) {
						missing = append(missing, describe(verb, group, resource, name))
					}
				}
			}
		}
	}
	return missing
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

// has reports whether values holds v or the wildcard "*".
func has(values []string, v string) bool {
	return slices.Contains(values, rbacv1.VerbAll) || slices.Contains(values, v)
}

// resourceMatches follows the RBAC authorizer: "*" matches everything, "*/sub" every
// resource's subresource sub, anything else only itself.
func resourceMatches(rule, requested string) bool {
	if rule == rbacv1.ResourceAll || rule == requested {
		return true
	}
	_, sub, ok := strings.Cut(requested, "/")
	return ok && rule == "*/"+sub
}

// urlMatches follows the RBAC authorizer: a trailing "*" is a prefix match.
func urlMatches(rule, requested string) bool {
	if prefix, ok := strings.CutSuffix(rule, "*"); ok {
		return strings.HasPrefix(requested, prefix)
	}
	return rule == requested
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
