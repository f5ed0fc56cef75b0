#!/usr/bin/env bash
# The backing services' credentials and what others read of them, for hack/operands/services.sh:
# the random secrets kept across restarts (secret), the env file of addresses and credentials
# (write_env; `env` prints it) and the cluster's Services the pods reach them by
# (apply_services). Separate from the processes (hack/lib/services-run.sh).
# Sourced by hack/operands/services.sh after its settings (STATE, SVC, IP, SVC_NAMESPACE, dns,
# die) and hack/operands/lib.sh (services::*, SERVICES_*, OUTPUT_DIR from hack/lib/instance.sh).

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
