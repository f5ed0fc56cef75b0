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

# The parts, by responsibility (each sourced file says what it holds):
# shellcheck source=hack/lib/reliability-cluster.sh
source "${ROOT}/hack/lib/reliability-cluster.sh"
proc::on_exit cleanup
# shellcheck source=hack/lib/reliability-cluster-start.sh
source "${ROOT}/hack/lib/reliability-cluster-start.sh"
# shellcheck source=hack/lib/reliability-suites.sh
source "${ROOT}/hack/lib/reliability-suites.sh"

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
