# shellcheck shell=bash
# hack/lib/cluster/settings.sh, sourced by hack/local-cluster.sh: the instance's paths, ports,
# defaults and node names, and the small helpers every other part uses (log, die, kc, kw).

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
# start order; after them, what runs the pods (kwok, or the agent this script starts). With
# APISERVER_ONLY=true `up` starts no controller manager or scheduler (make test-admission-oldest:
# its checks are the API server's, and an older version then needs only its kube-apiserver
# built); the choice is kept for the other commands, like the version.
CONTROL_PLANE_FILE="${STATE}/control-plane"
# use_control_plane full|apiserver-only: sets CONTROL_PLANE.
use_control_plane() {
  CONTROL_PLANE=(etcd kube-apiserver)
  [[ "$1" == "apiserver-only" ]] || CONTROL_PLANE+=(kube-controller-manager kube-scheduler)
}
# asked_control_plane: the control plane `up` starts anew.
asked_control_plane() { [[ "${APISERVER_ONLY:-false}" == "true" ]] && echo apiserver-only || echo full; }
use_control_plane "$(cat "${CONTROL_PLANE_FILE}" 2>/dev/null || echo full)"
has_component() { [[ " ${CONTROL_PLANE[*]} " == *" $1 "* ]]; }
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
