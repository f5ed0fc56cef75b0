// Command yamlobjects lists the objects of multi-document YAML files as `kubectl get -o name`
// names them (<kind>.<group>/<name>, lower-case kind, no group for the core API), one a line,
// in file order. hack/optional-crds.sh uses it for the object list of a rendered set of CRDs:
// the documents are split and decoded by apimachinery's YAML reader, not matched line by line.
//
// With -without, it writes the documents themselves instead, less the objects named (kubectl
// names, separated by spaces or newlines): how the script leaves out what an older API server
// refuses.
//
// Usage: go run ./hack/yamlobjects [-without NAMES] FILE...
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/yaml"
)

func main() {
	without := flag.String("without", "", "write the documents, less the objects of these kubectl names")
	flag.Parse()
	if flag.NArg() < 1 {
		fmt.Fprintln(os.Stderr, "usage: yamlobjects [-without NAMES] FILE...")
		os.Exit(2)
	}
	out := bufio.NewWriter(os.Stdout)
	write := writeName
	if isSet("without") {
		write = writeDocumentUnless(strings.Fields(*without))
	}
	for _, path := range flag.Args() {
		if err := list(out, path, write); err != nil {
			fmt.Fprintf(os.Stderr, "yamlobjects: %s: %v\n", path, err)
			os.Exit(1)
		}
	}
	if err := out.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "yamlobjects:", err)
		os.Exit(1)
	}
}

// isSet says whether the flag was given, even empty (-without "" keeps every document).
func isSet(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// writeName writes an object's kubectl name.
func writeName(w io.Writer, name string, _ []byte) {
	fmt.Fprintln(w, name)
}

// writeDocumentUnless writes an object's document, as a YAML document of its own, unless its
// name is one of names.
func writeDocumentUnless(names []string) func(io.Writer, string, []byte) {
	drop := map[string]bool{}
	for _, n := range names {
		drop[n] = true
	}
	return func(w io.Writer, name string, doc []byte) {
		if drop[name] {
			return
		}
		fmt.Fprintln(w, "---")
		w.Write(doc)
		if len(doc) > 0 && doc[len(doc)-1] != '\n' {
			fmt.Fprintln(w)
		}
	}
}

// list passes each object of one file, its name and its document, to write; empty documents
// (comments only) are skipped, a document without kind or name is an error.
func list(w io.Writer, path string, write func(io.Writer, string, []byte)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	reader := yaml.NewYAMLReader(bufio.NewReader(f))
	for n := 1; ; n++ {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("document %d: %w", n, err)
		}
		var obj unstructured.Unstructured
		if err := yaml.Unmarshal(doc, &obj.Object); err != nil {
			return fmt.Errorf("document %d: %w", n, err)
		}
		if len(obj.Object) == 0 {
			continue
		}
		name, err := objectName(&obj)
		if err != nil {
			return fmt.Errorf("document %d: %w", n, err)
		}
		write(w, name, doc)
	}
}

// objectName is kubectl's -o name of an object.
func objectName(obj *unstructured.Unstructured) (string, error) {
	gvk := obj.GroupVersionKind()
	if gvk.Kind == "" || obj.GetName() == "" {
		return "", fmt.Errorf("an object without kind or name (apiVersion %q kind %q name %q)", obj.GetAPIVersion(), gvk.Kind, obj.GetName())
	}
	kind := strings.ToLower(gvk.Kind)
	if gvk.Group != "" {
		kind += "." + gvk.Group
	}
	return kind + "/" + obj.GetName(), nil
}
