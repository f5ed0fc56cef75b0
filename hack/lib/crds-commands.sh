#!/usr/bin/env bash
# The commands of hack/optional-crds.sh (install, uninstall, status, render; see its usage),
# each built from the render (hack/lib/crds-render.sh), the cluster side
# (hack/lib/crds-cluster.sh) and the waits (hack/lib/crds-wait.sh). Separate so that the entry
# script is its usage, settings and dispatch.
# Sourced by hack/optional-crds.sh after those libraries (FIELD_MANAGER, CRDS_TIMEOUT, log, die).

# selected_on_cluster SET...: SELECTED for the cluster $KUBECONFIG names, each set rendered
# without what that API server is too old for (resolve_left_out).
selected_on_cluster() {
  local set
  select_sets "$@"
  need_cluster
  resolve_left_out "${SELECTED[@]}"
  for set in "${SELECTED[@]}"; do render "${set}"; done
}

cmd_install() {
  local set
  selected_on_cluster "$@"
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
  selected_on_cluster "$@"
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
  selected_on_cluster "$@"
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
