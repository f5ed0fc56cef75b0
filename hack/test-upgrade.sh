#!/usr/bin/env bash
# make test-upgrade (and test-upgrade-short): upgrade this operator on the local cluster from
# its previous release (hack/upgrade/previous-ref) to the working tree's, the way OLM does, and
# measure what the users' operands see (test/upgrade).
#
#   1. The previous release is built from its commit (`git archive` into a cache outside the
#      clone, keyed by the commit: UPGRADE_CACHE [~/.cache/llm-infra-operator/upgrade]), once.
#   2. A local cluster of its own (instance `upgrade`, ports 25xxx, hack/lib/instance.sh), the
#      previous release's deploy/ installed and its operator started.
#   3. The suite (test/upgrade) creates LeaderWorkerSetOperator `cluster`, LLMBatchGateways,
#      Gateways and MCPs in several namespaces and waits until all are Ready. Then it upgrades
#      through the hooks below, as OLM does: the new CRDs first (then the rest of deploy/: RBAC),
#      then the operator replaced (the old process stopped, the new one started). It watches
#      every CR and Deployment throughout, and fails on a pod roll no manifest change explains
#      and on a condition that went False.
#
# Subcommands (the suite's hooks; they reach the same instance through the environment):
#   hack/test-upgrade.sh [run]           everything above, then teardown (the default)
#   UPGRADE_INSTANCE=switching hack/test-upgrade.sh switching
#                                        make test-switching: cert-manager and the ServiceMonitor
#                                        CRD (openshift/lws-operator needs both), the working tree's
#                                        deploy/ installed, the objects each upstream operator makes
#                                        for its CRs put on the cluster, then this operator started
#                                        (test/upgrade/switching_test.go); instance `switching`
#   hack/test-upgrade.sh build-previous  build the previous release into the cache, print its folder
#   hack/test-upgrade.sh install-previous the previous release's deploy/ (built first)
#   hack/test-upgrade.sh start-previous  start the previous release's operator (OPERATOR_ARGS as given)
#   hack/test-upgrade.sh install-current the working tree's deploy/: CRDs first (Established), the rest
#   hack/test-upgrade.sh stop-previous   stop the previous release's operator
#   hack/test-upgrade.sh start-current   start the working tree's operator
#
# Environment (defaults in brackets): those of hack/local-cluster.sh and hack/lib/operator.sh, and
#   UPGRADE_SHORT [false]   the short form: 11 CRs instead of 51 (test/upgrade says which)
#   UPGRADE_TIMEOUT [40m]   go test -timeout
#   KEEP_CLUSTER [false]    leave the cluster running afterwards
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The switching suite runs on an instance of its own (UPGRADE_INSTANCE=switching, which its
# hooks inherit), so both suites can run side by side.
export UPGRADE_INSTANCE="${UPGRADE_INSTANCE:-upgrade}"
export LOCAL_CLUSTER_INSTANCE="${UPGRADE_INSTANCE}"
# shellcheck source=hack/lib/operator.sh
source "${ROOT}/hack/lib/operator.sh"

UPGRADE_CACHE="${UPGRADE_CACHE:-${HOME}/.cache/llm-infra-operator/upgrade}"
PREVIOUS_REF="$(grep -v '^#' "${ROOT}/hack/upgrade/previous-ref" | grep -v '^[[:space:]]*$' | head -n1)"
log() { echo "[upgrade] $*"; }

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

START=${SECONDS}
SUITE_RC=""

# run_upgrade_test TEST RESULT_FILE: the suite's test TEST (test/upgrade, compiled to OP_BIN) against this
# instance, with what it reads of the cluster and the hooks it calls back; its result in
# OP_OUTPUT_DIR/upgrade/RESULT_FILE. Exits with the suite's status.
run_upgrade_test() {
  export KUBECONFIG="${OP_ADMIN_KUBECONFIG}"
  export UPGRADE_AUDIT_LOG="${OP_STATE}/logs/audit.log"
  export UPGRADE_OPERATOR_USER="system:serviceaccount:${OP_NAMESPACE}:${OP_SERVICEACCOUNT}"
  export UPGRADE_OPERATOR_NAMESPACE="${OP_NAMESPACE}"
  export UPGRADE_HOOK="${ROOT}/hack/test-upgrade.sh"
  export UPGRADE_RESULT="${OP_OUTPUT_DIR}/upgrade/$2"
  mkdir -p "$(dirname "${UPGRADE_RESULT}")"
  set +e
  (cd "${ROOT}/test/upgrade" && "${OP_BIN}/upgrade.test" -test.v -test.count=1 -test.run "^$1\$" -test.timeout "${UPGRADE_TIMEOUT:-40m}")
  SUITE_RC=$?
  set -e
  log "suite exited ${SUITE_RC} after $((SECONDS - START))s in total; result: ${UPGRADE_RESULT}"
  exit "${SUITE_RC}"
}

run() {
  cleanup() { op::finish_suite "$1" "${SUITE_RC}" upgrade-logs; }
  proc::on_exit cleanup
  if op::cluster_running; then
    op::die "a local cluster is (partly) running in ${LOCAL_CLUSTER_DIR}; stop it first: $(instance::env) ${OP_CLUSTER} down"
  fi
  # Built before the cluster starts: the builds compete for the CPU with the control plane.
  build_previous >/dev/null
  op::build
  (cd "${ROOT}" && GOFLAGS="-mod=vendor -trimpath" go test -c -o "${OP_BIN}/upgrade.test" ./test/upgrade/)
  WITH_CERT_MANAGER=false op::cluster_up
  install_previous
  start_previous
  # The hooks replace the operator of this instance; teardown stops whichever runs then.
  OP_STARTED_OPERATOR=true
  log "previous release running; set up in $((SECONDS - START))s"

  export UPGRADE_PREVIOUS_REF="${PREVIOUS_REF} ($(previous_commit))"
  run_upgrade_test TestUpgrade "result$([[ "${UPGRADE_SHORT:-false}" == "true" ]] && echo -short).json"
}

# switching: make test-switching (see the header).
switching() {
  cleanup() { op::finish_suite "$1" "${SUITE_RC}" switching-logs; }
  proc::on_exit cleanup
  if op::cluster_running; then
    op::die "a local cluster is (partly) running in ${LOCAL_CLUSTER_DIR}; stop it first: $(instance::env) ${OP_CLUSTER} down"
  fi
  op::build
  (cd "${ROOT}" && GOFLAGS="-mod=vendor -trimpath" go test -c -o "${OP_BIN}/upgrade.test" ./test/upgrade/)
  # openshift/lws-operator needs cert-manager (it stops at a missing Issuer kind) and the
  # ServiceMonitor CRD (it stops at a failed apply before its Deployment): without them the
  # objects it makes could not exist, so both are on the cluster. The gateways' CRs ask for no
  # monitor and no certificate.
  "${ROOT}/hack/optional-crds.sh" render monitoring-core >/dev/null
  WITH_CERT_MANAGER=true op::cluster_up
  KUBECONFIG="${OP_ADMIN_KUBECONFIG}" "${ROOT}/hack/optional-crds.sh" install monitoring-core
  # The README's steps: the upstream operator uninstalled (its operand objects stay: the suite
  # puts them there), this operator installed, then started by the suite.
  install_current
  # The suite starts the operator through its hook; teardown stops it.
  OP_STARTED_OPERATOR=true
  run_upgrade_test TestSwitching switching.json
}

case "${1:-run}" in
  run) run ;;
  switching) switching ;;
  build-previous) build_previous ;;
  # The operands' serving-under-faults spec (test/operands) upgrades its instance under load:
  # UPGRADE_INSTANCE=operands, the operator as it runs there.
  install-previous) build_previous >/dev/null && install_previous ;;
  start-previous) start_previous ;;
  install-current) install_current ;;
  stop-previous) stop_previous ;;
  start-current) start_current ;;
  *)
    sed -n '2,/^$/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
