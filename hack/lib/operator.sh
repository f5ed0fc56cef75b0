#!/usr/bin/env bash
# Helpers shared by hack/run-local.sh, hack/test-e2e-local.sh and hack/bench.sh (and, through
# this command line, the bench's Go program and the e2e suite's hooks): install deploy/ into the
# local cluster (hack/local-cluster.sh) and run the operator there as a local process that
# authenticates as its own ServiceAccount, so the RBAC in deploy/ is what it really gets; bring
# up the cluster and tear down on exit what the calling script started (op::cluster_up,
# op::teardown).
#
# Source it (functions op::*), or run it:
#   hack/lib/operator.sh install     apply deploy/ (CRDs first, wait Established; all but 10_*;
#                                    deploy/monitoring/ only while the Prometheus operator's CRDs exist)
#   hack/lib/operator.sh build       go build the operator into _output/bin
#   hack/lib/operator.sh start       start the operator (fresh SA token), wait for /healthz
#   hack/lib/operator.sh stop        stop it (TERM, then KILL after OPERATOR_STOP_TIMEOUT)
#   hack/lib/operator.sh restart     stop + start (the e2e suite's E2E_RESTART_OPERATOR hook)
#   hack/lib/operator.sh pid         print the running operator's pid, fail if none
#   hack/lib/operator.sh wait-available [TIMEOUT]
#                                    poll the CR `cluster` until Available=True
#
# Environment (defaults in brackets):
#   OUTPUT_DIR [<repo>/_output]  LOCAL_CLUSTER_INSTANCE [local]  LOCAL_CLUSTER_DIR and ports
#                                       as hack/local-cluster.sh (hack/lib/instance.sh)
#   OPERATOR_NAMESPACE [openshift-llm-infra-operator]
#   OPERATOR_LISTEN [127.0.0.1:18443]   controllercmd's secure server (/healthz, /metrics); the
#                                       instance's port (bench 28443, e2e 32543, ...)
#   OPERAND_IMAGE [registry.k8s.io/lws/lws:<operand-git-ref>]
#   OPERATOR_ARGS []                    extra arguments for `llm-infra-operator operator`
#   OPERATOR_START_TIMEOUT [60]  OPERATOR_STOP_TIMEOUT [30]   seconds
#   OPERATOR_SKIP_BUILD [false]         do not rebuild the operator binary on start
#   OPERATOR_BINARY [$OUTPUT_DIR/bin/llm-infra-operator]   the binary built and run
#   OPERATOR_LOG [$LOCAL_CLUSTER_DIR/logs/operator.log]  OPERATOR_PIDFILE [$LOCAL_CLUSTER_DIR/pids/llm-infra-operator.pid]
#   OPERATOR_KUBECONFIG []              run the operator with this kubeconfig as it is, instead of
#                                       a fresh ServiceAccount token from the local cluster
#   OPERATOR_WAIT_HEALTHY [true]        false: `start` returns once the process runs (exec'd),
#                                       without waiting for /healthz (the bench times that itself)
# The operator runs without KUBECONFIG in its environment: only --kubeconfig authenticates it.

OP_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=hack/lib/proc.sh
source "${OP_ROOT}/hack/lib/proc.sh"
# shellcheck source=hack/lib/instance.sh
source "${OP_ROOT}/hack/lib/instance.sh"
instance::use "${LOCAL_CLUSTER_INSTANCE:-local}"
OP_OUTPUT_DIR="${OUTPUT_DIR}"
OP_STATE="${LOCAL_CLUSTER_DIR}"
OP_BIN="${OP_OUTPUT_DIR}/bin"
OP_KUBECTL="${OP_BIN}/kubectl"
OP_ADMIN_KUBECONFIG="${OP_STATE}/kubeconfig"
OP_BINARY="${OPERATOR_BINARY:-${OP_BIN}/llm-infra-operator}"
OP_NAMESPACE="${OPERATOR_NAMESPACE:-openshift-llm-infra-operator}"
OP_SERVICEACCOUNT="llm-infra-operator"
OP_LISTEN="${OPERATOR_LISTEN}"
OP_OPERAND_IMAGE="${OPERAND_IMAGE:-registry.k8s.io/lws/lws:$(cat "${OP_ROOT}/operand-git-ref")}"
OP_START_TIMEOUT="${OPERATOR_START_TIMEOUT:-60}"
OP_STOP_TIMEOUT="${OPERATOR_STOP_TIMEOUT:-30}"
# local-cluster.sh moves logs/ aside on every `up`: the operator's files are resolved after it.
OP_LOG="${OPERATOR_LOG:-${OP_STATE}/logs/operator.log}"
OP_PIDFILE="${OPERATOR_PIDFILE:-${OP_STATE}/pids/llm-infra-operator.pid}"
OP_SA_KUBECONFIG="${OP_STATE}/operator-sa.kubeconfig"
OP_CLUSTER="${OP_ROOT}/hack/local-cluster.sh"
# What the calling script started, so that op::teardown stops that and nothing else.
OP_STARTED_CLUSTER=false
OP_STARTED_OPERATOR=false

