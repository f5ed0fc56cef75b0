#!/usr/bin/env bash
# The service CA's processes, for hack/openshift/serviceca.sh: the controllers in a mount
# namespace of their own and the openshift-service-ca.crt publisher, started once their setup is
# done, waited for until the bundle reaches `default`, stopped and shown (serviceca::start,
# serviceca::stop, serviceca::status), and the port and checks these use. Separate from the
# build (hack/lib/serviceca-build.sh).
# Sourced by hack/openshift/serviceca.sh after its settings (SERVICECA_NAME, SERVICECA_NAMESPACE,
# SERVICECA_TIMEOUT, serviceca::_log, serviceca::_bin, serviceca::_kubectl) and hack/lib/proc.sh
# (proc::*).

# serviceca::_port KUBECONFIG: SERVICE_CA_PORT, else the API server's port + 2 (+1 is
# OPENSHIFT=true's openshift-admission): each instance and worktree offset of hack/lib/instance.sh
# then has its own, never one of another's (none of its base ports ends in 5).
serviceca::_port() {
  if [[ -n "${SERVICE_CA_PORT:-}" ]]; then echo "${SERVICE_CA_PORT}"; return 0; fi
  local server
  server="$(serviceca::_kubectl --kubeconfig="$1" config view --minify -o 'jsonpath={.clusters[0].cluster.server}')" || return 1
  [[ "${server}" =~ :([0-9]+)/?$ ]] || { serviceca::_log "ERROR: no port in the API server's URL ${server}"; return 1; }
  echo $((BASH_REMATCH[1] + 2))
}

# serviceca::_published KUBECONFIG: ConfigMap openshift-service-ca.crt of `default` holds the
# service CA's bundle: the publisher made it and the controllers' injector filled it in.
serviceca::_published() {
  local got want
  got="$(serviceca::_kubectl --kubeconfig="$1" -n default get configmap openshift-service-ca.crt -o 'jsonpath={.data.service-ca\.crt}')" || return 1
  want="$(serviceca::_kubectl --kubeconfig="$1" -n "${SERVICECA_NAMESPACE}" get configmap signing-cabundle -o 'jsonpath={.data.ca-bundle\.crt}')" || return 1
  [[ -n "${got}" && "${got}" == "${want}" ]]
}

# serviceca::_check PIDFILE LOG NAME: NAME still runs (a poll's check: stops the wait at once,
# with the log's tail, when it exited).
serviceca::_check() {
  proc::alive "$1" || proc::die "[service-ca]" "$3 exited; see $2" "$2"
}

