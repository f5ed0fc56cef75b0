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
#      except those of EXPECTED_FAILURES, which must fail (the run fails when one passes), then
#      teardown. On failure the cluster's logs are kept (op::finish_suite).
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

# The specs that fail against this operator by design: full spec text (containers and leaf,
# as ginkgo's report names it), a tab, and the reason. Each must fail; one that passes fails the run.
EXPECTED_FAILURES=(
  "LWS Operator when managementState is Removed test	upstream's Removed changes nothing (its TargetConfigReconciler returns unless Managed), so the suite scales lws-controller-manager to 3 while Removed; this operator's Removed deletes the controller's objects as the OpenShift operator API defines it (docs/differences-from-upstream.md, managementState: Removed), so the scale finds no Deployment"
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

# verdict REPORT: each [It] spec of the JUnit report passed, or failed if it is expected to.
verdict() {
  local row name state reason rc=0 count=0
  local -A expected=()
  for row in "${EXPECTED_FAILURES[@]}"; do expected["${row%%$'\t'*}"]="${row#*$'\t'}"; done
  [[ -s "$1" ]] || { op::log "no report ($1): the suite did not run"; return 1; }
  # Spec texts hold no character XML escapes; one <testcase> a line.
  while IFS=$'\t' read -r name state; do
    count=$((count + 1))
    if [[ -n "${expected[${name}]+set}" ]]; then
      reason="${expected[${name}]}"
      unset "expected[${name}]"
      if [[ "${state}" == failed ]]; then
        op::log "expected failure: ${name} (${reason%%;*})"
      else
        op::log "UNEXPECTED ${state}: ${name}: listed as an expected failure; remove it from EXPECTED_FAILURES" && rc=1
      fi
    elif [[ "${state}" != passed ]]; then
      op::log "FAILED (${state}): ${name}" && rc=1
    fi
  done < <(sed -n 's/.*<testcase name="\[It\] \([^"]*\)" classname="[^"]*" status="\([a-z]*\)".*/\1\t\2/p' "$1")
  for name in "${!expected[@]}"; do op::log "expected failure not in the report: ${name}" && rc=1; done
  op::log "${count} specs in the report, ${#EXPECTED_FAILURES[@]} expected to fail"
  [[ "${count}" -gt 0 ]] || rc=1
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
exit "${SUITE_RC}"
