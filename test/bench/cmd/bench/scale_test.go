package main

import (
	"path/filepath"
	"testing"
)

// The bench names the operands' objects for a CR as the operands do: every object upstream
// renders for the golden CR of a scale kind (its objects.yaml) is among that CR's candidates.
func TestCandidatesCoverGoldenObjects(t *testing.T) {
	for _, k := range []*scaleKind{batchKind(), gatewayKind()} {
		t.Run(k.kind, func(t *testing.T) {
			root := filepath.Join("..", "..", "..", "..")
			golden, err := readManifests(filepath.Join(root, filepath.Dir(k.manifest), "objects.yaml"), nil)
			if err != nil {
				t.Fatal(err)
			}
			crs, err := readManifests(filepath.Join(root, k.manifest), nil)
			if err != nil || len(crs) != 1 {
				t.Fatalf("%s: %v (%d objects)", k.manifest, err, len(crs))
			}
			candidates, err := k.candidates(crs[0])
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
				if key := o.GetKind() + " " + crs[0].GetNamespace() + "/" + o.GetName(); !have[key] {
					t.Errorf("golden object %s is not a candidate; candidates: %v", key, have)
				}
			}
		})
	}
}

// Each namespace gets the Secrets a kind's template reads, with every key it reads.
func TestScaleKindSecrets(t *testing.T) {
	root := filepath.Join("..", "..", "..", "..")
	for _, tc := range []struct {
		kind *scaleKind
		want map[string][]string
	}{
		{batchKind(), map[string][]string{"batch-gateway-secrets": credentialKeys}},
		{gatewayKind(), map[string][]string{"openai-secret": {"api_key"}}},
	} {
		t.Run(tc.kind.kind, func(t *testing.T) {
			if err := tc.kind.load(root); err != nil {
				t.Fatal(err)
			}
			secrets, err := tc.kind.secrets(tc.kind.template)
			if err != nil {
				t.Fatal(err)
			}
			if len(secrets) != len(tc.want) {
				t.Fatalf("got %d Secrets, want %d", len(secrets), len(tc.want))
			}
			for _, s := range secrets {
				keys, ok := tc.want[s.Name]
				if !ok {
					t.Errorf("unexpected Secret %s", s.Name)
					continue
				}
				for _, k := range keys {
					if len(s.Data[k]) == 0 {
						t.Errorf("Secret %s: no key %s", s.Name, k)
					}
				}
			}
		})
	}
}

// A scenario's CRs alternate between its kinds and spread over its namespaces.
func TestScaleScenarioNames(t *testing.T) {
	s := &scaleScenario{namespacePrefix: "bench-igw", namespaces: 20}
	if got := s.namespace(23); got != "bench-igw-03" {
		t.Errorf("namespace(23) = %q", got)
	}
	batch, gw := &scaleKind{kind: "LLMBatchGateway"}, &scaleKind{kind: "Gateway"}
	s.kinds, s.counts = []*scaleKind{gw, batch}, []int{200, 100}
	if got, want := s.population(), "200 Gateways and 100 LLMBatchGateways"; got != want {
		t.Errorf("population() = %q, want %q", got, want)
	}
	if got := s.name(gw, "x"); got != "Gateway: x" {
		t.Errorf("name = %q", got)
	}
	s.kinds, s.counts = []*scaleKind{batch}, []int{200}
	if got := s.population(); got != "200 CRs" {
		t.Errorf("single population() = %q", got)
	}
}
