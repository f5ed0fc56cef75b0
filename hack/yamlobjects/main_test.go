package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestList(t *testing.T) {
	for _, tc := range []struct {
		name, yaml, want string
		fails            bool
	}{
		{"kubectl's names, in file order, comments and empty documents skipped", `# header
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  # a comment where a line parser would look
  annotations:
    name: not-this
  name: httproutes.gateway.networking.k8s.io
spec:
  names:
    kind: HTTPRoute
---
---
apiVersion: v1
kind: ConfigMap
metadata: {name: "quoted", namespace: x}
`, "customresourcedefinition.apiextensions.k8s.io/httproutes.gateway.networking.k8s.io\nconfigmap/quoted\n", false},
		{"an object without a name", "apiVersion: v1\nkind: ConfigMap\n", "", true},
		{"not YAML", "a: [", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "objects.yaml")
			if err := os.WriteFile(path, []byte(tc.yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			err := list(&out, path, writeName)
			if (err != nil) != tc.fails {
				t.Fatalf("error %v, want failure %v", err, tc.fails)
			}
			if !tc.fails && out.String() != tc.want {
				t.Errorf("got\n%s\nwant\n%s", out.String(), tc.want)
			}
		})
	}
}

func TestWithout(t *testing.T) {
	const in = `apiVersion: v1
kind: ConfigMap
metadata: {name: kept}
---
# a comment
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: tlsroutes.gateway.networking.k8s.io
---
apiVersion: v1
kind: ConfigMap
metadata: {name: also-kept}
`
	path := filepath.Join(t.TempDir(), "objects.yaml")
	if err := os.WriteFile(path, []byte(in), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := list(&out, path, writeDocumentUnless([]string{"customresourcedefinition.apiextensions.k8s.io/tlsroutes.gateway.networking.k8s.io"})); err != nil {
		t.Fatal(err)
	}
	// What was written lists exactly the objects kept, in order.
	kept := filepath.Join(t.TempDir(), "kept.yaml")
	if err := os.WriteFile(kept, out.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	var names bytes.Buffer
	if err := list(&names, kept, writeName); err != nil {
		t.Fatalf("the written documents do not read back: %v\n%s", err, out.String())
	}
	if want := "configmap/kept\nconfigmap/also-kept\n"; names.String() != want {
		t.Errorf("kept %q, want %q", names.String(), want)
	}
}
