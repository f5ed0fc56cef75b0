#!/usr/bin/env bash
# make test-e2e-local: a local cluster without cert-manager (so the suite sees it missing and
# starts it itself), deploy/ installed, the operator running as a local process with its
# ServiceAccount's permissions, then the e2e suite (test/e2e), then teardown. Exits with the
# suite's status. On failure the logs are kept (copied aside) and their place is printed.
#
# The cluster is its own instance (state in _output/e2e-cluster, ports 32xxx), so the suite
# runs beside `make run-local` (_output/local-cluster, ports 1xxxx) and `make bench`
# (_output/bench-cluster, ports 2xxxx) on the same machine. It refuses to start when a cluster
# already runs in its directory, and stops only what it started.
#
# Environment (defaults in brackets): those of hack/local-cluster.sh and hack/lib/operator.sh,
# with the `e2e` instance's defaults (hack/lib/instance.sh: LOCAL_CLUSTER_DIR [_output/e2e-cluster],
# ETCD_PORT [32379] ETCD_PEER_PORT [32380] APISERVER_PORT [32443] KCM_PORT [32257]
# SCHEDULER_PORT [32259] OPERATOR_LISTEN [127.0.0.1:32543]), and
#   E2E_TIMEOUT [45m]     go test -timeout
#   E2E_ARGS []           extra go test arguments, e.g. -ginkgo.focus=drift
#   KEEP_CLUSTER [false]  leave the cluster and the operator running afterwards
#   GPU_RELEASE_GIVE_UP [45s]  the operator's give-up bound of a GPU's release (its default: 10m)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export LOCAL_CLUSTER_INSTANCE=e2e
# shellcheck source=hack/lib/operator.sh
source "${ROOT}/hack/lib/operator.sh"

E2E_TIMEOUT="${E2E_TIMEOUT:-45m}"
KEEP_CLUSTER="${KEEP_CLUSTER:-false}"
START=${SECONDS}
SUITE_RC=""

cleanup() { op::finish_suite "$1" "${SUITE_RC}" e2e-logs; }
proc::on_exit cleanup

# The suite needs a fresh cluster (no cert-manager CRDs). One left running in this directory
# (KEEP_CLUSTER, an interrupted run) is not ours to take down silently.
if op::cluster_running; then
  op::die "a local cluster is (partly) running in ${LOCAL_CLUSTER_DIR}; stop it first: $(instance::env) ${OP_CLUSTER} down"
fi
# Built before the cluster starts: the build competes for the CPU with the control plane. So
# does rendering the optional CRDs from their modules, which the suite installs and removes.
op::build
"${ROOT}/hack/optional-crds.sh" render all monitoring-core >/dev/null
WITH_CERT_MANAGER=false op::cluster_up
op::install
# The GPU kind's provider is the suite's fake RunPod (test/e2e/agents_test.go), served on loopback
# at the port after the operator's: its API and the proxy in front of its pods, so nothing the
# GPU specs make the operator send leaves the machine.
gpu_fake="127.0.0.1:$(( ${OP_LISTEN##*:} + 1 ))"
export GPU_RUNPOD_API_URL="http://${gpu_fake}/v1" GPU_RUNPOD_PROXY_URL="http://${gpu_fake}/proxy"
# A deleted GPU whose provider refuses the release gives up after this instead of 10 minutes,
# so that GP5 can wait for it; the suite reads the same variable for its bound.
export GPU_RELEASE_GIVE_UP="${GPU_RELEASE_GIVE_UP:-45s}"
OPERATOR_SKIP_BUILD=true op::start
op::log "set up in $((SECONDS - START))s; running the e2e suite"

export KUBECONFIG="${OP_ADMIN_KUBECONFIG}"
export E2E_OPERATOR_NAMESPACE="${OP_NAMESPACE}"
export E2E_START_CERT_MANAGER="${OP_CLUSTER} start-cert-manager"
export E2E_RESTART_OPERATOR="${ROOT}/hack/lib/operator.sh restart"
export E2E_OPERATOR_PID_CMD="${ROOT}/hack/lib/operator.sh pid"
export E2E_OPERATOR_LOG="${OP_LOG}"
export E2E_OPERATOR_METRICS_URL="https://${OP_LISTEN}/metrics"
# The optional APIs' CRDs (Gateway API, Prometheus operator) come and go during the suite.
export E2E_INSTALL_CRDS="${ROOT}/hack/optional-crds.sh install"
export E2E_UNINSTALL_CRDS="${ROOT}/hack/optional-crds.sh uninstall"
cd "${ROOT}"
# shellcheck disable=SC2086 # E2E_ARGS is a word list on purpose
GOFLAGS="-mod=vendor -trimpath" op::run_suite go test ./test/e2e/... -count=1 -timeout "${E2E_TIMEOUT}" -v -ginkgo.v ${E2E_ARGS:-}
op::log "e2e suite exited ${SUITE_RC} after $((SECONDS - START))s in total"
exit "${SUITE_RC}"
