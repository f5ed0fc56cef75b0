#!/usr/bin/env bash
# make test-openshift-serviceca: OpenShift's service CA on the local cluster
# (hack/openshift/serviceca.sh): servicecatool's unit tests, then the live test
# (hack/openshift/servicecalive: a Service's serving certificate verified against
# openshift-service-ca.crt, the CA bundle injected into a MutatingWebhookConfiguration, a CRD's
# conversion webhook, an APIService and a ConfigMap) against a local cluster with the service CA
# started, which is brought down afterwards (KEEP_CLUSTER=true leaves it up).
#
# The cluster is the `local` instance's ports (hack/lib/instance.sh) in a state directory of its
# own (_output/serviceca-cluster): beside a `make cluster-up` of the same checkout, set
# LOCAL_CLUSTER_PORT_OFFSET.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=hack/lib/proc.sh
source "${ROOT}/hack/lib/proc.sh"
# shellcheck source=hack/lib/instance.sh
source "${ROOT}/hack/lib/instance.sh"
export LOCAL_CLUSTER_DIR="${LOCAL_CLUSTER_DIR:-${OUTPUT_DIR:-${ROOT}/_output}/serviceca-cluster}"
instance::use local
# shellcheck source=hack/openshift/serviceca.sh
source "${ROOT}/hack/openshift/serviceca.sh"
KEEP_CLUSTER="${KEEP_CLUSTER:-false}"
CLUSTER="${ROOT}/hack/local-cluster.sh"
log() { echo "[test-openshift-serviceca] $*"; }

start=${SECONDS}
t0=${SECONDS}
serviceca::build
log "service CA built in $((SECONDS - t0))s"
log "unit tests"
(cd "${ROOT}" && go test -count=1 ./hack/openshift/servicecatool/)

cleanup() {
  if [[ "${KEEP_CLUSTER}" == "true" ]]; then
    log "cluster left up: LOCAL_CLUSTER_DIR=${LOCAL_CLUSTER_DIR} LOCAL_CLUSTER_PORT_OFFSET=${LOCAL_CLUSTER_PORT_OFFSET:-0} ${CLUSTER} down (stop the service CA first: source hack/openshift/serviceca.sh; serviceca::stop ${LOCAL_CLUSTER_DIR})"
    return 0
  fi
  serviceca::stop "${LOCAL_CLUSTER_DIR}" || true
  "${CLUSTER}" down || true
}
proc::on_exit cleanup

WITH_CERT_MANAGER=false "${CLUSTER}" up
t0=${SECONDS}
serviceca::start "${LOCAL_CLUSTER_DIR}/kubeconfig" "${LOCAL_CLUSTER_DIR}"
log "service CA started in $((SECONDS - t0))s"
serviceca::status "${LOCAL_CLUSTER_DIR}"
log "live test"
t0=${SECONDS}
(cd "${ROOT}" && SERVICE_CA_KUBECONFIG="${LOCAL_CLUSTER_DIR}/kubeconfig" go test -count=1 -v -timeout 5m ./hack/openshift/servicecalive/)
log "live test in $((SECONDS - t0))s; all in $((SECONDS - start))s"
