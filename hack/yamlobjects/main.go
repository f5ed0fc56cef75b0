// Command yamlobjects lists the objects of multi-document YAML files as `kubectl get -o name`
// names them (<kind>.<group>/<name>, lower-case kind, no group for the core API), one a line,
// in file order. hack/optional-crds.sh uses it for the object list of a rendered set of CRDs:
// the documents are split and decoded by apimachinery's YAML reader, not matched line by line.
//
// Usage: go run ./hack/yamlobjects FILE...
package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/yaml"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: yamlobjects FILE...")
		os.Exit(2)
	}
	out := bufio.NewWriter(os.Stdout)
	for _, path := range os.Args[1:] {
		if err := list(out, path); err != nil {
			fmt.Fprintf(os.Stderr, "yamlobjects: %s: %v\n", path, err)
			os.Exit(1)
		}
	}
	if err := out.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "yamlobjects:", err)
		os.Exit(1)
	}
}

// list writes the names of the objects of one file; empty documents (comments only) are
// skipped, a document without kind or name is an error.
func list(w io.Writer, path string) error {
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
		fmt.Fprintln(w, name)
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
