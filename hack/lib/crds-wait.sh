#!/usr/bin/env bash
# The readiness checks of hack/optional-crds.sh: one table of the CRDs' state, and the
# conditions install and uninstall wait for (Established, in discovery, listable; a stuck
# deletion re-queued), each polled without blind sleeps. Separate because they are what decides
# "installed" and "gone", and their reasons (all_listable) are long enough to read alone.
# Sourced by hack/optional-crds.sh after hack/lib/crds-cluster.sh (kc, log).

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
