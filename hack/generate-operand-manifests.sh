#!/usr/bin/env bash
# Generates the LeaderWorkerSet operand manifests in bindata/assets/lws from the
# upstream sigs.k8s.io/lws module at the version in ./operand-git-ref:
#
#   crd.yaml, clusterrole.yaml, mutatingwebhookconfiguration.yaml,
#   validatingwebhookconfiguration.yaml
#
# controller-gen runs inside the lws module directory (in the Go module cache) so
# that it resolves lws's own pinned dependencies; hack/operandgen then
# post-processes its output (names, ${NAMESPACE} placeholders, conversion webhook,
# cert-manager CA injection, pod webhook objectSelectors).
#
# Usage:
#   hack/generate-operand-manifests.sh           regenerate in place
#   hack/generate-operand-manifests.sh --verify  regenerate into a temp dir and
#                                                fail if bindata differs
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT_DIR="${ROOT}/bindata/assets/lws"
LWS_MODULE="sigs.k8s.io/lws"

VERIFY=false
case "${1:-}" in
  "") ;;
  --verify) VERIFY=true ;;
  *) echo "usage: $0 [--verify]" >&2; exit 2 ;;
esac

VERSION="$(tr -d '[:space:]' <"${ROOT}/operand-git-ref")"
if [[ -z "${VERSION}" ]]; then
  echo "operand-git-ref is empty" >&2
  exit 1
fi

TOOLS_BIN="$("${ROOT}/hack/install-tools.sh" controller-gen | tail -n 1)"
CONTROLLER_GEN="${TOOLS_BIN}/controller-gen"

TMP="$(mktemp -d)"
trap 'rm -rf "${TMP}"' EXIT

# Locate (downloading if needed) the lws module. Run outside the operator's
# module so its go.mod and vendor/ play no part.
MOD_DIR="$(cd "${TMP}" && GOWORK=off GOFLAGS=-mod=mod go mod download -json "${LWS_MODULE}@${VERSION}" |
  sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')"
if [[ -z "${MOD_DIR}" || ! -d "${MOD_DIR}" ]]; then
  echo "could not locate ${LWS_MODULE}@${VERSION} in the module cache" >&2
  exit 1
fi

# controller-gen only reads the module directory (the module cache is
# read-only); -mod=mod lets it resolve lws's own go.mod, downloading into the
# (writable) module cache if needed.
run_controller_gen() {
  (cd "${MOD_DIR}" && GOWORK=off GOFLAGS=-mod=mod "${CONTROLLER_GEN}" "$@" output:stdout)
}
run_controller_gen rbac:roleName=manager-role paths=./pkg/controllers/... >"${TMP}/rbac.yaml"
run_controller_gen webhook paths=./pkg/webhooks/... >"${TMP}/webhook.yaml"
# generateEmbeddedObjectMeta as upstream's `make manifests` does: without it the
# pod templates' metadata (labels, annotations) would be pruned by the apiserver.
run_controller_gen crd:generateEmbeddedObjectMeta=true paths=./api/leaderworkerset/... >"${TMP}/crd.yaml"

target="${OUT_DIR}"
if [[ "${VERIFY}" == true ]]; then
  target="${TMP}/out"
fi
(cd "${ROOT}" && GOWORK=off GOFLAGS="-mod=vendor -trimpath" go run ./hack/operandgen \
  -lws-version "${VERSION}" \
  -rbac "${TMP}/rbac.yaml" -webhook "${TMP}/webhook.yaml" -crd "${TMP}/crd.yaml" \
  -out "${target}")

if [[ "${VERIFY}" == true ]]; then
  rc=0
  for f in "${target}"/*.yaml; do
    if ! diff -u "${OUT_DIR}/$(basename "${f}")" "${f}"; then
      rc=1
    fi
  done
  if [[ "${rc}" -ne 0 ]]; then
    echo "generated operand manifests are out of date; run hack/generate-operand-manifests.sh" >&2
    exit 1
  fi
  echo "operand manifests are up to date (sigs.k8s.io/lws ${VERSION})"
fi
