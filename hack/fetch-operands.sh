#!/usr/bin/env bash
# make fetch-operands: the operands' real programs, built from the upstream sources pinned in
# hack/operands/sources.tsv, and the image table that tells the local cluster's real-pod agent
# (hack/tools/realpods) which host binary stands for which image.
#
# Sources: when OPERAND_SOURCES names a folder of `git archive` tarballs (the layout of the
# shared operands folder: <archive> of sources.tsv), each is extracted and its commit checked
# with `git get-tar-commit-id`; else each pinned commit is fetched from its repository
# (`git fetch --depth 1 <repo> <commit>`) and checked with `git rev-parse HEAD`. A user's clone
# needs nothing but the internet; only .ci/run points OPERAND_SOURCES at the shared folder.
#
# Builds (Go, the toolchain on PATH, GOTOOLCHAIN=local, modules from the module proxy):
#   batch-gateway-apiserver, batch-gateway-processor, batch-gateway-gc, batch-gateway-e2e.test
#     (upstream's e2e suite; both modules with `replace` directives pointing
#     github.com/llm-d-incubation/llm-d-async/{api,producer}, which the module proxy refuses,
#     at the pinned llm-d-async's api/ and producer/, the same code under its new path)
#   async-processor (llm-d-async ./cmd), llm-d-inference-sim, inference-gateway (./cmd/gateway)
#   prometheus, jaeger-all-in-one (pinned versions from the module proxy, not sources.tsv: the
#     Prometheus and Jaeger of upstream's dev deploy, for its dispatcher and tracing tests; full
#     set only)
#   lws-manager (lws ./cmd: the LeaderWorkerSet controller, upstream's `make build` of the
#     /manager its Dockerfile's ENTRYPOINT runs)
#   google-calendar-agent (the A2A agent of deploy/examples/agent_google_calendar.yaml, its
#     Dockerfile's /app/main), with the files its image holds beside it in /app (the agent card
#     it serves, .well-known/agent-card.json, and its skills, .agents/skills), placed in
#     $OUTPUT_DIR/operands/images/google-calendar-agent/app for the image table's files column
#
# The builds are cached outside the clone, in OPERANDS_CACHE
# [${XDG_CACHE_HOME:-$HOME/.cache}/llm-infra-operator/operands], one folder per operand named by
# a key: the hash of its commit (and of the commits it replaces modules with), `go version` and
# the functions of this script that build it. A clean clone on the same machine reuses them; a
# changed pin, Go or build function builds anew. $OUTPUT_DIR/operands/bin/ gets hard links to (or copies of) the cached binaries and
# $OUTPUT_DIR/operands/images.tsv the image table (hack/operands/images.sh).
#
# Then what the backing services (hack/operands/services.sh) need: the hack/tools/services
# programs (cached the same way), the pinned MCP server package in an npm cache of its own (from
# the npm registry, once), and Redis and PostgreSQL from Debian's packages when missing.
#
# Environment (defaults in brackets):
#   OPERAND_SOURCES []        folder of source archives; empty: clone from upstream
#   OPERANDS_CACHE [see above]
#   OUTPUT_DIR [<repo>/_output]
#   FORCE [false]             rebuild, ignoring the cache
#   OPERANDS_SET [full]       full: every build above; short: only what test-operands-short runs
#                             (batch-gateway's apiserver, processor and gc, llm-d-inference-sim,
#                             inference-gateway, lws-manager, the services), not upstream's e2e
#                             suite, the async processor, Prometheus nor Jaeger, whose images
#                             then stay simulated
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SOURCES_FILE="${ROOT}/hack/operands/sources.tsv"
# shellcheck source=hack/operands/lib.sh
source "${ROOT}/hack/operands/lib.sh"
OUTPUT_DIR="${OUTPUT_DIR:-${ROOT}/_output}"
OUT="${OUTPUT_DIR}/operands"
OPERAND_SOURCES="${OPERAND_SOURCES:-}"
FORCE="${FORCE:-false}"
OPERANDS_SET="${OPERANDS_SET:-full}"

# The operands are their own modules: never the operator's vendor/ or a go.work; never a
# toolchain download.
export GOFLAGS="-mod=mod -buildvcs=false"
export GOWORK=off
export GOTOOLCHAIN=local
export CGO_ENABLED=0

