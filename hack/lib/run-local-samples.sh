#!/usr/bin/env bash
# The samples of hack/run-local.sh: apply them (the LeaderWorkerSetOperator, then the real-pod
# samples of hack/operands/samples/ or the simulated ones with placeholder Secrets), wait until
# they are Available and Ready, and with real pods wait until they answer (a chat completion,
# the MCP tools, the Agent's card, the LeaderWorkerSet). Separate from the entry script, which
# is the cluster and the operator, and from the closing message (hack/lib/run-local-usage.sh).
# Sourced by hack/run-local.sh after its settings (ROOT, AVAILABLE_TIMEOUT, BATCH_NAMESPACE,
# GATEWAY_NAMESPACE, LWS_NAMESPACE, RUN_START, REAL_PODS) and hack/lib/operator.sh (op::*,
# OP_LOG). wait_real_pods sets BG, GW, MCPGW and LWS for the message.

# apply_samples: the LeaderWorkerSetOperator and the gateways' samples, real or simulated.
apply_samples() {
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
}

# wait_samples: the operator's CR Available, the LLMBatchGateway Ready, the Gateway Available.
wait_samples() {
  op::wait_available "${AVAILABLE_TIMEOUT}"
  op::log "waiting up to ${AVAILABLE_TIMEOUT}s for LLMBatchGateway ${BATCH_NAMESPACE}/batch-gateway-sync Ready=True"
  op::kubectl -n "${BATCH_NAMESPACE}" wait --for=condition=Ready --timeout="${AVAILABLE_TIMEOUT}s" llmbatchgateway/batch-gateway-sync >/dev/null ||
    op::die "LLMBatchGateway ${BATCH_NAMESPACE}/batch-gateway-sync is not Ready: $(op::kubectl -n "${BATCH_NAMESPACE}" get llmbatchgateway batch-gateway-sync -o jsonpath='{.status.conditions}')" "${OP_LOG}"
  op::log "waiting up to ${AVAILABLE_TIMEOUT}s for Gateway ${GATEWAY_NAMESPACE}/simple-gateway Available=True"
  op::kubectl -n "${GATEWAY_NAMESPACE}" wait --for=condition=Available --timeout="${AVAILABLE_TIMEOUT}s" gateways.core.inference-gateway.com/simple-gateway >/dev/null ||
    op::die "Gateway ${GATEWAY_NAMESPACE}/simple-gateway is not Available: $(op::kubectl -n "${GATEWAY_NAMESPACE}" get gateways.core.inference-gateway.com simple-gateway -o jsonpath='{.status.conditions}')" "${OP_LOG}"
}

# wait_real_pods: the real pods answer: a chat completion through the Gateway, the MCP tools,
# the Agent's card, then the LeaderWorkerSet sample applied and answering.
wait_real_pods() {
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
}
