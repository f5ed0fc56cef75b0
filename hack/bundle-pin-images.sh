#!/usr/bin/env bash
# Release step: prints '<image reference> <digest>' for every image the bundle refers to (the
# operator's and each RELATED_IMAGE_* of deploy/10_deployment.yaml), for
#   hack/bundle-pin-images.sh > _output/image-digests
#   make bundle IMAGE_DIGESTS=_output/image-digests BUNDLE_REQUIRE_DIGESTS=true
# Needs skopeo and access to the registries (the development machines have neither, so the
# committed bundle refers to tags and does not claim disconnected support).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
command -v skopeo >/dev/null || { echo "bundle-pin-images: needs skopeo" >&2; exit 1; }
# Every 'image:' and RELATED_IMAGE_* 'value:' of the Deployment, in file order.
images=$(awk '
  /^ *image: / { print $2 }
  /name: RELATED_IMAGE_/ { related = 1; next }
  related && /value: / { print $2; related = 0 }
' "${ROOT}/deploy/10_deployment.yaml" | sort -u)
for image in ${images}; do
  case "${image}" in
    *@sha256:*) continue ;;  # already pinned
  esac
  digest=$(skopeo inspect --format '{{.Digest}}' "docker://${image}")
  echo "${image} ${digest}"
done
