#!/usr/bin/env bash
# The stamps and the cache of hack/build-cluster-binaries.sh: a module's stamp (Go version, its
# build function's text, its go.mod, go.sum and sources), whether its outputs are up to date,
# and building a module once per stamp, locked per output directory, linked from or kept in
# CLUSTER_BIN_CACHE. Separate from what each module builds
# (hack/lib/cluster-binaries-modules.sh), which these only call.
# Sourced by hack/build-cluster-binaries.sh after its settings (BIN, STAMPS, FORCE,
# CLUSTER_BIN_CACHE, log).

# stamp_of MODULE_DIR CMD...: hash of everything that decides what a module builds: the Go
# version, the module's go.mod, go.sum and Go sources, and the text of its build function (not of
# this whole script: an edit elsewhere here rebuilds nothing).
stamp_of() {
  local dir="$1"; shift
  {
    go version
    echo "$*"
    declare -f "$1"
    [[ "$1" == "build_kube" ]] && declare -f kube_ldflags && kube_ldflags
    # Sorted so the hash does not depend on the filesystem's order.
    (cd "${dir}" && find . -name '*.go' -o -name 'go.mod' -o -name 'go.sum' | LC_ALL=C sort | xargs sha256sum)
  } | sha256sum | cut -d' ' -f1
}

# up_to_date NAME STAMP OUTPUT...: true when every output exists and the stamp recorded at
# the last successful build is STAMP.
up_to_date() {
  local name="$1" stamp="$2"; shift 2
  [[ "${FORCE}" == "true" ]] && return 1
  local f
  for f in "$@"; do [[ -e "${BIN}/${f}" ]] || return 1; done
  [[ -f "${STAMPS}/${name}" ]] && [[ "$(cat "${STAMPS}/${name}")" == "${stamp}" ]]
}

# build_module NAME MODULE_DIR "OUTPUTS" CMD...: runs CMD in MODULE_DIR
# unless up to date, then records the stamp. The stamp is written last, so
# an interrupted build is redone next time. One build of a module at a time per output
# directory (e2e and bench scripts may start together, and `make ci` builds ahead beside its
# phases: hack/prebuild.sh): the second waits, then finds it up to date; other modules go on.
build_module() {
  (
    exec 9>"${STAMPS}/$1.lock"
    flock 9
    build_module_locked "$@"
  )
}
build_module_locked() {
  local name="$1" dir="$2" outputs="$3"; shift 3
  local stamp cached f
  stamp="$(stamp_of "${dir}" "$@")"
  # shellcheck disable=SC2086 # outputs is a space-separated list of names
  if up_to_date "${name}" "${stamp}" ${outputs}; then
    log "${name}: up to date (${outputs})"
    return 0
  fi
  # An output may be in a folder of BIN (another KUBE_VERSION's control plane).
  cached="${CLUSTER_BIN_CACHE}/${name}-${stamp:0:16}"
  if [[ "${FORCE}" != "true" && -f "${cached}/.complete" ]]; then
    for f in ${outputs}; do
      mkdir -p "$(dirname "${BIN}/${f}")"
      ln -sfn "${cached}/${f}" "${BIN}/${f}"
    done
    echo "${stamp}" >"${STAMPS}/${name}"
    log "${name}: from the cache ${cached}"
    return 0
  fi
  log "${name}: building ${outputs} ..."
  local start=${SECONDS}
  for f in ${outputs}; do rm -f "${BIN}/${f}"; done
  (cd "${dir}" && "$@")
  echo "${stamp}" >"${STAMPS}/${name}"
  # Kept for other clones: copied to a temporary folder, renamed when complete.
  mkdir -p "${CLUSTER_BIN_CACHE}"
  rm -rf "${cached}.tmp.$$" && mkdir -p "${cached}.tmp.$$"
  for f in ${outputs}; do
    mkdir -p "$(dirname "${cached}.tmp.$$/${f}")"
    cp "${BIN}/${f}" "${cached}.tmp.$$/${f}"
  done
  touch "${cached}.tmp.$$/.complete"
  if [[ -f "${cached}/.complete" ]]; then
    rm -rf "${cached}.tmp.$$" # another clone kept the same build meanwhile (links may point there)
  else
    rm -rf "${cached}" && mv "${cached}.tmp.$$" "${cached}"
  fi
  log "${name}: done in $((SECONDS - start))s"
}
