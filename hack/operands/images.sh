#!/usr/bin/env bash
# hack/operands/images.sh BIN_DIR: print the image table the real-pod agent reads
# (REAL_PODS_IMAGE_TABLE): which host program stands for which operand image. Called by
# hack/fetch-operands.sh, which writes it to _output/operands/images.tsv.
#
# Columns (tab-separated; `#` starts a comment; `-` is empty):
#   image       repository without tag or digest, exactly as the operator renders it
#   entrypoint  the absolute path the image's ENTRYPOINT (or CMD, when it has none) runs, from
#               upstream's Dockerfile: a pod's command[0] equal to it (or to its basename) runs
#               `binary`
#   binary      the host program standing for the entrypoint
#   env         the image's own ENV defaults, K=V;K=V (a pod's env wins)
#   user        the image's USER, UID:GID (`-`: root): who runs a container that sets no
#               runAsUser, from the Dockerfile that builds the image: the opendatahub batch
#               gateway images are batch-gateway's docker/Dockerfile.*.konflux (1001:1001);
#               llm-d-async, llm-d-inference-sim and lws say 65532:65532; the inference gateway
#               (distroless/static) and node:lts have none; curlimages/curl is curl_user
#               (100:101), bitnami's postgresql and redis 1001, google-calendar-agent's Dockerfile 1001 (agent:a2a),
#               prom/prometheus nobody (65534), jaegertracing/all-in-one 10001
#   workdir, cmd, files  optional (hack/tools/realpods/README.md): the image's WORKDIR, its CMD
#               after the program, and the folder of the files the image holds beside the
#               program (google-calendar-agent's CMD is `./main start` in /app, beside its card)
# A pod without `command` runs binary + args; any other command[0] is looked up in the host's
# PATH (`node`, `npx` for the node image). Images not in the table stay simulated.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BIN="${1:?usage: $0 BIN_DIR}"
# shellcheck source=hack/operands/lib.sh
source "${ROOT}/hack/operands/lib.sh"

# repository_of VAR: the repository (no tag) deploy/10_deployment.yaml gives RELATED_IMAGE_<VAR>,
# the one place the LeaderWorkerSet controller's and the batch gateway's images are set.
repository_of() {
  local image
  image="$(awk -v want="RELATED_IMAGE_$1" '$0 ~ "- name: " want "$" { getline; print $2; exit }' \
    "${ROOT}/deploy/10_deployment.yaml")"
  [[ -n "${image}" ]] || { echo "no RELATED_IMAGE_$1 in deploy/10_deployment.yaml" >&2; exit 1; }
  image="${image%@*}"
  echo "${image%:*}"
}

# The CRDs' image defaults (pkg/apis/inferencegateway/v1alpha1: Gateway and MCP spec.image).
crd_default() {
  local image
  image="$(sed -n 's|.*+kubebuilder:default="\(.*\)".*|\1|p' "${ROOT}/pkg/apis/inferencegateway/v1alpha1/$1" |
    grep -m1 -E "$2")"
  echo "${image%:*}"
}

# The pods' npm (npx) asks the services' registry (hack/operands/services.sh, through its Service),
# which serves the pinned MCP package and its dependencies: nothing leaves loopback. (An
# image-level default: a pod that sets npm_config_registry itself wins.)
node_env="npm_config_registry=http://$(services::dns npm):${SERVICES_NPM_PORT}/;npm_config_update_notifier=false;npm_config_fund=false;npm_config_audit=false"

# row IMAGE ENTRYPOINT BINARY ENV USER [WORKDIR CMD FILES]: one line of the table, none when
# BINARY was not built (the short set of hack/fetch-operands.sh builds no async processor): that
# image stays simulated.
row() {
  [[ "$3" == - || -x "$3" ]] || return 0
  local IFS=$'\t'
  printf '%s\n' "$*"
}

# The Agent sample's image (deploy/examples/agent_google_calendar.yaml, upstream's example).
example_image() {
  local image
  image="$(sed -n 's|^  image: *||p' "${ROOT}/deploy/examples/$1" | head -n1)"
  [[ -n "${image}" ]] || { echo "no spec.image in deploy/examples/$1" >&2; exit 1; }
  echo "${image%:*}"
}

printf '# image\tentrypoint\tbinary\tenv\tuser\n'
# curlimages/curl: the pod upstream's batch-gateway e2e suite creates (batch-gateway-e2e-curl,
# `sleep infinity`) and runs `kubectl exec ... curl` in, to set its simulators' failure rate and
# latency through their /admin/config (FlowControl/HeaderAndRetry/RetryOn429, AIMD/Recovery,
# ProcessorGracefulShutdown/RollingRestartOrphan): both programs are the host's.
# docker.io/bitnami/redis: upstream's password-less Redis (its dev deploy's Helm chart), the
# host's redis-server, for upstream's dispatcher suite (test/operands); prom/prometheus
# (ENTRYPOINT /bin/prometheus) and jaegertracing/all-in-one (/go/bin/all-in-one-linux): the
# Prometheus and Jaeger of upstream's dev deploy, built by the full set of hack/fetch-operands.sh.
# docker.io/bitnami/postgresql: the image of upstream's PostgreSQL (its dev deploy's Helm chart),
# for the client pod test/operands names in TEST_DB_POD, where upstream's GarbageCollection tests
# `kubectl exec ... bash -c 'psql ...'` against the services' PostgreSQL: the host's bash and psql.
set -- \
  "$(repository_of BATCH_GATEWAY_APISERVER)" /app/batch-gateway-apiserver "${BIN}/batch-gateway-apiserver" - 1001:1001 \
  "$(repository_of BATCH_GATEWAY_PROCESSOR)" /app/batch-gateway-processor "${BIN}/batch-gateway-processor" - 1001:1001 \
  "$(repository_of BATCH_GATEWAY_GC)" /app/batch-gateway-gc "${BIN}/batch-gateway-gc" - 1001:1001 \
  "$(repository_of BATCH_GATEWAY_ASYNC_PROCESSOR)" /async-processor "${BIN}/async-processor" - 65532:65532 \
  "$(crd_default types_gateway.go inference-gateway)" /app/inference-gateway "${BIN}/inference-gateway" "SERVER_HOST=0.0.0.0" - \
  ghcr.io/llm-d/llm-d-inference-sim /app/llm-d-inference-sim "${BIN}/llm-d-inference-sim" - 65532:65532 \
  "$(repository_of OPERAND_IMAGE)" /manager "${BIN}/lws-manager" - 65532:65532 \
  "$(crd_default types_mcp.go node)" /usr/local/bin/docker-entrypoint.sh "$(command -v node || echo -)" "${node_env}" - \
  curlimages/curl - - - 100:101 \
  docker.io/bitnami/postgresql - - - 1001:1001 \
  docker.io/bitnami/redis - - - 1001:1001 \
  prom/prometheus /bin/prometheus "${BIN}/prometheus" - 65534:65534 \
  jaegertracing/all-in-one /go/bin/all-in-one-linux "${BIN}/jaeger-all-in-one" - 10001
while [[ $# -gt 0 ]]; do
  row "$1" "$2" "$3" "$4" "$5"
  shift 5
done
# The A2A agent of the Agent sample: upstream's image runs CMD `./main start` in WORKDIR /app, which
# holds the card the program serves (hack/fetch-operands.sh places those files).
row "$(example_image agent_google_calendar.yaml)" /app/main "${BIN}/google-calendar-agent" A2A_SERVER_PORT=8080 1001:1001 \
  /app start "$(cd "${BIN}/.." && pwd)/images/google-calendar-agent"
