module github.com/llm-infra/llm-infra-operator/hack/tools/certgen

go 1.26.0
