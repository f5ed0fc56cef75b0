#!/usr/bin/env bash
# make test-olm: install this operator through OLM itself and upgrade it from the previous release
# (hack/upgrade/previous-ref) the way OLM does, on a local cluster whose pods run for real
# (test/olm). OLM's olm and catalog operators and opm are built from their pinned modules
# (hack/tools/olm: the module proxy lists no version of them but serves the exact ones), and run
# as local processes against the cluster, as the operator does in the other suites; the suite
# serves the two bundles as a file-based catalog with opm, subscribes, approves each InstallPlan
# and checks what OLM made.
#
#   1. OLM's programs and CRDs (OLM=true hack/build-cluster-binaries.sh), the operator and the
#      previous release (hack/lib/upgrade-releases.sh's cache) built.
#   2. The real-pod agent's table maps one image per release to that release's binary (the
#      catalog renames each CSV's operator image to it: test/olm/catalog), so the operator OLM
#      deploys really runs, as the CSV's ServiceAccount with the CSV's permissions; the operands'
#      images stay simulated.
#   3. The cluster (instance `upgrade`: make test-upgrade and make test-olm do not run side by
#      side), OLM's CRDs, then olm and catalog started; the suite; teardown.
#
# OLM's olm and catalog operators each serve health and metrics on port 8080 of every address
# (upstream's code fixes it; the second to start logs that it is taken and runs on).
#
# Environment: those of hack/local-cluster.sh and hack/lib/operator.sh, and
#   OLM_TIMEOUT [30m]   go test -timeout        KEEP_CLUSTER [false]   leave everything running
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export LOCAL_CLUSTER_INSTANCE="${LOCAL_CLUSTER_INSTANCE:-upgrade}"
# shellcheck source=hack/lib/operator.sh
source "${ROOT}/hack/lib/operator.sh"

log() { echo "[olm] $*"; }
# shellcheck source=hack/lib/upgrade-releases.sh
source "${ROOT}/hack/lib/upgrade-releases.sh"

START=${SECONDS}
SUITE_RC=""
OLM_DIR="${OP_OUTPUT_DIR}/olm"
# One image per release (any names the agent's table can tell apart; never pulled).
PREVIOUS_IMAGE="olm.test.local/llm-infra-operator-previous:olm-test"
CURRENT_IMAGE="olm.test.local/llm-infra-operator-current:olm-test"
# The catalog's port: the instance's API server port plus two (plus one is OpenShift's admission).
CATALOG_PORT=$((APISERVER_PORT + 2))

stop_olm() {
  local name
  for name in catalog olm; do
    proc::stop "${name}" "${OP_STATE}/pids/olm-${name}.pid" 30 "[olm]" || true
  done
}
cleanup() {
  [[ "${KEEP_CLUSTER:-false}" == "true" ]] || stop_olm
  op::finish_suite "$1" "${SUITE_RC}" olm-logs
}
proc::on_exit cleanup

if op::cluster_running; then
  op::die "a local cluster is (partly) running in ${LOCAL_CLUSTER_DIR}; stop it first: $(instance::env) ${OP_CLUSTER} down"
fi
# Built before the cluster starts: the builds compete for the CPU with the control plane.
OLM=true "${ROOT}/hack/build-cluster-binaries.sh"
previous="$(build_previous)"
op::build
(cd "${ROOT}" && GOFLAGS="-mod=vendor -trimpath" go test -c -o "${OP_BIN}/olm.test" ./test/olm/)
"${ROOT}/hack/optional-crds.sh" render monitoring-core >/dev/null

# The agent's table: each release's image runs its binary (the Dockerfile's ENTRYPOINT and USER).
mkdir -p "${OLM_DIR}"
{
  printf '%s\t/usr/bin/llm-infra-operator\t%s\t-\t65532:65532\n' "${PREVIOUS_IMAGE%:*}" "${previous}/bin/llm-infra-operator"
  printf '%s\t/usr/bin/llm-infra-operator\t%s\t-\t65532:65532\n' "${CURRENT_IMAGE%:*}" "${OP_BINARY}"
} >"${OLM_DIR}/images.tsv"
REAL_PODS=true REAL_PODS_SERVICES=false REAL_PODS_IMAGE_TABLE="${OLM_DIR}/images.tsv" WITH_CERT_MANAGER=false \
  SKIP_BUILD=true op::cluster_up
[[ "$(cat "${OP_STATE}/pod-runner" 2>/dev/null)" == "realpods" ]] ||
  op::die "the cluster's pods are simulated (hack/local-cluster.sh said why above): make test-olm needs real pods"

# The bundle holds a ServiceMonitor and a PrometheusRule: OLM refuses to install it on a cluster
# without the Prometheus operator's CRDs (OpenShift has them; docs/olm-bundle.md says so for plain
# Kubernetes), so the cluster has them, as OpenShift's would.
KUBECONFIG="${OP_ADMIN_KUBECONFIG}" "${ROOT}/hack/optional-crds.sh" install monitoring-core
# OLM's CRDs (server-side: the CSV CRD is larger than client-side apply's annotation allows),
# then its two operators, as upstream's quickstart deploys them but as local processes.
op::kubectl apply --server-side -f "${OP_BIN}/olm-crds.yaml" >/dev/null
op::kubectl wait --for=condition=Established --timeout=120s -f "${OP_BIN}/olm-crds.yaml" >/dev/null
op::kubectl create namespace olm >/dev/null
export KUBECONFIG="${OP_ADMIN_KUBECONFIG}"
proc::start "${OP_STATE}/pids/olm-olm.pid" "${OP_STATE}/logs/olm.log" "${OP_BIN}/olm" -- \
  "${OP_BIN}/olm" --namespace olm --writeStatusName "" ||
  op::die "olm: ${PROC_FAILURE}" "${OP_STATE}/logs/olm.log"
proc::start "${OP_STATE}/pids/olm-catalog.pid" "${OP_STATE}/logs/olm-catalog.log" "${OP_BIN}/catalog" -- \
  "${OP_BIN}/catalog" --namespace olm --kubeconfig "${OP_ADMIN_KUBECONFIG}" --writeStatusName "" ||
  op::die "catalog: ${PROC_FAILURE}" "${OP_STATE}/logs/olm-catalog.log"
log "OLM running; set up in $((SECONDS - START))s"

export OLM_PREVIOUS_BUNDLE="${previous}/src" OLM_CURRENT_BUNDLE="${ROOT}"
export OLM_PREVIOUS_IMAGE="${PREVIOUS_IMAGE}" OLM_CURRENT_IMAGE="${CURRENT_IMAGE}"
export OLM_OPM="${OP_BIN}/opm" OLM_CATALOG_PORT="${CATALOG_PORT}" OLM_LOGS="${OP_STATE}/logs"
cd "${ROOT}/test/olm"
op::run_suite "${OP_BIN}/olm.test" -test.v -test.count=1 -test.timeout "${OLM_TIMEOUT:-30m}"
log "suite exited ${SUITE_RC} after $((SECONDS - START))s in total"
exit "${SUITE_RC}"
