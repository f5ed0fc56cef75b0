#!/usr/bin/env bash
# The clusters of hack/test-reliability.sh: the CPU load the cluster-start suite starts under,
# the exit hook that stops the load and brings down a cluster the script left behind, the ports
# a start uses (the instance's, or a free block when another process holds one), the checks
# that a cluster is up or fully gone, and the one reliability cluster the Go suites share.
# Separate from the suites that use them (hack/lib/reliability-cluster-start.sh,
# hack/lib/reliability-suites.sh), so each is readable alone.
# Sourced by hack/test-reliability.sh after hack/lib/proc.sh, hack/lib/instance.sh
# (instance::use: the ports) and its settings (ROOT, CLUSTER, RELIABILITY_*, log, die).

# ---------------------------------------------------------------------------
# CPU load: busy loops in the background, stopped by the exit hook however the script ends.
# ---------------------------------------------------------------------------

LOAD_PIDS=()
load_start() {
  local i
  for ((i = 0; i < RELIABILITY_LOAD; i++)); do
    (
      trap - EXIT INT TERM
      while :; do :; done
    ) &
    LOAD_PIDS+=("$!")
  done
  log "CPU load: ${RELIABILITY_LOAD} busy loops on $(nproc) cores (pids ${LOAD_PIDS[*]})"
}

load_stop() {
  [[ ${#LOAD_PIDS[@]} -gt 0 ]] || return 0
  kill "${LOAD_PIDS[@]}" 2>/dev/null || true
  wait "${LOAD_PIDS[@]}" 2>/dev/null || true
  LOAD_PIDS=()
}

# A cluster this script left behind (a failed `up`, an interrupted run) is brought down on exit:
# the instance is the suite's own.
CLUSTER_MAYBE_UP=false
cleanup() {
  load_stop
  if [[ "${OPERATOR_SOURCED:-false}" == "true" ]]; then
    op::teardown
  fi
  if [[ "${CLUSTER_MAYBE_UP}" == "true" ]]; then
    "${CLUSTER}" down >/dev/null 2>&1 || true
  fi
}

# cluster CMD...: hack/local-cluster.sh at the starter's niceness.
cluster() { nice -n "${RELIABILITY_NICE}" "${CLUSTER}" "$@"; }

INSTANCE_PORTS=("${ETCD_PORT}" "${ETCD_PEER_PORT}" "${APISERVER_PORT}" "${KCM_PORT}" "${SCHEDULER_PORT}")
PORTS=("${INSTANCE_PORTS[@]}")

# use_ports ETCD PEER APISERVER KCM SCHEDULER: the ports the next `up` and checks use.
use_ports() {
  PORTS=("$@")
  export ETCD_PORT="$1" ETCD_PEER_PORT="$2" APISERVER_PORT="$3" KCM_PORT="$4" SCHEDULER_PORT="$5"
}

# pick_ports: the instance's ports when they are all free, else the first free block of five
# consecutive ports from 30100 on (another process, e.g. a cluster someone started by hand,
# holds one of them).
pick_ports() {
  local why base
  use_ports "${INSTANCE_PORTS[@]}"
  why="$(ports_free)" && return 0
  for ((base = 30100; base < 31000; base += 100)); do
    use_ports "${base}" $((base + 1)) $((base + 2)) $((base + 3)) $((base + 4))
    if ports_free >/dev/null; then
      log "${why}: not ours, so this start uses ports ${base}-$((base + 4))"
      return 0
    fi
  done
  die "no free block of ports (${why})"
}

# ports_free: no port in use is listening; says which one is.
ports_free() {
  local p
  for p in "${PORTS[@]}"; do
    if [[ -n "$(ss -Htln "sport = :${p}" 2>/dev/null)" ]]; then
      echo "port ${p} is listening: $(ss -Htlnp "sport = :${p}" 2>/dev/null | grep -o 'users:.*' | head -n1)"
      return 1
    fi
  done
}

# nothing_left: no component of the instance alive, no port of it listening.
nothing_left() {
  local left
  left="$("${CLUSTER}" pids)"
  if [[ -n "${left}" ]]; then
    echo "processes of the cluster still alive: $(echo "${left}" | tr '\n' ' ')"
    return 1
  fi
  ports_free
}

# down_clean OUT: hack/local-cluster.sh down (output appended to OUT), then nothing_left; says
# why not.
down_clean() {
  if ! cluster down >>"$1" 2>&1; then
    echo "down failed; output in $1"
    return 1
  fi
  nothing_left
}

# all_running: every component of the cluster, cert-manager included, is running.
all_running() {
  local c status
  status="$("${CLUSTER}" status 2>&1)" || true
  for c in etcd kube-apiserver kube-controller-manager kube-scheduler kwok cert-manager; do
    grep -Eq "^ +${c} +running " <<<"${status}" || {
      echo "${c} is not running: $(grep -E "^ +${c} " <<<"${status}")"
      return 1
    }
  done
}

# reliability_cluster: the reliability cluster up (once), deploy/ installed, the operator built.
RELIABILITY_CLUSTER=false
reliability_cluster() {
  [[ "${RELIABILITY_CLUSTER}" == "true" ]] && return 0
  # shellcheck source=hack/lib/operator.sh
  source "${ROOT}/hack/lib/operator.sh"
  OPERATOR_SOURCED=true
  if op::cluster_running; then
    die "a cluster runs in ${LOCAL_CLUSTER_DIR}; stop it first: $(instance::env) ${CLUSTER} down"
  fi
  op::cluster_up
  op::install
  op::build
  export KUBECONFIG="${LOCAL_CLUSTER_DIR}/kubeconfig"
  RELIABILITY_CLUSTER=true
}
