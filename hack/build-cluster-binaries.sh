#!/usr/bin/env bash
# Builds the binaries of the local live cluster (hack/local-cluster.sh) into
# _output/bin/:
#   kube-apiserver kube-controller-manager kube-scheduler kubectl  (hack/tools/kube)
#   kube-<version>/kube-apiserver, -controller-manager, -scheduler (KUBE_VERSION other than the
#                                                         newest: hack/lib/kube-version.sh;
#                                                         APISERVER_ONLY=true: kube-apiserver alone)
#   etcd                                                            (hack/tools/etcd)
#   kwok kwokctl (kwokctl runs the control plane from the binaries  (hack/tools/kwok)
#     above: hack/local-cluster.sh)
#   cert-manager-runner + cert-manager-crds.yaml                    (hack/tools/certmanager)
#   realpods-agent (REAL_PODS=true's node agent; make test-realpods  (hack/tools/realpods)
#     builds its live test's program, realpods-echo, itself)
#   openshift-admission + openshift-crds.yaml (OPENSHIFT=true only:  (hack/tools/openshift)
#     hack/openshift/cluster.sh)
#
# Each tools module is its own Go module, so none of this touches the
# operator's go.mod or vendor/. The first build takes several minutes
# (kube-apiserver and friends); afterwards a module is rebuilt only when its
# stamp changes: a hash of the Go version, the module's build function here
# (not the whole script), and the module's go.mod, go.sum and Go sources. A second run takes a second or two.
#
# Every build is also kept outside the clone, in CLUSTER_BIN_CACHE, one folder per module and
# stamp: a fresh clone (CI's) on the same machine links those binaries instead of building
# them again (minutes on 2 cores, most of it linking kube-apiserver and friends; a cold build
# of another KUBE_VERSION's control plane takes longer still).
#
# Environment:
#   FORCE=true   rebuild everything, ignoring stamps and the cache
#   OPENSHIFT=true  also build OpenShift's parts (hack/tools/openshift), from the sources pinned in
#                hack/openshift/sources.tsv: $OPERAND_SOURCES/<archive> when set, else GitHub
#   KUBE_VERSION also build that version's control plane (hack/lib/kube-version.sh)
#   APISERVER_ONLY=true  of that version, only kube-apiserver (a cluster started with
#                APISERVER_ONLY=true runs no controller manager or scheduler: hack/local-cluster.sh)
#   OUTPUT_DIR   default <repo>/_output
#   CLUSTER_BIN_CACHE [${XDG_CACHE_HOME:-$HOME/.cache}/llm-infra-operator/cluster-bin]
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="${ROOT}/hack/tools"
OUTPUT_DIR="${OUTPUT_DIR:-${ROOT}/_output}"
BIN="${OUTPUT_DIR}/bin"
STAMPS="${BIN}/.stamps"
FORCE="${FORCE:-false}"
CLUSTER_BIN_CACHE="${CLUSTER_BIN_CACHE:-${XDG_CACHE_HOME:-${HOME}/.cache}/llm-infra-operator/cluster-bin}"

# shellcheck source=hack/lib/kube-version.sh
source "${ROOT}/hack/lib/kube-version.sh"
# The version asked for (checked before anything is built), then the newest, whose kubectl
# every version's scripts use.
kube::use
WANTED_KUBE_VERSION="${KUBE_VERSION}"

# The tools modules resolve their own dependencies from the module cache
# (-mod=mod), whatever the caller's GOFLAGS says (the operator uses
# -mod=vendor). A go.work would pull them into the operator's build list.
export GOFLAGS="-mod=mod -buildvcs=false"
export GOWORK=off
export CGO_ENABLED="${CGO_ENABLED:-0}"

mkdir -p "${BIN}" "${STAMPS}"

log() { echo "[build-cluster-binaries] $*"; }

# stamp_of MODULE_DIR CMD...: hash of everything that decides what a module builds: the Go
# version, the module's go.mod, go.sum and Go sources, and the text of its build function (not of
# this whole script: an edit elsewhere here rebuilds nothing).
stamp_of() {
  local dir="$1"; shift
  {
    go version
    echo "$*"
    declare -f "$1"
    [[ "$1" == "build_kube" ]] && declare -f kube_ldflags && kube_ldflags
    # Sorted so the hash does not depend on the filesystem's order.
    (cd "${dir}" && find . -name '*.go' -o -name 'go.mod' -o -name 'go.sum' | LC_ALL=C sort | xargs sha256sum)
  } | sha256sum | cut -d' ' -f1
}

# up_to_date NAME STAMP OUTPUT...: true when every output exists and the stamp recorded at
# the last successful build is STAMP.
up_to_date() {
  local name="$1" stamp="$2"; shift 2
  [[ "${FORCE}" == "true" ]] && return 1
  local f
  for f in "$@"; do [[ -e "${BIN}/${f}" ]] || return 1; done
  [[ -f "${STAMPS}/${name}" ]] && [[ "$(cat "${STAMPS}/${name}")" == "${stamp}" ]]
}

