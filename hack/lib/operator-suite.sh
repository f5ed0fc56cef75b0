#!/usr/bin/env bash
# The suite scripts' side of hack/lib/operator.sh (hack/test-e2e-local.sh,
# hack/test-operands-local.sh): run a suite with its output kept in the cluster's logs, and the
# exit hook that keeps the logs of a failed run, prints why it failed and tears down. Separate
# because only the suite scripts use it.
# Sourced by hack/lib/operator.sh after its settings (OP_ROOT, OP_STATE, OP_OUTPUT_DIR,
# OP_CLUSTER, OP_STARTED_CLUSTER, op::log) and hack/lib/operator-cluster.sh (op::teardown);
# op::finish_suite reads the caller's START.

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
