#!/usr/bin/env bash
# Part of make verify: the tools modules (hack/tools/*/go.mod) require one version of every
# dependency they share. With -trimpath the build cache keys a package by its module's version,
# so two versions of one dependency compile twice on a cold machine: aligning them took a cold
# build of the cluster's programs from 5,893 distinct package compiles to 2,937 (issue 35), and
# this check keeps a later `go get` in one module from undoing it unseen. The version counted is
# the one the module builds with: a `replace` to another version wins over the `require`
# (kube and openshift pin the Kubernetes staging modules that way); a replace by a local path is
# not a version and is left out.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}/hack/tools"

# The modules built with versions of their own, and why. Every other module takes part.
OWN_VERSIONS=(
  "kube-1.30|the oldest Kubernetes the operator supports (make test-admission-oldest) is built with its own release's dependencies, which are years older"
  "olm|OLM v0.38.0 and opm v1.61.0 are built at their releases' versions (make test-olm only, not make ci): at other versions they would not be the releases the test installs"
)

own() {
  local entry
  for entry in "${OWN_VERSIONS[@]}"; do [[ "${entry%%|*}" == "$1" ]] && return 0; done
  return 1
}

# required MODULE: "path<TAB>version<TAB>module" for each module MODULE builds with.
required() {
  (cd "$1" && GOFLAGS= GOWORK=off go mod edit -json) | jq -r --arg owner "$1" '
    ((.Replace // []) | map({key: .Old.Path, value: .New}) | from_entries) as $replaced
    | .Require[]?
    | ($replaced[.Path] // {Version: .Version}) as $built
    | select(($built.Version // "") != "")
    | "\(.Path)\t\($built.Version)\t\($owner)"'
}

all=""
# The tools modules, and upstream's renderers (test/differential), whose go.mod is upstream's
# with the versions they share raised to these.
for gomod in */go.mod */third_party/*/go.mod; do
  module="${gomod%/go.mod}"
  own "${module}" && continue
  all+="$(required "${module}")"$'\n'
done

# One line per dependency required at more than one version: path, then version (modules) ...
disagreements=$(printf '%s' "${all}" | awk -F'\t' 'NF == 3 {
    key = $1 SUBSEP $2
    if (!(key in users)) { versions[$1] = versions[$1] " " $2; count[$1]++ }
    users[key] = users[key] (users[key] == "" ? "" : ",") $3
  }
  END {
    for (path in count) if (count[path] > 1) {
      line = path ":"
      n = split(versions[path], vs, " ")
      for (i = 1; i <= n; i++) line = line " " vs[i] " (" users[path SUBSEP vs[i]] ")"
      print line
    }
  }' | LC_ALL=C sort)

if [[ -n "${disagreements}" ]]; then
  echo "the tools modules require these dependencies at more than one version:"
  echo "${disagreements}" | sed 's/^/  /'
  echo "require the highest in each module that needs it (cd hack/tools/<module> && go get <path>@<version> && go mod tidy),"
  echo "or, if a module must keep its own versions, add it with its reason to OWN_VERSIONS in ${BASH_SOURCE[0]#"${ROOT}/"}"
  exit 1
fi
echo "the tools modules agree on every shared dependency ($(ls -d */go.mod */third_party/*/go.mod | wc -l) modules, ${#OWN_VERSIONS[@]} with versions of their own)"
