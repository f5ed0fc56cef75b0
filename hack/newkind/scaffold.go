package main

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"go/format"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"text/template"
	"unicode"
)

//go:embed templates
var templates embed.FS

// params are the command's flags.
type params struct {
	Kind, GroupDir, Operand, Plural, PartOf string
}

// names are what the templates are rendered with: the parameters and what follows from them
// and from the repository (the module, the API group's name, whether the operand package
// exists).
type names struct {
	Module string
	// Kind is the kind (Sandbox); Lower its Go identifiers' prefix (sandbox); File the stem of
	// its files (sandbox, "mykind" for MyKind); Label its operand name, metric label and the
	// stem of its manifests (my-kind).
	Kind, Lower, File, Label string
	// Plural is the resource (sandboxes); Plurals client-gen's plural of the type, the name of
	// the typed client's and informer's accessors (Sandboxes).
	Plural, Plurals string
	// GroupDir is the API package under pkg/apis; GroupPkg its package name (v1alpha1);
	// GroupName the API group; Version its version; ClientGroup and InformerGroup the
	// generated clientset's and informer factory's accessors of the group (CoreV1alpha1, Core).
	GroupDir, GroupPkg, GroupName, Version, ClientGroup, InformerGroup, InformerVersion string
	// Operand is the operand package's name; NewOperand says it does not exist yet.
	Operand    string
	NewOperand bool
	PartOf     string
}

var (
	kindPattern    = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`)
	operandPattern = regexp.MustCompile(`^[a-z][a-z0-9]*$`)
	groupPattern   = regexp.MustCompile(`^[a-z][a-z0-9]*/v[0-9]+((alpha|beta)[0-9]+)?$`)
	groupNameTag   = regexp.MustCompile(`(?m)^// \+groupName=(\S+)$`)
	groupGoNameTag = regexp.MustCompile(`(?m)^// \+groupGoName=(\S+)$`)
	moduleLine     = regexp.MustCompile(`(?m)^module (\S+)$`)
)

// resolve checks the parameters against the repository at root and derives the names.
func resolve(root string, p params) (*names, error) {
	switch {
	case !kindPattern.MatchString(p.Kind):
		return nil, fmt.Errorf("KIND %q: want UpperCamelCase letters and digits (Sandbox)", p.Kind)
	case !groupPattern.MatchString(p.GroupDir):
		return nil, fmt.Errorf("GROUP %q: want <group>/<version> under pkg/apis (inferencegateway/v1alpha1)", p.GroupDir)
	case !operandPattern.MatchString(p.Operand):
		return nil, fmt.Errorf("OPERAND %q: want a lowercase Go package name under pkg/operator/operands", p.Operand)
	case p.Plural != "" && !operandPattern.MatchString(p.Plural):
		return nil, fmt.Errorf("PLURAL %q: want lowercase letters and digits", p.Plural)
	}
	n := &names{Kind: p.Kind, Lower: lowerFirst(p.Kind), File: strings.ToLower(p.Kind), Label: kebab(p.Kind),
		Plurals: plural(p.Kind), GroupDir: p.GroupDir, GroupPkg: path.Base(p.GroupDir), Version: path.Base(p.GroupDir),
		Operand: p.Operand, PartOf: p.PartOf}
	n.Plural = p.Plural
	if n.Plural == "" {
		n.Plural = strings.ToLower(n.Plurals)
	}
	if n.PartOf == "" {
		n.PartOf = p.Operand
	}
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return nil, err
	}
	m := moduleLine.FindSubmatch(mod)
	if m == nil {
		return nil, errors.New("go.mod names no module")
	}
	n.Module = string(m[1])
	doc, err := os.ReadFile(filepath.Join(root, "pkg/apis", p.GroupDir, "doc.go"))
	if err != nil {
		return nil, fmt.Errorf("GROUP %s: %w (a new API group is its doc.go, register.go and a row of hack/kindgen's roleFiles: write them first)", p.GroupDir, err)
	}
	g := groupNameTag.FindSubmatch(doc)
	if g == nil {
		return nil, fmt.Errorf("pkg/apis/%s/doc.go has no +groupName", p.GroupDir)
	}
	n.GroupName = string(g[1])
	// client-gen and informer-gen name the group by +groupGoName, else by the group's first
	// label.
	goName := strings.Split(n.GroupName, ".")[0]
	if g := groupGoNameTag.FindSubmatch(doc); g != nil {
		goName = string(g[1])
	}
	n.InformerGroup = upperFirst(goName)
	n.InformerVersion = upperFirst(n.Version)
	n.ClientGroup = n.InformerGroup + n.InformerVersion
	if _, err := os.Stat(filepath.Join(root, "pkg/operator/operands", p.Operand)); errors.Is(err, os.ErrNotExist) {
		n.NewOperand = true
	} else if err != nil {
		return nil, err
	}
	return n, nil
}

// output is one file the scaffolder writes: a template and where its rendering goes.
type output struct {
	template, path string
}

