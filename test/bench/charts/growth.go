package main

import (
	"fmt"
	"math"

	"github.com/llm-infra/llm-infra-operator/test/bench/internal/report"
)

// growthSeries is one measure at the two steps of scenario 8.
type growthSeries struct {
	measure      report.GrowthMeasure
	small, large float64
}

// growthPanel is the measures that share an axis.
type growthPanel struct {
	title  string
	series []growthSeries
}

// growthPanels collects, in report.GrowthMeasures' order, every measure both steps have.
func growthPanels(r *report.Result, small, large int) []growthPanel {
	var panels []growthPanel
	index := map[string]int{}
	for _, m := range report.GrowthMeasures {
		a := r.Find(report.PlatformStepScenario(small) + "/" + m.Name)
		b := r.Find(report.PlatformStepScenario(large) + "/" + m.Name)
		if a == nil || b == nil || len(a.Samples) == 0 || len(b.Samples) == 0 {
			continue
		}
		i, ok := index[m.Panel]
		if !ok {
			i = len(panels)
			index[m.Panel] = i
			panels = append(panels, growthPanel{title: m.Panel})
		}
		panels[i].series = append(panels[i].series, growthSeries{measure: m, small: a.Median, large: b.Median})
	}
	return panels
}

// growthChart draws scenario 8's growth from its smaller step to its larger one: one panel per
// axis, each measure a solid line between the two steps and a dashed one that grows as the CRs
// do, so a line under its dashed twin grows less than the CRs.
func growthChart(r *report.Result) (string, error) {
	steps := r.PlatformSteps()
	if len(steps) < 2 {
		return "", fmt.Errorf("commit %s: scenario 8 (make bench-scale) with two steps is needed for a growth chart, found steps %v", short(r.Commit), steps)
	}
	small, large := steps[0], steps[len(steps)-1]
	panels := growthPanels(r, small, large)
	if len(panels) == 0 {
		return "", fmt.Errorf("commit %s: no growth measure at both steps %d and %d", short(r.Commit), small, large)
	}
	const (
		width  = 960.0
		cols   = 2
		panelW = 450.0
		panelH = 270.0
		gap    = 20.0
	)
	notes := wrap(r.Settings["note"], 150)
	headerH := 70 + 14*float64(len(notes))
	rows := (len(panels) + cols - 1) / cols
	s := newSVG(width, headerH+float64(rows)*(panelH+gap))
	ratio := float64(large) / float64(small)
	s.text(20, 28, fmt.Sprintf("Growth from %s to %s CRs of each gateway (make bench-scale, scenario 8)", count(small), count(large)), `font-size="17" font-weight="bold"`)
	s.text(20, 48, fmt.Sprintf("commit %s, started %s. Solid: measured. Dashed: growing as the CRs do (x%s); a solid line below it grows less than the CRs.",
		short(r.Commit), r.Started.UTC().Format("2006-01-02 15:04 UTC"), figure(ratio)), `font-size="12" fill="#333333"`)
	for i, note := range notes {
		s.text(20, 66+14*float64(i), note, `font-size="11" fill="#666666"`)
	}
	for i, p := range panels {
		x0 := 20 + float64(i%cols)*(panelW+gap)
		y0 := headerH + float64(i/cols)*(panelH+gap)
		drawGrowthPanel(s, p, x0, y0, panelW, panelH, small, large)
	}
	return s.String(), nil
}

func drawGrowthPanel(s *svg, p growthPanel, x0, y0, w, h float64, small, large int) {
	s.rect(x0, y0, w, h, `fill="#fafafa" stroke="#dddddd"`)
	s.text(x0+10, y0+20, p.title, `font-size="13" font-weight="bold"`)
	ratio := float64(large) / float64(small)
	top := 0.0
	for i, ser := range p.series {
		color := palette[i%len(palette)]
		y := y0 + 38 + float64(i)*15
		s.rect(x0+10, y-9, 10, 10, fmt.Sprintf(`fill="%s"`, color))
		growth := ser.large / ser.small
		var legend string
		if ser.measure.PerCR {
			legend = fmt.Sprintf("%s: %s at %s, %s at %s; per CR x%s", ser.measure.Label, figure(ser.small), count(small), figure(ser.large), count(large), ratioText(growth/ratio))
		} else {
			legend = fmt.Sprintf("%s: %s at %s, %s at %s; x%s", ser.measure.Label, figure(ser.small), count(small), figure(ser.large), count(large), ratioText(growth))
		}
		s.text(x0+26, y, legend, `font-size="11"`)
		top = max(top, ser.small, ser.large, ser.small*ratio)
	}
	left, right := x0+58, x0+w-18
	plotTop := y0 + 38 + float64(len(p.series))*15 + 4
	bottom := y0 + h - 34
	yMax, step := axis(top)
	xOf := func(n float64) float64 { return left + (right-left)*n/float64(large) }
	yOf := func(v float64) float64 { return bottom - (bottom-plotTop)*v/yMax }
	// Grid and axes.
	for v := 0.0; v <= yMax*(1+1e-9); v += step {
		y := yOf(v)
		s.line(left, y, right, y, `stroke="#e3e3e3"`)
		s.text(left-6, y+4, figure(v), `font-size="10" text-anchor="end" fill="#555555"`)
	}
	s.line(left, bottom, right, bottom, `stroke="#888888"`)
	s.line(left, plotTop, left, bottom, `stroke="#888888"`)
	for _, n := range []int{0, small, large} {
		x := xOf(float64(n))
		s.line(x, bottom, x, bottom+4, `stroke="#888888"`)
		s.text(x, bottom+16, count(n), `font-size="10" text-anchor="middle" fill="#555555"`)
	}
	s.text((left+right)/2, bottom+29, "CRs of each gateway", `font-size="10" text-anchor="middle" fill="#555555"`)
	for i, ser := range p.series {
		color := palette[i%len(palette)]
		xs, xl := xOf(float64(small)), xOf(float64(large))
		s.line(xs, yOf(ser.small), xl, yOf(ser.small*ratio), fmt.Sprintf(`stroke="%s" stroke-width="1.5" stroke-dasharray="5 4" opacity="0.55"`, color))
		s.line(xs, yOf(ser.small), xl, yOf(ser.large), fmt.Sprintf(`stroke="%s" stroke-width="2.5"`, color))
		s.circle(xs, yOf(ser.small), 3.5, fmt.Sprintf(`fill="%s"`, color))
		s.circle(xl, yOf(ser.large), 3.5, fmt.Sprintf(`fill="%s"`, color))
	}
}

// count prints a number of CRs with thousands separated.
func count(n int) string { return thousands(fmt.Sprint(n)) }

// ratioText prints a ratio with two decimals, "-" when there is none (from 0).
func ratioText(r float64) string {
	if math.IsNaN(r) || math.IsInf(r, 0) {
		return "-"
	}
	return fmt.Sprintf("%.2f", r)
}
