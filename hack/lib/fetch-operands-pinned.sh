#!/usr/bin/env bash
# Prometheus and Jaeger for hack/fetch-operands.sh (full set only): pinned Go module versions
# from the module proxy, not sources.tsv, and the cache key of such a build. Separate because
# these are not built from a pinned source tree.
# Sourced by hack/fetch-operands.sh after its settings (WORK) and
# hack/lib/fetch-operands-build.sh (gobuild).

# Prometheus and Jaeger, for upstream's dispatcher suite and its tracing specs (test/operands):
# upstream's dev deploy runs prom/prometheus (scraping its simulator, which the dispatcher's
# prometheus-query gate asks) and jaegertracing/all-in-one (the OTLP endpoint of the gateway and
# the async processor, whose traces the OtelTraces specs read back). Both are Go programs the
# module proxy serves at these pinned versions, built as upstream's module requires them (its
# go.mod, verified against the checksum database); only the full set.
PROMETHEUS_MODULE=github.com/prometheus/prometheus
PROMETHEUS_VERSION=v0.316.0
JAEGER_MODULE=github.com/jaegertracing/jaeger
JAEGER_VERSION=v1.75.0

# Prometheus's go.mod has no replace directive: `go install` of the pinned version builds it
# exactly as its own module resolves. Without the builtinassets tag its web UI is not embedded
# (the HTTP API, all the gate uses, is).
build_prometheus() {
  GOFLAGS=-buildvcs=false GOBIN="$1" go install -trimpath -ldflags "-s -w" "${PROMETHEUS_MODULE}/cmd/prometheus@${PROMETHEUS_VERSION}"
}

# Jaeger's go.mod replaces github.com/Shopify/sarama, which `go install pkg@version` refuses: a
# module of its own requires the pinned Jaeger with the same replace (MVS then selects Jaeger's
# own requirements), and builds the v1 all-in-one (upstream's image jaegertracing/all-in-one),
# whose UI is the placeholder page without the ui tag (its query API is what the specs read).
build_jaeger() {
  local mod="${WORK}/jaeger-build"
  mkdir -p "${mod}"
  (cd "${mod}" &&
    go mod init jaeger-build >/dev/null 2>&1 &&
    go mod edit -replace github.com/Shopify/sarama=github.com/Shopify/sarama@v1.33.0 &&
    { go get "${JAEGER_MODULE}/cmd/all-in-one@${JAEGER_VERSION}" 2>go-get.log || { cat go-get.log >&2; false; }; } &&
    gobuild -o "$1/jaeger-all-in-one" "${JAEGER_MODULE}/cmd/all-in-one")
}
pinned_key() {
  { echo "$2"; go version; declare -f "$1" gobuild; } | sha256sum | cut -c1-16
}
