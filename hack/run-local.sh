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
op::log "applying deploy/examples/leaderworkersetoperator_cluster.yaml"
op::kubectl apply -f "${ROOT}/deploy/examples/leaderworkersetoperator_cluster.yaml" >/dev/null

if [[ "${REAL_PODS}" == "true" ]]; then
  op::log "applying hack/operands/samples/ (real pods) in ${BATCH_NAMESPACE} and ${GATEWAY_NAMESPACE}"
  "${ROOT}/hack/operands/samples.sh" apply "${BATCH_NAMESPACE}" "${GATEWAY_NAMESPACE}"
else
  # The sample LLM batch gateway, in a namespace of its own, with a credentials Secret whose
  # values are placeholders: kwok's pods run no container that would use them.
  op::log "applying deploy/examples/llmbatchgateway_sync.yaml in namespace ${BATCH_NAMESPACE}"
  op::kubectl create namespace "${BATCH_NAMESPACE}" --dry-run=client -o yaml | op::kubectl apply -f - >/dev/null
  op::kubectl -n "${BATCH_NAMESPACE}" create secret generic batch-gateway-secrets \
    --from-literal=redis-url=redis://redis.example.invalid:6379/0 \
    --from-literal=postgresql-url=postgresql://batch:placeholder@postgres.example.invalid:5432/batch \
    --from-literal=s3-secret-access-key=placeholder \
    --dry-run=client -o yaml | op::kubectl apply -f - >/dev/null
  op::kubectl -n "${BATCH_NAMESPACE}" apply -f "${ROOT}/deploy/examples/llmbatchgateway_sync.yaml" >/dev/null

  # The sample inference gateway (upstream's gateway-minimal), with a placeholder provider key.
  op::log "applying deploy/examples/gateway_minimal.yaml in namespace ${GATEWAY_NAMESPACE}"
  op::kubectl create namespace "${GATEWAY_NAMESPACE}" --dry-run=client -o yaml | op::kubectl apply -f - >/dev/null
  op::kubectl -n "${GATEWAY_NAMESPACE}" create secret generic openai-secret --from-literal=api_key=placeholder \
    --dry-run=client -o yaml | op::kubectl apply -f - >/dev/null
  op::kubectl -n "${GATEWAY_NAMESPACE}" apply -f "${ROOT}/deploy/examples/gateway_minimal.yaml" >/dev/null
fi

op::wait_available "${AVAILABLE_TIMEOUT}"
op::log "waiting up to ${AVAILABLE_TIMEOUT}s for LLMBatchGateway ${BATCH_NAMESPACE}/batch-gateway-sync Ready=True"
op::kubectl -n "${BATCH_NAMESPACE}" wait --for=condition=Ready --timeout="${AVAILABLE_TIMEOUT}s" llmbatchgateway/batch-gateway-sync >/dev/null ||
  op::die "LLMBatchGateway ${BATCH_NAMESPACE}/batch-gateway-sync is not Ready: $(op::kubectl -n "${BATCH_NAMESPACE}" get llmbatchgateway batch-gateway-sync -o jsonpath='{.status.conditions}')" "${OP_LOG}"
op::log "waiting up to ${AVAILABLE_TIMEOUT}s for Gateway ${GATEWAY_NAMESPACE}/simple-gateway Available=True"
op::kubectl -n "${GATEWAY_NAMESPACE}" wait --for=condition=Available --timeout="${AVAILABLE_TIMEOUT}s" gateways.core.inference-gateway.com/simple-gateway >/dev/null ||
  op::die "Gateway ${GATEWAY_NAMESPACE}/simple-gateway is not Available: $(op::kubectl -n "${GATEWAY_NAMESPACE}" get gateways.core.inference-gateway.com simple-gateway -o jsonpath='{.status.conditions}')" "${OP_LOG}"

