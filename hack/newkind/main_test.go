package main

import (
	"bytes"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"
)

// repo is the repository, from this package's directory.
const repo = "../.."

// copyRepo copies what the scaffolder reads of the repository into a new directory: go.mod,
// the API packages' doc.go, register.go and types, the operand packages' Go files (not their
// tests) and pkg/operator/operands/operands.go.
func copyRepo(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	var files []string
	for _, pattern := range []string{"go.mod", "pkg/apis/*/*/*.go", "pkg/operator/operands/*.go", "pkg/operator/operands/*/*.go"} {
		matches, err := filepath.Glob(filepath.Join(repo, pattern))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, matches...)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(repo, f)
		if err := os.MkdirAll(filepath.Join(dst, filepath.Dir(rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, rel), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func read(t *testing.T, root, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func parse(t *testing.T, root, rel string) *ast.File {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), rel, read(t, root, rel), parser.ParseComments)
	if err != nil {
		t.Fatalf("%s does not parse: %v", rel, err)
	}
	return f
}

// elements are the elements, as source text, of one list of the function fn: the arguments of
// its calls of list (a function or method name), or with list "return" the elements of the
// composite literal it returns. Closures are not the function's.
func elements(t *testing.T, root, rel, fn, list string) []string {
	t.Helper()
	src := read(t, root, rel)
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, rel, src, 0)
	if err != nil {
		t.Fatal(err)
	}
	text := func(n ast.Node) string {
		return string(src[fset.Position(n.Pos()).Offset:fset.Position(n.End()).Offset])
	}
	var out []string
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Name.Name != fn {
			continue
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.CallExpr:
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == list {
					for _, a := range n.Args {
						out = append(out, text(a))
					}
				}
			case *ast.ReturnStmt:
				if len(n.Results) != 1 || list != "return" {
					break
				}
				if lit, ok := n.Results[0].(*ast.CompositeLit); ok {
					for _, e := range lit.Elts {
						out = append(out, text(e))
					}
				}
			}
			return true
		})
	}
	return out
}

// constants are the string constants of a Go file, by name.
func constants(f *ast.File) map[string]string {
	out := map[string]string{}
	for _, d := range f.Decls {
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.CONST {
			for _, s := range gd.Specs {
				vs := s.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if i < len(vs.Values) {
						if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
							out[name.Name], _ = strconv.Unquote(lit.Value)
						}
					}
				}
			}
		}
	}
	return out
}

// specFields are the JSON names of a struct type's fields, and those marked +required.
func specFields(t *testing.T, f *ast.File, typeName string) (all, required []string) {
	t.Helper()
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, s := range gd.Specs {
			ts := s.(*ast.TypeSpec)
			st, ok := ts.Type.(*ast.StructType)
			if ts.Name.Name != typeName || !ok {
				continue
			}
			for _, field := range st.Fields.List {
				tag, _ := strconv.Unquote(field.Tag.Value)
				name := strings.Split(strings.TrimSuffix(strings.TrimPrefix(tag, `json:"`), `"`), ",")[0]
				all = append(all, name)
				if field.Doc != nil && strings.Contains(field.Doc.Text(), "+required") {
					required = append(required, name)
				}
			}
			return all, required
		}
	}
	t.Fatalf("no struct %s", typeName)
	return nil, nil
}

