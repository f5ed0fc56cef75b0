//go:build tools

// Package tools pins kwok, which fakes Nodes and Pods for the local live
// cluster, and kwokctl from the same module, which runs that cluster's control
// plane from the binaries hack/build-cluster-binaries.sh builds
// (hack/local-cluster.sh).
package tools

import (
	_ "sigs.k8s.io/kwok/cmd/kwok"
	_ "sigs.k8s.io/kwok/cmd/kwokctl"
)