op::log() { echo "[operator] $*"; }
# op::die MESSAGE [LOG]: on the caller's stderr, with the tail of LOG when given; exit 1.
op::die() { proc::die "[operator]" "$@"; }

# op::kubectl: kubectl as the local cluster's admin.
op::kubectl() { "${OP_KUBECTL}" --kubeconfig="${OP_ADMIN_KUBECONFIG}" "$@"; }

op::poll() { proc::poll "$@"; }

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
  # The ServiceMonitor and PrometheusRule need the Prometheus operator's CRDs, which the local
  # cluster has only after `hack/optional-crds.sh install monitoring-core` (or `monitoring`).
  if op::kubectl get crd servicemonitors.monitoring.coreos.com prometheusrules.monitoring.coreos.com >/dev/null 2>&1; then
    op::log "applying deploy/monitoring/"
    op::kubectl apply -f "${OP_ROOT}/deploy/monitoring/" >/dev/null
  else
    op::log "skipping deploy/monitoring/: the Prometheus operator's CRDs are not installed"
  fi
  # The ServiceAccount's token comes from the TokenRequest API, which needs the SA to exist.
  op::poll 30 0.2 op::kubectl get serviceaccount "${OP_SERVICEACCOUNT}" -n "${OP_NAMESPACE}" ||
    op::die "ServiceAccount ${OP_NAMESPACE}/${OP_SERVICEACCOUNT} did not appear"
}

op::build() {
  op::log "building ${OP_BINARY#"${OP_ROOT}/"}"
  mkdir -p "$(dirname "${OP_BINARY}")"
  (cd "${OP_ROOT}" && GOFLAGS="-mod=vendor -trimpath" go build -o "${OP_BINARY}" ./cmd/llm-infra-operator)
}

# op::pid: the pid of the operator we started, while it lives, or fail (hack/lib/proc.sh: a
# recycled pid is never taken for it).
op::pid() { proc::pid "${OP_PIDFILE}"; }

op::is_running() { proc::alive "${OP_PIDFILE}"; }

op::healthy() { curl -skf --max-time 2 "https://${OP_LISTEN}/healthz" | grep -q '^ok$'; }

# op::check_alive: fail with the log's tail when the operator has exited.
op::check_alive() {
  op::is_running && return 0
  proc::reap "${PROC_PID:-}"
  op::die "the operator exited${PROC_EXIT_NOTE}; see ${OP_LOG}" "${OP_LOG}"
}

