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

# source_of NAME: a tree of NAME's pinned commit in $WORK/NAME (extracted or cloned once).
source_of() { sources::tree "$1" "${WORK}/$1" || die "no verified tree of $1"; }

# key_of FUNCTION NAME [OTHER...]: what decides NAME's build: the commits, the Go version and the
# shell functions that build it (their text, so that an edit elsewhere in this script, a comment
# or how the binaries are placed, rebuilds nothing).
key_of() {
  local fn="$1" n
  shift
  {
    for n in "$@"; do echo "${n} ${SOURCES_COMMIT[${n}]}"; done
    go version
    declare -f "${fn}" source_of sources::tree gobuild replace_async
  } | sha256sum | cut -c1-16
}

# build NAME KEY "BINARIES" FUNCTION: the cached build of this key (hack/operands/lib.sh), then the
# binaries linked into $OUT/bin.
build() {
  local dir="${OPERANDS_CACHE}/$1-$2" b
  operands::build "$1" "${dir}" "$3" "$4"
  for b in $3; do operands::place "${dir}/${b}" "${OUT}/bin/${b}"; done
}

gobuild() { go build -trimpath -ldflags "-s -w" "$@"; }

# batch-gateway's modules require github.com/llm-d-incubation/llm-d-async/{api,producer} v0.7.3,
# which the module proxy refuses; the pinned llm-d-async holds the same code.
replace_async() {
  local mod="$1" async="${WORK}/llm-d-async"
  (cd "${mod}" &&
    go mod edit \
      -replace "github.com/llm-d-incubation/llm-d-async/api=${async}/api" \
      -replace "github.com/llm-d-incubation/llm-d-async/producer=${async}/producer")
}

build_batch_gateway() {
  local out="$1" src="${WORK}/batch-gateway"
  source_of batch-gateway
  source_of llm-d-async
  replace_async "${src}"
  (cd "${src}" &&
    gobuild -o "${out}/batch-gateway-apiserver" ./cmd/apiserver &&
    gobuild -o "${out}/batch-gateway-processor" ./cmd/batch-processor &&
    gobuild -o "${out}/batch-gateway-gc" ./cmd/batch-gc)
}

# Upstream's e2e suite (test/e2e, a module of its own): only the full set.
build_batch_gateway_e2e() {
  local src="${WORK}/batch-gateway"
  source_of batch-gateway
  source_of llm-d-async
  replace_async "${src}/test/e2e"
  (cd "${src}/test/e2e" && go test -c -trimpath -o "$1/batch-gateway-e2e.test" .)
}

build_async() {
  source_of llm-d-async
  (cd "${WORK}/llm-d-async" && gobuild -o "$1/async-processor" ./cmd)
}

build_sim() {
  source_of llm-d-inference-sim
  (cd "${WORK}/llm-d-inference-sim" && gobuild -o "$1/llm-d-inference-sim" ./cmd/llm-d-inference-sim)
}

# Upstream's Makefile builds cmd/main.go into bin/manager, which its image runs as /manager, and
# stamps the version it logs at start; here the pinned commit (else it logs a placeholder).
build_lws() {
  source_of lws
  (cd "${WORK}/lws" &&
    go build -trimpath -ldflags "-s -w -X sigs.k8s.io/lws/pkg/version.GitCommit=${SOURCES_COMMIT[lws]}" \
      -o "$1/lws-manager" ./cmd)
}

# Upstream's Dockerfile: `go build` of the module's root into /app/main (its -X flags set the
# version, name and description to main.go's own defaults), then .well-known and .agents/skills
# copied beside it: the program reads both relative to its WORKDIR, /app.
build_calendar_agent() {
  local src="${WORK}/google-calendar-agent"
  source_of google-calendar-agent
  (cd "${src}" && gobuild -o "$1/google-calendar-agent" .)
  mkdir -p "$1/google-calendar-agent-image/app/.agents"
  cp -R "${src}/.well-known" "$1/google-calendar-agent-image/app/"
  cp -R "${src}/.agents/skills" "$1/google-calendar-agent-image/app/.agents/"
}

build_gateway() {
  source_of inference-gateway
  (cd "${WORK}/inference-gateway" && gobuild -o "$1/inference-gateway" ./cmd/gateway)
}