# build_module NAME MODULE_DIR "OUTPUTS" CMD...: runs CMD in MODULE_DIR
# unless up to date, then records the stamp. The stamp is written last, so
# an interrupted build is redone next time. One build of a module at a time per output
# directory (e2e and bench scripts may start together, and `make ci` builds ahead beside its
# phases: hack/prebuild.sh): the second waits, then finds it up to date; other modules go on.
build_module() {
  (
    exec 9>"${STAMPS}/$1.lock"
    flock 9
    build_module_locked "$@"
  )
}
build_module_locked() {
  local name="$1" dir="$2" outputs="$3"; shift 3
  local stamp cached f
  stamp="$(stamp_of "${dir}" "$@")"
  # shellcheck disable=SC2086 # outputs is a space-separated list of names
  if up_to_date "${name}" "${stamp}" ${outputs}; then
    log "${name}: up to date (${outputs})"
    return 0
  fi
  # An output may be in a folder of BIN (another KUBE_VERSION's control plane).
  cached="${CLUSTER_BIN_CACHE}/${name}-${stamp:0:16}"
  if [[ "${FORCE}" != "true" && -f "${cached}/.complete" ]]; then
    for f in ${outputs}; do
      mkdir -p "$(dirname "${BIN}/${f}")"
      ln -sfn "${cached}/${f}" "${BIN}/${f}"
    done
    echo "${stamp}" >"${STAMPS}/${name}"
    log "${name}: from the cache ${cached}"
    return 0
  fi
  log "${name}: building ${outputs} ..."
  local start=${SECONDS}
  for f in ${outputs}; do rm -f "${BIN}/${f}"; done
  (cd "${dir}" && "$@")
  echo "${stamp}" >"${STAMPS}/${name}"
  # Kept for other clones: copied to a temporary folder, renamed when complete.
  mkdir -p "${CLUSTER_BIN_CACHE}"
  rm -rf "${cached}.tmp.$$" && mkdir -p "${cached}.tmp.$$"
  for f in ${outputs}; do
    mkdir -p "$(dirname "${cached}.tmp.$$/${f}")"
    cp "${BIN}/${f}" "${cached}.tmp.$$/${f}"
  done
  touch "${cached}.tmp.$$/.complete"
  if [[ -f "${cached}/.complete" ]]; then
    rm -rf "${cached}.tmp.$$" # another clone kept the same build meanwhile (links may point there)
  else
    rm -rf "${cached}" && mv "${cached}.tmp.$$" "${cached}"
  fi
  log "${name}: done in $((SECONDS - start))s"
}

# Version variables of the Kubernetes binaries of KUBE_VERSION (kubectl reads client-go's).
kube_ldflags() {
  local flags="-s -w" pkg
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    flags+=" -X ${pkg}.gitVersion=${KUBE_VERSION}"
    flags+=" -X ${pkg}.gitMajor=1 -X ${pkg}.gitMinor=${KUBE_MINOR}"
    flags+=" -X ${pkg}.gitTreeState=clean"
    flags+=" -X ${pkg}.buildDate=2026-01-01T00:00:00Z"
  done
  echo "${flags}"
}

# build_kube OUTPUT...: the commands of OUTPUT (base names) into KUBE_BIN.
build_kube() {
  local pkgs=() out
  for out in "$@"; do pkgs+=("k8s.io/kubernetes/cmd/$(basename "${out}")"); done
  mkdir -p "${KUBE_BIN}"
  go build -trimpath -ldflags "$(kube_ldflags)" -o "${KUBE_BIN}/" "${pkgs[@]}"
}

build_etcd() {
  go build -trimpath -ldflags "-s -w" -o "${BIN}/etcd" ./cmd/etcd
}

# kwok and kwokctl from the same pinned module, in one go build (shared packages compiled once).
build_kwok() {
  go build -trimpath -ldflags "-s -w" -o "${BIN}/" sigs.k8s.io/kwok/cmd/kwok sigs.k8s.io/kwok/cmd/kwokctl
}

