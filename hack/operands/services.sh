#!/usr/bin/env bash
# The backing services of the operands on the local cluster when its pods are real
# (REAL_PODS=true): hack/local-cluster.sh runs `start` after the control plane is up and `stop`
# on `down`. Each is a process of hack/lib/proc.sh (pid file in the instance's pids/, log in
# its logs/), with its own data directory under the instance's state directory, listening on
# the instance's own loopback address (services::ip), so instances and worktrees never meet:
#
#   redis        redis-server (Debian's redis-server 7.0), password auth       :6379
#   postgresql   PostgreSQL (Debian's postgresql-15), database and role batch  :5432
#                (role batch may also create tables in database postgres, and role postgres
#                has a password: upstream's batch-gateway e2e, test/operands)
#   s3           hack/tools/services s3fake (gofakes3), bucket llm-d-batch-gateway :9000
#   npm          hack/tools/services npmregistry: the pinned MCP server package and its
#                dependencies, from the npm cache `make fetch-operands` filled  :4873
#   oidc         hack/tools/services oidcissuer, client inference-gateway-client :5556
#
# The pods reach them through Services of the namespace operand-services (redis, postgresql,
# s3, npm, oidc): without a selector, annotated realpods.llm-infra.io/host-address with the
# instance's address, which the real-pod agent's Service proxy sends their ports to. So the
# Secrets and CRs name them as a pod would, e.g. redis.operand-services.svc.cluster.local:6379.
#
# The model server (llm-d-inference-sim) is not here: it runs as a pod of the cluster (the
# samples' Deployment `vllm-sim`), like the operands, through the image table.
#
# Usage: hack/operands/services.sh start|stop|status|env|restart NAME
#   restart redis|postgresql   stops and starts one of them as its pod's restart would, with its
#           data, and waits until it answers. PostgreSQL: a fast shutdown (INT, the official image's
#           stop signal). Redis: SHUTDOWN SAVE, what TERM does to a Redis with its default save
#           points (this one has none: it keeps nothing between clusters), and the snapshot loaded
#           at the start, then removed
#   env     prints the services' addresses and credentials as shell assignments (eval it); the
#           same is in $LOCAL_CLUSTER_DIR/services/env
# Environment: those of hack/lib/instance.sh (LOCAL_CLUSTER_INSTANCE, LOCAL_CLUSTER_PORT_OFFSET,
# OUTPUT_DIR, LOCAL_CLUSTER_DIR); START_TIMEOUT [120], STOP_TIMEOUT [30] seconds.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=hack/lib/proc.sh
source "${ROOT}/hack/lib/proc.sh"
# shellcheck source=hack/lib/instance.sh
source "${ROOT}/hack/lib/instance.sh"
instance::use "${LOCAL_CLUSTER_INSTANCE:-local}"
# shellcheck source=hack/operands/lib.sh
source "${ROOT}/hack/operands/lib.sh"

STATE="${LOCAL_CLUSTER_DIR}"
SVC="${STATE}/services"
LOGS="${STATE}/logs"
PIDS="${STATE}/pids"
START_TIMEOUT="${START_TIMEOUT:-120}"
STOP_TIMEOUT="${STOP_TIMEOUT:-30}"
IP="$(services::ip)"
SERVICES=(redis postgresql s3 npm oidc)
SVC_NAMESPACE="${SERVICES_NAMESPACE}"
dns() { services::dns "$1"; }

log() { echo "[services] $*"; }
die() { proc::die "[services]" "$@"; }

pidfile() { echo "${PIDS}/svc-$1.pid"; }
logfile() { echo "${LOGS}/svc-$1.log"; }

# The parts, each readable alone: the credentials, the env file and the cluster's Services; the
# processes and each service's start.
# shellcheck source=hack/lib/services-env.sh
source "${ROOT}/hack/lib/services-env.sh"
# shellcheck source=hack/lib/services-run.sh
source "${ROOT}/hack/lib/services-run.sh"

cmd_start() {
  services::check_installed || die "${SERVICES_MISSING}"
  mkdir -p "${LOGS}" "${PIDS}" "${SVC}"
  local t0=${SECONDS}
  start_redis
  start_postgresql
  start_s3
  start_npm
  start_oidc
  write_env
  apply_services
  log "up in $((SECONDS - t0))s on ${IP}: redis :${SERVICES_REDIS_PORT}, postgresql :${SERVICES_POSTGRESQL_PORT}, s3 :${SERVICES_S3_PORT}, npm :${SERVICES_NPM_PORT}, oidc :${SERVICES_OIDC_PORT} (${SVC}/env)"
}

# postgres_fast_shutdown: INT, PostgreSQL's fast shutdown, which ends its clients' sessions at
# once, as a pod's stop would.
postgres_fast_shutdown() {
  local pid
  pid="$(proc::pid "$(pidfile postgresql)")" && kill -INT "${pid}" 2>/dev/null || true
}

cmd_stop() {
  local i name
  for ((i = ${#SERVICES[@]} - 1; i >= 0; i--)); do
    name="${SERVICES[i]}"
    [[ -f "$(pidfile "${name}")" ]] || continue
    # PostgreSQL's fast shutdown (see cmd_restart): the smart one TERM asks for waits for the
    # gateways' pools, which a pod still running at teardown (make run-local's Ctrl-C) holds
    # open, until proc::stop's KILL 30 s later.
    [[ "${name}" == postgresql ]] && postgres_fast_shutdown
    proc::stop "${name}" "$(pidfile "${name}")" "${STOP_TIMEOUT}" "[services]" || die "${name} could not be stopped"
  done
}

# cmd_restart NAME: the serving-under-faults spec's backing-service restart (test/operands).
cmd_restart() {
  local name="${1:-}" pid t0=${SECONDS}
  case "${name}" in
    redis | postgresql) ;;
    *) die "restart: redis or postgresql, not '${name}'" ;;
  esac
  proc::alive "$(pidfile "${name}")" || die "${name} is not running"
  case "${name}" in
    # PostgreSQL's TERM is a smart shutdown, which waits for every client to leave (the gateways'
    # pools never do): INT, the fast one, ends their sessions at once, as a pod's stop would.
    postgresql) postgres_fast_shutdown ;;
    # Redis runs here without save points, so TERM would lose the batch gateway's queue; a Redis
    # kept as upstream asks for production (persistent) saves it at shutdown.
    redis) REDISCLI_AUTH="$(secret redis)" redis-cli -h "${IP}" -p "${SERVICES_REDIS_PORT}" shutdown save >/dev/null 2>&1 || true ;;
  esac
  proc::stop "${name}" "$(pidfile "${name}")" "${STOP_TIMEOUT}" "[services]" || die "${name} could not be stopped"
  "start_${name}"
  # The snapshot was loaded at the start; a later cluster's Redis must not load it.
  [[ "${name}" == "redis" ]] && rm -f "${SVC}/redis/dump.rdb"
  log "${name} restarted in $((SECONDS - t0))s"
}

cmd_status() {
  local name up=true
  for name in "${SERVICES[@]}"; do
    printf '  %-12s %s\n' "${name}" "$(proc::state "$(pidfile "${name}")")"
    proc::alive "$(pidfile "${name}")" || up=false
  done
  [[ "${up}" == "true" ]]
}

case "${1:-}" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  restart) cmd_restart "${2:-}" ;;
  env) [[ -f "${SVC}/env" ]] || die "no services run for this instance (${SVC}/env)"; sed "s/^/export /; s/=\(.*\)/='\1'/" "${SVC}/env" ;;
  *) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 2 ;;
esac
