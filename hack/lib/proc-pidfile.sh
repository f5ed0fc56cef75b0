#!/usr/bin/env bash
# The pid files of hack/lib/proc.sh (format and states in its header): the boot id, reading
# /proc/PID/stat, reading and writing a pid file, the state it proves (proc::state, proc::alive,
# proc::pid, proc::any_alive) and reaping a child's exit status. Separate from starting and
# stopping (hack/lib/proc-run.sh), which build on these, because the checks alone are what the
# polls call.
# Sourced by hack/lib/proc.sh; needs nothing else.

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

# proc::any_alive DIR: some pid file in DIR names a live process of ours.
proc::any_alive() {
  local f
  for f in "$1"/*.pid; do
    [[ -f "${f}" ]] || continue
    proc::alive "${f}" && return 0
  done
  return 1
}
