#!/usr/bin/env bash
# Helpers shared by hack/run-local.sh and hack/test-e2e-local.sh: install deploy/ into the
# local cluster (hack/local-cluster.sh) and run the operator there as a local process that
# authenticates as its own ServiceAccount, so the RBAC in deploy/ is what it really gets.
#
# Source it (functions op::*), or run it:
#   hack/lib/operator.sh install     apply deploy/ (CRDs first, wait Established; all but 10_*)
#   hack/lib/operator.sh build       go build the operator into _output/bin
#   hack/lib/operator.sh start       start the operator (fresh SA token), wait for /healthz
#   hack/lib/operator.sh stop        stop it (TERM, then KILL after OPERATOR_STOP_TIMEOUT)
#   hack/lib/operator.sh restart     stop + start (the e2e suite's E2E_RESTART_OPERATOR hook)
#   hack/lib/operator.sh pid         print the running operator's pid, fail if none
#   hack/lib/operator.sh wait-available [TIMEOUT]
#                                    poll the CR `cluster` until Available=True
#
# Environment (defaults in brackets):
#   OUTPUT_DIR [<repo>/_output]  LOCAL_CLUSTER_DIR [$OUTPUT_DIR/local-cluster]  (as local-cluster.sh)
#   OPERATOR_NAMESPACE [openshift-llm-infra-operator]
#   OPERATOR_LISTEN [127.0.0.1:18443]   controllercmd's secure server (/healthz, /metrics)
#   OPERAND_IMAGE [registry.k8s.io/lws/lws:<operand-git-ref>]
#   OPERATOR_ARGS []                    extra arguments for `llm-infra-operator operator`
#   OPERATOR_START_TIMEOUT [60]  OPERATOR_STOP_TIMEOUT [30]   seconds
#   OPERATOR_SKIP_BUILD [false]         do not rebuild the operator binary on start

OP_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OP_OUTPUT_DIR="${OUTPUT_DIR:-${OP_ROOT}/_output}"
OP_STATE="${LOCAL_CLUSTER_DIR:-${OP_OUTPUT_DIR}/local-cluster}"
OP_BIN="${OP_OUTPUT_DIR}/bin"
OP_KUBECTL="${OP_BIN}/kubectl"
OP_ADMIN_KUBECONFIG="${OP_STATE}/kubeconfig"
OP_BINARY="${OP_BIN}/llm-infra-operator"
OP_NAMESPACE="${OPERATOR_NAMESPACE:-openshift-llm-infra-operator}"
OP_SERVICEACCOUNT="llm-infra-operator"
OP_LISTEN="${OPERATOR_LISTEN:-127.0.0.1:18443}"
OP_OPERAND_IMAGE="${OPERAND_IMAGE:-registry.k8s.io/lws/lws:$(cat "${OP_ROOT}/operand-git-ref")}"
OP_START_TIMEOUT="${OPERATOR_START_TIMEOUT:-60}"
OP_STOP_TIMEOUT="${OPERATOR_STOP_TIMEOUT:-30}"
# local-cluster.sh moves logs/ aside on every `up`: the operator's files are resolved after it.
OP_LOG="${OP_STATE}/logs/operator.log"
OP_PIDFILE="${OP_STATE}/pids/llm-infra-operator.pid"
OP_SA_KUBECONFIG="${OP_STATE}/operator-sa.kubeconfig"

op::log() { echo "[operator] $*"; }
op::die() { echo "[operator] ERROR: $*" >&2; exit 1; }

# op::kubectl: kubectl as the local cluster's admin.
op::kubectl() { "${OP_KUBECTL}" --kubeconfig="${OP_ADMIN_KUBECONFIG}" "$@"; }

# op::poll TIMEOUT INTERVAL CMD...: run CMD until it succeeds, at most TIMEOUT seconds.
op::poll() {
  local timeout="$1" interval="$2"; shift 2
  local deadline=$((SECONDS + timeout))
  until "$@" >/dev/null 2>&1; do
    ((SECONDS >= deadline)) && return 1
    sleep "${interval}"
  done
}