# The runner, plus cert-manager's CRDs from the same module version, so the
# CRDs installed always match the controllers that serve them.
build_certmanager() {
  go build -trimpath -ldflags "-s -w" -o "${BIN}/cert-manager-runner" ./cmd/cert-manager-runner
  local dir
  dir="$(go list -m -f '{{.Dir}}' github.com/cert-manager/cert-manager)"
  local f tmp="${BIN}/cert-manager-crds.yaml.tmp"
  : >"${tmp}"
  for f in "${dir}"/deploy/crds/*.yaml; do
    { echo "---"; cat "${f}"; } >>"${tmp}"
  done
  mv "${tmp}" "${BIN}/cert-manager-crds.yaml"
}

build_realpods() {
  go build -trimpath -ldflags "-s -w" -o "${BIN}/realpods-agent" .
}

# OpenShift's parts (OPENSHIFT=true). The module proxy refuses apiserver-library-go, so its tree
# (hack/openshift/sources.tsv, hack/lib/sources.sh) is put where hack/tools/openshift/go.mod's
# `replace` points: _output/openshift-src of this checkout (not OUTPUT_DIR: the go.mod's path is
# fixed), replaced when the pin changes. The pinned commit is an argument, hence part of the
# stamp and of the cache's key: a cached build needs no tree. Then the program and the CRDs of
# the OpenShift APIs the operator looks for, from the openshift/api module it builds with.
build_openshift() {
  # $1, the pinned commit, only keys the stamp and the cache (see above).
  local src="${ROOT}/_output/openshift-src/apiserver-library-go"
  sources::pinned_tree apiserver-library-go "${src}" || return 1
  GOTOOLCHAIN=local go build -trimpath -ldflags "-s -w" -o "${BIN}/openshift-admission" ./cmd/openshift-admission
  local api f tmp="${BIN}/openshift-crds.yaml.tmp"
  api="$(go list -m -f '{{.Dir}}' github.com/openshift/api)"
  : >"${tmp}"
  # SCCs (security.openshift.io), the cluster's APIServer config (config.openshift.io: its TLS
  # profile), its Infrastructure (config.openshift.io: the control plane's topology, which
  # controllercmd reads for the leader election's timings) and Route (route.openshift.io:
  # OpenShift serves it from openshift-apiserver; this is the CRD openshift/api generates for
  # clusters without it).
  for f in security/v1/zz_generated.crd-manifests/0000_03_config-operator_01_securitycontextconstraints.crd.yaml \
    config/v1/zz_generated.crd-manifests/0000_10_config-operator_01_apiservers-Default.crd.yaml \
    config/v1/zz_generated.crd-manifests/0000_10_config-operator_01_infrastructures-Default.crd.yaml \
    route/v1/zz_generated.crd-manifests/routes.crd.yaml; do
    { echo "---"; cat "${api}/${f}"; } >>"${tmp}"
  done
  mv "${tmp}" "${BIN}/openshift-crds.yaml"
}

total_start=${SECONDS}
kube::use newest
build_module kube "${KUBE_TOOLS_MODULE}" \
  "kube-apiserver kube-controller-manager kube-scheduler kubectl" \
  build_kube kube-apiserver kube-controller-manager kube-scheduler kubectl
if [[ "${WANTED_KUBE_VERSION}" != "${KUBE_VERSION}" ]]; then
  kube::use "${WANTED_KUBE_VERSION}"
  d="$(kube::bin_dir)"
  if [[ "${APISERVER_ONLY:-false}" == "true" ]]; then
    # Its own stamp and cache entry: a full build of the version stays valid beside it.
    build_module "kube-${KUBE_VERSION}-apiserver" "${KUBE_TOOLS_MODULE}" "${d}/kube-apiserver" \
      build_kube kube-apiserver
  else
    build_module "kube-${KUBE_VERSION}" "${KUBE_TOOLS_MODULE}" \
      "${d}/kube-apiserver ${d}/kube-controller-manager ${d}/kube-scheduler" \
      build_kube kube-apiserver kube-controller-manager kube-scheduler
  fi
fi
build_module etcd "${TOOLS}/etcd" "etcd" build_etcd
build_module kwok "${TOOLS}/kwok" "kwok kwokctl" build_kwok
build_module certmanager "${TOOLS}/certmanager" \
  "cert-manager-runner cert-manager-crds.yaml" build_certmanager
build_module realpods "${TOOLS}/realpods" "realpods-agent" build_realpods
if [[ "${OPENSHIFT:-false}" == "true" ]]; then
  # shellcheck source=hack/lib/sources.sh
  source "${ROOT}/hack/lib/sources.sh"
  sources_log() { log "$*"; }
  sources::load "${ROOT}/hack/openshift/sources.tsv" || exit 1
  build_module openshift "${TOOLS}/openshift" "openshift-admission openshift-crds.yaml" \
    build_openshift "$(sources::commit apiserver-library-go)"
  # The service CA's controllers (upstream's program, cached with the operands' builds).
  # shellcheck source=hack/openshift/serviceca.sh
  source "${ROOT}/hack/openshift/serviceca.sh"
  OUTPUT_DIR="${OUTPUT_DIR:-${ROOT}/_output}" serviceca::build || exit 1
fi
log "all binaries in ${BIN} ($((SECONDS - total_start))s)"
