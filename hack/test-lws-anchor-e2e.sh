#!/usr/bin/env bash
# make test-lws-anchor-e2e: openshift/lws-operator's own e2e suite (its test/e2e, five ginkgo
# specs) run against this operator, which replaces it (issue 30):
#
#   1. The anchor's tree at its pinned commit (hack/bench/anchors.tsv, fetched and verified by
#      hack/lib/sources.sh, cached beside `make bench-anchors`' in ANCHORS_CACHE), its test/e2e
#      compiled with `go test -c` in its own module (modules from the proxy, never vendor/).
#   2. A local cluster (instance `e2e`, hack/lib/instance.sh; simulated pods, cert-manager as
#      upstream's e2e installs it), deploy/ installed in upstream's namespace
#      openshift-lws-operator, which the suite hard-codes, and the operator started there.
#   3. The CR `cluster` from deploy/examples, as upstream's deploy/07_lws-operator.cr.yaml makes
#      it; the suite starts once it is Available and lws-controller-manager too (as upstream's
#      hack/e2e-test.sh waits).
#   4. The suite's binary with -ginkgo.v; its JUnit report is the verdict: every spec passes
#      except those of SPEC_EXCEPTIONS, each with the outcome it must have and why; the
#      difference behind a racing spec is then checked without the race. Then teardown; on
#      failure the cluster's logs are kept (op::finish_suite).
#
# Environment (defaults in brackets): those of hack/local-cluster.sh and hack/lib/operator.sh
# with the `e2e` instance's defaults (LOCAL_CLUSTER_PORT_OFFSET to run beside another), and
#   ANCHORS_CACHE [${XDG_CACHE_HOME:-$HOME/.cache}/llm-infra-operator/anchors]   as bench-anchors
#   OPERAND_SOURCES []      a folder of the pinned archives; unset, the commit is fetched
#   ANCHOR_E2E_TIMEOUT [30m]  the suite binary's -test.timeout
#   KEEP_CLUSTER [false]      leave the cluster and the operator running afterwards
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export LOCAL_CLUSTER_INSTANCE=e2e
# Upstream's suite looks for the controller in its own namespace (test/e2e: operatorNamespace).
export OPERATOR_NAMESPACE=openshift-lws-operator
# shellcheck source=hack/lib/operator.sh
source "${ROOT}/hack/lib/operator.sh"
# shellcheck source=hack/lib/sources.sh
source "${ROOT}/hack/lib/sources.sh"
sources_log() { op::log "$*"; }

ANCHOR=anchor-lws-operator
ANCHORS_CACHE="${ANCHORS_CACHE:-${XDG_CACHE_HOME:-${HOME}/.cache}/llm-infra-operator/anchors}"
SUITE_DIR="${OP_OUTPUT_DIR}/lws-anchor-e2e"
SUITE_BIN="${SUITE_DIR}/lws-operator-e2e.test"
REPORT="${OP_STATE}/logs/anchor-e2e-junit.xml"
KEEP_CLUSTER="${KEEP_CLUSTER:-false}"
START=${SECONDS}
SUITE_RC=""

# The specs that do not simply pass against this operator: full spec text (containers and leaf,
# as ginkgo's report names it), the outcome accepted, and why, tab-separated. Outcomes:
#   failed  the spec must fail: the run fails when it passes, so the row never outlives the difference
#   race    its outcome is a race with the operator, so either is accepted; the difference
#           behind it is checked after the suite, without the race (the function the reason names)
SPEC_EXCEPTIONS=(
  "LWS Operator when managementState is Removed test	race	upstream's Removed changes nothing (its TargetConfigReconciler returns unless Managed), and the spec scales lws-controller-manager to 3 some 20 ms after writing Removed and counts 3 pods, without waiting for the operator; this operator's Removed deletes the controller's objects (docs/differences-from-upstream.md), so the spec fails when the operator deletes first (seen 63 ms after Removed) and passes when its checks come first (seen done in 110 ms); checked by removed_deletes_controller"
)

cleanup() { op::finish_suite "$1" "${SUITE_RC}" lws-anchor-e2e-logs; }
proc::on_exit cleanup

# anchor_tree: the anchor's verified tree, cached by commit under the lock bench-anchors takes.
anchor_tree() {
  local dir
  mkdir -p "${ANCHORS_CACHE}/src"
  dir="${ANCHORS_CACHE}/src/${ANCHOR}-$(sources::commit "${ANCHOR}")"
  (flock 9 && sources::tree "${ANCHOR}" "${dir}") 9>"${ANCHORS_CACHE}/.lock" >&2 || op::die "no verified tree of ${ANCHOR}"
  echo "${dir}"
}

# build_suite TREE: the anchor's test/e2e as a test binary, in its own module (never this
# repository's vendor/ or a go.work).
build_suite() {
  op::log "compiling ${ANCHOR}'s test/e2e"
  mkdir -p "${SUITE_DIR}"
  (cd "$1" && GOFLAGS="-mod=mod -buildvcs=false" GOWORK=off GOTOOLCHAIN=local \
    go test -c -trimpath -o "${SUITE_BIN}" ./test/e2e) || op::die "${ANCHOR}: go test -c ./test/e2e failed"
}

