#!/usr/bin/env bash
# Generates bindata/assets/batchgateway/dashboards-configmap.yaml: upstream's batch-gateway
# Grafana dashboards, kept as its chart ships them, from the batch-gateway commit pinned in
# hack/operands/sources.tsv, and this project's additions (hack/dashboards/batch-gateway/*.json),
# written by hack/dashboardgen.
#
# Upstream's tree: when OPERAND_SOURCES names a folder of `git archive` tarballs (the archive of
# sources.tsv), its dashboards are extracted and its commit checked with `git get-tar-commit-id`;
# else the pinned commit is fetched from upstream's repository (`git fetch --depth 1`) and
# checked with `git rev-parse`. A user's clone needs nothing but the internet; only .ci/run
# points OPERAND_SOURCES at the shared archives. The dashboards of the pinned commit are then
# kept in UPSTREAM_CACHE [${XDG_CACHE_HOME:-$HOME/.cache}/llm-infra-operator/upstream], by
# commit, so later runs (make verify in any clone on the machine) need neither.
#
# Usage:
#   hack/generate-dashboards.sh           regenerate in place
#   hack/generate-dashboards.sh --verify  regenerate into a temp file and fail if it differs
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${ROOT}/bindata/assets/batchgateway/dashboards-configmap.yaml"
ADDITIONS="${ROOT}/hack/dashboards/batch-gateway"
SOURCES_FILE="${ROOT}/hack/operands/sources.tsv"
CHART_DASHBOARDS="charts/batch-gateway/dashboards"
OPERAND_SOURCES="${OPERAND_SOURCES:-}"

VERIFY=false
case "${1:-}" in
  "") ;;
  --verify) VERIFY=true ;;
  *) echo "usage: $0 [--verify]" >&2; exit 2 ;;
esac

die() { echo "generate-dashboards: $*" >&2; exit 1; }

repo="" commit="" archive=""
while IFS=$'\t' read -r name r _ref c a; do
  [[ "${name}" == batch-gateway ]] || continue
  repo="${r}" commit="${c}" archive="${a}"
done <"${SOURCES_FILE}"
[[ "${commit}" =~ ^[0-9a-f]{40}$ ]] || die "${SOURCES_FILE} pins no full commit for batch-gateway"

UPSTREAM_CACHE="${UPSTREAM_CACHE:-${XDG_CACHE_HOME:-${HOME}/.cache}/llm-infra-operator/upstream}"
cached="${UPSTREAM_CACHE}/batch-gateway-${commit}/${CHART_DASHBOARDS}"

TMP="$(mktemp -d)"
trap 'rm -rf "${TMP}"' EXIT
src="${TMP}/batch-gateway"
mkdir -p "${src}"
if [[ -f "${cached}/.complete" ]]; then
  mkdir -p "${src}/${CHART_DASHBOARDS}"
  cp "${cached}"/*.json "${src}/${CHART_DASHBOARDS}/"
elif [[ -n "${OPERAND_SOURCES}" ]]; then
  tarball="${OPERAND_SOURCES}/${archive}"
  [[ -f "${tarball}" ]] || die "${tarball} is missing (OPERAND_SOURCES=${OPERAND_SOURCES})"
  got="$(gzip -dc "${tarball}" | git get-tar-commit-id || true)"
  [[ "${got}" == "${commit}" ]] || die "${tarball} is commit '${got}', ${SOURCES_FILE} pins ${commit}"
  # git archive's tarballs hold one top folder, the repository's name.
  tar -xzf "${tarball}" -C "${src}" --strip-components=1 --wildcards "*/${CHART_DASHBOARDS}/*"
else
  git init -q "${src}"
  git -C "${src}" fetch -q --depth 1 "${repo}" "${commit}" ||
    die "could not fetch ${commit} from ${repo} (offline? set OPERAND_SOURCES to a folder of the pinned source archives)"
  git -C "${src}" -c advice.detachedHead=false checkout -q FETCH_HEAD
  [[ "$(git -C "${src}" rev-parse HEAD)" == "${commit}" ]] || die "${repo}: HEAD is not the pinned ${commit}"
fi
[[ -d "${src}/${CHART_DASHBOARDS}" ]] || die "${repo} at ${commit} has no ${CHART_DASHBOARDS}"
if [[ ! -f "${cached}/.complete" ]]; then
  # Complete or absent: a second run never finds half a folder.
  mkdir -p "$(dirname "${cached}")"
  rm -rf "${cached}.tmp.$$" && cp -r "${src}/${CHART_DASHBOARDS}" "${cached}.tmp.$$"
  touch "${cached}.tmp.$$/.complete"
  rm -rf "${cached}" && mv "${cached}.tmp.$$" "${cached}"
fi

target="${OUT}"
if [[ "${VERIFY}" == true ]]; then
  target="${TMP}/dashboards-configmap.yaml"
fi
(cd "${ROOT}" && GOWORK=off GOFLAGS="-mod=vendor -trimpath" go run ./hack/dashboardgen \
  -upstream "${src}/${CHART_DASHBOARDS}" -upstream-repository "${repo}" -upstream-commit "${commit}" \
  -additions "${ADDITIONS}" -out "${target}")

if [[ "${VERIFY}" == true ]]; then
  if ! diff -u "${OUT}" "${target}"; then
    die "bindata/assets/batchgateway/dashboards-configmap.yaml is out of date; run hack/generate-dashboards.sh (make generate)"
  fi
  echo "dashboards are up to date (batch-gateway ${commit:0:12})"
fi
