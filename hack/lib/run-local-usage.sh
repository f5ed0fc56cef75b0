#!/usr/bin/env bash
# The closing message of hack/run-local.sh: what runs, where its logs are and how to use it,
# for real pods (the URLs wait_real_pods found) or simulated ones. Separate because it is text:
# the entry script and hack/lib/run-local-samples.sh are the steps.
# Sourced by hack/run-local.sh after its settings (BATCH_NAMESPACE, GATEWAY_NAMESPACE,
# LWS_NAMESPACE) and hack/lib/operator.sh (op::pid, OP_LOG, OP_STATE, OP_BIN, OP_NAMESPACE,
# OP_SERVICEACCOUNT, OP_ADMIN_KUBECONFIG); print_real_pods_usage reads BG, GW, MCPGW and LWS.

# print_real_pods_usage: the message when the pods run as real processes.
print_real_pods_usage() {
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
}

# print_simulated_usage: the message when the pods are kwok's fakes.
print_simulated_usage() {
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
}
