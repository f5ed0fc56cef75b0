//go:build tools

// Package tools pins the modules whose CRD manifests hack/optional-crds.sh
// installs into the local live cluster: the Gateway API (standard channel,
// config/crd/standard/) and the Prometheus operator
// (example/prometheus-operator-crd/). Nothing builds this package. Each import
// names a package of the module that uses only the standard library, so the
// modules stay in go.mod/go.sum (also through `go mod tidy`) without pulling in
// their dependencies; the script reads the YAML from the module directories
// (`go list -m -f '{{.Dir}}'`).
package tools

import (
	_ "github.com/prometheus-operator/prometheus-operator/example/alertmanager-webhook"
	_ "sigs.k8s.io/gateway-api/pkg/consts"
)
