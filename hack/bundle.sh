#!/usr/bin/env bash
# make bundle: writes the OLM bundle (manifests/, metadata/, bundle.Dockerfile) from deploy/ and
# the hand-written part of the ClusterServiceVersion (hack/bundle/csv-base.yaml); hack/bundlegen
# says what comes from where. make verify runs it and fails when the committed bundle differs.
#
# Environment (make variables of the same names):
#   BUNDLE_CHANNELS            channels of the bundle (default stable)
#   BUNDLE_DEFAULT_CHANNEL     the package's default channel (default stable)
#   BUNDLE_OPENSHIFT_VERSIONS  com.redhat.openshift.versions (default v4.17: OpenShift 4.17 ships
#                              Kubernetes 1.30, the CSV's minKubeVersion)
#   IMAGE_DIGESTS              a file of lines '<image reference> sha256:<digest>' (a release:
#                              hack/bundle-pin-images.sh writes it); the bundle then refers to
#                              those images by digest
#   BUNDLE_REQUIRE_DIGESTS     true: fail unless every image is pinned (a release bundle)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"
export GOFLAGS="-mod=vendor -trimpath"

args=(
  -channels "${BUNDLE_CHANNELS:-stable}"
  -default-channel "${BUNDLE_DEFAULT_CHANNEL:-stable}"
  -openshift-versions "${BUNDLE_OPENSHIFT_VERSIONS:-v4.17}"
)
if [[ -n "${IMAGE_DIGESTS:-}" ]]; then
  args+=(-image-digests "${IMAGE_DIGESTS}")
fi
if [[ "${BUNDLE_REQUIRE_DIGESTS:-false}" == true ]]; then
  args+=(-require-digests)
fi
go run ./hack/bundlegen "${args[@]}"
