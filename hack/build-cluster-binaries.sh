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
#   olm catalog opm + olm-crds.yaml (OLM=true only: make test-olm)   (hack/tools/olm)
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
#   OLM=true     also build OLM's programs (hack/tools/olm)
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

# The parts, by responsibility: the stamps and the cache, then what each module builds.
# shellcheck source=hack/lib/cluster-binaries-cache.sh
source "${ROOT}/hack/lib/cluster-binaries-cache.sh"
# shellcheck source=hack/lib/cluster-binaries-modules.sh
source "${ROOT}/hack/lib/cluster-binaries-modules.sh"

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
if [[ "${OLM:-false}" == "true" ]]; then
  build_module olm "${TOOLS}/olm" "olm catalog opm olm-crds.yaml" build_olm
fi
log "all binaries in ${BIN} ($((SECONDS - total_start))s)"
