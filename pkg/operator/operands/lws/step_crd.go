package lws

import (
	"context"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// applyCRD applies the LeaderWorkerSet CRD with the certificate source's caBundle injection
// (step_certificates.go). When the operator writes the conversion webhook's CA bundle itself
// (its own CA, or both CAs during a switch), that bundle is applied. Otherwise library-go's CRD
// apply would replace the whole spec, so the CA bundle an injector (cert-manager's cainjector,
// the service CA) wrote is carried over from the cached CRD first; otherwise the operator and cainjector would take turns rewriting it. The
// cache may lag behind a bundle cainjector has just written: the apply then carries the cached
// resourceVersion and fails with a conflict instead of removing the bundle, and the retry
// reads the newer CRD.
func applyCRD(ctx context.Context, run *syncRun, assets []string) error {
	required, err := engine.RenderTyped[apiextensionsv1.CustomResourceDefinition](run.render, assets[0])
	if err != nil {
		return err
	}
	run.certs.injectCABundle(required)
	if cfg := conversionClientConfig(required); cfg != nil && run.certs.bundle != nil {
		cfg.CABundle = run.certs.bundle
	}
	if live := run.crd.Get(); live != nil {
		preserveConversionCABundle(live, required)
	}
	return run.applier.Apply(ctx, required)
}

// preserveConversionCABundle copies the live conversion webhook CA bundle into required, when
// both use a conversion webhook and required sets no bundle of its own.
func preserveConversionCABundle(live, required *apiextensionsv1.CustomResourceDefinition) {
	liveConfig := conversionClientConfig(live)
	requiredConfig := conversionClientConfig(required)
	if liveConfig == nil || requiredConfig == nil || len(requiredConfig.CABundle) > 0 {
		return
	}
	requiredConfig.CABundle = liveConfig.CABundle
}

func conversionClientConfig(crd *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.WebhookClientConfig {
	if crd == nil || crd.Spec.Conversion == nil || crd.Spec.Conversion.Webhook == nil {
		return nil
	}
	return crd.Spec.Conversion.Webhook.ClientConfig
}

// disableCRDConversionWebhook keeps the CRD on removal (deleting it would delete every user's
// LeaderWorkerSet) but turns its conversion webhook off: the webhook Service is gone, and the
// API server would otherwise fail every request that needs a conversion.
func disableCRDConversionWebhook(ctx context.Context, run *syncRun, _ []string) error {
	live, err := run.clients.APIExt.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, lwsCRDName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("get CustomResourceDefinition %s: %w", lwsCRDName, err)
	}
	if !engine.IsManaged(live.Labels) {
		return nil
	}
	if live.Spec.Conversion == nil || live.Spec.Conversion.Strategy == apiextensionsv1.NoneConverter {
		return nil
	}
	updated := live.DeepCopy()
	updated.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.NoneConverter}
	if _, err := run.clients.APIExt.ApiextensionsV1().CustomResourceDefinitions().Update(ctx, updated, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("turn off the conversion webhook of CustomResourceDefinition %s: %w", lwsCRDName, err)
	}
	run.recorder.Eventf("CRDConversionDisabled", "Kept CustomResourceDefinition %s (user LeaderWorkerSets stay) and turned its conversion webhook off", lwsCRDName)
	return nil
}
