#!/usr/bin/env bash
# OpenShift's service CA on the local cluster (issue 29): serving certificates for Services
# annotated service.beta.openshift.io/serving-cert-secret-name, and the CA bundle injected into
# webhook configurations, CRDs, APIServices and ConfigMaps annotated
# service.beta.openshift.io/inject-cabundle, by upstream's own program, unchanged:
# `service-ca-operator controller`, built from the service-ca-operator tree pinned in
# hack/openshift/sources.tsv. Source it; functions serviceca::*. It needs only hack/lib (proc.sh,
# sources.sh) and hack/operands/lib.sh, so hack/local-cluster.sh can call one function in `up`
# and one in `down`.
#
#   serviceca::build                  the controllers' binary, cached; servicecatool
#   serviceca::start KUBECONFIG STATE start both processes (idempotent), wait until they work
#   serviceca::stop STATE             stop them
#   serviceca::status STATE           one line per process; fails unless both run
#
# What the controllers need, and who gives it to them here (OpenShift's in brackets):
#   - their namespace, ServiceAccount and RBAC, the signing CA (Secret openshift-service-ca/
#     signing-key) and its bundle (ConfigMap signing-cabundle) [the service CA operator]:
#     `servicecatool setup` (hack/openshift/servicecatool), from the operator's own manifests
#     and with library-go's crypto as the operator makes the CA; the operator is not run (see
#     servicecatool's doc);
#   - those two mounted at /var/run/secrets/signing-key and
#     /var/run/configmaps/signing-cabundle, and the ServiceAccount's ca.crt and namespace at
#     /var/run/secrets/kubernetes.io/serviceaccount [the kubelet]: the program reads these fixed
#     paths, so it runs in a mount namespace of its own (unshare) whose /run is a tmpfs with the
#     files of STATE/service-ca/ bind-mounted there; nothing changes on the host;
#   - a kubeconfig of that ServiceAccount (a TokenRequest token, SERVICE_CA_TOKEN_DURATION)
#     [in-cluster config]; --namespace (leader election, events) [read from the mount];
#     --listen on loopback, port SERVICE_CA_PORT [0.0.0.0:8443 in the pod];
#   - no OpenShift API: without --feature-gates (the operator passes none on a default cluster)
#     the controllers watch Kubernetes' objects only. library-go reads
#     infrastructures.config.openshift.io `cluster` for the control plane's topology and, when
#     it is missing, logs so and uses the leader election of a highly available cluster.
# And ConfigMap openshift-service-ca.crt in every namespace, which the service CA only fills in,
# is created by `servicecatool publish` [OpenShift's kube-controller-manager].
#
# The tree is extracted from $OPERAND_SOURCES/<archive> when set, else fetched from GitHub at the
# pinned commit (hack/lib/sources.sh); it has no vendor/: modules come from the Go module proxy,
# which refuses the library-go version upstream's go.mod requires, so the build replaces it with
# the version this repository's go.mod requires (newer; the program's code is unchanged). The
# build is cached in OPERANDS_CACHE (hack/operands/lib.sh) under service-ca-operator-<key>, the
# key being the commit, that library-go version, `go version` and the build function's text.
#
# Environment (defaults in brackets):
#   OUTPUT_DIR [<repo>/_output]   the binaries in $OUTPUT_DIR/bin (kubectl from there too)
#   OPERAND_SOURCES []            folder of source archives; empty: fetch from GitHub
#   SERVICE_CA_PORT [the API server's port + 2]   the controllers' metrics and health (loopback)
#   SERVICE_CA_TOKEN_DURATION [24h]   lifetime of the controllers' and publisher's credentials
#   SERVICE_CA_TIMEOUT [120]      seconds `start` waits for each step

SERVICECA_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=hack/lib/proc.sh
declare -F proc::start >/dev/null || source "${SERVICECA_ROOT}/hack/lib/proc.sh"
# shellcheck source=hack/lib/sources.sh
declare -F sources::tree >/dev/null || source "${SERVICECA_ROOT}/hack/lib/sources.sh"
# shellcheck source=hack/operands/lib.sh
declare -F operands::build >/dev/null || source "${SERVICECA_ROOT}/hack/operands/lib.sh"

