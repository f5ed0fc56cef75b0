#!/usr/bin/env bash
# Installs and removes the CRDs of the optional APIs the operands use when they
# exist, in the local live cluster (hack/local-cluster.sh) or any cluster that
# $KUBECONFIG points at, so the e2e suite can exercise "CRD missing" and "CRD
# installed later" (the operator must pick it up without a restart).
# cert-manager is not here: hack/local-cluster.sh start-cert-manager installs
# its CRDs together with its controllers.
#
# Sets (versions pinned in hack/tools/crds/go.mod and go.sum; the YAML is read
# from the module zips, which come from the Go module proxy):
#   gateway-api  sigs.k8s.io/gateway-api, standard channel, config/crd/standard/*.yaml:
#                the CRDs GatewayClass, Gateway, HTTPRoute (v1, v1beta1), GRPCRoute,
#                ReferenceGrant (v1, v1beta1), BackendTLSPolicy, ListenerSet, TCPRoute,
#                TLSRoute, UDPRoute, and the ValidatingAdmissionPolicy (+Binding)
#                safe-upgrades.gateway.networking.k8s.io that the channel ships.
#                An API server older than a CRD needs (NEEDS below) gets the set without
#                it, said in the output: on Kubernetes 1.30, every CRD but TLSRoute.
#   monitoring   github.com/prometheus-operator/prometheus-operator,
#                example/prometheus-operator-crd/*.yaml: the monitoring.coreos.com CRDs
#                ServiceMonitor, PodMonitor, PrometheusRule, Probe, ScrapeConfig,
#                Prometheus, PrometheusAgent, Alertmanager, AlertmanagerConfig, ThanosRuler
#                (4.2 MB of YAML: 5-30 s to install on a busy 2-core machine)
#   monitoring-core  the same module, only ServiceMonitor, PodMonitor and PrometheusRule,
#                which is all the operands use: a few seconds. `uninstall monitoring`
#                removes these too; `uninstall monitoring-core` only these.
#   all          gateway-api and monitoring
#
# Usage:
#   hack/optional-crds.sh install SET...     server-side apply, then wait until every CRD is
#                                            Established, in discovery, and its resources can be
#                                            listed (idempotent)
#   hack/optional-crds.sh uninstall SET...   delete the set's objects (the CRDs' custom
#                                            resources go with them), wait until gone (idempotent)
#   hack/optional-crds.sh status [SET...]    what is installed; exit 0 only if every SET
#                                            [default: all] is fully installed and Established
#   hack/optional-crds.sh render SET...      print the YAML (needs no cluster)
#
# The rendered YAML is cached in $OUTPUT_DIR/crds/<set>-<key>.r<N>.yaml (with a .objects
# file listing what it holds and a .version file naming module@version), keyed by the
# tools module's go.mod and go.sum, so only the first run after a version change needs
# `go` and the module cache.
#
# Environment (defaults in brackets):
#   KUBECONFIG                   the cluster, as an administrator (install, uninstall,
#                                status); for the local cluster: eval "$(hack/local-cluster.sh env)"
#   OUTPUT_DIR [<repo>/_output]  kubectl is $OUTPUT_DIR/bin/kubectl (hack/build-cluster-binaries.sh),
#                                the cache is $OUTPUT_DIR/crds
#   CRDS_TIMEOUT [120]           seconds to wait for Established / discovery / deletion
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUTPUT_DIR="${OUTPUT_DIR:-${ROOT}/_output}"
KUBECTL="${OUTPUT_DIR}/bin/kubectl"
CACHE="${OUTPUT_DIR}/crds"
TOOLS_MODULE="${ROOT}/hack/tools/crds"
CRDS_TIMEOUT="${CRDS_TIMEOUT:-120}"
FIELD_MANAGER="llm-infra-optional-crds"
# Bump when what render produces changes for the same module versions.
RENDER_REV=1

SETS=(gateway-api monitoring)    # what `all` means

# Objects of a set that an older API server refuses: set, object (kubectl -o name), the oldest
# Kubernetes minor that takes it, why. install, uninstall and status leave such an object out
# on an older server (hack/lib/kube-version.sh's oldest release runs the e2e suite too); the
# operands use none of them.
NEEDS=(
  "gateway-api customresourcedefinition.apiextensions.k8s.io/tlsroutes.gateway.networking.k8s.io 31 its hostnames rule calls isIP, a CEL function of Kubernetes 1.31 (gateway-api v1.5.0's release notes)"
)
KNOWN_SETS="gateway-api monitoring monitoring-core all"

