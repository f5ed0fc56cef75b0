#!/usr/bin/env bash
# Local cluster instances: one table of the state directories and loopback ports of every
# cluster the scripts run, so that `make run-local`, `make bench`, `make test-e2e-local` and
# `make test-reliability` can run side by side on one machine. Source it; functions instance::*.
#
#   instance    state directory (under OUTPUT_DIR)   ports
#   local       local-cluster                        1xxxx  make run-local, make cluster-up
#   bench       bench-cluster                        2xxxx  make bench
#   e2e         e2e-cluster                          32xxx  make test-e2e-local
#   reliability reliability-cluster                  31xxx  make test-reliability
#   operands    operands-cluster                     30xxx  make test-operands-local
#   realpods    realpods-cluster                     24xxx  make test-realpods
#   upgrade     upgrade-cluster                      25xxx  make test-upgrade
#   switching   switching-cluster                    23xxx  make test-switching
#
# Every port is below 32768, where Linux's ephemeral range begins
# (/proc/sys/net/ipv4/ip_local_port_range): a port in that range may be the source port of
# some outgoing connection (a busy machine has hundreds: apiservers to their etcd, informers)
# at the moment a component binds it, and the bind fails with "address already in use".
#
# instance::use NAME sets, for each of these variables the caller has not set, the instance's
# value, and exports them all (hack/local-cluster.sh and hack/lib/operator.sh read them):
#   LOCAL_CLUSTER_INSTANCE  LOCAL_CLUSTER_DIR  ETCD_PORT  ETCD_PEER_PORT  APISERVER_PORT  KCM_PORT
#   SCHEDULER_PORT  KWOK_PORT  OPERATOR_LISTEN (127.0.0.1:<port>)  OPENSHIFT_ADMISSION_PORT
#   LOCAL_CLUSTER_POD_CIDR  LOCAL_CLUSTER_SERVICE_CIDR  LOCAL_CLUSTER_NODE_IP  REAL_PODS_FORWARD_PORT
# So `LOCAL_CLUSTER_INSTANCE=e2e hack/local-cluster.sh down` reaches the e2e cluster, and a
# variable set by hand still wins. The cert-manager runner listens on no port; kwok (started by
# kwokctl) serves its node API on KWOK_PORT; OPENSHIFT=true's openshift-admission
# (hack/openshift/cluster.sh) serves its webhook on OPENSHIFT_ADMISSION_PORT (the API server's
# port plus one).
#
# Addresses: every instance has its own pod range 127.<P>.0.0/16 and Service range
# 127.<S>.0.0/16, P = 16 + 10*row + offset and S = 96 + 10*row + offset (row counted from 0;
# the eight rows use 16..95 and 96..175): never shared by two instances or offsets, never
# 127.0.x. The pod range's first address (LOCAL_CLUSTER_NODE_IP, 127.<P>.0.1) is the real-pods
# agent's node address: its DNS server, the pods' gateway, NodePorts, and the kubelet API
# (ports 10250-10252, free to repeat since the address is the instance's own). Real pods'
# interfaces live in network namespaces the agent owns, so no interface name is shared either.
# REAL_PODS_FORWARD_PORT is the first of ten host ports (127.0.0.1) for forwarded Services
# (REAL_PODS_FORWARDS in hack/local-cluster.sh).
#
# LOCAL_CLUSTER_PORT_OFFSET (0..9, default 0) moves every port of every instance by ten times
# itself, so that several checkouts of this repository (git worktrees) can each run the same
# instance at once. No two ports of any instances and offsets meet (no two base ports differ by
# a multiple of 10 below 100), and the highest (32543 + 90) stays below 32768.

INSTANCE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

# name  directory  etcd  etcd-peer  apiserver  controller-manager  scheduler  operator  forwards  kwok
#   openshift-admission
# (the row's index gives its address ranges, see above)
INSTANCES=(
  "local       local-cluster       12379 12380 16443 17257 17259 18443 19080 17251 16444"
  "bench       bench-cluster       22379 22380 26443 27257 27259 28443 29080 27251 26444"
  "e2e         e2e-cluster         32379 32380 32443 32257 32259 32543 32080 32251 32444"
  "reliability reliability-cluster 31379 31380 31443 31257 31259 31543 31080 31251 31444"
  "operands    operands-cluster    30379 30380 30443 30257 30259 30543 30080 30251 30444"
  "realpods    realpods-cluster    24379 24380 24443 24257 24259 24543 24080 24251 24444"
  "upgrade     upgrade-cluster     25379 25380 25443 25257 25259 25543 25080 25251 25444"
  "switching   switching-cluster   23379 23380 23443 23257 23259 23543 23080 23251 23444"
)

