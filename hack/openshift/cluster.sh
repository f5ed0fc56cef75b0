#!/usr/bin/env bash
# OPENSHIFT=true: the local cluster as OpenShift where it matters to the operands (issue 29).
# Sourced by hack/local-cluster.sh, whose helpers (kc, start_proc, stop_proc, wait_for, log, die,
# write_kubeconfig, token_of) and variables (BIN, STATE, PIDS, LOGS, START_TIMEOUT) it uses;
# functions openshift::*.
#
# What `up` adds, all of it OpenShift's own code or manifests (hack/tools/openshift):
#   - the CRDs of security.openshift.io SecurityContextConstraints, config.openshift.io APIServer
#     (with the object `cluster`, which every OpenShift cluster has: the operator reads its TLS
#     profile) and Infrastructure (its `cluster`: controllercmd reads the control plane's
#     topology) and route.openshift.io Route, from the openshift/api module
#     (hack/build-cluster-binaries.sh writes them to $BIN/openshift-crds.yaml);
#   - openshift-admission (the process; port OPENSHIFT_ADMISSION_PORT of hack/lib/instance.sh):
#     installs OpenShift's default SCCs and their ClusterRoles and bindings, annotates every
#     namespace with its UID range, supplemental groups and SELinux level, and serves the SCC
#     admission plugin as the mutating webhook of pods registered here;
#   - OpenShift's service CA: upstream's service CA controllers (hack/openshift/serviceca.sh):
#     serving certificates for annotated Services, CA bundles injected, openshift-service-ca.crt
#     in every namespace.
#
# The webhook is registered only once openshift-admission is ready, with failurePolicy Fail as the
# in-process plugin fails closed: from then on no pod is admitted while it is down, as on
# OpenShift no pod is admitted without the SCC plugin. `down` stops it before the control plane.

# shellcheck source=hack/openshift/serviceca.sh
source "$(dirname "${BASH_SOURCE[0]}")/serviceca.sh"

OPENSHIFT="${OPENSHIFT:-false}"
OPENSHIFT_WEBHOOK="security.openshift.io-scc"
OPENSHIFT_CRDS=(securitycontextconstraints.security.openshift.io apiservers.config.openshift.io infrastructures.config.openshift.io routes.route.openshift.io)

# openshift::up: everything above (what is there already is left as it is).
openshift::up() {
  [[ -x "${BIN}/openshift-admission" && -f "${BIN}/openshift-crds.yaml" ]] ||
    die "${BIN}/openshift-admission is missing: run OPENSHIFT=true hack/build-cluster-binaries.sh"
  local t0=${SECONDS} crd
  touch "${STATE}/openshift"
  log "OpenShift: installing the CRDs of ${OPENSHIFT_CRDS[*]}"
  kc apply --server-side --force-conflicts -f "${BIN}/openshift-crds.yaml" >/dev/null
  for crd in "${OPENSHIFT_CRDS[@]}"; do
    kc wait --for=condition=Established --timeout="${START_TIMEOUT}s" "crd/${crd}" >/dev/null
  done
  # The installer's APIServer: no TLS profile set, which means Intermediate.
  echo '{"apiVersion": "config.openshift.io/v1", "kind": "APIServer", "metadata": {"name": "cluster"}, "spec": {}}' |
    kc apply --server-side -f - >/dev/null
  # The installer's Infrastructure, as on a cluster of three control plane nodes: controllercmd
  # reads status.controlPlaneTopology at start for the leader election's timings.
  echo '{"apiVersion": "config.openshift.io/v1", "kind": "Infrastructure", "metadata": {"name": "cluster"}, "spec": {}}' |
    kc apply --server-side -f - >/dev/null
  kc patch infrastructure cluster --subresource=status --type=merge \
    -p '{"status": {"controlPlaneTopology": "HighlyAvailable", "infrastructureTopology": "HighlyAvailable", "platform": "None", "infrastructureName": "local"}}' >/dev/null

  if proc::alive "${PIDS}/openshift-admission.pid"; then
    log "openshift-admission already running (pid ${PROC_PID})"
  else
    write_kubeconfig "${STATE}/openshift-admission.kubeconfig" openshift-admission "$(token_of openshift-admission)"
    rm -f "${STATE}/openshift-admission.ready" "${STATE}/openshift-admission-ca.crt"
    start_proc openshift-admission "${BIN}/openshift-admission" \
      --kubeconfig="${STATE}/openshift-admission.kubeconfig" \
      --listen="127.0.0.1:${OPENSHIFT_ADMISSION_PORT}" \
      --ca-file="${STATE}/openshift-admission-ca.crt" \
      --ready-file="${STATE}/openshift-admission.ready"
    wait_for "openshift-admission to install the SCCs and sync" test -f "${STATE}/openshift-admission.ready"
  fi
  openshift::register_webhook
  wait_for "the SCC webhook to admit a pod with restricted-v2" openshift::admits
  serviceca::start "${KUBECONFIG_FILE}" "${STATE}" || die "the service CA did not start"
  log "OpenShift's SCCs, SCC admission, namespace annotations and service CA in $((SECONDS - t0))s"
}

