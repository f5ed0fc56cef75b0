package operands

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/llm-infra/llm-infra-operator/bindata"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/registry"
)

// root is the repository, from this package's directory.
const root = "../../.."

func read(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, path))
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

func glob(t *testing.T, pattern string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, pattern))
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range files {
		files[i], _ = filepath.Rel(root, f)
	}
	sort.Strings(files)
	return files
}

// want fails t unless got and want hold the same strings, naming what is missing on each side.
func same(t *testing.T, what string, got, want []string) {
	t.Helper()
	sort.Strings(got)
	sort.Strings(want)
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("%s: %s is registered but missing", what, w)
		}
	}
	for _, g := range got {
		if !slices.Contains(want, g) {
			t.Errorf("%s: %s is there but no registered kind has it", what, g)
		}
	}
}

func TestRegistryIsConsistent(t *testing.T) {
	if err := registry.Check(All()); err != nil {
		t.Fatal(err)
	}
}

// TestRegistryMatchesTheRepository: the lists that hack/ derives from the repository (the API
// packages code generation runs over, the CRDs of deploy/) hold exactly the registered kinds.
func TestRegistryMatchesTheRepository(t *testing.T) {
	var apiPackages, wantAPIs, crdFiles []string
	for _, doc := range glob(t, "pkg/apis/*/*/doc.go") {
		if strings.Contains(read(t, doc), "+groupName=") {
			apiPackages = append(apiPackages, filepath.Dir(doc))
		}
	}
	for _, r := range All() {
		if !slices.Contains(wantAPIs, r.APIPackage) {
			wantAPIs = append(wantAPIs, r.APIPackage)
		}
		crdFiles = append(crdFiles, "deploy/"+r.CRDFile())
	}
	same(t, "API packages (hack/update-codegen.sh)", apiPackages, wantAPIs)
	same(t, "CRDs of deploy/ (hack/update-crds.sh)", glob(t, "deploy/00_*.crd.yaml"), crdFiles)
}

// TestEveryKindIsFuzzed: hack/fuzz.sh runs the Fuzz targets of every package; each registered
// kind's operand package must have one.
func TestEveryKindIsFuzzed(t *testing.T) {
	fuzz := regexp.MustCompile(`(?m)^func Fuzz[A-Za-z0-9_]*\(f \*testing\.F\)`)
	for _, r := range All() {
		found := false
		for _, f := range glob(t, r.OperandPackage+"/*_test.go") {
			found = found || fuzz.MatchString(read(t, f))
		}
		if !found {
			t.Errorf("%s: %s has no fuzz target of its render (func FuzzX(f *testing.F))", r.GVK.Kind, r.OperandPackage)
		}
	}
}

// TestEveryKindHasAnExample: each kind's example is a CR of the kind, and every file of
// deploy/examples (alm-examples) is some kind's.
func TestEveryKindHasAnExample(t *testing.T) {
	var want []string
	for _, r := range All() {
		file := "deploy/examples/" + r.Example
		want = append(want, file)
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(read(t, file)), &obj.Object); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if obj.GroupVersionKind() != r.GVK {
			t.Errorf("%s holds a %s, want a %s", file, obj.GroupVersionKind(), r.GVK)
		}
	}
	same(t, "examples (alm-examples)", glob(t, "deploy/examples/*.yaml"), want)
}

// TestTheBundleOwnsEveryCRD: the CSV (bundlegen's, from deploy/'s CRDs and the descriptors of
// hack/bundle/csv-base.yaml) has an owned CRD for every kind, and no other.
func TestTheBundleOwnsEveryCRD(t *testing.T) {
	var csv struct {
		Spec struct {
			CustomResourceDefinitions struct {
				Owned []struct {
					Name, Version, Kind string
				} `json:"owned"`
			} `json:"customresourcedefinitions"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal([]byte(read(t, "manifests/llm-infra-operator.clusterserviceversion.yaml")), &csv); err != nil {
		t.Fatal(err)
	}
	var owned, want []string
	for _, o := range csv.Spec.CustomResourceDefinitions.Owned {
		owned = append(owned, o.Name+" "+o.Version+" "+o.Kind)
	}
	for _, r := range All() {
		want = append(want, r.CRDName()+" "+r.GVK.Version+" "+r.GVK.Kind)
	}
	same(t, "owned CRDs of the CSV", owned, want)
}

// TestEveryImageIsDeployed: the operator's Deployment sets every registered image (and the
// bundle's relatedImages follow from it).
func TestEveryImageIsDeployed(t *testing.T) {
	deployment := read(t, "deploy/10_deployment.yaml")
	var set, want []string
	for _, m := range regexp.MustCompile(`name: (RELATED_IMAGE_[A-Z0-9_]+)`).FindAllStringSubmatch(deployment, -1) {
		set = append(set, m[1])
	}
	for _, r := range All() {
		for _, image := range r.Images {
			want = append(want, image.Env)
		}
	}
	same(t, "RELATED_IMAGE_* of deploy/10_deployment.yaml", set, want)
}

// TestTheDocumentationNamesEveryKind: ARCHITECTURE.md and README.md name every kind and its
// metric label.
func TestTheDocumentationNamesEveryKind(t *testing.T) {
	for _, doc := range []string{"ARCHITECTURE.md", "README.md"} {
		text := read(t, doc)
		for _, r := range All() {
			for _, name := range []string{"`" + r.GVK.Kind + "`", "`" + r.Operand + "`"} {
				if !strings.Contains(text, name) {
					t.Errorf("%s does not name %s (kind %s)", doc, name, r.GVK.Kind)
				}
			}
		}
	}
}

// TestEveryEmbeddedManifestIsRegistered: every manifest embedded in bindata is an asset of a
// registered kind, and every registered asset is embedded.
func TestEveryEmbeddedManifestIsRegistered(t *testing.T) {
	var embedded, registered []string
	if err := fs.WalkDir(bindata.FS, "assets", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			embedded = append(embedded, path)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	for _, r := range All() {
		for _, a := range r.Assets {
			if !slices.Contains(registered, a) {
				registered = append(registered, a)
			}
		}
	}
	same(t, "manifests embedded in bindata", embedded, registered)
}
