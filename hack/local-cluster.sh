#!/usr/bin/env bash
# A local, live Kubernetes control plane for `make run-local`, e2e tests and
# benchmarks, built from source (hack/build-cluster-binaries.sh) and running
# as plain processes on loopback only. The control plane is kwok's own cluster tool,
# `kwokctl create cluster --runtime binary` (hack/tools/kwok, the same pinned module as kwok),
# handed the binaries built here, so nothing is downloaded: it writes the certificates, the
# flags and the kubeconfigs, and starts and stops
#
#   etcd, kube-apiserver, kube-controller-manager, kube-scheduler,
#   kwok (fakes 3 Nodes and every Pod scheduled on them; each Node offers
#   NODE_MAX_PODS pods, NODE_CPU and NODE_MEMORY, far more than the machine has,
#   so that scheduling never limits a test or benchmark: make bench runs 600
#   pods), or, with REAL_PODS=true, realpods-agent in its place (the same 3 Nodes,
#   whose pods run as real processes when their images are in the image table:
#   hack/tools/realpods/README.md).
#
# This script adds what kwokctl does not do: the flags the tests need (the instance's ports and
# address ranges, static tokens so the audit log tells clients apart, no leader election so an
# API server restart does not stop the controller manager), the fake Nodes, waiting until the
# cluster really works, restarting the API server alone, and the two processes kwokctl does
# not run: cert-manager-runner (cert-manager's issuing controllers + cainjector) and the
# real-pods agent (hack/lib/proc.sh).
#
# Usage:
#   hack/local-cluster.sh up                  start everything (idempotent)
#   hack/local-cluster.sh down                stop everything, wipe etcd data (logs kept)
#   hack/local-cluster.sh env                 print `export KUBECONFIG=...` (eval it)
#   hack/local-cluster.sh status              show what runs, exit 0 only if the cluster is up
#   hack/local-cluster.sh pids                the pids of the instance's live processes, one a line
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
#   OPENSHIFT [false]          `up` also makes the cluster OpenShift where it matters to the
#                              operands: OpenShift's SCCs, SCC admission (a webhook on
#                              OPENSHIFT_ADMISSION_PORT), namespace UID/MCS annotations, the
#                              APIServer and Route APIs (hack/openshift/cluster.sh)
#   SKIP_BUILD [false]         `up` does not call the build script (binaries must exist)
#   KUBE_VERSION [newest]      `up`: the Kubernetes version of kube-apiserver,
#                              kube-controller-manager and kube-scheduler, from the table of
#                              hack/lib/kube-version.sh (v1.36.3, v1.30.14, a minor such as 1.30,
#                              newest, oldest); its flags are there too. The other commands use
#                              the version the running cluster was started with.
#   OUTPUT_DIR [<repo>/_output]            binaries in $OUTPUT_DIR/bin
#   LOCAL_CLUSTER_INSTANCE [local]   which row of hack/lib/instance.sh gives the defaults of:
#   LOCAL_CLUSTER_DIR [$OUTPUT_DIR/local-cluster]   state, logs, pids, kubeconfig; kwokctl's
#                              cluster in kwok/ (KWOK_WORKDIR), its component logs in logs/
#   ETCD_PORT [12379] ETCD_PEER_PORT [12380] APISERVER_PORT [16443]
#   KCM_PORT [17257] SCHEDULER_PORT [17259] KWOK_PORT [17251]   (all bound to 127.0.0.1)
#   <COMPONENT>_EXTRA_ARGS []  extra arguments for one component, a word list of --flag[=value]:
#                              ETCD_, KUBE_APISERVER_, KUBE_CONTROLLER_MANAGER_, KUBE_SCHEDULER_,
#                              KWOK_, CERT_MANAGER_EXTRA_ARGS (e.g. KWOK_EXTRA_ARGS=--v=4)
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
#   STOP_TIMEOUT [30]          seconds between TERM and KILL on `down` (cert-manager, the agent)
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
# shellcheck source=hack/openshift/cluster.sh
source "${ROOT}/hack/openshift/cluster.sh"
BIN="${OUTPUT_DIR}/bin"
STATE="${LOCAL_CLUSTER_DIR}"
LOGS="${STATE}/logs"
PIDS="${STATE}/pids"
KUBECONFIG_FILE="${STATE}/kubeconfig"
TOKENS="${STATE}/tokens.csv"
# kwokctl's work directory and its one cluster there: config, pki/, pids/, etcd data, and logs/
# (a link to LOGS, so component logs and the audit log are where they always were).
export KWOK_WORKDIR="${STATE}/kwok"
KWOK_CLUSTER="${KWOK_WORKDIR}/clusters/cluster"
KPKI="${KWOK_CLUSTER}/pki"
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

