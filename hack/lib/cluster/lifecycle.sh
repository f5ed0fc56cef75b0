# shellcheck shell=bash
# hack/lib/cluster/lifecycle.sh, sourced by hack/local-cluster.sh: the commands that start and stop
# the cluster (up, down); the cert-manager runner beside it is hack/lib/cluster/cert-manager.sh's.

# core_running: how many of the components that run the cluster are alive.
core_running() {
  local n=0 c
  for c in "${CONTROL_PLANE[@]}"; do kwok_pid "${c}" >/dev/null && n=$((n + 1)); done
  if [[ "$(pod_runner)" == "realpods" ]]; then
    proc::alive "${PIDS}/realpods.pid" && n=$((n + 1))
  else
    kwok_pid kwok >/dev/null && n=$((n + 1))
  fi
  echo "${n}"
}

cmd_up() {
  local running core=$((${#CONTROL_PLANE[@]} + 1))
  running="$(core_running)"
  if [[ "${running}" -eq "${core}" ]]; then
    local runs="${KUBE_VERSION}"
    kube::use "${KUBE_VERSION_ASKED:-${runs}}"
    if [[ "${runs}" != "${KUBE_VERSION}" ]]; then
      die "the cluster runs Kubernetes ${runs}, not ${KUBE_VERSION}: take it down first ($0 down)"
    fi
    if [[ "$(cat "${CONTROL_PLANE_FILE}" 2>/dev/null || echo full)" != "$(asked_control_plane)" ]]; then
      die "the cluster runs ${CONTROL_PLANE[*]}, not what APISERVER_ONLY=${APISERVER_ONLY:-false} asks for: take it down first ($0 down)"
    fi
    log "already up, Kubernetes ${runs} (KUBECONFIG=${KUBECONFIG_FILE})"
    if [[ "${WITH_CERT_MANAGER}" == "true" ]] && ! proc::alive "${PIDS}/cert-manager.pid"; then
      cmd_start_cert_manager
    fi
    if [[ "${OPENSHIFT}" == "true" ]]; then openshift::up; fi
    return 0
  fi
  if [[ "${running}" -gt 0 || -n "$(cmd_pids)" ]]; then
    log "partially up (${running}/${core} components): stopping the rest first"
    cmd_down
  fi
  # A new cluster runs the version asked for, else the newest (not the last one's), and the
  # control plane asked for.
  kube::use "${KUBE_VERSION_ASKED:-newest}"
  use_control_plane "$(asked_control_plane)"

  local start=${SECONDS}
  if [[ "${SKIP_BUILD}" != "true" ]]; then
    KUBE_VERSION="${KUBE_VERSION}" "${ROOT}/hack/build-cluster-binaries.sh"
  fi
  local t0=${SECONDS}
  command -v ss >/dev/null || die "ss (iproute2) is required"
  command -v curl >/dev/null || die "curl is required"
  [[ -x "${BIN}/kwokctl" ]] || die "${BIN}/kwokctl is missing: run hack/build-cluster-binaries.sh"
  mkdir -p "${STATE}" "${PIDS}"
  # Keep the previous run's logs (down keeps them) one generation back, so the audit log and
  # component logs describe this cluster only.
  if [[ -d "${LOGS}" ]]; then
    rm -rf "${STATE}/logs.previous"
    mv "${LOGS}" "${STATE}/logs.previous"
  fi
  mkdir -p "${LOGS}"
  wait_ports_free
  gen_tokens
  echo "${KUBE_VERSION}" >"${KUBE_VERSION_FILE}"
  asked_control_plane >"${CONTROL_PLANE_FILE}"
  log "Kubernetes ${KUBE_VERSION} (binaries in ${KUBE_BIN})"
  choose_pod_runner
  kwokctl_up "$(pod_runner)"
  write_kubeconfig "${KUBECONFIG_FILE}" admin "$(token_of admin)"
  write_kubeconfig "${STATE}/cert-manager.kubeconfig" cert-manager "$(token_of cert-manager)"
  write_kubeconfig "${STATE}/realpods.kubeconfig" realpods "$(token_of realpods)"
  wait_for "kube-apiserver /readyz" apiserver_ready
  if [[ "$(pod_runner)" == "realpods" ]]; then
    start_realpods
  else
    create_nodes
  fi
  wait_for "nodes ${NODES[*]} Ready" nodes_ready
  if has_component kube-controller-manager; then
    wait_for "kube-controller-manager /healthz" healthz "${KCM_PORT}"
    wait_for "kube-scheduler /healthz" healthz "${SCHEDULER_PORT}"
    wait_for "the controller manager to create default ServiceAccount" kcm_working
  fi
  log "control plane up in $((SECONDS - t0))s"

  if [[ "$(pod_runner)" == "realpods" && "${REAL_PODS_SERVICES}" == "true" ]]; then
    "${ROOT}/hack/operands/services.sh" start
  fi
  if [[ "${WITH_CERT_MANAGER}" == "true" ]]; then
    cmd_start_cert_manager
  fi
  if [[ "${OPENSHIFT}" == "true" ]]; then openshift::up; fi
  if [[ "$(pod_runner)" == "realpods" ]]; then
    log "real pods: images of ${REAL_PODS_IMAGE_TABLE} run as processes (pods ${LOCAL_CLUSTER_POD_CIDR}, Services ${SERVICE_CIDR} also on this host, DNS ${LOCAL_CLUSTER_NODE_IP}); container logs in ${LOGS}/pods"
  fi
  log "cluster up in $((SECONDS - start))s (including build check)"
  log "  export KUBECONFIG=${KUBECONFIG_FILE}"
  log "  kubectl: ${KUBECTL}; logs: ${LOGS}; audit log: ${LOGS}/audit.log"
}

cmd_down() {
  "${ROOT}/hack/operands/services.sh" stop
  openshift::down
  stop_proc cert-manager
  rm -f "${STATE}/cert-manager.ready"
  # Clients before the control plane; the agent stops its pods' processes as it exits.
  stop_proc realpods
  # kwokctl stops its components in reverse order (KILL: the data goes). A cluster whose creation
  # was cut short has no configuration to stop it by: its pid files are what is left.
  if [[ -d "${KWOK_CLUSTER}/pids" ]]; then
    kw stop cluster >>"${LOGS}/kwokctl.log" 2>&1 || log "kwokctl stop cluster failed (${LOGS}/kwokctl.log): stopping by its pid files"
    local f
    for f in "${KWOK_CLUSTER}"/pids/*.pid; do
      [[ -f "${f}" ]] || continue
      kill -KILL "$(cat "${f}")" 2>/dev/null || true
      rm -f "${f}"
    done
  fi
  # The agent's state: its pods' files and the directories behind PVCs (whose objects go with etcd).
  rm -rf "${STATE}/realpods" "${STATE}/realpods.ready"
  if ! proc::poll "${STOP_TIMEOUT}" 0.25 ports_busy --negate; then
    ss -Htlnp | grep -E ":($(all_ports | tr ' ' '|'))\b" >&2 || true
    die "ports still in use after stopping everything (not started by this script?)"
  fi
  rm -rf "${KWOK_CLUSTER}/etcd"
  log "down (logs kept in ${LOGS})"
}
