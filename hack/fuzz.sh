#!/usr/bin/env bash
# Runs every Go fuzz target of the render paths and the engine's helpers for SECONDS each, and
# writes the suite "fuzz" (test/reliability/result) as DIR/fuzz.json: targets, execs total,
# failures. A target that fails keeps its crasher: the input Go wrote under the package's
# testdata/fuzz/<Target>/ is copied to DIR/fuzz-crashers/ and named in the suite's failures
# (commit it beside the fix: `go test` then replays it in `make test`).
#
# Each package's test binary is compiled once, with the fuzzing instrumentation (`go test -c
# -fuzz`), and runs each of its targets: `go test -fuzz` would link it again for every target.
# The instrumentation covers every package the test imports, so a cold cache compiles them all
# a second time (as many as `go vet` does); `hack/fuzz.sh build` does only that compile, so that
# `make ci` can do it ahead, beside its first phases (hack/prebuild.sh).
#
# Usage: hack/fuzz.sh SECONDS DIR        (make fuzz FUZZTIME=SECONDS OUT=DIR)
#        hack/fuzz.sh build              compile the instrumented test binaries, then drop them
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_ONLY=false
if [[ "${1:-}" == "build" ]]; then
  BUILD_ONLY=true
else
  SECONDS_EACH="${1:?usage: hack/fuzz.sh SECONDS DIR | hack/fuzz.sh build}"
  DIR="${2:?usage: hack/fuzz.sh SECONDS DIR | hack/fuzz.sh build}"
fi
export GOFLAGS="${GOFLAGS:--mod=vendor -trimpath}"
cd "${ROOT}"
# The test binaries (tens of MB each), removed on exit.
TEST_BIN="$(mktemp -d "${TMPDIR:-/tmp}/fuzz-bin.XXXXXX")"
trap 'rm -rf "${TEST_BIN}"' EXIT

# Every `func FuzzX(f *testing.F)` of every package under pkg/, as "package target".
# pkg/operator/operands's TestEveryKindIsFuzzed fails when a registered kind's operand package
# has no fuzz target.
PACKAGES=()
while read -r dir; do
  PACKAGES+=("./${dir}")
