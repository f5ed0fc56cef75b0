# shellcheck shell=bash
# hack/lib/cluster/cert-manager.sh, sourced by hack/local-cluster.sh: the cert-manager runner beside
# the cluster (start-cert-manager, stop-cert-manager; `up` starts it with WITH_CERT_MANAGER=true):
# its CRDs applied and Established, then the runner until its caches have synced.

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
