package main

import "testing"

func TestMatches(t *testing.T) {
	for _, tc := range []struct {
		path, suffix string
		want         bool
	}{
		{"env[].valueFrom.secretKeyRef.name", "*Ref.name", true},
		{"providers[].env[].name", "env[].name", true},
		{"providers[].name", "env[].name", false},
		{"name", "env[].name", false},
		{"hpa.config.metrics[].pods.metric.name", "metrics[].*.metric.name", true},
		{"hpa.config.metrics[].pods.metric.name", "metrics[].*.name", false},
		{"hpa.config.metrics[].resource.name", "metrics[].*.name", true},
		{"selector.matchLabels{}", "selector.matchLabels{}", true},
		{"selector.matchLabels", "selector.matchLabels{}", false},
		{"selector.matchLabels{}", "*elector.matchLabels{}", true},
		{"networkPolicy.from[].namespaceSelector.matchLabels{}", "*elector.matchLabels{}", true},
		{"networkPolicy.from[].podSelector.matchExpressions[].key", "*elector.matchExpressions[].key", true},
		{"nodeSelector{}", "*elector.matchLabels{}", false},
		{"httpRoute.annotations{}", "annotations{}", true},
	} {
		if got := matches(splitPath(tc.path), tc.suffix); got != tc.want {
			t.Errorf("matches(%q, %q) = %v, want %v", tc.path, tc.suffix, got, tc.want)
		}
	}
}

func TestBoundKeepsMarkers(t *testing.T) {
	schema := map[string]any{"type": "object", "properties": map[string]any{
		"env": map[string]any{"type": "array", "maxItems": int64(128), "items": map[string]any{"type": "object", "properties": map[string]any{
			"name":  map[string]any{"type": "string", "maxLength": int64(7)},
			"value": map[string]any{"type": "string"},
		}}},
		"mode": map[string]any{"type": "string", "enum": []any{"a"}},
	}}
	used := make([]int, len(rules))
	bound(schema, nil, used)
	env := schema["properties"].(map[string]any)["env"].(map[string]any)
	item := env["items"].(map[string]any)["properties"].(map[string]any)
	if got := item["name"].(map[string]any)["maxLength"]; got != int64(7) {
		t.Errorf("env[].name maxLength = %v, want the marker's 7", got)
	}
	if got := item["value"].(map[string]any)["maxLength"]; got != int64(envValue) {
		t.Errorf("env[].value maxLength = %v, want %d", got, envValue)
	}
	if _, ok := schema["properties"].(map[string]any)["mode"].(map[string]any)["maxLength"]; ok {
		t.Error("a string with an enum got a maxLength")
	}
}
