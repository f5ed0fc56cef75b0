package lws

import (
	"fmt"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	cliflag "k8s.io/component-base/cli/flag"
	"sigs.k8s.io/yaml"

	lwsconfigv1alpha1 "sigs.k8s.io/lws/api/config/v1alpha1"

	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// acceptedByLWS applies the rules with which the LWS controller v0.10.0 parses its tls settings
// (sigs.k8s.io/lws pkg/config/tls.go, which uses component-base's cliflag as here): a refused
// setting stops the controller at start.
func acceptedByLWS(tls *lwsconfigv1alpha1.TLSOptions) error {
	if tls.MinVersion == "VersionTLS10" || tls.MinVersion == "VersionTLS11" {
		return fmt.Errorf("minVersion %s refused", tls.MinVersion)
	}
	if tls.MinVersion == "VersionTLS13" && len(tls.CipherSuites) > 0 {
		return fmt.Errorf("cipher suites with VersionTLS13 refused")
	}
	if _, err := cliflag.TLSVersion(tls.MinVersion); err != nil {
		return err
	}
	_, err := cliflag.TLSCipherSuites(tls.CipherSuites)
	return err
}

func TestTLSOptionsFromProfiles(t *testing.T) {
	custom := &configv1.TLSSecurityProfile{Type: configv1.TLSProfileCustomType, Custom: &configv1.CustomTLSProfile{
		TLSProfileSpec: configv1.TLSProfileSpec{MinTLSVersion: configv1.VersionTLS12, Ciphers: []string{"ECDHE-RSA-AES128-GCM-SHA256", "not-a-cipher"}}}}
	for _, tc := range []struct {
		name    string
		profile *configv1.TLSSecurityProfile
		min     string
		ciphers []string // nil: as many as the profile's Go can negotiate (checked > 0)
		none    bool     // no cipher suites at all
	}{
		{name: "no profile: Intermediate", profile: nil, min: "VersionTLS12"},
		{name: "Intermediate", profile: &configv1.TLSSecurityProfile{Type: configv1.TLSProfileIntermediateType}, min: "VersionTLS12"},
		{name: "Old: raised to TLS 1.2, which the controller needs", profile: &configv1.TLSSecurityProfile{Type: configv1.TLSProfileOldType}, min: "VersionTLS12"},
		{name: "Modern: TLS 1.3, no cipher suites", profile: &configv1.TLSSecurityProfile{Type: configv1.TLSProfileModernType}, min: "VersionTLS13", none: true},
		{name: "Custom: OpenSSL names to IANA, unknown dropped", profile: custom, min: "VersionTLS12", ciphers: []string{"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"}},
		{name: "Custom without its spec: Intermediate", profile: &configv1.TLSSecurityProfile{Type: configv1.TLSProfileCustomType}, min: "VersionTLS12"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tlsOptions(tc.profile)
			if got.MinVersion != tc.min {
				t.Errorf("minVersion = %q, want %q", got.MinVersion, tc.min)
			}
			switch {
			case tc.none && len(got.CipherSuites) != 0:
				t.Errorf("cipher suites = %v, want none", got.CipherSuites)
			case tc.ciphers != nil && strings.Join(got.CipherSuites, ",") != strings.Join(tc.ciphers, ","):
				t.Errorf("cipher suites = %v, want %v", got.CipherSuites, tc.ciphers)
			case !tc.none && len(got.CipherSuites) == 0:
				t.Error("no cipher suites")
			}
			if err := acceptedByLWS(got); err != nil {
				t.Errorf("the LWS controller would refuse %+v: %v", got, err)
			}
		})
	}
}

// TestConfigFollowsClusterTLSProfile: on OpenShift (the APIServer API served, object "cluster")
// the controller's config carries the profile's settings; elsewhere it has no tls section.
func TestConfigFollowsClusterTLSProfile(t *testing.T) {
	modern := &unstructured.Unstructured{}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&configv1.APIServer{
		TypeMeta:   metav1.TypeMeta{APIVersion: "config.openshift.io/v1", Kind: "APIServer"},
		ObjectMeta: metav1.ObjectMeta{Name: "cluster"},
		Spec:       configv1.APIServerSpec{TLSSecurityProfile: &configv1.TLSSecurityProfile{Type: configv1.TLSProfileModernType}},
	})
	if err != nil {
		t.Fatal(err)
	}
	modern.Object = content
	for _, tc := range []struct {
		name string
		opts []envOption
		want *lwsconfigv1alpha1.TLSOptions
	}{
		{name: "not OpenShift", opts: fullyInstalled(), want: nil},
		{name: "OpenShift, Modern", opts: fullyInstalled(withCRDs(engine.CRDName(APIServerGVR)), withDynamicObjects(modern)),
			want: &lwsconfigv1alpha1.TLSOptions{MinVersion: "VersionTLS13"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newFakeEnv(t, tc.opts...)
			if err := env.sync(); err != nil {
				t.Fatalf("sync: %v", err)
			}
			cm, err := env.kube.CoreV1().ConfigMaps(testNamespace).Get(env.ctx, configMapName, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var config lwsconfigv1alpha1.Configuration
			if err := yaml.UnmarshalStrict([]byte(cm.Data[configMapKey]), &config); err != nil {
				t.Fatal(err)
			}
			got, _ := yaml.Marshal(config.ControllerManager.TLS)
			want, _ := yaml.Marshal(tc.want)
			if string(got) != string(want) {
				t.Errorf("tls = %s, want %s", got, want)
			}
		})
	}
}
