// Package v1alpha1 holds the inference gateway API (core.inference-gateway.com): Gateway, one
// namespaced instance of the Inference Gateway (an OpenAI-compatible proxy in front of many LLM
// providers), and MCP, a Model Context Protocol server that Gateways find by label. Group,
// version, kinds, field names, types, defaults and enums are those of the upstream
// inference-gateway/operator, so YAML written for it keeps working with llm-infra-operator.
//
// Unlike upstream, no field is accepted and then ignored: each one is either passed to the
// gateway (its environment contract, or an object the operator creates) or rejected at admission
// with a message that says why. The type comments say which.
//
// +k8s:deepcopy-gen=package,register
// +groupName=core.inference-gateway.com
// +kubebuilder:object:generate=true
package v1alpha1
