# shellcheck shell=bash
# hack/lib/cluster/config.sh, sourced by hack/local-cluster.sh: kwokctl's configuration, then the
# kubeconfigs of the static tokens. kwokctl makes the CA and the serving certificate (for
# 127.0.0.1, the `kubernetes` Service's IP and names); the tokens give this script's clients a
# user each, so the audit log tells them apart: the admin, the cert-manager runner and the agent,
# in system:masters (test fixtures, not subjects of the RBAC under test). kwokctl's components
# use its admin certificate (user kwok-admin); the controller manager's controllers use a
# ServiceAccount each.

random_hex() { head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n'; }
token_of() { awk -F, -v u="$1" '$2 == u { print $1 }' "${TOKENS}"; }

TOKEN_USERS=(admin cert-manager realpods openshift-admission)
gen_tokens() {
  [[ -f "${TOKENS}" && "$(wc -l <"${TOKENS}")" -eq "${#TOKEN_USERS[@]}" ]] && return 0
  (
    umask 077
    local u
    for u in "${TOKEN_USERS[@]}"; do echo "$(random_hex),${u},${u},\"system:masters\""; done >"${TOKENS}.tmp"
  )
  mv "${TOKENS}.tmp" "${TOKENS}"
}

# write_kubeconfig FILE USER TOKEN: self-contained (CA inlined) kubeconfig.
write_kubeconfig() {
  local file="$1" user="$2" token="$3"
  (
    umask 077
    cat >"${file}.tmp" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: local
  cluster:
    server: https://127.0.0.1:${APISERVER_PORT}
    certificate-authority-data: $(base64 -w0 <"${KPKI}/ca.crt")
users:
- name: ${user}
  user:
    token: ${token}
contexts:
- name: local
  context:
    cluster: local
    user: ${user}
current-context: local
EOF
  )
  mv "${file}.tmp" "${file}"
}

# extra_args COMPONENT WORDS...: kwokctl's extraArgs entries for --flag[=value] words (a bare
# flag is --flag=true), appended after kwokctl's own flags, so a repeated flag here wins.
extra_args() {
  local c="$1" w key value; shift
  echo "- name: $(kwok_name "${c}")"
  echo "  extraArgs:"
  for w in "$@"; do
    w="${w#--}"
    key="${w%%=*}" value=true
    [[ "${w}" == *=* ]] && value="${w#*=}"
    printf '  - {key: %s, value: "%s"}\n' "${key}" "${value}"
  done
}

# component_flags COMPONENT: what this cluster adds to kwokctl's flags of COMPONENT, then its
# Kubernetes version's (hack/lib/kube-version.sh) and <COMPONENT>_EXTRA_ARGS.
component_flags() {
  case "$1" in
    etcd) echo "--unsafe-no-fsync=true --log-level=warn" ;; # data thrown away on `down`
    # The endpoint reconciler is off: the advertise address is loopback, which the `kubernetes`
    # Endpoints may not hold. The kubelet API (kubectl logs and exec on real pods) is reached
    # by the node's InternalIP only, not by its name through the host's DNS.
    kube-apiserver) echo "--advertise-address=127.0.0.1 --service-cluster-ip-range=${SERVICE_CIDR}
      --token-auth-file=${TOKENS} --endpoint-reconciler-type=none --audit-log-format=json
      --kubelet-preferred-address-types=InternalIP --profiling=false" ;;
    # No leader election: a restarted API server would otherwise make both exit.
    kube-controller-manager) echo "--leader-elect=false --use-service-account-credentials=true
      --service-cluster-ip-range=${SERVICE_CIDR} --allocate-node-cidrs=false
      --cluster-signing-cert-file=${KPKI}/ca.crt --cluster-signing-key-file=${KPKI}/ca.key" ;;
    kube-scheduler) echo "--leader-elect=false" ;;
    # kwok only manages Nodes carrying the annotation and gives pods IPs from the instance's range.
    kwok) echo "--manage-all-nodes=false --manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake
      --cidr=${POD_CIDR} --node-ip=127.0.0.1" ;;
  esac
  kube::flags "$1"
  local var
  var="$(echo "$1" | tr 'a-z-' 'A-Z_')_EXTRA_ARGS"
  echo "${!var:-}"
}

# kwokctl_config RUNNER: kwokctl's configuration (its work directory's kwok.yaml, read by every
# kwokctl command there): the binaries built here, the instance's ports, loopback only.
kwokctl_config() {
  local c runner="$1"
  cat <<EOF
apiVersion: config.kwok.x-k8s.io/v1alpha1
kind: KwokctlConfiguration
options:
  runtime: binary
  bindAddress: 127.0.0.1
  securePort: true
  kubeAuthorization: true
  kubeAdmission: true
  kubeAuditPolicy: ${STATE}/audit-policy.yaml
  kubeApiserverCertSANs: ["${SERVICE_IP}"]
  cacheDir: ${KWOK_WORKDIR}/cache
  etcdPort: ${ETCD_PORT}
  etcdPeerPort: ${ETCD_PEER_PORT}
  kubeApiserverPort: ${APISERVER_PORT}
  kubeControllerManagerPort: ${KCM_PORT}
  kubeSchedulerPort: ${SCHEDULER_PORT}
  kwokControllerPort: ${KWOK_PORT}
  etcdBinary: ${BIN}/etcd
  kubeApiserverBinary: ${KUBE_BIN}/kube-apiserver
  kwokControllerBinary: ${BIN}/kwok
  kubectlBinary: ${BIN}/kubectl
EOF
  local disabled=()
  if has_component kube-controller-manager; then
    echo "  kubeControllerManagerBinary: ${KUBE_BIN}/kube-controller-manager"
    echo "  kubeSchedulerBinary: ${KUBE_BIN}/kube-scheduler"
  else
    disabled+=(kube-controller-manager kube-scheduler)
  fi
  [[ "${runner}" == "realpods" ]] && disabled+=(kwok-controller)
  [[ ${#disabled[@]} -eq 0 ]] || (IFS=, && echo "  disable: [${disabled[*]}]")
  echo "componentsPatches:"
  for c in "${CONTROL_PLANE[@]}" kwok; do
    # shellcheck disable=SC2046 # words on purpose
    extra_args "${c}" $(component_flags "${c}")
  done
}

# Audit at Metadata level only (who, what, when, user agent; no bodies), one JSON line per
# request: the RequestReceived stage is omitted so each request is logged once when it completes.
audit_policy() {
  printf '%s\n' "apiVersion: audit.k8s.io/v1" "kind: Policy" 'omitStages: ["RequestReceived"]' \
    "rules:" "- level: Metadata"
}
