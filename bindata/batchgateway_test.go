package bindata

import (
	"encoding/json"
	"strings"
	"testing"
)

// batchGatewayPlaceholders is every placeholder the batch gateway manifests may use.
var batchGatewayPlaceholders = map[string]bool{
	NamespacePlaceholder:                       true,
	BatchGatewayInstancePlaceholder:            true,
	BatchGatewayAPIServerNamePlaceholder:       true,
	BatchGatewayProcessorNamePlaceholder:       true,
	BatchGatewayGCNamePlaceholder:              true,
	BatchGatewayAsyncProcessorNamePlaceholder:  true,
	BatchGatewayAPIServerImagePlaceholder:      true,
	BatchGatewayProcessorImagePlaceholder:      true,
	BatchGatewayGCImagePlaceholder:             true,
	BatchGatewayAsyncProcessorImagePlaceholder: true,
	BatchGatewayCredentialsSecretPlaceholder:   true,
}

// applyStage orders kinds for BatchGatewayAssets: what a pod mounts or runs as comes before
// the Deployment, and the kinds whose CRDs may be missing come last.
func applyStage(kind string) int {
	switch kind {
	case "ServiceAccount":
		return 0
	case "ConfigMap":
		return 1
	case "Service":
		return 2
	case "Deployment":
		return 3
	default:
		return 4
	}
}

func TestBatchGatewayAssets(t *testing.T) {
	checkNamespacedAssets(t, "", BatchGatewayAssets, "assets/batchgateway/", applyStage, func(t *testing.T, kind string, obj interface{}) {
		checkBatchGatewayLabels(t, get(obj, "metadata", "labels"))
		if kind == "Deployment" {
			checkBatchGatewayLabels(t, get(obj, "spec", "template", "metadata", "labels"))
		}
		checkPlaceholdersInValuesOnly(t, obj)
	})
}

// checkNamespacedAssets checks an asset list of an operand whose objects live in its CRs'
// namespaces: each asset listed once, under dir, in apply-stage order (stage of its kind), in
// the namespace placeholder, named from a placeholder; check adds the operand's own checks.
func checkNamespacedAssets(t *testing.T, listName string, assets []string, dir string, stage func(kind string) int, check func(t *testing.T, kind string, obj interface{})) {
	seen := map[string]bool{}
	lastStage := 0
	for _, path := range assets {
		t.Run(listName+path, func(t *testing.T) {
			if seen[path] {
				t.Fatalf("listed twice")
			}
			seen[path] = true
			if !strings.HasPrefix(path, dir) {
				t.Errorf("not under %s", dir)
			}
			obj := mustParse(t, path)
			kind, _ := get(obj, "kind").(string)
			if s := stage(kind); s < lastStage {
				t.Errorf("%s listed after a later apply stage", kind)
			} else {
				lastStage = s
			}
			if get(obj, "metadata", "namespace") != NamespacePlaceholder {
				t.Errorf("metadata.namespace = %v, want %s", get(obj, "metadata", "namespace"), NamespacePlaceholder)
			}
			if name, _ := get(obj, "metadata", "name").(string); !strings.Contains(name, "${") {
				t.Errorf("metadata.name %q is not derived from a placeholder", name)
			}
			check(t, kind, obj)
		})
	}
}

// checkBatchGatewayLabels checks the one label set every object and pod template carries; the
// engine adds managed-by, so a manifest must not.
func checkBatchGatewayLabels(t *testing.T, labels interface{}) {
	t.Helper()
	for _, key := range []string{"app.kubernetes.io/name", "app.kubernetes.io/component"} {
		if v, _ := get(labels, key).(string); v == "" {
			t.Errorf("label %s missing", key)
		}
	}
	if got := get(labels, "app.kubernetes.io/instance"); got != BatchGatewayInstancePlaceholder {
		t.Errorf("label app.kubernetes.io/instance = %v", got)
	}
	if got := get(labels, "app.kubernetes.io/part-of"); got != "llm-batch-gateway" {
		t.Errorf("label app.kubernetes.io/part-of = %v", got)
	}
	for _, key := range []string{"app.kubernetes.io/managed-by", "helm.sh/chart", "app.kubernetes.io/version"} {
		if get(labels, key) != nil {
			t.Errorf("label %s must not be in the manifest", key)
		}
	}
}

