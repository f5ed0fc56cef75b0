# shellcheck shell=bash
# hack/lib/cluster/commands.sh, sourced by hack/local-cluster.sh: the commands that look at or act
# on a running cluster (status, pids, restart-apiserver, env, sa-kubeconfig) and the state lock.

cmd_status() {
  local c up=true pid
  for c in "${CONTROL_PLANE[@]}" "$(pod_runner)" cert-manager; do
    case "${c}" in
      realpods | cert-manager)
        if pid="$(proc::pid "${PIDS}/${c}.pid")"; then printf '  %-24s running (pid %s)\n' "${c}" "${pid}"; else
          printf '  %-24s stopped\n' "${c}"
          [[ "${c}" == cert-manager ]] || up=false
        fi ;;
      *)
        if pid="$(kwok_pid "${c}")"; then printf '  %-24s running (pid %s)\n' "${c}" "${pid}"; else
          printf '  %-24s stopped\n' "${c}"
          up=false
        fi ;;
    esac
  done
  openshift::status
  if [[ "${up}" == "true" ]] && apiserver_ready 2>/dev/null; then
    echo "cluster is up, Kubernetes ${KUBE_VERSION}: export KUBECONFIG=${KUBECONFIG_FILE}"
    kc get nodes 2>/dev/null || true
    return 0
  fi
  echo "cluster is not up"
  return 1
}

# pids: every live process of the instance (kwokctl's components, this script's and the
# services' pid files), so a caller can check that `down` left nothing.
cmd_pids() {
  local c f
  for c in "${CONTROL_PLANE[@]}" kwok; do kwok_pid "${c}" || true; done
  for f in "${PIDS}"/*.pid; do
    [[ -f "${f}" ]] && proc::pid "${f}" || true
  done
}

# restart-apiserver: the API server goes away and comes back with everything else left
# running, as in a control-plane upgrade; the reliability suite checks the operator reconnects.
# kwokctl starts again only what is not running.
cmd_restart_apiserver() {
  local pid
  pid="$(kwok_pid kube-apiserver)" || die "kube-apiserver is not running (run: $0 up)"
  STARTED=(kube-apiserver)
  log "stopping kube-apiserver (pid ${pid})"
  kill -TERM "${pid}" 2>/dev/null || true
  # Its clients' watches may hold a TERMed kube-apiserver a while: KILL after RESTART_STOP_TIMEOUT.
  if ! proc::poll "${RESTART_STOP_TIMEOUT}" 0.1 kill -0 "${pid}" --negate; then
    kill -KILL "${pid}" 2>/dev/null || true
    proc::poll 10 0.1 kill -0 "${pid}" --negate || die "kube-apiserver (pid ${pid}) survived KILL"
  fi
  # kwokctl truncates a component's log when it starts it: the stopped one's is kept aside.
  mv "${LOGS}/kube-apiserver.log" "${LOGS}/kube-apiserver.stopped-$(date -u +%H%M%S).log" 2>/dev/null || true
  kw start cluster >>"${LOGS}/kwokctl.log" 2>&1 || die "kwokctl start cluster failed; see ${LOGS}/kwokctl.log" "${LOGS}/kwokctl.log"
  wait_for "kube-apiserver /readyz" apiserver_ready
  log "kube-apiserver restarted (pid $(kwok_pid kube-apiserver))"
}

cmd_env() { echo "export KUBECONFIG=${KUBECONFIG_FILE}"; }

# sa-kubeconfig NS SA OUT: a kubeconfig that authenticates as the ServiceAccount through a bound
# token from the TokenRequest API, so the operator run locally is subject to exactly the RBAC
# granted to its SA.
cmd_sa_kubeconfig() {
  [[ $# -eq 3 ]] || die "usage: $0 sa-kubeconfig NAMESPACE SERVICEACCOUNT OUTFILE"
  local ns="$1" sa="$2" out="$3" token
  apiserver_ready || die "the cluster is not up (run: $0 up)"
  token="$(kc create token "${sa}" -n "${ns}" --duration="${SA_TOKEN_DURATION}")"
  mkdir -p "$(dirname "${out}")"
  write_kubeconfig "${out}" "system:serviceaccount:${ns}:${sa}" "${token}"
  # Point the context at the SA's namespace, as in-cluster config would.
  "${KUBECTL}" --kubeconfig="${out}" config set-context local --namespace="${ns}" >/dev/null
  log "wrote ${out} (ServiceAccount ${ns}/${sa}, token valid ${SA_TOKEN_DURATION})"
}

# Commands that start or stop processes hold an exclusive lock on the state directory, so two
# callers (say an e2e suite and a developer) cannot interleave an `up` and a `down`. Separate
# clusters need separate LOCAL_CLUSTER_DIR and ports.
take_lock() {
  mkdir -p "${STATE}"
  exec 9>"${STATE}/.lock"
  if ! flock -n 9; then
    log "waiting for another $0 on ${STATE} (up to ${LOCK_TIMEOUT}s)"
    flock -w "${LOCK_TIMEOUT}" 9 || die "could not lock ${STATE}/.lock within ${LOCK_TIMEOUT}s"
  fi
}
