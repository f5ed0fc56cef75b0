#!/usr/bin/env bash
# hack/operands/samples.sh render FILE NAMESPACE: print a real-pod sample of hack/operands/samples/
# with its ${VAR}s filled in from the instance's services ($LOCAL_CLUSTER_DIR/services/env,
# hack/operands/services.sh) and NAMESPACE (${NAMESPACE}; ${BATCH_NAMESPACE} is
# $BATCH_NAMESPACE [batch-gateway-sample]). An unknown ${VAR} is an error, never left in.
# hack/operands/samples.sh apply BATCH_NAMESPACE GATEWAY_NAMESPACE: render and apply the batch
# gateway's sample, and the inference gateway's with the Agent beside it (its LLM is that Gateway)
# (kubectl as the local cluster's admin), creating the namespaces.
# hack/operands/samples.sh apply-lws NAMESPACE: the LeaderWorkerSet sample, once the LeaderWorkerSet
# controller serves its CRD and webhooks (LeaderWorkerSetOperator/cluster Available).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=hack/lib/instance.sh
source "${ROOT}/hack/lib/instance.sh"
instance::use "${LOCAL_CLUSTER_INSTANCE:-local}"
ENV_FILE="${LOCAL_CLUSTER_DIR}/services/env"
KUBECTL=("${OUTPUT_DIR}/bin/kubectl" --kubeconfig="${LOCAL_CLUSTER_DIR}/kubeconfig")

render() {
  local file="$1" ns="$2" text name value
  [[ -f "${ENV_FILE}" ]] || { echo "no ${ENV_FILE}: the backing services are not running (REAL_PODS=true hack/local-cluster.sh up)" >&2; return 1; }
  text="$(<"${file}")"
  while IFS='=' read -r name value; do
    [[ -n "${name}" ]] || continue
    text="${text//\$\{${name}\}/${value}}"
  done < <(cat "${ENV_FILE}"; echo "NAMESPACE=${ns}"; echo "BATCH_NAMESPACE=${BATCH_NAMESPACE:-batch-gateway-sample}")
  if grep -q '\${[A-Z][A-Z0-9_]*}' <<<"${text}"; then
    echo "${file}: unknown $(grep -o '\${[A-Z][A-Z0-9_]*}' <<<"${text}" | sort -u | tr '\n' ' ')" >&2
    return 1
  fi
  printf '%s\n' "${text}"
}

apply() {
  local ns="$1" file="$2"
  "${KUBECTL[@]}" create namespace "${ns}" --dry-run=client -o yaml | "${KUBECTL[@]}" apply -f - >/dev/null
  render "${ROOT}/hack/operands/samples/${file}" "${ns}" | "${KUBECTL[@]}" -n "${ns}" apply -f - >/dev/null
}

case "${1:-}" in
  render) render "$2" "$3" ;;
  apply)
    export BATCH_NAMESPACE="$2"
    apply "$2" batch-gateway.yaml
    apply "$3" inference-gateway.yaml
    apply "$3" agent.yaml
    ;;
  apply-lws) apply "$2" leaderworkerset.yaml ;;
  *) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 2 ;;
esac
