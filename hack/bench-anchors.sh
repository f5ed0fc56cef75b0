#!/usr/bin/env bash
# make bench-anchors: the upstream operators this project replaces, measured side by side with
# it on one local cluster (the bench's, hack/bench.sh): each anchor of hack/bench/anchors.tsv
# built from its pinned commit, run as a local process as its own ServiceAccount, on the
# workloads it supports, then this operator on the same workload:
#   lws      the LeaderWorkerSetOperator `cluster` (openshift/lws-operator)
#   batch    N LLMBatchGateways in N/10 namespaces (opendatahub-io/llm-d-batch-gateway-operator,
#            which renders upstream's Helm charts from the pinned batch-gateway and llm-d-async)
#   gateway  N Gateways in N/10 namespaces (inference-gateway/operator)
# Requests are counted from the audit log by each side's user; RSS (VmRSS, VmHWM, RssAnon) and CPU come
# from /proc. The bench (test/bench/cmd/bench, scenario "anchors") prints one table with
# ours/anchor per measure and writes it as _output/bench/anchors-<commit>-<time>.json (and
# .txt) next to the bench's results. A side that fails a workload is named with how.
#
# Sources: hack/lib/sources.sh, the same fetch and verification as `make fetch-operands`:
# OPERAND_SOURCES=<folder of archives> or a clone of each pinned commit. Builds (Go on PATH,
# GOTOOLCHAIN=local, modules from the module proxy) are cached in ANCHORS_CACHE
# [${XDG_CACHE_HOME:-$HOME/.cache}/llm-infra-operator/anchors], keyed by the commit, `go version`
# and the build function; BENCH_ANCHORS_DIR [_output/bench/anchors] gets bin/<anchor> and
# src/<name> (the trees: CRDs, charts) for the bench.
#
# Environment (defaults in brackets), besides hack/bench.sh's (cluster ports: set
# LOCAL_CLUSTER_PORT_OFFSET to run next to another checkout's bench):
#   BENCH_ANCHOR_KINDS [lws,batch,gateway]
#   BENCH_ANCHOR_BATCH_SIZES [100,500]  BENCH_ANCHOR_GATEWAY_SIZES [100,500]
#   BENCH_ANCHOR_QUIET_SECONDS [60]     each side's quiet window after convergence
#   BENCH_CONVERGE_MINUTES [20]         how long a side may take to converge
#   BENCH_CPU_PROFILE_SECONDS [0]       above 0: a CPU profile of this operator over that many
#                                       seconds from each batch or gateway workload's creation
#                                       (its top functions a finding; the profile kept)
#   ANCHORS_BUILD_ONLY [false]          build and stop (no cluster)
#   BENCH_SCENARIOS []                  bench scenarios to run first on the same cluster (e.g. 8)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUTPUT_DIR="${OUTPUT_DIR:-${ROOT}/_output}"
ANCHORS_CACHE="${ANCHORS_CACHE:-${XDG_CACHE_HOME:-${HOME}/.cache}/llm-infra-operator/anchors}"
export BENCH_ANCHORS_DIR="${BENCH_ANCHORS_DIR:-${OUTPUT_DIR}/bench/anchors}"

log() { echo "[bench-anchors] $*" >&2; }
die() { echo "[bench-anchors] ERROR: $*" >&2; exit 1; }

# shellcheck source=hack/lib/sources.sh
source "${ROOT}/hack/lib/sources.sh"
sources_log() { log "$*"; }
# The anchors, and the operands' pins for the two charts the batch gateway's anchor renders.
sources::load "${ROOT}/hack/operands/sources.tsv" || exit 1
sources::load "${ROOT}/hack/bench/anchors.tsv" || exit 1

command -v go >/dev/null || die "go is required"
mkdir -p "${ANCHORS_CACHE}/src" "${BENCH_ANCHORS_DIR}/bin" "${BENCH_ANCHORS_DIR}/src"
exec 9>"${ANCHORS_CACHE}/.lock"
flock 9

# tree NAME: the verified tree of NAME's pinned commit, cached by commit; printed.
tree() {
  local dir
  dir="${ANCHORS_CACHE}/src/$1-$(sources::commit "$1")" || exit 1
  sources::tree "$1" "${dir}" || die "no verified tree of $1"
  echo "${dir}"
}

# build_anchor NAME PACKAGE OUT: the anchor's command PACKAGE built from its tree into OUT. The
# anchors are modules of their own: never this repository's vendor/ or a go.work.
build_anchor() {
  local src
  src="$(tree "$1")"
  (cd "${src}" &&
    GOFLAGS="-mod=mod -buildvcs=false" GOWORK=off GOTOOLCHAIN=local CGO_ENABLED=0 \
      go build -trimpath -ldflags "-s -w" -o "$3" "$2")
}

# anchor NAME PACKAGE: NAME's binary, built unless cached, linked into BENCH_ANCHORS_DIR/bin,
# and its tree (its CRDs) as BENCH_ANCHORS_DIR/src/NAME.
anchor() {
  local name="$1" pkg="$2" key dir start=${SECONDS}
  key="$( {
    echo "${name} $(sources::commit "${name}") ${pkg}"
    go version
    declare -f build_anchor tree sources::tree
  } | sha256sum | cut -c1-16)"
  dir="${ANCHORS_CACHE}/${name}-${key}"
  if [[ -x "${dir}/${name}" && "${FORCE:-false}" != "true" ]]; then
    log "${name}: cached (${dir})"
  else
    rm -rf "${dir}.tmp" && mkdir -p "${dir}.tmp"
    log "${name}: building ${pkg} ..."
    build_anchor "${name}" "${pkg}" "${dir}.tmp/${name}" || die "${name}: build failed"
    rm -rf "${dir}" && mv "${dir}.tmp" "${dir}"
    log "${name}: built in $((SECONDS - start))s"
  fi
  rm -f "${BENCH_ANCHORS_DIR}/bin/${name}"
  ln "${dir}/${name}" "${BENCH_ANCHORS_DIR}/bin/${name}" 2>/dev/null || cp "${dir}/${name}" "${BENCH_ANCHORS_DIR}/bin/${name}"
  link_tree "${name}"
}

# link_tree NAME: BENCH_ANCHORS_DIR/src/NAME is NAME's cached tree; NAME.commit its commit.
link_tree() {
  ln -sfn "$(tree "$1")" "${BENCH_ANCHORS_DIR}/src/$1"
  sources::commit "$1" >"${BENCH_ANCHORS_DIR}/src/$1.commit"
}

anchor anchor-lws-operator ./cmd/lws-operator
anchor anchor-batch-gateway-operator ./cmd
anchor anchor-inference-gateway-operator ./cmd
# The charts the batch gateway's anchor renders at run time (its image copies them to /charts).
link_tree batch-gateway
link_tree llm-d-async
exec 9>&-

if [[ "${ANCHORS_BUILD_ONLY:-false}" == "true" ]]; then
  log "built into ${BENCH_ANCHORS_DIR}"
  exit 0
fi
# Other scenarios named in BENCH_SCENARIOS run first, on the same cluster.
export BENCH_SCENARIOS="${BENCH_SCENARIOS:+${BENCH_SCENARIOS},}anchors"
exec "${ROOT}/hack/bench.sh"