# The components kwokctl runs, by this script's names (kwokctl calls kwok kwok-controller), in
# start order; the last one runs the pods (kwok, or the agent this script starts).
CONTROL_PLANE=(etcd kube-apiserver kube-controller-manager kube-scheduler)
kwok_name() { [[ "$1" == "kwok" ]] && echo kwok-controller || echo "$1"; }

KUBECTL="${BIN}/kubectl"

log() { echo "[local-cluster] $*"; }
# die MESSAGE [LOG]: the message and, with LOG, its last lines, on the caller's stderr (also
# from inside a polled check, whose output is silenced), then exit 1.
die() { proc::die "[local-cluster]" "$@"; }

# kubectl as the cluster admin.
kc() { "${KUBECTL}" --kubeconfig="${KUBECONFIG_FILE}" "$@"; }

# kw ARGS...: kwokctl on this instance's cluster, with no descriptor of the caller but stdio (the
# components it starts would inherit them: a lock or a pipe held by etcd would stay taken).
# kw_exec replaces the (sub)shell it runs in: `kw_exec ... &` leaves kwokctl's pid in $!.
kw_exec() {
  local fd
  for fd in /proc/"${BASHPID}"/fd/*; do
    fd="${fd##*/}"
    if ((fd > 2)); then eval "exec ${fd}>&-"; fi
  done
  exec "${BIN}/kwokctl" --name=cluster "$@"
}
kw() { (kw_exec "$@"); }

# ---------------------------------------------------------------------------
# Processes. kwokctl keeps one pid file per component in its cluster's pids/; cert-manager and
# the agent are this script's (hack/lib/proc.sh, pid files in PIDS).
# ---------------------------------------------------------------------------

# kwok_pid NAME: the pid of kwokctl's live component NAME, or fail.
kwok_pid() {
  local pid=""
  # kwokctl writes the pid with no newline: read fails at the end, with pid set.
  read -r pid 2>/dev/null <"${KWOK_CLUSTER}/pids/$(kwok_name "$1").pid" || [[ -n "${pid}" ]] || return 1
  # A component that exits while `kwokctl create` still runs stays its zombie until kwokctl ends.
  [[ "${pid}" =~ ^[0-9]+$ ]] && proc::_stat "${pid}" && [[ "${PROC_STAT_STATE}" != "Z" ]] && echo "${pid}"
}

log_of() { echo "${LOGS}/$(kwok_name "$1").log"; } # the same name for this script's processes

# Components started by this invocation: every readiness wait checks them all, so one that
# dies while another is awaited is reported at once, with its log.
STARTED=()

# check_started: every component of STARTED is alive (kwokctl's once its pid file is written).
check_started() {
  local c
  for c in "${STARTED[@]}"; do
    case "${c}" in
      cert-manager | realpods | openshift-admission) proc::alive "${PIDS}/${c}.pid" && continue ;;
      *) [[ ! -f "${KWOK_CLUSTER}/pids/$(kwok_name "${c}").pid" ]] || kwok_pid "${c}" >/dev/null && continue ;;
    esac
    die "${c} exited; see $(log_of "${c}")" "$(log_of "${c}")"
  done
}

# wait_for DESCRIPTION CMD...: poll CMD with START_TIMEOUT, checking every started component is
# alive; on timeout show where to look and fail.
wait_for() {
  local what="$1"; shift
  if ! proc::poll "${START_TIMEOUT}" 0.25 ready "$@"; then
    die "timed out after ${START_TIMEOUT}s waiting for ${what}; logs in ${LOGS}"
  fi
}
ready() { check_started && "$@"; }

# Ports: after a process exits the kernel may keep its socket a moment, so `up` right after
# `down` waits until every port is free instead of failing.
all_ports() { echo "${ETCD_PORT} ${ETCD_PEER_PORT} ${APISERVER_PORT} ${KCM_PORT} ${SCHEDULER_PORT} ${KWOK_PORT} ${OPENSHIFT_ADMISSION_PORT}"; }
ports_busy() {
  local p
  for p in $(all_ports); do [[ -n "$(ss -Htln "sport = :${p}" 2>/dev/null)" ]] && return 0; done
  return 1
}
wait_ports_free() {
  if ports_busy && ! proc::poll "${START_TIMEOUT}" 0.25 ports_busy --negate; then
    ss -Htlnp | grep -E ":($(all_ports | tr ' ' '|'))\b" >&2 || true
    die "ports $(all_ports) still in use after ${START_TIMEOUT}s"
  fi
}

