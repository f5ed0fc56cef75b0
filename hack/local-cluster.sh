#!/usr/bin/env bash
# A local, live Kubernetes control plane for `make run-local`, e2e tests and
# benchmarks, built from source (hack/build-cluster-binaries.sh) and running
# as plain processes on loopback only:
#
#   etcd, kube-apiserver, kube-controller-manager, kube-scheduler,
#   kwok (fakes 3 Nodes and every Pod scheduled on them; each Node offers
#   NODE_MAX_PODS pods, NODE_CPU and NODE_MEMORY, far more than the machine has,
#   so that scheduling never limits a test or benchmark: make bench runs 600
#   pods), or, with REAL_PODS=true, realpods-agent in its place (the same 3 Nodes,
#   whose pods run as real processes when their images are in the image table:
#   hack/tools/realpods/README.md),
#   cert-manager-runner (cert-manager's issuing controllers + cainjector).
#
# Usage:
#   hack/local-cluster.sh up                  start everything (idempotent)
#   hack/local-cluster.sh down                stop everything, wipe etcd data (logs kept)
#   hack/local-cluster.sh env                 print `export KUBECONFIG=...` (eval it)
#   hack/local-cluster.sh status              show what runs, exit 0 only if the cluster is up
#   hack/local-cluster.sh start-cert-manager  install cert-manager CRDs, start the runner
#   hack/local-cluster.sh stop-cert-manager   stop the runner (CRDs stay)
#   hack/local-cluster.sh restart-apiserver   stop kube-apiserver (TERM) and start it again in
#                                             place (same etcd, certificates, ports, audit log:
#                                             appended), wait for /readyz; clients reconnect
#   hack/local-cluster.sh sa-kubeconfig NAMESPACE SERVICEACCOUNT OUTFILE
#                                             kubeconfig with a TokenRequest token for that SA
#
# Environment (defaults in brackets):
#   WITH_CERT_MANAGER [true]   `up` also runs start-cert-manager
#   SKIP_BUILD [false]         `up` does not call the build script (binaries must exist)
#   KUBE_VERSION [newest]      `up`: the Kubernetes version of kube-apiserver,
#                              kube-controller-manager and kube-scheduler, from the table of
#                              hack/lib/kube-version.sh (v1.36.3, v1.30.14, a minor such as 1.30,
#                              newest, oldest); its flags are there too. The other commands use
#                              the version the running cluster was started with.
#   OUTPUT_DIR [<repo>/_output]            binaries in $OUTPUT_DIR/bin
#   LOCAL_CLUSTER_INSTANCE [local]   which row of hack/lib/instance.sh gives the defaults of:
#   LOCAL_CLUSTER_DIR [$OUTPUT_DIR/local-cluster]   state, logs, pids, kubeconfig
#   ETCD_PORT [12379] ETCD_PEER_PORT [12380] APISERVER_PORT [16443]
#   KCM_PORT [17257] SCHEDULER_PORT [17259]    (all bound to 127.0.0.1)
#   <COMPONENT>_EXTRA_ARGS []  extra arguments for one component, a word list: ETCD_,
#                              KUBE_APISERVER_, KUBE_CONTROLLER_MANAGER_, KUBE_SCHEDULER_, KWOK_,
#                              CERT_MANAGER_EXTRA_ARGS (e.g. KWOK_EXTRA_ARGS=--v=4)
#   NODE_MAX_PODS [1000] NODE_CPU [1000] NODE_MEMORY [4Ti]   capacity (and allocatable)
#                              of each fake Node; kwok runs no container, so these are only
#                              numbers for the scheduler
#   REAL_PODS [false]          `up` runs realpods-agent instead of kwok: pods whose images are in
#                              the image table run for real, the others are simulated as by kwok.
#                              A machine that cannot (not root, no namespaces) gets kwok, and `up`
#                              says why in one line. `status` shows which one runs. With real
#                              pods, `up` also starts the operands' backing services
#                              (hack/operands/services.sh: Redis, PostgreSQL, S3, npm registry,
#                              OIDC issuer, and the Services the pods reach them by); `down`
#                              stops them.
#   REAL_PODS_SERVICES [true]  false: real pods without the backing services (make test-realpods)
#   REAL_PODS_IMAGE_TABLE [$OUTPUT_DIR/operands/images.tsv]   the agent's image table
#   REAL_PODS_FORWARDS []      host ports for Services, words LISTEN=NAMESPACE/SERVICE:PORT, e.g.
#                              127.0.0.1:$REAL_PODS_FORWARD_PORT=ns/svc:8000 (hack/lib/instance.sh
#                              gives each instance ten ports from REAL_PODS_FORWARD_PORT)
#   LOCAL_CLUSTER_POD_CIDR, LOCAL_CLUSTER_SERVICE_CIDR, LOCAL_CLUSTER_NODE_IP   per instance
#                              (hack/lib/instance.sh)
#   START_TIMEOUT [120]        seconds to wait for each readiness step
#   PROC_EXEC_TIMEOUT [60] PROC_LOG_TAIL [25]   see hack/lib/proc.sh
#   STOP_TIMEOUT [30]          seconds between TERM and KILL on `down`
#   RESTART_STOP_TIMEOUT [10]  the same for restart-apiserver
#   SA_TOKEN_DURATION [24h]    expiration of sa-kubeconfig tokens
#   LOCK_TIMEOUT [900]         seconds to wait for another up/down on the same LOCAL_CLUSTER_DIR
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=hack/lib/proc.sh
source "${ROOT}/hack/lib/proc.sh"
# shellcheck source=hack/lib/instance.sh
source "${ROOT}/hack/lib/instance.sh"
instance::use "${LOCAL_CLUSTER_INSTANCE:-local}"
# shellcheck source=hack/lib/kube-version.sh
source "${ROOT}/hack/lib/kube-version.sh"
BIN="${OUTPUT_DIR}/bin"
STATE="${LOCAL_CLUSTER_DIR}"
PKI="${STATE}/pki"
LOGS="${STATE}/logs"
PIDS="${STATE}/pids"
ETCD_DATA="${STATE}/etcd"
KUBECONFIG_FILE="${STATE}/kubeconfig"
# The Kubernetes version the cluster was started with (written by `up`).
KUBE_VERSION_FILE="${STATE}/kube-version"
KUBE_VERSION_ASKED="${KUBE_VERSION:-}"
# Every command uses the version of the cluster last started here; `up` resolves the one asked
# for (cmd_up). An unknown KUBE_VERSION fails every command at once.
kube::use
if [[ -f "${KUBE_VERSION_FILE}" ]]; then
  kube::use "$(cat "${KUBE_VERSION_FILE}")" 2>/dev/null || kube::use newest
