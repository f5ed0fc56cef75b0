// Command newkind scaffolds a new namespaced kind on the engine (make new-kind): the files a
// kind's author writes by hand, from the templates in templates/, and the two registrations
// that name them. Everything else about the kind (deepcopy, clients, informers, listers, apply
// configurations, the CRD, the users' roles, the operator's ClusterRole rules, the OLM
// bundle's owned CRD and alm-example) follows from these files through `make generate`, and the
// tests that list kinds read the registry (pkg/operator/operands.All), so they cover the new
// kind without an edit.
//
// It writes, for KIND in the API package GROUP (pkg/apis/GROUP, an existing group) and the
// operand package OPERAND (pkg/operator/operands/OPERAND, existing or new):
//
//   - pkg/apis/GROUP/types_<kind>.go: the CR with spec (image, replicas) and status
//     (conditions, observedGeneration, generations), kubebuilder markers with every field
//     described and bounded, a CEL rule on the name, and ValidateSpec, the rule in Go;
//   - pkg/apis/GROUP/testcases/<kind>.go: the admission table (base CR, accepted, rejected);
//   - pkg/apis/GROUP/crd_validation_<kind>_test.go: the table against the generated CRD,
//     ValidateSpec against its CEL rules, every field described and bounded;
//   - pkg/operator/operands/OPERAND/<kind>.go: the engine.Kind (asset table, render, status
//     writer) and the registration;
//   - pkg/operator/operands/OPERAND/<kind>_test.go: render, status and a fuzz target;
//   - bindata/assets/OPERAND/<kind>-deployment.yaml: the Deployment's manifest;
//   - deploy/examples/<kind>_example.yaml: the example (alm-examples, make run-local, the
//     faults suite);
//   - for a new OPERAND, pkg/operator/operands/OPERAND/registration.go (Registrations).
//
// and edits, each at one place: the API package's addKnownTypes (the scheme), and the operand
// package's Registrations (or, for a new operand package, pkg/operator/operands.All). It
// refuses to overwrite a file. What is left to the author is printed at the end.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
)

func main() {
	var p params
	flag.StringVar(&p.Kind, "kind", "", "the kind, in UpperCamelCase (Sandbox)")
	flag.StringVar(&p.GroupDir, "group", "", "the API package under pkg/apis, an existing group (inferencegateway/v1alpha1)")
	flag.StringVar(&p.Operand, "operand", "", "the operand package under pkg/operator/operands, existing or new (sandbox)")
	flag.StringVar(&p.Plural, "plural", "", "the resource, lowercase plural (default: client-gen's plural of the kind)")
	flag.StringVar(&p.PartOf, "part-of", "", "the app.kubernetes.io/part-of label of the kind's objects (default: the operand package's name)")
	root := flag.String("root", ".", "the repository")
	flag.Parse()
	written, edited, err := scaffold(*root, p)
	if err != nil {
		fmt.Fprintln(os.Stderr, "newkind:", err)
		os.Exit(1)
	}
	fmt.Printf("newkind: wrote\n  %s\nand edited\n  %s\n", strings.Join(written, "\n  "), strings.Join(edited, "\n  "))
	fmt.Print(leftToTheAuthor(p))
}
