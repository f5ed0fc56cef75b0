// Package bundle runs the operator-framework's own validators (github.com/operator-framework/api
// pkg/validation, what `operator-sdk bundle validate` runs) over the OLM bundle in manifests/ and
// metadata/, for every Kubernetes version the bundle claims, and checks what they do not: that
// the console's descriptors name fields that exist, that bundle.Dockerfile and
// metadata/annotations.yaml agree, and that the disconnected claim holds.
//
// Every error or warning fails the test unless accepted lists it with the reason it is safe.
package bundle

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/blang/semver/v4"
	"github.com/operator-framework/api/pkg/manifests"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	"github.com/operator-framework/api/pkg/validation"
	"github.com/operator-framework/api/pkg/validation/errors"
	interfaces "github.com/operator-framework/api/pkg/validation/interfaces"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

const root = "../.."

// validators are what `operator-sdk bundle validate --select-optional suite=operatorframework`
// runs, minus the multi-architecture check (it pulls the images, which needs the registries):
// the default bundle validators (CSV, CRDs, the bundle's structure), OperatorHub's (provider,
// maintainers, links, version, icon, minKubeVersion, capabilities, categories: the deprecated
// validator and its replacements), the removed-APIs check against the Kubernetes version
// given as k8s-version, the good practices and the optional objects' checks.
var validators = map[string]interfaces.Validator{
	"ClusterServiceVersion":    validation.ClusterServiceVersionValidator,
	"CustomResourceDefinition": validation.CustomResourceDefinitionValidator,
	"Bundle":                   validation.BundleValidator,
	"OperatorHubV2":            validation.OperatorHubV2Validator,
	// Deprecated in favour of OperatorHubV2 and the two after it, but what operator-sdk's
	// --select-optional name=operatorhub still runs.
	"OperatorHub":          validation.OperatorHubValidator,
	"StandardCapabilities": validation.StandardCapabilitiesValidator,
	"StandardCategories":   validation.StandardCategoriesValidator,
	"AlphaDeprecatedAPIs":  validation.AlphaDeprecatedAPIsValidator,
	"GoodPractices":        validation.GoodPracticesValidator,
	"Object":               validation.ObjectValidator,
}

// acceptance is a finding of a validator that is safe, and why.
type acceptance struct {
	validator string
	level     errors.Level
	// message is a regular expression the finding's text must match.
	message string
	reason  string
}

var accepted = []acceptance{
	{
		validator: "GoodPractices", level: errors.LevelWarn,
		message: `CSV contains permissions to create CRD`,
		reason: "The LeaderWorkerSet CRD is the operand's own API: the operator applies it, as openshift/lws-operator does, " +
			"because it must carry the conversion webhook's Service and CA of the operand the operator installs. " +
			"create cannot be restricted by name; get/update/patch are restricted to leaderworkersets.leaderworkerset.x-k8s.io " +
			"and there is no delete (test/manifests TestOperatorAccess).",
	},
	{
		validator: "OperatorHubV2", level: errors.LevelWarn,
		message: `removed in v1\.25.*horizontalpodautoscalers.*ClusterPermissions`,
		reason: "An RBAC rule names a resource, not an API version, so the check cannot tell autoscaling/v2 from the " +
			"autoscaling/v2beta1 removed in 1.25; the operator writes autoscaling/v2 HorizontalPodAutoscalers " +
			"(pkg/operator/operands/inferencegateway), served by every Kubernetes since 1.23.",
	},
	{
		validator: "OperatorHub", level: errors.LevelWarn,
		message: `The "operatorhub" validator is deprecated`,
		reason:  "The validator announces its own deprecation; its replacements (OperatorHubV2, StandardCapabilities, StandardCategories) run too.",
	},
	{
		validator: "OperatorHub", level: errors.LevelWarn,
		message: `removed in v1\.25.*horizontalpodautoscalers.*ClusterPermissions`,
		reason:  "The same finding as OperatorHubV2's: autoscaling/v2 only.",
	},
	{
		validator: "AlphaDeprecatedAPIs", level: errors.LevelWarn,
		message: `removed in v1\.25.*horizontalpodautoscalers.*ClusterPermissions`,
		reason:  "The same finding as OperatorHubV2's (it runs this check too): autoscaling/v2 only.",
	},
}