# ---------------------------------------------------------------------------
# Configuration: kwokctl's, then the kubeconfigs of the static tokens. kwokctl makes the CA and
# the serving certificate (for 127.0.0.1, the `kubernetes` Service's IP and names); the tokens
# give this script's clients a user each, so the audit log tells them apart: the admin, the
# cert-manager runner and the agent, in system:masters (test fixtures, not subjects of the RBAC
# under test). kwokctl's components use its admin certificate (user kwok-admin); the controller
# manager's controllers use a ServiceAccount each.
# ---------------------------------------------------------------------------

random_hex() { head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n'; }
token_of() { awk -F, -v u="$1" '$2 == u { print $1 }' "${TOKENS}"; }

TOKEN_USERS=(admin cert-manager realpods openshift-admission)
gen_tokens() {
  [[ -f "${TOKENS}" && "$(wc -l <"${TOKENS}")" -eq "${#TOKEN_USERS[@]}" ]] && return 0
  (
    umask 077
    local u
    for u in "${TOKEN_USERS[@]}"; do echo "$(random_hex),${u},${u},\"system:masters\""; done >"${TOKENS}.tmp"
  )
  mv "${TOKENS}.tmp" "${TOKENS}"
}

# write_kubeconfig FILE USER TOKEN: self-contained (CA inlined) kubeconfig.
write_kubeconfig() {
  local file="$1" user="$2" token="$3"
  (
    umask 077
    cat >"${file}.tmp" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: local
  cluster:
    server: https://127.0.0.1:${APISERVER_PORT}
    certificate-authority-data: $(base64 -w0 <"${KPKI}/ca.crt")
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
  mv "${file}.tmp" "${file}"
}

# extra_args COMPONENT WORDS...: kwokctl's extraArgs entries for --flag[=value] words (a bare
# flag is --flag=true), appended after kwokctl's own flags, so a repeated flag here wins.
extra_args() {
  local c="$1" w key value; shift
  echo "- name: $(kwok_name "${c}")"
  echo "  extraArgs:"
  for w in "$@"; do
    w="${w#--}"
    key="${w%%=*}" value=true
    [[ "${w}" == *=* ]] && value="${w#*=}"
    printf '  - {key: %s, value: "%s"}\n' "${key}" "${value}"
  done
}

# component_flags COMPONENT: what this cluster adds to kwokctl's flags of COMPONENT, then its
# Kubernetes version's (hack/lib/kube-version.sh) and <COMPONENT>_EXTRA_ARGS.
component_flags() {
  case "$1" in
    etcd) echo "--unsafe-no-fsync=true --log-level=warn" ;; # data thrown away on `down`
    # The endpoint reconciler is off: the advertise address is loopback, which the `kubernetes`
    # Endpoints may not hold. The kubelet API (kubectl logs and exec on real pods) is reached
    # by the node's InternalIP only, not by its name through the host's DNS.
    kube-apiserver) echo "--advertise-address=127.0.0.1 --service-cluster-ip-range=${SERVICE_CIDR}
      --token-auth-file=${TOKENS} --endpoint-reconciler-type=none --audit-log-format=json
      --kubelet-preferred-address-types=InternalIP --profiling=false" ;;
    # No leader election: a restarted API server would otherwise make both exit.
    kube-controller-manager) echo "--leader-elect=false --use-service-account-credentials=true
      --service-cluster-ip-range=${SERVICE_CIDR} --allocate-node-cidrs=false
      --cluster-signing-cert-file=${KPKI}/ca.crt --cluster-signing-key-file=${KPKI}/ca.key" ;;
    kube-scheduler) echo "--leader-elect=false" ;;
    # kwok only manages Nodes carrying the annotation and gives pods IPs from the instance's range.
    kwok) echo "--manage-all-nodes=false --manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake
      --cidr=${POD_CIDR} --node-ip=127.0.0.1" ;;
  esac
  kube::flags "$1"
  local var
  var="$(echo "$1" | tr 'a-z-' 'A-Z_')_EXTRA_ARGS"
  echo "${!var:-}"
}