# The plugin's operations (CREATE, UPDATE) on pods and the subresources whose object is a pod
# and which it does not ignore (ephemeralcontainers, resize). reinvocationPolicy IfNeeded: a
# webhook called after this one that changes the pod has it checked again, as the in-process
# plugin's Validate checks the pod after every mutating webhook.
openshift::register_webhook() {
  kc apply -f - >/dev/null <<EOF
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: ${OPENSHIFT_WEBHOOK}
webhooks:
- name: scc.security.openshift.io
  admissionReviewVersions: [v1]
  sideEffects: None
  failurePolicy: Fail
  reinvocationPolicy: IfNeeded
  timeoutSeconds: 30
  clientConfig:
    url: https://127.0.0.1:${OPENSHIFT_ADMISSION_PORT}/mutate-pods
    caBundle: $(base64 -w0 <"${STATE}/openshift-admission-ca.crt")
  rules:
  - apiGroups: [""]
    apiVersions: [v1]
    operations: [CREATE, UPDATE]
    resources: [pods, pods/ephemeralcontainers, pods/resize]
    scope: Namespaced
EOF
}

# openshift::admits: a pod created (dry run) in `default` as the ReplicaSet controller creates a
# Deployment's pods gets restricted-v2: the webhook answers, the SCCs and their RBAC are there,
# `default` is annotated. (The admin is in system:masters, who may use every SCC, so a pod it
# creates gets anyuid, the SCC of highest priority, as on OpenShift.)
openshift::admits() {
  local scc
  scc="$(kc create --dry-run=server --as=system:serviceaccount:kube-system:replicaset-controller -n default -o 'jsonpath={.metadata.annotations.openshift\.io/scc}' -f - <<'EOF'
{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "scc-probe"},
 "spec": {"containers": [{"name": "probe", "image": "registry.invalid/probe"}]}}
EOF
)" && [[ "${scc}" == "restricted-v2" ]]
}

# openshift::down: stop openshift-admission (the webhook configuration goes with etcd's data).
openshift::down() {
  serviceca::stop "${STATE}" || die "the service CA could not be stopped"
  stop_proc openshift-admission
  rm -f "${STATE}/openshift-admission.ready" "${STATE}/openshift"
}

# openshift::status: one line of `status`, when the cluster was started with OPENSHIFT=true.
openshift::status() {
  local pid
  [[ -f "${STATE}/openshift" ]] || return 0
  if pid="$(proc::pid "${PIDS}/openshift-admission.pid")"; then
    printf '  %-24s running (pid %s, webhook https://127.0.0.1:%s)\n' openshift-admission "${pid}" "${OPENSHIFT_ADMISSION_PORT}"
  else
    printf '  %-24s stopped\n' openshift-admission
  fi
  serviceca::status "${STATE}" || true
}
