package main

import (
	"testing"

	"github.com/llm-infra/llm-infra-operator/pkg/operator/operands"
)

// TestOperandTableCoversTheRegistry: every registered kind has a CR in the faults suite's
// operand table, so kill points, restarts and uninstalling reach it.
func TestOperandTableCoversTheRegistry(t *testing.T) {
	s := &suite{settings: settings{operandNames: "all"}}
	covered := map[string]bool{}
	for _, o := range s.operandTable() {
		for _, cr := range o.crs {
			covered[cr.gvr.String()] = true
		}
	}
	for _, r := range operands.All() {
		if !covered[r.GVR().String()] {
			t.Errorf("%s is registered but the faults suite's operand table (operands.go) has no CR of it", r.GVK.Kind)
		}
	}
}