# verdict REPORT: each [It] spec of the JUnit report passed, or has the outcome SPEC_EXCEPTIONS gives it.
verdict() {
  local row name state outcome reason rc=0 count=0
  local -A expected=()
  for row in "${SPEC_EXCEPTIONS[@]}"; do expected["${row%%$'\t'*}"]="${row#*$'\t'}"; done
  [[ -s "$1" ]] || { op::log "no report ($1): the suite did not run"; return 1; }
  # Spec texts hold no character XML escapes; one <testcase> a line.
  while IFS=$'\t' read -r name state; do
    count=$((count + 1))
    if [[ -n "${expected[${name}]+set}" ]]; then
      outcome="${expected[${name}]%%$'\t'*}" reason="${expected[${name}]#*$'\t'}"
      unset "expected[${name}]"
      if [[ "${state}" == failed || ("${outcome}" == race && "${state}" == passed) ]]; then
        op::log "${state} (${outcome} accepted): ${name}: ${reason%%;*}"
      else
        op::log "UNEXPECTED ${state}: ${name}: listed as ${outcome}; remove it from SPEC_EXCEPTIONS" && rc=1
      fi
    elif [[ "${state}" != passed ]]; then
      op::log "FAILED (${state}): ${name}" && rc=1
    fi
  done < <(sed -n 's/.*<testcase name="\[It\] \([^"]*\)" classname="[^"]*" status="\([a-z]*\)".*/\1\t\2/p' "$1")
  for name in "${!expected[@]}"; do op::log "listed in SPEC_EXCEPTIONS, not in the report: ${name}" && rc=1; done
  op::log "${count} specs in the report, ${#SPEC_EXCEPTIONS[@]} of them excepted"
  [[ "${count}" -gt 0 ]] || rc=1
  return "${rc}"
}

# removed_deletes_controller: the difference behind the Removed spec, without its race: Removed
# deletes lws-controller-manager (upstream's keeps it), and Managed brings it back Available.
removed_deletes_controller() {
  local cr=(leaderworkersetoperators.operator.openshift.io cluster) dep=(-n "${OP_NAMESPACE}" deployment/lws-controller-manager) rc=0
  op::kubectl patch "${cr[@]}" --type merge -p '{"spec":{"managementState":"Removed"}}' >/dev/null
  if op::kubectl wait "${dep[@]}" --for=delete --timeout=120s >/dev/null; then
    op::log "managementState Removed deleted lws-controller-manager, as docs/differences-from-upstream.md says"
  else
    op::log "managementState Removed kept lws-controller-manager: the Removed spec's row of SPEC_EXCEPTIONS is stale" && rc=1
  fi
  op::kubectl patch "${cr[@]}" --type merge -p '{"spec":{"managementState":"Managed"}}' >/dev/null
  op::kubectl wait "${dep[@]}" --for=create --timeout=120s >/dev/null &&
    op::kubectl wait "${dep[@]}" --for=condition=Available --timeout=300s >/dev/null || rc=1
  return "${rc}"
}

if op::cluster_running; then
  op::die "a local cluster is (partly) running in ${LOCAL_CLUSTER_DIR}; stop it first: $(instance::env) ${OP_CLUSTER} down"
fi
sources::load "${ROOT}/hack/bench/anchors.tsv" || exit 1
command -v go >/dev/null || op::die "go is required"
# Built before the cluster starts: the builds compete for the CPU with the control plane.
TREE="$(anchor_tree)"
build_suite "${TREE}"
op::build
op::cluster_up
op::install
OPERATOR_SKIP_BUILD=true op::start
op::log "creating the CR cluster from deploy/examples/leaderworkersetoperator_cluster.yaml"
op::kubectl apply -f "${ROOT}/deploy/examples/leaderworkersetoperator_cluster.yaml" >/dev/null
op::wait_available 300
op::kubectl -n "${OP_NAMESPACE}" wait deployment lws-controller-manager --for=condition=Available --timeout=300s >/dev/null
op::log "set up in $((SECONDS - START))s; running ${ANCHOR}'s e2e suite"

rm -f "${REPORT}"
cd "${TREE}/test/e2e"
KUBECONFIG="${OP_ADMIN_KUBECONFIG}" op::run_suite "${SUITE_BIN}" -test.v -test.timeout "${ANCHOR_E2E_TIMEOUT:-30m}" \
  -ginkgo.v -ginkgo.junit-report "${REPORT}"
op::log "the suite exited ${SUITE_RC} after $((SECONDS - START))s in total"
SUITE_RC=0
verdict "${REPORT}" || SUITE_RC=1
removed_deletes_controller || SUITE_RC=1
exit "${SUITE_RC}"
