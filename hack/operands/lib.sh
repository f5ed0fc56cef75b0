#!/usr/bin/env bash
# What hack/fetch-operands.sh, hack/operands/services.sh and the scripts that use real pods share:
# where the builds and the MCP package live, each instance's loopback address for the backing
# services, and whether this machine has what real pods and the services need. Source it after
# hack/lib/instance.sh (instance::use); functions services::*.

SERVICES_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OPERANDS_CACHE="${OPERANDS_CACHE:-${XDG_CACHE_HOME:-${HOME}/.cache}/llm-infra-operator/operands}"

# Builds of upstream programs are cached outside the clone (fetch-operands.sh, the service CA of
# hack/openshift/serviceca.sh): OPERANDS_CACHE/<name>-<key>, where the key is the caller's hash of
# what decides the build (commits, `go version`, the text of the functions that build it). A
# caller may define operands_log MESSAGE (default: to stderr).

operands::_log() {
  if declare -F operands_log >/dev/null; then operands_log "$*"; else echo "$*" >&2; fi
}

# operands::cached DIR BINARIES...: the cache folder DIR holds a complete build with every one of
# BINARIES (never with FORCE=true).
operands::cached() {
  local dir="$1" b
  shift
  [[ "${FORCE:-false}" == "true" ]] && return 1
  [[ -f "${dir}/.complete" ]] || return 1
  for b in "$@"; do [[ -x "${dir}/${b}" ]] || return 1; done
}

# operands::build NAME DIR "BINARIES" FUNCTION: unless DIR is cached, `FUNCTION TMP` builds into a
# temporary folder, which becomes DIR only when complete (an interrupted build is redone next
# time). FUNCTION is called outside any condition, so a caller under `set -e` stops at its first
# failing command; one without it gets a non-zero return.
operands::build() {
  local name="$1" dir="$2" bins="$3" fn="$4" tmp="$2.tmp.$$" start=${SECONDS} rc
  # shellcheck disable=SC2086 # bins is a word list
  if operands::cached "${dir}" ${bins}; then
    operands::_log "${name}: cached (${dir})"
    return 0
  fi
  rm -rf "${tmp}" && mkdir -p "${tmp}" || return 1
  operands::_log "${name}: building ${bins} ..."
  "${fn}" "${tmp}"
  rc=$?
  if [[ "${rc}" -ne 0 ]]; then
    rm -rf "${tmp}"
    operands::_log "${name}: build failed (status ${rc})"
    return 1
  fi
  basename "${dir}" >"${tmp}/.complete"
  rm -rf "${dir}" && mv "${tmp}" "${dir}" || return 1
  operands::_log "${name}: built in $((SECONDS - start))s"
}

# operands::place CACHED TARGET: the cached file at TARGET, as a hard link (a copy when the cache
# is on another filesystem), never a symbolic link: the pods run these as user 65532, who may not
# traverse the cache's parents (~ is 0700 for root).
operands::place() {
  rm -f "$2"
  ln "$1" "$2" 2>/dev/null || cp "$1" "$2"
}

# The MCP server package the samples and suites run with npx, pinned.
SERVICES_MCP_PACKAGE="@modelcontextprotocol/server-everything"
SERVICES_MCP_VERSION="2026.8.31"
# Debian packages of the services: the distribution's major versions.
SERVICES_APT_PACKAGES=(redis-server postgresql-15)

# The namespace of the Services that stand for them in the cluster (hack/operands/services.sh).
SERVICES_NAMESPACE=operand-services

SERVICES_REDIS_PORT=6379
SERVICES_POSTGRESQL_PORT=5432
SERVICES_S3_PORT=9000
SERVICES_NPM_PORT=4873
SERVICES_OIDC_PORT=5556

# services::dns NAME: the name a pod reaches service NAME by.
services::dns() { echo "$1.${SERVICES_NAMESPACE}.svc.cluster.local"; }

services::mcp_package() { echo "${SERVICES_MCP_PACKAGE}"; }
services::mcp_version() { echo "${SERVICES_MCP_VERSION}"; }

# services::ip: the instance's own loopback address, 127.200.<offset>.<row of the instance in
# hack/lib/instance.sh>: every service listens on its usual port there, so no two instances or
# worktrees (LOCAL_CLUSTER_PORT_OFFSET) meet. Outside the cluster's Service (127.96/16) and pod
# (127.16/16) ranges.
services::ip() {
  local row i=0
  for row in "${INSTANCES[@]}"; do
    i=$((i + 1))
    [[ "${row%% *}" == "${LOCAL_CLUSTER_INSTANCE}" ]] && break
  done
  echo "127.200.${LOCAL_CLUSTER_PORT_OFFSET:-0}.${i}"
}

# services::tool NAME: a program of the hack/tools/services module, built by make fetch-operands.
services::tool() { echo "${OUTPUT_DIR}/operands/bin/$1"; }

# services::npm_cache: the npm cache holding the MCP package and its dependencies.
services::npm_cache() {
  local name="${SERVICES_MCP_PACKAGE#@}"
  echo "${OPERANDS_CACHE}/npm/${name//\//-}-${SERVICES_MCP_VERSION}"
}

services::redis_server() { command -v redis-server || echo /usr/bin/redis-server; }

# services::pg_bindir: the newest installed PostgreSQL's programs (Debian: /usr/lib/postgresql/N/bin).
services::pg_bindir() {
  local d
  d="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1)"
  echo "${d:-/usr/lib/postgresql/15/bin}"
}

# services::check_installed: every program the services need is there; else SERVICES_MISSING
# says what and how to get it.
services::check_installed() {
  local missing=()
  command -v redis-server >/dev/null || missing+=("redis-server (Debian package redis-server)")
  command -v redis-cli >/dev/null || missing+=("redis-cli (Debian package redis-tools)")
  [[ -x "$(services::pg_bindir)/postgres" ]] || missing+=("PostgreSQL (Debian package postgresql-15)")
  local t
  for t in s3fake npmregistry oidcissuer; do
    [[ -x "$(services::tool "${t}")" ]] || missing+=("$(services::tool "${t}")")
  done
  [[ -d "$(services::npm_cache)" ]] || missing+=("the MCP package's npm cache $(services::npm_cache)")
  SERVICES_MISSING=""
  [[ ${#missing[@]} -eq 0 ]] && return 0
  SERVICES_MISSING="missing: ${missing[*]}; run make fetch-operands (it installs them)"
  return 1
}

# services::real_pods_possible: this machine and checkout can run the operands' pods as real
# processes; else SERVICES_REAL_PODS_WHY says why not.
services::real_pods_possible() {
  SERVICES_REAL_PODS_WHY=""
  if [[ ! -f "${SERVICES_ROOT}/hack/tools/realpods/go.mod" ]]; then
    SERVICES_REAL_PODS_WHY="this checkout has no real-pod agent (hack/tools/realpods)"
  elif [[ "$(uname -s)" != Linux ]]; then
    SERVICES_REAL_PODS_WHY="real pods need Linux namespaces; this is $(uname -s)"
  elif [[ "$(id -u)" -ne 0 ]]; then
    SERVICES_REAL_PODS_WHY="real pods need root (namespaces, mounts, user 65532); run as root or REAL_PODS=false"
  elif ! command -v unshare >/dev/null || ! command -v ip >/dev/null; then
    SERVICES_REAL_PODS_WHY="real pods need unshare (util-linux) and ip (iproute2)"
  fi
  [[ -z "${SERVICES_REAL_PODS_WHY}" ]]
}
