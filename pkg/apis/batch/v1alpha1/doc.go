// Package v1alpha1 holds the LLMBatchGateway API: one namespaced custom resource per instance of
// the llm-d batch gateway (an OpenAI-compatible Files and Batches API for offline inference).
// Group, version, kind and every field are those of the upstream
// opendatahub-io/llm-d-batch-gateway-operator, so LLMBatchGateway YAML written for it keeps
// working unchanged with llm-infra-operator.
//
// +k8s:deepcopy-gen=package,register
// +groupName=batch.llm-d.ai
// +kubebuilder:object:generate=true
package v1alpha1
