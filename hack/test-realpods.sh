#!/usr/bin/env bash
# make test-realpods: the real-pods agent's unit tests, then its live test against a local
# cluster of its own (instance `realpods`, ports 24xxx, hack/lib/instance.sh) started with
# REAL_PODS=true and an image table that maps the test image realpods.test/echo to
# realpods-echo. The cluster is brought down afterwards (KEEP_CLUSTER=true leaves it up; its logs
# stay in _output/realpods-cluster/logs, container logs under logs/pods).
#
# Needs root, unshare and iproute2's kernel features (realpods-agent check); fails, saying why,
# where they are missing.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=hack/lib/proc.sh
source "${ROOT}/hack/lib/proc.sh"
# shellcheck source=hack/lib/instance.sh
source "${ROOT}/hack/lib/instance.sh"
export LOCAL_CLUSTER_INSTANCE=realpods
instance::use realpods
KEEP_CLUSTER="${KEEP_CLUSTER:-false}"
CLUSTER="${ROOT}/hack/local-cluster.sh"
log() { echo "[test-realpods] $*"; }

start=${SECONDS}
"${ROOT}/hack/build-cluster-binaries.sh"
MODULE="${ROOT}/hack/tools/realpods"
export GOFLAGS="-mod=mod" GOWORK=off
log "unit tests"
(cd "${MODULE}" && go test -count=1 ./...)
# The live test's program: only this test runs it, so the cluster's build leaves it out.
(cd "${MODULE}" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "${OUTPUT_DIR}/bin/realpods-echo" ./cmd/realpods-echo)

mkdir -p "${LOCAL_CLUSTER_DIR}"
# realpods.test/echo-hidden: the same program where no container can see it, in a directory only
# root may enter under the host's /tmp (as a clone under /tmp is): TestProgramHiddenFromTheContainer.
HIDDEN_DIR="$(mktemp -d /tmp/realpods-hidden.XXXXXX)"
cp "${OUTPUT_DIR}/bin/realpods-echo" "${HIDDEN_DIR}/realpods-echo"
export REALPODS_HIDDEN_PROGRAM="${HIDDEN_DIR}/realpods-echo"
TABLE="${LOCAL_CLUSTER_DIR}/images.tsv"
{
  echo "# image	entrypoint	binary	env (test table of make test-realpods)"
  echo "realpods.test/echo	/echo	${OUTPUT_DIR}/bin/realpods-echo	ECHO_IMAGE=1"
  echo "realpods.test/echo-hidden	/echo	${REALPODS_HIDDEN_PROGRAM}	-"
} >"${TABLE}"

cleanup() {
  rm -rf "${HIDDEN_DIR}"
  if [[ "${KEEP_CLUSTER}" == "true" ]]; then
    log "cluster left up: LOCAL_CLUSTER_INSTANCE=realpods ${CLUSTER} down"
  else
    "${CLUSTER}" down || true
  fi
}
proc::on_exit cleanup

REAL_PODS=true REAL_PODS_SERVICES=false REAL_PODS_IMAGE_TABLE="${TABLE}" WITH_CERT_MANAGER=false SKIP_BUILD=true "${CLUSTER}" up
if [[ "$(cat "${LOCAL_CLUSTER_DIR}/pod-runner")" != "realpods" ]]; then
  log "FAIL: the cluster came up with simulated pods (see the line above): this machine cannot run real pods"
  exit 1
fi
log "live test"
t0=${SECONDS}
(cd "${MODULE}" && KUBECONFIG="${LOCAL_CLUSTER_DIR}/kubeconfig" REALPODS_STATE_DIR="${LOCAL_CLUSTER_DIR}/realpods" \
  REALPODS_NODE_IP="${LOCAL_CLUSTER_NODE_IP}" go test -tags live -count=1 -v -timeout 10m ./test/)
log "live test in $((SECONDS - t0))s; all in $((SECONDS - start))s"
