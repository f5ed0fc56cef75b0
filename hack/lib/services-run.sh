#!/usr/bin/env bash
# The backing services' processes, for hack/operands/services.sh: how one is started detached and
# waited for (start, wait_ready), PostgreSQL's user (as_postgres), and each service's start with
# its flags and its readiness check (start_redis, start_postgresql, start_s3, start_npm,
# start_oidc), which `start` and `restart` call. Separate from the credentials and what the pods
# and the callers read (hack/lib/services-env.sh).
# Sourced by hack/operands/services.sh after its settings (SVC, IP, START_TIMEOUT, log, die,
# pidfile, logfile), hack/lib/proc.sh (proc::*), hack/operands/lib.sh (services::*, SERVICES_*)
# and hack/lib/services-env.sh (secret).

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
