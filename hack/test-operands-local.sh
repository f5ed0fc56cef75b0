#!/usr/bin/env bash
# make test-operands-local: the operands' e2e suite (test/operands) on a local cluster whose pods
# run for real: make fetch-operands (cached), a cluster of its own instance (`operands`:
# _output/operands-cluster, ports 30xxx, services on its own loopback address) with
# REAL_PODS=true, which starts the backing services (hack/operands/services.sh), deploy/ and the
# operator, then the suite, then teardown. On failure the logs are kept and their place printed.
# OPERANDS_SHORT=true runs the short form (one batch, one chat completion, one MCP tool list, a
# LeaderWorkerSet answering and its webhook's refusal, the DisaggregatedSet webhook's refusals: what make ci runs), with only the programs it needs built (OPERANDS_SET=short of
# hack/fetch-operands.sh: no upstream e2e suite, no async processor). Exits with the suite's status; a machine that cannot run real pods fails
# with the reason (the suite never passes by skipping).
#
# Environment: those of hack/local-cluster.sh and hack/lib/operator.sh, and
#   OPERANDS_SHORT [false]   OPERANDS_TIMEOUT [60m; short 15m]   OPERANDS_ARGS [] (extra go test arguments)
#   KEEP_CLUSTER [false]     leave the cluster, services and operator running afterwards
#   OPENSHIFT [false]        true: the cluster as OpenShift where it matters (hack/openshift/cluster.sh):
#                            hack/openshift/live-tests.sh runs first, then the suite, which then
#                            checks every pod against SCC admission (restricted-v2)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export LOCAL_CLUSTER_INSTANCE="${LOCAL_CLUSTER_INSTANCE:-operands}"
# shellcheck source=hack/lib/operator.sh
source "${ROOT}/hack/lib/operator.sh"
# shellcheck source=hack/operands/lib.sh
source "${ROOT}/hack/operands/lib.sh"

OPERANDS_SHORT="${OPERANDS_SHORT:-false}"
if [[ "${OPERANDS_SHORT}" == "true" ]]; then
  OPERANDS_TIMEOUT="${OPERANDS_TIMEOUT:-15m}"
  export OPERANDS_SET=short
else
  # Upstream's e2e suite alone runs up to 12 groups of at most 11 minutes each.
  OPERANDS_TIMEOUT="${OPERANDS_TIMEOUT:-60m}"
fi
KEEP_CLUSTER="${KEEP_CLUSTER:-false}"
START=${SECONDS}
SUITE_RC=""

cleanup() { op::finish_suite "$1" "${SUITE_RC}" operands-logs; }
proc::on_exit cleanup

services::real_pods_possible || op::die "the operands' suite needs real pods: ${SERVICES_REAL_PODS_WHY}"
if op::cluster_running; then
  op::die "a local cluster is (partly) running in ${LOCAL_CLUSTER_DIR}; stop it first: $(instance::env) ${OP_CLUSTER} down"
fi
"${ROOT}/hack/fetch-operands.sh"
op::build
export REAL_PODS=true
op::cluster_up
[[ "$(cat "${OP_STATE}/pod-runner" 2>/dev/null)" == "realpods" ]] ||
  op::die "the cluster's pods are simulated (hack/local-cluster.sh said why above): the operands' suite needs real pods"
if [[ "${OPENSHIFT:-false}" == "true" ]]; then
  # The cluster's OpenShift parts first, on this cluster, so CI brings up none for them alone.
  "${ROOT}/hack/openshift/live-tests.sh" "${OP_ADMIN_KUBECONFIG}"
fi
op::install
OPERATOR_SKIP_BUILD=true op::start
op::log "set up in $((SECONDS - START))s; running the operands' suite"

export KUBECONFIG="${OP_ADMIN_KUBECONFIG}"
export OPERANDS_SERVICES_ENV="${OP_STATE}/services/env"
export OPERANDS_BIN="${OP_OUTPUT_DIR}/operands/bin"
export OPERANDS_SAMPLES="${ROOT}/hack/operands/samples"
filter=()
[[ "${OPERANDS_SHORT}" == "true" ]] && filter=(-ginkgo.label-filter=short)
# Serving under faults (label faults) kills, restarts and upgrades the operator, whatever the platform: its
# short form runs once in make ci, on plain Kubernetes, not again with OPENSHIFT=true.
[[ "${OPERANDS_SHORT}" == "true" && "${OPENSHIFT:-false}" == "true" ]] && filter=(-ginkgo.label-filter='short && !faults')
cd "${ROOT}"
# shellcheck disable=SC2086 # OPERANDS_ARGS is a word list on purpose
GOFLAGS="-mod=vendor -trimpath" op::run_suite go test ./test/operands/... -count=1 -timeout "${OPERANDS_TIMEOUT}" -v -ginkgo.v "${filter[@]}" ${OPERANDS_ARGS:-}
op::log "operands suite exited ${SUITE_RC} after $((SECONDS - START))s in total"
exit "${SUITE_RC}"
