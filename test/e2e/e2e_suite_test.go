// Package e2e proves the operator's behaviour against a live cluster: any cluster that
// $KUBECONFIG points at, where the operator is installed and running (deploy/, or OLM on
// OpenShift). The specs share the singleton LeaderWorkerSetOperator "cluster" and run in order;
// each leaves it Managed and Available, the last deletes and recreates it.
//
//	go test ./test/e2e/... -count=1 -timeout 45m -v -ginkgo.v     (make test-e2e)
//	hack/test-e2e-local.sh                                           (make test-e2e-local)
//
// Environment:
//
//	KUBECONFIG               the cluster, as an administrator
//	E2E_OPERATOR_NAMESPACE   the operator's namespace [openshift-llm-infra-operator]
//	E2E_START_CERT_MANAGER   shell command that installs cert-manager; needed only when cert-manager
//	                         is absent at start (then spec 11 watches the operator report it missing
//	                         and recover); with cert-manager present spec 11 is skipped
//	E2E_RESTART_OPERATOR     shell command that restarts the operator (spec 13); unset, the
//	                         operator's pod (app.kubernetes.io/name=llm-infra-operator) is deleted
//	E2E_OPERATOR_PID_CMD     optional shell command printing the operator's pid (spec 11 checks
//	                         it is unchanged; the leader Lease holder is checked in any case)
//	E2E_OPERATOR_LOG         optional path of the operator's log, tailed on failure
//	E2E_OPERATOR_METRICS_URL the operator's /metrics as this machine reaches it (monitoring_test.go)
//	OPENSHIFT                true: the cluster must serve SecurityContextConstraints (the local
//	                         cluster with OPENSHIFT=true); wherever it does, spec 1 checks that the
//	                         controller's pods were admitted under restricted-v2, and where
//	                         OpenShift's service CA is published, spec 11 expects Automatic to
//	                         pick it while cert-manager is absent
package e2e

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestE2E(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "llm-infra-operator e2e")
}
