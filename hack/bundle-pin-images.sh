#!/usr/bin/env bash
# Release step: prints '<image reference> <digest>' for every image the bundle refers to (the
# operator's and each RELATED_IMAGE_* of deploy/10_deployment.yaml), for
#   hack/bundle-pin-images.sh > _output/image-digests
#   make bundle IMAGE_DIGESTS=_output/image-digests BUNDLE_REQUIRE_DIGESTS=true
# Needs access to the registries (the development machines have none, so the committed bundle
# refers to tags and does not claim disconnected support). The digests come from crane
# (go-containerregistry), pinned here and run from the Go module proxy like every tool.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CRANE=github.com/google/go-containerregistry/cmd/crane@v0.22.1
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
  digest=$(GOFLAGS=-mod=mod go run "${CRANE}" digest "${image}")
  echo "${image} ${digest}"
done