// claimedVersions are the Kubernetes versions the bundle claims: the CSV's minKubeVersion and
// the release the operator is built against (k8s.io/api v0.X.Y is Kubernetes 1.X).
func claimedVersions(t *testing.T, csv *operatorsv1alpha1.ClusterServiceVersion) []string {
	t.Helper()
	minimum, err := semver.ParseTolerant(csv.Spec.MinKubeVersion)
	if err != nil {
		t.Fatalf("minKubeVersion %q: %v", csv.Spec.MinKubeVersion, err)
	}
	goMod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	var built semver.Version
	if m := regexp.MustCompile(`(?m)^\s*k8s\.io/api (v\S+)`).FindSubmatch(goMod); m != nil {
		v, err := semver.ParseTolerant(string(m[1]))
		if err != nil {
			t.Fatalf("k8s.io/api %s: %v", m[1], err)
		}
		built = semver.Version{Major: 1, Minor: v.Minor}
	}
	if built.Major == 0 || built.LT(minimum) {
		t.Fatalf("built against Kubernetes %s, below minKubeVersion %s", built, minimum)
	}
	return []string{minimum.String(), built.String()}
}

// loadBundle copies manifests/ and metadata/ into a directory of their own, as the bundle image
// holds them (the loader reads every file under the directory it is given).
func loadBundle(t *testing.T) *manifests.Bundle {
	t.Helper()
	dir := t.TempDir()
	for _, sub := range []string{"manifests", "metadata"} {
		if err := os.CopyFS(filepath.Join(dir, sub), os.DirFS(filepath.Join(root, sub))); err != nil {
			t.Fatal(err)
		}
	}
	b, err := manifests.GetBundleFromDir(dir)
	if err != nil {
		t.Fatalf("load the bundle: %v", err)
	}
	return b
}

// finding is one error or warning of one validator.
type finding struct {
	validator string
	level     errors.Level
	text      string
}

func (f finding) String() string { return fmt.Sprintf("%s %s: %s", f.validator, f.level, f.text) }

func TestValidators(t *testing.T) {
	b := loadBundle(t)
	var findings []finding
	for _, version := range claimedVersions(t, b.CSV) {
		names := make([]string, 0, len(validators))
		for name := range validators {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			for _, result := range validators[name].Validate(b, map[string]string{"k8s-version": version}) {
				for _, e := range append(slices.Clone(result.Errors), result.Warnings...) {
					f := finding{name, e.Level, e.Error()}
					if !slices.Contains(findings, f) {
						findings = append(findings, f)
					}
				}
			}
		}
	}
	used := make([]bool, len(accepted))
	for _, f := range findings {
		i := slices.IndexFunc(accepted, func(a acceptance) bool {
			return a.validator == f.validator && a.level == f.level && regexp.MustCompile(a.message).MatchString(f.text)
		})
		if i < 0 {
			t.Errorf("not accepted: %s", f)
			continue
		}
		used[i] = true
		t.Logf("accepted: %s\n    because: %s", f, accepted[i].reason)
	}
	for i, a := range accepted {
		if !used[i] {
			t.Errorf("accepted %s %s %q matches no finding any more: remove it", a.validator, a.level, a.message)
		}
	}
	t.Logf("%d findings over Kubernetes %v, validators %d", len(findings), claimedVersions(t, b.CSV), len(validators))
}

// TestDescriptorPaths requires every spec and status descriptor to name a field of its CRD's
// schema: the console shows nothing for a path that does not exist.
func TestDescriptorPaths(t *testing.T) {
	b := loadBundle(t)
	crds := map[string]*apiextensionsv1.CustomResourceDefinition{}
	for _, crd := range b.V1CRDs {
		crds[crd.Name] = crd
	}
	owned := b.CSV.Spec.CustomResourceDefinitions.Owned
	if len(owned) != len(crds) {
		t.Errorf("%d owned CRDs, %d CRDs in the bundle", len(owned), len(crds))
	}
	for _, o := range owned {
		t.Run(o.Kind, func(t *testing.T) {
			crd := crds[o.Name]
			if crd == nil {
				t.Fatalf("the bundle has no CRD %s", o.Name)
			}
			var schema *apiextensionsv1.JSONSchemaProps
			for _, v := range crd.Spec.Versions {
				if v.Name == o.Version && v.Schema != nil {
					schema = v.Schema.OpenAPIV3Schema
				}
			}
			if schema == nil {
				t.Fatalf("no schema for version %s", o.Version)
			}
			if len(o.SpecDescriptors) == 0 || len(o.StatusDescriptors) == 0 {
				t.Error("no spec or no status descriptors")
			}
			for _, tc := range []struct {
				top         string
				descriptors []operatorsv1alpha1.SpecDescriptor
			}{
				{"spec", o.SpecDescriptors},
				{"status", statusAsSpec(o.StatusDescriptors)},
			} {
				for _, d := range tc.descriptors {
					if d.DisplayName == "" || d.Description == "" {
						t.Errorf("%s descriptor %s: no displayName or description", tc.top, d.Path)
					}
					if !hasPath(schema, append([]string{tc.top}, strings.Split(d.Path, ".")...)) {
						t.Errorf("%s descriptor %s: no such field in %s %s", tc.top, d.Path, o.Name, o.Version)
					}
				}
			}
		})
	}
}

