// Package testcases is the table of LLMBatchGateway admission cases: objects the API server must
// accept and objects it must reject, each with the errors it must return. The API package's unit
// tests run every case through the API server's own validators (and the cross-field cases
// through LLMBatchGateway.ValidateSpec); an e2e suite can create them on a real API server
// (server-side dry run) and expect the same errors. It is data: it imports nothing that
// validates.
package testcases

import (
	"fmt"
	"strings"

	"github.com/llm-infra/llm-infra-operator/pkg/apis/internal/admission"
)

// Case is one object and what the API server says about it: Base (BaseSync, BaseAsync or a
// golden CR, as YAML) with Patch (a JSON merge patch, as YAML) applied, and the substrings of
// the errors the API server must return (none: accepted).
type Case = admission.Case

// BaseSync is the smallest object that runs a gateway in sync mode: S3 storage and one endpoint
// for every model.
const BaseSync = `
apiVersion: batch.llm-d.ai/v1alpha1
kind: LLMBatchGateway
metadata:
  name: gw
  namespace: llm
spec:
  secretRef: {name: batch-gateway-secrets}
  fileStorage:
    s3: {bucket: llm-d-batch-gateway, endpoint: "https://s3.example.com"}
  apiServer: {}
  processor:
    globalInferenceGateway: {url: "http://inference-gateway.llm.svc:8000"}
  gc: {}
`

// BaseAsync is the smallest object that runs a gateway in async mode: one model on one
// InferencePool, and the async-processor's queue for that pool.
const BaseAsync = `
apiVersion: batch.llm-d.ai/v1alpha1
kind: LLMBatchGateway
metadata:
  name: gw
  namespace: llm
spec:
  secretRef: {name: batch-gateway-secrets}
  fileStorage:
    fs: {claimName: batch-gateway-files}
  apiServer: {}
  processor:
    dispatchMode: async
    modelGateways:
      llama-3: {inferencePoolName: llama-pool}
    asyncConfig:
      redis:
        queuesConfig:
        - {name: "llm-d-async:requests:llama-pool", igwBaseURL: "http://llama-epp.llm.svc:8000"}
  gc: {}
`

// RulesNotChecked is the API server's error when schema errors keep it from running the CEL
// rules.
const RulesNotChecked = admission.RulesNotChecked

// GoldenOf returns the golden CRs of kind under dir (an upstream operator's, in
// test/golden/<operator>), each accepted unchanged unless refused names it
// (admission.GoldenOf): for the suites outside pkg/apis, which cannot import pkg/apis/internal.
func GoldenOf(dir, kind string, refused map[string][]string) ([]Case, error) {
	return admission.GoldenOf(dir, kind, refused)
}

// models is a modelGateways map of n models, each on its own pool, as YAML (BaseAsync has one
// more).
func models(n int) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "model-%d: {inferencePoolName: pool-%d}", i, i)
	}
	b.WriteString("}")
	return b.String()
}

// The error texts and helpers every table shares.
var (
	long              = admission.Long
	longURL           = admission.LongURL
	items             = admission.Items
	required          = admission.Required
	forbidden         = admission.Forbidden
	invalid           = admission.Invalid
	unsupported       = admission.Unsupported
	pattern           = admission.Pattern
	tooLong           = admission.TooLong
	tooMany           = admission.TooMany
	props             = admission.Props
	extendedResources = admission.ExtendedResources
	numbered          = admission.Numbered
	minimum           = admission.Minimum
	maximum           = admission.Maximum
	missing           = admission.Missing
)

const (
	durationPattern = admission.DurationPattern
	urlPattern      = admission.URLPattern
	// boundedDurationPattern is the pattern of the orphan-recovery durations, which CEL rules
	// compare: numbers of at most 6 digits (and at most 16 characters), so that no admitted
	// value overflows a duration.
	boundedDurationPattern = `^([0-9]{1,6}(\.[0-9]+)?(ms|s|m|h))+$`
)
