package testcases

import (
	"fmt"

	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/apis/internal/admission"
)

// BaseGPU is a small GPU: only the required fields.
const BaseGPU = `
apiVersion: core.inference-gateway.com/v1alpha1
kind: GPU
metadata:
  name: ornith
  namespace: llm
spec:
  credentialsRef: {name: runpod-credentials, key: api-key}
  image: vllm/vllm-openai:latest
  gpuTypes: [NVIDIA A100 80GB PCIe]
  endpoint: {}
  maxRuntime: 2h
`

// UpstreamGPU is the GPU of upstream's examples/gpu/gpu.yaml (at operator commit fae5b925).
const UpstreamGPU = `
apiVersion: core.inference-gateway.com/v1alpha1
kind: GPU
metadata:
  name: ornith
  namespace: inference-gateway
spec:
  provider: runpod
  credentialsRef:
    name: runpod-credentials
    key: api-key
  image: vllm/vllm-openai:latest
  command:
  - "--model"
  - "deepreinforce-ai/Ornith-1.0-9B"
  - "--served-model-name"
  - "Ornith-1.0"
  - "--host"
  - "0.0.0.0"
  - "--port"
  - "8000"
  - "--max-model-len"
  - "32768"
  gpuTypes:
  - NVIDIA A100 80GB PCIe
  - NVIDIA H100 80GB HBM3
  endpoint:
    port: 8000
    readinessPath: /health
  maxRuntime: 2h
`

// GPUAccepted are valid GPU objects.
var GPUAccepted = []Case{
	{Name: "base", Base: BaseGPU},
	{Name: "upstream example gpu", Base: UpstreamGPU},
	{Name: "credentials not optional", Base: BaseGPU, Patch: `{spec: {credentialsRef: {optional: false}}}`},
	{Name: "maxRuntime of minutes and seconds", Base: BaseGPU, Patch: `{spec: {maxRuntime: 1h30m15s}}`},
	{Name: "name of 63 characters (the bound)", Base: BaseGPU, Patch: fmt.Sprintf(`{metadata: {name: %s}}`, admission.Long(63))},

	// Size bounds (issue 33): at each bound, admitted.
	{Name: "credentialsRef at the size bounds", Base: BaseGPU, Patch: fmt.Sprintf(`{spec: {credentialsRef: {name: %s, key: %s}}}`, admission.Long(253), admission.Long(253))},
}

