#!/usr/bin/env bash
# Runs every Go fuzz target of the render paths and the engine's helpers for SECONDS each, and
# writes the suite "fuzz" (test/reliability/result) as DIR/fuzz.json: targets, execs total,
# failures. A target that fails keeps its crasher: the input Go wrote under the package's
# testdata/fuzz/<Target>/ is copied to DIR/fuzz-crashers/ and named in the suite's failures
# (commit it beside the fix: `go test` then replays it in `make test`).
#
# Usage: hack/fuzz.sh SECONDS DIR        (make fuzz FUZZTIME=SECONDS OUT=DIR)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SECONDS_EACH="${1:?usage: hack/fuzz.sh SECONDS DIR}"
DIR="${2:?usage: hack/fuzz.sh SECONDS DIR}"
export GOFLAGS="${GOFLAGS:--mod=vendor -trimpath}"
cd "${ROOT}"
mkdir -p "${DIR}"
DIR="$(cd "${DIR}" && pwd)"
LOGS="${DIR}/fuzz-logs"
mkdir -p "${LOGS}"

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
  go test "${pkg}" -run='^$' -fuzz="^${name}\$" -fuzztime="${SECONDS_EACH}s" >"${log}" 2>&1 || status=$?
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