// checkPlaceholdersInValuesOnly checks that placeholders are known and stand only in string
// values: the renderer substitutes values after parsing, never keys.
func checkPlaceholdersInValuesOnly(t *testing.T, node interface{}) {
	t.Helper()
	switch n := node.(type) {
	case map[string]interface{}:
		for k, v := range n {
			if strings.Contains(k, "${") {
				t.Errorf("placeholder in key %q", k)
			}
			checkPlaceholdersInValuesOnly(t, v)
		}
	case []interface{}:
		for _, v := range n {
			checkPlaceholdersInValuesOnly(t, v)
		}
	case string:
		for _, p := range placeholderRE.FindAllString(n, -1) {
			if !batchGatewayPlaceholders[p] {
				t.Errorf("unknown placeholder %s", p)
			}
		}
	}
}

func TestBatchGatewayDashboardsAreJSON(t *testing.T) {
	for _, path := range []string{BatchGatewayDashboards, BatchGatewayAsyncProcessorDashboard} {
		data, _ := get(mustParse(t, path), "data").(map[string]interface{})
		if len(data) == 0 {
			t.Errorf("%s: no dashboards", path)
		}
		for key, v := range data {
			var dashboard map[string]interface{}
			if err := json.Unmarshal([]byte(v.(string)), &dashboard); err != nil {
				t.Errorf("%s: %s is not JSON: %v", path, key, err)
			}
			// Grafana keys dashboards by uid, and every instance's ConfigMap holds the same
			// file names: each dashboard has a uid and no placeholder (it selects the namespace
			// with a Grafana variable, as upstream's do), so every instance's copy is the same.
			if uid, _ := dashboard["uid"].(string); uid == "" {
				t.Errorf("%s: %s has no uid", path, key)
			}
			if strings.Contains(v.(string), "${") {
				t.Errorf("%s: %s holds a placeholder: instances' copies would differ under one uid", path, key)
			}
		}
	}
}

// TestBatchGatewaySelectorsAreUpstreams pins the Deployment selectors: they are immutable, and
// the objects the upstream operator created must be adopted.
func TestBatchGatewaySelectorsAreUpstreams(t *testing.T) {
	for path, want := range map[string]map[string]interface{}{
		BatchGatewayAPIServerDeployment: {"app.kubernetes.io/name": "batch-gateway-apiserver", "app.kubernetes.io/instance": "${INSTANCE}", "app.kubernetes.io/component": "apiserver"},
		BatchGatewayProcessorDeployment: {"app.kubernetes.io/name": "batch-gateway-processor", "app.kubernetes.io/instance": "${INSTANCE}", "app.kubernetes.io/component": "processor"},
		BatchGatewayGCDeployment:        {"app.kubernetes.io/name": "batch-gateway-gc", "app.kubernetes.io/instance": "${INSTANCE}", "app.kubernetes.io/component": "gc"},
		// The async-processor chart selects by name and instance only.
		BatchGatewayAsyncProcessorDeployment: {"app.kubernetes.io/name": "async-processor", "app.kubernetes.io/instance": "${INSTANCE}"},
	} {
		dep := mustParse(t, path)
		got, _ := get(dep, "spec", "selector", "matchLabels").(map[string]interface{})
		if len(got) != len(want) {
			t.Errorf("%s: selector %v, want %v", path, got, want)
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: selector %s = %v, want %v", path, k, got[k], v)
			}
			if get(dep, "spec", "template", "metadata", "labels", k) != v {
				t.Errorf("%s: pod template does not carry selector label %s", path, k)
			}
		}
	}
}
