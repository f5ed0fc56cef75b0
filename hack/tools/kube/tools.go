//go:build tools

// Package tools pins the Kubernetes control-plane binaries used by the local
// live cluster (hack/local-cluster.sh). Nothing imports this package; the
// imports only keep the commands in go.mod/go.sum so `go build` works offline
// from the module cache.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
