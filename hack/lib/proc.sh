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

# The parts, by responsibility: the pid files and what they prove, then starting and stopping.
# shellcheck source=hack/lib/proc-pidfile.sh
source "$(dirname "${BASH_SOURCE[0]}")/proc-pidfile.sh"
# shellcheck source=hack/lib/proc-run.sh
source "$(dirname "${BASH_SOURCE[0]}")/proc-run.sh"
