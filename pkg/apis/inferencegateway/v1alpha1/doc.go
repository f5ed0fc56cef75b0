// Package v1alpha1 holds the inference gateway API (core.inference-gateway.com): Gateway, one
// namespaced instance of the Inference Gateway (an OpenAI-compatible proxy in front of many LLM
// providers); MCP, a Model Context Protocol server that Gateways and Orchestrators find by
// label; Agent, an A2A agent; Orchestrator, a chat-driven LLM loop that calls Agents and MCP
// servers; and GPU, an inference runtime leased from an external GPU provider. Group,
// version, kinds, field names, types, defaults and enums are those of the upstream
// inference-gateway/operator, so YAML written for it keeps working with llm-infra-operator.
//
// Unlike upstream, no field is accepted and then ignored: each one is either passed to the
// operand (its environment contract, or an object the operator creates) or rejected at admission
// with a message that says why. The type comments say which.
//
// +k8s:deepcopy-gen=package,register
// +groupName=core.inference-gateway.com
// +kubebuilder:object:generate=true
package v1alpha1
