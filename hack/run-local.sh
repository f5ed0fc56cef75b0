#!/usr/bin/env bash
# make run-local: the local cluster (hack/local-cluster.sh), deploy/ installed, the operator
# running as a local process with its ServiceAccount's permissions, and the sample CRs applied:
# the LeaderWorkerSetOperator, an LLMBatchGateway (in namespace BATCH_NAMESPACE, with a
# placeholder credentials Secret) and an inference Gateway (in namespace GATEWAY_NAMESPACE, with
# a placeholder provider key). Waits until they are Available and Ready, prints how to look,
# and keeps running; Ctrl-C stops the operator and brings the cluster down.
#
# Environment: those of hack/local-cluster.sh (WITH_CERT_MANAGER, SKIP_BUILD, ...) and
# hack/lib/operator.sh (OPERATOR_ARGS, OPERAND_IMAGE, ...); AVAILABLE_TIMEOUT [180] seconds;
# BATCH_NAMESPACE [batch-gateway-sample]; GATEWAY_NAMESPACE [inference-gateway-sample];
# KEEP_CLUSTER [false]: on exit stop only the operator and leave the cluster up. A cluster that
# was already running is reused and always left up.
#
# REAL_PODS [auto]: the operands' pods run as real processes (hack/tools/realpods), their programs
# built from the pinned sources (make fetch-operands), with the backing services of
# hack/operands/services.sh, and the samples of hack/operands/samples/ instead of the placeholder
# ones (with an Agent beside the Gateway, and a LeaderWorkerSet in namespace LWS_NAMESPACE
# [lws-sample]); run-local then sends a first chat completion, waits for the Agent's card and a
# chat completion through the LeaderWorkerSet, and prints how to use them. `auto`:
# on when this machine can (root, unshare, ip, the agent), else it says why and the pods are
# simulated (kwok). true: fail when it cannot; false: simulated.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The `local` instance of hack/lib/instance.sh: _output/local-cluster, ports 1xxxx.
# shellcheck source=hack/lib/operator.sh
source "${ROOT}/hack/lib/operator.sh"

AVAILABLE_TIMEOUT="${AVAILABLE_TIMEOUT:-180}"
# shellcheck source=hack/operands/lib.sh
source "${ROOT}/hack/operands/lib.sh"
BATCH_NAMESPACE="${BATCH_NAMESPACE:-batch-gateway-sample}"
GATEWAY_NAMESPACE="${GATEWAY_NAMESPACE:-inference-gateway-sample}"
LWS_NAMESPACE="${LWS_NAMESPACE:-lws-sample}"
RUN_START=${SECONDS}

# The parts, by responsibility: the samples applied and waited for, then the closing message.
# shellcheck source=hack/lib/run-local-samples.sh
source "${ROOT}/hack/lib/run-local-samples.sh"
# shellcheck source=hack/lib/run-local-usage.sh
source "${ROOT}/hack/lib/run-local-usage.sh"

REAL_PODS="${REAL_PODS:-auto}"
if [[ "${REAL_PODS}" != "false" ]]; then
  if services::real_pods_possible; then
    REAL_PODS=true
  elif [[ "${REAL_PODS}" == "true" ]]; then
    op::die "REAL_PODS=true, but real pods cannot run here: ${SERVICES_REAL_PODS_WHY}"
  else
    op::log "real pods cannot run here (${SERVICES_REAL_PODS_WHY}): the pods are simulated (kwok)"
    REAL_PODS=false
  fi
fi
export REAL_PODS
if [[ "${REAL_PODS}" == "true" ]]; then
  # Built once into the cache outside the clone; later runs only link them.
  "${ROOT}/hack/fetch-operands.sh"
fi

cleanup() {
  echo
  op::teardown
  if [[ "${OP_STARTED_CLUSTER}" != "true" ]]; then
    op::log "the cluster was already running before: left up"
  fi
}
proc::on_exit cleanup

# A cluster that already runs is reused and left running on exit: it is not ours to stop.
if "${OP_CLUSTER}" status >/dev/null 2>&1; then
  op::log "reusing the running local cluster"
else
  if op::cluster_processes; then
    op::die "a local cluster is partly running in ${OP_STATE}; stop it first: ${OP_CLUSTER} down"
  fi
  op::cluster_up
fi
# The cluster may still have chosen kwok (hack/local-cluster.sh said why): then the samples are
# the simulated ones.
if [[ "${REAL_PODS}" == "true" && "$(cat "${OP_STATE}/pod-runner" 2>/dev/null)" != "realpods" ]]; then
  op::log "the cluster's pods are simulated (kwok): applying the simulated samples"
  REAL_PODS=false
fi
op::install
if op::is_running; then
  op::die "an operator already runs (pid $(op::pid)) for this cluster: hack/lib/operator.sh stop"
fi
op::start
apply_samples
wait_samples
if [[ "${REAL_PODS}" == "true" ]]; then
  wait_real_pods
  print_real_pods_usage
else
  print_simulated_usage
fi

# Wait for Ctrl-C, or for the operator to exit by itself. The sleep runs in the background and
# is waited for, so that a Ctrl-C interrupts the wait at once.
while op::is_running; do
  sleep 2 &
  wait $! || true
done
op::check_alive
