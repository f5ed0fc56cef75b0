#!/usr/bin/env bash
# Regenerates the Go code derived from pkg/apis (operator.openshift.io/v1, batch.llm-d.ai/v1alpha1
# and core.inference-gateway.com/v1alpha1, and the types they share):
#   - pkg/apis/*/*/zz_generated.deepcopy.go                     (deepcopy-gen)
#   - pkg/generated/applyconfigurations                        (applyconfiguration-gen, with Extract* functions)
#   - pkg/generated/clientset/versioned                        (client-gen, one clientset for every group + fake)
#   - pkg/generated/listers                                    (lister-gen)
#   - pkg/generated/informers/externalversions                 (informer-gen)
#
# Usage: hack/update-codegen.sh
#
# Needs only Go: the generators come from hack/install-tools.sh (pinned versions in
# _output/tools/bin) and packages are loaded from vendor/. No GOPATH layout is assumed.
#
# The Extract* functions need a structured-merge-diff schema of each CR to read managedFields.
# hack/crdopenapi derives it from the CRDs that controller-gen produces for these same types,
# because the apiserver computes a CR's managedFields from exactly that schema (list-map keys of
# conditions and generations included). metadata is left untyped: the operator only extracts spec
# and status.
set -o errexit
set -o nounset
set -o pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"

export GOFLAGS="-mod=vendor -trimpath"

MODULE="github.com/llm-infra/llm-infra-operator"
# The API packages, the shared types' packages and the external apply configurations.
# shellcheck source=hack/lib/codegen-inputs.sh
source "${ROOT}/hack/lib/codegen-inputs.sh"
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

echo "deepcopy-gen" >&2
"${BIN_DIR}/deepcopy-gen" \
  --go-header-file "${BOILERPLATE}" \
  --output-file zz_generated.deepcopy.go \
  "${APIS_PKGS[@]}" "${SHARED_PKGS[@]}"

echo "openapi schema for applyconfiguration-gen (from the CRDs)" >&2
"${BIN_DIR}/controller-gen" crd paths=./pkg/apis/... output:crd:dir="${WORK_DIR}/crd"
go run ./hack/crdopenapi "${WORK_DIR}/openapi.json" "${WORK_DIR}/crd" "${MODULE}" "${API_DIRS[@]}"

# The generators write into empty directories of WORK_DIR (so that removed types leave no stale
# files behind); sync_generated then changes in pkg/generated only the files whose content
# differs. A build beside this script (hack/prebuild.sh compiles the operands' packages while make
# verify runs it) so never finds the package gone; an emptied pkg/generated once failed one.
GEN_DIR="${WORK_DIR}/generated"

echo "applyconfiguration-gen" >&2
"${BIN_DIR}/applyconfiguration-gen" \
  --go-header-file "${BOILERPLATE}" \
  --output-dir "${GEN_DIR}/applyconfigurations" \
  --output-pkg "${OUT_PKG}/applyconfigurations" \
  --external-applyconfigurations "${EXTERNAL_APPLYCONFIGS}" \
  --openapi-schema "${WORK_DIR}/openapi.json" \
  "${APIS_PKGS[@]}"

echo "client-gen" >&2
"${BIN_DIR}/client-gen" \
  --go-header-file "${BOILERPLATE}" \
  --clientset-name versioned \
  --input-base "${MODULE}/pkg/apis" \
  --input "$(IFS=,; echo "${API_GROUP_VERSIONS[*]}")" \
  --apply-configuration-package "${OUT_PKG}/applyconfigurations" \
  --output-dir "${GEN_DIR}/clientset" \
  --output-pkg "${OUT_PKG}/clientset"

echo "lister-gen" >&2
"${BIN_DIR}/lister-gen" \
  --go-header-file "${BOILERPLATE}" \
  --output-dir "${GEN_DIR}/listers" \
  --output-pkg "${OUT_PKG}/listers" \
  "${APIS_PKGS[@]}"

echo "informer-gen" >&2
"${BIN_DIR}/informer-gen" \
  --go-header-file "${BOILERPLATE}" \
  --versioned-clientset-package "${OUT_PKG}/clientset/versioned" \
  --listers-package "${OUT_PKG}/listers" \
  --output-dir "${GEN_DIR}/informers" \
  --output-pkg "${OUT_PKG}/informers" \
  "${APIS_PKGS[@]}"

# sync_generated: OUT_DIR's generated directories made equal to GEN_DIR's, touching only the
# files that differ.
sync_generated() {
  local dir file
  for dir in applyconfigurations clientset listers informers; do
    mkdir -p "${OUT_DIR}/${dir}"
    (cd "${GEN_DIR}/${dir}" && find . -type f) | while IFS= read -r file; do
      if ! cmp -s "${GEN_DIR}/${dir}/${file}" "${OUT_DIR}/${dir}/${file}"; then
        mkdir -p "$(dirname "${OUT_DIR}/${dir}/${file}")"
        cp "${GEN_DIR}/${dir}/${file}" "${OUT_DIR}/${dir}/${file}"
      fi
    done
    (cd "${OUT_DIR}/${dir}" && find . -type f) | while IFS= read -r file; do
      [[ -f "${GEN_DIR}/${dir}/${file}" ]] || rm "${OUT_DIR}/${dir}/${file}"
    done
    find "${OUT_DIR}/${dir}" -mindepth 1 -type d -empty -delete
  done
}
sync_generated

rm -rf "${WORK_DIR}"
