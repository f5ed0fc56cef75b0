#!/usr/bin/env bash
# OpenShift's service CA on the local cluster (issue 29): serving certificates for Services
# annotated service.beta.openshift.io/serving-cert-secret-name, and the CA bundle injected into
# webhook configurations, CRDs, APIServices and ConfigMaps annotated
# service.beta.openshift.io/inject-cabundle, by upstream's own program, unchanged:
# `service-ca-operator controller`, built from the service-ca-operator tree pinned in
# hack/openshift/sources.tsv. Source it; functions serviceca::*. It needs only hack/lib (proc.sh,
# sources.sh) and hack/operands/lib.sh, so hack/local-cluster.sh can call one function in `up`
# and one in `down`.
#
#   serviceca::build                  the controllers' binary, cached; servicecatool
#   serviceca::start KUBECONFIG STATE start both processes (idempotent), wait until they work
#   serviceca::stop STATE             stop them
#   serviceca::status STATE           one line per process; fails unless both run
#
# What the controllers need, and who gives it to them here (OpenShift's in brackets):
#   - their namespace, ServiceAccount and RBAC, the signing CA (Secret openshift-service-ca/
#     signing-key) and its bundle (ConfigMap signing-cabundle) [the service CA operator]:
#     `servicecatool setup` (hack/openshift/servicecatool), from the operator's own manifests
#     and with library-go's crypto as the operator makes the CA; the operator is not run (see
#     servicecatool's doc);
#   - those two mounted at /var/run/secrets/signing-key and
#     /var/run/configmaps/signing-cabundle, and the ServiceAccount's ca.crt and namespace at
#     /var/run/secrets/kubernetes.io/serviceaccount [the kubelet]: the program reads these fixed
#     paths, so it runs in a mount namespace of its own (unshare) whose /run is a tmpfs with the
#     files of STATE/service-ca/ bind-mounted there; nothing changes on the host;
#   - a kubeconfig of that ServiceAccount (a TokenRequest token, SERVICE_CA_TOKEN_DURATION)
#     [in-cluster config]; --namespace (leader election, events) [read from the mount];
#     --listen on loopback, port SERVICE_CA_PORT [0.0.0.0:8443 in the pod];
#   - no OpenShift API: without --feature-gates (the operator passes none on a default cluster)
#     the controllers watch Kubernetes' objects only. library-go reads
#     infrastructures.config.openshift.io `cluster` for the control plane's topology and, when
#     it is missing, logs so and uses the leader election of a highly available cluster.
# And ConfigMap openshift-service-ca.crt in every namespace, which the service CA only fills in,
# is created by `servicecatool publish` [OpenShift's kube-controller-manager].
#
# The tree is extracted from $OPERAND_SOURCES/<archive> when set, else fetched from GitHub at the
# pinned commit (hack/lib/sources.sh); it has no vendor/: modules come from the Go module proxy,
# which refuses the library-go version upstream's go.mod requires, so the build replaces it with
# the version this repository's go.mod requires (newer; the program's code is unchanged). The
# build is cached in OPERANDS_CACHE (hack/operands/lib.sh) under service-ca-operator-<key>, the
# key being the commit, that library-go version, `go version` and the build function's text.
#
# Environment (defaults in brackets):
#   OUTPUT_DIR [<repo>/_output]   the binaries in $OUTPUT_DIR/bin (kubectl from there too)
#   OPERAND_SOURCES []            folder of source archives; empty: fetch from GitHub
#   SERVICE_CA_PORT [the API server's port + 2]   the controllers' metrics and health (loopback)
#   SERVICE_CA_TOKEN_DURATION [24h]   lifetime of the controllers' and publisher's credentials
#   SERVICE_CA_TIMEOUT [120]      seconds `start` waits for each step

SERVICECA_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=hack/lib/proc.sh
declare -F proc::start >/dev/null || source "${SERVICECA_ROOT}/hack/lib/proc.sh"
# shellcheck source=hack/lib/sources.sh
declare -F sources::tree >/dev/null || source "${SERVICECA_ROOT}/hack/lib/sources.sh"
# shellcheck source=hack/operands/lib.sh
declare -F operands::build >/dev/null || source "${SERVICECA_ROOT}/hack/operands/lib.sh"

SERVICECA_NAME=service-ca-operator
SERVICECA_NAMESPACE=openshift-service-ca
SERVICECA_TIMEOUT="${SERVICE_CA_TIMEOUT:-120}"

serviceca::_log() { echo "[service-ca] $*"; }
serviceca::_bin() { echo "${OUTPUT_DIR:-${SERVICECA_ROOT}/_output}/bin"; }
serviceca::_kubectl() {
  local k
  k="$(serviceca::_bin)/kubectl"
  [[ -x "${k}" ]] || k=kubectl
  "${k}" "$@"
}

# The pin, loaded once (a caller may have loaded hack/openshift/sources.tsv already).
serviceca::_pin() {
  [[ -n "${SOURCES_COMMIT[${SERVICECA_NAME}]:-}" ]] && return 0
  declare -F sources_log >/dev/null || sources_log() { serviceca::_log "$*"; }
  sources::load "${SERVICECA_ROOT}/hack/openshift/sources.tsv"
}

# The parts, each readable alone: the build; the processes.
# shellcheck source=hack/lib/serviceca-build.sh
source "${SERVICECA_ROOT}/hack/lib/serviceca-build.sh"
# shellcheck source=hack/lib/serviceca-run.sh
source "${SERVICECA_ROOT}/hack/lib/serviceca-run.sh"