fi

WITH_CERT_MANAGER="${WITH_CERT_MANAGER:-true}"
SKIP_BUILD="${SKIP_BUILD:-false}"
START_TIMEOUT="${START_TIMEOUT:-120}"
STOP_TIMEOUT="${STOP_TIMEOUT:-30}"
RESTART_STOP_TIMEOUT="${RESTART_STOP_TIMEOUT:-10}"
SA_TOKEN_DURATION="${SA_TOKEN_DURATION:-24h}"
LOCK_TIMEOUT="${LOCK_TIMEOUT:-900}"
NODE_MAX_PODS="${NODE_MAX_PODS:-1000}"
NODE_CPU="${NODE_CPU:-1000}"
NODE_MEMORY="${NODE_MEMORY:-4Ti}"

# Everything the cluster hands out is on loopback, in the instance's own ranges
# (hack/lib/instance.sh): Service ClusterIPs from LOCAL_CLUSTER_SERVICE_CIDR (127.96.0.0/16 for
# the `local` instance), pod IPs from LOCAL_CLUSTER_POD_CIDR (127.16.0.0/16; room for the 600
# pods of make bench and more).
SERVICE_CIDR="${LOCAL_CLUSTER_SERVICE_CIDR}"
SERVICE_IP="${SERVICE_CIDR%.0/*}.1" # first IP of SERVICE_CIDR: the `kubernetes` Service
POD_CIDR="${LOCAL_CLUSTER_POD_CIDR%.0/*}.1/${LOCAL_CLUSTER_POD_CIDR#*/}" # kwok's form: an address of the range
SA_ISSUER="https://kubernetes.default.svc.cluster.local"
REAL_PODS="${REAL_PODS:-false}"
REAL_PODS_IMAGE_TABLE="${REAL_PODS_IMAGE_TABLE:-${OUTPUT_DIR}/operands/images.tsv}"
REAL_PODS_FORWARDS="${REAL_PODS_FORWARDS:-}"
REAL_PODS_SERVICES="${REAL_PODS_SERVICES:-true}"
# Which one runs the pods (kwok or realpods), decided by `up` and kept for `down` and `status`.
POD_RUNNER_FILE="${STATE}/pod-runner"
pod_runner() { cat "${POD_RUNNER_FILE}" 2>/dev/null || echo kwok; }
NODES=(kwok-node-0 kwok-node-1 kwok-node-2)
INFRA_NODE="kwok-node-2"
REALPODS_NODES=(realpods-node-0 realpods-node-1 realpods-node-2)
if [[ "$(pod_runner)" == "realpods" ]]; then
  NODES=("${REALPODS_NODES[@]}")
  INFRA_NODE="realpods-node-2"
