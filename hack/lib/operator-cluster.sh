#!/usr/bin/env bash
# The cluster side of hack/lib/operator.sh: install deploy/ into the local cluster, whether a
# cluster runs in the instance's directory, bring it up and tear down what the calling script
# started, and wait for the CR `cluster` to be Available. Separate from the operator's process
# (hack/lib/operator-process.sh), which these only stop (op::teardown calls op::stop).
# Sourced by hack/lib/operator.sh after its settings (OP_ROOT, OP_KUBECTL, OP_NAMESPACE,
# OP_DEPLOY_NAMESPACE, OP_SERVICEACCOUNT, OP_CLUSTER, OP_LOG, OP_STARTED_*, op::log, op::die, op::kubectl, op::poll)
# and hack/lib/instance.sh (instance::env).

# op::manifest FILE: FILE with deploy/'s namespace (OP_DEPLOY_NAMESPACE) replaced by OP_NAMESPACE.
# deploy/ names its namespace only as itself (metadata, RoleBinding subjects) and inside Service
# DNS names (`<service>.<namespace>.svc`), so replacing the whole word moves every object there.
op::manifest() { sed "s/\b${OP_DEPLOY_NAMESPACE}\b/${OP_NAMESPACE}/g" "$1"; }

# op::install: the CRDs (deploy/00_*) first, and wait until each is served, then every other
# deploy/ manifest except 10_* (the operator's own Deployment: here the operator runs as a local
# process), in OP_NAMESPACE (op::manifest).
op::install() {
  [[ -x "${OP_KUBECTL}" ]] || op::die "${OP_KUBECTL} is missing: run hack/local-cluster.sh up"
  local crds=() crd
  for crd in "${OP_ROOT}"/deploy/00_*.yaml; do
    op::log "installing ${crd#"${OP_ROOT}/"}"
    crds+=(-f "${crd}")
  done
  op::kubectl apply --server-side --force-conflicts "${crds[@]}" >/dev/null
  op::kubectl wait --for=condition=Established --timeout=60s "${crds[@]}" >/dev/null
  local f
  for f in "${OP_ROOT}"/deploy/*.yaml; do
    case "$(basename "${f}")" in
      00_*|10_*) continue ;;
    esac
    op::log "applying ${f#"${OP_ROOT}/"}"
    op::manifest "${f}" | op::kubectl apply -f - >/dev/null
  done
  # The ServiceMonitor and PrometheusRule need the Prometheus operator's CRDs, which the local
  # cluster has only after `hack/optional-crds.sh install monitoring-core` (or `monitoring`).
  if op::kubectl get crd servicemonitors.monitoring.coreos.com prometheusrules.monitoring.coreos.com >/dev/null 2>&1; then
    op::log "applying deploy/monitoring/"
    for f in "${OP_ROOT}"/deploy/monitoring/*.yaml; do
      op::manifest "${f}" | op::kubectl apply -f - >/dev/null
    done
  else
    op::log "skipping deploy/monitoring/: the Prometheus operator's CRDs are not installed"
  fi
  # The ServiceAccount's token comes from the TokenRequest API, which needs the SA to exist.
  op::poll 30 0.2 op::kubectl get serviceaccount "${OP_SERVICEACCOUNT}" -n "${OP_NAMESPACE}" ||
    op::die "ServiceAccount ${OP_NAMESPACE}/${OP_SERVICEACCOUNT} did not appear"
}

# op::cluster_processes: succeeds when a process of the instance (a cluster component, kwokctl's
# or the script's, or the operator) is still alive: someone's cluster runs in OP_STATE.
op::cluster_processes() { [[ -n "$("${OP_CLUSTER}" pids)" ]]; }

# op::cluster_running: a cluster, whole or in part, runs in this instance's directory.
op::cluster_running() { "${OP_CLUSTER}" status >/dev/null 2>&1 || op::cluster_processes; }

# op::cluster_up: hack/local-cluster.sh up, remembered for op::teardown.
op::cluster_up() {
  OP_STARTED_CLUSTER=true
  "${OP_CLUSTER}" up
}

# op::teardown: stop the operator if this script started it, and bring the cluster down if this
# script started it, unless KEEP_CLUSTER=true. For the scripts' exit hooks (proc::on_exit).
op::teardown() {
  if [[ "${OP_STARTED_OPERATOR}" == "true" ]]; then
    op::stop || true
  fi
  [[ "${OP_STARTED_CLUSTER}" == "true" ]] || return 0
  if [[ "${KEEP_CLUSTER:-false}" == "true" ]]; then
    op::log "cluster left up (KEEP_CLUSTER=true); stop it with: $(instance::env) ${OP_CLUSTER} down"
  else
    "${OP_CLUSTER}" down || true
  fi
}

# op::condition TYPE: the status of a condition of the CR `cluster` (empty when unset).
op::condition() {
  op::kubectl get leaderworkersetoperators.operator.openshift.io cluster \
    -o "jsonpath={.status.conditions[?(@.type==\"$1\")].status}" 2>/dev/null
}

op::available() { [[ "$(op::condition Available)" == "True" ]]; }

# op::wait_available [TIMEOUT]: poll until the CR reports Available=True.
op::wait_available() {
  local timeout="${1:-180}"
  op::log "waiting up to ${timeout}s for LeaderWorkerSetOperator/cluster Available=True"
  if ! op::poll "${timeout}" 1 op::available; then
    op::kubectl get leaderworkersetoperators.operator.openshift.io cluster -o yaml >&2 || true
    op::die "LeaderWorkerSetOperator/cluster is not Available after ${timeout}s; operator log: ${OP_LOG}"
  fi
}
