// Command charts draws the bench's results as SVG charts (make bench-charts IN="..." OUT=dir):
//
//	go run ./test/bench/charts -out DIR FILE.json...
//
// Each FILE is a result of make bench or make bench-scale (bench-*.json) or of make
// bench-anchors (anchors-*.json). A bench result with scenario 8's two steps becomes
// <its name>.svg, the growth from the smaller step to the larger; the anchors tables together
// become anchors.svg, each workload from the newest table that has it. Nothing else is read and
// nothing is fetched.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/llm-infra/llm-infra-operator/test/bench/internal/report"
)

func main() {
	out := flag.String("out", "", "the folder the charts are written to")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: charts -out DIR FILE.json...   (make bench-charts IN=\"_output/bench/bench-....json _output/bench/anchors-....json\" OUT=dir)")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *out == "" || flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	written, err := render(*out, flag.Args())
	for _, w := range written {
		fmt.Println(w)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// render draws every chart the files make into dir and returns the files it wrote.
func render(dir string, files []string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var written []string
	write := func(name, content string) error {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
		written = append(written, p)
		return nil
	}
	var tables []*report.AnchorTable
	for _, f := range files {
		kind, err := kindOf(f)
		if err != nil {
			return written, err
		}
		switch kind {
		case "anchors":
			t, err := report.LoadAnchorTable(f)
			if err != nil {
				return written, err
			}
			tables = append(tables, t)
		case "bench":
			r, err := report.Load(f)
			if err != nil {
				return written, err
			}
			chart, err := growthChart(r)
			if err != nil {
				return written, fmt.Errorf("%s: %w", f, err)
			}
			if err := write(strings.TrimSuffix(filepath.Base(f), ".json")+".svg", chart); err != nil {
				return written, err
			}
		}
	}
	if len(tables) > 0 {
		chart, err := anchorsChart(tables)
		if err != nil {
			return written, err
		}
		if err := write("anchors.svg", chart); err != nil {
			return written, err
		}
	}
	return written, nil
}

// kindOf tells a bench result (its metrics) from an anchors table (its rows).
func kindOf(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	switch {
	case top["rows"] != nil:
		return "anchors", nil
	case top["metrics"] != nil:
		return "bench", nil
	}
	return "", fmt.Errorf("%s: neither a bench result (metrics) nor an anchors table (rows)", path)
}
