package enginetest

import (
	"testing"
	"time"

	"github.com/openshift/library-go/pkg/crypto"
)

// NewCA makes a CA valid for an hour that signs serving certificates, and its PEM certificate:
// what a test of certificates needs as "the CA in use".
func NewCA(t testing.TB, name string) (*crypto.CA, []byte) {
	t.Helper()
	config, err := crypto.MakeSelfSignedCAConfigForDuration(name, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	cert, _, err := config.GetPEMBytes()
	if err != nil {
		t.Fatal(err)
	}
	return &crypto.CA{Config: config, SerialGenerator: &crypto.RandomSerialGenerator{}}, cert
}
