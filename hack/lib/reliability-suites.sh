#!/usr/bin/env bash
# The suites of hack/test-reliability.sh that are Go programs and tests. The table: suite,
# whether it needs the reliability cluster, its command (RUN_DIR is where it writes
# <suite>.json; the cluster's suites get KUBECONFIG). Separate from the shell suite
# (hack/lib/reliability-cluster-start.sh): these only run a command from the table.
# Sourced by hack/test-reliability.sh after hack/lib/reliability-cluster.sh
# (reliability_cluster).

suite_command() {
  case "$1" in
    fuzz) echo "cluster=no  hack/fuzz.sh ${RELIABILITY_FUZZ_SECONDS} ${RUN_DIR}" ;;
    admission) echo "cluster=yes go test ./test/reliability/admission -count=1 -args -out=${RUN_DIR}" ;;
    dryrun) echo "cluster=yes go test ./test/reliability/dryrun -count=1 -args -out=${RUN_DIR}" ;;
    faults) echo "cluster=yes go run ./test/reliability/cmd/faults -out=${RUN_DIR} -root=${ROOT} -kill-points=${RELIABILITY_KILL_POINTS} -operands=${RELIABILITY_OPERANDS} ${RELIABILITY_FAULTS_ARGS:-}" ;;
    *) return 1 ;;
  esac
}

# run_go_suite NAME: the suite's command from the table, in the repository, its output to the
# terminal and to WORK/NAME.log.
run_go_suite() {
  local spec cluster cmd
  spec="$(suite_command "$1")"
  cluster="${spec%% *}"
  cmd="${spec#* }"
  if [[ "${cluster}" == "cluster=yes" ]]; then
    reliability_cluster
  fi
  # dryrun sends objects of every optional kind (HTTPRoute, ServiceMonitor, ...): their CRDs.
  if [[ "$1" == "dryrun" ]]; then
    "${ROOT}/hack/optional-crds.sh" install all
  fi
  mkdir -p "${RUN_DIR}"
  log "$1: ${cmd}"
  local rc=0
  # shellcheck disable=SC2086 # the table's command is a word list
  (cd "${ROOT}" && GOFLAGS="-mod=vendor -trimpath" ${cmd}) > >(tee "${WORK}/$1.log") 2>&1 || rc=$?
  [[ -f "${RUN_DIR}/$1.json" ]] || log "$1 wrote no ${RUN_DIR}/$1.json"
  return "${rc}"
}
