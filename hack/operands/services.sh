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

# start NAME BINARY CMD...: start detached (hack/lib/proc.sh), fail with its log's tail.
start() {
  local name="$1" bin="$2"; shift 2
  if proc::alive "$(pidfile "${name}")"; then
    log "${name} already running (pid ${PROC_PID})"
    return 0
  fi
  log "starting ${name} on ${IP} (log: $(logfile "${name}"))"
  proc::start "$(pidfile "${name}")" "$(logfile "${name}")" "${bin}" -- "$@" ||
    die "${name} ${PROC_FAILURE}" "$(logfile "${name}")"
}

# wait_ready NAME CMD...: poll CMD until it succeeds; fail at once if NAME exits.
alive_and() {
  local name="$1"; shift
  proc::alive "$(pidfile "${name}")" || die "${name} exited; see $(logfile "${name}")" "$(logfile "${name}")"
  "$@"
}
wait_ready() {
  local name="$1"; shift
  proc::poll "${START_TIMEOUT}" 0.25 alive_and "${name}" "$@" ||
    die "${name} not ready after ${START_TIMEOUT}s; see $(logfile "${name}")" "$(logfile "${name}")"
}

# secret NAME: a random credential kept in the state directory across restarts (the cluster's
# Secrets hold it).
secret() {
  local f="${SVC}/secrets/$1"
  if [[ ! -s "${f}" ]]; then
    mkdir -p "${SVC}/secrets"
    (umask 077 && head -c 18 /dev/urandom | base64 | tr -d '/+=\n' >"${f}")
  fi
  cat "${f}"
}

# as_postgres CMD...: CMD as the postgres user when we are root (PostgreSQL refuses to run as root), else as
# ourselves.
as_postgres() {
  if [[ "$(id -u)" -eq 0 ]]; then
    setpriv --reuid=postgres --regid=postgres --init-groups "$@"
  else
    "$@"
  fi
}

start_redis() {
  local dir="${SVC}/redis"
  mkdir -p "${dir}"
  start redis "$(services::redis_server)" "$(services::redis_server)" \
    --bind "${IP}" --port "${SERVICES_REDIS_PORT}" --dir "${dir}" \
    --save "" --appendonly no --daemonize no --protected-mode yes \
    --requirepass "$(secret redis)" --logfile ""
  wait_ready redis redis_ready
}
redis_ready() {
  REDISCLI_AUTH="$(secret redis)" redis-cli -h "${IP}" -p "${SERVICES_REDIS_PORT}" ping | grep -q PONG
}

start_postgresql() {
  local dir="${SVC}/postgresql" bin
  bin="$(services::pg_bindir)"
  mkdir -p "${dir}/run"
  if [[ ! -f "${dir}/data/PG_VERSION" ]]; then
    log "initdb ${dir}/data"
    rm -rf "${dir}/data"
    mkdir -p "${dir}/data"
    [[ "$(id -u)" -eq 0 ]] && chown -R postgres:postgres "${dir}"
    chmod 700 "${dir}/data"
    as_postgres "${bin}/initdb" -D "${dir}/data" -U postgres --auth-local=trust --auth-host=scram-sha-256 \
      -E UTF8 --no-instructions >"$(logfile postgresql-initdb)" 2>&1 ||
      die "initdb failed" "$(logfile postgresql-initdb)"
  fi
  [[ "$(id -u)" -eq 0 ]] && chown postgres:postgres "${dir}" "${dir}/run"
  local -a run=()
  [[ "$(id -u)" -eq 0 ]] && run=(setpriv --reuid=postgres --regid=postgres --init-groups)
  start postgresql "${bin}/postgres" "${run[@]}" "${bin}/postgres" -D "${dir}/data" \
    -c listen_addresses="${IP}" -c port="${SERVICES_POSTGRESQL_PORT}" \
    -c unix_socket_directories="${dir}/run" -c fsync=off -c synchronous_commit=off \
    -c full_page_writes=off -c max_connections=200 -c log_destination=stderr -c logging_collector=off
  wait_ready postgresql "${bin}/pg_isready" -q -h "${IP}" -p "${SERVICES_POSTGRESQL_PORT}"
  # The role and database of the batch gateway; the passwords are (re)set every start. Upstream's
  # batch-gateway e2e suite backdates rows as its dev deploy's superuser, `psql -U postgres -d
  # postgres` (its GarbageCollection tests): the gateway of that spec keeps its tables in
  # database postgres, as role batch, and the suite's client pod logs in as postgres.
  as_postgres "${bin}/psql" -q -h "${dir}/run" -p "${SERVICES_POSTGRESQL_PORT}" -U postgres -d postgres \
    -v ON_ERROR_STOP=1 -v pw="$(secret postgresql)" -v adminpw="$(secret postgresql-admin)" >/dev/null <<'SQL' || die "could not create the batch role and database"
SELECT 'CREATE ROLE batch LOGIN' WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'batch') \gexec
ALTER ROLE batch PASSWORD :'pw';
SELECT 'CREATE DATABASE batch OWNER batch' WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = 'batch') \gexec
ALTER ROLE postgres PASSWORD :'adminpw';
GRANT CREATE ON SCHEMA public TO batch;
SQL
}

