// Package docs checks the project's documentation as GitHub renders it: every relative link of
// README.md, ARCHITECTURE.md and docs/*.md names a file or folder of the repository, and every
// #anchor a heading of the page it points at. External links are not fetched (nothing leaves
// loopback); only their form is checked.
package docs

import (
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// Problem is one link that does not resolve, where it is written and why.
type Problem struct {
	File, Link, Reason string
}

func (p Problem) String() string { return fmt.Sprintf("%s: %s: %s", p.File, p.Link, p.Reason) }

// Page is what the checker reads from one Markdown file.
type Page struct {
	// Links are the destinations of its links and images, in order.
	Links []string
	// Anchors are the ids GitHub gives its headings, and those of its HTML `id`/`name` attributes.
	Anchors map[string]bool
}

// markdown parses CommonMark; GitHub's table extension is not needed: a table's cells are
// inline text, whose links parse the same inside a paragraph.
var markdown = parser.NewParser(
	parser.WithBlockParsers(parser.DefaultBlockParsers()...),
	parser.WithInlineParsers(parser.DefaultInlineParsers()...),
	parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
)

// htmlAnchor finds the ids that raw HTML in a page declares (<a name="x">, <div id="x">).
var htmlAnchor = regexp.MustCompile(`\b(?:id|name)\s*=\s*"([^"]+)"`)

// Parse reads one page's links and anchors.
func Parse(source []byte) Page {
	page := Page{Anchors: map[string]bool{}}
	seen := map[string]int{}
	doc := markdown.Parse(text.NewReader(source))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			slug := Slug(plainText(n, source))
			// GitHub numbers a repeated heading's id: x, x-1, x-2.
			id := slug
			if k := seen[slug]; k > 0 {
				id = fmt.Sprintf("%s-%d", slug, k)
			}
			seen[slug]++
			page.Anchors[id] = true
		case *ast.Link:
			page.Links = append(page.Links, string(n.Destination))
		case *ast.Image:
			page.Links = append(page.Links, string(n.Destination))
		case *ast.RawHTML:
			for i := 0; i < n.Segments.Len(); i++ {
				s := n.Segments.At(i)
				addHTMLAnchors(page.Anchors, s.Value(source))
			}
		case *ast.HTMLBlock:
			for i := 0; i < n.Lines().Len(); i++ {
				s := n.Lines().At(i)
				addHTMLAnchors(page.Anchors, s.Value(source))
			}
		}
		return ast.WalkContinue, nil
	})
	return page
}

func addHTMLAnchors(anchors map[string]bool, html []byte) {
	for _, m := range htmlAnchor.FindAllSubmatch(html, -1) {
		anchors[string(m[1])] = true
	}
}

// plainText is a heading's text as GitHub renders it: code spans, emphasis and link texts
// keep their text, the Markdown around them goes.
func plainText(n ast.Node, source []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Segment.Value(source))
		case *ast.String:
			b.Write(c.Value)
		case *ast.RawHTML:
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// Slug is the id GitHub gives a heading: lower case, every character that is not a letter, a
// digit, a mark, '-', '_' or a space dropped, and each space a '-' (so "A / B" is "a--b").
func Slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// lineAnchor is GitHub's anchor of a line or lines of a file that is not rendered as Markdown.
var lineAnchor = regexp.MustCompile(`^L\d+(-L\d+)?$`)

// Check reads each page (a path relative to root, with '/') and returns every link that does
// not resolve inside root.
func Check(root string, pages []string) ([]Problem, error) {
	parsed := map[string]Page{}
	load := func(rel string) (Page, error) {
		if p, ok := parsed[rel]; ok {
			return p, nil
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return Page{}, err
		}
		p := Parse(data)
		parsed[rel] = p
		return p, nil
	}
	var problems []Problem
	for _, file := range pages {
		page, err := load(file)
		if err != nil {
			return nil, err
		}
		for _, link := range page.Links {
			if reason := checkLink(root, file, link, load); reason != "" {
				problems = append(problems, Problem{File: file, Link: link, Reason: reason})
			}
		}
	}
	return problems, nil
}

// checkLink says why one link of file does not resolve, or "" when it does.
func checkLink(root, file, link string, load func(string) (Page, error)) string {
	if link == "" {
		return "empty link"
	}
	u, err := url.Parse(link)
	if err != nil {
		return "not a URL: " + err.Error()
	}
	if u.Scheme != "" {
		switch u.Scheme {
		case "http", "https":
			if u.Host == "" {
				return "a web link without a host"
			}
		case "mailto":
		default:
			return "scheme " + u.Scheme + " is neither http(s) nor mailto"
		}
		return ""
	}
	if u.Host != "" {
		return "a link with a host but no scheme"
	}
	target := file
	if u.Path != "" {
		if strings.HasPrefix(u.Path, "/") {
			// GitHub resolves a leading slash from the repository's root.
			target = path.Clean(strings.TrimPrefix(u.Path, "/"))
		} else {
			target = path.Clean(path.Join(path.Dir(file), u.Path))
		}
		if target == ".." || strings.HasPrefix(target, "../") {
			return "leaves the repository"
		}
	}
	info, err := os.Stat(filepath.Join(root, filepath.FromSlash(target)))
	if err != nil {
		return "no such file or folder: " + target
	}
	if u.Fragment == "" {
		return ""
	}
	if info.IsDir() {
		// A folder shows its README below the listing, with that README's anchors.
		target = path.Join(target, "README.md")
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(target))); err != nil {
			return "an anchor on a folder without README.md"
		}
	}
	if !strings.HasSuffix(strings.ToLower(target), ".md") {
		if lineAnchor.MatchString(u.Fragment) {
			return ""
		}
		return fmt.Sprintf("anchor #%s on %s, which is not Markdown (only #L<n> anchors work there)", u.Fragment, target)
	}
	page, err := load(target)
	if err != nil {
		return err.Error()
	}
	if !page.Anchors[u.Fragment] {
		return fmt.Sprintf("%s has no heading whose anchor is #%s", target, u.Fragment)
	}
	return ""
}