# instance::use NAME: see the header.
instance::use() {
  local want="$1" row name dir etcd peer apiserver kcm scheduler operator forward kwok openshift
  local offset="${LOCAL_CLUSTER_PORT_OFFSET:-0}" index=-1
  if [[ ! "${offset}" =~ ^[0-9]$ ]]; then
    echo "LOCAL_CLUSTER_PORT_OFFSET must be a digit from 0 to 9, not '${offset}'" >&2
    return 1
  fi
  local digit="${offset}"
  offset=$((offset * 10))
  for row in "${INSTANCES[@]}"; do
    index=$((index + 1))
    read -r name dir etcd peer apiserver kcm scheduler operator forward kwok openshift <<<"${row}"
    [[ "${name}" == "${want}" ]] || continue
    etcd=$((etcd + offset)) peer=$((peer + offset)) apiserver=$((apiserver + offset))
    kcm=$((kcm + offset)) scheduler=$((scheduler + offset)) operator=$((operator + offset))
    forward=$((forward + offset)) kwok=$((kwok + offset)) openshift=$((openshift + offset))
    local pods=$((16 + 10 * index + digit)) services=$((96 + 10 * index + digit))
    export OUTPUT_DIR="${OUTPUT_DIR:-${INSTANCE_ROOT}/_output}"
    export LOCAL_CLUSTER_INSTANCE="${want}"
    export LOCAL_CLUSTER_DIR="${LOCAL_CLUSTER_DIR:-${OUTPUT_DIR}/${dir}}"
    export ETCD_PORT="${ETCD_PORT:-${etcd}}"
    export ETCD_PEER_PORT="${ETCD_PEER_PORT:-${peer}}"
    export APISERVER_PORT="${APISERVER_PORT:-${apiserver}}"
    export KCM_PORT="${KCM_PORT:-${kcm}}"
    export SCHEDULER_PORT="${SCHEDULER_PORT:-${scheduler}}"
    export KWOK_PORT="${KWOK_PORT:-${kwok}}"
    export OPERATOR_LISTEN="${OPERATOR_LISTEN:-127.0.0.1:${operator}}"
    export LOCAL_CLUSTER_POD_CIDR="${LOCAL_CLUSTER_POD_CIDR:-127.${pods}.0.0/16}"
    export LOCAL_CLUSTER_SERVICE_CIDR="${LOCAL_CLUSTER_SERVICE_CIDR:-127.${services}.0.0/16}"
    export LOCAL_CLUSTER_NODE_IP="${LOCAL_CLUSTER_NODE_IP:-127.${pods}.0.1}"
    export REAL_PODS_FORWARD_PORT="${REAL_PODS_FORWARD_PORT:-${forward}}"
    export OPENSHIFT_ADMISSION_PORT="${OPENSHIFT_ADMISSION_PORT:-${openshift}}"
    return 0
  done
  echo "unknown local cluster instance '${want}' (one of: $(instance::names))" >&2
  return 1
}

instance::names() {
  local row names=()
  for row in "${INSTANCES[@]}"; do names+=("${row%% *}"); done
  echo "${names[*]}"
}

# instance::env: the variables that reach the instance in use, as `VAR=value ...` for messages
# such as "stop it with: <this> hack/local-cluster.sh down".
instance::env() {
  echo "LOCAL_CLUSTER_DIR=${LOCAL_CLUSTER_DIR} ETCD_PORT=${ETCD_PORT} ETCD_PEER_PORT=${ETCD_PEER_PORT} APISERVER_PORT=${APISERVER_PORT} KCM_PORT=${KCM_PORT} SCHEDULER_PORT=${SCHEDULER_PORT} KWOK_PORT=${KWOK_PORT} OPENSHIFT_ADMISSION_PORT=${OPENSHIFT_ADMISSION_PORT} OPERATOR_LISTEN=${OPERATOR_LISTEN} LOCAL_CLUSTER_POD_CIDR=${LOCAL_CLUSTER_POD_CIDR} LOCAL_CLUSTER_SERVICE_CIDR=${LOCAL_CLUSTER_SERVICE_CIDR}"
}
