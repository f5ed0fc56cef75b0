# shellcheck shell=bash
# hack/lib/cluster/components.sh, sourced by hack/local-cluster.sh: bringing up the components
# (kwokctl's control plane, the real-pod agent or kwok's fake Nodes) and the checks that each works.

apiserver_ready() {
  curl -sf --max-time 2 --cacert "${KPKI}/ca.crt" -H "Authorization: Bearer $(token_of admin)" \
    "https://127.0.0.1:${APISERVER_PORT}/readyz" | grep -q '^ok$'
}

# healthz PORT: the controller manager's and scheduler's own /healthz (self-signed).
healthz() { curl -skf --max-time 2 "https://127.0.0.1:$1/healthz" | grep -q '^ok$'; }

# kwokctl_up RUNNER: kwokctl creates the cluster and starts its components; meanwhile each one
# that exits is reported at once, with its log (kwokctl itself would wait minutes for an API
# server that never comes).
kwokctl_up() {
  local runner="$1" c
  rm -rf "${KWOK_WORKDIR}"
  mkdir -p "${KWOK_CLUSTER}"
  ln -sfn "${LOGS}" "${KWOK_CLUSTER}/logs"
  # The certificates are kept across down/up (kubeconfigs handed out stay valid), unless made
  # for other names (the `kubernetes` Service's IP moves with the instance's range).
  if [[ "$(cat "${STATE}/pki/sans" 2>/dev/null)" == "${SERVICE_IP}" ]]; then
    cp -r "${STATE}/pki" "${KPKI}"
  fi
  audit_policy >"${STATE}/audit-policy.yaml"
  kwokctl_config "${runner}" >"${KWOK_WORKDIR}/kwok.yaml"
  STARTED=("${CONTROL_PLANE[@]}")
  [[ "${runner}" == "kwok" ]] && STARTED+=(kwok)
  for c in "${STARTED[@]}"; do log "starting ${c} (log: $(log_of "${c}"))"; done
  kw_exec create cluster --kubeconfig="" >>"${LOGS}/kwokctl.log" 2>&1 &
  KWOKCTL_PID=$!
  trap 'kill "${KWOKCTL_PID}" 2>/dev/null || true' EXIT # when a check fails first
  wait_for "kwokctl to start the control plane (log: ${LOGS}/kwokctl.log)" kwokctl_done
  trap - EXIT
  if [[ "$(cat "${STATE}/pki/sans" 2>/dev/null)" != "${SERVICE_IP}" ]]; then
    rm -rf "${STATE}/pki" && cp -r "${KPKI}" "${STATE}/pki" && echo "${SERVICE_IP}" >"${STATE}/pki/sans"
  fi
}
KWOKCTL_PID=""
kwokctl_done() {
  # Our child: a zombie until waited for.
  proc::_stat "${KWOKCTL_PID}" && [[ "${PROC_STAT_STATE}" != "Z" ]] && return 1
  wait "${KWOKCTL_PID}" || die "kwokctl create cluster failed; see ${LOGS}/kwokctl.log" "${LOGS}/kwokctl.log"
}

# REAL_PODS=true: realpods-agent instead of kwok, when the machine can run real pods (else one
# line says why, and kwok runs). Sets POD_RUNNER_FILE and the NODES of this run.
choose_pod_runner() {
  local runner=kwok why
  if [[ "${REAL_PODS}" == "true" ]]; then
    [[ -x "${BIN}/realpods-agent" ]] || die "${BIN}/realpods-agent is missing: run hack/build-cluster-binaries.sh"
    if why="$("${BIN}/realpods-agent" check 2>&1)"; then
      runner=realpods
    else
      log "REAL_PODS=true, but this machine cannot run real pods (${why#cannot run real pods: }): pods are simulated by kwok"
    fi
  fi
  echo "${runner}" >"${POD_RUNNER_FILE}"
  if [[ "${runner}" == "realpods" ]]; then
    NODES=("${REALPODS_NODES[@]}")
    INFRA_NODE="realpods-node-2"
  fi
}


start_realpods() {
  local -a forwards=() args=()
  read -r -a forwards <<<"${REAL_PODS_FORWARDS}"
  local f n
  for f in "${forwards[@]}"; do args+=(--forward "${f}"); done
  for n in "${NODES[@]}"; do
    if [[ "${n}" == "${INFRA_NODE}" ]]; then args+=(--node "${n}:infra"); else args+=(--node "${n}"); fi
  done
  rm -f "${STATE}/realpods.ready"
  # The agent registers the Nodes itself (same labels, taint and capacity as kwok's), runs the
  # pods whose images are in the table and simulates the rest.
  start_proc realpods "${BIN}/realpods-agent" \
    --kubeconfig="${STATE}/realpods.kubeconfig" \
    --state-dir="${STATE}/realpods" \
    --log-dir="${LOGS}/pods" \
    --image-table="${REAL_PODS_IMAGE_TABLE}" \
    --pod-cidr="${LOCAL_CLUSTER_POD_CIDR}" \
    --service-cidr="${SERVICE_CIDR}" \
    --apiserver="127.0.0.1:${APISERVER_PORT}" \
    --node-cpu="${NODE_CPU}" --node-memory="${NODE_MEMORY}" --node-pods="${NODE_MAX_PODS}" \
    --ready-file="${STATE}/realpods.ready" \
    "${args[@]}"
  wait_for "realpods-agent to register its nodes" test -f "${STATE}/realpods.ready"
}

create_nodes() {
  local n manifest=""
  for n in "${NODES[@]}"; do
    local labels="" taints="    []"
    if [[ "${n}" == "${INFRA_NODE}" ]]; then
      labels='    node-role.kubernetes.io/infra: ""'
      taints='    - key: node-role.kubernetes.io/infra
      effect: NoSchedule'
    fi
    manifest+="---
apiVersion: v1
kind: Node
metadata:
  name: ${n}
  annotations:
    kwok.x-k8s.io/node: fake
    node.alpha.kubernetes.io/ttl: \"0\"
  labels:
    type: kwok
    kubernetes.io/hostname: ${n}
    kubernetes.io/os: linux
    kubernetes.io/arch: amd64
${labels}
spec:
  taints:
${taints}
status:
  allocatable: {cpu: \"${NODE_CPU}\", memory: \"${NODE_MEMORY}\", pods: \"${NODE_MAX_PODS}\"}
  capacity: {cpu: \"${NODE_CPU}\", memory: \"${NODE_MEMORY}\", pods: \"${NODE_MAX_PODS}\"}
  nodeInfo: {architecture: amd64, operatingSystem: linux, kubeletVersion: fake, kubeProxyVersion: fake}
"
  done
  log "creating fake nodes ${NODES[*]} (${INFRA_NODE} is the tainted infra node)"
  echo "${manifest}" | kc apply -f - >/dev/null
}

nodes_ready() {
  local ready
  ready="$(kc get nodes -l "type=$(pod_runner)" \
    -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}' |
    grep -c '^True$' || true)"
  [[ "${ready}" -eq "${#NODES[@]}" ]]
}

# The controller manager works end to end once its serviceaccount controller has created the
# `default` ServiceAccount (and the root CA publisher its ConfigMap): Pods can be admitted.
kcm_working() { kc get serviceaccount default -n default && kc get configmap kube-root-ca.crt -n default; }
