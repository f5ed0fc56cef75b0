// Package crdtest admits custom resources to a generated CRD with the API server's own
// validators (k8s.io/apiextensions-apiserver at the vendored version): unknown-field detection
// and defaulting as on decode, then OpenAPI schema, embedded metadata, list types and the CEL
// rules (x-kubernetes-validations, with the API server's cost limits and ratcheting on update).
//
// The steps and their order follow customresource_handler.go and
// pkg/registry/customresource/strategy.go of k8s.io/apiextensions-apiserver. That registry
// package itself is not imported: it pulls in the whole etcd storage stack.
//
// Tests of the API packages use it; test/e2e checks the same cases against a real API server.
package crdtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/common"
	"sigs.k8s.io/yaml"
)

// DefaultNamespace is the namespace Create and Update give a namespaced object that names none,
// as kubectl does from its context.
const DefaultNamespace = "default"

// CRD is one version of a CustomResourceDefinition, ready to admit objects.
type CRD struct {
	// Definition is the CRD as read from its file.
	Definition *apiextensionsv1.CustomResourceDefinition

	version         apiextensionsv1.CustomResourceDefinitionVersion
	structural      *structuralschema.Structural
	validator       validation.SchemaValidator
	statusValidator validation.SchemaValidator
	celValidator    *cel.Validator
}