done < <(grep -rl --include='*_test.go' '^func Fuzz[A-Za-z0-9_]*(f \*testing.F)' pkg | xargs -n1 dirname | sort -u)
targets=()
for pkg in "${PACKAGES[@]}"; do
  while read -r name; do
    targets+=("${pkg} ${name}")
  done < <(grep -ho '^func Fuzz[A-Za-z0-9_]*(f \*testing.F)' "${pkg}"/*_test.go | sed 's/^func \(Fuzz[A-Za-z0-9_]*\).*/\1/' | sort)
done

# test_binary PKG: the path of PKG's instrumented test binary.
test_binary() {
  local p="${1#./}"
  echo "${TEST_BIN}/${p//\//_}.test"
}
# A package that does not compile fails each of its targets below (its error is in their logs).
compiled=0
for pkg in "${PACKAGES[@]}"; do
  [[ "${BUILD_ONLY}" == "true" ]] && echo "[fuzz] compiling ${pkg}"
  go test -c -fuzz=. -o "$(test_binary "${pkg}")" "${pkg}" >"${TEST_BIN}/compile.log" 2>&1 &&
    compiled=$((compiled + 1)) || cp "${TEST_BIN}/compile.log" "$(test_binary "${pkg}").err"
done
if [[ "${BUILD_ONLY}" == "true" ]]; then
  cat "${TEST_BIN}"/*.err 2>/dev/null || true
  [[ "${compiled}" -eq "${#PACKAGES[@]}" ]]
  exit
fi
# go test's own corpus cache of each package (what `go test -fuzz` passes the binary).
FUZZ_CACHE="$(go env GOCACHE)/fuzz"

mkdir -p "${DIR}"
DIR="$(cd "${DIR}" && pwd)"
LOGS="${DIR}/fuzz-logs"
mkdir -p "${LOGS}"

# json_escape: a string's JSON form without its quotes (control characters dropped).
json_escape() { printf '%s' "$1" | tr -d '\000-\037' | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g'; }

# failure_line: how Go prints an input's failure: a test's "file.go:N:" line or a panic.
failure_line='^\s+[a-z_]+\.go:[0-9]+:|panic:'

# deadline_race LOG: the run's only failure is Go's own fuzztime race (go.dev/issue/75804,
# fixed in Go 1.27; this toolchain is 1.26): the coordinator reports its own -fuzztime deadline
# as "context deadline exceeded" when a worker is mid-exec at that instant, on a loaded
# machine. No input failed: Go wrote no crasher and printed no test failure or panic.
deadline_race() {
  grep -qE '^\s+context deadline exceeded$' "$1" &&
    ! grep -qE "${failure_line}|testdata/fuzz/" "$1"
}

total_execs=0
failed=0
raced=0
failures=()
for t in "${targets[@]}"; do
  read -r pkg name <<<"${t}"
  log="${LOGS}/${name}-$(basename "${pkg}").log"
  echo "[fuzz] ${pkg} ${name} for ${SECONDS_EACH}s"
  status=0
  # As `go test -fuzz` runs it: in the package's folder (its testdata/fuzz corpus, where a
  # crasher is written), with go test's default timeout and its corpus cache.
  if [[ -f "$(test_binary "${pkg}").err" ]]; then
    cp "$(test_binary "${pkg}").err" "${log}"
    status=1
  else
    (cd "${pkg}" && "$(test_binary "${pkg}")" -test.run='^$' -test.fuzz="^${name}\$" -test.fuzztime="${SECONDS_EACH}s" \
      -test.fuzzcachedir="${FUZZ_CACHE}/$(go list -f '{{.ImportPath}}' .)" -test.paniconexit0 -test.timeout=10m0s) >"${log}" 2>&1 || status=$?
  fi
  # The last progress line has the target's total: "fuzz: elapsed: 10s, execs: 1234 (...)".
  execs="$(grep -o 'execs: [0-9]*' "${log}" | tail -1 | awk '{print $2}' || true)"
  execs="${execs:-0}"
  total_execs=$((total_execs + execs))
  echo "[fuzz]   ${execs} execs, exit ${status}"
  if [[ "${status}" -ne 0 ]] && deadline_race "${log}"; then
    echo "[fuzz]   not a failure: Go's fuzztime deadline race (go.dev/issue/75804), no input failed"
    raced=$((raced + 1))
  elif [[ "${status}" -ne 0 ]]; then
    failed=$((failed + 1))
    crasher="$(grep -o 'testdata/fuzz/'"${name}"'/[0-9a-f]*' "${log}" | tail -1 || true)"
    line="${pkg} ${name}: $(grep -m1 -E "${failure_line}" "${log}" | sed 's/^[[:space:]]*//' || echo "exit ${status}, see ${log}")"
    if [[ -n "${crasher}" && -f "${pkg}/${crasher}" ]]; then
      mkdir -p "${DIR}/fuzz-crashers"
      cp "${pkg}/${crasher}" "${DIR}/fuzz-crashers/${name}-$(basename "${crasher}")"
      line="${line} (crasher ${pkg#./}/${crasher}, copied to ${DIR}/fuzz-crashers)"
    fi
    failures+=("${line}")
  fi
done

{
  printf '{\n  "name": "fuzz",\n  "passed": %s,\n  "metrics": [\n' "$([[ ${failed} -eq 0 ]] && echo true || echo false)"
  printf '    {"name": "targets", "value": %d},\n' "${#targets[@]}"
  printf '    {"name": "execs total", "value": %d},\n' "${total_execs}"
  printf '    {"name": "seconds per target", "value": %d, "unit": "s"},\n' "${SECONDS_EACH}"
  printf '    {"name": "runs ended by Go'"'"'s fuzztime race (go.dev/issue/75804)", "value": %d},\n' "${raced}"
  printf '    {"name": "failures", "value": %d}\n  ]' "${failed}"
  if [[ ${failed} -gt 0 ]]; then
    printf ',\n  "failures": [\n'
    for i in "${!failures[@]}"; do
      sep=","; [[ $i -eq $((${#failures[@]} - 1)) ]] && sep=""
      printf '    "%s"%s\n' "$(json_escape "${failures[$i]}")" "${sep}"
    done
    printf '  ]'
  fi
  printf '\n}\n'
} >"${DIR}/fuzz.json"
echo "[fuzz] ${#targets[@]} targets, ${total_execs} execs, ${failed} failed: ${DIR}/fuzz.json"
[[ ${failed} -eq 0 ]]
