package enginetest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"

	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"
)

// What the golden tests of the operands share: reading upstream's objects, defaulting a CR as
// the API server does, and bringing objects to one comparable form.

// ReadObjects reads a multi-document YAML file of objects (a golden case's objects.yaml).
func ReadObjects(tb testing.TB, path string) []*unstructured.Unstructured {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var objs []*unstructured.Unstructured
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return objs
		}
		if err != nil {
			tb.Fatalf("%s: %v", path, err)
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		obj := &unstructured.Unstructured{}
		raw, err := yaml.YAMLToJSON(doc)
		if err == nil {
			err = obj.UnmarshalJSON(raw)
		}
		if err != nil {
			tb.Fatalf("%s: %v", path, err)
		}
		objs = append(objs, obj)
	}
}

// DefaultedCR reads a CR from crPath, applies the defaults of the generated CRD at crdPath as the
// API server stores it, and decodes it strictly into a T (a field T lacks fails tb).
func DefaultedCR[T any](tb testing.TB, crdPath, crPath string) *T {
	tb.Helper()
	data, err := os.ReadFile(crPath)
	if err != nil {
		tb.Fatal(err)
	}
	var obj map[string]interface{}
	if err := yaml.Unmarshal(data, &obj); err != nil {
		tb.Fatalf("%s: %v", crPath, err)
	}
	structuraldefaulting.Default(obj, StructuralSchema(tb, crdPath))
	defaulted, err := json.Marshal(obj)
	if err != nil {
		tb.Fatal(err)
	}
	cr := new(T)
	if err := yaml.UnmarshalStrict(defaulted, cr); err != nil {
		tb.Fatalf("%s: %v", crPath, err)
	}
	return cr
}

// StructuralSchema is the structural schema of the first version of the CRD at path, which the
// API server defaults and prunes objects with.
func StructuralSchema(tb testing.TB, path string) *structuralschema.Structural {
	tb.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(raw, crd); err != nil {
		tb.Fatal(err)
	}
	internal := &apiextensionsinternal.CustomResourceValidation{}
	if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(crd.Spec.Versions[0].Schema, internal, nil); err != nil {
		tb.Fatal(err)
	}
	schema, err := structuralschema.NewStructural(internal.OpenAPIV3Schema)
	if err != nil {
		tb.Fatal(err)
	}
	return schema
}

// TypedContent is an object's content after a round trip through its built-in Go type, when it
// has one, so that both sides of a comparison spell values alike ("1000m" and "1" are one
// quantity).
func TypedContent(tb testing.TB, obj runtime.Object) map[string]interface{} {
	tb.Helper()
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		tb.Fatal(err)
	}
	gvk := (&unstructured.Unstructured{Object: content}).GroupVersionKind()
	if typed, err := clientgoscheme.Scheme.New(gvk); err == nil {
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(content, typed); err != nil {
			tb.Fatal(err)
		}
		if content, err = runtime.DefaultUnstructuredConverter.ToUnstructured(typed); err != nil {
			tb.Fatal(err)
		}
	}
	return content
}

var identifier = regexp.MustCompile(`^[A-Za-z0-9_]+$`)

// Flatten maps every leaf of an object to its path (metadata.labels["app"],
// spec.ports[0].port); empty maps and lists, nulls and empty strings mean "not set" on either
// side and are left out. Numbers are int64 (every number of the objects compared is an integer).
func Flatten(obj map[string]interface{}) map[string]interface{} {
	out := map[string]interface{}{}
	var walk func(path string, v interface{})
	walk = func(path string, v interface{}) {
		switch n := v.(type) {
		case map[string]interface{}:
			for k, e := range n {
				sub := path + "." + k
				if !identifier.MatchString(k) {
					sub = fmt.Sprintf("%s[%q]", path, k)
				}
				walk(sub, e)
			}
		case []interface{}:
			for i, e := range n {
				walk(fmt.Sprintf("%s[%d]", path, i), e)
			}
		case nil:
		case float64:
			out[strings.TrimPrefix(path, ".")] = int64(n)
		case string:
			if n != "" {
				out[strings.TrimPrefix(path, ".")] = n
			}
		default:
			out[strings.TrimPrefix(path, ".")] = n
		}
	}
	walk("", obj)
	return out
}
