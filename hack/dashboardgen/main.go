// Command dashboardgen writes a chart's Grafana dashboards ConfigMap from upstream's dashboards,
// kept byte for byte as upstream's chart ships them, and this project's additions, each a
// dashboard of its own under its own uid (-chart):
//   - batch-gateway: bindata/assets/batchgateway/dashboards-configmap.yaml, from
//     charts/batch-gateway/dashboards/*.json of github.com/opendatahub-io/batch-gateway and
//     hack/dashboards/batch-gateway/*.json;
//   - async-processor: bindata/assets/batchgateway/async-processor-dashboards-configmap.yaml,
//     from charts/async-processor/dashboards/*.json of github.com/llm-d/llm-d-async and
//     hack/dashboards/async-processor/*.json.
//
// It is run by hack/generate-dashboards.sh; do not run it by hand.
//
// The ConfigMap is upstream's (its name and its grafana_dashboard label) with the operator's
// label set; its data keys are the files' names. Upstream's dashboards select the namespace
// with a Grafana variable, so they hold no placeholder and every instance's ConfigMap holds the
// same dashboards under the same uids, as upstream's releases do. The generator refuses a
// dashboard without a uid, two dashboards of one uid or of one file name, an addition that takes
// an upstream uid, and any dashboard that contains "${" (the engine's placeholder syntax), and
// checks that the YAML it writes reads back to exactly the files' bytes.
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// chart is what differs between the charts' ConfigMaps: upstream's name (in the engine's
// placeholders), the operator's name and component labels, and what the header says.
type chart struct {
	name, nameLabel, component, rendered, dashboardsDir, additionsDir string
}

var charts = map[string]chart{
	"batch-gateway": {
		name: "${INSTANCE}-batch-gateway-dashboards", nameLabel: "batch-gateway", component: "monitoring",
		rendered:      "when spec.grafana.enabled: the Grafana dashboards of the batch components",
		dashboardsDir: "charts/batch-gateway/dashboards", additionsDir: "hack/dashboards/batch-gateway",
	},
	"async-processor": {
		name: "${ASYNC_PROCESSOR_NAME}-dashboards", nameLabel: "async-processor", component: "async-processor",
		rendered:      "in async dispatch mode when spec.grafana.enabled: the async processor's dashboards",
		dashboardsDir: "charts/async-processor/dashboards", additionsDir: "hack/dashboards/async-processor",
	},
}

// dashboard is one JSON file of the ConfigMap.
type dashboard struct {
	file, uid, title string
	data             []byte
	upstream         bool
}

func main() {
	chartName := flag.String("chart", "", "batch-gateway or async-processor")
	upstreamDir := flag.String("upstream", "", "upstream's chart's dashboards folder")
	upstreamRepo := flag.String("upstream-repository", "", "upstream's repository, for the header")
	upstreamCommit := flag.String("upstream-commit", "", "upstream's commit, for the header")
	additionsDir := flag.String("additions", "", "this project's additional dashboards folder")
	out := flag.String("out", "", "the ConfigMap manifest to write")
	flag.Parse()
	c, known := charts[*chartName]
	if !known || *upstreamDir == "" || *additionsDir == "" || *out == "" || *upstreamCommit == "" || *upstreamRepo == "" {
		fail("usage: dashboardgen -chart batch-gateway|async-processor -upstream DIR -upstream-repository URL -upstream-commit SHA -additions DIR -out FILE")
	}
	upstream, err := read(*upstreamDir, true)
	if err != nil {
		fail(err.Error())
	}
	additions, err := read(*additionsDir, false)
	if err != nil {
		fail(err.Error())
	}
	all := append(upstream, additions...)
	if err := check(all); err != nil {
		fail(err.Error())
	}
	manifest := render(c, all, *upstreamRepo, *upstreamCommit)
	if err := readsBack(manifest, all); err != nil {
		fail(err.Error())
	}
	if err := os.WriteFile(*out, manifest, 0o644); err != nil {
		fail(err.Error())
	}
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "dashboardgen:", msg)
	os.Exit(1)
}

