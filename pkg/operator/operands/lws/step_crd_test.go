package lws

import (
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func crdWithConversion(bundle []byte) *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{Spec: apiextensionsv1.CustomResourceDefinitionSpec{
		Conversion: &apiextensionsv1.CustomResourceConversion{
			Strategy: apiextensionsv1.WebhookConverter,
			Webhook: &apiextensionsv1.WebhookConversion{
				ClientConfig: &apiextensionsv1.WebhookClientConfig{CABundle: bundle},
			},
		},
	}}
}

func TestPreserveConversionCABundle(t *testing.T) {
	tests := []struct {
		name     string
		live     *apiextensionsv1.CustomResourceDefinition
		required *apiextensionsv1.CustomResourceDefinition
		want     string
	}{
		{name: "cainjector's bundle is kept", live: crdWithConversion([]byte("injected")), required: crdWithConversion(nil), want: "injected"},
		{name: "live CRD without a conversion section", live: &apiextensionsv1.CustomResourceDefinition{}, required: crdWithConversion(nil), want: ""},
		{name: "live conversion without a webhook", live: &apiextensionsv1.CustomResourceDefinition{Spec: apiextensionsv1.CustomResourceDefinitionSpec{Conversion: &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.NoneConverter}}}, required: crdWithConversion(nil), want: ""},
		{name: "live webhook without clientConfig", live: &apiextensionsv1.CustomResourceDefinition{Spec: apiextensionsv1.CustomResourceDefinitionSpec{Conversion: &apiextensionsv1.CustomResourceConversion{Webhook: &apiextensionsv1.WebhookConversion{}}}}, required: crdWithConversion(nil), want: ""},
		{name: "required sets its own bundle", live: crdWithConversion([]byte("injected")), required: crdWithConversion([]byte("own")), want: "own"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			preserveConversionCABundle(tt.live, tt.required)
			if got := string(tt.required.Spec.Conversion.Webhook.ClientConfig.CABundle); got != tt.want {
				t.Errorf("caBundle = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestApplyCRDKeepsTheInjectedBundle(t *testing.T) {
	env := newFakeEnv(t, fullyInstalled()...)
	if err := env.sync(); err != nil {
		t.Fatal(err)
	}
	// cainjector fills the conversion webhook's CA bundle.
	crd, err := env.apiext.ApiextensionsV1().CustomResourceDefinitions().Get(env.ctx, lwsCRDName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	crd.Spec.Conversion.Webhook.ClientConfig.CABundle = []byte("injected")
	if _, err := env.apiext.ApiextensionsV1().CustomResourceDefinitions().Update(env.ctx, crd, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.waitFor("CRD with bundle in the cache", func() bool {
		cfg := conversionClientConfig(env.crd.Get())
		return cfg != nil && string(cfg.CABundle) == "injected"
	})
	env.clearActions()
	if err := env.sync(); err != nil {
		t.Fatal(err)
	}
	if w := env.writes(); len(w) > 0 {
		t.Errorf("the operator rewrote objects after cainjector's change: %v", w)
	}
	crd, _ = env.apiext.ApiextensionsV1().CustomResourceDefinitions().Get(env.ctx, lwsCRDName, metav1.GetOptions{})
	if got := string(crd.Spec.Conversion.Webhook.ClientConfig.CABundle); got != "injected" {
		t.Errorf("caBundle = %q after a sync, want the injected one", got)
	}
}
