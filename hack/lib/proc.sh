#!/usr/bin/env bash
# Process helpers for the scripts that run things in the background: the local cluster's
# components (hack/local-cluster.sh) and the operator (hack/lib/operator.sh). Source it; every
# function is proc::*. Nothing here depends on winning a race against the scheduler.
#
# A process is started detached (setsid, its own session: a Ctrl-C aimed at the caller does not
# reach it) and known by a pid file of one line:
#
#   PID STARTTIME BOOT_ID PHASE BINARY
#
# STARTTIME is field 22 of /proc/PID/stat (clock ticks since boot, fixed at fork) and BOOT_ID the
# kernel's boot id, so a pid that was recycled (after the process exited, or after a reboot) is
# never mistaken for ours and never signalled. PHASE is `forked` from the fork until the process
# is seen to have exec'd BINARY, then `exec`. (So BINARY cannot be bash itself: a forked copy of
# the shell would already look like it.)
#
# proc::state PIDFILE prints one of
#   none      no pid file (never started, or stopped by proc::stop)
#   starting  ours, alive, not yet exec'd BINARY (between fork and exec it is a copy of the shell)
#   running   ours, alive, and BINARY (also when BINARY was replaced on disk meanwhile)
#   exited    gone, a zombie, its pid now someone else's, or it exec'd something else after
#             having been BINARY
#
# Environment (defaults in brackets):
#   PROC_EXEC_TIMEOUT [60]   seconds proc::start waits for the exec (a loaded machine may take a
#                            while to schedule the child; this is a bound, not a delay)
#   PROC_LOG_TAIL [25]       lines of a process's log printed when it exited

PROC_EXEC_TIMEOUT="${PROC_EXEC_TIMEOUT:-60}"
PROC_LOG_TAIL="${PROC_LOG_TAIL:-25}"

# The caller's stderr, kept on a descriptor of its own: a check may fail inside proc::poll, whose
# output is silenced, and the reason must still reach the user.
if [[ -z "${PROC_STDERR_FD:-}" ]]; then
  exec {PROC_STDERR_FD}>&2
fi

# proc::poll TIMEOUT INTERVAL CMD... [--negate]: run CMD every INTERVAL seconds until it succeeds
# (fails, with --negate as the last argument), at most TIMEOUT seconds. CMD runs in this shell,
# so a check may `exit` (proc::die) to stop the wait at once. Every wait in the scripts is one of
# these: no blind sleeps.
proc::poll() {
  local timeout="$1" interval="$2"; shift 2
  local negate=false
  if [[ "${!#}" == "--negate" ]]; then
    negate=true
    set -- "${@:1:$(($# - 1))}"
  fi
  local deadline=$((SECONDS + timeout))
  while true; do
    if "$@" >/dev/null 2>&1; then
      [[ "${negate}" == "false" ]] && return 0
    else
      [[ "${negate}" == "true" ]] && return 0
    fi
    ((SECONDS >= deadline)) && return 1
    sleep "${interval}"
  done
}

# proc::die PREFIX MESSAGE [LOG]: print "PREFIX ERROR: MESSAGE" on the caller's stderr, then the
# last PROC_LOG_TAIL lines of LOG when given, and exit 1.
proc::die() {
  local prefix="$1" msg="$2" log="${3:-}"
  {
    echo "${prefix} ERROR: ${msg}"
    if [[ -n "${log}" ]]; then
      proc::log_tail "${log}"
    fi
  } >&"${PROC_STDERR_FD}"
  exit 1
}

# proc::log_tail LOG: its last PROC_LOG_TAIL lines, indented, or a note that it is empty.
proc::log_tail() {
  local log="$1"
  if [[ -s "${log}" ]]; then
    echo "---- last ${PROC_LOG_TAIL} lines of ${log}:"
    tail -n "${PROC_LOG_TAIL}" "${log}" | sed 's/^/    /'
    echo "----"
  else
    echo "---- ${log} is empty"
  fi
}

# The boot id, read once: a pid file written before a reboot names no process of ours.
PROC_BOOT_ID=""
read -r PROC_BOOT_ID </proc/sys/kernel/random/boot_id