fi

# Start order; `down` stops in reverse. cert-manager is handled on its own; the last one runs
# the pods (kwok or realpods).
core_components() { echo "etcd kube-apiserver kube-controller-manager kube-scheduler $(pod_runner)"; }
read -r -a CORE_COMPONENTS <<<"$(core_components)"

KUBECTL="${BIN}/kubectl"

log() { echo "[local-cluster] $*"; }
# die MESSAGE [LOG]: the message and, with LOG, its last lines, on the caller's stderr (also
# from inside a polled check, whose output is silenced), then exit 1.
die() { proc::die "[local-cluster]" "$@"; }

# kubectl as the cluster admin.
kc() { "${KUBECTL}" --kubeconfig="${KUBECONFIG_FILE}" "$@"; }

# ---------------------------------------------------------------------------
# Processes (hack/lib/proc.sh). Each component's pid file $PIDS/<name>.pid
# holds its pid, start time and boot id, so a recycled pid is never taken for
# ours nor signalled. A component is started detached in its own session, so
# a Ctrl-C on `up` or a test runner killing its children does not take the
# cluster down; only `down` does.
# ---------------------------------------------------------------------------

binary_of() {
  case "$1" in
    cert-manager) echo "${BIN}/cert-manager-runner" ;;
    realpods) echo "${BIN}/realpods-agent" ;;
    kube-apiserver | kube-controller-manager | kube-scheduler) echo "${KUBE_BIN}/$1" ;;
    *) echo "${BIN}/$1" ;;
  esac
}

pidfile_of() { echo "${PIDS}/$1.pid"; }

# pid_of NAME: prints the pid of the live component, or fails.
pid_of() { proc::pid "$(pidfile_of "$1")"; }

# is_running NAME: the component is ours and alive (starting or running).
is_running() { proc::alive "$(pidfile_of "$1")"; }

# Components started by this invocation: every readiness wait checks them all,
# so one that dies while another is awaited is reported at once.
STARTED=()

# start_proc NAME ARGS...: start the component (ARGS, the flags its Kubernetes version adds
# (hack/lib/kube-version.sh), then the words of <NAME>_EXTRA_ARGS), and return once it has
# exec'd its binary; if it exits first, fail with the tail of its log.
start_proc() {
  local name="$1"; shift
  local bin extra_var
  bin="$(binary_of "${name}")"
  [[ -x "${bin}" ]] || die "${bin} is missing: run KUBE_VERSION=${KUBE_VERSION} hack/build-cluster-binaries.sh"
  extra_var="$(echo "${name}" | tr 'a-z-' 'A-Z_')_EXTRA_ARGS"
  local -a extra=() version_flags=()
  read -r -a extra <<<"${!extra_var:-}"
  mapfile -t version_flags < <(kube::flags "${name}")
  log "starting ${name} (log: ${LOGS}/${name}.log)"
  proc::start "$(pidfile_of "${name}")" "${LOGS}/${name}.log" "${bin}" -- \
    "${bin}" "$@" "${version_flags[@]}" "${extra[@]}" || die "${name} ${PROC_FAILURE}; see ${LOGS}/${name}.log" "${LOGS}/${name}.log"
  STARTED+=("${name}")
}

# stop_proc NAME: TERM, up to STOP_TIMEOUT seconds, then KILL, and wait until
# the process is really gone.
stop_proc() {
  proc::stop "$1" "$(pidfile_of "$1")" "${STOP_TIMEOUT}" "[local-cluster]" ||
    die "$1 could not be stopped"
}

# check_started: every component started by this invocation is still alive;
# otherwise fail with the tail of the first dead one's log.
check_started() {
  local c
  for c in "${STARTED[@]}"; do
    is_running "${c}" && continue
    proc::reap "${PROC_PID:-}"
    die "${c} exited${PROC_EXIT_NOTE}; see ${LOGS}/${c}.log" "${LOGS}/${c}.log"
  done
}

# ready CMD...: check_started, then CMD: the condition of every wait_for.
ready() {
  check_started
  "$@"
}

poll() { proc::poll "$@"; }

# wait_for DESCRIPTION CMD...: poll with START_TIMEOUT; on timeout show where
# to look and fail.
wait_for() {
  local what="$1"; shift
  if ! poll "${START_TIMEOUT}" 0.25 ready "$@"; then
    die "timed out after ${START_TIMEOUT}s waiting for ${what}; logs in ${LOGS}"
  fi
}

# ---------------------------------------------------------------------------
# Ports. After a process exits, the kernel may keep its listening socket for
# a moment (and the apiserver drains for a few seconds on TERM), so `up`
# right after `down` waits until every port is free instead of failing.
# ---------------------------------------------------------------------------

