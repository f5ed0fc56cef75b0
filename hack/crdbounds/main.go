// Command crdbounds adds size bounds (maxLength, maxItems, maxProperties) to the fields of the
// CRDs' specs that come from types this project does not own (k8s.io/api's EnvVar,
// ResourceRequirements, SecretKeySelector, LabelSelector, the autoscaling/v2 metric and behavior
// types, Toleration), where a kubebuilder marker cannot reach: controller-gen reads markers only
// on this module's own types. Every field of this module's own types is bounded by its markers
// beside the field; this table is only for what lies inside a foreign type (and the values of
// this module's maps, which a marker on the map cannot reach either). A bound a marker already
// set is never changed.
//
// The bounds are Kubernetes' own where it has one (an object name 253, a DNS label 63, a label
// value 63, a qualified name 317 = a DNS subdomain prefix, "/" and a name of 63), else a size no
// sensible object reaches. They exist so that the API server can bound the cost of the CEL rules
// and the size of what one field can hold (issue 33); pkg/apis/crdtest's
// TestEverySpecFieldBounded fails on a field of any CRD's spec without one.
//
// It is run by hack/update-crds.sh (make generate) on the CRDs controller-gen has just written,
// before they are copied to deploy/. It fails on a rule that bounds nothing, so the table never
// outlives the fields it was written for.
//
// Usage: go run ./hack/crdbounds <crd.yaml>...
package main

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"strings"

	"sigs.k8s.io/yaml"
)

// rule bounds the fields whose path ends in suffix (the segments of a field path below spec, as
// "env[].valueFrom.secretKeyRef.name"; [] is a list's item, {} a map's value; a segment may be a
// path.Match pattern such as "*Ref").
type rule struct {
	suffix string
	// key is the bound's schema keyword: maxLength (strings), maxItems (lists) or maxProperties
	// (maps).
	key   string
	value int64
	// of names the type the field belongs to, for a reader of the table.
	of string
}

const (
	dnsSubdomain  = 253 // an object's name, a Secret's or ConfigMap's key
	dnsLabel      = 63  // a container's name, a namespace's, a label's value
	qualifiedName = 317 // a label's or taint's key: a DNS subdomain prefix, "/" and 63
	metricName    = 1024
	annotation    = 262144 // the API server's limit of all of an object's annotations together
	envValue      = 65536  // an environment variable's value: free text (a prompt, a JSON document)
	shortWord     = 32     // a word from a fixed set (an operator, a type) a CEL rule or the API checks
)

