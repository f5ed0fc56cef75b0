#!/usr/bin/env bash
# The operator as a local process, for hack/lib/operator.sh: build it, start it (a fresh
# ServiceAccount token, the deployed Deployment's environment, detached through hack/lib/proc.sh),
# its pid and health, stop and restart. Separate from installing deploy/ and the cluster's
# lifecycle (hack/lib/operator-cluster.sh) and from the suites' exit hooks
# (hack/lib/operator-suite.sh).
# Sourced by hack/lib/operator.sh after its settings (OP_ROOT, OP_BINARY, OP_LOG, OP_PIDFILE,
# OP_LISTEN, OP_NAMESPACE, OP_SERVICEACCOUNT, OP_SA_KUBECONFIG, OP_OPERAND_IMAGE, OP_CLUSTER,
# OP_START_TIMEOUT, OP_STOP_TIMEOUT, op::log, op::die, op::poll) and hack/lib/proc.sh.

op::build() {
  op::log "building ${OP_BINARY#"${OP_ROOT}/"}"
  mkdir -p "$(dirname "${OP_BINARY}")"
  (cd "${OP_ROOT}" && GOFLAGS="-mod=vendor -trimpath" go build -o "${OP_BINARY}" ./cmd/llm-infra-operator)
}

# op::pid: the pid of the operator we started, while it lives, or fail (hack/lib/proc.sh: a
# recycled pid is never taken for it).
op::pid() { proc::pid "${OP_PIDFILE}"; }

op::is_running() { proc::alive "${OP_PIDFILE}"; }

op::healthy() { curl -skf --max-time 2 "https://${OP_LISTEN}/healthz" | grep -q '^ok$'; }

# op::check_alive: fail with the log's tail when the operator has exited.
op::check_alive() {
  op::is_running && return 0
  proc::reap "${PROC_PID:-}"
  op::die "the operator exited${PROC_EXIT_NOTE}; see ${OP_LOG}" "${OP_LOG}"
}

# op::deployment_env: NAME=VALUE of each RELATED_IMAGE_BATCH_GATEWAY_* variable and of GOGC, as
# the caller's OPERATOR_<NAME> (images: <NAME>) sets it, else as deploy/10_deployment.yaml does
# (one place for the defaults): the local operator runs as the deployed one does. kwok runs no
# container, so locally the images are only names.
op::deployment_env() {
  local name value override
  while read -r name value; do
    value="${value%\"}"
    value="${value#\"}"
    override="${name}"
    [[ "${name}" == GOGC ]] && override="OPERATOR_GOGC"
    printf '%s=%s\n' "${name}" "${!override:-${value}}"
  done < <(awk '/- name: (RELATED_IMAGE_BATCH_GATEWAY_|GOGC$)/ { name = $3; next }
               name != "" && /value:/ { print name, $2; name = "" }' "${OP_ROOT}/deploy/10_deployment.yaml")
}

# op::start: a fresh ServiceAccount token (tokens are bound to the SA's UID, which changes
# whenever the cluster is recreated) unless OPERATOR_KUBECONFIG is given, then the operator,
# detached (hack/lib/proc.sh) so that a Ctrl-C aimed at the calling script does not kill it
# behind the script's back; only op::stop does. Waits for /healthz (OPERATOR_WAIT_HEALTHY).
op::start() {
  if op::is_running; then
    op::log "already running (pid $(op::pid))"
    return 0
  fi
  if [[ "${OPERATOR_SKIP_BUILD:-false}" != "true" || ! -x "${OP_BINARY}" ]]; then
    op::build
  fi
  local kubeconfig="${OPERATOR_KUBECONFIG:-}"
  if [[ -z "${kubeconfig}" ]]; then
    kubeconfig="${OP_SA_KUBECONFIG}"
    "${OP_CLUSTER}" sa-kubeconfig "${OP_NAMESPACE}" "${OP_SERVICEACCOUNT}" "${kubeconfig}" >/dev/null
  fi
  mkdir -p "$(dirname "${OP_LOG}")"
  OP_STARTED_OPERATOR=true
  op::log "starting the operator as ${OP_NAMESPACE}/${OP_SERVICEACCOUNT} (log: ${OP_LOG})"
  echo "===== $(date -u +%FT%TZ) start" >>"${OP_LOG}"
  local -a extra=() images=()
  read -r -a extra <<<"${OPERATOR_ARGS:-}"
  mapfile -t images < <(op::deployment_env)
  proc::start "${OP_PIDFILE}" "${OP_LOG}" "${OP_BINARY}" -- \
    env -u KUBECONFIG RELATED_IMAGE_OPERAND_IMAGE="${OP_OPERAND_IMAGE}" "${images[@]}" "${OP_BINARY}" operator \
    --kubeconfig "${kubeconfig}" \
    --namespace "${OP_NAMESPACE}" \
    --listen "${OP_LISTEN}" \
    "${extra[@]}" || op::die "the operator ${PROC_FAILURE}; see ${OP_LOG}" "${OP_LOG}"
  if [[ "${OPERATOR_WAIT_HEALTHY:-true}" != "true" ]]; then
    op::log "operator running (pid $(op::pid))"
    return 0
  fi
  if ! op::poll "${OP_START_TIMEOUT}" 0.25 op::ready; then
    op::die "the operator did not become healthy within ${OP_START_TIMEOUT}s; see ${OP_LOG}" "${OP_LOG}"
  fi
  op::log "operator running (pid $(op::pid)), /healthz ok on ${OP_LISTEN}"
}

# op::ready: alive (or fail at once with the log's tail) and /healthz answers ok.
op::ready() {
  op::check_alive
  op::healthy
}

op::stop() {
  if op::is_running; then
    local pid="${PROC_PID}"
    proc::stop "the operator" "${OP_PIDFILE}" "${OP_STOP_TIMEOUT}" "[operator]" ||
      op::die "the operator (pid ${pid}) could not be stopped"
    echo "===== $(date -u +%FT%TZ) stopped (pid ${pid})" >>"${OP_LOG}" 2>/dev/null || true
  fi
  rm -f "${OP_PIDFILE}"
}

op::restart() {
  OPERATOR_SKIP_BUILD=true op::stop
  OPERATOR_SKIP_BUILD=true op::start
}