# proc::_stat PID: sets PROC_STAT_STATE and PROC_STAT_START from /proc/PID/stat, or fails when
# there is no such process. The command name (field 2) is in parentheses and may hold spaces:
# count from after the last ')'; there STATE is field 3 and STARTTIME field 22. Builtins only:
# the polls call this often on a machine that may be busy.
proc::_stat() {
  local line="" rest
  read -r line 2>/dev/null <"/proc/$1/stat" || [[ -n "${line}" ]] || return 1
  rest="${line##*) }"
  # shellcheck disable=SC2086 # split the fields on purpose
  set -- ${rest}
  PROC_STAT_STATE="$1" PROC_STAT_START="${20}"
}

# proc::_read PIDFILE: sets PROC_PID PROC_START PROC_BOOT PROC_PHASE PROC_BINARY from the pid
# file, or fails when there is none or it is not of this format (an old plain-pid file).
proc::_read() {
  PROC_PID="" PROC_START="" PROC_BOOT="" PROC_PHASE="" PROC_BINARY=""
  [[ -f "$1" ]] || return 1
  read -r PROC_PID PROC_START PROC_BOOT PROC_PHASE PROC_BINARY 2>/dev/null <"$1" || true
  [[ "${PROC_PID}" =~ ^[0-9]+$ && "${PROC_START}" =~ ^[0-9]+$ && -n "${PROC_BINARY}" ]]
}

proc::_write() {
  local pidfile="$1"; shift
  echo "$*" >"${pidfile}.tmp"
  mv -f "${pidfile}.tmp" "${pidfile}"
}

# proc::_state PIDFILE: sets PROC_STATE (see the header) and, when the pid file is readable,
# PROC_PID and the other PROC_* fields.
proc::_state() {
  local pidfile="$1" exe
  PROC_STATE=exited
  if [[ ! -e "${pidfile}" ]]; then
    PROC_STATE=none
    return 0
  fi
  # A pid file we cannot read as ours (garbage, an old format, another boot) names no process
  # of ours.
  proc::_read "${pidfile}" || return 0
  [[ "${PROC_BOOT}" == "${PROC_BOOT_ID}" ]] || return 0
  proc::_stat "${PROC_PID}" || return 0
  [[ "${PROC_STAT_START}" == "${PROC_START}" ]] || return 0
  [[ "${PROC_STAT_STATE}" != "Z" && "${PROC_STAT_STATE}" != "X" ]] || return 0
  exe="$(readlink "/proc/${PROC_PID}/exe" 2>/dev/null || true)"
  if [[ "${exe}" == "${PROC_BINARY}" || "${exe}" == "${PROC_BINARY} (deleted)" ]]; then
    PROC_STATE=running
  elif [[ "${PROC_PHASE}" != "exec" ]]; then
    PROC_STATE=starting
  fi
}

# proc::state PIDFILE: prints none, starting, running or exited (see the header).
proc::state() {
  proc::_state "$1"
  echo "${PROC_STATE}"
}

# proc::alive PIDFILE: ours and starting or running.
proc::alive() {
  proc::_state "$1"
  [[ "${PROC_STATE}" == "starting" || "${PROC_STATE}" == "running" ]]
}

# proc::pid PIDFILE: the pid of our live process, or fail.
proc::pid() {
  proc::alive "$1" || return 1
  echo "${PROC_PID}"
}

# proc::reap PID: sets PROC_EXIT_NOTE to " (status N)" when PID was a background child of this
# shell and is gone (the shell keeps its children's statuses), to "" otherwise. Only for a
# process known to have exited: `wait` on a live child would block.
proc::reap() {
  local rc=0
  PROC_EXIT_NOTE=""
  [[ "$1" =~ ^[0-9]+$ ]] || return 0
  wait "$1" 2>/dev/null || rc=$?
  [[ "${rc}" -ne 127 ]] && PROC_EXIT_NOTE=" (status ${rc})"
  return 0
}

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

# proc::any_alive DIR: some pid file in DIR names a live process of ours.
proc::any_alive() {
  local f
  for f in "$1"/*.pid; do
    [[ -f "${f}" ]] || continue
    proc::alive "${f}" && return 0
  done
  return 1
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
