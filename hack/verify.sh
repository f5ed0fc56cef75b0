#!/usr/bin/env bash
# make verify: formatting, vet, generated files up to date, and operand-git-ref in agreement
# with go.mod's sigs.k8s.io/lws and the lws pin of hack/operands/sources.tsv, the tools modules on
# one version of each shared dependency. Fails with a message that says how to fix each problem.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"
export GOFLAGS="-mod=vendor -trimpath"
failed=0

echo "== gofmt"
unformatted=$(gofmt -l cmd pkg bindata test hack/operandgen hack/kindgen hack/newkind hack/crdbounds hack/crdopenapi hack/bundlegen hack/dashboardgen hack/tools/realpods 2>/dev/null || true)
if [[ -n "${unformatted}" ]]; then
  echo "these files need gofmt -w:"; echo "${unformatted}"; failed=1
fi

echo "== go vet"
# ./hack/... is the Go code of this module under hack/ (hack/tools/* are modules of their own).
go vet ./cmd/... ./pkg/... ./bindata/... ./test/... ./hack/... || failed=1

echo "== shell scripts parse (bash -n)"
for script in hack/*.sh hack/lib/*.sh hack/lib/cluster/*.sh hack/operands/*.sh hack/openshift/*.sh .ci/run; do
  bash -n "${script}" || { echo "${script}: syntax error"; failed=1; }
done

echo "== operand-git-ref agrees with go.mod and hack/operands/sources.tsv"
ref=$(tr -d '[:space:]' < operand-git-ref)
mod=$(go list -m -f '{{.Version}}' sigs.k8s.io/lws)
if [[ "${ref}" != "${mod}" ]]; then
  echo "operand-git-ref says ${ref} but go.mod requires sigs.k8s.io/lws ${mod}: make them agree"; failed=1
fi
pinned=$(awk -F'\t' '$1 == "lws" {print $3}' hack/operands/sources.tsv)
if [[ "${ref}" != "${pinned}" ]]; then
  echo "operand-git-ref says ${ref} but hack/operands/sources.tsv pins lws at ${pinned}: make them agree"; failed=1
fi

echo "== the tools modules require one version of each shared dependency"
hack/verify-tools-aligned.sh || failed=1

# vendor/ against go.mod needs no step of its own: with -mod=vendor every go command above
# fails when vendor/modules.txt disagrees with go.mod.

echo "== generated files are up to date"
# Regenerate in place, then compare with what is committed (and with untracked output).
hack/update-codegen.sh >/dev/null
hack/update-crds.sh >/dev/null
hack/generate-operand-manifests.sh >/dev/null
# Upstream's batch-gateway dashboards, from the pinned commit (OPERAND_SOURCES or upstream's
# repository), and this project's additions.
if ! out=$(hack/generate-dashboards.sh 2>&1); then echo "hack/generate-dashboards.sh failed:"; echo "${out}"; failed=1; fi
# deploy/'s users' roles and ClusterRole rules of the registered kinds, before the bundle reads them.
if ! out=$(hack/kindgen.sh 2>&1); then echo "hack/kindgen.sh failed:"; echo "${out}"; failed=1; fi
# The OLM bundle, from deploy/ (after the CRDs above) and hack/bundle/.
if ! out=$(hack/bundle.sh 2>&1); then echo "make bundle failed:"; echo "${out}"; failed=1; fi
# Globs, not names: a new API package's files are covered (and a removed one's deletion seen).
generated=(
  'pkg/apis/*/*/zz_generated.deepcopy.go'
  pkg/generated
  manifests
  metadata
  bundle.Dockerfile
  'deploy/00_*.crd.yaml'
  deploy/03_clusterrole.yaml
  'deploy/*-roles.yaml'
  bindata/assets/lws/crd.yaml
  bindata/assets/lws/disaggregatedset-crd.yaml
  bindata/assets/lws/disaggregatedsetrolescaler-crd.yaml
  bindata/assets/lws/clusterrole.yaml
  bindata/assets/lws/mutatingwebhookconfiguration.yaml
  bindata/assets/lws/validatingwebhookconfiguration.yaml
  bindata/assets/batchgateway/dashboards-configmap.yaml
)
changes=$(git status --porcelain -- "${generated[@]}")
if [[ -n "${changes}" ]]; then
  echo "generated files differ from what is committed; run 'make generate' and commit:"
  echo "${changes}"
  git --no-pager diff --stat -- "${generated[@]}"
  failed=1
fi

if [[ "${failed}" != 0 ]]; then
  echo "verify: FAILED"; exit 1
fi
echo "verify: OK"
