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
#   APISERVER_ONLY [false]     `up` runs no kube-controller-manager or kube-scheduler (nor
#                              builds them for a KUBE_VERSION other than the newest): for suites
#                              whose checks are the API server's (make test-admission-oldest)
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
# The parts, each readable alone (hack/lib/cluster/):
# shellcheck source=hack/lib/cluster/settings.sh
source "${ROOT}/hack/lib/cluster/settings.sh"
# shellcheck source=hack/lib/cluster/processes.sh
source "${ROOT}/hack/lib/cluster/processes.sh"
# shellcheck source=hack/lib/cluster/config.sh
source "${ROOT}/hack/lib/cluster/config.sh"
# shellcheck source=hack/lib/cluster/components.sh
source "${ROOT}/hack/lib/cluster/components.sh"
# shellcheck source=hack/lib/cluster/cert-manager.sh
source "${ROOT}/hack/lib/cluster/cert-manager.sh"
# shellcheck source=hack/lib/cluster/lifecycle.sh
source "${ROOT}/hack/lib/cluster/lifecycle.sh"
# shellcheck source=hack/lib/cluster/commands.sh
source "${ROOT}/hack/lib/cluster/commands.sh"

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
