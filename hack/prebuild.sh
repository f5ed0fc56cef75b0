#!/usr/bin/env bash
# hack/prebuild.sh: build, ahead of the phases of `make ci` that need them, the programs those
# phases would otherwise build while everything else waits, in the order the phases need them:
#   upstream's renderers (batch and inference gateway, lws; test/differential)  test (the differential tests)
#   the cluster's programs (hack/build-cluster-binaries.sh)        test-e2e-local and after
#   the operands' programs of the short set (hack/fetch-operands.sh) test-operands-short
#   OpenShift's programs (OPENSHIFT=true hack/build-cluster-binaries.sh)  *-openshift
#   the previous release (hack/test-upgrade.sh build-previous)     test-upgrade-short
#   the fuzz tests' instrumented compile (hack/fuzz.sh build)      test-reliability-short
#   the oldest Kubernetes' kube-apiserver (KUBE_VERSION=oldest ...) test-admission-oldest
# hack/ci.sh runs it in the background, niced, while verify and test run: a cold `make ci` used
# one of the two cores on average (docs/development.md#ci-and-its-times), its builds waiting for
# phases that wait on a cluster. Each step is the phase's own command, which keeps its cache and
# its lock (one build per output folder; the operands' cache is locked), so a phase that starts
# before its step ends waits for it and then finds everything built; warm, each step takes
# seconds. A failed step is reported, with its output kept in _output/prebuild-<step>.log, and
# the rest go on: the phase that needs it builds it again and fails with its own message.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"

# The steps: name, then the command.
STEPS=(
  "upstream-render|go test -count=1 -timeout 45m -run ^(TestUpstreamRendersGolden|TestUpstreamRendersInferenceGatewayGolden|TestUpstreamRendersLWS)$ ./test/differential/"
  "cluster|hack/build-cluster-binaries.sh"
  "operands|env OPERANDS_SET=short hack/fetch-operands.sh"
  "openshift|env OPENSHIFT=true hack/build-cluster-binaries.sh"
  "previous-release|hack/test-upgrade.sh build-previous"
  "fuzz|hack/fuzz.sh build"
  "oldest-kubernetes|env KUBE_VERSION=oldest APISERVER_ONLY=true hack/build-cluster-binaries.sh"
)

failed=0
for step in "${STEPS[@]}"; do
  name="${step%%|*}"
  start=${SECONDS}
  # shellcheck disable=SC2086 # the command is a word list on purpose
  # Each step's output in its own file, kept for a failure (the phase builds again, and its
  # own error is what CI reports, but the step's is what says why the head start was lost).
  out="${ROOT}/_output/prebuild-${name}.log"
  if ${step#*|} >"${out}" 2>&1; then rc=0; rm -f "${out}"; else rc=$?; failed=$((failed + 1)); fi
  echo "[prebuild] ${name}: $((SECONDS - start))s (exit ${rc})"
  if ((rc != 0)); then
    echo "[prebuild] ${name}: its output: ${out}; the last lines:"
    tail -n 5 "${out}" | sed 's/^/    /'
  fi
done
exit $((failed > 0))
