#!/usr/bin/env bash
# Regenerates the Go code derived from pkg/apis:
#   - pkg/apis/operator/v1/zz_generated.deepcopy.go           (deepcopy-gen)
#   - pkg/generated/applyconfigurations                        (applyconfiguration-gen, with Extract* functions)
#   - pkg/generated/clientset/versioned                        (client-gen, typed clientset + fake)
#   - pkg/generated/listers                                    (lister-gen)
#   - pkg/generated/informers/externalversions                 (informer-gen)
#
# Usage: hack/update-codegen.sh
#
# Needs only Go: the generators come from hack/install-tools.sh (pinned versions in
# _output/tools/bin) and packages are loaded from vendor/. No GOPATH layout is assumed.
#
# The Extract* functions need a structured-merge-diff schema of the CR to read managedFields. We
# derive it from the CRD that controller-gen produces for these same types, because the apiserver
# computes the CR's managedFields from exactly that schema (list-map keys of conditions and
# generations included). metadata is left untyped: the operator only extracts spec and status.
set -o errexit
set -o nounset
set -o pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"

export GOFLAGS=-mod=vendor

MODULE="github.com/llm-infra/llm-infra-operator"
APIS_PKG="${MODULE}/pkg/apis/operator/v1"
OUT_PKG="${MODULE}/pkg/generated"
OUT_DIR="${ROOT}/pkg/generated"
BOILERPLATE="${ROOT}/hack/boilerplate.go.txt"

BIN_DIR="${ROOT}/_output/tools/bin"
if [[ -x "${ROOT}/hack/install-tools.sh" ]]; then
  "${ROOT}/hack/install-tools.sh" >/dev/null
fi
for tool in controller-gen deepcopy-gen client-gen lister-gen informer-gen applyconfiguration-gen; do
  if [[ ! -x "${BIN_DIR}/${tool}" ]]; then
    echo "missing ${BIN_DIR}/${tool}: run hack/install-tools.sh" >&2
    exit 1
  fi
done

WORK_DIR="${ROOT}/_output/codegen"
rm -rf "${WORK_DIR}"
mkdir -p "${WORK_DIR}"

# openshift/api types embedded in (or nested in) our types, mapped to openshift/client-go's
# existing apply configurations instead of generating copies of them.
OPENSHIFT_APPLY="github.com/openshift/client-go/operator/applyconfigurations/operator/v1"
EXTERNAL_APPLYCONFIGS="$(printf '%s,' \
  "github.com/openshift/api/operator/v1.OperatorSpec:${OPENSHIFT_APPLY}" \
  "github.com/openshift/api/operator/v1.OperatorStatus:${OPENSHIFT_APPLY}" \
  "github.com/openshift/api/operator/v1.OperatorCondition:${OPENSHIFT_APPLY}" \
  "github.com/openshift/api/operator/v1.GenerationStatus:${OPENSHIFT_APPLY}" \
  "k8s.io/api/core/v1.Toleration:k8s.io/client-go/applyconfigurations/core/v1")"
EXTERNAL_APPLYCONFIGS="${EXTERNAL_APPLYCONFIGS%,}"

echo "deepcopy-gen" >&2
"${BIN_DIR}/deepcopy-gen" \
  --go-header-file "${BOILERPLATE}" \
  --output-file zz_generated.deepcopy.go \
  "${APIS_PKG}"

echo "openapi schema for applyconfiguration-gen (from the CRD)" >&2
"${BIN_DIR}/controller-gen" crd paths=./pkg/apis/... output:crd:dir="${WORK_DIR}/crd"
mkdir -p "${WORK_DIR}/crdopenapi"
cat >"${WORK_DIR}/crdopenapi/main.go" <<'EOF'
// Command crdopenapi turns a CRD's structural schema into a Swagger 2.0 document with one
// definition, named as applyconfiguration-gen expects for the given Go type.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: crdopenapi CRD_YAML DEFINITION_NAME OUT_JSON")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2], os.Args[3]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(crdPath, definition, outPath string) error {
	raw, err := os.ReadFile(crdPath)
	if err != nil {
		return err
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(raw, crd); err != nil {
		return fmt.Errorf("%s: %w", crdPath, err)
	}
	if len(crd.Spec.Versions) != 1 || crd.Spec.Versions[0].Schema == nil {
		return fmt.Errorf("%s: want exactly one version with a schema", crdPath)
	}
	schema := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.DeepCopy()
	swaggerV2(schema)
	// Untyped metadata: extraction then keeps whatever metadata a manager owns, as a map.
	schema.Properties["metadata"] = apiextensionsv1.JSONSchemaProps{}
	schemaJSON, err := json.Marshal(schema)
	if err != nil {
		return err
	}
	doc := map[string]any{
		"swagger":     "2.0",
		"info":        map[string]any{"title": crd.Name, "version": crd.Spec.Versions[0].Name},
		"paths":       map[string]any{},
		"definitions": map[string]json.RawMessage{definition: schemaJSON},
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(outPath, append(out, '\n'), 0o644)
}

// swaggerV2 drops what Swagger 2.0 cannot express and what extraction does not need, and makes
// subtrees that preserve unknown fields untyped, as the apiserver treats them.
func swaggerV2(s *apiextensionsv1.JSONSchemaProps) {
	if s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields {
		*s = apiextensionsv1.JSONSchemaProps{Description: s.Description}
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
EOF
go run ./_output/codegen/crdopenapi \
  "${WORK_DIR}/crd/operator.openshift.io_leaderworkersetoperators.yaml" \
  "com.github.llm-infra.llm-infra-operator.pkg.apis.operator.v1.LeaderWorkerSetOperator" \
  "${WORK_DIR}/openapi.json"

# Start from empty output directories so that removed types leave no stale files behind.
rm -rf "${OUT_DIR}/applyconfigurations" "${OUT_DIR}/clientset" "${OUT_DIR}/listers" "${OUT_DIR}/informers"

echo "applyconfiguration-gen" >&2
"${BIN_DIR}/applyconfiguration-gen" \
  --go-header-file "${BOILERPLATE}" \
  --output-dir "${OUT_DIR}/applyconfigurations" \
  --output-pkg "${OUT_PKG}/applyconfigurations" \
  --external-applyconfigurations "${EXTERNAL_APPLYCONFIGS}" \
  --openapi-schema "${WORK_DIR}/openapi.json" \
  "${APIS_PKG}"

echo "client-gen" >&2
"${BIN_DIR}/client-gen" \
  --go-header-file "${BOILERPLATE}" \
  --clientset-name versioned \
  --input-base "${MODULE}/pkg/apis" \
  --input operator/v1 \
  --apply-configuration-package "${OUT_PKG}/applyconfigurations" \
  --output-dir "${OUT_DIR}/clientset" \
  --output-pkg "${OUT_PKG}/clientset"

echo "lister-gen" >&2
"${BIN_DIR}/lister-gen" \
  --go-header-file "${BOILERPLATE}" \
  --output-dir "${OUT_DIR}/listers" \
  --output-pkg "${OUT_PKG}/listers" \
  "${APIS_PKG}"

echo "informer-gen" >&2
"${BIN_DIR}/informer-gen" \
  --go-header-file "${BOILERPLATE}" \
  --versioned-clientset-package "${OUT_PKG}/clientset/versioned" \
  --listers-package "${OUT_PKG}/listers" \
  --output-dir "${OUT_DIR}/informers" \
  --output-pkg "${OUT_PKG}/informers" \
  "${APIS_PKG}"

rm -rf "${WORK_DIR}"
