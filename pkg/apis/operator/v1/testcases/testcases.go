// Package testcases is the table of LeaderWorkerSetOperator admission cases: objects the API
// server must accept and objects it must reject, each with the errors it must return. The API
// package's unit tests run every case through the API server's own validators
// (pkg/apis/crdtest); the e2e suite and the reliability suite
// (test/reliability/admission) create them on a real API server. It is data: it imports nothing
// that validates.
package testcases

import (
	"fmt"

	"github.com/llm-infra/llm-infra-operator/pkg/apis/internal/admission"
)

// Case is one object and what the API server says about it: Base with Patch (a JSON merge
// patch, as YAML) applied, and the substrings of the errors the API server must return (none:
// accepted).
type Case = admission.Case

// Base is the smallest valid LeaderWorkerSetOperator: the singleton, Managed.
const Base = `
apiVersion: operator.openshift.io/v1
kind: LeaderWorkerSetOperator
metadata: {name: cluster}
spec: {managementState: Managed}
`

// RulesNotChecked is the API server's error when schema errors keep it from running the CEL
// rules.
const RulesNotChecked = admission.RulesNotChecked

// MessageSingleton, MessageManagementState and MessageTolerationOperator are the CRD's CEL
// rules' messages (types_leaderworkersetoperator.go).
const (
	MessageSingleton          = "LeaderWorkerSetOperator is a singleton: its name must be 'cluster'"
	MessageManagementState    = "spec.managementState is required and must be one of Managed, Unmanaged, Force or Removed"
	MessageTolerationOperator = "nodePlacement.tolerations[].operator must be Exists or Equal"
	MessageTolerationEffect   = "nodePlacement.tolerations[].effect must be NoSchedule, PreferNoSchedule or NoExecute"
	MessageTolerationSeconds  = "nodePlacement.tolerations[].tolerationSeconds needs effect NoExecute"
	MessageTolerationExists   = "nodePlacement.tolerations[].value must be empty when operator is Exists"
	MessageTolerationNoKey    = "nodePlacement.tolerations[] without a key must have operator Exists (it then tolerates every taint)"
	MessageTolerationKey      = "nodePlacement.tolerations[].key must be a qualified name, as a taint's key is: an optional DNS subdomain of at most 253 characters and '/', then at most 63 letters, digits, '-', '_' or '.' that start and end with a letter or digit (example.com/gpu)"
	MessageTolerationValue    = "nodePlacement.tolerations[].value must be a label value, as a taint's value is: letters, digits, '-', '_' or '.' that start and end with a letter or digit, or empty"
	MessageNodeSelector       = "nodePlacement.nodeSelector must hold node labels: each key a qualified name (an optional DNS subdomain of at most 253 characters and '/', then at most 63 letters, digits, '-', '_' or '.' that start and end with a letter or digit), each value letters, digits, '-', '_' or '.' that start and end with a letter or digit, or empty"
)

