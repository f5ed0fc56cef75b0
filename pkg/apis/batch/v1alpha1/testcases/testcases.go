// Package testcases is the table of LLMBatchGateway admission cases: objects the API server must
// accept and objects it must reject, each with the errors it must return. The API package's unit
// tests run every case through the API server's own validators (and the cross-field cases
// through LLMBatchGateway.ValidateSpec); an e2e suite can create them on a real API server
// (server-side dry run) and expect the same errors. It is data: it imports nothing that
// validates.
package testcases

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"
)

// Case is one object and what the API server says about it.
type Case struct {
	Name string
	// Base is the object the case starts from, as YAML: BaseSync, BaseAsync or a golden CR.
	Base string
	// Patch is a JSON merge patch (RFC 7386), written as YAML, applied to Base: a map merges
	// into the base, null removes a field, anything else replaces it.
	Patch string
	// Errors are substrings of the errors the API server must return, one substring per error
	// (field path, type and message); no errors means the object is accepted.
	Errors []string
}

// Object returns the case's object: Base with Patch applied.
func (c Case) Object() (map[string]any, error) {
	base, err := yaml.YAMLToJSON([]byte(c.Base))
	if err != nil {
		return nil, fmt.Errorf("%s: base: %w", c.Name, err)
	}
	if strings.TrimSpace(c.Patch) != "" {
		patch, err := yaml.YAMLToJSON([]byte(c.Patch))
		if err != nil {
			return nil, fmt.Errorf("%s: patch: %w", c.Name, err)
		}
		if base, err = jsonpatch.MergePatch(base, patch); err != nil {
			return nil, fmt.Errorf("%s: %w", c.Name, err)
		}
	}
	// Integral numbers become int64, as the API server decodes them.
	obj := map[string]any{}
	if err := utiljson.Unmarshal(base, &obj); err != nil {
		return nil, fmt.Errorf("%s: %w", c.Name, err)
	}
	return obj, nil
}

// BaseSync is the smallest object that runs a gateway in sync mode: S3 storage and one endpoint
// for every model.
const BaseSync = `
apiVersion: batch.llm-d.ai/v1alpha1
kind: LLMBatchGateway
metadata:
  name: gw
  namespace: llm
spec:
  secretRef: {name: batch-gateway-secrets}
  fileStorage:
    s3: {bucket: llm-d-batch-gateway, endpoint: "https://s3.example.com"}
  apiServer: {}
  processor:
    globalInferenceGateway: {url: "http://inference-gateway.llm.svc:8000"}
  gc: {}
`

// BaseAsync is the smallest object that runs a gateway in async mode: one model on one
// InferencePool, and the async-processor's queue for that pool.
const BaseAsync = `
apiVersion: batch.llm-d.ai/v1alpha1
kind: LLMBatchGateway
metadata:
  name: gw
  namespace: llm
spec:
  secretRef: {name: batch-gateway-secrets}
  fileStorage:
    fs: {claimName: batch-gateway-files}
  apiServer: {}
  processor:
    dispatchMode: async
    modelGateways:
      llama-3: {inferencePoolName: llama-pool}
    asyncConfig:
      redis:
        queuesConfig:
        - {name: "llm-d-async:requests:llama-pool", igwBaseURL: "http://llama-epp.llm.svc:8000"}
  gc: {}
`

// RulesNotChecked is the API server's error when schema errors keep it from running the CEL
// rules.
const RulesNotChecked = "some validation rules were not checked because the object was invalid"

// Golden returns one case per <dir>/<case>/cr.yaml (the upstream operator's golden CRs, in
// test/golden/batch-gateway), each to be accepted unchanged.
func Golden(dir string) ([]Case, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*", "cr.yaml"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no */cr.yaml under %s", dir)
	}
	sort.Strings(files)
	var cases []Case
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		cases = append(cases, Case{Name: "golden " + filepath.Base(filepath.Dir(f)), Base: string(raw)})
	}
	return cases, nil
}

// long is a string of n characters.
func long(n int) string { return strings.Repeat("a", n) }

// longURL is a URL of n characters.
func longURL(n int) string { return "http://" + long(n-len("http://")) }

// models is a modelGateways map of n models, each on its own pool, as YAML (BaseAsync has one
// more).
func models(n int) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "model-%d: {inferencePoolName: pool-%d}", i, i)
	}
	b.WriteString("}")
	return b.String()
}

// items is a YAML list of n copies of item.
func items(n int, item string) string {
	return "[" + strings.TrimSuffix(strings.Repeat(item+", ", n), ", ") + "]"
}

// Error texts, as field.Error prints them.
func required(path, message string) string  { return path + ": Required value: " + message }
func forbidden(path, message string) string { return path + ": Forbidden: " + message }
func invalid(path, message string) string   { return path + ": Invalid value: " + message }

// Schema error texts of the API server's OpenAPI validator.
func unsupported(path, value string) string {
	return fmt.Sprintf("%s: Unsupported value: %q", path, value)
}
func pattern(path, value, pattern string) string {
	return fmt.Sprintf("%s: Invalid value: %q: %s in body should match '%s'", path, value, path, pattern)
}
func tooLong(path string, n int) string {
	return fmt.Sprintf("%s: Too long: may not be more than %d bytes", path, n)
}
func minimum(path string, value, min int) string {
	return fmt.Sprintf("%s: Invalid value: %d: %s in body should be greater than or equal to %d", path, value, path, min)
}
func maximum(path string, value, max int) string {
	return fmt.Sprintf("%s: Invalid value: %d: %s in body should be less than or equal to %d", path, value, path, max)
}
func missing(path string) string { return path + ": Required value" }

const (
	durationPattern = `^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`
	urlPattern      = `^https?://.+$`
)
