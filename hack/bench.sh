#!/usr/bin/env bash
# make bench: measure the operator against a live cluster (test/bench/cmd/bench):
#   1. convergence (CR created -> operand applied -> Available) and the writes it took,
#   2. writes on forced syncs with nothing changed, requests per minute at idle,
#   3. drift repair time per managed kind,
#   4. the operator process's memory and CPU, before and after 5,000 unrelated ConfigMaps and
#      5,000 unrelated Secrets,
#   5. start-up time and the writes a restart makes.
# Prints a table and writes _output/bench/bench-<commit>-<time>.json (and .txt), to compare
# with `make bench-compare OLD=... NEW=...`.
#
# By default it brings up its own local cluster (hack/local-cluster.sh) in _output/bench-cluster
# on ports that do not collide with the default local cluster's (e2e may run there meanwhile),
# and takes it down on exit. The operator runs as a local process started by the bench, as its
# ServiceAccount, listening on BENCH_OPERATOR_LISTEN.
#
# Environment (defaults in brackets):
#   BENCH_USE_KUBECONFIG [0]   1: use the cluster of $KUBECONFIG (admin) instead of a local one;
#                              counts need its audit log: BENCH_AUDIT_LOG=<path> (JSON format)
#   BENCH_RUNS [3]             repetitions of scenarios 1, 2, 3 and 5
#   BENCH_TOUCHES [20]         forced syncs per run of scenario 2
#   BENCH_QUIET_SECONDS [60]   length of each quiet window (idle requests, footprint)
#   BENCH_LOAD_NAMESPACES [10] BENCH_LOAD_OBJECTS [5000] (ConfigMaps and as many Secrets)
#   BENCH_LOAD_CONCURRENCY [8]
#   BENCH_SCENARIOS [1,2,3,4,5]   a subset, e.g. 1,3
#   BENCH_OPERATOR_LISTEN [127.0.0.1:28443]
#   KEEP_CLUSTER [false]       leave the local cluster up afterwards (hack/local-cluster.sh down
#                              with the same LOCAL_CLUSTER_DIR and ports stops it)
#   LOCAL_CLUSTER_DIR [_output/bench-cluster] ETCD_PORT [22379] ETCD_PEER_PORT [22380]
#   APISERVER_PORT [26443] KCM_PORT [27257] SCHEDULER_PORT [27259]   (passed to local-cluster.sh;
#   kwok and the cert-manager runner listen on no port)
#   SKIP_BUILD, WITH_CERT_MANAGER: as hack/local-cluster.sh (cert-manager must run)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"
export GOFLAGS=-mod=vendor

OUT="${ROOT}/_output/bench"
export LOCAL_CLUSTER_DIR="${LOCAL_CLUSTER_DIR:-${ROOT}/_output/bench-cluster}"
export ETCD_PORT="${ETCD_PORT:-22379}"
export ETCD_PEER_PORT="${ETCD_PEER_PORT:-22380}"
export APISERVER_PORT="${APISERVER_PORT:-26443}"
export KCM_PORT="${KCM_PORT:-27257}"
export SCHEDULER_PORT="${SCHEDULER_PORT:-27259}"
export BENCH_OPERATOR_LISTEN="${BENCH_OPERATOR_LISTEN:-127.0.0.1:28443}"
BENCH_USE_KUBECONFIG="${BENCH_USE_KUBECONFIG:-0}"
KEEP_CLUSTER="${KEEP_CLUSTER:-false}"
CLUSTER="${ROOT}/hack/local-cluster.sh"

log() { echo "[bench] $*"; }
die() { echo "[bench] ERROR: $*" >&2; exit 1; }

STARTED_CLUSTER=false
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  if [[ "${STARTED_CLUSTER}" == "true" ]]; then
    if [[ "${KEEP_CLUSTER}" == "true" ]]; then
      log "KEEP_CLUSTER=true: cluster left up (KUBECONFIG=${LOCAL_CLUSTER_DIR}/kubeconfig)"
    else
      "${CLUSTER}" down || true
    fi
  fi
  if [[ "${rc}" -ne 0 ]]; then
    log "FAILED (exit ${rc}); operator log: ${BENCH_WORK_DIR:-?}/operator.log"
  fi
  exit "${rc}"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The operator goes to its own path, not _output/bin, which hack/lib/operator.sh rebuilds and
# runs for e2e: a build here must not replace a binary another session is running.
mkdir -p "${OUT}/bin"
log "building the operator and the bench"
go build -o "${OUT}/bin/llm-infra-operator" ./cmd/llm-infra-operator
go build -o "${OUT}/bin/bench" ./test/bench/cmd/bench
export BENCH_OPERATOR_BINARY="${OUT}/bin/llm-infra-operator"

if [[ "${BENCH_USE_KUBECONFIG}" == "1" ]]; then
  [[ -n "${KUBECONFIG:-}" ]] || die "BENCH_USE_KUBECONFIG=1 needs KUBECONFIG (a cluster admin)"
  export BENCH_WORK_DIR="${BENCH_WORK_DIR:-${OUT}/work}"
  export BENCH_CLUSTER="${BENCH_CLUSTER:-\$KUBECONFIG}"
  # Leave the cluster as found: the CR is deleted (and the operand with it) at the end.
  export BENCH_CLEANUP_CR=1
  [[ -n "${BENCH_AUDIT_LOG:-}" ]] || log "BENCH_AUDIT_LOG unset: write and request counts will be skipped"
else
  # Start from a fresh cluster every time: the counts must not depend on leftovers.
  if "${CLUSTER}" status >/dev/null 2>&1; then
    log "a bench cluster is up in ${LOCAL_CLUSTER_DIR}: taking it down first"
    "${CLUSTER}" down
  fi
  STARTED_CLUSTER=true
  "${CLUSTER}" up
  export KUBECONFIG="${LOCAL_CLUSTER_DIR}/kubeconfig"
  export BENCH_AUDIT_LOG="${LOCAL_CLUSTER_DIR}/logs/audit.log"
  export BENCH_WORK_DIR="${LOCAL_CLUSTER_DIR}/logs"
  export BENCH_CLUSTER="local (hack/local-cluster.sh, apiserver :${APISERVER_PORT})"
fi

"${OUT}/bin/bench"
log "logs: ${BENCH_WORK_DIR} (operator.log$([[ "${BENCH_USE_KUBECONFIG}" == "1" ]] || echo ', audit.log, cluster components'))"