# kwokctl_config RUNNER: kwokctl's configuration (its work directory's kwok.yaml, read by every
# kwokctl command there): the binaries built here, the instance's ports, loopback only.
kwokctl_config() {
  local c runner="$1"
  cat <<EOF
apiVersion: config.kwok.x-k8s.io/v1alpha1
kind: KwokctlConfiguration
options:
  runtime: binary
  bindAddress: 127.0.0.1
  securePort: true
  kubeAuthorization: true
  kubeAdmission: true
  kubeAuditPolicy: ${STATE}/audit-policy.yaml
  kubeApiserverCertSANs: ["${SERVICE_IP}"]
  cacheDir: ${KWOK_WORKDIR}/cache
  etcdPort: ${ETCD_PORT}
  etcdPeerPort: ${ETCD_PEER_PORT}
  kubeApiserverPort: ${APISERVER_PORT}
  kubeControllerManagerPort: ${KCM_PORT}
  kubeSchedulerPort: ${SCHEDULER_PORT}
  kwokControllerPort: ${KWOK_PORT}
  etcdBinary: ${BIN}/etcd
  kubeApiserverBinary: ${KUBE_BIN}/kube-apiserver
  kubeControllerManagerBinary: ${KUBE_BIN}/kube-controller-manager
  kubeSchedulerBinary: ${KUBE_BIN}/kube-scheduler
  kwokControllerBinary: ${BIN}/kwok
  kubectlBinary: ${BIN}/kubectl
EOF
  [[ "${runner}" == "realpods" ]] && echo "  disable: [kwok-controller]"
  echo "componentsPatches:"
  for c in "${CONTROL_PLANE[@]}" kwok; do
    # shellcheck disable=SC2046 # words on purpose
    extra_args "${c}" $(component_flags "${c}")
  done
}

# Audit at Metadata level only (who, what, when, user agent; no bodies), one JSON line per
# request: the RequestReceived stage is omitted so each request is logged once when it completes.
audit_policy() {
  printf '%s\n' "apiVersion: audit.k8s.io/v1" "kind: Policy" 'omitStages: ["RequestReceived"]' \
    "rules:" "- level: Metadata"
}

# ---------------------------------------------------------------------------
# Components
# ---------------------------------------------------------------------------

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

# start_proc NAME BINARY ARGS...: one of this script's processes (hack/lib/proc.sh), with the
# words of <NAME>_EXTRA_ARGS.
start_proc() {
  local name="$1" bin="$2" extra_var; shift 2
  extra_var="$(echo "${name}" | tr 'a-z-' 'A-Z_')_EXTRA_ARGS"
  local -a extra=()
  read -r -a extra <<<"${!extra_var:-}"
  log "starting ${name} (log: ${LOGS}/${name}.log)"
  proc::start "${PIDS}/${name}.pid" "${LOGS}/${name}.log" "${bin}" -- "${bin}" "$@" "${extra[@]}" ||
    die "${name} ${PROC_FAILURE}; see ${LOGS}/${name}.log" "${LOGS}/${name}.log"
  STARTED+=("${name}")
}
stop_proc() { proc::stop "$1" "${PIDS}/$1.pid" "${STOP_TIMEOUT}" "[local-cluster]" || die "$1 could not be stopped"; }

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
  if proc::alive "${PIDS}/cert-manager.pid"; then
    log "cert-manager runner already running (pid ${PROC_PID})"
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
  start_proc cert-manager "${BIN}/cert-manager-runner" \
    --kubeconfig="${STATE}/cert-manager.kubeconfig" --ready-file="${STATE}/cert-manager.ready"
  wait_for "cert-manager runner caches to sync" test -f "${STATE}/cert-manager.ready"
  log "cert-manager runner ready"
}

cmd_stop_cert_manager() {
  stop_proc cert-manager
  rm -f "${STATE}/cert-manager.ready"
}

# ---------------------------------------------------------------------------
# Commands
# ---------------------------------------------------------------------------

# core_running: how many of the components that run the cluster are alive.
core_running() {
  local n=0 c
  for c in "${CONTROL_PLANE[@]}"; do kwok_pid "${c}" >/dev/null && n=$((n + 1)); done
  if [[ "$(pod_runner)" == "realpods" ]]; then
    proc::alive "${PIDS}/realpods.pid" && n=$((n + 1))
  else
    kwok_pid kwok >/dev/null && n=$((n + 1))
  fi
  echo "${n}"
}

