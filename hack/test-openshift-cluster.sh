#!/usr/bin/env bash
# make test-openshift-cluster: hack/tools/openshift's unit tests, then its live test (live/:
# namespace annotations, a Deployment's pod admitted with restricted-v2 and a UID of the
# namespace's range, pods asking for runAsUser 65532 or hostNetwork rejected with the SCC
# plugin's message) against a local cluster started with OPENSHIFT=true, which is brought down
# afterwards (KEEP_CLUSTER=true leaves it up).
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
MODULE="${ROOT}/hack/tools/openshift"
log() { echo "[test-openshift-cluster] $*"; }

start=${SECONDS}
# Builds openshift-admission, and puts the pinned apiserver-library-go where the module's
# replace points, which the tests below need too.
"${ROOT}/hack/build-cluster-binaries.sh"
export GOFLAGS="-mod=mod" GOWORK=off GOTOOLCHAIN=local
log "unit tests"
(cd "${MODULE}" && go test -count=1 ./...)

cleanup() {
  if [[ "${KEEP_CLUSTER}" == "true" ]]; then
    log "cluster left up: LOCAL_CLUSTER_DIR=${LOCAL_CLUSTER_DIR} LOCAL_CLUSTER_PORT_OFFSET=${LOCAL_CLUSTER_PORT_OFFSET:-0} ${CLUSTER} down"
  else
    "${CLUSTER}" down || true
  fi
}
proc::on_exit cleanup

WITH_CERT_MANAGER=false SKIP_BUILD=true "${CLUSTER}" up
log "live test"
t0=${SECONDS}
(cd "${MODULE}" && OPENSHIFT_LIVE_KUBECONFIG="${LOCAL_CLUSTER_DIR}/kubeconfig" go test -count=1 -v -timeout 5m ./live/)
log "live test in $((SECONDS - t0))s; all in $((SECONDS - start))s"
