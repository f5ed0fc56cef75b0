#!/usr/bin/env bash
# make test-e2e-local: the local cluster without cert-manager (so the suite sees it missing and
# starts it itself), deploy/ installed, the operator running as a local process with its
# ServiceAccount's permissions, then the e2e suite (test/e2e), then teardown. Exits with the
# suite's status. On failure the logs are kept (copied aside) and their place is printed.
#
# Environment: those of hack/local-cluster.sh and hack/lib/operator.sh, and
#   E2E_TIMEOUT [45m]     go test -timeout
#   E2E_ARGS []           extra go test arguments, e.g. -ginkgo.focus=Drift
#   KEEP_CLUSTER [false]  leave the cluster and the operator running afterwards
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=hack/lib/operator.sh
source "${ROOT}/hack/lib/operator.sh"

CLUSTER="${ROOT}/hack/local-cluster.sh"
E2E_TIMEOUT="${E2E_TIMEOUT:-45m}"
KEEP_CLUSTER="${KEEP_CLUSTER:-false}"
START=${SECONDS}
SUITE_RC=""

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  [[ -n "${SUITE_RC}" ]] && rc="${SUITE_RC}"
  if [[ "${rc}" -ne 0 && -d "${OP_STATE}/logs" ]]; then
    local keep="${OP_OUTPUT_DIR}/e2e-logs/$(date -u +%Y%m%dT%H%M%SZ)"
    mkdir -p "${keep}"
    cp -r "${OP_STATE}/logs/." "${keep}/" 2>/dev/null || true
    op::log "FAILED (exit ${rc}): logs kept in ${keep} (operator.log, cluster components, audit.log)"
  fi
  if [[ "${KEEP_CLUSTER}" == "true" ]]; then
    op::log "KEEP_CLUSTER=true: operator and cluster left running (hack/lib/operator.sh stop; ${CLUSTER} down)"
  else
    op::stop || true
    "${CLUSTER}" down || true
  fi
  op::log "total $((SECONDS - START))s"
  exit "${rc}"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# A cluster left over from an earlier run may hold cert-manager's CRDs: start from scratch.
if "${CLUSTER}" status >/dev/null 2>&1; then
  op::stop
  "${CLUSTER}" down
fi
WITH_CERT_MANAGER=false "${CLUSTER}" up
op::install
op::start
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
