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
# One entry per API package: GROUP/VERSION under pkg/apis, every directory whose doc.go names
# its group (+groupName=). pkg/operator/operands's TestRegistryMatchesTheRepository fails when
# a registered kind's API package is not one of them, or one of them has no registered kind.
API_GROUP_VERSIONS=()
for doc in pkg/apis/*/*/doc.go; do
  if grep -q '+groupName=' "${doc}"; then
    dir="$(dirname "${doc}")"
    API_GROUP_VERSIONS+=("${dir#pkg/apis/}")
  fi
done
APIS_PKGS=()
API_DIRS=()
for gv in "${API_GROUP_VERSIONS[@]}"; do
  APIS_PKGS+=("${MODULE}/pkg/apis/${gv}")
  API_DIRS+=("pkg/apis/${gv}")
done
# Packages of types that several API groups embed (pkg/apis/networkpolicy/v1alpha1: the
# spec.networkPolicy of the Gateway, MCP, Agent, Orchestrator and LLMBatchGateway, declared
# once): no group of their own (no +groupName=), so no client, lister or informer; deepcopy only.
# The groups' apply configurations hold their types as they are (applyconfiguration-gen makes
# apply configurations for the groups' packages only).
SHARED_PKGS=()
for doc in pkg/apis/*/*/doc.go; do
  if ! grep -q '+groupName=' "${doc}" && grep -q '+k8s:deepcopy-gen=package' "${doc}"; then
    SHARED_PKGS+=("${MODULE}/$(dirname "${doc}")")
  fi
done
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

# openshift/api and k8s.io/api types embedded in (or nested in) our types, mapped to the existing
# apply configurations of openshift/client-go and client-go instead of generating copies of them
# (applyconfiguration-gen maps metav1's types, Condition included, by itself).
OPENSHIFT_APPLY="github.com/openshift/client-go/operator/applyconfigurations/operator/v1"
EXTERNAL_APPLYCONFIGS="$(printf '%s,' \
  "github.com/openshift/api/operator/v1.OperatorSpec:${OPENSHIFT_APPLY}" \
  "github.com/openshift/api/operator/v1.OperatorStatus:${OPENSHIFT_APPLY}" \
  "github.com/openshift/api/operator/v1.OperatorCondition:${OPENSHIFT_APPLY}" \
  "github.com/openshift/api/operator/v1.GenerationStatus:${OPENSHIFT_APPLY}" \
  "k8s.io/api/core/v1.Toleration:k8s.io/client-go/applyconfigurations/core/v1" \
  "k8s.io/api/core/v1.ResourceRequirements:k8s.io/client-go/applyconfigurations/core/v1" \
  "k8s.io/api/core/v1.LocalObjectReference:k8s.io/client-go/applyconfigurations/core/v1" \
  "k8s.io/api/core/v1.SecretReference:k8s.io/client-go/applyconfigurations/core/v1" \
  "k8s.io/api/core/v1.SecretKeySelector:k8s.io/client-go/applyconfigurations/core/v1" \
  "k8s.io/api/core/v1.ConfigMapKeySelector:k8s.io/client-go/applyconfigurations/core/v1" \
  "k8s.io/api/core/v1.EnvVar:k8s.io/client-go/applyconfigurations/core/v1" \
  "k8s.io/api/autoscaling/v2.MetricSpec:k8s.io/client-go/applyconfigurations/autoscaling/v2" \
  "k8s.io/api/autoscaling/v2.HorizontalPodAutoscalerBehavior:k8s.io/client-go/applyconfigurations/autoscaling/v2")"
EXTERNAL_APPLYCONFIGS="${EXTERNAL_APPLYCONFIGS%,}"

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
