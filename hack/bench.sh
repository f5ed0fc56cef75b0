#!/usr/bin/env bash
# make bench: measure the operator against a live cluster (test/bench/cmd/bench):
#   1. convergence (CR created -> operand applied -> Available) and the writes it took,
#   2. writes on forced syncs with nothing changed, requests per minute at idle,
#   3. drift repair time per managed kind,
#   4. the operator process's memory and CPU, before and after 5,000 unrelated ConfigMaps and
#      5,000 unrelated Secrets,
#   5. start-up time and the writes a restart makes,
#   6. the LLM batch gateway at scale: 200 LLMBatchGateways in 20 namespaces (600 pods) next to
#      the managed LWS operand: time to all Ready, writes against the physical minimum, writes
#      and API reads in a forced resync of all of them, memory, then memory after 5,000
#      unrelated Secrets, and garbage collection when they are deleted.
#   7. the inference gateway at scale: 200 Gateways created together with 200 LLMBatchGateways
#      in the same 20 namespaces (800 pods), LWS managed too: time to all Available (and all
#      Ready), writes against the physical minimum of both operands, writes and API reads in a
#      forced resync of all the Gateways, memory with everything converged, garbage collection.
#   8. both gateways at platform scale (not in the default set; make bench-scale): BENCH_SCALE
#      LLMBatchGateways and as many Gateways with half as many MCPs in BENCH_SCALE/10 namespaces,
#      LWS managed too, created at once, after the same at BENCH_SCALE_BASE: time to all
#      converged, writes against the physical minimum, 409 conflicts, API reads, watches open
#      by resource, RSS and a heap profile's top consumers, CPU per CR, a forced resync of all;
#      and the growth from one step to the other as ratios.
#   anchors (make bench-anchors, hack/bench-anchors.sh): the upstream operators side by side.
#   9. Agents at scale: 200 Agents in 20 namespaces (200 pods), LWS managed too: time to all
#      Available, writes against the physical minimum, a forced resync, memory and CPU.
# Syncs are counted by the operator's own metrics (llm_infra_operator_syncs_total on its
# /metrics, scraped with the cluster admin's token): a sync that changes nothing sends no
# request, so the audit log cannot show it.
# Prints a table and writes _output/bench/bench-<commit>-<time>.json (and .txt), to compare
# with `make bench-compare OLD=... NEW=...`.
#
# By default it brings up its own local cluster (hack/local-cluster.sh, the `bench` instance of
# hack/lib/instance.sh: _output/bench-cluster, ports 2xxxx, so run-local and e2e may run
# meanwhile), and takes it down on exit. The operator runs as a local process that the bench
# starts and stops through hack/lib/operator.sh, as its ServiceAccount, listening on
# OPERATOR_LISTEN.
#
# Environment (defaults in brackets):
#   BENCH_USE_KUBECONFIG [0]   1: use the cluster of $KUBECONFIG (admin) instead of a local one;
#                              counts need its audit log: BENCH_AUDIT_LOG=<path> (JSON format)
#   BENCH_RUNS [3]             repetitions of scenarios 1, 2, 3 and 5
#   BENCH_TOUCHES [20]         forced syncs per run of scenario 2
#   BENCH_QUIET_SECONDS [60]   length of each quiet window (idle requests, footprint)
#   BENCH_LOAD_NAMESPACES [10] BENCH_LOAD_OBJECTS [5000] (ConfigMaps and as many Secrets)
#   BENCH_LOAD_CONCURRENCY [8]
#   BENCH_SCENARIOS [1,2,3,4,5,6,7,9] a subset, e.g. 1,3 (6, 7 and 9 are the longest)
#   BENCH_SCALE_CRS [200] BENCH_SCALE_NAMESPACES [20]   the LLMBatchGateways of scenarios 6 and
#                              7, and the namespaces of each
#   BENCH_GATEWAY_CRS [200]    scenario 7's Gateways
#   BENCH_AGENT_CRS [200]      scenario 9's Agents
#   BENCH_SCALE_SECRETS [5000]  unrelated Secrets of scenario 6's footprint
#   BENCH_SCALE_QUIET_SECONDS [30]   the quiet windows of scenarios 6, 7, 8 and 9
#   BENCH_SCALE [1000] BENCH_SCALE_BASE [200]   scenario 8's two steps (one when BASE >= SCALE)
#   BENCH_CONVERGE_MINUTES [20] BENCH_CONVERGE_SECONDS_PER_CR [1.2]   how long a scale scenario
#                              waits for its CRs: the minutes, plus the seconds for each CR beyond
#                              1,000
#   OPERATOR_LISTEN [127.0.0.1:28443]  (BENCH_OPERATOR_LISTEN, its former name, still works)
#   KEEP_CLUSTER [false]       leave the local cluster up afterwards (hack/local-cluster.sh down
#                              with LOCAL_CLUSTER_INSTANCE=bench stops it)
#   LOCAL_CLUSTER_DIR [_output/bench-cluster] ETCD_PORT [22379] ETCD_PEER_PORT [22380]
#   APISERVER_PORT [26443] KCM_PORT [27257] SCHEDULER_PORT [27259]   (passed to local-cluster.sh;
#   kwok and the cert-manager runner listen on no port)
#   SKIP_BUILD, WITH_CERT_MANAGER, NODE_MAX_PODS: as hack/local-cluster.sh (cert-manager must
#   run; the fake nodes' default capacity of 1000 pods each, 2000 on the two schedulable ones,
#   keeps scheduling out of the way: scenario 7 runs 3 pods per LLMBatchGateway and 1 per
#   Gateway; the bench logs the room left before it creates them, and a scenario that times
#   out counts the pods not Running)
# The operator's files: binary _output/bench/bin/llm-infra-operator, log and ServiceAccount
# kubeconfig in BENCH_WORK_DIR (the cluster's logs/, or _output/bench/work with
# BENCH_USE_KUBECONFIG=1), pid file in LOCAL_CLUSTER_DIR/pids.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"
export GOFLAGS="-mod=vendor -trimpath"

