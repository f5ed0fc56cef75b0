#!/usr/bin/env bash
# make test-e2e-local: a local cluster without cert-manager (so the suite sees it missing and
# starts it itself), deploy/ installed, the operator running as a local process with its
# ServiceAccount's permissions, then the e2e suite (test/e2e), then teardown. Exits with the
# suite's status. On failure the logs are kept (copied aside) and their place is printed.
#
# The cluster is its own instance (state in _output/e2e-cluster, ports 3xxxx), so the suite
# runs beside `make run-local` (_output/local-cluster, ports 1xxxx) and `make bench`
# (_output/bench-cluster, ports 2xxxx) on the same machine. It refuses to start when a cluster
# already runs in its directory, and stops only what it started.
#
# Environment (defaults in brackets): those of hack/local-cluster.sh and hack/lib/operator.sh,
# with these defaults of its own:
#   LOCAL_CLUSTER_DIR [_output/e2e-cluster] ETCD_PORT [32379] ETCD_PEER_PORT [32380]
#   APISERVER_PORT [36443] KCM_PORT [37257] SCHEDULER_PORT [37259] OPERATOR_LISTEN [127.0.0.1:38443]
# and
#   E2E_TIMEOUT [45m]     go test -timeout
#   E2E_ARGS []           extra go test arguments, e.g. -ginkgo.focus=drift
#   KEEP_CLUSTER [false]  leave the cluster and the operator running afterwards
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export LOCAL_CLUSTER_DIR="${LOCAL_CLUSTER_DIR:-${ROOT}/_output/e2e-cluster}"
export ETCD_PORT="${ETCD_PORT:-32379}"
export ETCD_PEER_PORT="${ETCD_PEER_PORT:-32380}"
export APISERVER_PORT="${APISERVER_PORT:-36443}"
export KCM_PORT="${KCM_PORT:-37257}"
export SCHEDULER_PORT="${SCHEDULER_PORT:-37259}"
export OPERATOR_LISTEN="${OPERATOR_LISTEN:-127.0.0.1:38443}"
# shellcheck source=hack/lib/operator.sh
source "${ROOT}/hack/lib/operator.sh"

CLUSTER="${ROOT}/hack/local-cluster.sh"
E2E_TIMEOUT="${E2E_TIMEOUT:-45m}"
KEEP_CLUSTER="${KEEP_CLUSTER:-false}"
START=${SECONDS}
SUITE_RC=""
STARTED_CLUSTER=false
STARTED_OPERATOR=false

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  [[ -n "${SUITE_RC}" ]] && rc="${SUITE_RC}"
  if [[ "${rc}" -ne 0 && "${STARTED_CLUSTER}" == "true" && -d "${OP_STATE}/logs" ]]; then
    local keep="${OP_OUTPUT_DIR}/e2e-logs/$(date -u +%Y%m%dT%H%M%SZ)"
    mkdir -p "${keep}"
    cp -r "${OP_STATE}/logs/." "${keep}/" 2>/dev/null || true
    op::log "FAILED (exit ${rc}): logs kept in ${keep} (operator.log, cluster components, audit.log)"
  fi
  if [[ "${KEEP_CLUSTER}" == "true" ]]; then
    op::log "KEEP_CLUSTER=true: operator and cluster left running; stop them with:"
    op::log "  LOCAL_CLUSTER_DIR=${LOCAL_CLUSTER_DIR} OPERATOR_LISTEN=${OPERATOR_LISTEN} hack/lib/operator.sh stop"
    op::log "  $(cluster_env) ${CLUSTER} down"
  else
    [[ "${STARTED_OPERATOR}" == "true" ]] && { op::stop || true; }
    if [[ "${STARTED_CLUSTER}" == "true" ]]; then
      "${CLUSTER}" down || true
    fi
  fi
  op::log "total $((SECONDS - START))s"
  exit "${rc}"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

cluster_env() {
  echo "LOCAL_CLUSTER_DIR=${LOCAL_CLUSTER_DIR} ETCD_PORT=${ETCD_PORT} ETCD_PEER_PORT=${ETCD_PEER_PORT} APISERVER_PORT=${APISERVER_PORT} KCM_PORT=${KCM_PORT} SCHEDULER_PORT=${SCHEDULER_PORT}"
}

# The suite needs a fresh cluster (no cert-manager CRDs). One left running in this directory
# (KEEP_CLUSTER, an interrupted run) is not ours to take down silently.
if "${CLUSTER}" status >/dev/null 2>&1 || op::cluster_processes; then
  op::die "a local cluster is (partly) running in ${LOCAL_CLUSTER_DIR}; stop it first: $(cluster_env) ${CLUSTER} down"
fi
# Built before the cluster starts: the build competes for the CPU with the control plane.
op::build
STARTED_CLUSTER=true
WITH_CERT_MANAGER=false "${CLUSTER}" up
op::install
STARTED_OPERATOR=true
OPERATOR_SKIP_BUILD=true op::start
op::log "set up in $((SECONDS - START))s; running the e2e suite"

export KUBECONFIG="${OP_ADMIN_KUBECONFIG}"
export E2E_OPERATOR_NAMESPACE="${OP_NAMESPACE}"
export E2E_START_CERT_MANAGER="${CLUSTER} start-cert-manager"
export E2E_RESTART_OPERATOR="${ROOT}/hack/lib/operator.sh restart"
export E2E_OPERATOR_PID_CMD="${ROOT}/hack/lib/operator.sh pid"
export E2E_OPERATOR_LOG="${OP_LOG}"
cd "${ROOT}"
set +e
# shellcheck disable=SC2086 # E2E_ARGS is a word list on purpose
GOFLAGS=-mod=vendor go test ./test/e2e/... -count=1 -timeout "${E2E_TIMEOUT}" -v -ginkgo.v ${E2E_ARGS:-}
SUITE_RC=$?
set -e
op::log "e2e suite exited ${SUITE_RC} after $((SECONDS - START))s in total"
exit "${SUITE_RC}"