func (n *names) outputs() []output {
	api := filepath.Join("pkg/apis", n.GroupDir)
	operand := filepath.Join("pkg/operator/operands", n.Operand)
	out := []output{
		{"types.go.tmpl", filepath.Join(api, "types_"+n.File+".go")},
		{"testcases.go.tmpl", filepath.Join(api, "testcases", n.File+".go")},
		{"crd_validation_test.go.tmpl", filepath.Join(api, "crd_validation_"+n.File+"_test.go")},
		{"operand.go.tmpl", filepath.Join(operand, n.File+".go")},
		{"operand_test.go.tmpl", filepath.Join(operand, n.File+"_test.go")},
		{"deployment.yaml.tmpl", filepath.Join("bindata/assets", n.Operand, n.Label+"-deployment.yaml")},
		{"example.yaml.tmpl", filepath.Join("deploy/examples", n.File+"_example.yaml")},
	}
	if n.NewOperand {
		out = append(out, output{"registration.go.tmpl", filepath.Join(operand, "registration.go")})
	}
	return out
}

// render renders every output, formatting the Go files.
func (n *names) render() (map[string][]byte, error) {
	tmpl, err := template.New("").ParseFS(templates, "templates/*.tmpl")
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for _, o := range n.outputs() {
		var buf bytes.Buffer
		if err := tmpl.ExecuteTemplate(&buf, o.template, n); err != nil {
			return nil, err
		}
		data := buf.Bytes()
		if strings.HasSuffix(o.path, ".go") {
			if data, err = format.Source(data); err != nil {
				return nil, fmt.Errorf("%s: %w", o.path, err)
			}
		}
		files[o.path] = data
	}
	return files, nil
}

// scaffold writes the kind's files and makes its registrations, in the repository at root. It
// changes nothing when a file it would write exists or an edit site is not found.
func scaffold(root string, p params) (written, edited []string, err error) {
	n, err := resolve(root, p)
	if err != nil {
		return nil, nil, err
	}
	files, err := n.render()
	if err != nil {
		return nil, nil, err
	}
	for _, o := range n.outputs() {
		if _, err := os.Stat(filepath.Join(root, o.path)); err == nil {
			return nil, nil, fmt.Errorf("%s exists: the kind is there already, or choose another KIND", o.path)
		}
	}
	edits, err := n.edits(root)
	if err != nil {
		return nil, nil, err
	}
	for _, o := range n.outputs() {
		full := filepath.Join(root, o.path)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return nil, nil, err
		}
		if err := os.WriteFile(full, files[o.path], 0o644); err != nil {
			return nil, nil, err
		}
		written = append(written, o.path)
	}
	for _, e := range edits {
		if err := os.WriteFile(filepath.Join(root, e.path), e.data, 0o644); err != nil {
			return nil, nil, err
		}
		edited = append(edited, e.path+": "+e.what)
	}
	return written, edited, nil
}

// leftToTheAuthor is what the command prints once it wrote the files.
func leftToTheAuthor(p params) string {
	return fmt.Sprintf(`
Next:
  1. make generate   (deepcopy, clients, the CRD, the users' roles, the ClusterRole's rules, the bundle)
  2. Name the kind %[1]s and its operand %[2]s in README.md (the table of kinds) and
     ARCHITECTURE.md (TestTheDocumentationNamesEveryKind fails until you do).
  3. Make it yours: the spec's fields and their CEL rules (types_%[3]s.go, with ValidateSpec and
     the admission table), the render and the manifest, the example. Then make verify and make test.
`, "`"+p.Kind+"`", "`"+kebab(p.Kind)+"`", strings.ToLower(p.Kind))
}

// plural is client-gen's plural of a type name (k8s.io/gengo's public plural namer), which
// names the typed client's and the informer factory's accessors.
func plural(s string) string {
	if len(s) < 2 {
		return s
	}
	last, before := s[len(s)-1], s[len(s)-2]
	switch {
	case last == 's' || last == 'x' || last == 'z':
		return s + "es"
	case last == 'y' && !strings.ContainsRune("aeiou", rune(before)):
		return s[:len(s)-1] + "ies"
	case last == 'h' && (before == 'c' || before == 's'):
		return s + "es"
	case last == 'e' && before == 'f':
		return s[:len(s)-2] + "ves"
	case last == 'f':
		return s[:len(s)-1] + "ves"
	}
	return s + "s"
}

// lowerFirst is s with its leading capitals lowered as Go names them (GPUPool: gpuPool).
func lowerFirst(s string) string {
	r := []rune(s)
	for i := range r {
		if !unicode.IsUpper(r[i]) {
			if i > 1 {
				r[i-1] = unicode.ToUpper(r[i-1])
			}
			break
		}
		r[i] = unicode.ToLower(r[i])
	}
	return string(r)
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// kebab is s in lowercase words joined by dashes (GPUPool: gpu-pool).
func kebab(s string) string {
	r := []rune(s)
	var b strings.Builder
	for i, c := range r {
		if unicode.IsUpper(c) && i > 0 && (unicode.IsLower(r[i-1]) || (i+1 < len(r) && unicode.IsLower(r[i+1]))) {
			b.WriteByte('-')
		}
		b.WriteRune(unicode.ToLower(c))
	}
	return b.String()
}
