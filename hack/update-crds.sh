#!/usr/bin/env bash
# Regenerates the CRDs of the operator's custom resources from the Go types in pkg/apis with
# controller-gen, into deploy/00_<group>_<plural>.crd.yaml (00_ so that `kubectl apply -f deploy/`
# creates the CRDs before anything that uses them). The OLM bundle's copies in manifests/ are
# hack/bundle.sh's (make bundle), from these files.
#
# Usage: hack/update-crds.sh
#
# Needs only Go: controller-gen comes from hack/install-tools.sh (_output/tools/bin).
set -o errexit
set -o nounset
set -o pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"

export GOFLAGS="-mod=vendor -trimpath"

BIN_DIR="${ROOT}/_output/tools/bin"
if [[ -x "${ROOT}/hack/install-tools.sh" ]]; then
  "${ROOT}/hack/install-tools.sh" >/dev/null
fi
if [[ ! -x "${BIN_DIR}/controller-gen" ]]; then
  echo "missing ${BIN_DIR}/controller-gen: run hack/install-tools.sh" >&2
  exit 1
fi

WORK_DIR="${ROOT}/_output/crds"
rm -rf "${WORK_DIR}"
mkdir -p "${WORK_DIR}"

"${BIN_DIR}/controller-gen" crd paths=./pkg/apis/... output:crd:dir="${WORK_DIR}"

CRDS=(
  operator.openshift.io_leaderworkersetoperators.yaml
  batch.llm-d.ai_llmbatchgateways.yaml
  core.inference-gateway.com_gateways.yaml
  core.inference-gateway.com_mcps.yaml
)
if [[ "$(ls "${WORK_DIR}")" != "$(printf '%s\n' "${CRDS[@]}" | sort)" ]]; then
  echo "controller-gen wrote $(ls "${WORK_DIR}" | xargs), want ${CRDS[*]}: update CRDS in $0" >&2
  exit 1
fi

mkdir -p deploy
for crd in "${CRDS[@]}"; do
  cp "${WORK_DIR}/${crd}" "deploy/00_${crd%.yaml}.crd.yaml"
done
rm -rf "${WORK_DIR}"