// read reads every *.json of dir, sorted by name.
func read(dir string, upstream bool) ([]dashboard, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s holds no dashboard", dir)
	}
	sort.Strings(files)
	var out []dashboard
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var meta struct {
			UID   string `json:"uid"`
			Title string `json:"title"`
		}
		if err := json.Unmarshal(data, &meta); err != nil {
			return nil, fmt.Errorf("%s: %v", f, err)
		}
		out = append(out, dashboard{file: filepath.Base(f), uid: meta.UID, title: meta.Title, data: data, upstream: upstream})
	}
	return out, nil
}

func check(all []dashboard) error {
	uids, files := map[string]dashboard{}, map[string]bool{}
	for _, d := range all {
		if d.uid == "" || d.title == "" {
			return fmt.Errorf("%s: a dashboard needs a uid and a title", d.file)
		}
		if other, ok := uids[d.uid]; ok {
			return fmt.Errorf("%s and %s share the uid %q (upstream's: %v): an addition takes a uid of its own", other.file, d.file, d.uid, other.upstream)
		}
		if files[d.file] {
			return fmt.Errorf("two dashboards are named %s", d.file)
		}
		if bytes.Contains(d.data, []byte("${")) {
			return fmt.Errorf("%s contains \"${\", which the operator would take for a placeholder", d.file)
		}
		uids[d.uid], files[d.file] = d, true
	}
	return nil
}

func render(c chart, all []dashboard, repo, commit string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `# GENERATED by hack/generate-dashboards.sh: do not edit.
# Rendered %s,
# loaded by the Grafana sidecar (label grafana_dashboard). Upstream's dashboards are kept as its
# chart ships them, byte for byte, from %s of
#   %s at %s;
# this project's additions are dashboards of their own (%s), under their own uids.
# Every query is checked against the metrics the operand's programs export
# (pkg/operator/operands/batchgateway/dashboards_test.go).
#
`, c.rendered, c.dashboardsDir, repo, commit, c.additionsDir)
	for _, d := range all {
		from := "addition"
		if d.upstream {
			from = "upstream"
		}
		fmt.Fprintf(&b, "#   %-28s %-8s uid %-32s sha256 %x\n", d.file, from, d.uid, sha256.Sum256(d.data))
	}
	b.WriteString(`apiVersion: v1
kind: ConfigMap
metadata:
  name: ` + c.name + `
  namespace: ${NAMESPACE}
  labels:
    app.kubernetes.io/name: ` + c.nameLabel + `
    app.kubernetes.io/instance: ${INSTANCE}
    app.kubernetes.io/component: ` + c.component + `
    app.kubernetes.io/part-of: llm-batch-gateway
    grafana_dashboard: "1"
data:
`)
	for _, d := range all {
		fmt.Fprintf(&b, "  %s: |%s\n", d.file, chomping(d.data))
		text := strings.TrimRight(string(d.data), "\n")
		for _, line := range strings.Split(text, "\n") {
			if line == "" {
				b.WriteString("\n")
				continue
			}
			b.WriteString("    " + line + "\n")
		}
	}
	return b.Bytes()
}

// chomping is the block scalar's chomping indicator that keeps data's trailing newlines as they
// are: "-" for none, "" for one, "+" for more.
func chomping(data []byte) string {
	n := len(data) - len(bytes.TrimRight(data, "\n"))
	switch {
	case n == 0:
		return "-"
	case n == 1:
		return ""
	default:
		return "+"
	}
}

// readsBack checks that the manifest is a ConfigMap whose data is exactly the files.
func readsBack(manifest []byte, all []dashboard) error {
	var cm corev1.ConfigMap
	if err := yaml.UnmarshalStrict(manifest, &cm); err != nil {
		return fmt.Errorf("the generated manifest does not read back: %v", err)
	}
	if len(cm.Data) != len(all) {
		return fmt.Errorf("the generated manifest holds %d dashboards, want %d", len(cm.Data), len(all))
	}
	for _, d := range all {
		if cm.Data[d.file] != string(d.data) {
			return fmt.Errorf("%s does not read back byte for byte from the generated manifest", d.file)
		}
	}
	return nil
}