// Accepted are valid objects.
var Accepted = []Case{
	{Name: "minimal", Base: Base},
	{Name: "every field set", Base: Base, Patch: `
spec:
  managementState: Managed
  logLevel: Debug
  operatorLogLevel: TraceAll
  nodePlacement:
    nodeSelector: {node-role.kubernetes.io/infra: ""}
    tolerations:
    - {key: node-role.kubernetes.io/infra, operator: Exists, effect: NoSchedule}
    - {key: example.com/gpu, operator: Equal, value: "true", effect: NoExecute, tolerationSeconds: 30}
  certificates: {source: CertManager}
  networkPolicy: {enabled: true, monitoringNamespace: monitoring}
status:
  observedGeneration: 2
  conditions:
  - {type: Available, status: "True", lastTransitionTime: "2026-01-02T03:04:05Z", reason: AsExpected}
`},
	{Name: "Removed", Base: Base, Patch: `{spec: {managementState: Removed}}`},
	{Name: "certificates from the operator's CA", Base: Base, Patch: `{spec: {certificates: {source: Operator}}}`},
	{Name: "certificates from the service CA", Base: Base, Patch: `{spec: {certificates: {source: ServiceCA}}}`},
	{Name: "Unmanaged", Base: Base, Patch: `{spec: {managementState: Unmanaged}}`},
	{Name: "Force", Base: Base, Patch: `{spec: {managementState: Force}}`},
	{Name: "a NetworkPolicy with the default monitoring namespace", Base: Base, Patch: `{spec: {networkPolicy: {enabled: true}}}`},
	{Name: "no NetworkPolicy, said explicitly", Base: Base, Patch: `{spec: {networkPolicy: {enabled: false}}}`},
	{Name: "64 tolerations (the bound)", Base: Base, Patch: `{spec: {nodePlacement: {tolerations: ` + admission.Items(64, "{key: a, operator: Exists}") + `}}}`},
	{Name: "empty nodePlacement", Base: Base, Patch: `{spec: {nodePlacement: {}}}`},
	{Name: "a toleration of every taint (no key, Exists)", Base: Base, Patch: `{spec: {nodePlacement: {tolerations: [{operator: Exists}]}}}`},
	{Name: "a toleration without operator (Equal)", Base: Base, Patch: `{spec: {nodePlacement: {tolerations: [{key: a, value: b, effect: PreferNoSchedule}]}}}`},

	// Size bounds (issue 33): at each bound, admitted.
	{Name: "at the size bounds", Base: Base, Patch: fmt.Sprintf(`{spec: {nodePlacement: {nodeSelector: %s, tolerations: [{key: %s, operator: Equal, value: %s, effect: NoSchedule}]}}}`,
		admission.Props(64, admission.Long(63)), qualifiedName, admission.Long(63))},
	{Name: "qualified names at their part's bounds", Base: Base, Patch: fmt.Sprintf(`{spec: {nodePlacement: {nodeSelector: {%s: v, %s: v}, tolerations: [{key: %s, operator: Exists}, {key: a.b-c/D_e.F, operator: Exists}]}}}`,
		admission.Long(63), "a.b-c/D_e.F", admission.Long(63))},
	{Name: "an empty nodeSelector value and toleration value", Base: Base, Patch: `{spec: {nodePlacement: {nodeSelector: {a: ""}, tolerations: [{key: a, operator: Equal, value: ""}]}}}`},
	{Name: "a monitoring namespace of 63 (the bound)", Base: Base, Patch: fmt.Sprintf(`{spec: {networkPolicy: {enabled: true, monitoringNamespace: %s}}}`, admission.Long(63))},
}

// qualifiedName is a label's or taint's key of the longest kind: a DNS subdomain of 253, "/"
// and a name of 63.
var qualifiedName = admission.Long(253) + "/" + admission.Long(63)