// GPURejected are invalid GPU objects, with the errors the API server returns.
var GPURejected = []Case{
	// The schema.
	{Name: "no maxRuntime", Base: BaseGPU, Patch: `{spec: {maxRuntime: null}}`, Errors: []string{admission.Missing("spec.maxRuntime"), RulesNotChecked}},
	{Name: "no gpuTypes", Base: BaseGPU, Patch: `{spec: {gpuTypes: []}}`,
		Errors: []string{"spec.gpuTypes: Invalid value: 0: spec.gpuTypes in body should have at least 1 items"}},
	{Name: "no endpoint", Base: BaseGPU, Patch: `{spec: {endpoint: null}}`, Errors: []string{admission.Missing("spec.endpoint"), RulesNotChecked}},
	{Name: "provider aws", Base: BaseGPU, Patch: `{spec: {provider: aws}}`, Errors: []string{admission.Unsupported("spec.provider", "aws"), RulesNotChecked}},
	{Name: "port 0", Base: BaseGPU, Patch: `{spec: {endpoint: {port: 0}}}`, Errors: []string{admission.Minimum("spec.endpoint.port", 0, 1)}},
	{Name: "readinessPath without a leading slash", Base: BaseGPU, Patch: `{spec: {endpoint: {readinessPath: health}}}`,
		Errors: []string{admission.Pattern("spec.endpoint.readinessPath", "health", "^/.*")}},
	{Name: "maxRuntime without a unit", Base: BaseGPU, Patch: `{spec: {maxRuntime: "7200"}}`,
		Errors: []string{admission.Pattern("spec.maxRuntime", "7200", admission.DurationPattern)}},
	{Name: "no credentials key", Base: BaseGPU, Patch: `{spec: {credentialsRef: {key: null}}}`, Errors: []string{admission.Missing("spec.credentialsRef.key"), RulesNotChecked}},

	// CEL.
	{Name: "name of 64 characters", Base: BaseGPU, Patch: fmt.Sprintf(`{metadata: {name: %s}}`, admission.Long(64)), Errors: []string{admission.Invalid("<nil>", v1alpha1.MessageGPUName)}},
	{Name: "maxRuntime 0s", Base: BaseGPU, Patch: `{spec: {maxRuntime: 0s}}`, Errors: []string{admission.Invalid("spec.maxRuntime", v1alpha1.MessageGPUMaxRuntime)}},
	{Name: "optional credentials", Base: BaseGPU, Patch: `{spec: {credentialsRef: {optional: true}}}`,
		Errors: []string{admission.Forbidden("spec.credentialsRef.optional", v1alpha1.MessageGPUCredentialsOptional)}},

	// Size bounds (issue 33): one past each bound, refused.
	{Name: "credentialsRef name of 254", Base: BaseGPU, Patch: fmt.Sprintf(`{spec: {credentialsRef: {name: %s}}}`, admission.Long(254)),
		Errors: []string{admission.TooLong("spec.credentialsRef.name", 253), RulesNotChecked}},
	{Name: "credentialsRef key of 254", Base: BaseGPU, Patch: fmt.Sprintf(`{spec: {credentialsRef: {key: %s}}}`, admission.Long(254)),
		Errors: []string{admission.TooLong("spec.credentialsRef.key", 253), RulesNotChecked}},
}

// GPUAllocatedStatus is the status of a GPU that holds an allocation, as the operator writes it
// (through the status subresource) once it leased one.
const GPUAllocatedStatus = `{phase: Ready, instanceID: pod-1}`

// GPUUpdatesWithAllocation are changes to a stored GPU (BaseGPU) that holds an allocation (its
// status is GPUAllocatedStatus): the schema's unit test and the live admission suite send them.
var GPUUpdatesWithAllocation = []Case{
	{Name: "maxRuntime changed", Patch: `{spec: {maxRuntime: 4h}}`},
	{Name: "credentials unchanged, other fields of the object changed", Patch: `{metadata: {labels: {team: a}}}`},
	{Name: "credentials changed", Patch: `{spec: {credentialsRef: {name: other, key: key}}}`,
		Errors: []string{admission.Invalid("<nil>", v1alpha1.MessageGPUCredentialsHeld)}},
	{Name: "credentials key changed", Patch: `{spec: {credentialsRef: {key: other-key}}}`,
		Errors: []string{admission.Invalid("<nil>", v1alpha1.MessageGPUCredentialsHeld)}},
}

// GPUUpdates are changes to a stored GPU (BaseGPU) and what the API server says about them.
var GPUUpdates = []Case{
	{Name: "maxRuntime changed", Patch: `{spec: {maxRuntime: 4h}}`},
	{Name: "credentials changed while no allocation is held", Patch: `{spec: {credentialsRef: {name: other, key: key}}}`},
	{Name: "image changed", Patch: `{spec: {image: "vllm/vllm-openai:v0.9"}}`, Errors: []string{admission.Invalid("spec", v1alpha1.MessageGPUImmutable)}},
	{Name: "command added", Patch: `{spec: {command: [--model, m]}}`, Errors: []string{admission.Invalid("spec", v1alpha1.MessageGPUImmutable)}},
	{Name: "gpuTypes changed", Patch: `{spec: {gpuTypes: [NVIDIA H100 80GB HBM3]}}`, Errors: []string{admission.Invalid("spec", v1alpha1.MessageGPUImmutable)}},
	{Name: "port changed", Patch: `{spec: {endpoint: {port: 8000}}}`, Errors: []string{admission.Invalid("spec", v1alpha1.MessageGPUImmutable)}},
}
