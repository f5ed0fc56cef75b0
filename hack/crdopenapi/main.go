// Command crdopenapi turns the structural schemas of generated CRDs into one Swagger 2.0
// document, with one definition per CRD named as applyconfiguration-gen expects for its Go type.
// applyconfiguration-gen reads it to generate the Extract* functions, which need to know how the
// API server merges each field (list-map keys of conditions and generations included); the API
// server computes managedFields from exactly this schema.
//
// Usage: crdopenapi OUT_JSON CRD_YAML=DEFINITION_NAME...
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: crdopenapi OUT_JSON CRD_YAML=DEFINITION_NAME...")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2:]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(outPath string, crds []string) error {
	definitions := map[string]json.RawMessage{}
	for _, arg := range crds {
		crdPath, definition, ok := strings.Cut(arg, "=")
		if !ok || crdPath == "" || definition == "" {
			return fmt.Errorf("%q: want CRD_YAML=DEFINITION_NAME", arg)
		}
		schema, err := definitionOf(crdPath)
		if err != nil {
			return err
		}
		definitions[definition] = schema
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

// definitionOf returns the Swagger 2.0 form of the schema of the CRD's only version.
func definitionOf(crdPath string) (json.RawMessage, error) {
	raw, err := os.ReadFile(crdPath)
	if err != nil {
		return nil, err
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(raw, crd); err != nil {
		return nil, fmt.Errorf("%s: %w", crdPath, err)
	}
	if len(crd.Spec.Versions) != 1 || crd.Spec.Versions[0].Schema == nil || crd.Spec.Versions[0].Schema.OpenAPIV3Schema == nil {
		return nil, fmt.Errorf("%s: want exactly one version with a schema", crdPath)
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
