#!/usr/bin/env bash
# Installs the project's pinned code-generation tools into _output/tools/bin.
#
# Usage: hack/install-tools.sh [tool...]
#
# Without arguments every tool below is installed; with arguments only the named
# ones (e.g. `hack/install-tools.sh controller-gen`).
# Each tool is installed with `go install pkg@version` (GOFLAGS=-mod=mod, so the
# operator's vendor/ directory is not involved) and skipped when a version stamp
# shows it is already installed at the pinned version. Prints the bin dir.
# The binaries themselves are kept outside the clone, in TOOLS_CACHE
# [${XDG_CACHE_HOME:-$HOME/.cache}/llm-infra-operator/tools], one folder per tool, version and
# Go version, and linked into _output/tools/bin: a fresh clone (CI's) builds none of them again.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN_DIR="${ROOT}/_output/tools/bin"
STAMP_DIR="${ROOT}/_output/tools/stamps"
TOOLS_CACHE="${TOOLS_CACHE:-${XDG_CACHE_HOME:-${HOME}/.cache}/llm-infra-operator/tools}"
GO_VERSION="$(go env GOVERSION)"

CONTROLLER_TOOLS_VERSION="v0.20.1"
CODE_GENERATOR_VERSION="v0.36.2"

# name|package|version
TOOLS=(
  "controller-gen|sigs.k8s.io/controller-tools/cmd/controller-gen|${CONTROLLER_TOOLS_VERSION}"
  "deepcopy-gen|k8s.io/code-generator/cmd/deepcopy-gen|${CODE_GENERATOR_VERSION}"
  "client-gen|k8s.io/code-generator/cmd/client-gen|${CODE_GENERATOR_VERSION}"
  "lister-gen|k8s.io/code-generator/cmd/lister-gen|${CODE_GENERATOR_VERSION}"
  "informer-gen|k8s.io/code-generator/cmd/informer-gen|${CODE_GENERATOR_VERSION}"
  "applyconfiguration-gen|k8s.io/code-generator/cmd/applyconfiguration-gen|${CODE_GENERATOR_VERSION}"
)

wanted() {
  local name="$1" w
  [[ ${#REQUESTED[@]} -eq 0 ]] && return 0
  for w in "${REQUESTED[@]}"; do
    [[ "${w}" == "${name}" ]] && return 0
  done
  return 1
}

REQUESTED=("$@")
for w in "${REQUESTED[@]}"; do
  found=false
  for entry in "${TOOLS[@]}"; do
    [[ "${entry%%|*}" == "${w}" ]] && found=true
  done
  if [[ "${found}" != true ]]; then
    echo "unknown tool: ${w}" >&2
    exit 1
  fi
done

mkdir -p "${BIN_DIR}" "${STAMP_DIR}"

for entry in "${TOOLS[@]}"; do
  IFS='|' read -r name pkg version <<<"${entry}"
  wanted "${name}" || continue
  stamp="${STAMP_DIR}/${name}"
  if [[ -x "${BIN_DIR}/${name}" && -f "${stamp}" && "$(cat "${stamp}")" == "${pkg}@${version}" ]]; then
    continue
  fi
  cached="${TOOLS_CACHE}/${name}-${version}-${GO_VERSION}"
  if [[ ! -x "${cached}/${name}" ]]; then
    echo "installing ${pkg}@${version}" >&2
    # `go install pkg@version` ignores the current module's go.mod and vendor/. Installed into a
    # temporary folder that becomes the cache's when complete.
    rm -rf "${cached}.tmp.$$" && mkdir -p "${cached}.tmp.$$"
    (cd "${ROOT}" && GOWORK=off GOBIN="${cached}.tmp.$$" GOFLAGS=-mod=mod go install "${pkg}@${version}")
    if [[ -x "${cached}/${name}" ]]; then rm -rf "${cached}.tmp.$$"; else rm -rf "${cached}" && mv "${cached}.tmp.$$" "${cached}"; fi
  fi
  ln -sfn "${cached}/${name}" "${BIN_DIR}/${name}"
  echo "${pkg}@${version}" >"${stamp}"
done

echo "${BIN_DIR}"