# serviceca::start KUBECONFIG STATE_DIR: see the header of hack/openshift/serviceca.sh. Logs in
# STATE_DIR/logs, pid files in STATE_DIR/pids (where hack/local-cluster.sh keeps its processes'),
# the mounted files and the kubeconfig in STATE_DIR/service-ca.
serviceca::start() {
  local kubeconfig="$1" state="$2" bin dir port t0=${SECONDS}
  bin="$(serviceca::_bin)"
  kubeconfig="$(readlink -f "${kubeconfig}")"
  dir="${state}/service-ca"
  local pid_ctl="${state}/pids/service-ca.pid" log_ctl="${state}/logs/service-ca.log"
  local pid_pub="${state}/pids/service-ca-publisher.pid" log_pub="${state}/logs/service-ca-publisher.log"
  [[ -x "${bin}/${SERVICECA_NAME}" && -x "${bin}/servicecatool" && -d "${bin}/service-ca-assets" ]] ||
    { serviceca::_log "ERROR: ${bin}/${SERVICECA_NAME} or servicecatool is missing: run serviceca::build"; return 1; }
  port="$(serviceca::_port "${kubeconfig}")" || return 1
  mkdir -p "${state}/pids" "${state}/logs"

  if proc::alive "${pid_ctl}"; then
    serviceca::_log "service-ca controllers already running (pid ${PROC_PID})"
  else
    serviceca::_log "setting up the signing CA, RBAC and mounts in ${dir}"
    "${bin}/servicecatool" setup --kubeconfig="${kubeconfig}" --assets="${bin}/service-ca-assets" --out="${dir}" \
      --token-duration="${SERVICE_CA_TOKEN_DURATION:-24h}" --timeout="${SERVICECA_TIMEOUT}s" ||
      { serviceca::_log "ERROR: servicecatool setup failed"; return 1; }
    # Not root: a user namespace of its own, where it may mount.
    local -a userns=()
    [[ "$(id -u)" -eq 0 ]] || userns=(--map-root-user)
    serviceca::_log "starting the service-ca controllers on 127.0.0.1:${port} (log: ${log_ctl})"
    # shellcheck disable=SC2016 # expanded by the inner shell
    proc::start "${pid_ctl}" "${log_ctl}" "${bin}/${SERVICECA_NAME}" -- \
      unshare --mount --propagation private "${userns[@]}" -- sh -c '
        set -e
        d="$1"; shift
        mount -t tmpfs -o mode=0755,size=1m service-ca /run
        mkdir -p /run/secrets/signing-key /run/configmaps/signing-cabundle /run/secrets/kubernetes.io/serviceaccount
        mount --bind -o ro "$d/signing-key" /run/secrets/signing-key
        mount --bind -o ro "$d/signing-cabundle" /run/configmaps/signing-cabundle
        mount --bind -o ro "$d/serviceaccount" /run/secrets/kubernetes.io/serviceaccount
        exec "$@"' service-ca-mounts "${dir}" \
      "${bin}/${SERVICECA_NAME}" controller --kubeconfig="${dir}/kubeconfig" \
      --namespace="${SERVICECA_NAMESPACE}" --listen="127.0.0.1:${port}" -v=2 ||
      { serviceca::_log "ERROR: service-ca controllers ${PROC_FAILURE}"; proc::log_tail "${log_ctl}" >&2; return 1; }
  fi

  if proc::alive "${pid_pub}"; then
    serviceca::_log "publisher already running (pid ${PROC_PID})"
  else
    serviceca::_log "starting the openshift-service-ca.crt publisher (log: ${log_pub})"
    proc::start "${pid_pub}" "${log_pub}" "${bin}/servicecatool" -- \
      "${bin}/servicecatool" publish --kubeconfig="${kubeconfig}" ||
      { serviceca::_log "ERROR: publisher ${PROC_FAILURE}"; proc::log_tail "${log_pub}" >&2; return 1; }
  fi

  # Works: the bundle reached `default` through the publisher and the controllers' injector.
  if ! proc::poll "${SERVICECA_TIMEOUT}" 0.25 serviceca::_ready "${kubeconfig}" "${state}"; then
    serviceca::_log "ERROR: openshift-service-ca.crt in default did not get the service CA within ${SERVICECA_TIMEOUT}s"
    proc::log_tail "${log_ctl}" >&2
    return 1
  fi
  serviceca::_log "service CA ready in $((SECONDS - t0))s"
}

serviceca::_ready() {
  serviceca::_check "$2/pids/service-ca.pid" "$2/logs/service-ca.log" "the service-ca controllers"
  serviceca::_check "$2/pids/service-ca-publisher.pid" "$2/logs/service-ca-publisher.log" "the publisher"
  serviceca::_published "$1"
}

# serviceca::stop STATE_DIR: stop both (TERM: the controllers release their leader lease).
serviceca::stop() {
  local state="$1"
  proc::stop service-ca-publisher "${state}/pids/service-ca-publisher.pid" 30 "[service-ca]" || return 1
  proc::stop service-ca "${state}/pids/service-ca.pid" 30 "[service-ca]" || return 1
}

# serviceca::status STATE_DIR: a line per process, as hack/local-cluster.sh status prints its
# own; fails unless both run.
serviceca::status() {
  local state="$1" name pid rc=0
  for name in service-ca service-ca-publisher; do
    if pid="$(proc::pid "${state}/pids/${name}.pid")"; then
      printf '  %-24s running (pid %s)\n' "${name}" "${pid}"
    else
      printf '  %-24s stopped\n' "${name}"
      rc=1
    fi
  done
  return "${rc}"
}
