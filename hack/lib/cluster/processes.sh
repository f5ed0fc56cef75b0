# shellcheck shell=bash
# hack/lib/cluster/processes.sh, sourced by hack/local-cluster.sh: finding, starting, waiting for
# and stopping the cluster's processes. kwokctl keeps one pid file per component in its cluster's
# pids/; cert-manager and the agent are this script's (hack/lib/proc.sh, pid files in PIDS).

# kwok_pid NAME: the pid of kwokctl's live component NAME, or fail.
kwok_pid() {
  local pid=""
  # kwokctl writes the pid with no newline: read fails at the end, with pid set.
  read -r pid 2>/dev/null <"${KWOK_CLUSTER}/pids/$(kwok_name "$1").pid" || [[ -n "${pid}" ]] || return 1
  # A component that exits while `kwokctl create` still runs stays its zombie until kwokctl ends.
  [[ "${pid}" =~ ^[0-9]+$ ]] && proc::_stat "${pid}" && [[ "${PROC_STAT_STATE}" != "Z" ]] && echo "${pid}"
}

log_of() { echo "${LOGS}/$(kwok_name "$1").log"; } # the same name for this script's processes

# Components started by this invocation: every readiness wait checks them all, so one that
# dies while another is awaited is reported at once, with its log.
STARTED=()

# check_started: every component of STARTED is alive (kwokctl's once its pid file is written).
check_started() {
  local c
  for c in "${STARTED[@]}"; do
    case "${c}" in
      cert-manager | realpods | openshift-admission) proc::alive "${PIDS}/${c}.pid" && continue ;;
      *) [[ ! -f "${KWOK_CLUSTER}/pids/$(kwok_name "${c}").pid" ]] || kwok_pid "${c}" >/dev/null && continue ;;
    esac
    die "${c} exited; see $(log_of "${c}")" "$(log_of "${c}")"
  done
}

# wait_for DESCRIPTION CMD...: poll CMD with START_TIMEOUT, checking every started component is
# alive; on timeout show where to look and fail.
wait_for() {
  local what="$1"; shift
  if ! proc::poll "${START_TIMEOUT}" 0.25 ready "$@"; then
    die "timed out after ${START_TIMEOUT}s waiting for ${what}; logs in ${LOGS}"
  fi
}
ready() { check_started && "$@"; }

# Ports: after a process exits the kernel may keep its socket a moment, so `up` right after
# `down` waits until every port is free instead of failing.
all_ports() { echo "${ETCD_PORT} ${ETCD_PEER_PORT} ${APISERVER_PORT} ${KCM_PORT} ${SCHEDULER_PORT} ${KWOK_PORT} ${OPENSHIFT_ADMISSION_PORT}"; }
ports_busy() {
  local p
  for p in $(all_ports); do [[ -n "$(ss -Htln "sport = :${p}" 2>/dev/null)" ]] && return 0; done
  return 1
}
wait_ports_free() {
  if ports_busy && ! proc::poll "${START_TIMEOUT}" 0.25 ports_busy --negate; then
    ss -Htlnp | grep -E ":($(all_ports | tr ' ' '|'))\b" >&2 || true
    die "ports $(all_ports) still in use after ${START_TIMEOUT}s"
  fi
}

# start_proc NAME BINARY ARGS...: one of this script's processes (hack/lib/proc.sh), with the
# words of <NAME>_EXTRA_ARGS.
start_proc() {
  local name="$1" bin="$2" extra_var; shift 2
  extra_var="$(echo "${name}" | tr 'a-z-' 'A-Z_')_EXTRA_ARGS"
  local -a extra=()
  read -r -a extra <<<"${!extra_var:-}"
  log "starting ${name} (log: ${LOGS}/${name}.log)"
  proc::start "${PIDS}/${name}.pid" "${LOGS}/${name}.log" "${bin}" -- "${bin}" "$@" "${extra[@]}" ||
    die "${name} ${PROC_FAILURE}; see ${LOGS}/${name}.log" "${LOGS}/${name}.log"
  STARTED+=("${name}")
}
stop_proc() { proc::stop "$1" "${PIDS}/$1.pid" "${STOP_TIMEOUT}" "[local-cluster]" || die "$1 could not be stopped"; }
