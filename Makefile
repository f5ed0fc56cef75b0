# llm-infra-operator. `make help` lists the targets.
SHELL := /usr/bin/env bash
.SHELLFLAGS := -euo pipefail -c

BIN            ?= bin/llm-infra-operator
IMAGE          ?= quay.io/llm-infra/llm-infra-operator:latest
OPERAND_IMAGE  ?= registry.k8s.io/lws/lws:$(shell cat operand-git-ref)
NAMESPACE      ?= openshift-llm-infra-operator
GO_PACKAGES    := ./cmd/... ./pkg/... ./bindata/... ./test/manifests/... ./test/bundle/... ./hack/bundlegen/... ./hack/kindgen/... ./hack/newkind/... ./hack/crdbounds/... ./hack/yamlobjects/... ./test/reliability/result/... ./test/reliability/cmd/... ./test/internal/... ./test/bench/... ./test/docs/... ./test/differential/... ./hack/openshift/... ./test/olm/catalog/...

VERSION_PKG := github.com/llm-infra/llm-infra-operator/pkg/version
GIT_VERSION := $(shell git describe --tags --always --dirty 2>/dev/null || echo v0.0.0-dev)
GIT_COMMIT  := $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
LDFLAGS     := -X $(VERSION_PKG).gitVersion=$(GIT_VERSION) -X $(VERSION_PKG).gitCommit=$(GIT_COMMIT)

export GOFLAGS := -mod=vendor -trimpath

.PHONY: help
help: ## List the targets.
	@grep -hE '^[a-zA-Z0-9_-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-22s %s\n", $$1, $$2}'

.PHONY: build
build: ## Build the operator binary into bin/.
	CGO_ENABLED=0 go build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/llm-infra-operator

.PHONY: test
test: ## Run the unit tests (fake clients). The timeout covers the first build of upstream's renderers (the differential tests' tools) on a cold, busy machine, which took over go test's default 10 minutes.
	go test -timeout 45m $(GO_PACKAGES)

.PHONY: golden
golden: ## Regenerate test/golden's upstream renders with upstream's own renderers (hack/tools/upstreamrender, hack/tools/igwrender; OPERAND_SOURCES=<archives> or clone): the golden cases are the differential tool's product.
	UPDATE_GOLDEN=true go test ./test/differential/ -run '^(TestUpstreamRendersGolden|TestUpstreamRendersInferenceGatewayGolden)$$' -count=1 -timeout 30m

.PHONY: test-differential
test-differential: ## Upstream's renderers reproduce the goldens; the differential tests' full form: 2,000 generated LLMBatchGateways, Gateways, MCPs, Agents, Orchestrators, GPUs (each leased from one fake RunPod) and (distinct) LeaderWorkerSetOperators each rendered by upstream's own code (hack/tools/upstreamrender, hack/tools/igwrender, hack/tools/lwsrender) and the operator, every field compared (DIFFERENTIAL_CRS, DIFFERENTIAL_SEED). make test runs their short forms, 200 each.
	DIFFERENTIAL_CRS=$${DIFFERENTIAL_CRS:-2000} go test ./test/differential/ ./pkg/operator/operands/batchgateway/ -run '^(TestUpstreamRendersGolden|TestDifferential)$$' -count=1 -timeout 60m -v
	DIFFERENTIAL_CRS=$${DIFFERENTIAL_CRS:-2000} go test ./test/differential/ ./pkg/operator/operands/inferencegateway/ ./pkg/operator/operands/inferencegatewayagents/ ./pkg/operator/operands/lws/ -run '^(TestUpstreamRendersInferenceGatewayGolden|TestUpstreamRendersLWS|TestDifferentialGateway|TestDifferentialMCP|TestDifferentialAgent|TestDifferentialOrchestrator|TestDifferentialGPU|TestDifferentialLeaderWorkerSetOperator)$$' -count=1 -timeout 60m -v

