package v1alpha1

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/llm-infra/llm-infra-operator/pkg/apis/crdtest"
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
		{"empty gc config and reconciler: the defaults, 5m below 60m", LLMBatchGatewaySpec{
			SecretRef: corev1.SecretReference{Name: "creds"},
			Processor: ProcessorSpec{GlobalInferenceGateway: &InferenceGatewaySpec{URL: "http://gw"}, Config: &ProcessorConfigSpec{}},
			GC:        GCSpec{Config: &GCConfigSpec{Reconciler: &GCReconcilerConfig{}}},
		}, nil},
		{"a heartbeat that is no duration (the schema's to report)", LLMBatchGatewaySpec{
			SecretRef: corev1.SecretReference{Name: "creds"},
			Processor: ProcessorSpec{GlobalInferenceGateway: &InferenceGatewaySpec{URL: "http://gw"}, Config: &ProcessorConfigSpec{HeartbeatInterval: "soon"}},
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
			if errs := gateway.ValidateSpec(); !sameDetails(errs, tc.want) {
				t.Errorf("ValidateSpec = %q, want %q", crdtest.Details(errs), tc.want)
			}
		})
	}
}

// sameDetails reports whether errs carry exactly the messages want, in any order.
func sameDetails(errs field.ErrorList, want []string) bool {
	return slices.Equal(crdtest.Details(errs), slices.Sorted(slices.Values(want)))
}
