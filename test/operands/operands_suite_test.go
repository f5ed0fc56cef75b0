// Package operands proves that what the operator deploys serves: the real upstream programs (built
// by make fetch-operands from the pinned sources) run as the pods of the operator's Deployments,
// against real Redis, PostgreSQL, an S3 endpoint, llm-d-inference-sim and an npm MCP server, and
// batches complete, chat completions and MCP tools come back through the gateways; the
// LeaderWorkerSet controller runs LeaderWorkerSets and a DisaggregatedSet of the simulator that
// answer, with the certificates of each source; upstream's sample A2A agent serves its card and
// takes tasks.
//
//	go test ./test/operands/... -count=1 -timeout 40m -v -ginkgo.v          (make test-operands)
//	hack/test-operands-local.sh                                               (make test-operands-local)
//	... -ginkgo.label-filter=short: one batch, one chat completion, one MCP tool list, a LeaderWorkerSet answering, an Agent's card, serving under an operator SIGKILL and a rollout (make ci)
//	... -ginkgo.focus=LeaderWorkerSet: the LeaderWorkerSet controller's specs (LeaderWorkerSet, DisaggregatedSet, certificates)
//	... -ginkgo.label-filter=switching: serving while the operator takes over the upstream operators' objects
//
// Environment:
//
//	KUBECONFIG              a cluster whose pods run for real, where the operator runs
//	OPERANDS_SERVICES_ENV   the backing services' addresses and credentials, KEY=VALUE lines
//	                        (hack/operands/services.sh writes $LOCAL_CLUSTER_DIR/services/env)
//	OPERANDS_SAMPLES        the samples' folder [../../hack/operands/samples]
//	OPERANDS_BIN            the operand builds [../../_output/operands/bin]: upstream's e2e suite
//	OPENSHIFT               true: the cluster must serve SecurityContextConstraints (the local
//	                        cluster with OPENSHIFT=true); wherever it does, every spec's pods must
//	                        have been admitted under restricted-v2 with a user of the namespace's
//	                        range, and none refused
package operands

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestOperands(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "llm-infra-operator operands on real pods")
}
