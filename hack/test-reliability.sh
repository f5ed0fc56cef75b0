#!/usr/bin/env bash
# make test-reliability: suites that check the operator and the scripts hold up under adverse
# conditions, on the `reliability` instance of hack/lib/instance.sh (_output/reliability-cluster,
# ports 31xxx), so they run beside run-local, e2e and bench. Every suite writes its result
# (test/reliability/result) into the run's directory; test/reliability/cmd/report prints one
# table over them and keeps it as _output/reliability/reliability-<commit>-<time>.json. The
# short form (RELIABILITY_SHORT=true, make test-reliability-short) is what `make ci` runs. This machine is
# shared, and clusters started by hand may take any ports: before each start, when another
# process listens on one of the instance's ports, the suite moves to a free block of five
# consecutive ports from 30100 on (said in its output; below the ephemeral range, like the
# instances), so a suite measures starts, not port collisions.
#
# Usage: hack/test-reliability.sh [SUITE...]   (default: every suite, in this order; with
#        RELIABILITY_SHORT=true: fuzz admission faults)
#
# Suites:
#   fuzz            hack/fuzz.sh RELIABILITY_FUZZ_SECONDS DIR: the render paths' Go fuzz tests.
#   admission       go test ./test/reliability/admission: the table of invalid CRs, each rejected
#                   by the real API server with a message that says what to fix.
#   dryrun          go test ./test/reliability/dryrun: rendered objects pass server-side dry run.
#   faults          test/reliability/cmd/faults: the operator SIGKILLed at RELIABILITY_KILL_POINTS
#                   points over each operand's convergence, LWS's removal and CR deletion;
#                   kube-apiserver restarted mid-convergence and idle; leader election with two
#                   processes; conflicting edits; a hostile object; users' data counted through
#                   it all and through uninstalling deploy/; seeded Secret values grepped for.
#   admission, dryrun and faults share one reliability cluster, brought up once (deploy/
#   installed, the operator built); faults runs last among them (it uninstalls deploy/).
#   cluster-start   Under artificial CPU contention (RELIABILITY_LOAD busy loops, the starter at
#                   nice RELIABILITY_NICE), `hack/local-cluster.sh up` (with the cert-manager
#                   runner) then `down`, RELIABILITY_STARTS times in a row: every start must
#                   succeed, every component must be running after it, and nothing may be left
#                   running or listening after `down`. Then, still under load, each component of
#                   RELIABILITY_BAD_FLAG_COMPONENTS is started with a flag it does not know
#                   (<COMPONENT>_EXTRA_ARGS=--no-such-flag, see hack/local-cluster.sh): `up` must
#                   fail within RELIABILITY_BAD_FLAG_BOUND seconds of that component's start,
#                   saying on stderr that it exited, with lines of its log.
#
# Environment (defaults in brackets):
#   RELIABILITY_STARTS [5]         consecutive starts under load
#   RELIABILITY_LOAD [2 x cores]   busy loops (each a shell spinning on one core's worth of CPU)
#   RELIABILITY_NICE [0]           niceness of the starter (and so of the cluster it starts);
#                                  higher starves it more against the busy loops
#   RELIABILITY_BAD_FLAG_COMPONENTS [etcd kwok]   first and last component started by `up`
#   RELIABILITY_BAD_FLAG_BOUND [20]   seconds
#   SKIP_BUILD [false]             as hack/local-cluster.sh (the build is checked once, before
#                                  the load starts)
#   RELIABILITY_SHORT [false]      the short form: faults with RELIABILITY_KILL_POINTS=2 over LWS's
#                                  convergence only, the API server restarts, the hostile object,
#                                  secrets and uninstall (no leader election or conflicts), fuzz
#                                  for 5 seconds per target
#   RELIABILITY_KILL_POINTS [20]   RELIABILITY_OPERANDS [all]
#   RELIABILITY_FAULTS_ARGS []     more flags of test/reliability/cmd/faults (-skip=leader,...)
#   RELIABILITY_FUZZ_SECONDS [300]
# Exits non-zero when a suite fails; prints a summary table per suite.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export LOCAL_CLUSTER_INSTANCE=reliability
# shellcheck source=hack/lib/proc.sh
source "${ROOT}/hack/lib/proc.sh"
# shellcheck source=hack/lib/instance.sh
source "${ROOT}/hack/lib/instance.sh"
instance::use reliability

