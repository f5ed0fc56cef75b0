#!/usr/bin/env bash
# Regenerates the LeaderWorkerSetOperator CRD from the Go types in pkg/apis with controller-gen:
#   - manifests/operator.openshift.io_leaderworkersetoperators.yaml   (the operator bundle's copy)
#   - deploy/00_operator.openshift.io_leaderworkersetoperators.crd.yaml (same content; 00_ so that
#     `kubectl apply -f deploy/` creates the CRD before anything that uses it)
#
# Usage: hack/update-crds.sh
#
# Needs only Go: controller-gen comes from hack/install-tools.sh (_output/tools/bin).
set -o errexit
set -o nounset
set -o pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"

export GOFLAGS=-mod=vendor

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

CRD="operator.openshift.io_leaderworkersetoperators.yaml"
if [[ ! -f "${WORK_DIR}/${CRD}" ]]; then
  echo "controller-gen did not write ${CRD}; it wrote: $(ls "${WORK_DIR}")" >&2
  exit 1
fi

mkdir -p manifests deploy
cp "${WORK_DIR}/${CRD}" "manifests/${CRD}"
cp "${WORK_DIR}/${CRD}" "deploy/00_${CRD%.yaml}.crd.yaml"
rm -rf "${WORK_DIR}"