func TestScaffold(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    params
		// written and edited are the files the scaffolder writes and changes.
		written, edited []string
		// registered is the new element of the registrations' list, in the file and function
		// of edited's last file.
		registeredIn, registeredList, registered string
		apiVersion                               string
	}{
		{
			name: "a kind in an existing operand package",
			p:    params{Kind: "Widget", GroupDir: "inferencegateway/v1alpha1", Operand: "inferencegatewayagents"},
			written: []string{
				"pkg/apis/inferencegateway/v1alpha1/types_widget.go",
				"pkg/apis/inferencegateway/v1alpha1/testcases/widget.go",
				"pkg/apis/inferencegateway/v1alpha1/crd_validation_widget_test.go",
				"pkg/operator/operands/inferencegatewayagents/widget.go",
				"pkg/operator/operands/inferencegatewayagents/widget_test.go",
				"bindata/assets/inferencegatewayagents/widget-deployment.yaml",
				"deploy/examples/widget_example.yaml",
			},
			edited:       []string{"pkg/apis/inferencegateway/v1alpha1/register.go", "pkg/operator/operands/inferencegatewayagents/operand.go"},
			registeredIn: "Registrations", registeredList: "return", registered: "widgetRegistration()",
			apiVersion: "core.inference-gateway.com/v1alpha1",
		},
		{
			name: "a kind of two words in a new operand package",
			p:    params{Kind: "GPUWidget", GroupDir: "batch/v1alpha1", Operand: "gpuwidget"},
			written: []string{
				"pkg/apis/batch/v1alpha1/types_gpuwidget.go",
				"pkg/apis/batch/v1alpha1/testcases/gpuwidget.go",
				"pkg/apis/batch/v1alpha1/crd_validation_gpuwidget_test.go",
				"pkg/operator/operands/gpuwidget/gpuwidget.go",
				"pkg/operator/operands/gpuwidget/gpuwidget_test.go",
				"bindata/assets/gpuwidget/gpu-widget-deployment.yaml",
				"deploy/examples/gpuwidget_example.yaml",
				"pkg/operator/operands/gpuwidget/registration.go",
			},
			edited:       []string{"pkg/apis/batch/v1alpha1/register.go", "pkg/operator/operands/operands.go"},
			registeredIn: "All", registeredList: "Concat", registered: "gpuwidget.Registrations()",
			apiVersion: "batch.llm-d.ai/v1alpha1",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := copyRepo(t)
			before := map[string][]byte{}
			for _, rel := range tc.edited {
				before[rel] = read(t, root, rel)
			}
			schemeBefore := elements(t, root, tc.edited[0], "addKnownTypes", "AddKnownTypes")
			listBefore := elements(t, root, tc.edited[1], tc.registeredIn, tc.registeredList)

			written, edited, err := scaffold(root, tc.p)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(written, tc.written) {
				t.Errorf("wrote %v, want %v", written, tc.written)
			}
			for i, e := range edited {
				if i >= len(tc.edited) || !strings.HasPrefix(e, tc.edited[i]+": ") {
					t.Errorf("edited %v, want %v", edited, tc.edited)
				}
			}

			// Every Go file it wrote or changed parses and is gofmt's.
			for _, rel := range append(slices.Clone(tc.written), tc.edited...) {
				if !strings.HasSuffix(rel, ".go") {
					continue
				}
				parse(t, root, rel)
				src := read(t, root, rel)
				if formatted, err := format.Source(src); err != nil || !bytes.Equal(formatted, src) {
					t.Errorf("%s is not gofmt's (%v)", rel, err)
				}
			}

			// The registrations: each list gained exactly the new elements, at its end.
			kind := tc.p.Kind
			if got, want := elements(t, root, tc.edited[0], "addKnownTypes", "AddKnownTypes"), append(slices.Clone(schemeBefore), "&"+kind+"{}", "&"+kind+"List{}"); !slices.Equal(got, want) {
				t.Errorf("addKnownTypes's types %v, want %v", got, want)
			}
			if got, want := elements(t, root, tc.edited[1], tc.registeredIn, tc.registeredList), append(slices.Clone(listBefore), tc.registered); !slices.Equal(got, want) {
				t.Errorf("%s's list %v, want %v", tc.registeredIn, got, want)
			}
			if tc.registeredIn == "All" {
				imported := false
				for _, spec := range parse(t, root, tc.edited[1]).Imports {
					imported = imported || spec.Path.Value == strconv.Quote("github.com/llm-infra/llm-infra-operator/pkg/operator/operands/"+tc.p.Operand)
				}
				if !imported {
					t.Errorf("%s does not import the new operand package", tc.edited[1])
				}
			}

			// The example is an object of the kind: its group, version and kind, no namespace
			// (kubectl -n chooses it), the spec of the admission table's base CR, whose fields
			// are the spec type's and hold every required one.
			var example struct {
				APIVersion, Kind string
				Metadata         map[string]any
				Spec             map[string]any
			}
			if err := yaml.UnmarshalStrict(read(t, root, tc.written[6]), &example); err != nil {
				t.Fatal(err)
			}
			if example.APIVersion != tc.apiVersion || example.Kind != kind || example.Metadata["namespace"] != nil {
				t.Errorf("example: %s %s in namespace %v, want a %s %s without a namespace", example.APIVersion, example.Kind, example.Metadata["namespace"], tc.apiVersion, kind)
			}
			types := parse(t, root, tc.written[0])
			all, required := specFields(t, types, kind+"Spec")
			for field := range example.Spec {
				if !slices.Contains(all, field) {
					t.Errorf("example: spec.%s is not a field of %sSpec %v", field, kind, all)
				}
			}
			for _, field := range required {
				if _, ok := example.Spec[field]; !ok {
					t.Errorf("example: no spec.%s, which is required", field)
				}
			}
			var base struct{ Spec map[string]any }
			if err := yaml.Unmarshal([]byte(constants(parse(t, root, tc.written[1]))["Base"+kind]), &base); err != nil {
				t.Fatal(err)
			}
			if !equalYAML(t, base.Spec, example.Spec) {
				t.Errorf("example's spec %v, want the base CR's %v", example.Spec, base.Spec)
			}

			// The CEL rule's message is the constant ValidateSpec returns, word for word.
			message := constants(types)["Message"+kind+"Name"]
			if message == "" || !strings.Contains(string(read(t, root, tc.written[0])), `message="`+message+`"`) {
				t.Errorf("the marker's message and Message%sName (%q) differ", kind, message)
			}

			// The manifest is a Deployment whose placeholders are those the operand replaces.
			manifest := read(t, root, tc.written[5])
			d := &appsv1.Deployment{}
			if err := yaml.UnmarshalStrict(manifest, d); err != nil || d.Kind != "Deployment" || d.APIVersion != "apps/v1" {
				t.Errorf("the manifest is not a Deployment: %v", err)
			}
			placeholders := []string{"${NAMESPACE}"}
			for _, v := range constants(parse(t, root, tc.written[3])) {
				if strings.HasPrefix(v, "${") {
					placeholders = append(placeholders, v)
				}
			}
			for _, p := range regexp.MustCompile(`\$\{[A-Z_]+\}`).FindAllString(string(manifest), -1) {
				if !slices.Contains(placeholders, p) {
					t.Errorf("the manifest's placeholder %s is not one the operand replaces (%v)", p, placeholders)
				}
			}
			if got := constants(parse(t, root, tc.written[3])); got[lowerFirst(kind)+"Deployment"] != tc.written[5][len("bindata/"):] {
				t.Errorf("the operand's manifest path %q, want %q", got[lowerFirst(kind)+"Deployment"], tc.written[5][len("bindata/"):])
			}

			// A second run changes nothing and says why.
			snapshot := map[string][]byte{}
			for _, rel := range tc.edited {
				snapshot[rel] = read(t, root, rel)
			}
			if _, _, err := scaffold(root, tc.p); err == nil || !strings.Contains(err.Error(), "exists") {
				t.Errorf("a second run: %v, want an error that the files exist", err)
			}
			for rel, data := range snapshot {
				if !bytes.Equal(read(t, root, rel), data) {
					t.Errorf("a second run changed %s", rel)
				}
				if bytes.Equal(before[rel], data) {
					t.Errorf("%s is unchanged", rel)
				}
			}
		})
	}
}

