#!/usr/bin/env bash
# Pinned upstream sources: the one copy of reading a pin table and of fetching a pinned tree,
# verified, used by hack/fetch-operands.sh (hack/operands/sources.tsv: the operands' programs)
# and hack/bench-anchors.sh (hack/bench/anchors.tsv: the upstream operators measured side by
# side; hack/test-lws-anchor-e2e.sh runs one's own e2e suite). Source it; functions sources::*.
#
# A pin table is tab-separated, one source a line, `#` comments:
#   name  repository  ref  commit  archive
# <ref> is informational (a tag, or the ref upstream pins); <commit> a full commit id.
#
# Where a tree comes from: when OPERAND_SOURCES names a folder of `git archive` tarballs, the
# pin's <archive> is extracted and its commit checked with `git get-tar-commit-id`; else the
# pinned commit is fetched from its repository (`git fetch --depth 1 <repo> <commit>`) and
# checked with `git rev-parse HEAD`. A user's clone needs nothing but the network; only .ci/run
# points OPERAND_SOURCES at the shared folder.
#
# The caller may define sources_log MESSAGE (default: to stderr with no prefix) and must handle
# a non-zero return (every function returns 1 with a message instead of exiting).

declare -gA SOURCES_REPO SOURCES_COMMIT SOURCES_ARCHIVE SOURCES_FILE_OF
SOURCES_NAMES=()

sources::_log() {
  if declare -F sources_log >/dev/null; then sources_log "$*"; else echo "$*" >&2; fi
}

# sources::load FILE: adds FILE's pins (a later file may not pin a name again).
sources::load() {
  local file="$1" name repo _ref commit archive
  [[ -f "${file}" ]] || { sources::_log "ERROR: ${file} is missing"; return 1; }
  while IFS=$'\t' read -r name repo _ref commit archive; do
    [[ -z "${name}" || "${name}" == \#* ]] && continue
    if [[ ! "${commit}" =~ ^[0-9a-f]{40}$ ]]; then
      sources::_log "ERROR: ${file}: ${name}: '${commit}' is not a full commit id"
      return 1
    fi
    if [[ -n "${SOURCES_COMMIT[${name}]:-}" ]]; then
      sources::_log "ERROR: ${file}: ${name} is pinned in ${SOURCES_FILE_OF[${name}]} already"
      return 1
    fi
    SOURCES_NAMES+=("${name}")
    SOURCES_REPO[${name}]="${repo}" SOURCES_COMMIT[${name}]="${commit}"
    SOURCES_ARCHIVE[${name}]="${archive}" SOURCES_FILE_OF[${name}]="${file}"
  done <"${file}"
}

# sources::commit NAME: NAME's pinned commit.
sources::commit() {
  [[ -n "${SOURCES_COMMIT[$1]:-}" ]] || { sources::_log "ERROR: no pin named '$1'"; return 1; }
  echo "${SOURCES_COMMIT[$1]}"
}

# sources::tree NAME DIR: a tree of NAME's pinned commit in DIR (nothing to do when DIR
# exists), from $OPERAND_SOURCES/<archive> or the repository, verified against the pin.
sources::tree() {
  local name="$1" dir="$2" commit
  commit="$(sources::commit "${name}")" || return 1
  [[ -d "${dir}" ]] && return 0
  if [[ -n "${OPERAND_SOURCES:-}" ]]; then
    local archive="${OPERAND_SOURCES}/${SOURCES_ARCHIVE[${name}]}" got
    [[ -f "${archive}" ]] || { sources::_log "ERROR: ${archive} is missing (OPERAND_SOURCES=${OPERAND_SOURCES})"; return 1; }
    got="$(gzip -dc "${archive}" | git get-tar-commit-id || true)"
    if [[ "${got}" != "${commit}" ]]; then
      sources::_log "ERROR: ${archive} is commit '${got}', ${SOURCES_FILE_OF[${name}]} pins ${commit}"
      return 1
    fi
    sources::_log "${name}: extracting ${archive} (commit ${commit:0:12})"
    mkdir -p "${dir}.tmp"
    # git archive's tarballs hold one top folder, the repository's name.
    tar -xzf "${archive}" -C "${dir}.tmp" --strip-components=1 || { rm -rf "${dir}.tmp"; return 1; }
  else
    sources::_log "${name}: fetching ${SOURCES_REPO[${name}]} at ${commit:0:12}"
    rm -rf "${dir}.tmp"
    git init -q "${dir}.tmp"
    if ! git -C "${dir}.tmp" fetch -q --depth 1 "${SOURCES_REPO[${name}]}" "${commit}"; then
      sources::_log "ERROR: could not fetch ${commit} from ${SOURCES_REPO[${name}]}"
      rm -rf "${dir}.tmp"
      return 1
    fi
    git -C "${dir}.tmp" -c advice.detachedHead=false checkout -q FETCH_HEAD
    if [[ "$(git -C "${dir}.tmp" rev-parse HEAD)" != "${commit}" ]]; then
      sources::_log "ERROR: ${SOURCES_REPO[${name}]}: HEAD is $(git -C "${dir}.tmp" rev-parse HEAD), not the pinned ${commit}"
      rm -rf "${dir}.tmp"
      return 1
    fi
  fi
  # Only a complete, verified tree takes the name DIR: an interrupted fetch is redone.
  mv "${dir}.tmp" "${dir}"
}

# sources::pinned_tree NAME DIR: a tree of NAME's pinned commit in DIR, replaced when the pin
# changes (DIR/.pinned-commit records the commit it holds): for a fixed place, such as the
# target of a go.mod `replace`, that outlives one pin.
sources::pinned_tree() {
  local name="$1" dir="$2" commit
  commit="$(sources::commit "${name}")" || return 1
  [[ "$(cat "${dir}/.pinned-commit" 2>/dev/null)" == "${commit}" ]] && return 0
  rm -rf "${dir}"
  sources::tree "${name}" "${dir}" || return 1
  echo "${commit}" >"${dir}/.pinned-commit"
}
