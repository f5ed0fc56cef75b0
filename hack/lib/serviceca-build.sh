#!/usr/bin/env bash
# The service CA's build, for hack/openshift/serviceca.sh: upstream's `service-ca-operator` from
# the pinned tree with this repository's library-go, cached in OPERANDS_CACHE under a key of what
# makes the build (serviceca::_build_tree, serviceca::_library_go), and servicecatool, into
# $OUTPUT_DIR/bin (serviceca::build). Separate from running them (hack/lib/serviceca-run.sh):
# hack/build-cluster-binaries.sh builds, hack/local-cluster.sh runs.
# Sourced by hack/openshift/serviceca.sh after its settings (SERVICECA_ROOT, SERVICECA_NAME,
# serviceca::_log, serviceca::_bin, serviceca::_pin), hack/lib/sources.sh (sources::tree,
# SOURCES_COMMIT) and hack/operands/lib.sh (operands::*, OPERANDS_CACHE).

# The library-go version this repository builds with: the one the build puts in place of
# upstream's (see the header of hack/openshift/serviceca.sh).
serviceca::_library_go() {
  awk '$1 == "github.com/openshift/library-go" { print $2; exit }' "${SERVICECA_ROOT}/go.mod"
}

# serviceca::_build_tree OUT: builds the controllers' binary into OUT and copies the operator's
# manifests (bindata/assets) beside it, for `servicecatool setup`. Runs in a subshell of
# serviceca::build, in SERVICECA_WORK.
serviceca::_build_tree() {
  local out="$1" src="${SERVICECA_WORK}/${SERVICECA_NAME}"
  sources::tree "${SERVICECA_NAME}" "${src}" || return 1
  (
    cd "${src}" &&
      go mod edit -replace "github.com/openshift/library-go=github.com/openshift/library-go@$(serviceca::_library_go)" &&
      nice -n 10 go build -trimpath -ldflags "-s -w" -o "${out}/${SERVICECA_NAME}" ./cmd/service-ca-operator
  ) || return 1
  cp -r "${src}/bindata/assets" "${out}/service-ca-assets"
}

# serviceca::build: `service-ca-operator` and its manifests (cached, see the header of
# hack/openshift/serviceca.sh) and servicecatool (this repository's code, vendored: the Go build
# cache makes a rebuild cheap) in $OUTPUT_DIR/bin.
serviceca::build() {
  local bin key dir
  bin="$(serviceca::_bin)"
  serviceca::_pin || return 1
  command -v go >/dev/null || { serviceca::_log "ERROR: go is required"; return 1; }
  key="$({
    echo "${SERVICECA_NAME} ${SOURCES_COMMIT[${SERVICECA_NAME}]} library-go $(serviceca::_library_go)"
    go version
    declare -f serviceca::_build_tree sources::tree
  } | sha256sum | cut -c1-16)"
  dir="${OPERANDS_CACHE}/${SERVICECA_NAME}-${key}"
  mkdir -p "${OPERANDS_CACHE}" "${bin}" || return 1
  if ! operands::cached "${dir}" "${SERVICECA_NAME}" service-ca-assets; then
    (
      # The upstream tree is its own module: never this repository's vendor/ or a go.work, never
      # a toolchain download.
      export GOFLAGS="-mod=mod -buildvcs=false" GOWORK=off GOTOOLCHAIN=local CGO_ENABLED=0
      declare -F operands_log >/dev/null || operands_log() { serviceca::_log "$*"; }
      # One build at a time per cache, as hack/fetch-operands.sh: the second waits, then finds
      # it cached.
      exec 9>"${OPERANDS_CACHE}/.lock"
      flock 9
      SERVICECA_WORK="$(mktemp -d "${OPERANDS_CACHE}/.work.XXXXXX")" || exit 1
      trap 'rm -rf "${SERVICECA_WORK}"' EXIT
      operands::build "${SERVICECA_NAME}" "${dir}" "${SERVICECA_NAME} service-ca-assets" serviceca::_build_tree
    ) || { serviceca::_log "ERROR: building ${SERVICECA_NAME} failed"; return 1; }
  fi
  operands::place "${dir}/${SERVICECA_NAME}" "${bin}/${SERVICECA_NAME}" &&
    rm -rf "${bin}/service-ca-assets" && cp -r "${dir}/service-ca-assets" "${bin}/service-ca-assets" || return 1
  # With the flags `make test` compiles this repository with (Makefile: GOFLAGS, cgo as the
  # toolchain defaults it), not a caller's (build-cluster-binaries: -mod=mod, no cgo): the build
  # then reuses the packages make test compiled, which saves about a minute on a cold CI.
  (cd "${SERVICECA_ROOT}" && env -u CGO_ENABLED GOFLAGS="-mod=vendor -trimpath" GOWORK=off \
    nice -n 10 go build -o "${bin}/servicecatool" ./hack/openshift/servicecatool) ||
    { serviceca::_log "ERROR: building servicecatool failed"; return 1; }
}