log() { echo "[optional-crds] $*" >&2; }
die() { echo "[optional-crds] ERROR: $*" >&2; exit 1; }

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

# kc ARGS...: kubectl as the cluster admin.
kc() { "${KUBECTL}" --kubeconfig "${KUBECONFIG}" "$@"; }

need_cluster() {
  [[ -x "${KUBECTL}" ]] || die "${KUBECTL} is missing: run hack/build-cluster-binaries.sh (or set OUTPUT_DIR)"
  [[ -n "${KUBECONFIG:-}" ]] ||
    die "KUBECONFIG is not set; for the local cluster: eval \"\$(hack/local-cluster.sh env)\""
  [[ -f "${KUBECONFIG}" ]] || die "KUBECONFIG ${KUBECONFIG} does not exist (is the cluster up? hack/local-cluster.sh up)"
  local out
  out="$(kc --request-timeout=10s get --raw /readyz 2>&1)" ||
    die "the cluster of ${KUBECONFIG} is not reachable or not ready (hack/local-cluster.sh status): ${out}"
}

# poll TIMEOUT CMD...: runs CMD every 0.25 s until it succeeds, for at most
# TIMEOUT seconds. No blind sleeps.
poll() {
  local timeout="$1"; shift
  local deadline=$((SECONDS + timeout))
  until "$@"; do
    ((SECONDS < deadline)) || return 1
    sleep 0.25
  done
}

# server_minor: the API server's Kubernetes minor version (a provider may append "+").
server_minor() {
  local v
  v="$(kc --request-timeout=10s get --raw /version)" || die "cannot read the API server's version"
  v="$(sed -n 's/.*"minor": *"\([0-9]*\).*/\1/p' <<<"${v}")"
  [[ -n "${v}" ]] || die "the API server's /version has no minor"
  echo "${v}"
}

# LEFT_OUT[SET]: the set's objects this API server refuses (NEEDS), filled by resolve_left_out.
declare -A LEFT_OUT=()

# resolve_left_out SET...: fills LEFT_OUT for the sets, saying what is left out and why.
resolve_left_out() {
  local server row set obj minor why
  server="$(server_minor)"
  for row in "${NEEDS[@]}"; do
    read -r set obj minor why <<<"${row}"
    [[ " $* " == *" ${set} "* && "${server}" -lt "${minor}" ]] || continue
    log "${set}: leaving out ${obj#*/} on Kubernetes 1.${server}: ${why}"
    LEFT_OUT[${set}]+="${obj} "
  done
}

# left_out SET: LEFT_OUT[SET], one a line.
left_out() {
  local obj
  for obj in ${LEFT_OUT[$1]:-}; do echo "${obj}"; done
}

# objects SET: the set's objects (kubectl -o name, in the files' order) this API server takes.
objects() {
  grep -vxF -f <(left_out "$1"; echo "#none") "$(cache_base "$1").objects" || true
}

# crd_names SET: the CRDs of objects SET, without the kind prefix.
crd_names() {
  objects "$1" | grep '^customresourcedefinition\.apiextensions\.k8s\.io/' | sed 's|^[^/]*/||'
}

# yaml_of SET: the set's rendered YAML without the objects this API server refuses
# (hack/yamlobjects -without: documents split and decoded by apimachinery, not by line).
yaml_of() {
  (cd "${ROOT}" && GOFLAGS="-mod=vendor -trimpath" GOWORK=off go run ./hack/yamlobjects \
    -without "$(left_out "$1" | paste -sd' ')" "$(cache_base "$1").yaml")
}

