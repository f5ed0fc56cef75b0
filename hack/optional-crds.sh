#!/usr/bin/env bash
# Installs and removes the CRDs of the optional APIs the operands use when they
# exist, in the local live cluster (hack/local-cluster.sh) or any cluster that
# $KUBECONFIG points at, so the e2e suite can exercise "CRD missing" and "CRD
# installed later" (the operator must pick it up without a restart).
# cert-manager is not here: hack/local-cluster.sh start-cert-manager installs
# its CRDs together with its controllers.
#
# Sets (versions pinned in hack/tools/crds/go.mod and go.sum; the YAML is read
# from the module zips, which come from the Go module proxy):
#   gateway-api  sigs.k8s.io/gateway-api, standard channel, config/crd/standard/*.yaml:
#                the CRDs GatewayClass, Gateway, HTTPRoute (v1, v1beta1), GRPCRoute,
#                ReferenceGrant (v1, v1beta1), BackendTLSPolicy, ListenerSet, TCPRoute,
#                TLSRoute, UDPRoute, and the ValidatingAdmissionPolicy (+Binding)
#                safe-upgrades.gateway.networking.k8s.io that the channel ships.
#                An API server older than a CRD needs (NEEDS below) gets the set without
#                it, said in the output: on Kubernetes 1.30, every CRD but TLSRoute.
#   monitoring   github.com/prometheus-operator/prometheus-operator,
#                example/prometheus-operator-crd/*.yaml: the monitoring.coreos.com CRDs
#                ServiceMonitor, PodMonitor, PrometheusRule, Probe, ScrapeConfig,
#                Prometheus, PrometheusAgent, Alertmanager, AlertmanagerConfig, ThanosRuler
#                (4.2 MB of YAML: 5-30 s to install on a busy 2-core machine)
#   monitoring-core  the same module, only ServiceMonitor, PodMonitor and PrometheusRule,
#                which is all the operands use: a few seconds. `uninstall monitoring`
#                removes these too; `uninstall monitoring-core` only these.
#   all          gateway-api and monitoring
#
# Usage:
#   hack/optional-crds.sh install SET...     server-side apply, then wait until every CRD is
#                                            Established, in discovery, and its resources can be
#                                            listed (idempotent)
#   hack/optional-crds.sh uninstall SET...   delete the set's objects (the CRDs' custom
#                                            resources go with them), wait until gone (idempotent)
#   hack/optional-crds.sh status [SET...]    what is installed; exit 0 only if every SET
#                                            [default: all] is fully installed and Established
#   hack/optional-crds.sh render SET...      print the YAML (needs no cluster)
#
# The rendered YAML is cached in $OUTPUT_DIR/crds/<set>-<key>.r<N>.yaml (with a .objects
# file listing what it holds and a .version file naming module@version), keyed by the
# tools module's go.mod and go.sum, so only the first run after a version change needs
# `go` and the module cache.
#
# Environment (defaults in brackets):
#   KUBECONFIG                   the cluster, as an administrator (install, uninstall,
#                                status); for the local cluster: eval "$(hack/local-cluster.sh env)"
#   OUTPUT_DIR [<repo>/_output]  kubectl is $OUTPUT_DIR/bin/kubectl (hack/build-cluster-binaries.sh),
#                                the cache is $OUTPUT_DIR/crds
#   CRDS_TIMEOUT [120]           seconds to wait for Established / discovery / deletion
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUTPUT_DIR="${OUTPUT_DIR:-${ROOT}/_output}"
KUBECTL="${OUTPUT_DIR}/bin/kubectl"
CACHE="${OUTPUT_DIR}/crds"
TOOLS_MODULE="${ROOT}/hack/tools/crds"
CRDS_TIMEOUT="${CRDS_TIMEOUT:-120}"
FIELD_MANAGER="llm-infra-optional-crds"
# Bump when what render produces changes for the same module versions.
RENDER_REV=1

SETS=(gateway-api monitoring)    # what `all` means

# Objects of a set that an older API server refuses: set, object (kubectl -o name), the oldest
# Kubernetes minor that takes it, why. install, uninstall and status leave such an object out
# on an older server (hack/lib/kube-version.sh's oldest release runs the e2e suite too); the
# operands use none of them.
NEEDS=(
  "gateway-api customresourcedefinition.apiextensions.k8s.io/tlsroutes.gateway.networking.k8s.io 31 its hostnames rule calls isIP, a CEL function of Kubernetes 1.31 (gateway-api v1.5.0's release notes)"
)
KNOWN_SETS="gateway-api monitoring monitoring-core all"

log() { echo "[optional-crds] $*" >&2; }
die() { echo "[optional-crds] ERROR: $*" >&2; exit 1; }

# The parts, by responsibility (each sourced file says what it holds):
# shellcheck source=hack/lib/crds-render.sh
source "${ROOT}/hack/lib/crds-render.sh"
# shellcheck source=hack/lib/crds-cluster.sh
source "${ROOT}/hack/lib/crds-cluster.sh"
# shellcheck source=hack/lib/crds-wait.sh
source "${ROOT}/hack/lib/crds-wait.sh"
# shellcheck source=hack/lib/crds-commands.sh
source "${ROOT}/hack/lib/crds-commands.sh"

main() {
  local cmd="${1:-}"
  [[ $# -gt 0 ]] && shift
  case "${cmd}" in
    install) cmd_install "$@" ;;
    uninstall) cmd_uninstall "$@" ;;
    status) cmd_status "$@" ;;
    render) cmd_render "$@" ;;
    *)
      sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'
      [[ -z "${cmd}" || "${cmd}" == "help" || "${cmd}" == "-h" || "${cmd}" == "--help" ]] || exit 2
      ;;
  esac
}

main "$@"