# Prometheus and Jaeger, for upstream's dispatcher suite and its tracing specs (test/operands):
# upstream's dev deploy runs prom/prometheus (scraping its simulator, which the dispatcher's
# prometheus-query gate asks) and jaegertracing/all-in-one (the OTLP endpoint of the gateway and
# the async processor, whose traces the OtelTraces specs read back). Both are Go programs the
# module proxy serves at these pinned versions, built as upstream's module requires them (its
# go.mod, verified against the checksum database); only the full set.
PROMETHEUS_MODULE=github.com/prometheus/prometheus
PROMETHEUS_VERSION=v0.316.0
JAEGER_MODULE=github.com/jaegertracing/jaeger
JAEGER_VERSION=v1.75.0

# Prometheus's go.mod has no replace directive: `go install` of the pinned version builds it
# exactly as its own module resolves. Without the builtinassets tag its web UI is not embedded
# (the HTTP API, all the gate uses, is).
build_prometheus() {
  GOFLAGS=-buildvcs=false GOBIN="$1" go install -trimpath -ldflags "-s -w" "${PROMETHEUS_MODULE}/cmd/prometheus@${PROMETHEUS_VERSION}"
}

# Jaeger's go.mod replaces github.com/Shopify/sarama, which `go install pkg@version` refuses: a
# module of its own requires the pinned Jaeger with the same replace (MVS then selects Jaeger's
# own requirements), and builds the v1 all-in-one (upstream's image jaegertracing/all-in-one),
# whose UI is the placeholder page without the ui tag (its query API is what the specs read).
build_jaeger() {
  local mod="${WORK}/jaeger-build"
  mkdir -p "${mod}"
  (cd "${mod}" &&
    go mod init jaeger-build >/dev/null 2>&1 &&
    go mod edit -replace github.com/Shopify/sarama=github.com/Shopify/sarama@v1.33.0 &&
    { go get "${JAEGER_MODULE}/cmd/all-in-one@${JAEGER_VERSION}" 2>go-get.log || { cat go-get.log >&2; false; }; } &&
    gobuild -o "$1/jaeger-all-in-one" "${JAEGER_MODULE}/cmd/all-in-one")
}
pinned_key() {
  { echo "$2"; go version; declare -f "$1" gobuild; } | sha256sum | cut -c1-16
}

# The backing services' programs (hack/operands/services.sh): the hack/tools/services module,
# keyed by its files like the operands.
build_services_tools() {
  (cd "${ROOT}/hack/tools/services" &&
    gobuild -o "$1/" ./s3fake ./npmregistry ./oidcissuer)
}
services_key() {
  {
    (cd "${ROOT}/hack/tools/services" && find . -name '*.go' -o -name 'go.mod' -o -name 'go.sum' | LC_ALL=C sort | xargs sha256sum)
    go version
    declare -f build_services_tools gobuild
  } | sha256sum | cut -c1-16
}

# The MCP server package, pinned (hack/operands/lib.sh), installed once from the npm registry
# into its own npm cache, which the npm registry of the services serves to the MCP pods.
install_mcp_package() {
  local cache spec
  cache="$(services::npm_cache)"
  spec="$(services::mcp_package)@$(services::mcp_version)"
  if [[ -f "${cache}/.complete" && "${FORCE}" != "true" ]]; then
    log "npm ${spec}: cached (${cache})"
    return 0
  fi
  command -v npm >/dev/null || die "npm is required to install ${spec} (Debian packages nodejs, npm)"
  log "npm ${spec}: installing into ${cache}"
  rm -rf "${cache}" "${cache}.tmp"
  mkdir -p "${cache}.tmp/prefix"
  npm install --global --prefix "${cache}.tmp/prefix" --cache "${cache}.tmp" \
    --no-audit --no-fund --no-update-notifier --loglevel=warn "${spec}" >&2 ||
    die "npm install ${spec} failed"
  touch "${cache}.tmp/.complete"
  mv "${cache}.tmp" "${cache}"
}

# Redis and PostgreSQL from the distribution's packages, when missing (needs root: apt-get).
install_packages() {
  local missing=()
  command -v redis-server >/dev/null && command -v redis-cli >/dev/null || missing+=(redis-server redis-tools)
  [[ -x "$(services::pg_bindir)/postgres" ]] || missing+=(postgresql-15)
  [[ ${#missing[@]} -eq 0 ]] && return 0
  if [[ "$(id -u)" -ne 0 ]] || ! command -v apt-get >/dev/null; then
    log "WARNING: ${missing[*]} missing; install them (Debian: apt-get install --no-install-recommends ${missing[*]}) to run the backing services"
    return 0
  fi
  log "apt-get install ${missing[*]}"
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
    die "apt-get install ${missing[*]} failed"
}

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
