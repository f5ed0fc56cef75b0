// Package e2e proves the operator's behaviour against a live cluster: any cluster that
// $KUBECONFIG points at, where the operator is installed and running.
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
