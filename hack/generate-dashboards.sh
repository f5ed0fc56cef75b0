#!/usr/bin/env bash
# Generates the Grafana dashboards ConfigMaps, written by hack/dashboardgen: upstream's
# dashboards, kept as each chart ships them, from the commits pinned in hack/operands/sources.tsv,
# and this project's additions (hack/dashboards/<chart>/*.json):
#   bindata/assets/batchgateway/dashboards-configmap.yaml                  batch-gateway's charts/batch-gateway
#   bindata/assets/batchgateway/async-processor-dashboards-configmap.yaml  llm-d-async's charts/async-processor
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
SOURCES_FILE="${ROOT}/hack/operands/sources.tsv"
OPERAND_SOURCES="${OPERAND_SOURCES:-}"

VERIFY=false
case "${1:-}" in
  "") ;;
  --verify) VERIFY=true ;;
  *) echo "usage: $0 [--verify]" >&2; exit 2 ;;
esac

die() { echo "generate-dashboards: $*" >&2; exit 1; }

UPSTREAM_CACHE="${UPSTREAM_CACHE:-${XDG_CACHE_HOME:-${HOME}/.cache}/llm-infra-operator/upstream}"
TMP="$(mktemp -d)"
trap 'rm -rf "${TMP}"' EXIT
failed=false

# generate SOURCE CHART: the ConfigMap of CHART's dashboards (hack/dashboardgen -chart CHART)
# from charts/CHART/dashboards of the sources.tsv entry SOURCE.
generate() {
  local source="$1" chart="$2" out="$3"
  local repo="" commit="" archive="" name r c a
  local chart_dashboards="charts/${chart}/dashboards"
  while IFS=$'\t' read -r name r _ref c a; do
    [[ "${name}" == "${source}" ]] || continue
    repo="${r}" commit="${c}" archive="${a}"
  done <"${SOURCES_FILE}"
  [[ "${commit}" =~ ^[0-9a-f]{40}$ ]] || die "${SOURCES_FILE} pins no full commit for ${source}"

  local cached="${UPSTREAM_CACHE}/${source}-${commit}/${chart_dashboards}"
  local src="${TMP}/${source}"
  mkdir -p "${src}"
  if [[ -f "${cached}/.complete" ]]; then
    mkdir -p "${src}/${chart_dashboards}"
    cp "${cached}"/*.json "${src}/${chart_dashboards}/"
  elif [[ -n "${OPERAND_SOURCES}" ]]; then
    local tarball="${OPERAND_SOURCES}/${archive}" got
    [[ -f "${tarball}" ]] || die "${tarball} is missing (OPERAND_SOURCES=${OPERAND_SOURCES})"
    got="$(gzip -dc "${tarball}" | git get-tar-commit-id || true)"
    [[ "${got}" == "${commit}" ]] || die "${tarball} is commit '${got}', ${SOURCES_FILE} pins ${commit}"
    # git archive's tarballs hold one top folder, the repository's name.
    tar -xzf "${tarball}" -C "${src}" --strip-components=1 --wildcards "*/${chart_dashboards}/*"
  else
    git init -q "${src}"
    git -C "${src}" fetch -q --depth 1 "${repo}" "${commit}" ||
      die "could not fetch ${commit} from ${repo} (offline? set OPERAND_SOURCES to a folder of the pinned source archives)"
    git -C "${src}" -c advice.detachedHead=false checkout -q FETCH_HEAD
    [[ "$(git -C "${src}" rev-parse HEAD)" == "${commit}" ]] || die "${repo}: HEAD is not the pinned ${commit}"
  fi
  [[ -d "${src}/${chart_dashboards}" ]] || die "${repo} at ${commit} has no ${chart_dashboards}"
  if [[ ! -f "${cached}/.complete" ]]; then
    # Complete or absent: a second run never finds half a folder.
    mkdir -p "$(dirname "${cached}")"
    rm -rf "${cached}.tmp.$$" && cp -r "${src}/${chart_dashboards}" "${cached}.tmp.$$"
    touch "${cached}.tmp.$$/.complete"
    rm -rf "${cached}" && mv "${cached}.tmp.$$" "${cached}"
  fi

  local target="${ROOT}/${out}"
  if [[ "${VERIFY}" == true ]]; then
    target="${TMP}/$(basename "${out}")"
  fi
  (cd "${ROOT}" && GOWORK=off GOFLAGS="-mod=vendor -trimpath" go run ./hack/dashboardgen -chart "${chart}" \
    -upstream "${src}/${chart_dashboards}" -upstream-repository "${repo}" -upstream-commit "${commit}" \
    -additions "${ROOT}/hack/dashboards/${chart}" -out "${target}")

  if [[ "${VERIFY}" == true ]]; then
    if ! diff -u "${ROOT}/${out}" "${target}"; then
      echo "generate-dashboards: ${out} is out of date; run hack/generate-dashboards.sh (make generate)" >&2
      failed=true
    else
      echo "dashboards are up to date (${source} ${commit:0:12}, ${out})"
    fi
  fi
}

generate batch-gateway batch-gateway bindata/assets/batchgateway/dashboards-configmap.yaml
generate llm-d-async async-processor bindata/assets/batchgateway/async-processor-dashboards-configmap.yaml
[[ "${failed}" == false ]] || exit 1