func statusAsSpec(status []operatorsv1alpha1.StatusDescriptor) []operatorsv1alpha1.SpecDescriptor {
	var out []operatorsv1alpha1.SpecDescriptor
	for _, s := range status {
		out = append(out, operatorsv1alpha1.SpecDescriptor{Path: s.Path, DisplayName: s.DisplayName, Description: s.Description})
	}
	return out
}

func hasPath(s *apiextensionsv1.JSONSchemaProps, path []string) bool {
	for _, p := range path {
		if s.Type == "array" && s.Items != nil && s.Items.Schema != nil {
			s = s.Items.Schema
		}
		next, ok := s.Properties[p]
		if !ok {
			return false
		}
		s = &next
	}
	return true
}

// TestImageLabels requires bundle.Dockerfile's labels to be metadata/annotations.yaml's: OLM
// reads the image's labels, opm and the catalogs the file.
func TestImageLabels(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, "metadata", "annotations.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var annotations struct {
		Annotations map[string]string `json:"annotations"`
	}
	if err := yaml.UnmarshalStrict(data, &annotations); err != nil {
		t.Fatal(err)
	}
	dockerfile, err := os.ReadFile(filepath.Join(root, "bundle.Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	labels := map[string]string{}
	var copies []string
	for _, line := range strings.Split(string(dockerfile), "\n") {
		if l, ok := strings.CutPrefix(line, "LABEL "); ok {
			k, v, _ := strings.Cut(l, "=")
			labels[k] = v
		}
		if c, ok := strings.CutPrefix(line, "COPY "); ok {
			copies = append(copies, c)
		}
	}
	if fmt.Sprint(labels) != fmt.Sprint(annotations.Annotations) {
		t.Errorf("bundle.Dockerfile labels %v, metadata/annotations.yaml %v", labels, annotations.Annotations)
	}
	if want := []string{"manifests /manifests/", "metadata /metadata/"}; !slices.Equal(copies, want) {
		t.Errorf("COPY %q, want %q", copies, want)
	}
}

// TestDisconnectedClaim: the bundle claims disconnected support exactly when every image it
// refers to is pinned by digest (a mirror serves images by digest).
func TestDisconnectedClaim(t *testing.T) {
	csv := loadBundle(t).CSV
	var images, unpinned []string
	for _, ri := range csv.Spec.RelatedImages {
		images = append(images, ri.Image)
	}
	for _, d := range csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs {
		for _, c := range d.Spec.Template.Spec.Containers {
			images = append(images, c.Image)
			for _, e := range c.Env {
				if strings.HasPrefix(e.Name, "RELATED_IMAGE_") {
					images = append(images, e.Value)
				}
			}
		}
	}
	images = append(images, csv.Annotations["containerImage"])
	for _, image := range images {
		if slices.Contains(unpinned, image) {
			continue
		}
		if !regexp.MustCompile(`@sha256:[0-9a-f]{64}$`).MatchString(image) {
			unpinned = append(unpinned, image)
		}
	}
	claim := csv.Annotations["features.operators.openshift.io/disconnected"]
	legacy := csv.Annotations["operators.openshift.io/infrastructure-features"]
	switch {
	case len(unpinned) == 0 && (claim != "true" || legacy != `["disconnected"]`):
		t.Errorf("every image is pinned, but disconnected = %q, infrastructure-features = %q", claim, legacy)
	case len(unpinned) > 0 && (claim != "false" || strings.Contains(legacy, "disconnected")):
		t.Errorf("images not pinned by digest %v, but disconnected = %q, infrastructure-features = %q", unpinned, claim, legacy)
	}
	t.Logf("not pinned by digest: %v", unpinned)
	// The other feature annotations OpenShift's console shows are all stated.
	for _, f := range []string{"disconnected", "fips-compliant", "proxy-aware", "tls-profiles", "token-auth-aws", "token-auth-azure", "token-auth-gcp", "cnf", "cni", "csi"} {
		if v := csv.Annotations["features.operators.openshift.io/"+f]; v != "true" && v != "false" {
			t.Errorf("features.operators.openshift.io/%s = %q, want true or false", f, v)
		}
	}
	for _, a := range []string{"operatorframework.io/suggested-namespace", "operatorframework.io/suggested-namespace-template", "capabilities", "categories", "alm-examples", "repository", "description"} {
		if csv.Annotations[a] == "" {
			t.Errorf("annotation %s is not set", a)
		}
	}
}
