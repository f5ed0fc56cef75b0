#!/usr/bin/env bash
# What each tools module of hack/build-cluster-binaries.sh builds (build_kube and its version
# flags, build_etcd, build_kwok, build_certmanager, build_realpods, build_openshift, build_olm), each run in
# its module's directory by build_module (hack/lib/cluster-binaries-cache.sh), whose stamp holds
# the function's text. Separate from the stamps and the cache.
# Sourced by hack/build-cluster-binaries.sh after its settings (ROOT, BIN) and
# hack/lib/kube-version.sh (KUBE_BIN, KUBE_VERSION, KUBE_MINOR); build_openshift needs
# hack/lib/sources.sh, which the script sources for OPENSHIFT=true.
#
# The modules require the same version of each module they share: k8s.io's staging modules at
# the cluster's release (hack/tools/kube's `replace`; also required at that version, not v0.0.0,
# since with -trimpath the compile's cache key names the required version, not the
# replacement's), golang.org/x/*, grpc, protobuf, OpenTelemetry, Prometheus, etcd's client, ...
# at the highest any of them needs. Go's build cache reuses a compiled package only when it and
# everything it imports are the same, so on a cold machine client-go and the rest are compiled
# once for all of them, not once per module (issue 35: 5893 package compiles before, 2937 after,
# each of the 2937 packages once). A bump in one module is a bump in all.

# Version variables of the Kubernetes binaries of KUBE_VERSION (kubectl reads client-go's).
kube_ldflags() {
  local flags="-s -w" pkg
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    flags+=" -X ${pkg}.gitVersion=${KUBE_VERSION}"
    flags+=" -X ${pkg}.gitMajor=1 -X ${pkg}.gitMinor=${KUBE_MINOR}"
    flags+=" -X ${pkg}.gitTreeState=clean"
    flags+=" -X ${pkg}.buildDate=2026-01-01T00:00:00Z"
  done
  echo "${flags}"
}

# build_kube OUTPUT...: the commands of OUTPUT (base names) into KUBE_BIN.
build_kube() {
  local pkgs=() out
  for out in "$@"; do pkgs+=("k8s.io/kubernetes/cmd/$(basename "${out}")"); done
  mkdir -p "${KUBE_BIN}"
  go build -trimpath -ldflags "$(kube_ldflags)" -o "${KUBE_BIN}/" "${pkgs[@]}"
}

build_etcd() {
  go build -trimpath -ldflags "-s -w" -o "${BIN}/etcd" ./cmd/etcd
}

# kwok and kwokctl from the same pinned module, in one go build (shared packages compiled once).
build_kwok() {
  go build -trimpath -ldflags "-s -w" -o "${BIN}/" sigs.k8s.io/kwok/cmd/kwok sigs.k8s.io/kwok/cmd/kwokctl
}

# The runner, plus cert-manager's CRDs from the same module version, so the
# CRDs installed always match the controllers that serve them.
build_certmanager() {
  go build -trimpath -ldflags "-s -w" -o "${BIN}/cert-manager-runner" ./cmd/cert-manager-runner
  local dir
  dir="$(go list -m -f '{{.Dir}}' github.com/cert-manager/cert-manager)"
  local f tmp="${BIN}/cert-manager-crds.yaml.tmp"
  : >"${tmp}"
  for f in "${dir}"/deploy/crds/*.yaml; do
    { echo "---"; cat "${f}"; } >>"${tmp}"
  done
  mv "${tmp}" "${BIN}/cert-manager-crds.yaml"
}

build_realpods() {
  go build -trimpath -ldflags "-s -w" -o "${BIN}/realpods-agent" .
}

# OpenShift's parts (OPENSHIFT=true). The module proxy refuses apiserver-library-go, so its tree
# (hack/openshift/sources.tsv, hack/lib/sources.sh) is put where hack/tools/openshift/go.mod's
# `replace` points: _output/openshift-src of this checkout (not OUTPUT_DIR: the go.mod's path is
# fixed), replaced when the pin changes. The pinned commit is an argument, hence part of the
# stamp and of the cache's key: a cached build needs no tree. Then the program and the CRDs of
# the OpenShift APIs the operator looks for, from the openshift/api module it builds with.
build_openshift() {
  # $1, the pinned commit, only keys the stamp and the cache (see above).
  local src="${ROOT}/_output/openshift-src/apiserver-library-go"
  sources::pinned_tree apiserver-library-go "${src}" || return 1
  GOTOOLCHAIN=local go build -trimpath -ldflags "-s -w" -o "${BIN}/openshift-admission" ./cmd/openshift-admission
  local api f tmp="${BIN}/openshift-crds.yaml.tmp"
  api="$(go list -m -f '{{.Dir}}' github.com/openshift/api)"
  : >"${tmp}"
  # SCCs (security.openshift.io), the cluster's APIServer config (config.openshift.io: its TLS
  # profile), its Infrastructure (config.openshift.io: the control plane's topology, which
  # controllercmd reads for the leader election's timings) and Route (route.openshift.io:
  # OpenShift serves it from openshift-apiserver; this is the CRD openshift/api generates for
  # clusters without it).
  for f in security/v1/zz_generated.crd-manifests/0000_03_config-operator_01_securitycontextconstraints.crd.yaml \
    config/v1/zz_generated.crd-manifests/0000_10_config-operator_01_apiservers-Default.crd.yaml \
    config/v1/zz_generated.crd-manifests/0000_10_config-operator_01_infrastructures-Default.crd.yaml \
    route/v1/zz_generated.crd-manifests/routes.crd.yaml; do
    { echo "---"; cat "${api}/${f}"; } >>"${tmp}"
  done
  mv "${tmp}" "${BIN}/openshift-crds.yaml"
}

# OLM's olm and catalog operators and opm (make test-olm, OLM=true), in one go build, and OLM's
# CRDs from the same module version (its chart's, which the quickstart's crds.yaml lacks one of:
# OLMConfig, which the olm operator watches). opm's tags are its release's: SQLite's JSON
# functions and the image library without gpgme; CGO stays off (opm serves a file-based catalog,
# not SQLite).
build_olm() {
  go build -trimpath -ldflags "-s -w" -tags "json1 containers_image_openpgp" -o "${BIN}/" \
    github.com/operator-framework/operator-lifecycle-manager/cmd/olm \
    github.com/operator-framework/operator-lifecycle-manager/cmd/catalog \
    github.com/operator-framework/operator-registry/cmd/opm
  local dir f tmp="${BIN}/olm-crds.yaml.tmp"
  dir="$(go list -m -f '{{.Dir}}' github.com/operator-framework/operator-lifecycle-manager)"
  : >"${tmp}"
  for f in "${dir}"/deploy/chart/crds/*.yaml; do
    { echo "---"; cat "${f}"; } >>"${tmp}"
  done
  mv "${tmp}" "${BIN}/olm-crds.yaml"
}