if [[ "${REAL_PODS}" == "true" ]]; then
  # The Services' cluster IPs are loopback addresses the real-pod agent serves on this machine.
  service_url() { echo "http://$(op::kubectl -n "$1" get service "$2" -o jsonpath='{.spec.clusterIP}'):$3"; }
  BG="$(service_url "${BATCH_NAMESPACE}" batch-gateway-sync-apiserver 8000)"
  GW="$(service_url "${GATEWAY_NAMESPACE}" simple-gateway 8080)"
  MCPGW="$(service_url "${GATEWAY_NAMESPACE}" mcp-gateway 8080)"
  # chat URL MODEL: a chat completion of MODEL answered through URL.
  chat() {
    curl -sf --max-time 10 "$1/v1/chat/completions" -H 'Content-Type: application/json' \
      -d "{\"model\":\"$2\",\"messages\":[{\"role\":\"user\",\"content\":\"Hello from make run-local\"}]}" |
      grep -q '"choices"'
  }
  op::log "waiting up to ${AVAILABLE_TIMEOUT}s for a first chat completion through ${GW}"
  op::poll "${AVAILABLE_TIMEOUT}" 1 chat "${GW}" openai/sim-model ||
    op::die "no chat completion through the sample Gateway (${GW}) after ${AVAILABLE_TIMEOUT}s" "${OP_LOG}"
  op::log "first chat completion $((SECONDS - RUN_START))s after make run-local started"
  mcp_tools() { curl -sf --max-time 10 "${MCPGW}/v1/mcp/tools" | grep -q '"name"'; }
  op::log "waiting up to ${AVAILABLE_TIMEOUT}s for the MCP server's tools through ${MCPGW}"
  op::poll "${AVAILABLE_TIMEOUT}" 1 mcp_tools ||
    op::die "no MCP tools through the sample mcp-gateway (${MCPGW}) after ${AVAILABLE_TIMEOUT}s" "${OP_LOG}"
  op::log "MCP tools listed $((SECONDS - RUN_START))s after make run-local started"
  op::log "waiting up to ${AVAILABLE_TIMEOUT}s for Agent ${GATEWAY_NAMESPACE}/google-calendar-agent Ready=True (its card read)"
  op::kubectl -n "${GATEWAY_NAMESPACE}" wait --for=condition=Ready --timeout="${AVAILABLE_TIMEOUT}s" agents/google-calendar-agent >/dev/null ||
    op::die "Agent ${GATEWAY_NAMESPACE}/google-calendar-agent has no card: $(op::kubectl -n "${GATEWAY_NAMESPACE}" get agents google-calendar-agent -o jsonpath='{.status.conditions}')" "${OP_LOG}"
  op::log "Agent card read: $(op::kubectl -n "${GATEWAY_NAMESPACE}" get agents google-calendar-agent -o jsonpath='{.status.card.name} {.status.card.version}, skills {.status.card.skillsNames}')"
  # The LeaderWorkerSet needs the controller's CRD and webhooks (LeaderWorkerSetOperator/cluster
  # is Available: waited for above); the webhooks refuse requests until the API server trusts
  # their newly issued certificate, so the apply is retried.
  apply_lws() { "${ROOT}/hack/operands/samples.sh" apply-lws "${LWS_NAMESPACE}" 2>/dev/null; }
  op::poll "${AVAILABLE_TIMEOUT}" 2 apply_lws ||
    op::die "the LeaderWorkerSet sample was not admitted: $("${ROOT}/hack/operands/samples.sh" apply-lws "${LWS_NAMESPACE}" 2>&1)" "${OP_LOG}"
  LWS="$(service_url "${LWS_NAMESPACE}" sim-leaders 8000)"
  op::log "waiting up to ${AVAILABLE_TIMEOUT}s for a chat completion through the LeaderWorkerSet's leaders (${LWS})"
  op::poll "${AVAILABLE_TIMEOUT}" 1 chat "${LWS}" sim-model ||
    op::die "no chat completion through the sample LeaderWorkerSet (${LWS}) after ${AVAILABLE_TIMEOUT}s: $(op::kubectl -n "${LWS_NAMESPACE}" get leaderworkerset,pods 2>&1)" "${OP_LOG}"
  op::log "LeaderWorkerSet answered $((SECONDS - RUN_START))s after make run-local started"
  cat <<MSG