all_ports() { echo "${ETCD_PORT} ${ETCD_PEER_PORT} ${APISERVER_PORT} ${KCM_PORT} ${SCHEDULER_PORT}"; }

port_listening() { [[ -n "$(ss -Htln "sport = :$1" 2>/dev/null)" ]]; }

ports_busy() {
  local p
  for p in $(all_ports); do port_listening "${p}" && return 0; done
  return 1
}

wait_ports_free() {
  if ports_busy; then
    log "waiting for ports $(all_ports) to be free"
    if ! poll "${START_TIMEOUT}" 0.25 ports_busy --negate; then
      ss -Htlnp | grep -E ":($(all_ports | tr ' ' '|'))\b" >&2 || true
      die "ports still in use after ${START_TIMEOUT}s"
    fi
  fi
}

# ---------------------------------------------------------------------------
# Certificates, tokens, kubeconfigs. Generated once and kept across down/up
# (down only wipes etcd), so kubeconfigs handed out stay valid.
# ---------------------------------------------------------------------------

SERVING_SANS="IP:127.0.0.1,IP:${SERVICE_IP},DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"

random_hex() { head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n'; }

gen_pki() {
  mkdir -p "${PKI}"
  # The serving certificate names the `kubernetes` Service's IP, which moves with the instance's
  # range: a certificate made for other names (another offset, or before the agent's user
  # existed) is made again.
  if [[ -f "${PKI}/sa.pub" && -f "${PKI}/apiserver.crt" && -f "${PKI}/tokens.csv" ]] &&
    [[ "$(cat "${PKI}/sans" 2>/dev/null)" == "${SERVING_SANS}" ]] && grep -q ',realpods,' "${PKI}/tokens.csv"; then
    return 0
  fi
  rm -f "${PKI}/sa.pub" "${PKI}/apiserver.crt" "${PKI}/tokens.csv"
  log "generating certificates and tokens in ${PKI}"
  if command -v openssl >/dev/null; then
    gen_certs_openssl
  else
    [[ -x "${BIN}/certgen" ]] || die "neither openssl nor ${BIN}/certgen is available"
    "${BIN}/certgen" -dir "${PKI}" -san "${SERVING_SANS}"
  fi
  # Static token file: token,user,uid,"groups". One user per component so
  # the audit log tells them apart. The admin is in system:masters; kwok and
  # the cert-manager runner are too (they are test fixtures, not subjects of
  # the RBAC under test); the controller manager and the scheduler use their
  # bootstrap RBAC users.
  (
    umask 077
    {
      echo "$(random_hex),admin,admin,\"system:masters\""
      echo "$(random_hex),system:kube-controller-manager,system:kube-controller-manager"
      echo "$(random_hex),system:kube-scheduler,system:kube-scheduler"
      echo "$(random_hex),kwok,kwok,\"system:masters\""
      echo "$(random_hex),cert-manager,cert-manager,\"system:masters\""
      echo "$(random_hex),realpods,realpods,\"system:masters\""
    } >"${PKI}/tokens.csv.tmp"
  )
  mv "${PKI}/tokens.csv.tmp" "${PKI}/tokens.csv"
  echo "${SERVING_SANS}" >"${PKI}/sans"
}

# CA, apiserver serving certificate (valid for 127.0.0.1, the `kubernetes`
# Service IP and names), ServiceAccount token signing key pair.
gen_certs_openssl() {
  (
    cd "${PKI}"
    umask 077
    cat >openssl.cnf <<EOF
[req]
distinguished_name = dn
prompt = no
[dn]
CN = unused
[ca]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign,digitalSignature
subjectKeyIdentifier = hash
[serving]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = ${SERVING_SANS}
EOF
    openssl genrsa -out ca.key 2048 2>/dev/null
    openssl req -config openssl.cnf -x509 -new -key ca.key -subj "/CN=llm-infra-local-cluster-ca" \
      -extensions ca -days 3650 -out ca.crt
    openssl genrsa -out apiserver.key 2048 2>/dev/null
    openssl req -config openssl.cnf -new -key apiserver.key -subj "/CN=kube-apiserver" -out apiserver.csr
    openssl x509 -req -in apiserver.csr -CA ca.crt -CAkey ca.key -CAcreateserial \
      -extfile openssl.cnf -extensions serving -days 3650 -out apiserver.crt 2>/dev/null
    openssl genrsa -out sa.key 2048 2>/dev/null
    openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
    rm -f apiserver.csr ca.srl openssl.cnf
  )
}

token_of() { awk -F, -v u="$1" '$2 == u { print $1 }' "${PKI}/tokens.csv"; }

# write_kubeconfig FILE USER TOKEN: self-contained (CA inlined) kubeconfig.
write_kubeconfig() {
  local file="$1" user="$2" token="$3"
  local tmp="${file}.tmp"
  (
    umask 077
    cat >"${tmp}" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: local
  cluster:
    server: https://127.0.0.1:${APISERVER_PORT}
    certificate-authority-data: $(base64 -w0 <"${PKI}/ca.crt")
users:
- name: ${user}
  user:
    token: ${token}
contexts:
- name: local
  context:
    cluster: local
    user: ${user}
current-context: local
EOF
  )
  mv "${tmp}" "${file}"
}

gen_configs() {
  write_kubeconfig "${KUBECONFIG_FILE}" admin "$(token_of admin)"
  write_kubeconfig "${STATE}/kube-controller-manager.kubeconfig" system:kube-controller-manager \
    "$(token_of system:kube-controller-manager)"
  write_kubeconfig "${STATE}/kube-scheduler.kubeconfig" system:kube-scheduler \
    "$(token_of system:kube-scheduler)"
  write_kubeconfig "${STATE}/kwok.kubeconfig" kwok "$(token_of kwok)"
  write_kubeconfig "${STATE}/cert-manager.kubeconfig" cert-manager "$(token_of cert-manager)"
  write_kubeconfig "${STATE}/realpods.kubeconfig" realpods "$(token_of realpods)"

  # Audit at Metadata level only (who, what, when, user agent; no bodies),
  # one JSON line per request: the RequestReceived stage is omitted so each
  # request is logged once when it completes (long-running watches also log
  # ResponseStarted).
  cat >"${STATE}/audit-policy.yaml" <<EOF
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: Metadata
EOF
}

# ---------------------------------------------------------------------------
# Components
# ---------------------------------------------------------------------------

start_etcd() {
  mkdir -p "${ETCD_DATA}"
  # Plain http is acceptable: it only listens on 127.0.0.1. fsync is off
  # because the data is thrown away on `down` anyway.
  start_proc etcd \
    --name=local \
    --data-dir="${ETCD_DATA}" \
    --listen-client-urls="http://127.0.0.1:${ETCD_PORT}" \
    --advertise-client-urls="http://127.0.0.1:${ETCD_PORT}" \
    --listen-peer-urls="http://127.0.0.1:${ETCD_PEER_PORT}" \
    --initial-advertise-peer-urls="http://127.0.0.1:${ETCD_PEER_PORT}" \
    --initial-cluster="local=http://127.0.0.1:${ETCD_PEER_PORT}" \
    --initial-cluster-state=new \
    --unsafe-no-fsync=true \
    --log-level=warn
  wait_for "etcd health" etcd_healthy
}

etcd_healthy() {
  curl -sf --max-time 2 "http://127.0.0.1:${ETCD_PORT}/health" | grep -q '"health":"true"'
}

start_apiserver() {
  start_proc kube-apiserver \
    --etcd-servers="http://127.0.0.1:${ETCD_PORT}" \
    --bind-address=127.0.0.1 \
    --advertise-address=127.0.0.1 \
    --secure-port="${APISERVER_PORT}" \
    --cert-dir="${STATE}/apiserver" \
    --tls-cert-file="${PKI}/apiserver.crt" \
    --tls-private-key-file="${PKI}/apiserver.key" \
    --client-ca-file="${PKI}/ca.crt" \
    --token-auth-file="${PKI}/tokens.csv" \
    --authorization-mode=Node,RBAC \
    --service-cluster-ip-range="${SERVICE_CIDR}" \
    --service-account-issuer="${SA_ISSUER}" \
    --service-account-key-file="${PKI}/sa.pub" \
    --service-account-signing-key-file="${PKI}/sa.key" \
    --allow-privileged=true \
    --audit-policy-file="${STATE}/audit-policy.yaml" \
    --audit-log-path="${LOGS}/audit.log" \
    --audit-log-format=json \
    --audit-log-maxsize=0 \
    --audit-log-maxbackup=0 \
    --endpoint-reconciler-type=none \
    --kubelet-preferred-address-types=InternalIP \
    --profiling=false
  # Admission plugins are the defaults, which include PodSecurity (namespace
  # labels pod-security.kubernetes.io/enforce are honoured). The endpoint
  # reconciler is off: the advertise address is loopback, which the
  # `kubernetes` Endpoints may not hold (nothing here needs them). The kubelet API (kubectl logs
  # and exec on real pods) is reached by the node's InternalIP only: by default the API server
  # tries a node's name first, through the host's DNS, off loopback.
  wait_for "kube-apiserver /readyz" apiserver_ready
}

apiserver_ready() {
  curl -sf --max-time 2 --cacert "${PKI}/ca.crt" \
    -H "Authorization: Bearer $(token_of admin)" \
    "https://127.0.0.1:${APISERVER_PORT}/readyz" | grep -q '^ok$'
}

start_controller_manager() {
  local kcfg="${STATE}/kube-controller-manager.kubeconfig"
  # --controllers=* : every controller enabled by default (deployment,
  # replicaset, garbage collector, namespace, serviceaccount, node lifecycle,
  # ...). Each controller uses its own ServiceAccount token, so the audit log
  # shows which controller made which request. No cloud provider, no node
  # CIDR allocation (kwok assigns Pod IPs).
  start_proc kube-controller-manager \
    --kubeconfig="${kcfg}" \
    --authentication-kubeconfig="${kcfg}" \
    --authorization-kubeconfig="${kcfg}" \
    --bind-address=127.0.0.1 \
    --secure-port="${KCM_PORT}" \
    --controllers='*' \
    --use-service-account-credentials=true \
    --service-account-private-key-file="${PKI}/sa.key" \
    --root-ca-file="${PKI}/ca.crt" \
    --cluster-signing-cert-file="${PKI}/ca.crt" \
    --cluster-signing-key-file="${PKI}/ca.key" \
    --service-cluster-ip-range="${SERVICE_CIDR}" \
    --allocate-node-cidrs=false \
    --leader-elect=false
}

start_scheduler() {
  local kcfg="${STATE}/kube-scheduler.kubeconfig"
  start_proc kube-scheduler \
    --kubeconfig="${kcfg}" \
    --authentication-kubeconfig="${kcfg}" \
    --authorization-kubeconfig="${kcfg}" \
    --bind-address=127.0.0.1 \
    --secure-port="${SCHEDULER_PORT}" \
    --leader-elect=false
}

# healthz PORT NAME: the controller manager's and scheduler's own /healthz
# (self-signed serving certificate; /healthz needs no authentication).
healthz() {
  curl -skf --max-time 2 "https://127.0.0.1:$1/healthz" | grep -q '^ok$'
}

start_kwok() {
  # kwok only manages Nodes carrying the annotation (so a real node, were
  # there one, is never touched), heartbeats them through Leases, and moves
  # Pods bound to them through Pending -> Running/Ready with IPs from a
  # loopback range.
  start_proc kwok \
    --kubeconfig="${STATE}/kwok.kubeconfig" \
    --manage-all-nodes=false \
    --manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake \
    --cidr="${POD_CIDR}" \
    --node-ip=127.0.0.1 \
    --node-lease-duration-seconds=40
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
  read -r -a CORE_COMPONENTS <<<"$(core_components)"
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
  start_proc realpods \
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

# The controller manager works end to end once its serviceaccount
# controller has created the `default` ServiceAccount (and the root CA
# publisher its ConfigMap): Pods can be admitted in `default` from then on.
kcm_working() {
  kc get serviceaccount default -n default && kc get configmap kube-root-ca.crt -n default
}

# ---------------------------------------------------------------------------
# cert-manager
# ---------------------------------------------------------------------------

CERT_MANAGER_CRDS=(
  certificaterequests.cert-manager.io certificates.cert-manager.io
  clusterissuers.cert-manager.io issuers.cert-manager.io
  challenges.acme.cert-manager.io orders.acme.cert-manager.io
)

cmd_start_cert_manager() {
  apiserver_ready || die "the cluster is not up (run: $0 up)"
  if is_running cert-manager; then
    log "cert-manager runner already running (pid $(pid_of cert-manager))"
    return 0
  fi
  [[ -f "${BIN}/cert-manager-crds.yaml" ]] || die "${BIN}/cert-manager-crds.yaml missing: run hack/build-cluster-binaries.sh"
  log "installing cert-manager CRDs"
  # Server-side apply: the CRDs are too large for the last-applied annotation.
  kc apply --server-side --force-conflicts -f "${BIN}/cert-manager-crds.yaml" >/dev/null
  local crd
  for crd in "${CERT_MANAGER_CRDS[@]}"; do
    kc wait --for=condition=Established --timeout="${START_TIMEOUT}s" "crd/${crd}" >/dev/null
  done
  rm -f "${STATE}/cert-manager.ready"
  start_proc cert-manager \
    --kubeconfig="${STATE}/cert-manager.kubeconfig" \
    --ready-file="${STATE}/cert-manager.ready"
  wait_for "cert-manager runner caches to sync" cert_manager_ready
  log "cert-manager runner ready"
}

cert_manager_ready() {
  [[ -f "${STATE}/cert-manager.ready" ]]
}

cmd_stop_cert_manager() {
  stop_proc cert-manager
  rm -f "${STATE}/cert-manager.ready"
}

# ---------------------------------------------------------------------------
# Commands
# ---------------------------------------------------------------------------

core_running_count() {
  local n=0 c
  for c in "${CORE_COMPONENTS[@]}"; do is_running "${c}" && n=$((n + 1)); done
  echo "${n}"
}

cmd_up() {
  local running
  running="$(core_running_count)"
  if [[ "${running}" -eq "${#CORE_COMPONENTS[@]}" ]]; then
    local runs="${KUBE_VERSION}"
    kube::use "${KUBE_VERSION_ASKED:-${runs}}"
    if [[ "${runs}" != "${KUBE_VERSION}" ]]; then
      die "the cluster runs Kubernetes ${runs}, not ${KUBE_VERSION}: take it down first ($0 down)"
    fi
    log "already up, Kubernetes ${runs} (KUBECONFIG=${KUBECONFIG_FILE})"
    if [[ "${WITH_CERT_MANAGER}" == "true" ]] && ! is_running cert-manager; then
      cmd_start_cert_manager
    fi
    return 0
  fi
  if [[ "${running}" -gt 0 ]] || is_running cert-manager; then
    log "partially up (${running}/${#CORE_COMPONENTS[@]} components): stopping the rest first"
    cmd_down
  fi
  # A new cluster runs the version asked for, else the newest (not the last one's).
  kube::use "${KUBE_VERSION_ASKED:-newest}"

  local start=${SECONDS}
  if [[ "${SKIP_BUILD}" != "true" ]]; then
    KUBE_VERSION="${KUBE_VERSION}" "${ROOT}/hack/build-cluster-binaries.sh"
  fi
  local t0=${SECONDS}
  command -v ss >/dev/null || die "ss (iproute2) is required"
  command -v curl >/dev/null || die "curl is required"
  mkdir -p "${STATE}" "${PIDS}"
  # Keep the previous run's logs (down keeps them) one generation back, so
  # the audit log and component logs describe this cluster only.
  if [[ -d "${LOGS}" ]]; then
    rm -rf "${STATE}/logs.previous"
    mv "${LOGS}" "${STATE}/logs.previous"
  fi
  mkdir -p "${LOGS}"
  rm -rf "${ETCD_DATA}"

  wait_ports_free
  gen_pki
  gen_configs
  echo "${KUBE_VERSION}" >"${KUBE_VERSION_FILE}"

  log "Kubernetes ${KUBE_VERSION} (binaries in ${KUBE_BIN})"
  start_etcd
  start_apiserver
  start_controller_manager
  start_scheduler
  choose_pod_runner
  if [[ "$(pod_runner)" == "realpods" ]]; then
    start_realpods
  else
    start_kwok
    create_nodes
  fi
  wait_for "kube-controller-manager /healthz" healthz "${KCM_PORT}" kube-controller-manager
  wait_for "kube-scheduler /healthz" healthz "${SCHEDULER_PORT}" kube-scheduler
  wait_for "nodes ${NODES[*]} Ready" nodes_ready
  wait_for "the controller manager to create default ServiceAccount" kcm_working
  log "control plane up in $((SECONDS - t0))s"

  if [[ "$(pod_runner)" == "realpods" && "${REAL_PODS_SERVICES}" == "true" ]]; then
    "${ROOT}/hack/operands/services.sh" start
  fi

  if [[ "${WITH_CERT_MANAGER}" == "true" ]]; then
    cmd_start_cert_manager
  fi
  if [[ "$(pod_runner)" == "realpods" ]]; then
    log "real pods: images of ${REAL_PODS_IMAGE_TABLE} run as processes (pods ${LOCAL_CLUSTER_POD_CIDR}, Services ${SERVICE_CIDR} also on this host, DNS ${LOCAL_CLUSTER_NODE_IP}); container logs in ${LOGS}/pods"
  fi
  log "cluster up in $((SECONDS - start))s (including build check)"
  log "  export KUBECONFIG=${KUBECONFIG_FILE}"
  log "  kubectl: ${KUBECTL}; logs: ${LOGS}; audit log: ${LOGS}/audit.log"
}

cmd_down() {
  local i
  "${ROOT}/hack/operands/services.sh" stop
  stop_proc cert-manager
  rm -f "${STATE}/cert-manager.ready"
  # Reverse start order: clients before the apiserver, the apiserver before etcd. Whichever ran
  # the pods goes first (the agent stops its pods' processes as it exits).
  stop_proc realpods
  stop_proc kwok
  for ((i = ${#CORE_COMPONENTS[@]} - 1; i >= 0; i--)); do
    stop_proc "${CORE_COMPONENTS[i]}"
  done
  # The agent's state: its pods' files and the directories behind PVCs (whose objects go with etcd).
  rm -rf "${STATE}/realpods" "${STATE}/realpods.ready"
  if ! poll "${STOP_TIMEOUT}" 0.25 ports_busy --negate; then
    ss -Htlnp | grep -E ":($(all_ports | tr ' ' '|'))\b" >&2 || true
    die "ports still in use after stopping everything (not started by this script?)"
  fi
  rm -rf "${ETCD_DATA}"
  log "down (logs kept in ${LOGS})"
}

cmd_status() {
  local c up=true
  for c in "${CORE_COMPONENTS[@]}" cert-manager; do
    proc::_state "$(pidfile_of "${c}")"
    case "${PROC_STATE}" in
      running | starting) printf '  %-24s %s (pid %s)\n' "${c}" "${PROC_STATE}" "${PROC_PID}" ;;
      exited) printf '  %-24s exited (see %s)\n' "${c}" "${LOGS}/${c}.log" ;;
      *) printf '  %-24s stopped\n' "${c}" ;;
    esac
    [[ "${PROC_STATE}" == "running" || "${c}" == "cert-manager" ]] || up=false
  done
  if [[ "${up}" == "true" ]] && apiserver_ready 2>/dev/null; then
    echo "cluster is up, Kubernetes ${KUBE_VERSION}: export KUBECONFIG=${KUBECONFIG_FILE}"
    kc get nodes 2>/dev/null || true
    return 0
  fi
  echo "cluster is not up"
  return 1
}

# restart-apiserver: the API server goes away and comes back with everything else left
# running, as in a control-plane upgrade; the reliability suite checks the operator reconnects.
cmd_restart_apiserver() {
  is_running kube-apiserver || die "kube-apiserver is not running (run: $0 up)"
  # Its clients' watches hold a TERMed kube-apiserver up to STOP_TIMEOUT; a restart does not
  # wait that long before the KILL.
  local STOP_TIMEOUT="${RESTART_STOP_TIMEOUT}"
  stop_proc kube-apiserver
  start_apiserver
  log "kube-apiserver restarted (pid $(pid_of kube-apiserver))"
}

cmd_env() {
  echo "export KUBECONFIG=${KUBECONFIG_FILE}"
}

# sa-kubeconfig NS SA OUT: a kubeconfig that authenticates as the
# ServiceAccount through a bound token from the TokenRequest API, so the
# operator run locally is subject to exactly the RBAC granted to its SA.
cmd_sa_kubeconfig() {
  [[ $# -eq 3 ]] || die "usage: $0 sa-kubeconfig NAMESPACE SERVICEACCOUNT OUTFILE"
  local ns="$1" sa="$2" out="$3" token
  apiserver_ready || die "the cluster is not up (run: $0 up)"
  token="$(kc create token "${sa}" -n "${ns}" --duration="${SA_TOKEN_DURATION}")"
  mkdir -p "$(dirname "${out}")"
  write_kubeconfig "${out}" "system:serviceaccount:${ns}:${sa}" "${token}"
  # Point the context at the SA's namespace, as in-cluster config would.
  "${KUBECTL}" --kubeconfig="${out}" config set-context local --namespace="${ns}" >/dev/null
  log "wrote ${out} (ServiceAccount ${ns}/${sa}, token valid ${SA_TOKEN_DURATION})"
}

# Commands that start or stop processes hold an exclusive lock on the state
# directory, so two callers (say an e2e suite and a developer) cannot
# interleave an `up` and a `down`. Separate clusters need separate
# LOCAL_CLUSTER_DIR and ports.
take_lock() {
  mkdir -p "${STATE}"
  exec 9>"${STATE}/.lock"
  if ! flock -n 9; then
    log "waiting for another $0 on ${STATE} (up to ${LOCK_TIMEOUT}s)"
    flock -w "${LOCK_TIMEOUT}" 9 || die "could not lock ${STATE}/.lock within ${LOCK_TIMEOUT}s"
  fi
}

main() {
  local cmd="${1:-}"
  [[ $# -gt 0 ]] && shift
  case "${cmd}" in
    up | down | start-cert-manager | stop-cert-manager | restart-apiserver) take_lock ;;
  esac
  case "${cmd}" in
    up) cmd_up ;;
    down) cmd_down ;;
    env) cmd_env ;;
    status) cmd_status ;;
    start-cert-manager) cmd_start_cert_manager ;;
    stop-cert-manager) cmd_stop_cert_manager ;;
    restart-apiserver) cmd_restart_apiserver ;;
    sa-kubeconfig) cmd_sa_kubeconfig "$@" ;;
    *)
      sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'
      [[ -z "${cmd}" || "${cmd}" == "help" || "${cmd}" == "-h" || "${cmd}" == "--help" ]] || exit 2
      ;;
  esac
}

main "$@"
