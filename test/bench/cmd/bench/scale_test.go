package main

import (
	"path/filepath"
	"testing"
)

// The bench names the operand's objects for a CR as the operand does: every object upstream
// renders for the golden sync CR (its objects.yaml) is among the candidates of that CR.
func TestCandidatesCoverGoldenObjects(t *testing.T) {
	golden, err := readManifests(filepath.Join("..", "..", "..", "..", filepath.Dir(scaleCRManifest), "objects.yaml"), nil)
	if err != nil {
		t.Fatal(err)
	}
	crs, err := readManifests(filepath.Join("..", "..", "..", "..", scaleCRManifest), nil)
	if err != nil || len(crs) != 1 {
		t.Fatalf("%s: %v (%d objects)", scaleCRManifest, err, len(crs))
	}
	candidates, err := candidatesFor(crs[0].GetNamespace(), crs[0].GetName())
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, c := range candidates {
		have[c.kind+" "+c.namespace+"/"+c.name] = true
	}
	if len(golden) == 0 {
		t.Fatal("no golden objects")
	}
	for _, o := range golden {
		if k := o.GetKind() + " " + crs[0].GetNamespace() + "/" + o.GetName(); !have[k] {
			t.Errorf("golden object %s is not a candidate; candidates: %v", k, have)
		}
	}
}