SERVICECA_NAME=service-ca-operator
SERVICECA_NAMESPACE=openshift-service-ca
SERVICECA_TIMEOUT="${SERVICE_CA_TIMEOUT:-120}"

serviceca::_log() { echo "[service-ca] $*"; }
serviceca::_bin() { echo "${OUTPUT_DIR:-${SERVICECA_ROOT}/_output}/bin"; }
serviceca::_kubectl() {
  local k
  k="$(serviceca::_bin)/kubectl"
  [[ -x "${k}" ]] || k=kubectl
  "${k}" "$@"
}

# The pin, loaded once (a caller may have loaded hack/openshift/sources.tsv already).
serviceca::_pin() {
  [[ -n "${SOURCES_COMMIT[${SERVICECA_NAME}]:-}" ]] && return 0
  declare -F sources_log >/dev/null || sources_log() { serviceca::_log "$*"; }
  sources::load "${SERVICECA_ROOT}/hack/openshift/sources.tsv"
}

# The library-go version this repository builds with: the one the build puts in place of
# upstream's (see the header).
serviceca::_library_go() {
  awk '$1 == "github.com/openshift/library-go" { print $2; exit }' "${SERVICECA_ROOT}/go.mod"
}

# serviceca::_build_tree OUT: builds the controllers' binary into OUT and copies the operator's
# manifests (bindata/assets) beside it, for `servicecatool setup`. Runs in a subshell of
# serviceca::build, in SERVICECA_WORK.
serviceca::_build_tree() {
  local out="$1" src="${SERVICECA_WORK}/${SERVICECA_NAME}"
  sources::tree "${SERVICECA_NAME}" "${src}" || return 1
  (
    cd "${src}" &&
      go mod edit -replace "github.com/openshift/library-go=github.com/openshift/library-go@$(serviceca::_library_go)" &&
      nice -n 10 go build -trimpath -ldflags "-s -w" -o "${out}/${SERVICECA_NAME}" ./cmd/service-ca-operator
  ) || return 1
  cp -r "${src}/bindata/assets" "${out}/service-ca-assets"
}

# serviceca::build: `service-ca-operator` and its manifests (cached, see the header) and
# servicecatool (this repository's code, vendored: the Go build cache makes a rebuild cheap) in
# $OUTPUT_DIR/bin.
serviceca::build() {
  local bin key dir
  bin="$(serviceca::_bin)"
  serviceca::_pin || return 1
  command -v go >/dev/null || { serviceca::_log "ERROR: go is required"; return 1; }
  key="$({
    echo "${SERVICECA_NAME} ${SOURCES_COMMIT[${SERVICECA_NAME}]} library-go $(serviceca::_library_go)"
    go version
    declare -f serviceca::_build_tree sources::tree
  } | sha256sum | cut -c1-16)"
  dir="${OPERANDS_CACHE}/${SERVICECA_NAME}-${key}"
  mkdir -p "${OPERANDS_CACHE}" "${bin}" || return 1
  if ! operands::cached "${dir}" "${SERVICECA_NAME}" service-ca-assets; then
    (
      # The upstream tree is its own module: never this repository's vendor/ or a go.work, never
      # a toolchain download.
      export GOFLAGS="-mod=mod -buildvcs=false" GOWORK=off GOTOOLCHAIN=local CGO_ENABLED=0
      declare -F operands_log >/dev/null || operands_log() { serviceca::_log "$*"; }
      # One build at a time per cache, as hack/fetch-operands.sh: the second waits, then finds
      # it cached.
      exec 9>"${OPERANDS_CACHE}/.lock"
      flock 9
      SERVICECA_WORK="$(mktemp -d "${OPERANDS_CACHE}/.work.XXXXXX")" || exit 1
      trap 'rm -rf "${SERVICECA_WORK}"' EXIT
      operands::build "${SERVICECA_NAME}" "${dir}" "${SERVICECA_NAME} service-ca-assets" serviceca::_build_tree
    ) || { serviceca::_log "ERROR: building ${SERVICECA_NAME} failed"; return 1; }
  fi
  operands::place "${dir}/${SERVICECA_NAME}" "${bin}/${SERVICECA_NAME}" &&
    rm -rf "${bin}/service-ca-assets" && cp -r "${dir}/service-ca-assets" "${bin}/service-ca-assets" || return 1
  # With the flags `make test` compiles this repository with (Makefile: GOFLAGS, cgo as the
  # toolchain defaults it), not a caller's (build-cluster-binaries: -mod=mod, no cgo): the build
  # then reuses the packages make test compiled, which saves about a minute on a cold CI.
  (cd "${SERVICECA_ROOT}" && env -u CGO_ENABLED GOFLAGS="-mod=vendor -trimpath" GOWORK=off \
    nice -n 10 go build -o "${bin}/servicecatool" ./hack/openshift/servicecatool) ||
    { serviceca::_log "ERROR: building servicecatool failed"; return 1; }
}

