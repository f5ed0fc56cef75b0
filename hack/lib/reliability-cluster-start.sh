#!/usr/bin/env bash
# The cluster-start suite of hack/test-reliability.sh (see its usage): RELIABILITY_STARTS starts
# and stops of the local cluster under CPU load, then a start with a bad flag on each of
# RELIABILITY_BAD_FLAG_COMPONENTS, its summary and cluster-start.json. Separate because it is
# the one suite written in shell; the others are Go programs (hack/lib/reliability-suites.sh).
# Sourced by hack/test-reliability.sh after hack/lib/reliability-cluster.sh (load_start,
# pick_ports, cluster, all_running, down_clean).

now() { date +%s.%N; }
# elapsed FROM [TO]: seconds, two decimals.
elapsed() { awk -v a="$1" -v b="${2:-$(now)}" 'BEGIN { printf "%.2f", b - a }'; }

suite_cluster_start() {
  local dir="${WORK}/cluster-start"
  rm -rf "${dir}"
  mkdir -p "${dir}"
  if "${CLUSTER}" status >/dev/null 2>&1 || [[ -n "$("${CLUSTER}" pids)" ]]; then
    die "a cluster runs in ${LOCAL_CLUSTER_DIR}; stop it first: $(instance::env) ${CLUSTER} down"
  fi
  local why
  # Built (or found up to date) before the load starts: the suite measures starts, not builds.
  if [[ "${SKIP_BUILD:-false}" != "true" ]]; then
    "${ROOT}/hack/build-cluster-binaries.sh"
  fi
  export SKIP_BUILD=true WITH_CERT_MANAGER=true

  load_start
  local i ok=0 failed=0 t0 t out times=()
  for ((i = 1; i <= RELIABILITY_STARTS; i++)); do
    out="${dir}/start-${i}.out"
    pick_ports
    CLUSTER_MAYBE_UP=true
    t0="$(now)"
    if cluster up >"${out}" 2>&1; then
      t="$(elapsed "${t0}")"
      if why="$(all_running)"; then
        ok=$((ok + 1))
        times+=("${t}")
        log "start ${i}/${RELIABILITY_STARTS}: up in ${t}s"
      else
        failed=$((failed + 1))
        log "start ${i}/${RELIABILITY_STARTS}: FAILED: up succeeded but ${why}"
      fi
    else
      failed=$((failed + 1))
      log "start ${i}/${RELIABILITY_STARTS}: FAILED after $(elapsed "${t0}")s; output in ${out}:"
      tail -n 40 "${out}" | sed 's/^/    /'
      cp -r "${LOCAL_CLUSTER_DIR}/logs" "${dir}/logs-${i}" 2>/dev/null || true
    fi
    if ! why="$(down_clean "${out}")"; then
      failed=$((failed + 1))
      log "start ${i}: FAILED: ${why}"
    fi
    CLUSTER_MAYBE_UP=false
  done

  # A component that exits at once is reported as exited, fast, with its log.
  local c var bad_rows=() bad_failed=0 err start_at end_at detect
  for c in ${RELIABILITY_BAD_FLAG_COMPONENTS}; do
    var="$(echo "${c}" | tr 'a-z-' 'A-Z_')_EXTRA_ARGS"
    out="${dir}/bad-${c}.out"
    err="${dir}/bad-${c}.err"
    pick_ports
    CLUSTER_MAYBE_UP=true
    # stdout is stamped line by line, to know when the component was started.
    t0="$(now)"
    if env "${var}=--no-such-flag" nice -n "${RELIABILITY_NICE}" "${CLUSTER}" up 2>"${err}" |
      while IFS= read -r line; do printf '%s %s\n' "$(now)" "${line}"; done >"${out}"; then
      bad_failed=$((bad_failed + 1))
      log "bad flag on ${c}: FAILED: up succeeded"
      bad_rows+=("${c} - up-succeeded")
    else
      end_at="$(now)"
      start_at="$(awk -v c="${c}" '$0 ~ "starting " c " \\(log" { print $1; exit }' "${out}")"
      detect="$(elapsed "${start_at:-${t0}}" "${end_at}")"
      local verdict=ok
      if [[ -z "${start_at}" ]]; then
        verdict="never-started"
      elif awk -v d="${detect}" -v b="${RELIABILITY_BAD_FLAG_BOUND}" 'BEGIN { exit !(d > b) }'; then
        verdict="too-slow"
      elif ! grep -q "ERROR: ${c} .*exited" "${err}"; then
        verdict="no-exited-message"
      elif ! grep -q -- "no-such-flag" "${err}"; then
        # The component's own complaint about the flag comes from its log's tail.
        verdict="no-log-tail"
      fi
      bad_rows+=("${c} ${detect} ${verdict}")
      if [[ "${verdict}" != "ok" ]]; then
        bad_failed=$((bad_failed + 1))
        log "bad flag on ${c}: FAILED (${verdict}) after ${detect}s; stderr:"
        sed 's/^/    /' "${err}"
      else
        log "bad flag on ${c}: reported after ${detect}s: $(grep -m1 "ERROR" "${err}")"
      fi
    fi
    if ! why="$(down_clean "${out}")"; then
      bad_failed=$((bad_failed + 1))
      log "bad flag on ${c}: FAILED: ${why}"
    fi
    CLUSTER_MAYBE_UP=false
  done
  load_stop

  local mean="-" worst="-"
  if [[ ${#times[@]} -gt 0 ]]; then
    mean="$(printf '%s\n' "${times[@]}" | awk '{ s += $1; n++ } END { printf "%.1f", s / n }')"
    worst="$(printf '%s\n' "${times[@]}" | sort -n | tail -n1)"
  fi
  {
    echo
    echo "cluster-start: ${RELIABILITY_LOAD} busy loops on $(nproc) cores, starter nice ${RELIABILITY_NICE}"
    printf '  %-44s %s\n' "starts tried" "${RELIABILITY_STARTS}"
    printf '  %-44s %s\n' "starts succeeded (all components running)" "${ok}"
    printf '  %-44s %s\n' "failures (start, or down leaving something)" "${failed}"
    printf '  %-44s %ss\n' "mean start time under load" "${mean}"
    printf '  %-44s %ss\n' "worst start time under load" "${worst}"
    for row in "${bad_rows[@]}"; do
      read -r c detect verdict <<<"${row}"
      printf '  %-44s %ss (%s; bound %ss)\n' "bad flag on ${c}: exited reported after" "${detect}" "${verdict}" "${RELIABILITY_BAD_FLAG_BOUND}"
    done
    echo "  outputs: ${dir}"
  } | tee "${dir}/summary.txt"
  local passed=false
  [[ "${ok}" -eq "${RELIABILITY_STARTS}" && "${failed}" -eq 0 && "${bad_failed}" -eq 0 ]] && passed=true
  mkdir -p "${RUN_DIR}"
  cat >"${RUN_DIR}/cluster-start.json" <<EOF
{"name": "cluster-start", "passed": ${passed}, "metrics": [
  {"name": "starts tried", "value": ${RELIABILITY_STARTS}},
  {"name": "starts succeeded", "value": ${ok}},
  {"name": "failures", "value": $((failed + bad_failed))},
  {"name": "worst start time under load", "value": ${worst/-/0}, "unit": "s"}]}
EOF
  [[ "${passed}" == "true" ]]
}