.PHONY: tools
tools: ## Install the pinned code generators into _output/tools/bin.
	hack/install-tools.sh

.PHONY: generate
generate: ## Regenerate deepcopy, clients, CRDs, the operand manifests, deploy/'s parts that follow from the registered kinds and the OLM bundle.
	hack/update-codegen.sh
	hack/update-crds.sh
	hack/generate-operand-manifests.sh
	hack/generate-dashboards.sh
	hack/kindgen.sh
	hack/bundle.sh

.PHONY: new-kind
new-kind: ## Scaffold a namespaced kind: make new-kind KIND=Sandbox GROUP=inferencegateway/v1alpha1 OPERAND=sandbox [PLURAL=sandboxes PART_OF=...] (docs/development.md), then make generate.
	go run ./hack/newkind -kind '$(KIND)' -group '$(GROUP)' -operand '$(OPERAND)' -plural '$(PLURAL)' -part-of '$(PART_OF)'

# The OLM bundle's settings (hack/bundle.sh). A release pins the images by digest:
#   hack/bundle-pin-images.sh > _output/image-digests
#   make bundle IMAGE_DIGESTS=_output/image-digests BUNDLE_REQUIRE_DIGESTS=true
BUNDLE_CHANNELS           ?= stable
BUNDLE_DEFAULT_CHANNEL    ?= stable
BUNDLE_OPENSHIFT_VERSIONS ?= v4.17
IMAGE_DIGESTS             ?=
BUNDLE_REQUIRE_DIGESTS    ?= false
BUNDLE_IMAGE              ?= quay.io/llm-infra/llm-infra-operator-bundle:v$(shell sed -n 's/^  version: //p' hack/bundle/csv-base.yaml)

.PHONY: bundle
bundle: ## Regenerate the OLM bundle (manifests/, metadata/, bundle.Dockerfile) from deploy/ and hack/bundle/.
	env BUNDLE_CHANNELS=$(BUNDLE_CHANNELS) BUNDLE_DEFAULT_CHANNEL=$(BUNDLE_DEFAULT_CHANNEL) \
	  BUNDLE_OPENSHIFT_VERSIONS=$(BUNDLE_OPENSHIFT_VERSIONS) IMAGE_DIGESTS=$(IMAGE_DIGESTS) \
	  BUNDLE_REQUIRE_DIGESTS=$(BUNDLE_REQUIRE_DIGESTS) hack/bundle.sh

.PHONY: bundle-image
bundle-image: ## Build the bundle image $$BUNDLE_IMAGE (needs a container engine).
	docker build -f bundle.Dockerfile -t $(BUNDLE_IMAGE) .

.PHONY: generate-operand-manifests
generate-operand-manifests: ## Regenerate bindata/ from sigs.k8s.io/lws at operand-git-ref.
	hack/generate-operand-manifests.sh

.PHONY: generate-dashboards
generate-dashboards: ## Regenerate the batch gateway's and the async processor's dashboards ConfigMaps from the pinned upstream charts (OPERAND_SOURCES=<archives> or fetch) and hack/dashboards/.
	hack/generate-dashboards.sh

.PHONY: verify
verify: ## gofmt, go vet, generated code up to date, operand-git-ref agrees with go.mod, the tools modules on one version of each shared dependency.
	hack/verify.sh

.PHONY: run
run: ## Run the operator against $$KUBECONFIG.
	source hack/lib/operator.sh && env RELATED_IMAGE_OPERAND_IMAGE=$(OPERAND_IMAGE) $$(op::deployment_env) \
	  go run ./cmd/llm-infra-operator operator --kubeconfig "$${KUBECONFIG:?set KUBECONFIG}" --namespace $(NAMESPACE)

.PHONY: optional-crds
optional-crds: ## Install optional CRDs into $$KUBECONFIG (SETS=all|gateway-api|monitoring|monitoring-core).
	hack/optional-crds.sh install $(or $(SETS),all)

