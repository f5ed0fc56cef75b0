#!/usr/bin/env bash
# What the backing services (hack/operands/services.sh) need, for hack/fetch-operands.sh: the
# hack/tools/services programs and their cache key, the pinned MCP server package in an npm
# cache of its own, Redis and PostgreSQL from Debian's packages. Separate because none of it is
# an operand.
# Sourced by hack/fetch-operands.sh after its settings (ROOT, FORCE, log, die),
# hack/operands/lib.sh (services::*) and hack/lib/fetch-operands-build.sh (gobuild).

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