# crd_table NAME...: one line per existing CRD of NAMEs, fields separated by |:
#   name|Established status|group|plural|served versions (v1,v2,)|deletionTimestamp|Terminating reason
crd_table() {
  local fields='{.metadata.name}{"|"}{.status.conditions[?(@.type=="Established")].status}{"|"}{.spec.group}{"|"}{.status.acceptedNames.plural}{"|"}{range .spec.versions[?(@.served==true)]}{.name}{","}{end}{"|"}{.metadata.deletionTimestamp}{"|"}{.status.conditions[?(@.type=="Terminating")].reason}{"\n"}'
  # kubectl prints a List for several names but the object itself for one.
  if [[ $# -eq 1 ]]; then
    kc get crd "$@" --ignore-not-found -o jsonpath="${fields}"
  else
    kc get crd "$@" --ignore-not-found -o jsonpath="{range .items[*]}${fields}{end}"
  fi
}

# all_established NAME...: every named CRD exists and is Established=True.
all_established() {
  local table
  table="$(crd_table "$@" 2>/dev/null)" || return 1
  [[ "$(awk -F'|' '$2 == "True"' <<<"${table}" | wc -l)" -eq $# ]]
}

# all_discoverable NAME...: each served group/version of each CRD lists its
# plural in discovery, which is what clients (RESTMappers, informers) go by.
all_discoverable() {
  local table gv group plural versions v
  table="$(crd_table "$@" 2>/dev/null)" || return 1
  declare -A seen=()
  while IFS='|' read -r _ _ group plural versions _; do
    for v in ${versions//,/ }; do
      gv="${group}/${v}"
      [[ -n "${seen[${gv}]:-}" ]] || seen[${gv}]="$(kc get --raw "/apis/${gv}" 2>/dev/null)" || return 1
      grep -q "\"name\":\"${plural}\"" <<<"${seen[${gv}]}" || return 1
    done
  done <<<"${table}"
}

# all_listable NAME...: a list of each CRD's custom resources from the watch
# cache succeeds. kube-apiserver creates a CRD's storage and watch cache only
# at the first request for its resources; until then nothing has been proven
# served. It also matters for uninstall: if the storage is first created by
# the API server's CRD finalizer at deletion, its list fails with "storage is
# (re)initializing" and, on a busy machine, the retry can be lost (a stale
# informer read ends in a conflict that is dropped, and the finalizer ignores
# updates of its own Terminating condition), leaving the CRD Terminating until
# the informer's 5-minute resync.
all_listable() {
  local table group plural versions
  table="$(crd_table "$@" 2>/dev/null)" || return 1
  while IFS='|' read -r _ _ group plural versions _; do
    kc --request-timeout=10s get --raw "/apis/${group}/${versions%%,*}/${plural}?limit=1&resourceVersion=0" >/dev/null 2>&1 ||
      return 1
  done <<<"${table}"
}

# requeue_stuck_crds NAME...: touches every CRD of NAMEs whose deletion failed
# (Terminating condition InstanceDeletionFailed), so the API server's CRD
# finalizer, which ignores changes to that condition, runs again. See
# all_listable for how a deletion gets stuck.
requeue_stuck_crds() {
  local stuck name
  stuck="$(crd_table "$@" 2>/dev/null | awk -F'|' '$6 != "" && $7 == "InstanceDeletionFailed" { print $1 }')" || return 0
  for name in ${stuck}; do
    log "CRD ${name}: its deletion failed in the API server ($(kc get crd "${name}" --ignore-not-found -o jsonpath='{.status.conditions[?(@.type=="Terminating")].message}' 2>&1)); re-queueing it"
    kc annotate crd "${name}" --overwrite "optional-crds.llm-infra.io/requeued=$(date -u +%Y%m%dT%H%M%S.%NZ)" >/dev/null 2>&1 || true
  done
}

cmd_install() {
  local set
  select_sets "$@"
  need_cluster
  resolve_left_out "${SELECTED[@]}"
  for set in "${SELECTED[@]}"; do render "${set}"; done
  for set in "${SELECTED[@]}"; do
    local base start applied names
    base="$(cache_base "${set}")"
    start=${SECONDS}
    log "installing ${set} ($(pinned "${set}"))"
    applied="$(yaml_of "${set}" | kc apply --server-side --force-conflicts --field-manager="${FIELD_MANAGER}" -o name -f -)"
    if ! diff <(sort <<<"${applied}") <(objects "${set}" | sort) >/dev/null; then
      die "${set}: kubectl applied other objects than ${base}.objects lists:"$'\n'"${applied}"
    fi
    local applied_at=${SECONDS}
    mapfile -t names < <(crd_names "${set}")
    poll "${CRDS_TIMEOUT}" all_established "${names[@]}" ||
      die "${set}: not every CRD is Established after ${CRDS_TIMEOUT}s:"$'\n'"$(crd_table "${names[@]}")"
    poll "${CRDS_TIMEOUT}" all_discoverable "${names[@]}" ||
      die "${set}: not every CRD is served in discovery after ${CRDS_TIMEOUT}s"
    poll "${CRDS_TIMEOUT}" all_listable "${names[@]}" ||
      die "${set}: the custom resources of not every CRD can be listed after ${CRDS_TIMEOUT}s"
    log "${set}: ${#names[@]} CRDs Established and served in $((SECONDS - start))s (apply $((applied_at - start))s)"
  done
}

cmd_uninstall() {
  local set
  select_sets "$@"
  need_cluster
  resolve_left_out "${SELECTED[@]}"
  for set in "${SELECTED[@]}"; do render "${set}"; done
  for set in "${SELECTED[@]}"; do
    local start objects
    start=${SECONDS}
    # Reverse order: a ValidatingAdmissionPolicyBinding before its policy.
    mapfile -t objects < <(objects "${set}" | tac)
    log "uninstalling ${set} (${#objects[@]} objects)"
    kc delete --ignore-not-found --wait=false "${objects[@]}" >/dev/null
    # A CRD is gone once the API server has deleted all its custom resources.
    # Waited for in slices, so that a CRD whose deletion got stuck is re-queued.
    local deadline=$((SECONDS + CRDS_TIMEOUT)) names
    mapfile -t names < <(crd_names "${set}")
    until kc wait --for=delete --timeout=10s "${objects[@]}" >/dev/null 2>&1; do
      ((SECONDS < deadline)) ||
        die "${set}: still present after ${CRDS_TIMEOUT}s:"$'\n'"$(kc get "${objects[@]}" --ignore-not-found 2>&1)"
      requeue_stuck_crds "${names[@]}"
    done
    log "${set}: removed ($((SECONDS - start))s)"
  done
}

cmd_status() {
  local set rc=0
  if [[ $# -eq 0 ]]; then set -- all; fi
  select_sets "$@"
  need_cluster
  resolve_left_out "${SELECTED[@]}"
  for set in "${SELECTED[@]}"; do render "${set}"; done
  for set in "${SELECTED[@]}"; do
    local names others table lines=() established=0 present=0 obj name row est versions extra=""
    mapfile -t names < <(crd_names "${set}")
    # The set's other objects: gateway-api's ValidatingAdmissionPolicy and its Binding.
    mapfile -t others < <(objects "${set}" | grep -v '^customresourcedefinition\.apiextensions\.k8s\.io/' || true)
    table="$(crd_table "${names[@]}")"
    for name in "${names[@]}"; do
      row="$(awk -F'|' -v n="${name}" '$1 == n' <<<"${table}")"
      if [[ -z "${row}" ]]; then
        lines+=("$(printf '  %-52s absent' "${name}")")
        continue
      fi
      present=$((present + 1))
      IFS='|' read -r _ est _ _ versions _ <<<"${row}"
      [[ "${est}" == "True" ]] && established=$((established + 1))
      lines+=("$(printf '  %-52s Established=%s served=%s' "${name}" "${est:-Unknown}" "${versions%,}")")
    done
    for obj in "${others[@]}"; do
      if [[ -n "$(kc get "${obj}" --ignore-not-found -o name)" ]]; then
        present=$((present + 1))
        established=$((established + 1))
        lines+=("  ${obj} present")
      else
        lines+=("  ${obj} absent")
      fi
    done
    local total=$((${#names[@]} + ${#others[@]})) state=partial
    if [[ "${established}" -eq "${total}" ]]; then
      state=installed
    elif [[ "${present}" -eq 0 ]]; then
      state=absent
    fi
    [[ "${state}" == "installed" ]] || rc=1
    if [[ "${set}" == "gateway-api" && "${present}" -gt 0 ]]; then
      extra=", bundle-version $(kc get crd "${names[@]}" --ignore-not-found \
        -o jsonpath='{range .items[*]}{.metadata.annotations.gateway\.networking\.k8s\.io/bundle-version}{"\n"}{end}' | sort -u | paste -sd,)"
    fi
    echo "${set} ($(pinned "${set}")): ${state}${extra}"
    printf '%s\n' "${lines[@]}"
  done
  return "${rc}"
}

cmd_render() {
  local set
  select_sets "$@"
  for set in "${SELECTED[@]}"; do
    render "${set}"
    cat "$(cache_base "${set}").yaml"
  done
}

main() {
  local cmd="${1:-}"
  [[ $# -gt 0 ]] && shift
  case "${cmd}" in
    install) cmd_install "$@" ;;
    uninstall) cmd_uninstall "$@" ;;
    status) cmd_status "$@" ;;
    render) cmd_render "$@" ;;
    *)
      sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'
      [[ -z "${cmd}" || "${cmd}" == "help" || "${cmd}" == "-h" || "${cmd}" == "--help" ]] || exit 2
      ;;
  esac
}

main "$@"