var rules = []rule{
	// corev1.ResourceRequirements
	{"resources.claims", "maxItems", 16, "ResourceRequirements"},
	{"resources.claims[].name", "maxLength", dnsLabel, "ResourceClaim"},
	{"resources.claims[].request", "maxLength", dnsLabel, "ResourceClaim"},
	{"resources.limits", "maxProperties", 32, "ResourceRequirements"},
	{"resources.requests", "maxProperties", 32, "ResourceRequirements"},

	// corev1.EnvVar and its EnvVarSource
	{"env[].name", "maxLength", dnsSubdomain, "EnvVar"},
	{"env[].value", "maxLength", envValue, "EnvVar"},
	// The downward API of a container's environment takes apiVersion v1 alone, and its longest
	// fieldPath is metadata.annotations['<a qualified name of 317>'] (22 + 317 + 2).
	{"env[].valueFrom.fieldRef.apiVersion", "maxLength", 2, "ObjectFieldSelector"},
	{"env[].valueFrom.fieldRef.fieldPath", "maxLength", 341, "ObjectFieldSelector"},
	{"env[].valueFrom.resourceFieldRef.containerName", "maxLength", dnsLabel, "ResourceFieldSelector"},
	{"env[].valueFrom.resourceFieldRef.resource", "maxLength", qualifiedName, "ResourceFieldSelector"},
	{"env[].valueFrom.fileKeyRef.path", "maxLength", 2048, "FileKeySelector"},
	{"env[].valueFrom.fileKeyRef.volumeName", "maxLength", dnsLabel, "FileKeySelector"},

	// corev1.SecretKeySelector, ConfigMapKeySelector, LocalObjectReference, SecretReference and
	// the env's FileKeySelector: a name and a key of a Secret or ConfigMap.
	{"*Ref.name", "maxLength", dnsSubdomain, "SecretKeySelector, ConfigMapKeySelector, LocalObjectReference, SecretReference"},
	{"*Ref.key", "maxLength", dnsSubdomain, "SecretKeySelector, ConfigMapKeySelector, FileKeySelector"},
	{"secretRef.namespace", "maxLength", dnsLabel, "SecretReference"},
	{"imagePullSecrets[].name", "maxLength", dnsSubdomain, "LocalObjectReference"},

	// A NetworkPolicy peer's selectors (spec.networkPolicy.from, up to 32 peers of two selectors
	// each): tighter than any other LabelSelector's, so that a CR at every bound still fits the
	// API server's request limit (3 MiB; with the general bounds below, 32 peers came to about
	// 33 MB and the API server refused the CR). Listed first: the first matching rule applies.
	{"from[].*elector.matchLabels", "maxProperties", 16, "LabelSelector of a NetworkPolicy peer"},
	{"from[].*elector.matchExpressions", "maxItems", 8, "LabelSelector of a NetworkPolicy peer"},
	{"from[].*elector.matchExpressions[].values", "maxItems", 16, "LabelSelectorRequirement of a NetworkPolicy peer"},

	// metav1.LabelSelector, in fields named selector, namespaceSelector, podSelector
	{"*elector.matchLabels", "maxProperties", 64, "LabelSelector"},
	{"*elector.matchLabels{}", "maxLength", dnsLabel, "LabelSelector"},
	{"*elector.matchExpressions", "maxItems", 32, "LabelSelector"},
	{"*elector.matchExpressions[].key", "maxLength", qualifiedName, "LabelSelectorRequirement"},
	{"*elector.matchExpressions[].operator", "maxLength", shortWord, "LabelSelectorRequirement"},
	{"*elector.matchExpressions[].values", "maxItems", 256, "LabelSelectorRequirement"},
	{"*elector.matchExpressions[].values[]", "maxLength", dnsLabel, "LabelSelectorRequirement"},

	// autoscalingv2.MetricSpec and HorizontalPodAutoscalerBehavior
	{"metrics[].type", "maxLength", shortWord, "MetricSpec"},
	{"metrics[].*.target.type", "maxLength", shortWord, "MetricTarget"},
	{"metrics[].*.metric.name", "maxLength", metricName, "MetricIdentifier"},
	{"metrics[].containerResource.container", "maxLength", dnsLabel, "ContainerResourceMetricSource"},
	{"metrics[].*.name", "maxLength", qualifiedName, "ResourceMetricSource, ContainerResourceMetricSource"},
	{"metrics[].object.describedObject.apiVersion", "maxLength", qualifiedName, "CrossVersionObjectReference"},
	{"metrics[].object.describedObject.kind", "maxLength", dnsLabel, "CrossVersionObjectReference"},
	{"metrics[].object.describedObject.name", "maxLength", dnsSubdomain, "CrossVersionObjectReference"},
	{"behavior.*.policies", "maxItems", 16, "HPAScalingRules"},
	{"behavior.*.policies[].type", "maxLength", shortWord, "HPAScalingPolicy"},
	{"behavior.*.selectPolicy", "maxLength", shortWord, "HPAScalingRules"},

	// corev1.Toleration
	{"tolerations[].key", "maxLength", qualifiedName, "Toleration"},
	{"tolerations[].operator", "maxLength", shortWord, "Toleration"},
	{"tolerations[].value", "maxLength", dnsLabel, "Toleration"},
	{"tolerations[].effect", "maxLength", shortWord, "Toleration"},

	// The values of this module's maps (a marker on a map bounds the map, not its values).
	{"annotations{}", "maxLength", annotation, "annotations"},
	{"labels{}", "maxLength", dnsLabel, "labels"},
	{"nodeSelector{}", "maxLength", dnsLabel, "node labels"},
	{"selector{}", "maxLength", dnsLabel, "label selector"},
	{"inputHeaders{}", "maxLength", 8192, "HTTP header values"},
	{"gateParams{}", "maxLength", 1024, "gate parameters"},
	{"parameters{}", "maxLength", 4096, "transform parameters"},
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: crdbounds <crd.yaml>...")
		os.Exit(2)
	}
	used := make([]int, len(rules))
	for _, file := range os.Args[1:] {
		if err := boundFile(file, used); err != nil {
			fmt.Fprintf(os.Stderr, "crdbounds: %s: %v\n", file, err)
			os.Exit(1)
		}
	}
	failed := false
	for i, n := range used {
		if n == 0 {
			fmt.Fprintf(os.Stderr, "crdbounds: rule %q (%s) bounds no field of any CRD: remove it\n", rules[i].suffix, rules[i].of)
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}

// boundFile rewrites one CRD as controller-gen writes it ("---" and the object, keys sorted).
func boundFile(file string, used []int) error {
	raw, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var crd map[string]any
	if err := yaml.Unmarshal(raw, &crd); err != nil {
		return err
	}
	versions, _ := dig(crd, "spec", "versions").([]any)
	for _, v := range versions {
		spec, ok := dig(v, "schema", "openAPIV3Schema", "properties", "spec").(map[string]any)
		if !ok {
			continue
		}
		bound(spec, nil, used)
	}
	out, err := yaml.Marshal(crd)
	if err != nil {
		return err
	}
	out = append([]byte("---\n"), out...)
	if bytes.Equal(out, raw) {
		return nil
	}
	return os.WriteFile(file, out, 0o644)
}

// bound walks a schema; segments is the path below spec.
func bound(s map[string]any, segments []string, used []int) {
	keyword := ""
	switch {
	case s["type"] == "string" && s["enum"] == nil:
		keyword = "maxLength"
	case s["type"] == "array":
		keyword = "maxItems"
	case s["additionalProperties"] != nil && s["properties"] == nil:
		keyword = "maxProperties"
	}
	if keyword != "" && s[keyword] == nil {
		for i, r := range rules {
			if r.key == keyword && matches(segments, r.suffix) {
				s[keyword] = r.value
				used[i]++
				break
			}
		}
	}
	if props, ok := s["properties"].(map[string]any); ok {
		for name, p := range props {
			if ps, ok := p.(map[string]any); ok {
				bound(ps, append(segments[:len(segments):len(segments)], name), used)
			}
		}
	}
	if items, ok := s["items"].(map[string]any); ok && len(segments) > 0 {
		bound(items, withSuffix(segments, "[]"), used)
	}
	if values, ok := s["additionalProperties"].(map[string]any); ok && len(segments) > 0 {
		bound(values, withSuffix(segments, "{}"), used)
	}
}

// splitPath is the segments of a path as bound builds them (for tests).
func splitPath(p string) []string { return strings.Split(p, ".") }

func withSuffix(segments []string, suffix string) []string {
	out := append([]string(nil), segments...)
	out[len(out)-1] += suffix
	return out
}

// matches says whether the path's last segments match suffix's, segment by segment.
func matches(segments []string, suffix string) bool {
	want := strings.Split(suffix, ".")
	if len(want) > len(segments) {
		return false
	}
	got := segments[len(segments)-len(want):]
	for i := range want {
		if ok, err := path.Match(escape(want[i]), got[i]); err != nil || !ok {
			return false
		}
	}
	return true
}

// escape quotes the brackets of "[]" and "{}", which path.Match would read as a class.
func escape(pattern string) string {
	return strings.NewReplacer("[", `\[`, "]", `\]`).Replace(pattern)
}

func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}
