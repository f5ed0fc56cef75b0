package engine

import (
	"bytes"
	"encoding/pem"
)

// certificateBlockType is the PEM type of an X.509 certificate.
const certificateBlockType = "CERTIFICATE"

// CertificatesOnly is what of a Secret's PEM value may be copied into a ConfigMap: its
// CERTIFICATE blocks. A value holding nothing but certificates is returned as it is, so a CA
// bundle reads byte for byte as upstream copies it; from any other value the certificates are
// re-encoded one after another and the rest (a private key in a bundle, text, a block of any
// other type) is left out, so a Secret's key never lands in a ConfigMap. "" when there is no
// certificate.
func CertificatesOnly(data []byte) string {
	var certificates [][]byte
	onlyCertificates := true
	rest := data
	for {
		block, next := pem.Decode(rest)
		if block == nil {
			break
		}
		// pem.Decode skips whatever precedes the block: text there is not a certificate.
		if begin := bytes.Index(rest, []byte("-----BEGIN")); begin < 0 || len(bytes.TrimSpace(rest[:begin])) > 0 {
			onlyCertificates = false
		}
		if block.Type == certificateBlockType && len(block.Headers) == 0 {
			certificates = append(certificates, pem.EncodeToMemory(block))
		} else {
			onlyCertificates = false
		}
		rest = next
	}
	if len(bytes.TrimSpace(rest)) > 0 {
		onlyCertificates = false
	}
	if len(certificates) == 0 {
		return ""
	}
	if onlyCertificates {
		return string(data)
	}
	return string(bytes.Join(certificates, nil))
}