log() { echo "[fetch-operands] $*"; }
die() { echo "[fetch-operands] ERROR: $*" >&2; exit 1; }

# The pins, and fetching a pinned tree verified: hack/lib/sources.sh (shared with
# hack/bench-anchors.sh).
# shellcheck source=hack/lib/sources.sh
source "${ROOT}/hack/lib/sources.sh"
sources_log() { log "$*"; }
operands_log() { log "$*"; }
sources::load "${SOURCES_FILE}" || exit 1

mkdir -p "${OPERANDS_CACHE}" "${OUT}/bin"
# One fetch at a time per cache (a clean clone's CI and a developer may start together); the
# second waits, then finds the builds cached.
exec 9>"${OPERANDS_CACHE}/.lock"
flock 9

WORK="$(mktemp -d "${OPERANDS_CACHE}/.work.XXXXXX")"
trap 'rm -rf "${WORK}"' EXIT

# The builds, by responsibility: the operands from sources.tsv, the pinned Go modules
# (Prometheus, Jaeger), the backing services' programs and packages.
# shellcheck source=hack/lib/fetch-operands-build.sh
source "${ROOT}/hack/lib/fetch-operands-build.sh"
# shellcheck source=hack/lib/fetch-operands-pinned.sh
source "${ROOT}/hack/lib/fetch-operands-pinned.sh"
# shellcheck source=hack/lib/fetch-operands-services.sh
source "${ROOT}/hack/lib/fetch-operands-services.sh"

command -v go >/dev/null || die "go is required"
case "${OPERANDS_SET}" in
  full | short) ;;
  *) die "OPERANDS_SET must be full or short, not '${OPERANDS_SET}'" ;;
esac
start=${SECONDS}
build batch-gateway "$(key_of build_batch_gateway batch-gateway llm-d-async)" \
  "batch-gateway-apiserver batch-gateway-processor batch-gateway-gc" build_batch_gateway
if [[ "${OPERANDS_SET}" == "full" ]]; then
  build batch-gateway-e2e "$(key_of build_batch_gateway_e2e batch-gateway llm-d-async)" \
    "batch-gateway-e2e.test" build_batch_gateway_e2e
  build llm-d-async "$(key_of build_async llm-d-async)" "async-processor" build_async
  build prometheus "$(pinned_key build_prometheus "${PROMETHEUS_MODULE}@${PROMETHEUS_VERSION}")" "prometheus" build_prometheus
  build jaeger "$(pinned_key build_jaeger "${JAEGER_MODULE}@${JAEGER_VERSION}")" "jaeger-all-in-one" build_jaeger
else
  # A full set's binaries left in $OUT/bin by an earlier run would make the short set's image
  # table differ from one run to the next.
  rm -f "${OUT}/bin/batch-gateway-e2e.test" "${OUT}/bin/async-processor" "${OUT}/bin/prometheus" "${OUT}/bin/jaeger-all-in-one"
fi
build llm-d-inference-sim "$(key_of build_sim llm-d-inference-sim)" "llm-d-inference-sim" build_sim
build inference-gateway "$(key_of build_gateway inference-gateway)" "inference-gateway" build_gateway
build lws "$(key_of build_lws lws)" "lws-manager" build_lws
agent_key="$(key_of build_calendar_agent google-calendar-agent)"
build google-calendar-agent "${agent_key}" "google-calendar-agent" build_calendar_agent
# The image's files beside the binaries, in the output folder the image table names.
rm -rf "${OUT}/images/google-calendar-agent"
mkdir -p "${OUT}/images"
cp -R "${OPERANDS_CACHE}/google-calendar-agent-${agent_key}/google-calendar-agent-image" "${OUT}/images/google-calendar-agent"
build services-tools "$(services_key)" "s3fake npmregistry oidcissuer" build_services_tools
install_mcp_package
install_packages

"${ROOT}/hack/operands/images.sh" "${OUT}/bin" >"${OUT}/images.tsv.tmp"
mv "${OUT}/images.tsv.tmp" "${OUT}/images.tsv"
log "${OPERANDS_SET} set: binaries in ${OUT}/bin, image table ${OUT}/images.tsv ($((SECONDS - start))s)"
