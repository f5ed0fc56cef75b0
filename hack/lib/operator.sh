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
#   OPERATOR_NAMESPACE [openshift-llm-infra-operator, the namespace deploy/01_namespace.yaml makes]
#                                       where `install` puts deploy/ (each manifest's namespace
#                                       rewritten) and the operator runs (its operand with it)
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
# The namespace deploy/ is written for; op::install moves it to OP_NAMESPACE.
OP_DEPLOY_NAMESPACE="$(awk '/^kind: Namespace/ { ns = 1 } ns && /^  name:/ { print $2; exit }' "${OP_ROOT}/deploy/01_namespace.yaml")"
OP_NAMESPACE="${OPERATOR_NAMESPACE:-${OP_DEPLOY_NAMESPACE}}"
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

# The parts, by responsibility: the operator's process, the cluster side, the suites' exit hooks.
# shellcheck source=hack/lib/operator-process.sh
source "${OP_ROOT}/hack/lib/operator-process.sh"
# shellcheck source=hack/lib/operator-cluster.sh
source "${OP_ROOT}/hack/lib/operator-cluster.sh"
# shellcheck source=hack/lib/operator-suite.sh
source "${OP_ROOT}/hack/lib/operator-suite.sh"

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