# serviceca::_port KUBECONFIG: SERVICE_CA_PORT, else the API server's port + 2 (+1 is
# OPENSHIFT=true's openshift-admission): each instance and worktree offset of hack/lib/instance.sh
# then has its own, never one of another's (none of its base ports ends in 5).
serviceca::_port() {
  if [[ -n "${SERVICE_CA_PORT:-}" ]]; then echo "${SERVICE_CA_PORT}"; return 0; fi
  local server
  server="$(serviceca::_kubectl --kubeconfig="$1" config view --minify -o 'jsonpath={.clusters[0].cluster.server}')" || return 1
  [[ "${server}" =~ :([0-9]+)/?$ ]] || { serviceca::_log "ERROR: no port in the API server's URL ${server}"; return 1; }
  echo $((BASH_REMATCH[1] + 2))
}

# serviceca::_published KUBECONFIG: ConfigMap openshift-service-ca.crt of `default` holds the
# service CA's bundle: the publisher made it and the controllers' injector filled it in.
serviceca::_published() {
  local got want
  got="$(serviceca::_kubectl --kubeconfig="$1" -n default get configmap openshift-service-ca.crt -o 'jsonpath={.data.service-ca\.crt}')" || return 1
  want="$(serviceca::_kubectl --kubeconfig="$1" -n "${SERVICECA_NAMESPACE}" get configmap signing-cabundle -o 'jsonpath={.data.ca-bundle\.crt}')" || return 1
  [[ -n "${got}" && "${got}" == "${want}" ]]
}

# serviceca::_check PIDFILE LOG NAME: NAME still runs (a poll's check: stops the wait at once,
# with the log's tail, when it exited).
serviceca::_check() {
  proc::alive "$1" || proc::die "[service-ca]" "$3 exited; see $2" "$2"
}

