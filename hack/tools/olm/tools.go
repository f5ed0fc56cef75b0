//go:build tools

// Package tools pins OLM's programs for make test-olm (hack/test-olm.sh): the olm and catalog
// operators and opm, which serves the file-based catalog. The module proxy lists no version of
// these modules but serves the exact versions required below, so they are built from here like
// the other cluster programs (hack/build-cluster-binaries.sh, OLM=true).
package tools

import (
	_ "github.com/operator-framework/operator-lifecycle-manager/cmd/catalog"
	_ "github.com/operator-framework/operator-lifecycle-manager/cmd/olm"
	_ "github.com/operator-framework/operator-registry/cmd/opm"
)
