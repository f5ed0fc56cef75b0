#!/usr/bin/env bash
# hack/openshift/live-tests.sh KUBECONFIG: the tests of OPENSHIFT=true's parts against a local
# cluster started with OPENSHIFT=true (hack/local-cluster.sh): hack/tools/openshift's unit tests
# and its live test (namespace annotations; a Deployment's pod admitted with restricted-v2 and a
# UID of the namespace's range; pods asking for runAsUser 65532 or hostNetwork rejected with the
# SCC plugin's message), then the service CA's live test
# (hack/openshift/servicecalive: a serving certificate that verifies against
# openshift-service-ca.crt, CA bundles injected). Run by make test-openshift-cluster on a
# cluster of its own and by make test-operands-short with OPENSHIFT=true on the suite's cluster
# before the suite, so CI brings up no cluster for them alone. Needs the binaries of
# `OPENSHIFT=true hack/build-cluster-binaries.sh`.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
KUBECONFIG_FILE="$(readlink -f "${1:?usage: $0 KUBECONFIG}")"
log() { echo "[openshift-live-tests] $*"; }

# The pinned apiserver-library-go where hack/tools/openshift/go.mod's replace points (a cached
# openshift-admission was built without it).
# shellcheck source=hack/lib/sources.sh
source "${ROOT}/hack/lib/sources.sh"
sources_log() { log "$*"; }
sources::load "${ROOT}/hack/openshift/sources.tsv"
sources::pinned_tree apiserver-library-go "${ROOT}/_output/openshift-src/apiserver-library-go"

t0=${SECONDS}
log "hack/tools/openshift: unit tests and SCC admission live"
# The flags hack/build-cluster-binaries.sh builds openshift-admission with (and -trimpath, which
# it passes on the command line): the test binaries then reuse the packages that build compiled.
(cd "${ROOT}/hack/tools/openshift" && GOFLAGS="-mod=mod -buildvcs=false -trimpath" CGO_ENABLED=0 GOWORK=off GOTOOLCHAIN=local \
  OPENSHIFT_LIVE_KUBECONFIG="${KUBECONFIG_FILE}" go test -count=1 -timeout 5m ./...)
log "the service CA live (servicecatool's unit tests run in make test)"
(cd "${ROOT}" && GOFLAGS="-mod=vendor -trimpath" SERVICE_CA_KUBECONFIG="${KUBECONFIG_FILE}" \
  go test -count=1 -timeout 5m ./hack/openshift/servicecalive/)
log "passed in $((SECONDS - t0))s"
