#!/usr/bin/env bash
# make test-upgrade (and test-upgrade-short): upgrade this operator on the local cluster from
# its previous release (hack/upgrade/previous-ref) to the working tree's, the way OLM does, and
# measure what the users' operands see (test/upgrade).
#
#   1. The previous release is built from its commit (`git archive` into a cache outside the
#      clone, keyed by the commit: UPGRADE_CACHE [${XDG_CACHE_HOME:-$HOME/.cache}/llm-infra-operator/upgrade]), once.
#   2. A local cluster of its own (instance `upgrade`, ports 25xxx, hack/lib/instance.sh), the
#      previous release's deploy/ installed and its operator started.
#   3. The suite (test/upgrade) creates LeaderWorkerSetOperator `cluster`, LLMBatchGateways,
#      Gateways and MCPs in several namespaces and waits until all are Ready. Then it upgrades
#      through the hooks below, as OLM does: the new CRDs first (then the rest of deploy/: RBAC),
#      then the operator replaced (the old process stopped, the new one started). It watches
#      every CR and Deployment throughout, and fails on a pod roll no manifest change explains
#      and on a condition that went False.
#
# Subcommands (the suite's hooks; they reach the same instance through the environment):
#   hack/test-upgrade.sh [run]           everything above, then teardown (the default)
#   UPGRADE_INSTANCE=switching hack/test-upgrade.sh switching
#                                        make test-switching: cert-manager and the ServiceMonitor
#                                        CRD (openshift/lws-operator needs both), the working tree's
#                                        deploy/ installed, the objects each upstream operator makes
#                                        for its CRs put on the cluster, then this operator started
#                                        (test/upgrade/switching_test.go); instance `switching`
#   hack/test-upgrade.sh build-previous  build the previous release into the cache, print its folder
#   hack/test-upgrade.sh install-previous the previous release's deploy/ (built first)
#   hack/test-upgrade.sh start-previous  start the previous release's operator (OPERATOR_ARGS as given)
#   hack/test-upgrade.sh install-current the working tree's deploy/: CRDs first (Established), the rest
#   hack/test-upgrade.sh stop-previous   stop the previous release's operator
#   hack/test-upgrade.sh start-current   start the working tree's operator
#
# Environment (defaults in brackets): those of hack/local-cluster.sh and hack/lib/operator.sh, and
#   UPGRADE_SHORT [false]   the short form: 11 CRs instead of 51 (test/upgrade says which)
#   UPGRADE_TIMEOUT [40m]   go test -timeout
#   KEEP_CLUSTER [false]    leave the cluster running afterwards
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The switching suite runs on an instance of its own (UPGRADE_INSTANCE=switching, which its
# hooks inherit), so both suites can run side by side.
export UPGRADE_INSTANCE="${UPGRADE_INSTANCE:-upgrade}"
export LOCAL_CLUSTER_INSTANCE="${UPGRADE_INSTANCE}"
# shellcheck source=hack/lib/operator.sh
source "${ROOT}/hack/lib/operator.sh"

log() { echo "[upgrade] $*"; }

# The parts, by responsibility: the releases and the suite's hooks, then the suites.
# shellcheck source=hack/lib/upgrade-releases.sh
source "${ROOT}/hack/lib/upgrade-releases.sh"
# shellcheck source=hack/lib/upgrade-suites.sh
source "${ROOT}/hack/lib/upgrade-suites.sh"

START=${SECONDS}
SUITE_RC=""

case "${1:-run}" in
  run) run ;;
  switching) switching ;;
  build-previous) build_previous ;;
  # The operands' serving-under-faults spec (test/operands) upgrades its instance under load:
  # UPGRADE_INSTANCE=operands, the operator as it runs there.
  install-previous) build_previous >/dev/null && install_previous ;;
  start-previous) start_previous ;;
  install-current) install_current ;;
  stop-previous) stop_previous ;;
  start-current) start_current ;;
  *)
    sed -n '2,/^$/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