start_s3() {
  mkdir -p "${SVC}/s3"
  start s3 "$(services::tool s3fake)" "$(services::tool s3fake)" \
    -addr "${IP}:${SERVICES_S3_PORT}" -db "${SVC}/s3/s3.bolt" -bucket llm-d-batch-gateway
  wait_ready s3 curl -sf --max-time 2 -o /dev/null "http://${IP}:${SERVICES_S3_PORT}/"
}

start_npm() {
  local cache
  cache="$(services::npm_cache)"
  [[ -d "${cache}" ]] || die "the MCP server package's npm cache ${cache} is missing: run make fetch-operands"
  start npm "$(services::tool npmregistry)" "$(services::tool npmregistry)" \
    -addr "${IP}:${SERVICES_NPM_PORT}" -cache "${cache}" -public-url "http://$(dns npm):${SERVICES_NPM_PORT}/"
  wait_ready npm curl -sf --max-time 2 -o /dev/null "http://${IP}:${SERVICES_NPM_PORT}/$(services::mcp_package | sed 's|/|%2f|')"
}

start_oidc() {
  start oidc "$(services::tool oidcissuer)" env OIDC_CLIENT_SECRET="$(secret oidc)" "$(services::tool oidcissuer)" \
    -addr "${IP}:${SERVICES_OIDC_PORT}" -client-id inference-gateway-client \
    -issuer "http://$(dns oidc):${SERVICES_OIDC_PORT}"
  wait_ready oidc curl -sf --max-time 2 -o /dev/null "http://${IP}:${SERVICES_OIDC_PORT}/.well-known/openid-configuration"
}

# write_env: the addresses and credentials, for the samples, the suites and the README's commands
# (the names the pods use, and *_HOST_* the addresses on this machine).
write_env() {
  mkdir -p "${SVC}"
  local redis pg pgadmin s3 oidc
  redis="$(secret redis)" pg="$(secret postgresql)" pgadmin="$(secret postgresql-admin)" s3="$(secret s3)" oidc="$(secret oidc)"
  (
    umask 077
    cat >"${SVC}/env.tmp" <<EOF
OPERAND_SERVICES_IP=${IP}
OPERAND_SERVICES_NAMESPACE=${SVC_NAMESPACE}
REDIS_URL=redis://default:${redis}@$(dns redis):${SERVICES_REDIS_PORT}/0
REDIS_HOST_URL=redis://default:${redis}@${IP}:${SERVICES_REDIS_PORT}/0
POSTGRESQL_URL=postgresql://batch:${pg}@$(dns postgresql):${SERVICES_POSTGRESQL_PORT}/batch?sslmode=disable
POSTGRESQL_HOST_URL=postgresql://batch:${pg}@${IP}:${SERVICES_POSTGRESQL_PORT}/batch?sslmode=disable
POSTGRESQL_ADMIN_URL=postgresql://postgres:${pgadmin}@$(dns postgresql):${SERVICES_POSTGRESQL_PORT}/postgres?sslmode=disable
S3_ENDPOINT=http://$(dns s3):${SERVICES_S3_PORT}
S3_HOST_ENDPOINT=http://${IP}:${SERVICES_S3_PORT}
S3_BUCKET=llm-d-batch-gateway
S3_ACCESS_KEY_ID=local
S3_SECRET_ACCESS_KEY=${s3}
NPM_REGISTRY=http://$(dns npm):${SERVICES_NPM_PORT}/
MCP_PACKAGE=$(services::mcp_package)@$(services::mcp_version)
OIDC_ISSUER=http://$(dns oidc):${SERVICES_OIDC_PORT}
OIDC_HOST_URL=http://${IP}:${SERVICES_OIDC_PORT}
OIDC_CLIENT_ID=inference-gateway-client
OIDC_CLIENT_SECRET=${oidc}
EOF
  )
  mv "${SVC}/env.tmp" "${SVC}/env"
}

# apply_services: the Services the pods reach them by (see the header); the cluster is up.
apply_services() {
  local kubectl=("${OUTPUT_DIR}/bin/kubectl" --kubeconfig="${STATE}/kubeconfig") name port manifest
  manifest="apiVersion: v1
kind: Namespace
metadata:
  name: ${SVC_NAMESPACE}
"
  for name in redis postgresql s3 npm oidc; do
    case "${name}" in
      redis) port="${SERVICES_REDIS_PORT}" ;;
      postgresql) port="${SERVICES_POSTGRESQL_PORT}" ;;
      s3) port="${SERVICES_S3_PORT}" ;;
      npm) port="${SERVICES_NPM_PORT}" ;;
      oidc) port="${SERVICES_OIDC_PORT}" ;;
    esac
    manifest+="---
apiVersion: v1
kind: Service
metadata:
  name: ${name}
  namespace: ${SVC_NAMESPACE}
  annotations:
    realpods.llm-infra.io/host-address: \"${IP}\"
spec:
  ports:
  - name: ${name}
    port: ${port}
    targetPort: ${port}
"
  done
  printf '%s' "${manifest}" | "${kubectl[@]}" apply -f - >/dev/null ||
    die "could not create the Services of namespace ${SVC_NAMESPACE}"
}

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
