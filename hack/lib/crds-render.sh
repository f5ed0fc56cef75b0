#!/usr/bin/env bash
# The render side of hack/optional-crds.sh: which Go module, directory and files each set's YAML
# comes from, the set names (`all` expanded), and rendering a set into the cache
# ($OUTPUT_DIR/crds) with its object list and module@version. Separate because it needs no
# cluster: `render` uses only this, and every other command renders first.
# Sourced by hack/optional-crds.sh after its settings (ROOT, CACHE, TOOLS_MODULE, RENDER_REV,
# SETS, KNOWN_SETS, log, die).

# module_of SET: the Go module whose zip holds the set's YAML.
module_of() {
  case "$1" in
    gateway-api) echo "sigs.k8s.io/gateway-api" ;;
    monitoring | monitoring-core) echo "github.com/prometheus-operator/prometheus-operator" ;;
    *) die "unknown set '$1' (sets: ${KNOWN_SETS})" ;;
  esac
}

# source_dir_of SET: the directory inside the module with the set's YAML.
source_dir_of() {
  case "$1" in
    gateway-api) echo "config/crd/standard" ;;
    monitoring | monitoring-core) echo "example/prometheus-operator-crd" ;;
  esac
}

# source_files_of SET: the set's files in that directory (globs).
source_files_of() {
  case "$1" in
    monitoring-core)
      printf '%s\n' monitoring.coreos.com_servicemonitors.yaml \
        monitoring.coreos.com_podmonitors.yaml monitoring.coreos.com_prometheusrules.yaml
      ;;
    *) echo '*.yaml' ;;
  esac
}

# cache_base SET: the set's rendered files, keyed by the tools module's go.mod and go.sum
# (the pins, read as bytes, not parsed): a changed pin renders again, and a cached render
# needs no toolchain and no network.
cache_base() {
  [[ -f "${TOOLS_MODULE}/go.mod" ]] || die "${TOOLS_MODULE}/go.mod is missing"
  local key
  key="$(cat "${TOOLS_MODULE}/go.mod" "${TOOLS_MODULE}/go.sum" | sha256sum)"
  echo "${CACHE}/$1-${key:0:16}.r${RENDER_REV}"
}

# pinned SET: module@version of a rendered set, as its render resolved it.
pinned() { cat "$(cache_base "$1").version"; }

# expand SET...: the sets named, with `all` expanded, each once.
expand() {
  [[ $# -gt 0 ]] || die "name at least one set: ${KNOWN_SETS}"
  local s out=()
  for s in "$@"; do
    if [[ "${s}" == "all" ]]; then
      out+=("${SETS[@]}")
    else
      module_of "${s}" >/dev/null
      out+=("${s}")
    fi
  done
  printf '%s\n' "${out[@]}" | awk '!seen[$0]++'
}

# select_sets SET...: SELECTED=(the expanded sets); dies on an unknown set.
select_sets() {
  local list
  list="$(expand "$@")" || exit 1
  mapfile -t SELECTED <<<"${list}"
}

# objects_of FILE: one `kubectl -o name` line per object in the YAML, e.g.
# customresourcedefinition.apiextensions.k8s.io/httproutes.gateway.networking.k8s.io
# (hack/yamlobjects: apimachinery's YAML reader splits and decodes the documents).
objects_of() {
  (cd "${ROOT}" && GOFLAGS="-mod=vendor -trimpath" GOWORK=off go run ./hack/yamlobjects "$1")
}

# render SET: writes the set's YAML and object list to the cache unless there.
render() {
  local set="$1" base
  base="$(cache_base "${set}")"
  [[ -s "${base}.yaml" && -s "${base}.objects" && -s "${base}.version" ]] && return 0

  local module version src
  module="$(module_of "${set}")"
  src="$(source_dir_of "${set}")"
  command -v go >/dev/null || die "go is needed to render ${set} (${module} as ${TOOLS_MODULE}/go.mod pins it) the first time"
  local resolved dir
  # The tools module resolves from the module cache or the module proxy,
  # whatever the caller's GOFLAGS (-mod=vendor) or go.work say. go.sum
  # verifies the zip. The version is the build list's, which go.mod's
  # requirement decides; a replace would make it something else.
  resolved="$(cd "${TOOLS_MODULE}" && export GOFLAGS=-mod=mod GOWORK=off &&
    go mod download "${module}" && go list -m -f '{{.Version}} {{with .Replace}}replaced {{end}}{{.Dir}}' "${module}")" ||
    die "could not resolve ${module} in ${TOOLS_MODULE}"
  version="${resolved%% *}"
  dir="${resolved#* }"
  [[ "${dir}" != replaced* ]] || die "${module} is replaced in ${TOOLS_MODULE}/go.mod: pin a release instead"
  log "rendering ${set} from ${module}@${version} ${src}/"
  dir="${dir}/${src}"
  [[ -d "${dir}" ]] || die "${module}@${version} has no ${src}/"

  mkdir -p "${CACHE}"
  local tmp f n=0
  tmp="$(mktemp "${base}.yaml.XXXXXX")"
  {
    echo "# ${set}: ${module}@${version} ${src}/ $(source_files_of "${set}" | paste -sd' ')"
    echo "# rendered by hack/optional-crds.sh (r${RENDER_REV}); do not edit"
  } >"${tmp}"
  local glob
  while read -r glob; do
    # shellcheck disable=SC2231 # glob is a pattern on purpose
    for f in "${dir}"/${glob}; do
      [[ -e "${f}" ]] || { rm -f "${tmp}"; die "${set}: ${src}/${glob} is missing in ${module}@${version}"; }
      { echo "---"; cat "${f}"; echo; } >>"${tmp}"
      n=$((n + 1))
    done
  done < <(source_files_of "${set}")
  [[ "${n}" -gt 0 ]] || { rm -f "${tmp}"; die "no YAML in ${dir}"; }

  # The files must be those of the pinned release: both projects stamp it on every object.
  local objects docs stamped
  objects="$(objects_of "${tmp}")" || { rm -f "${tmp}"; die "${set}: the rendered YAML does not parse"; }
  docs="$(wc -l <<<"${objects}")"
  case "${set}" in
    gateway-api) stamped="$(grep -c "^    gateway.networking.k8s.io/bundle-version: ${version}\$" "${tmp}" || true)" ;;
    monitoring*) stamped="$(grep -c "^    operator.prometheus.io/version: ${version#v}\$" "${tmp}" || true)" ;;
  esac
  [[ "${stamped}" -eq "${docs}" ]] ||
    { rm -f "${tmp}"; die "${set}: ${stamped} of ${docs} objects carry the version ${version}; wrong source?"; }

  chmod 0644 "${tmp}"
  echo "${objects}" >"${tmp}.objects"
  echo "${module}@${version}" >"${tmp}.version"
  mv "${tmp}.objects" "${base}.objects"
  mv "${tmp}.version" "${base}.version"
  mv "${tmp}" "${base}.yaml"
  log "${set}: ${n} files, ${docs} objects -> ${base}.yaml"
}
