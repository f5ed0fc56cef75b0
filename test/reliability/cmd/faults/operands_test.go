package main

import (
	"os"
	"path/filepath"
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

// TestOperandTableOverridesAreRegistered: every row and CR override of the table names a
// registered operand package or kind (an entry left behind by a removed kind fails), and every
// CR's manifest exists.
func TestOperandTableOverridesAreRegistered(t *testing.T) {
	packages, kinds := map[string]bool{}, map[string]bool{}
	for _, r := range operands.All() {
		packages[r.OperandPackage], kinds[r.GVK.Kind] = true, true
	}
	for p := range tableRows {
		if !packages[p] {
			t.Errorf("tableRows names %s, which registers no kind", p)
		}
	}
	for k := range crOverrides {
		if !kinds[k] {
			t.Errorf("crOverrides names %s, which is not registered", k)
		}
	}
	s := &suite{settings: settings{operandNames: "all"}}
	for _, o := range s.operandTable() {
		for _, cr := range o.crs {
			if _, err := os.Stat(filepath.Join("../../../..", cr.manifest)); err != nil {
				t.Errorf("%s: %v", o.name, err)
			}
		}
	}
}
