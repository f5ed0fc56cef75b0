// Command crdopenapi turns the structural schemas of generated CRDs into one Swagger 2.0
// document, with one definition per CRD named as applyconfiguration-gen expects for its Go type.
// applyconfiguration-gen reads it to generate the Extract* functions, which need to know how the
// API server merges each field (list-map keys of conditions and generations included); the API
// server computes managedFields from exactly this schema.
//
// Usage: crdopenapi OUT_JSON CRD_DIR MODULE API_PACKAGE...
//
// Each API package (a directory under the module, "pkg/apis/batch/v1alpha1") names its group in
// doc.go (+groupName=); every CRD of CRD_DIR of that group becomes the definition of the
// package's Go type of the CRD's kind. A CRD of no package's group fails the run.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

func main() {
	if len(os.Args) < 5 {
		fmt.Fprintln(os.Stderr, "usage: crdopenapi OUT_JSON CRD_DIR MODULE API_PACKAGE...")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2], os.Args[3], os.Args[4:]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(outPath, crdDir, module string, packages []string) error {
	packageOf := map[string]string{}
	for _, pkg := range packages {
		group, err := groupName(filepath.Join(pkg, "doc.go"))
		if err != nil {
			return err
		}
		packageOf[group] = pkg
	}
	files, err := filepath.Glob(filepath.Join(crdDir, "*.yaml"))
	if err != nil {
		return err
	}
	sort.Strings(files)
	definitions := map[string]json.RawMessage{}
	for _, f := range files {
		crd, err := readCRD(f)
		if err != nil {
			return err
		}
		pkg, ok := packageOf[crd.Spec.Group]
		if !ok {
			return fmt.Errorf("%s: no API package of group %s among %v", f, crd.Spec.Group, packages)
		}
		schema, err := definitionOf(crd)
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		definitions[definitionName(module, pkg, crd.Spec.Names.Kind)] = schema
	}
	doc := map[string]any{
		"swagger":     "2.0",
		"info":        map[string]any{"title": "llm-infra-operator custom resources", "version": "unversioned"},
		"paths":       map[string]any{},
		"definitions": definitions,
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(outPath, append(out, '\n'), 0o644)
}

// groupName reads the +groupName= marker of an API package's doc.go.
func groupName(docGo string) (string, error) {
	f, err := os.Open(docGo)
	if err != nil {
		return "", err
	}
	defer f.Close()
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		if _, group, ok := strings.Cut(scanner.Text(), "+groupName="); ok {
			return strings.TrimSpace(group), nil
		}
	}
	if err := scanner.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("%s has no +groupName= marker", docGo)
}

// definitionName is the name applyconfiguration-gen gives the Go type kind of package pkg of
// module: the module's host reversed, then the path, dot-separated
// ("com.github.llm-infra.llm-infra-operator.pkg.apis.batch.v1alpha1.LLMBatchGateway").
func definitionName(module, pkg, kind string) string {
	host, path, _ := strings.Cut(module, "/")
	parts := strings.Split(host, ".")
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(parts, ".") + "." + strings.ReplaceAll(path+"/"+pkg, "/", ".") + "." + kind
}

func readCRD(path string) (*apiextensionsv1.CustomResourceDefinition, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(raw, crd); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return crd, nil
}

// definitionOf returns the Swagger 2.0 form of the schema of the CRD's only version.
func definitionOf(crd *apiextensionsv1.CustomResourceDefinition) (json.RawMessage, error) {
	if len(crd.Spec.Versions) != 1 || crd.Spec.Versions[0].Schema == nil || crd.Spec.Versions[0].Schema.OpenAPIV3Schema == nil {
		return nil, fmt.Errorf("want exactly one version with a schema")
	}
	schema := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.DeepCopy()
	swaggerV2(schema)
	// Untyped metadata: extraction then keeps whatever metadata a manager owns, as a map.
	schema.Properties["metadata"] = apiextensionsv1.JSONSchemaProps{}
	return json.Marshal(schema)
}

// swaggerV2 drops what Swagger 2.0 cannot express and what extraction does not need, makes
// subtrees that preserve unknown fields untyped, as the API server treats them, and writes
// int-or-string values (resource quantities) the way Kubernetes' own OpenAPI does: Swagger 2.0
// has no anyOf.
func swaggerV2(s *apiextensionsv1.JSONSchemaProps) {
	if s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields {
		*s = apiextensionsv1.JSONSchemaProps{Description: s.Description}
		return
	}
	if s.XIntOrString {
		*s = apiextensionsv1.JSONSchemaProps{Description: s.Description, Type: "string", Format: "int-or-string"}
		return
	}
	s.Nullable = false
	s.XValidations = nil
	for name, p := range s.Properties {
		swaggerV2(&p)
		s.Properties[name] = p
	}
	if s.Items != nil && s.Items.Schema != nil {
		swaggerV2(s.Items.Schema)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		swaggerV2(s.AdditionalProperties.Schema)
	}
}
