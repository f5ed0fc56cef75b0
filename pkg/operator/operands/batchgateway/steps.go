package batchgateway

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/llm-infra/llm-infra-operator/bindata"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// reconcileSteps is the operand, in the order it is applied. The credentials Secret and the
// render come first: every object depends on them. Then one step per kind, in the order of the
// operand's one asset list, bindata.BatchGatewayAssets (each object after what it mounts or
// runs as, the optional kinds last).
func reconcileSteps() []engine.Step[*syncRun] {
	steps := []engine.Step[*syncRun]{
		{Name: "credentials Secret", Apply: applyCredentials},
		{Name: "render", Apply: renderObjects},
	}
	index := map[string]int{}
	for _, asset := range bindata.BatchGatewayAssets {
		name := stepOfKind[kindOfAsset(asset)]
		i, ok := index[name]
		if !ok {
			i = len(steps)
			index[name] = i
			steps = append(steps, engine.Step[*syncRun]{Name: name})
		}
		steps[i].Assets = append(steps[i].Assets, asset)
	}
	return steps
}

// stepOfKind names the step that applies each kind of the operand's assets.
var stepOfKind = map[string]string{
	"ServiceAccount":   "ServiceAccounts",
	"ConfigMap":        "ConfigMaps",
	"Service":          "Service",
	"Deployment":       "Deployments",
	"Certificate":      "cert-manager Certificate",
	"HTTPRoute":        "HTTPRoute",
	"BackendTLSPolicy": "BackendTLSPolicy",
	"ServiceMonitor":   "monitors",
	"PodMonitor":       "monitors",
	"PrometheusRule":   "alert rules",
}

// kindOfAsset reads the kind of an embedded manifest. The manifests are compiled in, so a
// failure is a defect of the build: it panics, and every test of the package catches it.
func kindOfAsset(asset string) string {
	var tm metav1.TypeMeta
	if err := yaml.Unmarshal(bindata.MustAsset(asset), &tm); err != nil || tm.Kind == "" {
		panic(fmt.Sprintf("embedded manifest %s has no kind: %v", asset, err))
	}
	if _, ok := stepOfKind[tm.Kind]; !ok {
		panic(fmt.Sprintf("embedded manifest %s is a %s, which no step applies", asset, tm.Kind))
	}
	return tm.Kind
}

// configMapsOf lists the ConfigMaps each component's pods mount.
var configMapsOf = map[string][]string{
	componentAPIServer:      {bindata.BatchGatewayAPIServerConfigMap},
	componentProcessor:      {bindata.BatchGatewayProcessorConfigMap},
	componentGC:             {bindata.BatchGatewayGCConfigMap},
	componentAsyncProcessor: {bindata.BatchGatewayAsyncProcessorConfigMap},
}

// optionalFeatures names the CR field that asks for each object of an optional API.
var optionalFeatures = map[string]string{
	bindata.BatchGatewayAPIServerCertificate:                "spec.tls.certManager",
	bindata.BatchGatewayAPIServerHTTPRoute:                  "spec.httpRoute.enabled",
	bindata.BatchGatewayAPIServerBackendTLSPolicy:           "spec.tls.enabled with spec.httpRoute.enabled",
	bindata.BatchGatewayAPIServerServiceMonitor:             "spec.monitoring.enabled",
	bindata.BatchGatewayProcessorPodMonitor:                 "spec.monitoring.enabled",
	bindata.BatchGatewayGCPodMonitor:                        "spec.monitoring.enabled",
	bindata.BatchGatewayAsyncProcessorPodMonitor:            "spec.monitoring.enabled",
	bindata.BatchGatewayAsyncProcessorModelServerPodMonitor: "spec.processor.asyncConfig.modelServerMonitor.enabled",
	bindata.BatchGatewayPrometheusRule:                      "spec.prometheusRule.enabled",
	bindata.BatchGatewayAsyncProcessorPrometheusRule:        "spec.prometheusRule.enabled",
}

// renderObjects renders every asset for the CR. A spec the operand cannot run with (the
// CRD's rules normally stop it earlier) stops the sync: nothing is applied, and what runs
// keeps running.
func renderObjects(_ context.Context, run *syncRun, _ []string) error {
	var openShift bool
	if fs := run.cr.Spec.FileStorage; fs != nil && fs.FS != nil {
		var err error
		if openShift, err = run.platform.OpenShift(); err != nil {
			return err
		}
	}
	objs, err := renderAll(renderInput{cr: run.cr, images: run.images, credentialsSecret: run.credentialsSecret, backendCA: run.backendCA(), openShift: openShift})
	if err != nil {
		return readyProblem(reasonRenderFailed, true, "the spec cannot be rendered: %v", err)
	}
	run.rendered = make(map[string]renderedObject, len(objs))
	for _, ro := range objs {
		run.rendered[ro.asset] = ro
	}
	return nil
}

// Assets is the operand's one list of embedded manifests, in the order they are applied: for
// code, tests, e2e and benchmarks alike.
func Assets() []string { return engine.AllAssets(reconcileSteps()) }

// readyProblem reports something in the CR or its references that stops the gateway from
// working: Ready is False with reason. Blocking stops the later steps (the objects already
// running are left alone).
func readyProblem(reason string, blocking bool, format string, args ...any) *engine.StepError {
	return &engine.StepError{Condition: conditionReady, Reason: reason, Message: fmt.Sprintf(format, args...), Blocking: blocking}
}
