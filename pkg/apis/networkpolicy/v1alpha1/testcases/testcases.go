// Package testcases is the table of spec.networkPolicy admission cases, the same for every kind
// whose spec embeds a ServingNetworkPolicy: each kind's table (pkg/apis/*/*/testcases) adds
// them on its own base object. It is data, like those tables: it imports nothing that
// validates.
package testcases

import (
	"fmt"

	"github.com/llm-infra/llm-infra-operator/pkg/apis/internal/admission"
	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/networkpolicy/v1alpha1"
)

// Accepted are spec.networkPolicy blocks every kind with a ServingNetworkPolicy admits, on base.
func Accepted(base string) []admission.Case {
	return []admission.Case{
		{Name: "a NetworkPolicy open to any address", Base: base, Patch: `{spec: {networkPolicy: {enabled: true}}}`},
		{Name: "no NetworkPolicy, said explicitly", Base: base, Patch: `{spec: {networkPolicy: {enabled: false}}}`},
		{Name: "a NetworkPolicy open to selected peers", Base: base, Patch: `
spec:
  networkPolicy:
    enabled: true
    monitoringNamespace: monitoring
    from:
    - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: clients}}
    - podSelector: {matchLabels: {app.kubernetes.io/component: gateway}}
    - namespaceSelector: {matchExpressions: [{key: team, operator: In, values: [ml]}]}
      podSelector: {}
`},
		{Name: "a NetworkPolicy at the size bounds", Base: base, Patch: fmt.Sprintf(`
spec:
  networkPolicy:
    enabled: true
    monitoringNamespace: %s
    from: %s
`, admission.Long(63), admission.Items(32, fmt.Sprintf("{namespaceSelector: {matchLabels: %s, matchExpressions: %s}}",
			admission.Props(16, admission.Long(63)), admission.Items(8, fmt.Sprintf("{key: %s, operator: In, values: %s}", qualifiedName, admission.Items(16, admission.Long(63)))))))},
	}
}

// Rejected are spec.networkPolicy blocks every such kind refuses, on base.
func Rejected(base string) []admission.Case {
	return []admission.Case{
		{Name: "a NetworkPolicy peer that selects nothing", Base: base, Patch: `{spec: {networkPolicy: {enabled: true, from: [{}]}}}`,
			Errors: []string{admission.Invalid("spec.networkPolicy.from[0]", v1alpha1.MessageNetworkPolicyPeer)}},
		{Name: "an empty NetworkPolicy from", Base: base, Patch: `{spec: {networkPolicy: {enabled: true, from: []}}}`,
			Errors: []string{`spec.networkPolicy.from: Invalid value: 0: spec.networkPolicy.from in body should have at least 1 items`}},
		{Name: "33 NetworkPolicy peers", Base: base, Patch: `{spec: {networkPolicy: {from: ` + admission.Items(33, "{podSelector: {}}") + `}}}`,
			Errors: []string{admission.TooMany("spec.networkPolicy.from", 33, 32), admission.RulesNotChecked}},
		{Name: "a NetworkPolicy monitoringNamespace that is no namespace name", Base: base, Patch: `{spec: {networkPolicy: {monitoringNamespace: Monitoring}}}`,
			Errors: []string{admission.Pattern("spec.networkPolicy.monitoringNamespace", "Monitoring", "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")}},
		{Name: "a NetworkPolicy peer's label value", Base: base, Patch: fmt.Sprintf(`{spec: {networkPolicy: {from: [{podSelector: {matchLabels: {app: %s}}}]}}}`, admission.Long(64)),
			Errors: []string{admission.TooLong("spec.networkPolicy.from[0].podSelector.matchLabels.app", 63), admission.RulesNotChecked}},
		{Name: "a NetworkPolicy peer with 9 matchExpressions (the bound that keeps a CR under the request limit)", Base: base, Patch: `{spec: {networkPolicy: {from: [{podSelector: {matchExpressions: ` + admission.Items(9, "{key: a, operator: Exists}") + `}}]}}}`,
			Errors: []string{admission.TooMany("spec.networkPolicy.from[0].podSelector.matchExpressions", 9, 8), admission.RulesNotChecked}},
		{Name: "a NetworkPolicy peer with 17 matchLabels", Base: base, Patch: `{spec: {networkPolicy: {from: [{namespaceSelector: {matchLabels: ` + admission.Props(17, "v") + `}}]}}}`,
			Errors: []string{admission.TooMany("spec.networkPolicy.from[0].namespaceSelector.matchLabels", 17, 16), admission.RulesNotChecked}},
		{Name: "a NetworkPolicy peer with an ipBlock", Base: base, Patch: `{spec: {networkPolicy: {from: [{ipBlock: {cidr: 10.0.0.0/8}}]}}}`,
			Errors: []string{`unknown field "spec.networkPolicy.from[0].ipBlock"`}},
	}
}

// qualifiedName is a label key of the longest kind (a DNS subdomain of 253, "/" and a name of
// 63): the rendered NetworkPolicy's selectors must hold valid label keys, which admission does
// not check for a peer (docs/reliability.md), so the case at the bounds uses a valid one.
var qualifiedName = admission.Long(253) + "/" + admission.Long(63)
