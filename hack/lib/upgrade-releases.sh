#!/usr/bin/env bash
# The two releases of hack/test-upgrade.sh: the previous release (hack/upgrade/previous-ref)
# found or fetched, built once per commit into UPGRADE_CACHE, and the suite's hooks that
# install and start it or the working tree's (with_release runs an op:: function against
# another tree's deploy/). Separate from the suites (hack/lib/upgrade-suites.sh), which call
# these.
# Sourced by hack/test-upgrade.sh and hack/test-olm.sh after their settings (ROOT, log) and
# hack/lib/operator.sh (op::*, OP_ROOT, OP_OPERAND_IMAGE).

# Where the previous release is built (outside the clone, shared by clones) and which commit it
# is: the first line of hack/upgrade/previous-ref that is neither a comment nor blank.
UPGRADE_CACHE="${UPGRADE_CACHE:-${XDG_CACHE_HOME:-${HOME}/.cache}/llm-infra-operator/upgrade}"
PREVIOUS_REF="$(grep -v '^#' "${ROOT}/hack/upgrade/previous-ref" | grep -v '^[[:space:]]*$' | head -n1)"

# previous_commit: the full commit of the previous release. A shallow clone may lack it: then it
# is fetched from the clone's origin once (the ref is a full commit id, which a fetch can name).
previous_commit() {
  if ! git -C "${ROOT}" rev-parse --quiet --verify "${PREVIOUS_REF}^{commit}" 2>/dev/null; then
    log "the previous release ${PREVIOUS_REF} is not in this clone; fetching it from origin" >&2
    git -C "${ROOT}" fetch --quiet --depth=1 origin "${PREVIOUS_REF}" >&2 ||
      op::die "cannot find the previous release ${PREVIOUS_REF} (hack/upgrade/previous-ref) in this clone or its origin"
    git -C "${ROOT}" rev-parse --verify "${PREVIOUS_REF}^{commit}"
  fi
}

# previous_dir: the cache folder of the previous release (src/ and bin/llm-infra-operator).
previous_dir() { echo "${UPGRADE_CACHE}/$(previous_commit)"; }

# build_previous: the previous release's source (git archive, so no worktree of this clone is
# touched) and its operator binary, built once per commit; concurrent builds each use a
# temporary folder and the first to finish wins.
build_previous() {
  local dir tmp
  dir="$(previous_dir)"
  if [[ -x "${dir}/bin/llm-infra-operator" && -d "${dir}/src/deploy" ]]; then
    echo "${dir}"
    return 0
  fi
  mkdir -p "${UPGRADE_CACHE}"
  tmp="$(mktemp -d "${UPGRADE_CACHE}/.build.XXXXXX")"
  log "building the previous release ${PREVIOUS_REF} ($(previous_commit)) in ${tmp}" >&2
  mkdir -p "${tmp}/src" "${tmp}/bin"
  git -C "${ROOT}" archive "$(previous_commit)" | tar -x -C "${tmp}/src"
  (cd "${tmp}/src" && GOFLAGS="-mod=vendor -trimpath" CGO_ENABLED=0 go build -o "${tmp}/bin/llm-infra-operator" ./cmd/llm-infra-operator) >&2
  if ! mv -T "${tmp}" "${dir}" 2>/dev/null; then
    rm -rf "${tmp}" # another build finished first
  fi
  echo "${dir}"
}

# with_release DIR FUNCTION...: run an op:: function against another tree's deploy/ (its CRDs,
# RBAC and the Deployment's images), in a subshell.
with_release() {
  local dir="$1"
  shift
  (
    OP_ROOT="${dir}"
    OP_OPERAND_IMAGE="registry.k8s.io/lws/lws:$(cat "${dir}/operand-git-ref")"
    "$@"
  )
}

install_previous() { with_release "$(previous_dir)/src" op::install; }

start_previous() {
  local dir
  dir="$(previous_dir)"
  OPERATOR_BINARY="${dir}/bin/llm-infra-operator" OP_BINARY="${dir}/bin/llm-infra-operator" OPERATOR_SKIP_BUILD=true \
    with_release "${dir}/src" op::start
}

stop_previous() { op::stop; }

install_current() { op::install; }

start_current() { OPERATOR_SKIP_BUILD=true op::start; }
