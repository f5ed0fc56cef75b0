package live

import (
	"fmt"
	"os"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// ConfigFromEnv is the client configuration of the cluster $KUBECONFIG points at. A suite that
// needs a cluster fails without one, with needs (what the cluster must have, and how to get it)
// in the error: it never passes by skipping.
func ConfigFromEnv(needs string) (*rest.Config, error) {
	path := os.Getenv("KUBECONFIG")
	if path == "" {
		return nil, fmt.Errorf("KUBECONFIG is not set: this suite needs %s", needs)
	}
	return clientcmd.BuildConfigFromFlags("", path)
}
