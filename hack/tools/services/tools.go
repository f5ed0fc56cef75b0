// Package services holds the backing services of the local cluster's real-pod mode that no
// Debian package provides (hack/operands/services.sh starts them on loopback):
//
//	s3fake       an S3 endpoint (github.com/johannesboyne/gofakes3, data in one bolt file)
//	npmregistry  a read-only npm registry serving what one npm cache holds, so that an MCP
//	             pod's `npx` installs the pinned package without leaving loopback
//	oidcissuer   an OpenID Connect issuer (discovery, JWKS, a token endpoint), for the
//	             inference gateway's OIDC
//
// It is its own Go module, like the other tools modules under hack/tools.
package services
