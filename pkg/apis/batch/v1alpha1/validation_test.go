package v1alpha1

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// The table in testcases checks ValidateSpec against the CRD. These cases are objects the API
// server never stores (nothing set at all) or that only a Go caller builds, where ValidateSpec
// must not panic on a nil pointer.
func TestValidateSpecOfSparseObjects(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec LLMBatchGatewaySpec
		want []string
	}{
		{"nothing set", LLMBatchGatewaySpec{}, []string{MessageSecretRefName, MessageInferenceGatewayRequired}},
		{"async with nothing else", LLMBatchGatewaySpec{Processor: ProcessorSpec{DispatchMode: DispatchModeAsync}},
			[]string{MessageSecretRefName, MessageAsyncConfigRequired, MessageInferenceGatewayRequired}},
		{"async with an empty asyncConfig", LLMBatchGatewaySpec{Processor: ProcessorSpec{DispatchMode: DispatchModeAsync, AsyncConfig: &AsyncProcessorSpec{}}},
			[]string{MessageSecretRefName, MessageInferenceGatewayRequired, MessageAsyncRedis, MessageAsyncTarget}},
		{"empty config, concurrency and aimd", LLMBatchGatewaySpec{
			SecretRef: corev1.SecretReference{Name: "creds"},
			Processor: ProcessorSpec{
				GlobalInferenceGateway: &InferenceGatewaySpec{URL: "http://gw"},
				Config:                 &ProcessorConfigSpec{Concurrency: &ConcurrencyConfig{AIMD: &AIMDConfig{}}},
			},
		}, nil},
		{"AIMD explicitly disabled", LLMBatchGatewaySpec{
			SecretRef: corev1.SecretReference{Name: "creds"},
			Processor: ProcessorSpec{
				GlobalInferenceGateway: &InferenceGatewaySpec{URL: "http://gw"},
				Config:                 &ProcessorConfigSpec{Concurrency: &ConcurrencyConfig{PerEndpoint: 2, AIMD: &AIMDConfig{Enabled: ptr.To(false)}}},
			},
		}, nil},
		{"empty tls, certManager and fileStorage", LLMBatchGatewaySpec{
			SecretRef:   corev1.SecretReference{Name: "creds"},
			FileStorage: &FileStorageSpec{},
			TLS:         &TLSSpec{Enabled: true, CertManager: &CertManagerSpec{}},
			Processor:   ProcessorSpec{GlobalInferenceGateway: &InferenceGatewaySpec{URL: "http://gw"}},
		}, []string{MessageFileStorageExactlyOne, MessageCertManagerIssuerName}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gateway := &LLMBatchGateway{Spec: tc.spec}
			if got := details(gateway.ValidateSpec()); !equalSets(got, tc.want) {
				t.Errorf("ValidateSpec = %q, want %q", got, tc.want)
			}
		})
	}
}

func details(errs field.ErrorList) []string {
	var out []string
	for _, err := range errs {
		out = append(out, err.Detail)
	}
	return out
}

func equalSets(a, b []string) bool {
	count := map[string]int{}
	for _, s := range a {
		count[s]++
	}
	for _, s := range b {
		count[s]--
	}
	for _, n := range count {
		if n != 0 {
			return false
		}
	}
	return true
}