.PHONY: optional-crds-remove
optional-crds-remove: ## Remove optional CRDs from $$KUBECONFIG (SETS as for optional-crds).
	hack/optional-crds.sh uninstall $(or $(SETS),all)

.PHONY: image
image: ## Build the operator image (needs a container engine).
	docker build -t $(IMAGE) .

.PHONY: cluster-up
cluster-up: ## Start the local cluster (kube-apiserver, etcd, kwok, cert-manager) on loopback.
	hack/local-cluster.sh up

.PHONY: cluster-down
cluster-down: ## Stop the local cluster.
	hack/local-cluster.sh down

.PHONY: run-local
run-local: ## Local cluster + operator + sample CR; Ctrl-C stops everything.
	hack/run-local.sh

.PHONY: test-e2e
test-e2e: ## Run the e2e suite against $$KUBECONFIG, where the operator runs.
	go test ./test/e2e/... -count=1 -timeout 40m -v -ginkgo.v

.PHONY: test-e2e-local
test-e2e-local: ## Local cluster + operator + e2e suite + teardown [KUBE_VERSION=oldest|1.30|newest: hack/lib/kube-version.sh; OPENSHIFT=true: the OpenShift-like cluster].
	hack/test-e2e-local.sh

.PHONY: test-e2e-short-openshift
test-e2e-short-openshift: ## The short form `ci` runs on the OpenShift-like cluster: the e2e specs labelled platform (Automatic picks the service CA, the controller's pods under restricted-v2).
	OPENSHIFT=true E2E_ARGS="-ginkgo.label-filter=platform" hack/test-e2e-local.sh

.PHONY: fetch-operands
fetch-operands: ## Build the operands' programs from the pinned sources (OPERAND_SOURCES=<archives> or clone; OPERANDS_SET=full|short), cached outside the clone; services' tools and packages.
	hack/fetch-operands.sh

.PHONY: test-operands
test-operands: ## Run the operands' suite against $$KUBECONFIG (real pods; OPERANDS_SERVICES_ENV names the services).
	go test ./test/operands/... -count=1 -timeout 60m -v -ginkgo.v

.PHONY: test-operands-local
test-operands-local: ## Local cluster with real pods + services + operator + the operands' suite + teardown.
	hack/test-operands-local.sh

.PHONY: test-operands-short
test-operands-short: ## The short form `ci` runs: one batch, one chat completion, one MCP tool list, a LeaderWorkerSet answering, an Agent's card, on real pods (OPERANDS_SET=short builds only their programs).
	OPERANDS_SHORT=true hack/test-operands-local.sh

.PHONY: test-reliability
test-reliability: ## Reliability suites (faults, bad input, fuzz, secrets, cluster start under load) and their table: make test-reliability [SUITES="faults admission"]
	hack/test-reliability.sh $(SUITES)

.PHONY: test-realpods
test-realpods: ## The real-pods agent (hack/tools/realpods): unit tests, then a live test on a cluster with REAL_PODS=true.
	hack/test-realpods.sh

.PHONY: test-openshift-cluster
test-openshift-cluster: ## OPENSHIFT=true's parts on a local cluster started with OPENSHIFT=true: SCC admission, namespace annotations and the service CA, unit and live (hack/openshift/live-tests.sh).
	hack/test-openshift-cluster.sh

.PHONY: fuzz
fuzz: ## Run every fuzz target for FUZZTIME seconds each [10]; the suite "fuzz" goes to OUT [_output/fuzz].
	hack/fuzz.sh $(or $(FUZZTIME),10) $(or $(OUT),_output/fuzz)

.PHONY: test-reliability-short
test-reliability-short: ## The short form `ci` runs: fuzz briefly, the invalid-CR table, a few kill points and API server restarts (LWS).
	RELIABILITY_SHORT=true hack/test-reliability.sh $(SUITES)