cmd_up() {
  local running core=$((${#CONTROL_PLANE[@]} + 1))
  running="$(core_running)"
  if [[ "${running}" -eq "${core}" ]]; then
    local runs="${KUBE_VERSION}"
    kube::use "${KUBE_VERSION_ASKED:-${runs}}"
    if [[ "${runs}" != "${KUBE_VERSION}" ]]; then
      die "the cluster runs Kubernetes ${runs}, not ${KUBE_VERSION}: take it down first ($0 down)"
    fi
    log "already up, Kubernetes ${runs} (KUBECONFIG=${KUBECONFIG_FILE})"
    if [[ "${WITH_CERT_MANAGER}" == "true" ]] && ! proc::alive "${PIDS}/cert-manager.pid"; then
      cmd_start_cert_manager
    fi
    if [[ "${OPENSHIFT}" == "true" ]]; then openshift::up; fi
    return 0
  fi
  if [[ "${running}" -gt 0 || -n "$(cmd_pids)" ]]; then
    log "partially up (${running}/${core} components): stopping the rest first"
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
  [[ -x "${BIN}/kwokctl" ]] || die "${BIN}/kwokctl is missing: run hack/build-cluster-binaries.sh"
  mkdir -p "${STATE}" "${PIDS}"
  # Keep the previous run's logs (down keeps them) one generation back, so the audit log and
  # component logs describe this cluster only.
  if [[ -d "${LOGS}" ]]; then
    rm -rf "${STATE}/logs.previous"
    mv "${LOGS}" "${STATE}/logs.previous"
  fi
  mkdir -p "${LOGS}"
  wait_ports_free
  gen_tokens
  echo "${KUBE_VERSION}" >"${KUBE_VERSION_FILE}"
  log "Kubernetes ${KUBE_VERSION} (binaries in ${KUBE_BIN})"
  choose_pod_runner
  kwokctl_up "$(pod_runner)"
  write_kubeconfig "${KUBECONFIG_FILE}" admin "$(token_of admin)"
  write_kubeconfig "${STATE}/cert-manager.kubeconfig" cert-manager "$(token_of cert-manager)"
  write_kubeconfig "${STATE}/realpods.kubeconfig" realpods "$(token_of realpods)"
  wait_for "kube-apiserver /readyz" apiserver_ready
  if [[ "$(pod_runner)" == "realpods" ]]; then
    start_realpods
  else
    create_nodes
  fi
  wait_for "kube-controller-manager /healthz" healthz "${KCM_PORT}"
  wait_for "kube-scheduler /healthz" healthz "${SCHEDULER_PORT}"
  wait_for "nodes ${NODES[*]} Ready" nodes_ready
  wait_for "the controller manager to create default ServiceAccount" kcm_working
  log "control plane up in $((SECONDS - t0))s"

  if [[ "$(pod_runner)" == "realpods" && "${REAL_PODS_SERVICES}" == "true" ]]; then
    "${ROOT}/hack/operands/services.sh" start
  fi
  if [[ "${WITH_CERT_MANAGER}" == "true" ]]; then
    cmd_start_cert_manager
  fi
  if [[ "${OPENSHIFT}" == "true" ]]; then openshift::up; fi
  if [[ "$(pod_runner)" == "realpods" ]]; then
    log "real pods: images of ${REAL_PODS_IMAGE_TABLE} run as processes (pods ${LOCAL_CLUSTER_POD_CIDR}, Services ${SERVICE_CIDR} also on this host, DNS ${LOCAL_CLUSTER_NODE_IP}); container logs in ${LOGS}/pods"
  fi
  log "cluster up in $((SECONDS - start))s (including build check)"
  log "  export KUBECONFIG=${KUBECONFIG_FILE}"
  log "  kubectl: ${KUBECTL}; logs: ${LOGS}; audit log: ${LOGS}/audit.log"
}

cmd_down() {
  "${ROOT}/hack/operands/services.sh" stop
  openshift::down
  stop_proc cert-manager
  rm -f "${STATE}/cert-manager.ready"
  # Clients before the control plane; the agent stops its pods' processes as it exits.
  stop_proc realpods
  # kwokctl stops its components in reverse order (KILL: the data goes). A cluster whose creation
  # was cut short has no configuration to stop it by: its pid files are what is left.
  if [[ -d "${KWOK_CLUSTER}/pids" ]]; then
    kw stop cluster >>"${LOGS}/kwokctl.log" 2>&1 || log "kwokctl stop cluster failed (${LOGS}/kwokctl.log): stopping by its pid files"
    local f
    for f in "${KWOK_CLUSTER}"/pids/*.pid; do
      [[ -f "${f}" ]] || continue
      kill -KILL "$(cat "${f}")" 2>/dev/null || true
      rm -f "${f}"
    done
  fi
  # The agent's state: its pods' files and the directories behind PVCs (whose objects go with etcd).
  rm -rf "${STATE}/realpods" "${STATE}/realpods.ready"
  if ! proc::poll "${STOP_TIMEOUT}" 0.25 ports_busy --negate; then
    ss -Htlnp | grep -E ":($(all_ports | tr ' ' '|'))\b" >&2 || true
    die "ports still in use after stopping everything (not started by this script?)"
  fi
  rm -rf "${KWOK_CLUSTER}/etcd"
  log "down (logs kept in ${LOGS})"
}

cmd_status() {
  local c up=true pid
  for c in "${CONTROL_PLANE[@]}" "$(pod_runner)" cert-manager; do
    case "${c}" in
      realpods | cert-manager)
        if pid="$(proc::pid "${PIDS}/${c}.pid")"; then printf '  %-24s running (pid %s)\n' "${c}" "${pid}"; else
          printf '  %-24s stopped\n' "${c}"
          [[ "${c}" == cert-manager ]] || up=false
        fi ;;
      *)
        if pid="$(kwok_pid "${c}")"; then printf '  %-24s running (pid %s)\n' "${c}" "${pid}"; else
          printf '  %-24s stopped\n' "${c}"
          up=false
        fi ;;
    esac
  done
  openshift::status
  if [[ "${up}" == "true" ]] && apiserver_ready 2>/dev/null; then
    echo "cluster is up, Kubernetes ${KUBE_VERSION}: export KUBECONFIG=${KUBECONFIG_FILE}"
    kc get nodes 2>/dev/null || true
    return 0
  fi
  echo "cluster is not up"
  return 1
}

# pids: every live process of the instance (kwokctl's components, this script's and the
# services' pid files), so a caller can check that `down` left nothing.
cmd_pids() {
  local c f
  for c in "${CONTROL_PLANE[@]}" kwok; do kwok_pid "${c}" || true; done
  for f in "${PIDS}"/*.pid; do
    [[ -f "${f}" ]] && proc::pid "${f}" || true
  done
}

# restart-apiserver: the API server goes away and comes back with everything else left
# running, as in a control-plane upgrade; the reliability suite checks the operator reconnects.
# kwokctl starts again only what is not running.
cmd_restart_apiserver() {
  local pid
  pid="$(kwok_pid kube-apiserver)" || die "kube-apiserver is not running (run: $0 up)"
  STARTED=(kube-apiserver)
  log "stopping kube-apiserver (pid ${pid})"
  kill -TERM "${pid}" 2>/dev/null || true
  # Its clients' watches may hold a TERMed kube-apiserver a while: KILL after RESTART_STOP_TIMEOUT.
  if ! proc::poll "${RESTART_STOP_TIMEOUT}" 0.1 kill -0 "${pid}" --negate; then
    kill -KILL "${pid}" 2>/dev/null || true
    proc::poll 10 0.1 kill -0 "${pid}" --negate || die "kube-apiserver (pid ${pid}) survived KILL"
  fi
  # kwokctl truncates a component's log when it starts it: the stopped one's is kept aside.
  mv "${LOGS}/kube-apiserver.log" "${LOGS}/kube-apiserver.stopped-$(date -u +%H%M%S).log" 2>/dev/null || true
  kw start cluster >>"${LOGS}/kwokctl.log" 2>&1 || die "kwokctl start cluster failed; see ${LOGS}/kwokctl.log" "${LOGS}/kwokctl.log"
  wait_for "kube-apiserver /readyz" apiserver_ready
  log "kube-apiserver restarted (pid $(kwok_pid kube-apiserver))"
}

cmd_env() { echo "export KUBECONFIG=${KUBECONFIG_FILE}"; }

# sa-kubeconfig NS SA OUT: a kubeconfig that authenticates as the ServiceAccount through a bound
# token from the TokenRequest API, so the operator run locally is subject to exactly the RBAC
# granted to its SA.
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

# Commands that start or stop processes hold an exclusive lock on the state directory, so two
# callers (say an e2e suite and a developer) cannot interleave an `up` and a `down`. Separate
# clusters need separate LOCAL_CLUSTER_DIR and ports.
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
    pids) cmd_pids ;;
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
