module github.com/llm-infra/llm-infra-operator/hack/tools/crds

go 1.26.0

require (
	github.com/prometheus-operator/prometheus-operator v0.85.0
	sigs.k8s.io/gateway-api v1.6.3
)
