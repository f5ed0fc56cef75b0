#!/usr/bin/env bash
# Generates the LeaderWorkerSet operand manifests in bindata/assets/lws from the upstream
# sigs.k8s.io/lws source at the version in ./operand-git-ref, the commit pinned as `lws` in
# hack/operands/sources.tsv:
#
#   crd.yaml (LeaderWorkerSet), disaggregatedset-crd.yaml, disaggregatedsetrolescaler-crd.yaml,
#   mutatingwebhookconfiguration.yaml, validatingwebhookconfiguration.yaml
#
# and the controller's ClusterRole lws-manager-role in deploy/13_lws-manager-role.yaml (installed
# with the operator, not by it: docs/rbac.md).
#
# The source tree comes from hack/lib/sources.sh (the pinned archive in $OPERAND_SOURCES, else
# the pinned commit fetched from upstream, verified either way), not from the Go module proxy,
# which refuses sigs.k8s.io/lws v0.10.0's zip; it is kept in UPSTREAM_CACHE
# [${XDG_CACHE_HOME:-$HOME/.cache}/llm-infra-operator/upstream], by commit, so later runs (make
# verify in any clone on the machine) need neither. controller-gen runs inside that tree so that
# it resolves lws's own pinned dependencies (from the module proxy); hack/operandgen then
# post-processes its output (names, ${NAMESPACE} placeholders, conversion webhook, cert-manager
# CA injection, pod webhook objectSelectors).
#
# Usage:
#   hack/generate-operand-manifests.sh           regenerate in place
#   hack/generate-operand-manifests.sh --verify  regenerate into a temp dir and
#                                                fail if bindata differs
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT_DIR="${ROOT}/bindata/assets/lws"
# The operand's ClusterRole is installed with the operator (deploy/ and the bundle), not by it.
ROLE_FILE="${ROOT}/deploy/13_lws-manager-role.yaml"
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

# The pinned tree of lws, whose tag must be operand-git-ref's version.
# shellcheck source=hack/lib/sources.sh
source "${ROOT}/hack/lib/sources.sh"
sources::load "${ROOT}/hack/operands/sources.tsv" || exit 1
pinned_ref="$(awk -F'\t' '$1 == "lws" {print $3}' "${ROOT}/hack/operands/sources.tsv")"
if [[ "${pinned_ref}" != "${VERSION}" ]]; then
  echo "operand-git-ref says ${VERSION} but hack/operands/sources.tsv pins lws at ${pinned_ref}: make them agree" >&2
  exit 1
fi
UPSTREAM_CACHE="${UPSTREAM_CACHE:-${XDG_CACHE_HOME:-${HOME}/.cache}/llm-infra-operator/upstream}"
mkdir -p "${UPSTREAM_CACHE}"
MOD_DIR="${UPSTREAM_CACHE}/lws-$(sources::commit lws)"
sources::tree lws "${MOD_DIR}" || exit 1

# -mod=mod lets controller-gen resolve lws's own go.mod, downloading into the module cache if
# needed; GOWORK=off keeps the operator's go.work (if any) out.
run_controller_gen() {
  (cd "${MOD_DIR}" && GOWORK=off GOFLAGS=-mod=mod "${CONTROLLER_GEN}" "$@" output:stdout)
}
run_controller_gen rbac:roleName=manager-role paths=./pkg/controllers/... >"${TMP}/rbac.yaml"
run_controller_gen webhook paths=./pkg/webhooks/... >"${TMP}/webhook.yaml"
# generateEmbeddedObjectMeta as upstream's `make manifests` does: without it the
# pod templates' metadata (labels, annotations) would be pruned by the apiserver.
run_controller_gen crd:generateEmbeddedObjectMeta=true paths="{./api/leaderworkerset/...,./api/disaggregatedset/...}" >"${TMP}/crd.yaml"

target="${OUT_DIR}"
role_target="${ROLE_FILE}"
if [[ "${VERIFY}" == true ]]; then
  target="${TMP}/out"
  mkdir -p "${target}"
  role_target="${target}/$(basename "${ROLE_FILE}")"
fi
(cd "${ROOT}" && GOWORK=off GOFLAGS="-mod=vendor -trimpath" go run ./hack/operandgen \
  -lws-version "${VERSION}" \
  -rbac "${TMP}/rbac.yaml" -webhook "${TMP}/webhook.yaml" -crd "${TMP}/crd.yaml" \
  -out "${target}" -clusterrole "${role_target}")

if [[ "${VERIFY}" == true ]]; then
  rc=0
  for f in "${target}"/*.yaml; do
    committed="${OUT_DIR}/$(basename "${f}")"
    if [[ "${f}" == "${role_target}" ]]; then
      committed="${ROLE_FILE}"
    fi
    if ! diff -u "${committed}" "${f}"; then
      rc=1
    fi
  done
  if [[ "${rc}" -ne 0 ]]; then
    echo "generated operand manifests are out of date; run hack/generate-operand-manifests.sh" >&2
    exit 1
  fi
  echo "operand manifests are up to date (sigs.k8s.io/lws ${VERSION})"
fi
