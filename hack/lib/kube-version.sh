#!/usr/bin/env bash
# The Kubernetes versions the local cluster runs (KUBE_VERSION): one table of each version's
# tools module (hack/tools/*, pinned Go modules built by hack/build-cluster-binaries.sh), where
# its control-plane binaries are kept, and the flags its components need or lack. Source it;
# functions kube::*. hack/build-cluster-binaries.sh and hack/local-cluster.sh read it, so
# `make test-e2e-local KUBE_VERSION=v1.30`, `hack/local-cluster.sh up` with KUBE_VERSION set,
# and `make test-reliability-short SUITES=admission KUBE_VERSION=oldest` all mean the same.
#
#   version   tools module          why this version
#   v1.36.3   hack/tools/kube       the release the operator is built against (go.mod's k8s.io/*)
#   v1.30.14  hack/tools/kube-1.30  the oldest the bundle claims: the CSV's minKubeVersion 1.30.0
#                                   (OpenShift 4.17); its newest patch the module proxy serves
#
# KUBE_VERSION takes a version of the table, its minor (1.30 or v1.30), `newest` or `oldest`;
# unset, the newest. The newest version's binaries stay in $OUTPUT_DIR/bin (kubectl too: the
# scripts' kubectl for every version); another version's kube-apiserver, kube-controller-manager
# and kube-scheduler go to $OUTPUT_DIR/bin/kube-<version>/, with their own build stamp, so
# switching versions rebuilds nothing.

KUBE_VERSION_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

# version  tools module (under hack/tools)
KUBE_VERSIONS=(
  "v1.36.3  kube"
  "v1.30.14 kube-1.30"
)
KUBE_VERSION_NEWEST=v1.36.3
KUBE_VERSION_OLDEST=v1.30.14

# kube::use [VERSION]: resolves VERSION (default: $KUBE_VERSION, else the newest) and exports
#   KUBE_VERSION        the full version (v1.30.14)
#   KUBE_MINOR          its minor number (30)
#   KUBE_TOOLS_MODULE   its tools module's directory
#   KUBE_BIN            the directory of its kube-apiserver, kube-controller-manager and
#                       kube-scheduler (relative names: kube::bin_name)
kube::use() {
  local want="${1:-${KUBE_VERSION:-newest}}" row version module
  case "${want}" in
    newest) want="${KUBE_VERSION_NEWEST}" ;;
    oldest) want="${KUBE_VERSION_OLDEST}" ;;
  esac
  want="v${want#v}"
  for row in "${KUBE_VERSIONS[@]}"; do
    read -r version module <<<"${row}"
    # A minor (v1.30) names its row's patch release.
    [[ "${version}" == "${want}" || "${version}" == "${want}".* ]] || continue
    local output="${OUTPUT_DIR:-${KUBE_VERSION_ROOT}/_output}"
    export KUBE_VERSION="${version}"
    KUBE_MINOR="$(echo "${version}" | cut -d. -f2)"
    export KUBE_MINOR
    export KUBE_TOOLS_MODULE="${KUBE_VERSION_ROOT}/hack/tools/${module}"
    export KUBE_BIN="${output}/bin/$(kube::bin_dir)"
    KUBE_BIN="${KUBE_BIN%/}"
    return 0
  done
  echo "KUBE_VERSION '${want}' is not one the local cluster builds (one of: $(kube::versions); or a minor, newest, oldest)" >&2
  return 1
}

# kube::versions: every version of the table.
kube::versions() {
  local row names=()
  for row in "${KUBE_VERSIONS[@]}"; do names+=("${row%% *}"); done
  echo "${names[*]}"
}

# kube::bin_dir: KUBE_BIN relative to $OUTPUT_DIR/bin: empty for the newest version.
kube::bin_dir() {
  [[ "${KUBE_VERSION}" == "${KUBE_VERSION_NEWEST}" ]] || echo "kube-${KUBE_VERSION}"
}

# kube::is_control_plane NAME: NAME is a binary of the version (not kubectl, etcd, kwok, ...).
kube::is_control_plane() {
  case "$1" in
    kube-apiserver | kube-controller-manager | kube-scheduler) return 0 ;;
  esac
  return 1
}

# kube::flags COMPONENT: the words the version adds to COMPONENT's command line, one a line.
# hack/local-cluster.sh's flags are those every version in the table knows; a flag that only
# some versions know, or that an older one needs, goes here. None differ today: every flag the
# script passes exists with the same meaning from 1.30 to 1.36, and the features the operator
# and the CRDs use are on by default in 1.30 (CRD validation ratcheting is beta there, GA in
# 1.33; the quantity CEL library arrived in 1.28).
kube::flags() {
  case "${KUBE_MINOR}:$1" in
    *) ;;
  esac
}