# serviceca::start KUBECONFIG STATE_DIR: see the header. Logs in STATE_DIR/logs, pid files in
# STATE_DIR/pids (where hack/local-cluster.sh keeps its processes'), the mounted files and the
# kubeconfig in STATE_DIR/service-ca.
serviceca::start() {
  local kubeconfig="$1" state="$2" bin dir port t0=${SECONDS}
  bin="$(serviceca::_bin)"
  kubeconfig="$(readlink -f "${kubeconfig}")"
  dir="${state}/service-ca"
  local pid_ctl="${state}/pids/service-ca.pid" log_ctl="${state}/logs/service-ca.log"
  local pid_pub="${state}/pids/service-ca-publisher.pid" log_pub="${state}/logs/service-ca-publisher.log"
  [[ -x "${bin}/${SERVICECA_NAME}" && -x "${bin}/servicecatool" && -d "${bin}/service-ca-assets" ]] ||
    { serviceca::_log "ERROR: ${bin}/${SERVICECA_NAME} or servicecatool is missing: run serviceca::build"; return 1; }
  port="$(serviceca::_port "${kubeconfig}")" || return 1
  mkdir -p "${state}/pids" "${state}/logs"

  if proc::alive "${pid_ctl}"; then
    serviceca::_log "service-ca controllers already running (pid ${PROC_PID})"
  else
    serviceca::_log "setting up the signing CA, RBAC and mounts in ${dir}"
    "${bin}/servicecatool" setup --kubeconfig="${kubeconfig}" --assets="${bin}/service-ca-assets" --out="${dir}" \
      --token-duration="${SERVICE_CA_TOKEN_DURATION:-24h}" --timeout="${SERVICECA_TIMEOUT}s" ||
      { serviceca::_log "ERROR: servicecatool setup failed"; return 1; }
    # Not root: a user namespace of its own, where it may mount.
    local -a userns=()
    [[ "$(id -u)" -eq 0 ]] || userns=(--map-root-user)
    serviceca::_log "starting the service-ca controllers on 127.0.0.1:${port} (log: ${log_ctl})"
    # shellcheck disable=SC2016 # expanded by the inner shell
    proc::start "${pid_ctl}" "${log_ctl}" "${bin}/${SERVICECA_NAME}" -- \
      unshare --mount --propagation private "${userns[@]}" -- sh -c '
        set -e
        d="$1"; shift
        mount -t tmpfs -o mode=0755,size=1m service-ca /run
        mkdir -p /run/secrets/signing-key /run/configmaps/signing-cabundle /run/secrets/kubernetes.io/serviceaccount
        mount --bind -o ro "$d/signing-key" /run/secrets/signing-key
        mount --bind -o ro "$d/signing-cabundle" /run/configmaps/signing-cabundle
        mount --bind -o ro "$d/serviceaccount" /run/secrets/kubernetes.io/serviceaccount
        exec "$@"' service-ca-mounts "${dir}" \
      "${bin}/${SERVICECA_NAME}" controller --kubeconfig="${dir}/kubeconfig" \
      --namespace="${SERVICECA_NAMESPACE}" --listen="127.0.0.1:${port}" -v=2 ||
      { serviceca::_log "ERROR: service-ca controllers ${PROC_FAILURE}"; proc::log_tail "${log_ctl}" >&2; return 1; }
  fi

  if proc::alive "${pid_pub}"; then
    serviceca::_log "publisher already running (pid ${PROC_PID})"
  else
    serviceca::_log "starting the openshift-service-ca.crt publisher (log: ${log_pub})"
    proc::start "${pid_pub}" "${log_pub}" "${bin}/servicecatool" -- \
      "${bin}/servicecatool" publish --kubeconfig="${kubeconfig}" ||
      { serviceca::_log "ERROR: publisher ${PROC_FAILURE}"; proc::log_tail "${log_pub}" >&2; return 1; }
  fi

  # Works: the bundle reached `default` through the publisher and the controllers' injector.
  if ! proc::poll "${SERVICECA_TIMEOUT}" 0.25 serviceca::_ready "${kubeconfig}" "${state}"; then
    serviceca::_log "ERROR: openshift-service-ca.crt in default did not get the service CA within ${SERVICECA_TIMEOUT}s"
    proc::log_tail "${log_ctl}" >&2
    return 1
  fi
  serviceca::_log "service CA ready in $((SECONDS - t0))s"
}

serviceca::_ready() {
  serviceca::_check "$2/pids/service-ca.pid" "$2/logs/service-ca.log" "the service-ca controllers"
  serviceca::_check "$2/pids/service-ca-publisher.pid" "$2/logs/service-ca-publisher.log" "the publisher"
  serviceca::_published "$1"
}

# serviceca::stop STATE_DIR: stop both (TERM: the controllers release their leader lease).
serviceca::stop() {
  local state="$1"
  proc::stop service-ca-publisher "${state}/pids/service-ca-publisher.pid" 30 "[service-ca]" || return 1
  proc::stop service-ca "${state}/pids/service-ca.pid" 30 "[service-ca]" || return 1
}

# serviceca::status STATE_DIR: a line per process, as hack/local-cluster.sh status prints its
# own; fails unless both run.
serviceca::status() {
  local state="$1" name pid rc=0
  for name in service-ca service-ca-publisher; do
    if pid="$(proc::pid "${state}/pids/${name}.pid")"; then
      printf '  %-24s running (pid %s)\n' "${name}" "${pid}"
    else
      printf '  %-24s stopped\n' "${name}"
      rc=1
    fi
  done
  return "${rc}"
}
