//go:build tools

// Package tools pins kwok, which fakes Nodes and Pods for the local live
// cluster (hack/local-cluster.sh).
package tools

import (
	_ "sigs.k8s.io/kwok/cmd/kwok"
)
