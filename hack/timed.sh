#!/usr/bin/env bash
# hack/timed.sh PHASE CMD...: run CMD and print how long it took, `[ci] PHASE: Ns (exit RC)`, so a
# `make ci` log shows the time of each phase; with CI_TIMES set, also appended there as
# `PHASE<TAB>SECONDS<TAB>RC`. Exits with CMD's status.
set -uo pipefail
phase="$1"; shift
start=${SECONDS}
"$@"
rc=$?
echo "[ci] ${phase}: $((SECONDS - start))s (exit ${rc})"
[[ -n "${CI_TIMES:-}" ]] && printf '%s\t%s\t%s\n' "${phase}" "$((SECONDS - start))" "${rc}" >>"${CI_TIMES}"
exit "${rc}"