// Load reads a generated CRD with exactly one version and prepares its validators.
func Load(path string) (*CRD, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(raw, crd); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(crd.Spec.Versions) != 1 || crd.Spec.Versions[0].Schema == nil || crd.Spec.Versions[0].Schema.OpenAPIV3Schema == nil {
		return nil, fmt.Errorf("%s: want exactly one version with a schema", path)
	}
	c := &CRD{Definition: crd, version: crd.Spec.Versions[0]}

	internal := &apiextensionsinternal.CustomResourceValidation{}
	if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(c.version.Schema, internal, nil); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	structural, err := structuralschema.NewStructural(internal.OpenAPIV3Schema)
	if err != nil {
		return nil, fmt.Errorf("%s: not a structural schema: %w", path, err)
	}
	// The API server keeps a copy without the defaults that pruning would drop.
	c.structural = structural.DeepCopy()
	if err := structuraldefaulting.PruneDefaults(c.structural); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if c.validator, _, err = validation.NewSchemaValidator(internal.OpenAPIV3Schema); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if status, ok := internal.OpenAPIV3Schema.Properties["status"]; ok {
		if c.statusValidator, _, err = validation.NewSchemaValidator(&status); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	c.celValidator = cel.NewValidator(c.structural, true, celconfig.PerCallLimit)
	return c, nil
}

// LoadGenerated loads a CRD that hack/update-crds.sh writes twice, into manifests/ and deploy/,
// and fails t unless the two copies are the same and the API server would accept the CRD.
func LoadGenerated(t testing.TB, manifestPath, deployPath string) *CRD {
	t.Helper()
	crd, err := Load(manifestPath)
	if err != nil {
		t.Fatalf("%v (run hack/update-crds.sh)", err)
	}
	manifest, err := os.ReadFile(manifestPath)
	if err != nil {
		t.Fatal(err)
	}
	deploy, err := os.ReadFile(deployPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(manifest, deploy) {
		t.Errorf("%s and %s differ: run hack/update-crds.sh", manifestPath, deployPath)
	}
	if errs := crd.ValidateDefinition(); len(errs) > 0 {
		t.Errorf("the API server would refuse %s:\n%s", manifestPath, List(errs))
	}
	return crd
}

// ValidateDefinition is the API server's validation of the CRD itself on create: structural
// schema, defaults, list-map keys, CEL rules that compile, fieldPaths that exist, and the
// estimated CEL cost of each rule and of the whole CRD.
func (c *CRD) ValidateDefinition() field.ErrorList {
	crd := c.Definition.DeepCopy()
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(crd)
	internal := &apiextensionsinternal.CustomResourceDefinition{}
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(crd, internal, nil); err != nil {
		return field.ErrorList{field.InternalError(nil, err)}
	}
	// The CRD strategy records the storage version on create.
	internal.Status.StoredVersions = []string{c.version.Name}
	return crdvalidation.ValidateCustomResourceDefinition(context.Background(), internal)
}

// Create admits obj as a create request with fieldValidation=Strict (kubectl's default): unknown
// fields fail the request before any validation. It returns the object as it would be stored
// (defaults applied, status dropped when the status subresource is on) and the errors.
func (c *CRD) Create(obj map[string]any) (map[string]any, field.ErrorList) {
	u, errs := c.decode(obj)
	if len(errs) > 0 {
		return u.Object, errs
	}
	if c.version.Subresources != nil && c.version.Subresources.Status != nil {
		delete(u.Object, "status")
	}
	errs = append(errs, c.validateMeta(u)...)
	errs = append(errs, validation.ValidateCustomResource(nil, u.Object, c.validator)...)
	errs = append(errs, schemaobjectmeta.Validate(nil, u.Object, c.structural, false)...)
	errs = append(errs, structurallisttype.ValidateListSetsAndMaps(nil, c.structural, u.Object)...)
	errs = append(errs, c.validateCEL(u.Object, nil, errs)...)
	return u.Object, errs
}

// Update admits obj as an update of old (a stored object, as Create returns it), with
// validation ratcheting: errors in values the update leaves unchanged are not reported, as
// since Kubernetes 1.30. Status changes are ignored when the status subresource is on.
func (c *CRD) Update(obj, old map[string]any) (map[string]any, field.ErrorList) {
	u, errs := c.decode(obj)
	if len(errs) > 0 {
		return u.Object, errs
	}
	if c.version.Subresources != nil && c.version.Subresources.Status != nil {
		if status, ok := old["status"]; ok {
			u.Object["status"] = runtime.DeepCopyJSONValue(status)
		} else {
			delete(u.Object, "status")
		}
	}
	correlated := common.NewCorrelatedObject(u.Object, old, &model.Structural{Structural: c.structural})
	errs = append(errs, c.validateMeta(u)...)
	errs = append(errs, validation.ValidateCustomResourceUpdate(nil, u.Object, old, c.validator, validation.WithRatcheting(correlated))...)
	errs = append(errs, schemaobjectmeta.Validate(nil, u.Object, c.structural, false)...)
	if oldErrs := structurallisttype.ValidateListSetsAndMaps(nil, c.structural, old); len(oldErrs) == 0 {
		errs = append(errs, structurallisttype.ValidateListSetsAndMaps(nil, c.structural, u.Object)...)
	}
	errs = append(errs, c.validateCEL(u.Object, old, errs, cel.WithRatcheting(correlated))...)
	return u.Object, errs
}

// UpdateStatus admits obj as a write to the status subresource of old: only status is
// validated (with ratcheting), and spec changes are ignored.
func (c *CRD) UpdateStatus(obj, old map[string]any) field.ErrorList {
	if c.statusValidator == nil {
		return field.ErrorList{field.NotFound(field.NewPath("status"), "the CRD has no status schema")}
	}
	u, errs := c.decode(obj)
	if len(errs) > 0 {
		return errs
	}
	for key, value := range old {
		if key != "status" && key != "metadata" {
			u.Object[key] = runtime.DeepCopyJSONValue(value)
		}
	}
	correlated := common.NewCorrelatedObject(u.Object, old, &model.Structural{Structural: c.structural})
	if status, ok := u.Object["status"]; ok {
		errs = append(errs, validation.ValidateCustomResourceUpdate(field.NewPath("status"), status, old["status"], c.statusValidator, validation.WithRatcheting(correlated.Key("status")))...)
	}
	if newErrs := structurallisttype.ValidateListSetsAndMaps(nil, c.structural, u.Object); len(newErrs) > 0 {
		if oldErrs := structurallisttype.ValidateListSetsAndMaps(nil, c.structural, old); len(oldErrs) == 0 {
			errs = append(errs, newErrs...)
		}
	}
	errs = append(errs, c.validateCEL(u.Object, old, errs, cel.WithRatcheting(correlated))...)
	return errs
}

// decode does what the API server does to a request body before validation: decode JSON
// numbers as int64 where they are integral, report unknown fields (strict field validation: the
// request fails with these errors alone), drop nulls that have no meaning, apply defaults, and
// fill in apiVersion, kind and, for a namespaced resource, a namespace.
func (c *CRD) decode(obj map[string]any) (*unstructured.Unstructured, field.ErrorList) {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	raw, err := json.Marshal(obj)
	if err == nil {
		err = utiljson.Unmarshal(raw, &u.Object)
	}
	if err != nil {
		return u, field.ErrorList{field.InternalError(nil, err)}
	}
	if u.GetAPIVersion() == "" {
		u.SetAPIVersion(c.Definition.Spec.Group + "/" + c.version.Name)
	}
	if u.GetKind() == "" {
		u.SetKind(c.Definition.Spec.Names.Kind)
	}
	if c.Definition.Spec.Scope == apiextensionsv1.NamespaceScoped && u.GetNamespace() == "" {
		u.SetNamespace(DefaultNamespace)
	}
	var errs field.ErrorList
	unknown := structuralpruning.PruneWithOptions(u.Object, c.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})
	for _, path := range unknown {
		errs = append(errs, field.Forbidden(field.NewPath(path), fmt.Sprintf("unknown field %q", path)))
	}
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(u.Object, c.structural)
	structuraldefaulting.Default(u.Object, c.structural)
	return u, errs
}

func (c *CRD) validateMeta(u *unstructured.Unstructured) field.ErrorList {
	var errs field.ErrorList
	if want := c.Definition.Spec.Group + "/" + c.version.Name; u.GetAPIVersion() != want {
		errs = append(errs, field.Invalid(field.NewPath("apiVersion"), u.GetAPIVersion(), "must be "+want))
	}
	if want := c.Definition.Spec.Names.Kind; u.GetKind() != want {
		errs = append(errs, field.Invalid(field.NewPath("kind"), u.GetKind(), "must be "+want))
	}
	namespaced := c.Definition.Spec.Scope == apiextensionsv1.NamespaceScoped
	return append(errs, apimachineryvalidation.ValidateObjectMetaAccessor(u, namespaced, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))...)
}

