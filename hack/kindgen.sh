#!/usr/bin/env bash
# make generate: the parts of deploy/ that follow from the registered kinds (hack/kindgen): the
# users' roles of each API group and the operator's ClusterRole rules for the CRs. Run before
# hack/bundle.sh, which reads deploy/.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"
export GOFLAGS="-mod=vendor -trimpath"
go run ./hack/kindgen -deploy deploy
