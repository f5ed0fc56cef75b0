package main

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// svg writes a plain SVG document: shapes and text in user units (pixels), nothing else, so a
// chart reads the same in a browser, on GitHub and through any converter.
type svg struct {
	b             strings.Builder
	width, height float64
}

func newSVG(width, height float64) *svg {
	s := &svg{width: width, height: height}
	fmt.Fprintf(&s.b, `<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" font-family="DejaVu Sans, Verdana, Arial, sans-serif" font-size="12">`+"\n",
		num(width), num(height), num(width), num(height))
	s.rect(0, 0, width, height, `fill="#ffffff"`)
	return s
}

func (s *svg) String() string { return s.b.String() + "</svg>\n" }

func (s *svg) rect(x, y, w, h float64, attrs string) {
	fmt.Fprintf(&s.b, `<rect x="%s" y="%s" width="%s" height="%s" %s/>`+"\n", num(x), num(y), num(w), num(h), attrs)
}

func (s *svg) line(x1, y1, x2, y2 float64, attrs string) {
	fmt.Fprintf(&s.b, `<line x1="%s" y1="%s" x2="%s" y2="%s" %s/>`+"\n", num(x1), num(y1), num(x2), num(y2), attrs)
}

func (s *svg) circle(x, y, r float64, attrs string) {
	fmt.Fprintf(&s.b, `<circle cx="%s" cy="%s" r="%s" %s/>`+"\n", num(x), num(y), num(r), attrs)
}

// text writes t at (x, y), its baseline; attrs may set anchor, weight, size, fill.
func (s *svg) text(x, y float64, t, attrs string) {
	fmt.Fprintf(&s.b, `<text x="%s" y="%s" %s>%s</text>`+"\n", num(x), num(y), attrs, html.EscapeString(t))
}

// num prints a coordinate with at most one decimal, so the output is stable and small.
func num(v float64) string {
	r := math.Round(v*10) / 10
	if r == math.Trunc(r) {
		return fmt.Sprintf("%.0f", r)
	}
	return fmt.Sprintf("%.1f", r)
}

// axis is a y axis for values up to top: its maximum and its step, both round numbers, four
// or five steps.
func axis(top float64) (yMax, step float64) {
	step = niceCeil(top / 4)
	return step * math.Ceil(top/step*(1-1e-9)), step
}

// wrap splits a text into lines of at most width characters, at spaces.
func wrap(t string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(t) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// niceCeil is the smallest of 1, 2, 2.5, 5 times a power of ten that is at least v (v > 0).
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, f := range []float64{1, 2, 2.5, 5, 10} {
		if f*p >= v*(1-1e-9) {
			return f * p
		}
	}
	return 10 * p
}

// figure prints a value as a person reads it: thousands separated, a precision that suits its
// size.
func figure(v float64) string {
	switch {
	case math.IsNaN(v):
		return "n/a"
	case math.Abs(v) >= 1000:
		return thousands(fmt.Sprintf("%.0f", v))
	case math.Abs(v) >= 100 || v == math.Trunc(v):
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}

func thousands(digits string) string {
	sign := ""
	if strings.HasPrefix(digits, "-") {
		sign, digits = "-", digits[1:]
	}
	var b strings.Builder
	for i, c := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return sign + b.String()
}

// palette are the series' colours, distinguishable in colour and in grey.
var palette = []string{"#1f5fa8", "#d9730d", "#2e8b57", "#8e44ad"}

func short(commit string) string {
	if len(commit) > 7 {
		return commit[:7]
	}
	return commit
}
