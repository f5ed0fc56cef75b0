#!/usr/bin/env bash
# The operands built from the sources pinned in hack/operands/sources.tsv, for
# hack/fetch-operands.sh: a verified tree of each pin, the cache key of a build (commits, Go
# version, the building functions' text), the cached build and its binaries placed, and one
# function per operand. Separate from the pinned Go modules (hack/lib/fetch-operands-pinned.sh)
# and the backing services' needs (hack/lib/fetch-operands-services.sh).
# Sourced by hack/fetch-operands.sh after its settings (ROOT, OUT, WORK, OPERANDS_CACHE, log,
# die), hack/lib/sources.sh (sources::tree, SOURCES_COMMIT) and hack/operands/lib.sh
# (operands::build, operands::place).

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
