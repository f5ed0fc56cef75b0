#!/usr/bin/env bash
# The suites of hack/test-upgrade.sh: `run` (make test-upgrade: the previous release up, then
# TestUpgrade) and `switching` (make test-switching: the working tree's deploy/ beside
# cert-manager and the ServiceMonitor CRD, then TestSwitching), each on its own instance, and
# how the suite's test binary runs against it. Separate from the releases and the hooks
# (hack/lib/upgrade-releases.sh).
# Sourced by hack/test-upgrade.sh after its settings (ROOT, START, SUITE_RC, log),
# hack/lib/operator.sh (op::*, proc::on_exit, instance::env, OP_*) and
# hack/lib/upgrade-releases.sh (PREVIOUS_REF, previous_commit).

# run_upgrade_test TEST RESULT_FILE: the suite's test TEST (test/upgrade, compiled to OP_BIN) against this
# instance, with what it reads of the cluster and the hooks it calls back; its result in
# OP_OUTPUT_DIR/upgrade/RESULT_FILE. Exits with the suite's status.
run_upgrade_test() {
  export KUBECONFIG="${OP_ADMIN_KUBECONFIG}"
  export UPGRADE_AUDIT_LOG="${OP_STATE}/logs/audit.log"
  export UPGRADE_OPERATOR_USER="system:serviceaccount:${OP_NAMESPACE}:${OP_SERVICEACCOUNT}"
  export UPGRADE_OPERATOR_NAMESPACE="${OP_NAMESPACE}"
  export UPGRADE_HOOK="${ROOT}/hack/test-upgrade.sh"
  export UPGRADE_RESULT="${OP_OUTPUT_DIR}/upgrade/$2"
  mkdir -p "$(dirname "${UPGRADE_RESULT}")"
  set +e
  (cd "${ROOT}/test/upgrade" && "${OP_BIN}/upgrade.test" -test.v -test.count=1 -test.run "^$1\$" -test.timeout "${UPGRADE_TIMEOUT:-40m}")
  SUITE_RC=$?
  set -e
  log "suite exited ${SUITE_RC} after $((SECONDS - START))s in total; result: ${UPGRADE_RESULT}"
  exit "${SUITE_RC}"
}

run() {
  cleanup() { op::finish_suite "$1" "${SUITE_RC}" upgrade-logs; }
  proc::on_exit cleanup
  if op::cluster_running; then
    op::die "a local cluster is (partly) running in ${LOCAL_CLUSTER_DIR}; stop it first: $(instance::env) ${OP_CLUSTER} down"
  fi
  # Built before the cluster starts: the builds compete for the CPU with the control plane.
  build_previous >/dev/null
  op::build
  (cd "${ROOT}" && GOFLAGS="-mod=vendor -trimpath" go test -c -o "${OP_BIN}/upgrade.test" ./test/upgrade/)
  WITH_CERT_MANAGER=false op::cluster_up
  install_previous
  start_previous
  # The hooks replace the operator of this instance; teardown stops whichever runs then.
  OP_STARTED_OPERATOR=true
  log "previous release running; set up in $((SECONDS - START))s"

  export UPGRADE_PREVIOUS_REF="${PREVIOUS_REF} ($(previous_commit))"
  run_upgrade_test TestUpgrade "result$([[ "${UPGRADE_SHORT:-false}" == "true" ]] && echo -short).json"
}

# switching: make test-switching (see the header).
switching() {
  cleanup() { op::finish_suite "$1" "${SUITE_RC}" switching-logs; }
  proc::on_exit cleanup
  if op::cluster_running; then
    op::die "a local cluster is (partly) running in ${LOCAL_CLUSTER_DIR}; stop it first: $(instance::env) ${OP_CLUSTER} down"
  fi
  op::build
  (cd "${ROOT}" && GOFLAGS="-mod=vendor -trimpath" go test -c -o "${OP_BIN}/upgrade.test" ./test/upgrade/)
  # openshift/lws-operator needs cert-manager (it stops at a missing Issuer kind) and the
  # ServiceMonitor CRD (it stops at a failed apply before its Deployment): without them the
  # objects it makes could not exist, so both are on the cluster. The gateways' CRs ask for no
  # monitor and no certificate.
  "${ROOT}/hack/optional-crds.sh" render monitoring-core >/dev/null
  WITH_CERT_MANAGER=true op::cluster_up
  KUBECONFIG="${OP_ADMIN_KUBECONFIG}" "${ROOT}/hack/optional-crds.sh" install monitoring-core
  # The README's steps: the upstream operator uninstalled (its operand objects stay: the suite
  # puts them there), this operator installed, then started by the suite.
  install_current
  # The suite starts the operator through its hook; teardown stops it.
  OP_STARTED_OPERATOR=true
  run_upgrade_test TestSwitching switching.json
}
