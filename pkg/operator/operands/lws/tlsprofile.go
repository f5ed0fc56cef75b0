package lws

import (
	"errors"
	"fmt"

	configv1 "github.com/openshift/api/config/v1"
	"github.com/openshift/library-go/pkg/crypto"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	lwsconfigv1alpha1 "sigs.k8s.io/lws/api/config/v1alpha1"

	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// APIServerGVR is OpenShift's cluster-wide API server configuration. Its tlsSecurityProfile is
// the cluster's TLS profile, which the controller's webhook and metrics servers follow. Only
// OpenShift serves it: elsewhere the controller keeps its own defaults.
var APIServerGVR = schema.GroupVersionResource{Group: "config.openshift.io", Version: "v1", Resource: "apiservers"}

// apiServerConfigName is the one APIServer configuration OpenShift reads.
const apiServerConfigName = "cluster"

// Versions the LWS controller accepts as tls.minVersion (sigs.k8s.io/lws pkg/config/tls.go
// refuses VersionTLS10 and VersionTLS11, and cipher suites with VersionTLS13).
const (
	tlsVersion12 = string(configv1.VersionTLS12)
	tlsVersion13 = string(configv1.VersionTLS13)
)

// clusterTLSProfile is the cluster's TLS profile: found is false where OpenShift publishes none
// (no APIServer API, or no object "cluster"); a nil profile with found true is OpenShift's
// default, Intermediate. The optional API's informer starts with the first call and is waited
// for, so the controller's first config already carries the profile (no second rollout).
func clusterTLSProfile(optional *engine.OptionalAPIs) (profile *configv1.TLSSecurityProfile, found bool, err error) {
	objs, err := optional.List(APIServerGVR, "")
	var missing *engine.MissingCRDsError
	if errors.As(err, &missing) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	for _, obj := range objs {
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return nil, false, fmt.Errorf("unexpected %T in the APIServer informer", obj)
		}
		if u.GetName() != apiServerConfigName {
			continue
		}
		config, err := engine.FromUnstructured[configv1.APIServer](u)
		if err != nil {
			return nil, false, fmt.Errorf("decode APIServer %s: %w", apiServerConfigName, err)
		}
		return config.Spec.TLSSecurityProfile, true, nil
	}
	return nil, false, nil
}

// tlsOptions is the controller's tls configuration for an OpenShift TLS profile, resolved as
// OpenShift's own components resolve it (library-go's TLS security profile observer): no
// profile, an unknown type or a Custom type without its spec mean Intermediate; cipher names are
// turned from OpenSSL's into the IANA names Go (and the controller) reads with library-go's
// crypto.OpenSSLToIANACipherSuites, which drops those Go cannot negotiate. Two adjustments the
// controller needs to start at all: a minimum below TLS 1.2 (the Old profile) is raised to 1.2,
// and with a minimum of TLS 1.3 no cipher suites are given (TLS 1.3's are not configurable).
func tlsOptions(profile *configv1.TLSSecurityProfile) *lwsconfigv1alpha1.TLSOptions {
	spec := configv1.TLSProfiles[configv1.TLSProfileIntermediateType]
	if profile != nil {
		if profile.Type == configv1.TLSProfileCustomType {
			if profile.Custom != nil {
				spec = &profile.Custom.TLSProfileSpec
			}
		} else if known, ok := configv1.TLSProfiles[profile.Type]; ok && known != nil {
			spec = known
		}
	}
	out := &lwsconfigv1alpha1.TLSOptions{MinVersion: string(spec.MinTLSVersion)}
	switch out.MinVersion {
	case tlsVersion12, tlsVersion13:
	default:
		out.MinVersion = tlsVersion12
	}
	if out.MinVersion != tlsVersion13 {
		out.CipherSuites = crypto.OpenSSLToIANACipherSuites(spec.Ciphers)
	}
	return out
}
