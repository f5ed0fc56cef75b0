package main

import (
	"github.com/llm-infra/llm-infra-operator/test/internal/live"
)

// operator is the operator as a local process, started and stopped by hack/lib/operator.sh
// (live.Operator) with the bench's settings; the bench keeps its process (b.op) for /proc
// figures and its start time for start-up latency.
func (b *bench) operator() *live.Operator {
	return &live.Operator{
		Root:   b.root,
		Listen: b.listen,
		Log:    b.operatorLog,
		Env: []string{
			"LOCAL_CLUSTER_INSTANCE=" + envOr("LOCAL_CLUSTER_INSTANCE", "bench"),
			"OPERATOR_BINARY=" + b.operatorBinary,
			"OPERATOR_SKIP_BUILD=true",
			"OPERATOR_KUBECONFIG=" + b.saKubeconfig,
			"OPERATOR_LOG=" + b.operatorLog,
			"OPERATOR_LISTEN=" + b.listen,
			"OPERATOR_NAMESPACE=" + b.namespace,
			"OPERAND_IMAGE=" + b.operandImage,
			// The bench times /healthz itself, from the process's start.
			"OPERATOR_WAIT_HEALTHY=false",
		},
	}
}

// startOperator starts the operator with the ServiceAccount kubeconfig. It returns once the
// process runs; readiness is measured by the caller.
func (b *bench) startOperator() (*live.Proc, error) { return b.operator().Start() }

// stopOperator stops the operator (TERM, so it releases its leader Lease on the way out).
func (b *bench) stopOperator() {
	if b.op == nil {
		return
	}
	if err := b.operator().Stop(); err != nil {
		logf("stopping the operator: %v", err)
	}
}
