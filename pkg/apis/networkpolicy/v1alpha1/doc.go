// Package v1alpha1 holds the NetworkPolicy switch of the serving operands' custom resources,
// declared once for every API group whose kinds take it: spec.networkPolicy of the inference
// gateway's Gateway, MCP, Agent and Orchestrator (core.inference-gateway.com) and of the
// LLMBatchGateway (batch.llm-d.ai). It is no API group of its own (no kind, no +groupName):
// the CRDs of those groups embed its types, so the schema, defaults, bounds and CEL rule of
// spec.networkPolicy are the same in each.
//
// +k8s:deepcopy-gen=package
package v1alpha1
