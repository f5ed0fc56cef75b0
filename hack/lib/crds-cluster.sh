#!/usr/bin/env bash
# The cluster side of hack/optional-crds.sh: kubectl as the administrator, the check that the
# cluster is reachable, and what of a rendered set this API server takes (NEEDS: objects an
# older Kubernetes refuses are left out of the set's object list and YAML). Separate from the
# render (hack/lib/crds-render.sh), which needs no cluster, and from the waits
# (hack/lib/crds-wait.sh), which only read the CRDs' state.
# Sourced by hack/optional-crds.sh after its settings (ROOT, KUBECTL, NEEDS, log, die) and
# hack/lib/crds-render.sh (cache_base).

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