# op::start: a fresh ServiceAccount token (tokens are bound to the SA's UID, which changes
# whenever the cluster is recreated) unless OPERATOR_KUBECONFIG is given, then the operator,
# detached (hack/lib/proc.sh) so that a Ctrl-C aimed at the calling script does not kill it
# behind the script's back; only op::stop does. Waits for /healthz (OPERATOR_WAIT_HEALTHY).
# op::deployment_env: NAME=VALUE of each RELATED_IMAGE_BATCH_GATEWAY_* variable and of GOGC, as
# the caller's OPERATOR_<NAME> (images: <NAME>) sets it, else as deploy/10_deployment.yaml does
# (one place for the defaults): the local operator runs as the deployed one does. kwok runs no
# container, so locally the images are only names.
op::deployment_env() {
  local name value override
  while read -r name value; do
    value="${value%\"}"
    value="${value#\"}"
    override="${name}"
    [[ "${name}" == GOGC ]] && override="OPERATOR_GOGC"
    printf '%s=%s\n' "${name}" "${!override:-${value}}"
  done < <(awk '/- name: (RELATED_IMAGE_BATCH_GATEWAY_|GOGC$)/ { name = $3; next }
               name != "" && /value:/ { print name, $2; name = "" }' "${OP_ROOT}/deploy/10_deployment.yaml")
}

op::start() {
  if op::is_running; then
    op::log "already running (pid $(op::pid))"
    return 0
  fi
  if [[ "${OPERATOR_SKIP_BUILD:-false}" != "true" || ! -x "${OP_BINARY}" ]]; then
    op::build
  fi
  local kubeconfig="${OPERATOR_KUBECONFIG:-}"
  if [[ -z "${kubeconfig}" ]]; then
    kubeconfig="${OP_SA_KUBECONFIG}"
    "${OP_CLUSTER}" sa-kubeconfig "${OP_NAMESPACE}" "${OP_SERVICEACCOUNT}" "${kubeconfig}" >/dev/null
  fi
  mkdir -p "$(dirname "${OP_LOG}")"
  OP_STARTED_OPERATOR=true
  op::log "starting the operator as ${OP_NAMESPACE}/${OP_SERVICEACCOUNT} (log: ${OP_LOG})"
  echo "===== $(date -u +%FT%TZ) start" >>"${OP_LOG}"
  local -a extra=() images=()
  read -r -a extra <<<"${OPERATOR_ARGS:-}"
  mapfile -t images < <(op::deployment_env)
  proc::start "${OP_PIDFILE}" "${OP_LOG}" "${OP_BINARY}" -- \
    env -u KUBECONFIG RELATED_IMAGE_OPERAND_IMAGE="${OP_OPERAND_IMAGE}" "${images[@]}" "${OP_BINARY}" operator \
    --kubeconfig "${kubeconfig}" \
    --namespace "${OP_NAMESPACE}" \
    --listen "${OP_LISTEN}" \
    "${extra[@]}" || op::die "the operator ${PROC_FAILURE}; see ${OP_LOG}" "${OP_LOG}"
  if [[ "${OPERATOR_WAIT_HEALTHY:-true}" != "true" ]]; then
    op::log "operator running (pid $(op::pid))"
    return 0
  fi
  if ! op::poll "${OP_START_TIMEOUT}" 0.25 op::ready; then
    op::die "the operator did not become healthy within ${OP_START_TIMEOUT}s; see ${OP_LOG}" "${OP_LOG}"
  fi
  op::log "operator running (pid $(op::pid)), /healthz ok on ${OP_LISTEN}"
}

# op::ready: alive (or fail at once with the log's tail) and /healthz answers ok.
op::ready() {
  op::check_alive
  op::healthy
}

op::stop() {
  if op::is_running; then
    local pid="${PROC_PID}"
    proc::stop "the operator" "${OP_PIDFILE}" "${OP_STOP_TIMEOUT}" "[operator]" ||
      op::die "the operator (pid ${pid}) could not be stopped"
    echo "===== $(date -u +%FT%TZ) stopped (pid ${pid})" >>"${OP_LOG}" 2>/dev/null || true
  fi
  rm -f "${OP_PIDFILE}"
}

# op::cluster_processes: succeeds when a process of the instance (a cluster component, kwokctl's
# or the script's, or the operator) is still alive: someone's cluster runs in OP_STATE.
op::cluster_processes() { [[ -n "$("${OP_CLUSTER}" pids)" ]]; }

# op::cluster_running: a cluster, whole or in part, runs in this instance's directory.
op::cluster_running() { "${OP_CLUSTER}" status >/dev/null 2>&1 || op::cluster_processes; }

# op::cluster_up: hack/local-cluster.sh up, remembered for op::teardown.
op::cluster_up() {
  OP_STARTED_CLUSTER=true
  "${OP_CLUSTER}" up
}

# op::teardown: stop the operator if this script started it, and bring the cluster down if this
# script started it, unless KEEP_CLUSTER=true. For the scripts' exit hooks (proc::on_exit).
op::teardown() {
  if [[ "${OP_STARTED_OPERATOR}" == "true" ]]; then
    op::stop || true
  fi
  [[ "${OP_STARTED_CLUSTER}" == "true" ]] || return 0
  if [[ "${KEEP_CLUSTER:-false}" == "true" ]]; then
    op::log "cluster left up (KEEP_CLUSTER=true); stop it with: $(instance::env) ${OP_CLUSTER} down"
  else
    "${OP_CLUSTER}" down || true
  fi
}

# op::finish_suite RC SUITE_RC LOGS_NAME: the exit hook of a suite script (test-e2e-local.sh,
# test-operands-local.sh): the suite's status wins over the script's; on failure the cluster's
# logs are copied to $OUTPUT_DIR/LOGS_NAME/<time>; then teardown, or with KEEP_CLUSTER=true how
# to stop what was left running. Reads START (the script's start, in SECONDS).
op::finish_suite() {
  local rc="$1" suite_rc="$2" logs_name="$3"
  if [[ -n "${suite_rc}" ]]; then
    rc="${suite_rc}"
    PROC_EXIT_RC="${suite_rc}"
  fi
  if [[ "${rc}" -ne 0 && "${OP_STARTED_CLUSTER}" == "true" && -d "${OP_STATE}/logs" ]]; then
    local keep
    keep="${OP_OUTPUT_DIR}/${logs_name}/$(date -u +%Y%m%dT%H%M%SZ)"
    mkdir -p "${keep}"
    cp -r "${OP_STATE}/logs/." "${keep}/" 2>/dev/null || true
    op::log "FAILED (exit ${rc}): logs kept in ${keep} (operator.log, cluster components, audit.log)"
  fi
  if [[ "${KEEP_CLUSTER:-false}" == "true" ]]; then
    op::log "KEEP_CLUSTER=true: operator and cluster left running; stop them with:"
    op::log "  $(instance::env) ${OP_ROOT}/hack/lib/operator.sh stop"
    op::log "  $(instance::env) ${OP_CLUSTER} down"
  else
    op::teardown
  fi
  [[ "${rc}" -ne 0 && -n "${keep:-}" ]] && op::failure_digest "${keep}"
  op::log "total $((SECONDS - START))s"
}

# op::failure_digest DIR: the last lines a failed run prints, so that a log cut to its tail (CI's)
# still says why: each failed spec's message from the suite's output (DIR/suite.log, written by
# op::run_suite), then the last error lines of the pods' containers (DIR/pods, real pods only).
op::failure_digest() {
  local dir="$1"
  op::log "why it failed (from ${dir}):"
  if [[ -f "${dir}/suite.log" ]]; then
    # Ginkgo's colour codes out; each failure's location and message, a few lines each.
    sed 's/\x1b\[[0-9;]*m//g' "${dir}/suite.log" | grep -A8 -E '^\s*\[(FAILED|PANICKED|TIMEDOUT)\]' |
      grep -vE '^\s*$' | cut -c1-400 | tail -30 || true
  fi
  if [[ -d "${dir}/pods" ]]; then
    local errors
    # An operand's error may quote a connection string: credentials in URLs and after
    # password/secret/token keys are masked before anything is printed.
    errors="$(grep -rhE '^(E[0-9]{4} |.*"level":"error")' "${dir}/pods" 2>/dev/null | tail -8 | cut -c1-300 |
      sed -E 's#(://)[^/@[:space:]]+@#\1***@#g; s#((password|passwd|secret|token|key)[^=:[:space:]]*"?[=:] *"?)[^[:space:],&"]+#\1***#Ig' || true)"
    [[ -n "${errors}" ]] && op::log "last error lines of the pods' containers:" && echo "${errors}"
  fi
  return 0
}

# op::run_suite COMMAND...: run a suite's go test, its output also kept in the cluster's logs
# (suite.log: op::finish_suite copies it and op::failure_digest reads it); sets SUITE_RC.
op::run_suite() {
  mkdir -p "${OP_STATE}/logs"
  set +e
  "$@" 2>&1 | tee "${OP_STATE}/logs/suite.log"
  SUITE_RC=${PIPESTATUS[0]}
  set -e
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
