package e2e

import (
	"context"
	"fmt"
	"os"
	"regexp"

	. "github.com/onsi/ginkgo/v2"
)

// Optional APIs: the operands create objects of these APIs only when their CRDs exist, and must
// pick up a CRD installed later without a restart. Specs install and remove the CRDs through two
// shell commands the environment hands the suite, the set's name appended:
//
//	E2E_INSTALL_CRDS     installs a set and returns once every CRD is Established and served,
//	                     e.g. "<repo>/hack/optional-crds.sh install"
//	E2E_UNINSTALL_CRDS   removes a set (its custom resources go with it) and returns once gone,
//	                     e.g. "<repo>/hack/optional-crds.sh uninstall"
//
// go test runs in test/e2e, so the commands need absolute paths. KUBECONFIG is passed on.
const (
	// crdSetGatewayAPI is the Gateway API, standard channel: HTTPRoute, ReferenceGrant, ...
	crdSetGatewayAPI = "gateway-api"
	// crdSetMonitoring is every monitoring.coreos.com CRD of the Prometheus operator.
	crdSetMonitoring = "monitoring"
	// crdSetMonitoringCore is ServiceMonitor, PodMonitor and PrometheusRule only: what the operands
	// use, and much faster to install than crdSetMonitoring.
	crdSetMonitoringCore = "monitoring-core"
)

// crdSetName keeps what is appended to the shell command a plain word.
var crdSetName = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

// installOptionalCRDs installs a set of optional CRDs with $E2E_INSTALL_CRDS.
func installOptionalCRDs(ctx context.Context, set string) {
	GinkgoHelper()
	runOptionalCRDsHook(ctx, "E2E_INSTALL_CRDS", "install", set)
}

// uninstallOptionalCRDs removes a set of optional CRDs with $E2E_UNINSTALL_CRDS.
func uninstallOptionalCRDs(ctx context.Context, set string) {
	GinkgoHelper()
	runOptionalCRDsHook(ctx, "E2E_UNINSTALL_CRDS", "uninstall", set)
}

// runOptionalCRDsHook runs the command of envName with the set appended. Unset, the spec fails:
// a spec that needs the CRDs to come and go cannot prove anything without them.
func runOptionalCRDsHook(ctx context.Context, envName, verb, set string) {
	GinkgoHelper()
	if !crdSetName.MatchString(set) {
		Fail(fmt.Sprintf("invalid CRD set name %q", set))
	}
	command := os.Getenv(envName)
	if command == "" {
		Fail(fmt.Sprintf("%s is not set: this spec must %s the optional CRDs %q. Set it to a shell command "+
			"that takes the set's name as its last argument, e.g. %s=\"<repo>/hack/optional-crds.sh %s\" "+
			"(an absolute path: go test runs in test/e2e); hack/test-e2e-local.sh sets it for the local cluster",
			envName, verb, set, envName, verb))
	}
	runHook(ctx, envName, command+" "+set)
}