CLUSTER="${ROOT}/hack/local-cluster.sh"
RELIABILITY_STARTS="${RELIABILITY_STARTS:-5}"
RELIABILITY_LOAD="${RELIABILITY_LOAD:-$((2 * $(nproc)))}"
RELIABILITY_NICE="${RELIABILITY_NICE:-0}"
RELIABILITY_BAD_FLAG_COMPONENTS="${RELIABILITY_BAD_FLAG_COMPONENTS:-etcd kwok}"
RELIABILITY_BAD_FLAG_BOUND="${RELIABILITY_BAD_FLAG_BOUND:-20}"
WORK="${OUTPUT_DIR}/reliability"
SUITES_ALL=(cluster-start fuzz admission dryrun faults)
RELIABILITY_SHORT="${RELIABILITY_SHORT:-false}"
SUITES_SHORT=(fuzz admission faults)
if [[ "${RELIABILITY_SHORT}" == "true" ]]; then
  RELIABILITY_KILL_POINTS="${RELIABILITY_KILL_POINTS:-2}"
  RELIABILITY_OPERANDS="${RELIABILITY_OPERANDS:-lws}"
  RELIABILITY_FUZZ_SECONDS="${RELIABILITY_FUZZ_SECONDS:-5}"
  RELIABILITY_FAULTS_ARGS="${RELIABILITY_FAULTS_ARGS:--phases=convergence -skip=leader,conflict -quiet=10s}"
fi
RELIABILITY_KILL_POINTS="${RELIABILITY_KILL_POINTS:-20}"
RELIABILITY_OPERANDS="${RELIABILITY_OPERANDS:-all}"
RELIABILITY_FUZZ_SECONDS="${RELIABILITY_FUZZ_SECONDS:-300}"
# The run's directory: each suite's <suite>.json (test/reliability/result).
RUN_DIR="${WORK}/run-$(date -u +%Y%m%dT%H%M%SZ)"

log() { echo "[reliability] $*"; }
die() { proc::die "[reliability]" "$@"; }

now() { date +%s.%N; }
# elapsed FROM [TO]: seconds, two decimals.
elapsed() { awk -v a="$1" -v b="${2:-$(now)}" 'BEGIN { printf "%.2f", b - a }'; }

# ---------------------------------------------------------------------------
# CPU load: busy loops in the background, stopped by the exit hook however the script ends.
# ---------------------------------------------------------------------------

LOAD_PIDS=()
load_start() {
  local i
  for ((i = 0; i < RELIABILITY_LOAD; i++)); do
    (
      trap - EXIT INT TERM
      while :; do :; done
    ) &
    LOAD_PIDS+=("$!")
  done
  log "CPU load: ${RELIABILITY_LOAD} busy loops on $(nproc) cores (pids ${LOAD_PIDS[*]})"
}

load_stop() {
  [[ ${#LOAD_PIDS[@]} -gt 0 ]] || return 0
  kill "${LOAD_PIDS[@]}" 2>/dev/null || true
  wait "${LOAD_PIDS[@]}" 2>/dev/null || true
  LOAD_PIDS=()
}

# A cluster this script left behind (a failed `up`, an interrupted run) is brought down on exit:
# the instance is the suite's own.
CLUSTER_MAYBE_UP=false
cleanup() {
  load_stop
  if [[ "${OPERATOR_SOURCED:-false}" == "true" ]]; then
    op::teardown
  fi
  if [[ "${CLUSTER_MAYBE_UP}" == "true" ]]; then
    "${CLUSTER}" down >/dev/null 2>&1 || true
  fi
}
proc::on_exit cleanup

# cluster CMD...: hack/local-cluster.sh at the starter's niceness.
cluster() { nice -n "${RELIABILITY_NICE}" "${CLUSTER}" "$@"; }

INSTANCE_PORTS=("${ETCD_PORT}" "${ETCD_PEER_PORT}" "${APISERVER_PORT}" "${KCM_PORT}" "${SCHEDULER_PORT}")
PORTS=("${INSTANCE_PORTS[@]}")

# use_ports ETCD PEER APISERVER KCM SCHEDULER: the ports the next `up` and checks use.
use_ports() {
  PORTS=("$@")
  export ETCD_PORT="$1" ETCD_PEER_PORT="$2" APISERVER_PORT="$3" KCM_PORT="$4" SCHEDULER_PORT="$5"
}

# pick_ports: the instance's ports when they are all free, else the first free block of five
# consecutive ports from 30100 on (another process, e.g. a cluster someone started by hand,
# holds one of them).
pick_ports() {
  local why base
  use_ports "${INSTANCE_PORTS[@]}"
  why="$(ports_free)" && return 0
  for ((base = 30100; base < 31000; base += 100)); do
    use_ports "${base}" $((base + 1)) $((base + 2)) $((base + 3)) $((base + 4))
    if ports_free >/dev/null; then
      log "${why}: not ours, so this start uses ports ${base}-$((base + 4))"
      return 0
    fi
  done
  die "no free block of ports (${why})"
}

# ports_free: no port in use is listening; says which one is.
ports_free() {
  local p
  for p in "${PORTS[@]}"; do
    if [[ -n "$(ss -Htln "sport = :${p}" 2>/dev/null)" ]]; then
      echo "port ${p} is listening: $(ss -Htlnp "sport = :${p}" 2>/dev/null | grep -o 'users:.*' | head -n1)"
      return 1
    fi
  done
}

# nothing_left: no component of the instance alive, no port of it listening.
nothing_left() {
  local left
  left="$("${CLUSTER}" pids)"
  if [[ -n "${left}" ]]; then
    echo "processes of the cluster still alive: $(echo "${left}" | tr '\n' ' ')"
    return 1
  fi
  ports_free
}

# down_clean OUT: hack/local-cluster.sh down (output appended to OUT), then nothing_left; says
# why not.
down_clean() {
  if ! cluster down >>"$1" 2>&1; then
    echo "down failed; output in $1"
    return 1
  fi
  nothing_left
}

# all_running: every component of the cluster, cert-manager included, is running.
all_running() {
  local c status
  status="$("${CLUSTER}" status 2>&1)" || true
  for c in etcd kube-apiserver kube-controller-manager kube-scheduler kwok cert-manager; do
    grep -Eq "^ +${c} +running " <<<"${status}" || {
      echo "${c} is not running: $(grep -E "^ +${c} " <<<"${status}")"
      return 1
    }
  done
}

# ---------------------------------------------------------------------------
# Suite cluster-start
# ---------------------------------------------------------------------------

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

# ---------------------------------------------------------------------------
# Suites of Go programs and tests. The table: suite, whether it needs the reliability cluster,
# its command (RUN_DIR is where it writes <suite>.json; the cluster's suites get KUBECONFIG).
# ---------------------------------------------------------------------------

suite_command() {
  case "$1" in
    fuzz) echo "cluster=no  hack/fuzz.sh ${RELIABILITY_FUZZ_SECONDS} ${RUN_DIR}" ;;
    admission) echo "cluster=yes go test ./test/reliability/admission -count=1 -args -out=${RUN_DIR}" ;;
    dryrun) echo "cluster=yes go test ./test/reliability/dryrun -count=1 -args -out=${RUN_DIR}" ;;
    faults) echo "cluster=yes go run ./test/reliability/cmd/faults -out=${RUN_DIR} -root=${ROOT} -kill-points=${RELIABILITY_KILL_POINTS} -operands=${RELIABILITY_OPERANDS} ${RELIABILITY_FAULTS_ARGS:-}" ;;
    *) return 1 ;;
  esac
}