The operator runs the sample LLM batch gateway, the sample inference gateway, an A2A Agent
(google-calendar-agent, mock mode) and a LeaderWorkerSet of llm-d-inference-sim on real pods
(processes on this machine), with Redis, PostgreSQL, an S3 endpoint, llm-d-inference-sim (the
model server) and an npm MCP server; everything listens on loopback.
  operator   pid $(op::pid), log ${OP_LOG}
  services   $(. "${OP_STATE}/services/env" && echo "${OPERAND_SERVICES_IP}"), logs in ${OP_STATE}/logs/svc-*.log

Use it (README.md, "Try the gateways"):
  export KUBECONFIG=${OP_ADMIN_KUBECONFIG} PATH=${OP_BIN}:\$PATH
  BG=${BG}   # the LLMBatchGateway's apiserver
  GW=${GW}   # the Gateway simple-gateway
  MCPGW=${MCPGW}   # the Gateway mcp-gateway, with the MCP server
  LWS=${LWS}   # the LeaderWorkerSet sim's leaders (Service sim-leaders)
  curl -s \$GW/v1/models
  curl -s \$GW/v1/chat/completions -H 'Content-Type: application/json' \\
    -d '{"model":"openai/sim-model","messages":[{"role":"user","content":"Hello"}]}'
  curl -s \$MCPGW/v1/mcp/tools
  curl -s \$LWS/v1/chat/completions -H 'Content-Type: application/json' \\
    -d '{"model":"sim-model","messages":[{"role":"user","content":"Hello"}]}'
  kubectl -n ${BATCH_NAMESPACE} get llmbatchgateways,deploy,pods
  kubectl -n ${GATEWAY_NAMESPACE} get igw,mcps,agents,pods
  kubectl -n ${GATEWAY_NAMESPACE} get agent google-calendar-agent -o jsonpath='{.status.card.skillsNames}'
  kubectl -n ${LWS_NAMESPACE} get leaderworkersets,pods

Ctrl-C stops the operator, the services and the cluster.
MSG
else
cat <<MSG

The LeaderWorkerSet controller, a sample LLM batch gateway and a sample inference gateway are
installed (their pods are kwok fakes: Running, Ready, no process).
  operator   pid $(op::pid), log ${OP_LOG}
             authenticated as ServiceAccount ${OP_NAMESPACE}/${OP_SERVICEACCOUNT}
  cluster    logs in ${OP_STATE}/logs (audit.log: every request, by user)

Look at it:
  export KUBECONFIG=${OP_ADMIN_KUBECONFIG}
  export PATH=${OP_BIN}:\$PATH
  kubectl get leaderworkersetoperators,deploy,pods -n ${OP_NAMESPACE}
  kubectl get leaderworkersetoperator cluster -o yaml
  kubectl -n ${BATCH_NAMESPACE} get llmbatchgateways,deploy,pods,configmaps
  kubectl -n ${BATCH_NAMESPACE} describe llmbatchgateway batch-gateway-sync
  kubectl -n ${GATEWAY_NAMESPACE} get igw,deploy,svc,pods
  kubectl -n ${GATEWAY_NAMESPACE} describe igw simple-gateway
  tail -f ${OP_LOG}

Ctrl-C stops the operator and the cluster.
MSG
fi

# Wait for Ctrl-C, or for the operator to exit by itself. The sleep runs in the background and
# is waited for, so that a Ctrl-C interrupts the wait at once.
while op::is_running; do
  sleep 2 &
  wait $! || true
done
op::check_alive
