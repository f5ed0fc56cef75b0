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

# Bounds inside the types this module does not own (k8s.io/api's), which markers cannot reach
# (issue 33): hack/crdbounds.
go run ./hack/crdbounds "${WORK_DIR}"/*.yaml

# Every CRD controller-gen writes, and no other: a CRD of a type removed goes too.
# pkg/operator/operands's TestRegistryMatchesTheRepository fails when the files and the
# registered kinds (registry.Registration.CRDFile) differ.
mkdir -p deploy
rm -f deploy/00_*.crd.yaml
for crd in "${WORK_DIR}"/*.yaml; do
  name="$(basename "${crd}")"
  cp "${crd}" "deploy/00_${name%.yaml}.crd.yaml"
done
rm -rf "${WORK_DIR}"
