#!/usr/bin/env bash
# Starting and stopping for hack/lib/proc.sh: proc::start (detached, waits for the exec),
# proc::stop (TERM, then KILL, only a process the pid file proves ours) and the scripts' exit
# hook (proc::on_exit). Separate from the pid files' reading (hack/lib/proc-pidfile.sh), on
# which these build.
# Sourced by hack/lib/proc.sh after its settings (PROC_EXEC_TIMEOUT, PROC_STDERR_FD, proc::poll)
# and hack/lib/proc-pidfile.sh.

# proc::start PIDFILE LOG BINARY [--] CMD...: run CMD (which ends up exec'ing BINARY, e.g.
# `BINARY ARGS` or `env VAR=x BINARY ARGS`) detached in its own session, output appended to LOG,
# no stdin, and no other descriptor of the caller (a long-lived child holding, say, a lock or the
# caller's pipe would keep them taken). Records the pid file, then waits until the process has
# exec'd BINARY. Fails when the process exits first (or does not exec within PROC_EXEC_TIMEOUT),
# with PROC_FAILURE saying so, e.g. "exited during start-up (status 2)": the caller reports it,
# with the tail of LOG.
proc::start() {
  local pidfile="$1" log="$2" binary="$3"; shift 3
  [[ "${1:-}" == "--" ]] && shift
  PROC_FAILURE=""
  [[ -x "${binary}" ]] || { PROC_FAILURE="cannot start: ${binary} is missing"; return 1; }
  binary="$(readlink -f "${binary}")"
  mkdir -p "$(dirname "${pidfile}")" "$(dirname "${log}")"
  # With job control on (set -m) the child would lead its own process group and setsid would
  # fork, so $! would not be the process; scripts run without it, this makes sure.
  local monitor=false
  [[ $- == *m* ]] && { monitor=true; set +m; }
  (
    exec >>"${log}" 2>&1 </dev/null
    local fd
    for fd in /proc/"${BASHPID}"/fd/*; do
      fd="${fd##*/}"
      if ((fd > 2)); then eval "exec ${fd}>&-"; fi
    done
    # Not a process group leader (see above): setsid does not fork, and $! is the process.
    exec setsid "$@"
  ) &
  local pid=$!
  [[ "${monitor}" == "true" ]] && set -m
  # The start time is the fork's, readable at once: the child exists from here on, whether or not
  # it has been scheduled yet.
  if ! proc::_stat "${pid}"; then
    proc::reap "${pid}"
    PROC_FAILURE="(pid ${pid}) exited at once${PROC_EXIT_NOTE}"
    return 1
  fi
  local start="${PROC_STAT_START}"
  proc::_write "${pidfile}" "${pid} ${start} ${PROC_BOOT_ID} forked ${binary}"
  local deadline=$((SECONDS + PROC_EXEC_TIMEOUT))
  while true; do
    proc::_state "${pidfile}"
    case "${PROC_STATE}" in
      running)
        proc::_write "${pidfile}" "${pid} ${start} ${PROC_BOOT_ID} exec ${binary}"
        return 0
        ;;
      exited)
        proc::reap "${pid}"
        PROC_FAILURE="(pid ${pid}) exited during start-up${PROC_EXIT_NOTE}"
        return 1
        ;;
    esac
    if ((SECONDS >= deadline)); then
      PROC_FAILURE="(pid ${pid}) did not exec ${binary} within ${PROC_EXEC_TIMEOUT}s"
      return 1
    fi
    sleep 0.02
  done
}

# proc::stop NAME PIDFILE TIMEOUT [PREFIX]: TERM, up to TIMEOUT seconds, then KILL, and wait until
# the process is really gone; then remove the pid file. Signals only a process the pid file
# proves ours (a recycled pid is left alone). Prints "PREFIX stopping NAME (pid N)".
proc::stop() {
  local name="$1" pidfile="$2" timeout="$3" prefix="${4:-}"
  local pid
  if ! pid="$(proc::pid "${pidfile}")"; then
    rm -f "${pidfile}"
    return 0
  fi
  echo "${prefix:+${prefix} }stopping ${name} (pid ${pid})"
  kill -TERM "${pid}" 2>/dev/null || true
  if ! proc::poll "${timeout}" 0.1 proc::alive "${pidfile}" --negate; then
    echo "${prefix:+${prefix} }${name} did not stop within ${timeout}s: sending KILL"
    kill -KILL "${pid}" 2>/dev/null || true
    if ! proc::poll 10 0.1 proc::alive "${pidfile}" --negate; then
      echo "${name} (pid ${pid}) survived KILL" >&"${PROC_STDERR_FD}"
      return 1
    fi
  fi
  # Reap it when it was our child, so no zombie outlives the stop; `wait` only on a pid that is
  # gone or a zombie (it would block on a live one).
  if ! proc::_stat "${pid}" || [[ "${PROC_STAT_STATE}" == "Z" ]]; then
    wait "${pid}" 2>/dev/null || true
  fi
  rm -f "${pidfile}"
}

# proc::on_exit FUNC: run `FUNC RC` once when the script ends, however it ends (exit, error
# under set -e, Ctrl-C, TERM), then exit with RC (130 for INT, 143 for TERM). FUNC may change
# the exit status by setting PROC_EXIT_RC.
proc::on_exit() {
  PROC_ON_EXIT="$1"
  trap 'proc::_exit_hook' EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
}

proc::_exit_hook() {
  PROC_EXIT_RC=$?
  trap - EXIT INT TERM
  "${PROC_ON_EXIT}" "${PROC_EXIT_RC}" || true
  exit "${PROC_EXIT_RC}"
}