// Rejected are invalid objects, with the errors the API server returns.
var Rejected = []Case{
	// Names.
	{Name: "any other name", Base: Base, Patch: `{metadata: {name: foo}}`, Errors: []string{"<nil>: Invalid value: " + MessageSingleton}},
	{Name: "name Cluster (case matters)", Base: Base, Patch: `{metadata: {name: Cluster}}`,
		Errors: []string{`metadata.name: Invalid value: "Cluster": a lowercase RFC 1123 subdomain`, "<nil>: Invalid value: " + MessageSingleton}},

	// Required fields.
	{Name: "missing spec", Base: Base, Patch: `{spec: null}`, Errors: []string{admission.Missing("spec"), RulesNotChecked}},
	{Name: "missing managementState", Base: Base, Patch: `{spec: {managementState: null, logLevel: Debug}}`, Errors: []string{admission.Invalid("spec", MessageManagementState)}},

	// Enums and patterns.
	{Name: "unknown managementState", Base: Base, Patch: `{spec: {managementState: Bogus}}`, Errors: []string{
		`spec.managementState: Invalid value: "Bogus": spec.managementState in body should match '^(Managed|Unmanaged|Force|Removed)$'`,
		admission.Invalid("spec", MessageManagementState),
	}},
	{Name: "managementState managed (case matters)", Base: Base, Patch: `{spec: {managementState: managed}}`, Errors: []string{
		`spec.managementState: Invalid value: "managed": spec.managementState in body should match '^(Managed|Unmanaged|Force|Removed)$'`,
		admission.Invalid("spec", MessageManagementState),
	}},
	// An enum error keeps the API server from running the CEL rules, and it says so.
	{Name: "unknown logLevel", Base: Base, Patch: `{spec: {logLevel: Loud}}`,
		Errors: []string{`spec.logLevel: Unsupported value: "Loud": supported values: "", "Normal", "Debug", "Trace", "TraceAll"`, RulesNotChecked}},
	{Name: "unknown certificate source", Base: Base, Patch: `{spec: {certificates: {source: SelfSigned}}}`,
		Errors: []string{`spec.certificates.source: Unsupported value: "SelfSigned": supported values: "Automatic", "CertManager", "ServiceCA", "Operator"`, RulesNotChecked}},
	{Name: "unknown operatorLogLevel", Base: Base, Patch: `{spec: {operatorLogLevel: Loud}}`,
		Errors: []string{`spec.operatorLogLevel: Unsupported value: "Loud": supported values: "", "Normal", "Debug", "Trace", "TraceAll"`, RulesNotChecked}},

	// Cross-field rules.
	{Name: "toleration with an unknown operator", Base: Base, Patch: `{spec: {nodePlacement: {tolerations: [{key: a, operator: Sometimes}]}}}`,
		Errors: []string{admission.Invalid("spec.nodePlacement", MessageTolerationOperator)}},

	// Tolerations the controller's Deployment could not take: the CRD admitted them, and the
	// API server's validation of a pod's tolerations refuses them.
	{Name: "toleration effect Sometimes", Base: Base, Patch: `{spec: {nodePlacement: {tolerations: [{key: a, operator: Exists, effect: Sometimes}]}}}`,
		Errors: []string{admission.Invalid("spec.nodePlacement", MessageTolerationEffect)}},
	{Name: "tolerationSeconds with effect NoSchedule", Base: Base, Patch: `{spec: {nodePlacement: {tolerations: [{key: a, operator: Exists, effect: NoSchedule, tolerationSeconds: 30}]}}}`,
		Errors: []string{admission.Invalid("spec.nodePlacement", MessageTolerationSeconds)}},
	{Name: "operator Exists with a value", Base: Base, Patch: `{spec: {nodePlacement: {tolerations: [{key: a, operator: Exists, value: b}]}}}`,
		Errors: []string{admission.Invalid("spec.nodePlacement", MessageTolerationExists)}},
	{Name: "toleration without key, operator Equal", Base: Base, Patch: `{spec: {nodePlacement: {tolerations: [{operator: Equal, value: b}]}}}`,
		Errors: []string{admission.Invalid("spec.nodePlacement", MessageTolerationNoKey)}},

	// Oversized lists.
	{Name: "65 tolerations", Base: Base, Patch: `{spec: {nodePlacement: {tolerations: ` + admission.Items(65, "{key: a, operator: Exists}") + `}}}`,
		Errors: []string{admission.TooMany("spec.nodePlacement.tolerations", 65, 64), RulesNotChecked}},

	// Types and unknown fields.
	{Name: "tolerations of the wrong shape", Base: Base, Patch: `{spec: {nodePlacement: {tolerations: {key: a}}}}`,
		// A map where a list belongs: its keys are fields the schema does not know, and strict
		// field validation (kubectl's default) fails the request on them before validating.
		Errors: []string{`unknown field "spec.nodePlacement.tolerations.key"`}},
	{Name: "tolerations of the wrong type", Base: Base, Patch: `{spec: {nodePlacement: {tolerations: node-role.kubernetes.io/infra}}}`,
		// The schema error; the tolerations rule is not run on a value that is not a list.
		Errors: []string{`spec.nodePlacement.tolerations: Invalid value: "string": spec.nodePlacement.tolerations in body must be of type array`, RulesNotChecked}},
	{Name: "unknown spec field", Base: Base, Patch: `{spec: {replicas: 2}}`, Errors: []string{`unknown field "spec.replicas"`}},
	{Name: "tolerationSeconds as a string", Base: Base, Patch: `{spec: {nodePlacement: {tolerations: [{key: a, operator: Exists, effect: NoExecute, tolerationSeconds: soon}]}}}`,
		Errors: []string{fmt.Sprintf(`spec.nodePlacement.tolerations[0].tolerationSeconds: Invalid value: "string": %s in body must be of type integer`, "spec.nodePlacement.tolerations[0].tolerationSeconds"), RulesNotChecked}},

	// spec.networkPolicy.monitoringNamespace names a namespace: a DNS label.
	{Name: "a monitoring namespace that is not a DNS label", Base: Base, Patch: `{spec: {networkPolicy: {enabled: true, monitoringNamespace: Monitoring_NS}}}`,
		Errors: []string{admission.Pattern("spec.networkPolicy.monitoringNamespace", "Monitoring_NS", `^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)}},
	{Name: "a monitoring namespace of 64", Base: Base, Patch: fmt.Sprintf(`{spec: {networkPolicy: {monitoringNamespace: %s}}}`, admission.Long(64)),
		Errors: []string{admission.TooLong("spec.networkPolicy.monitoringNamespace", 63), RulesNotChecked}},
	{Name: "networkPolicy.enabled as a string", Base: Base, Patch: `{spec: {networkPolicy: {enabled: "yes"}}}`,
		Errors: []string{`spec.networkPolicy.enabled: Invalid value: "string": spec.networkPolicy.enabled in body must be of type boolean: "string"`, RulesNotChecked}},

	// Size bounds (issue 33): one past each bound, refused.
	{Name: "65 nodeSelector labels", Base: Base, Patch: `{spec: {nodePlacement: {nodeSelector: ` + admission.Props(65, "v") + `}}}`,
		Errors: []string{admission.TooMany("spec.nodePlacement.nodeSelector", 65, 64), RulesNotChecked}},
	{Name: "a nodeSelector value of 64", Base: Base, Patch: fmt.Sprintf(`{spec: {nodePlacement: {nodeSelector: {a: %s}}}}`, admission.Long(64)),
		Errors: []string{admission.TooLong("spec.nodePlacement.nodeSelector.a", 63), RulesNotChecked}},
	{Name: "a toleration key of 318", Base: Base, Patch: fmt.Sprintf(`{spec: {nodePlacement: {tolerations: [{key: %s, operator: Exists}]}}}`, admission.Long(318)),
		Errors: []string{admission.TooLong("spec.nodePlacement.tolerations[0].key", 317), RulesNotChecked}},
	// Keys and values the pod would refuse (issue 33: the controller's Deployment must be valid).
	{Name: "a toleration key with a space", Base: Base, Patch: `{spec: {nodePlacement: {tolerations: [{key: "a b", operator: Exists}]}}}`,
		Errors: []string{admission.Invalid("spec.nodePlacement", MessageTolerationKey)}},
	{Name: "a toleration key whose name is 64", Base: Base, Patch: fmt.Sprintf(`{spec: {nodePlacement: {tolerations: [{key: %s, operator: Exists}]}}}`, admission.Long(64)),
		Errors: []string{admission.Invalid("spec.nodePlacement", MessageTolerationKey)}},
	{Name: "a toleration key whose prefix is 254", Base: Base, Patch: fmt.Sprintf(`{spec: {nodePlacement: {tolerations: [{key: %s/a, operator: Exists}]}}}`, admission.Long(254)),
		Errors: []string{admission.Invalid("spec.nodePlacement", MessageTolerationKey)}},
	{Name: "a toleration key with an upper-case prefix", Base: Base, Patch: `{spec: {nodePlacement: {tolerations: [{key: Example.com/gpu, operator: Exists}]}}}`,
		Errors: []string{admission.Invalid("spec.nodePlacement", MessageTolerationKey)}},
	{Name: "a toleration value ending in a dash", Base: Base, Patch: `{spec: {nodePlacement: {tolerations: [{key: a, value: b-}]}}}`,
		Errors: []string{admission.Invalid("spec.nodePlacement", MessageTolerationValue)}},
	{Name: "a nodeSelector key with a space", Base: Base, Patch: `{spec: {nodePlacement: {nodeSelector: {"a b": v}}}}`,
		Errors: []string{admission.Invalid("spec.nodePlacement", MessageNodeSelector)}},
	{Name: "a nodeSelector value with a slash", Base: Base, Patch: `{spec: {nodePlacement: {nodeSelector: {a: b/c}}}}`,
		Errors: []string{admission.Invalid("spec.nodePlacement", MessageNodeSelector)}},
	{Name: "a toleration value of 64", Base: Base, Patch: fmt.Sprintf(`{spec: {nodePlacement: {tolerations: [{key: a, value: %s}]}}}`, admission.Long(64)),
		Errors: []string{admission.TooLong("spec.nodePlacement.tolerations[0].value", 63), RulesNotChecked}},
}