.PHONY: test-admission-oldest
test-admission-oldest: ## On the oldest Kubernetes the bundle claims: every CRD served as written, every admission-table case's verdict (its kube-apiserver alone: the checks are the API server's).
	KUBE_VERSION=oldest APISERVER_ONLY=true WITH_CERT_MANAGER=false RELIABILITY_SHORT=true hack/test-reliability.sh admission

.PHONY: test-upgrade
test-upgrade: ## Upgrade from the previous release (hack/upgrade/previous-ref) on a local cluster with 51 CRs: pods rolled, flaps, writes, time.
	hack/test-upgrade.sh

.PHONY: test-upgrade-short
test-upgrade-short: ## test-upgrade with 11 CRs (every shape once or twice).
	UPGRADE_SHORT=true hack/test-upgrade.sh

.PHONY: test-olm
test-olm: ## This operator installed through OLM itself (olm, catalog and opm built from their pinned modules) from a file-based catalog, then upgraded from the previous release by approving OLM's InstallPlan, on a cluster with real pods (hack/test-olm.sh).
	hack/test-olm.sh

.PHONY: test-switching
test-switching: ## From the upstream gateway operators' and openshift/lws-operator's objects (test/upgrade/testdata/switching) to this operator: adopted, rolled, left, writes.
	UPGRADE_INSTANCE=switching hack/test-upgrade.sh switching

.PHONY: test-lws-anchor-e2e
test-lws-anchor-e2e: ## openshift/lws-operator's own e2e suite (its pinned test/e2e, hack/bench/anchors.tsv; OPERAND_SOURCES=<archives> or clone) against this operator in openshift-lws-operator on a local cluster; a spec that does not pass is listed with its outcome and reason (hack/test-lws-anchor-e2e.sh).
	hack/test-lws-anchor-e2e.sh

.PHONY: bench
bench: ## Measure convergence, writes, drift repair, footprint, start-up, and both gateways at scale.
	hack/bench.sh

.PHONY: bench-scale
bench-scale: ## Scenario 8 alone: BENCH_SCALE [1000] LLMBatchGateways and Gateways (half as many MCPs), after BENCH_SCALE_BASE [200] of each.
	BENCH_SCENARIOS=8 hack/bench.sh

.PHONY: bench-anchors
bench-anchors: ## The upstream operators (hack/bench/anchors.tsv) and this one on the same workloads; one table with ours/anchor [BENCH_ANCHOR_KINDS, BENCH_ANCHOR_*_SIZES].
	hack/bench-anchors.sh

.PHONY: bench-compare
bench-compare: ## Compare two bench results: make bench-compare OLD=a.json NEW=b.json
	go run ./test/bench/compare "$(OLD)" "$(NEW)"

.PHONY: bench-charts
bench-charts: ## SVG charts of bench results: make bench-charts IN="_output/bench/bench-....json _output/bench/anchors-....json" [OUT=_output/bench/charts]
	go run ./test/bench/charts -out "$(or $(OUT),_output/bench/charts)" $(or $(IN),$(error IN= names the bench-*.json and anchors-*.json to draw))

.PHONY: bench-charts-docs
bench-charts-docs: ## Redraw docs/benchmarks/*.svg from docs/benchmarks/data/*.json (make test checks they agree).
	go run ./test/bench/charts -out docs/benchmarks docs/benchmarks/data/*.json

.PHONY: clean
clean: ## Remove build output (keeps the cluster binaries cache in _output/bin).
	rm -rf bin

.PHONY: ci
ci: ## What CI runs: verify, unit tests, the e2e suite on a local cluster (and its platform specs on the OpenShift-like cluster), the operands' short form on real pods (on plain Kubernetes and on the OpenShift-like cluster: OPENSHIFT=true, SCC admission and the service CA, with their own live tests), the upgrade from the previous release's short form, the reliability suites' short form, admission on the oldest Kubernetes; the later phases' programs built beside the first (hack/ci.sh, hack/prebuild.sh).
	MAKE=$(MAKE) hack/ci.sh
