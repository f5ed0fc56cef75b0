package bindata

import (
	"reflect"
	"strings"
	"testing"
)

// inferenceGatewayPlaceholders is every placeholder the inference gateway manifests may use.
var inferenceGatewayPlaceholders = map[string]bool{
	NamespacePlaceholder:                      true,
	InferenceGatewayInstancePlaceholder:       true,
	InferenceGatewayServiceAccountPlaceholder: true,
	InferenceGatewayImagePlaceholder:          true,
}

// inferenceGatewayStage orders kinds in InferenceGatewayAssets and MCPAssets: what a pod runs
// as or mounts comes before the Deployment, the Deployment before what points at it, and the
// kinds whose CRDs may be missing come last.
func inferenceGatewayStage(kind string) int {
	stages := map[string]int{
		"ServiceAccount":          0,
		"ConfigMap":               1,
		"Service":                 2,
		"Deployment":              3,
		"HorizontalPodAutoscaler": 4,
		"PodDisruptionBudget":     4,
		"Ingress":                 4,
	}
	if stage, ok := stages[kind]; ok {
		return stage
	}
	return 5 // Gateway API, Prometheus operator
}

func TestInferenceGatewayAssets(t *testing.T) {
	for _, list := range []struct {
		name      string
		assets    []string
		component string
	}{
		{"InferenceGatewayAssets", InferenceGatewayAssets, "gateway"},
		{"MCPAssets", MCPAssets, "mcp-server"},
	} {
		checkNamespacedAssets(t, list.name+"/", list.assets, "assets/inferencegateway/", inferenceGatewayStage, func(t *testing.T, kind string, obj interface{}) {
			checkInferenceGatewayLabels(t, get(obj, "metadata", "labels"), list.component)
			if kind == "Deployment" {
				checkInferenceGatewayLabels(t, get(obj, "spec", "template", "metadata", "labels"), list.component)
			}
			checkInferenceGatewayPlaceholders(t, obj)
		})
	}
}

// checkInferenceGatewayPlaceholders checks that a manifest's placeholders are known and stand in
// string values only.
func checkInferenceGatewayPlaceholders(t *testing.T, obj interface{}) {
	t.Helper()
	keys, values := stringsOf(obj)
	for _, k := range keys {
		if strings.Contains(k, "${") {
			t.Errorf("placeholder in key %q: the renderer substitutes values only", k)
		}
	}
	for _, v := range values {
		for _, p := range placeholderRE.FindAllString(v, -1) {
			if !inferenceGatewayPlaceholders[p] {
				t.Errorf("unknown placeholder %s", p)
			}
		}
	}
}

// checkInferenceGatewayLabels checks the label set every object and pod template carries; the
// engine adds managed-by, so a manifest must not.
func checkInferenceGatewayLabels(t *testing.T, labels interface{}, component string) {
	t.Helper()
	want := map[string]string{
		"app.kubernetes.io/name":      "inference-gateway",
		"app.kubernetes.io/instance":  InferenceGatewayInstancePlaceholder,
		"app.kubernetes.io/component": component,
		"app.kubernetes.io/part-of":   "inference-gateway",
	}
	for k, v := range want {
		if got := get(labels, k); got != v {
			t.Errorf("label %s = %v, want %s", k, got, v)
		}
	}
	if get(labels, "app.kubernetes.io/managed-by") != nil {
		t.Errorf("label app.kubernetes.io/managed-by must not be in the manifest")
	}
}

// stringsOf returns every map key and every string value of a parsed manifest.
func stringsOf(node interface{}) (keys, values []string) {
	switch n := node.(type) {
	case map[string]interface{}:
		for k, v := range n {
			keys = append(keys, k)
			ks, vs := stringsOf(v)
			keys, values = append(keys, ks...), append(values, vs...)
		}
	case []interface{}:
		for _, v := range n {
			ks, vs := stringsOf(v)
			keys, values = append(keys, ks...), append(values, vs...)
		}
	case string:
		values = append(values, n)
	}
	return keys, values
}

// TestInferenceGatewaySelectorsAreUpstreams pins what selects the pods: a Deployment's selector
// is immutable and upstream's objects must be adopted, so both stay upstream's app label.
func TestInferenceGatewaySelectorsAreUpstreams(t *testing.T) {
	upstream := map[string]interface{}{"app": InferenceGatewayInstancePlaceholder}
	for _, tc := range []struct{ deployment, service string }{
		{InferenceGatewayDeployment, InferenceGatewayService},
		{MCPDeployment, MCPService},
	} {
		dep := mustParse(t, tc.deployment)
		if got := get(dep, "spec", "selector", "matchLabels"); !reflect.DeepEqual(got, upstream) {
			t.Errorf("%s: selector %v, want %v", tc.deployment, got, upstream)
		}
		if get(dep, "spec", "template", "metadata", "labels", "app") != InferenceGatewayInstancePlaceholder {
			t.Errorf("%s: the pod template does not carry the selector's label", tc.deployment)
		}
		if got := get(mustParse(t, tc.service), "spec", "selector"); !reflect.DeepEqual(got, upstream) {
			t.Errorf("%s: selector %v, want %v", tc.service, got, upstream)
		}
	}
}

// TestInferenceGatewayReferences: what points at another object names it.
func TestInferenceGatewayReferences(t *testing.T) {
	for _, hpa := range []string{InferenceGatewayHPA, MCPHPA} {
		want := map[string]interface{}{"apiVersion": "apps/v1", "kind": "Deployment", "name": InferenceGatewayInstancePlaceholder}
		if got := get(mustParse(t, hpa), "spec", "scaleTargetRef"); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: scaleTargetRef %v, want %v", hpa, got, want)
		}
	}
	monitor := get(mustParse(t, InferenceGatewayServiceMonitor), "spec", "selector", "matchLabels").(map[string]interface{})
	serviceLabels := get(mustParse(t, InferenceGatewayService), "metadata", "labels").(map[string]interface{})
	for k, v := range monitor {
		if serviceLabels[k] != v {
			t.Errorf("the ServiceMonitor selects %s=%v, which the Service does not carry", k, v)
		}
	}
	if get(mustParse(t, InferenceGatewayDeployment), "spec", "template", "spec", "serviceAccountName") != InferenceGatewayServiceAccountPlaceholder ||
		get(mustParse(t, InferenceGatewayServiceAccount), "metadata", "name") != InferenceGatewayServiceAccountPlaceholder {
		t.Errorf("the pods do not run as the ServiceAccount")
	}
}