func equalYAML(t *testing.T, a, b any) bool {
	t.Helper()
	x, err1 := yaml.Marshal(a)
	y, err2 := yaml.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

// TestScaffoldRefuses: parameters that cannot make a kind fail before anything is written.
func TestScaffoldRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    params
		want string
	}{
		{"a lowercase kind", params{Kind: "sandbox", GroupDir: "inferencegateway/v1alpha1", Operand: "sandbox"}, "UpperCamelCase"},
		{"a group without a version", params{Kind: "Sandbox", GroupDir: "inferencegateway", Operand: "sandbox"}, "<group>/<version>"},
		{"a new API group", params{Kind: "Sandbox", GroupDir: "sandbox/v1alpha1", Operand: "sandbox"}, "a new API group"},
		{"an operand that is no package name", params{Kind: "Sandbox", GroupDir: "inferencegateway/v1alpha1", Operand: "sand-box"}, "lowercase Go package name"},
		{"a kind that exists", params{Kind: "GPU", GroupDir: "inferencegateway/v1alpha1", Operand: "inferencegatewayagents"}, "types_gpu.go exists"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := copyRepo(t)
			list := func() []string {
				var files []string
				_ = filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
					if err == nil && !info.IsDir() {
						data, _ := os.ReadFile(p)
						files = append(files, p+" "+strconv.Itoa(len(data)))
					}
					return err
				})
				sort.Strings(files)
				return files
			}
			before := list()
			_, _, err := scaffold(root, tc.p)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one that says %q", err, tc.want)
			}
			if after := list(); !slices.Equal(before, after) {
				t.Error("the repository changed")
			}
		})
	}
}

// TestNames: the names a kind's files and identifiers take, and client-gen's plural, which the
// generated clients' accessors use.
func TestNames(t *testing.T) {
	for _, tc := range []struct{ kind, lower, label, plural string }{
		{"Sandbox", "sandbox", "sandbox", "Sandboxes"},
		{"GPUPool", "gpuPool", "gpu-pool", "GPUPools"},
		{"MyKind", "myKind", "my-kind", "MyKinds"},
		{"Proxy", "proxy", "proxy", "Proxies"},
		{"Gateway", "gateway", "gateway", "Gateways"},
		{"Batch", "batch", "batch", "Batches"},
		{"Leaf", "leaf", "leaf", "Leaves"},
		{"GPU", "gpu", "gpu", "GPUs"},
	} {
		if got := lowerFirst(tc.kind); got != tc.lower {
			t.Errorf("lowerFirst(%s) = %s, want %s", tc.kind, got, tc.lower)
		}
		if got := kebab(tc.kind); got != tc.label {
			t.Errorf("kebab(%s) = %s, want %s", tc.kind, got, tc.label)
		}
		if got := plural(tc.kind); got != tc.plural {
			t.Errorf("plural(%s) = %s, want %s", tc.kind, got, tc.plural)
		}
	}
}
