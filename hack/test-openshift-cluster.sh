#!/usr/bin/env bash
# make test-openshift-cluster: the tests of OPENSHIFT=true's parts (hack/openshift/live-tests.sh:
# SCC admission and namespace annotations, the service CA; unit and live) against a local cluster
# started with OPENSHIFT=true, which is brought down afterwards (KEEP_CLUSTER=true leaves it up).
#
# The cluster is the `local` instance's ports (hack/lib/instance.sh) in a state directory of its
# own (_output/openshift-cluster): beside a `make cluster-up` of the same checkout, set
# LOCAL_CLUSTER_PORT_OFFSET.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=hack/lib/proc.sh
source "${ROOT}/hack/lib/proc.sh"
# shellcheck source=hack/lib/instance.sh
source "${ROOT}/hack/lib/instance.sh"
export LOCAL_CLUSTER_DIR="${LOCAL_CLUSTER_DIR:-${OUTPUT_DIR:-${ROOT}/_output}/openshift-cluster}"
instance::use local
export OPENSHIFT=true
KEEP_CLUSTER="${KEEP_CLUSTER:-false}"
CLUSTER="${ROOT}/hack/local-cluster.sh"
log() { echo "[test-openshift-cluster] $*"; }

start=${SECONDS}
# Builds openshift-admission and the service CA, and puts the pinned apiserver-library-go where
# hack/tools/openshift's replace points, which its tests need too.
"${ROOT}/hack/build-cluster-binaries.sh"
cleanup() {
  if [[ "${KEEP_CLUSTER}" == "true" ]]; then
    log "cluster left up: LOCAL_CLUSTER_DIR=${LOCAL_CLUSTER_DIR} LOCAL_CLUSTER_PORT_OFFSET=${LOCAL_CLUSTER_PORT_OFFSET:-0} ${CLUSTER} down"
  else
    "${CLUSTER}" down || true
  fi
}
proc::on_exit cleanup

WITH_CERT_MANAGER=false SKIP_BUILD=true "${CLUSTER}" up
"${ROOT}/hack/openshift/live-tests.sh" "${LOCAL_CLUSTER_DIR}/kubeconfig"
log "all in $((SECONDS - start))s"
