package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/llm-infra/llm-infra-operator/test/bench/internal/report"
)

// anchorChartMeasures are the measures the anchors chart shows, in its order: every one is a
// cost, so below 1 (ours under the anchor's) is better. Measures a workload lacks are left out.
var anchorChartMeasures = []string{report.AnchorTime, report.AnchorCPU, report.AnchorWrites, report.AnchorReads,
	report.AnchorConflicts, report.AnchorResyncWrites, report.AnchorDrift, report.AnchorRSSBefore,
	report.AnchorRSSConverged, report.AnchorRSSPeak, report.AnchorAnonConverged}

// anchorWorkload is one workload's rows, from the newest table that has it.
type anchorWorkload struct {
	id    string
	table *report.AnchorTable
	rows  []report.AnchorRow
}

// latestWorkloads picks, for each workload of any table, its rows in the newest table (by
// start) that has it, ordered as lws, batch-N, gateway-N by size.
func latestWorkloads(tables []*report.AnchorTable) []anchorWorkload {
	newest := map[string]*report.AnchorTable{}
	for _, t := range tables {
		for _, row := range t.Rows {
			if n := newest[row.Workload]; n == nil || t.Started.After(n.Started) {
				newest[row.Workload] = t
			}
		}
	}
	out := make([]anchorWorkload, 0, len(newest))
	for id, t := range newest {
		w := anchorWorkload{id: id, table: t}
		for _, row := range t.Rows {
			if row.Workload == id {
				w.rows = append(w.rows, row)
			}
		}
		out = append(out, w)
	}
	sort.Slice(out, func(i, j int) bool { return workloadLess(out[i].id, out[j].id) })
	return out
}

// workloadLess orders lws first, then each kind by size (batch-100 before batch-500).
func workloadLess(a, b string) bool {
	ka, na := splitWorkload(a)
	kb, nb := splitWorkload(b)
	if ka != kb {
		rank := map[string]int{"lws": 0, "batch": 1, "gateway": 2}
		ra, oka := rank[ka]
		rb, okb := rank[kb]
		if oka && okb {
			return ra < rb
		}
		return ka < kb
	}
	return na < nb
}

func splitWorkload(id string) (string, int) {
	kind, size, _ := strings.Cut(id, "-")
	n := 0
	fmt.Sscan(size, &n)
	return kind, n
}

// anchorsChart draws ours/anchor for each workload: a bar per measure, the anchor at 1.
func anchorsChart(tables []*report.AnchorTable) (string, error) {
	workloads := latestWorkloads(tables)
	type line struct {
		measure string
		row     report.AnchorRow
	}
	panels := make([][]line, len(workloads))
	for i, w := range workloads {
		for _, m := range anchorChartMeasures {
			for _, row := range w.rows {
				if row.Measure == m && row.Anchor != nil && row.Ours != nil {
					panels[i] = append(panels[i], line{m, row})
				}
			}
		}
	}
	const (
		width    = 960.0
		labelW   = 318.0
		barW     = 330.0
		rowH     = 21.0
		headH    = 30.0
		gap      = 16.0
		axisMax  = 3.0
		barLeft  = 20 + labelW
		barRight = barLeft + barW
	)
	// The anchors' pins and the tables' notes, each once.
	var pins, sources []string
	seen := map[string]bool{}
	for _, t := range tables {
		for name, commit := range t.Anchors {
			if pin := name + " " + short(commit); !seen[pin] {
				seen[pin] = true
				pins = append(pins, pin)
			}
		}
		if n := t.Settings["note"]; n != "" && !seen[n] {
			seen[n] = true
			sources = append(sources, n)
		}
	}
	sort.Strings(pins)
	notes := wrap(strings.Join(sources, " "), 150)
	headerH := 78 + 14*float64(len(notes))
	height := headerH
	for _, p := range panels {
		if len(p) > 0 {
			height += headH + float64(len(p))*rowH + 26 + gap
		}
	}
	if height == headerH {
		return "", fmt.Errorf("no workload with a measure on both sides")
	}
	s := newSVG(width, height)
	s.text(20, 28, "This operator against the upstream operators it replaces (make bench-anchors)", `font-size="17" font-weight="bold"`)
	s.text(20, 48, "Each bar is ours / the anchor's, on the same workload, one side after the other; every measure is a cost, so left of the line at 1 is better.", `font-size="12" fill="#333333"`)
	s.text(20, 66, "anchors: "+strings.Join(pins, ", "), `font-size="11" fill="#666666"`)
	for i, l := range notes {
		s.text(20, 82+14*float64(i), l, `font-size="11" fill="#666666"`)
	}
	y := headerH
	for i, w := range workloads {
		p := panels[i]
		if len(p) == 0 {
			continue
		}
		panelH := headH + float64(len(p))*rowH + 26
		s.rect(14, y, width-28, panelH, `fill="#fafafa" stroke="#dddddd"`)
		s.text(24, y+20, fmt.Sprintf("%s   (commit %s, %s)", w.id, short(w.table.Commit), w.table.Started.UTC().Format("2006-01-02 15:04 UTC")), `font-size="13" font-weight="bold"`)
		top := y + headH
		bottom := top + float64(len(p))*rowH
		xOf := func(r float64) float64 { return barLeft + barW*min(r, axisMax)/axisMax }
		for k := 0; k <= int(axisMax*2); k++ {
			r := float64(k) / 2
			x := xOf(r)
			s.line(x, top-4, x, bottom, `stroke="#e3e3e3"`)
			label := strings.TrimSuffix(fmt.Sprintf("%.1f", r), ".0")
			if k == 2 {
				label = "1 = anchor"
			}
			s.text(x, bottom+14, label, `font-size="10" text-anchor="middle" fill="#555555"`)
		}
		for j, l := range p {
			ry := top + float64(j)*rowH
			s.text(barLeft-8, ry+14, l.measure, `font-size="11" text-anchor="end"`)
			anchor, ours := *l.row.Anchor, *l.row.Ours
			detail := fmt.Sprintf("ours %s, anchor %s", figure(ours), figure(anchor))
			switch {
			case anchor == 0 && ours == 0:
				s.text(barLeft+4, ry+14, "both 0", `font-size="11" fill="#777777"`)
				continue
			case anchor == 0:
				s.text(barLeft+4, ry+14, "anchor 0, ours "+figure(ours), `font-size="11" fill="#b03a2e"`)
				continue
			}
			r := ours / anchor
			color := "#2e8b57"
			if r > 1.005 {
				color = "#c0392b"
			} else if r >= 0.995 {
				color = "#7f8c8d"
			}
			// A ratio of 0 still shows a sliver, so a row never looks empty.
			s.rect(barLeft, ry+4, max(xOf(r)-barLeft, 2), rowH-8, fmt.Sprintf(`fill="%s"`, color))
			label := fmt.Sprintf("%.2f  (%s)", r, detail)
			if r > axisMax {
				label = fmt.Sprintf("%.2f, beyond the axis  (%s)", r, detail)
			}
			s.text(barRight+10, ry+14, label, `font-size="11"`)
		}
		x1 := xOf(1)
		s.line(x1, top-4, x1, bottom+2, `stroke="#222222" stroke-width="1.5"`)
		y += panelH + gap
	}
	return s.String(), nil
}