# op::install: the CRDs (deploy/00_*) first, and wait until each is served, then every other
# deploy/ manifest except 10_* (the operator's own Deployment: here the operator runs as a local
# process).
op::install() {
  [[ -x "${OP_KUBECTL}" ]] || op::die "${OP_KUBECTL} is missing: run hack/local-cluster.sh up"
  local crds=() crd
  for crd in "${OP_ROOT}"/deploy/00_*.yaml; do
    op::log "installing ${crd#"${OP_ROOT}/"}"
    crds+=(-f "${crd}")
  done
  op::kubectl apply --server-side --force-conflicts "${crds[@]}" >/dev/null
  op::kubectl wait --for=condition=Established --timeout=60s "${crds[@]}" >/dev/null
  local f
  for f in "${OP_ROOT}"/deploy/*.yaml; do
    case "$(basename "${f}")" in
      00_*|10_*) continue ;;
    esac
    op::log "applying ${f#"${OP_ROOT}/"}"
    op::kubectl apply -f "${f}" >/dev/null
  done
  # The ServiceAccount's token comes from the TokenRequest API, which needs the SA to exist.
  op::poll 30 0.2 op::kubectl get serviceaccount "${OP_SERVICEACCOUNT}" -n "${OP_NAMESPACE}" ||
    op::die "ServiceAccount ${OP_NAMESPACE}/${OP_SERVICEACCOUNT} did not appear"
}

op::build() {
  op::log "building ${OP_BINARY#"${OP_ROOT}/"}"
  (cd "${OP_ROOT}" && GOFLAGS=-mod=vendor go build -o "${OP_BINARY}" ./cmd/llm-infra-operator)
}

# op::pid: the live pid of the operator we started, or fail. Like local-cluster.sh, a pid only
# counts if /proc/<pid>/cmdline still starts with our binary, so a recycled pid is never signalled.
op::pid() {
  local pid exe
  [[ -f "${OP_PIDFILE}" ]] || return 1
  pid="$(cat "${OP_PIDFILE}")"
  [[ "${pid}" =~ ^[0-9]+$ ]] || return 1
  exe="$(tr '\0' '\n' <"/proc/${pid}/cmdline" 2>/dev/null | head -n1)" || return 1
  [[ "${exe}" == "${OP_BINARY}" ]] || return 1
  [[ "$(awk '{print $3}' "/proc/${pid}/stat" 2>/dev/null)" != "Z" ]] || return 1
  echo "${pid}"
}

op::is_running() { op::pid >/dev/null; }

op::healthy() { curl -skf --max-time 2 "https://${OP_LISTEN}/healthz" | grep -q '^ok$'; }

# op::wait_healthy: /healthz answers ok; fails at once if the process exits meanwhile.
op::wait_healthy() {
  local deadline=$((SECONDS + OP_START_TIMEOUT))
  until op::healthy; do
    op::is_running || return 1
    ((SECONDS >= deadline)) && return 1
    sleep 0.25
  done
}

# op::start: a fresh ServiceAccount token (tokens are bound to the SA's UID, which changes
# whenever the cluster is recreated), then the operator in its own session (setsid) so that a
# Ctrl-C aimed at the calling script does not kill it behind the script's back; only op::stop
# does, through the recorded pid.
op::start() {
  if op::is_running; then
    op::log "already running (pid $(op::pid))"
    return 0
  fi
  if [[ "${OPERATOR_SKIP_BUILD:-false}" != "true" || ! -x "${OP_BINARY}" ]]; then
    op::build
  fi
  "${OP_ROOT}/hack/local-cluster.sh" sa-kubeconfig "${OP_NAMESPACE}" "${OP_SERVICEACCOUNT}" "${OP_SA_KUBECONFIG}" >/dev/null
  mkdir -p "$(dirname "${OP_LOG}")" "$(dirname "${OP_PIDFILE}")"
  op::log "starting the operator as ${OP_NAMESPACE}/${OP_SERVICEACCOUNT} (log: ${OP_LOG})"
  echo "===== $(date -u +%FT%TZ) start" >>"${OP_LOG}"
  # shellcheck disable=SC2086 # OPERATOR_ARGS is a word list on purpose
  RELATED_IMAGE_OPERAND_IMAGE="${OP_OPERAND_IMAGE}" setsid "${OP_BINARY}" operator \
    --kubeconfig "${OP_SA_KUBECONFIG}" \
    --namespace "${OP_NAMESPACE}" \
    --listen "${OP_LISTEN}" \
    ${OPERATOR_ARGS:-} >>"${OP_LOG}" 2>&1 </dev/null &
  echo "$!" >"${OP_PIDFILE}"
  if ! op::wait_healthy; then
    tail -n 30 "${OP_LOG}" >&2 || true
    op::die "the operator did not become healthy within ${OP_START_TIMEOUT}s; see ${OP_LOG}"
  fi
  op::log "operator running (pid $(op::pid)), /healthz ok on ${OP_LISTEN}"
}

op::stop() {
  local pid
  if ! pid="$(op::pid)"; then
    rm -f "${OP_PIDFILE}"
    return 0
  fi
  op::log "stopping the operator (pid ${pid})"
  kill -TERM "${pid}" 2>/dev/null || true
  if ! op::poll "${OP_STOP_TIMEOUT}" 0.2 op::not_pid "${pid}"; then
    op::log "the operator did not stop within ${OP_STOP_TIMEOUT}s: sending KILL"
    kill -KILL "${pid}" 2>/dev/null || true
    op::poll 10 0.1 op::not_pid "${pid}" || op::die "the operator (pid ${pid}) survived KILL"
  fi
  echo "===== $(date -u +%FT%TZ) stopped (pid ${pid})" >>"${OP_LOG}" 2>/dev/null || true
  rm -f "${OP_PIDFILE}"
}

# op::not_pid PID: the operator is no longer running as PID.
op::not_pid() {
  local got
  ! got="$(op::pid)" || [[ "${got}" != "$1" ]]
}

# op::cluster_processes: succeeds when a process recorded in the cluster's pid directory (a
# cluster component or the operator) is still alive: someone's cluster runs in OP_STATE.
op::cluster_processes() {
  local f pid exe
  for f in "${OP_STATE}"/pids/*.pid; do
    [[ -f "${f}" ]] || continue
    pid="$(cat "${f}")"
    [[ "${pid}" =~ ^[0-9]+$ ]] || continue
    exe="$(tr '\0' '\n' <"/proc/${pid}/cmdline" 2>/dev/null | head -n1)" || continue
    [[ "${exe}" == "${OP_BIN}/"* ]] && return 0
  done
  return 1
}

op::restart() {
  OPERATOR_SKIP_BUILD=true op::stop
  OPERATOR_SKIP_BUILD=true op::start
}

# op::condition TYPE: the status of a condition of the CR `cluster` (empty when unset).
op::condition() {
  op::kubectl get leaderworkersetoperators.operator.openshift.io cluster \
    -o "jsonpath={.status.conditions[?(@.type==\"$1\")].status}" 2>/dev/null
}

op::available() { [[ "$(op::condition Available)" == "True" ]]; }

# op::wait_available [TIMEOUT]: poll until the CR reports Available=True.
op::wait_available() {
  local timeout="${1:-180}"
  op::log "waiting up to ${timeout}s for LeaderWorkerSetOperator/cluster Available=True"
  if ! op::poll "${timeout}" 1 op::available; then
    op::kubectl get leaderworkersetoperators.operator.openshift.io cluster -o yaml >&2 || true
    op::die "LeaderWorkerSetOperator/cluster is not Available after ${timeout}s; operator log: ${OP_LOG}"
  fi
}

op::main() {
  set -euo pipefail
  local cmd="${1:-}"
  [[ $# -gt 0 ]] && shift
  case "${cmd}" in
    install) op::install ;;
    build) op::build ;;
    start) op::start ;;
    stop) op::stop ;;
    restart) op::restart ;;
    pid) op::pid ;;
    wait-available) op::wait_available "$@" ;;
    *)
      sed -n '2,/^$/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
      [[ -z "${cmd}" || "${cmd}" == "help" || "${cmd}" == "-h" || "${cmd}" == "--help" ]] || exit 2
      ;;
  esac
}

if [[ "${BASH_SOURCE[0]}" == "${0}" ]]; then
  op::main "$@"
fi
