#!/usr/bin/env bash
# hack/ci.sh (`make ci`, what .ci/run calls): the phases below in order, each timed
# (hack/timed.sh: `[ci] <phase>: <s>`, and in CI_TIMES), stopping at the first that fails. Beside
# them, from the start, hack/prebuild.sh builds the programs of the later phases at nice 10, so
# that on a cold machine those builds use the core the first phases leave idle; its log is
# _output/prebuild.log, its steps' times are printed at the end (and in CI_TIMES as
# prebuild/<step>), and it is stopped (its process group, by id) if a phase fails first.
# CI_PREBUILD=false runs the phases alone.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"
MAKE="${MAKE:-make}"

# The phases: name, then the command.
PHASES=(
  "verify|${MAKE} verify"
  "test|${MAKE} test"
  "test-e2e-local|${MAKE} test-e2e-local"
  "test-e2e-short-openshift|${MAKE} test-e2e-short-openshift"
  "test-operands-short|${MAKE} test-operands-short"
  "test-operands-short-openshift|env OPENSHIFT=true ${MAKE} test-operands-short"
  "test-upgrade-short|${MAKE} test-upgrade-short"
  "test-reliability-short|${MAKE} test-reliability-short"
  "test-admission-oldest|${MAKE} test-admission-oldest"
)

PREBUILD_LOG="${ROOT}/_output/prebuild.log"
PREBUILD_PID=""
if [[ "${CI_PREBUILD:-true}" == "true" ]]; then
  mkdir -p "${ROOT}/_output"
  # Its own session and process group, so that stopping it stops the builds it started.
  setsid nice -n 10 "${ROOT}/hack/prebuild.sh" >"${PREBUILD_LOG}" 2>&1 &
  PREBUILD_PID=$!
  trap '[[ -z "${PREBUILD_PID}" ]] || kill -TERM -- "-${PREBUILD_PID}" 2>/dev/null || true' EXIT
  echo "[ci] prebuild started (pid ${PREBUILD_PID}, log ${PREBUILD_LOG})"
fi

for phase in "${PHASES[@]}"; do
  # shellcheck disable=SC2086 # the command is a word list on purpose
  "${ROOT}/hack/timed.sh" "${phase%%|*}" ${phase#*|}
done

if [[ -n "${PREBUILD_PID}" ]]; then
  # Long done by now; its failures were the phases' to report.
  wait "${PREBUILD_PID}" || true
  PREBUILD_PID=""
  sed -n 's/^\[prebuild\] //p' "${PREBUILD_LOG}" | while IFS= read -r line; do
    echo "[ci] prebuild ${line}"
    if [[ -n "${CI_TIMES:-}" && "${line}" =~ ^([a-z-]+):\ ([0-9]+)s\ \(exit\ ([0-9]+)\)$ ]]; then
      printf 'prebuild/%s\t%s\t%s\n' "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" "${BASH_REMATCH[3]}" >>"${CI_TIMES}"
    fi
  done
fi