OUT="${ROOT}/_output/bench"
BENCH_USE_KUBECONFIG="${BENCH_USE_KUBECONFIG:-0}"
export LOCAL_CLUSTER_INSTANCE=bench
export OPERATOR_LISTEN="${OPERATOR_LISTEN:-${BENCH_OPERATOR_LISTEN:-}}"
# shellcheck source=hack/lib/instance.sh
source "${ROOT}/hack/lib/instance.sh"
instance::use bench
if [[ "${BENCH_USE_KUBECONFIG}" == "1" ]]; then
  export BENCH_WORK_DIR="${BENCH_WORK_DIR:-${OUT}/work}"
else
  export BENCH_WORK_DIR="${LOCAL_CLUSTER_DIR}/logs"
fi
# What the bench (test/bench/cmd/bench) passes to hack/lib/operator.sh, known here too so that
# the exit hook stops the operator should the bench die.
# The operator goes to its own path, not _output/bin, which hack/lib/operator.sh rebuilds and
# runs for e2e: a build here must not replace a binary another session is running.
export OPERATOR_BINARY="${OUT}/bin/llm-infra-operator"
export OPERATOR_LOG="${BENCH_WORK_DIR}/operator.log"
export OPERATOR_KUBECONFIG="${BENCH_WORK_DIR}/operator-sa.kubeconfig"
# shellcheck source=hack/lib/operator.sh
source "${ROOT}/hack/lib/operator.sh"

log() { echo "[bench] $*"; }
die() { proc::die "[bench]" "$@"; }

cleanup() {
  # The anchors (make bench-anchors) the bench started, should it have died before stopping them.
  local pidfile
  for pidfile in "${BENCH_WORK_DIR}"/anchor-*.pid; do
    [[ -e "${pidfile}" ]] && proc::stop "$(basename "${pidfile}" .pid)" "${pidfile}" 15 "[bench]"
  done
  op::teardown
  if [[ "$1" -ne 0 ]]; then
    log "FAILED (exit $1); operator log: ${OPERATOR_LOG}"
  fi
}
proc::on_exit cleanup
# The bench starts the operator on this script's behalf: op::teardown stops it.
OP_STARTED_OPERATOR=true

# Scenario 8 runs 4.5 pods per BENCH_SCALE (3 per LLMBatchGateway, 1 per Gateway and MCP) on
# the two schedulable fake nodes: room for all of them unless NODE_MAX_PODS says otherwise.
if [[ ",${BENCH_SCENARIOS:-}," == *",8,"* && -z "${NODE_MAX_PODS:-}" ]]; then
  export NODE_MAX_PODS=$((9 * ${BENCH_SCALE:-1000} / 4 + 1000))
fi

mkdir -p "${OUT}/bin"
log "building the operator and the bench"
go build -o "${OPERATOR_BINARY}" ./cmd/llm-infra-operator
go build -o "${OUT}/bin/bench" ./test/bench/cmd/bench

if [[ "${BENCH_USE_KUBECONFIG}" == "1" ]]; then
  [[ -n "${KUBECONFIG:-}" ]] || die "BENCH_USE_KUBECONFIG=1 needs KUBECONFIG (a cluster admin)"
  export BENCH_CLUSTER="${BENCH_CLUSTER:-\$KUBECONFIG}"
  # Leave the cluster as found: the CR is deleted (and the operand with it) at the end.
  export BENCH_CLEANUP_CR=1
  [[ -n "${BENCH_AUDIT_LOG:-}" ]] || log "BENCH_AUDIT_LOG unset: write and request counts will be skipped"
else
  # Start from a fresh cluster every time: the counts must not depend on leftovers.
  if op::cluster_running; then
    log "a bench cluster is up in ${LOCAL_CLUSTER_DIR}: taking it down first"
    op::stop
    "${OP_CLUSTER}" down
  fi
  op::cluster_up
  export KUBECONFIG="${OP_ADMIN_KUBECONFIG}"
  export BENCH_AUDIT_LOG="${LOCAL_CLUSTER_DIR}/logs/audit.log"
  export BENCH_CLUSTER="local (hack/local-cluster.sh, apiserver :${APISERVER_PORT})"
fi

"${OUT}/bin/bench"
log "logs: ${BENCH_WORK_DIR} (operator.log$([[ "${BENCH_USE_KUBECONFIG}" == "1" ]] || echo ', audit.log, cluster components'))"
