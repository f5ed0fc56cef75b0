// Package operands is the registry of the operator's kinds: the one list of every operand's
// registrations. Everything that lists the operator's kinds reads it (see
// pkg/operator/registry); adding an operand is adding its Registrations here.
package operands

import (
	"slices"

	"github.com/llm-infra/llm-infra-operator/pkg/operator/operands/batchgateway"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/operands/inferencegateway"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/operands/inferencegatewayagents"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/operands/lws"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/registry"
)

// All is every kind the operator serves, in a fixed order (the order of conditions in
// ARCHITECTURE.md, of alm-examples, of the suites' tables).
func All() []registry.Registration {
	return slices.Concat(lws.Registrations(), batchgateway.Registrations(), inferencegateway.Registrations(),
		inferencegatewayagents.Registrations())
}