# reliability_cluster: the reliability cluster up (once), deploy/ installed, the operator built.
RELIABILITY_CLUSTER=false
reliability_cluster() {
  [[ "${RELIABILITY_CLUSTER}" == "true" ]] && return 0
  # shellcheck source=hack/lib/operator.sh
  source "${ROOT}/hack/lib/operator.sh"
  OPERATOR_SOURCED=true
  if op::cluster_running; then
    die "a cluster runs in ${LOCAL_CLUSTER_DIR}; stop it first: $(instance::env) ${CLUSTER} down"
  fi
  op::cluster_up
  op::install
  op::build
  export KUBECONFIG="${LOCAL_CLUSTER_DIR}/kubeconfig"
  RELIABILITY_CLUSTER=true
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

# ---------------------------------------------------------------------------

main() {
  local suites=("$@") s rc=0 results=()
  if [[ ${#suites[@]} -eq 0 ]]; then
    suites=("${SUITES_ALL[@]}")
    [[ "${RELIABILITY_SHORT}" == "true" ]] && suites=("${SUITES_SHORT[@]}")
  fi
  for s in "${suites[@]}"; do
    [[ "${s}" == "cluster-start" ]] || suite_command "${s}" >/dev/null ||
      die "unknown suite '${s}' (suites: ${SUITES_ALL[*]})"
  done
  # cluster-start needs the instance free, so it runs before the suites that share the
  # cluster; faults runs last (it uninstalls deploy/).
  local ordered=()
  for s in "${suites[@]}"; do [[ "${s}" == "cluster-start" ]] && ordered+=("${s}"); done
  for s in "${suites[@]}"; do [[ "${s}" == "cluster-start" || "${s}" == "faults" ]] || ordered+=("${s}"); done
  for s in "${suites[@]}"; do [[ "${s}" == "faults" ]] && ordered+=("${s}"); done
  mkdir -p "${WORK}"
  for s in "${ordered[@]}"; do
    log "suite ${s}"
    local run=run_go_suite
    [[ "${s}" == "cluster-start" ]] && run=suite_cluster_start
    if "${run}" "${s}"; then
      results+=("${s} passed")
    else
      results+=("${s} FAILED")
      rc=1
    fi
  done
  echo
  printf '[reliability] %s\n' "${results[@]}"
  local passed failed
  passed="$(printf '%s\n' "${results[@]}" | grep -c ' passed$' || true)"
  failed="$(printf '%s\n' "${results[@]}" | grep -c ' FAILED$' || true)"
  echo "suites: ${passed} passed, ${failed} failed"
  echo
  local short=false
  [[ "${RELIABILITY_SHORT}" == "true" ]] && short=true
  (cd "${ROOT}" && GOFLAGS="-mod=vendor -trimpath" go run ./test/reliability/cmd/report -dir "${RUN_DIR}" -out "${WORK}" -short="${short}") || rc=1
  return "${rc}"
}

main "$@"
