//go:build tools

// Package tools pins the Kubernetes control plane of the oldest release the bundle claims
// (the CSV's minKubeVersion), for the local cluster's KUBE_VERSION matrix
// (hack/lib/kube-version.sh). Nothing imports this package; the imports only keep the commands
// in go.mod/go.sum so `go build` works offline from the module cache. kubectl is not built: the
// scripts' kubectl (hack/tools/kube) talks to this API server too.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
)