// validateCEL runs the CEL rules unless earlier errors block them, as the API server does: a
// rule cannot reason about a value of the wrong type or a required field that is missing.
func (c *CRD) validateCEL(obj, old map[string]any, earlier field.ErrorList, opts ...cel.Option) field.ErrorList {
	for _, err := range earlier {
		switch err.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			return field.ErrorList{field.Invalid(nil, nil, RulesNotCheckedMessage)}
		}
	}
	var oldObj any
	if old != nil {
		oldObj = old
	}
	errs, _ := c.celValidator.Validate(context.Background(), nil, c.structural, obj, oldObj, celconfig.RuntimeCELCostBudget, opts...)
	return errs
}

// RulesNotCheckedMessage is the API server's error when schema errors keep it from running the
// CEL rules.
const RulesNotCheckedMessage = "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"

// ExpectErrors fails t unless errs holds exactly one error per substring of want, in any order.
func ExpectErrors(t testing.TB, errs field.ErrorList, want []string) {
	t.Helper()
	if len(errs) != len(want) {
		t.Errorf("got %d errors, want %d:\n%s", len(errs), len(want), List(errs))
	}
	for _, w := range want {
		if !slices.ContainsFunc(errs, func(err *field.Error) bool { return strings.Contains(err.Error(), w) }) {
			t.Errorf("no error contains %q; got:\n%s", w, List(errs))
		}
	}
}

// List prints errs one per line.
func List(errs field.ErrorList) string {
	var b strings.Builder
	for _, err := range errs {
		b.WriteString("  " + err.Error() + "\n")
	}
	return b.String()
}

// Structural is the CRD version's structural schema (defaults pruned as the API server keeps
// it), for generating objects from it.
func (c *CRD) Structural() *structuralschema.Structural { return c.structural }
