package docs

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// root is the repository, from this package's folder.
const root = "../.."

// documentation lists the pages whose links are checked: README.md, ARCHITECTURE.md and every
// page of docs/ (a glob, so a new page is covered).
func documentation(t *testing.T) []string {
	t.Helper()
	pages := []string{"README.md", "ARCHITECTURE.md"}
	matches, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(matches) == 0 {
		t.Fatal("docs/ has no page")
	}
	for _, m := range matches {
		rel, err := filepath.Rel(root, m)
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, filepath.ToSlash(rel))
	}
	return pages
}

// TestDocumentationLinksResolve: every relative link and anchor of the documentation resolves.
func TestDocumentationLinksResolve(t *testing.T) {
	pages := documentation(t)
	problems, err := Check(root, pages)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
	// The check must have something to check: README links to every page of docs/.
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	links := Parse(readme).Links
	for _, page := range pages {
		if strings.HasPrefix(page, "docs/") && page != "docs/README.md" && !slices.Contains(links, page) {
			t.Errorf("README.md does not link to %s", page)
		}
	}
}

func TestSlug(t *testing.T) {
	for _, c := range []struct{ heading, want string }{
		{"Two commands", "two-commands"},
		{"Install on OpenShift (OperatorHub / OLM)", "install-on-openshift-operatorhub--olm"},
		{"Switching from openshift/lws-operator", "switching-from-openshiftlws-operator"},
		{"The engine (pkg/operator/engine)", "the-engine-pkgoperatorengine"},
		{"Agent, Orchestrator and GPU", "agent-orchestrator-and-gpu"},
		{"make bench: 200 to 1,000 (5fc4c8b, 2026-12-05)", "make-bench-200-to-1000-5fc4c8b-2026-12-05"},
		{"snake_case stays", "snake_case-stays"},
		{"Größe", "größe"},
	} {
		if got := Slug(c.heading); got != c.want {
			t.Errorf("Slug(%q) = %q, want %q", c.heading, got, c.want)
		}
	}
}

func TestParse(t *testing.T) {
	page := Parse([]byte("# The engine (`pkg/operator/engine`)\n\n## Again\n\n## Again\n\n" +
		"A [link](a.md#x), an ![image](i.svg), a [ref][r].\n\n" +
		"```md\n# not a heading\n[not a link](nowhere.md)\n```\n\n" +
		"| a | b |\n|---|---|\n| [in a table](t.md) | `[code](c.md)` |\n\n" +
		"<a name=\"custom\"></a>\n\n[r]: https://example.com/r\n"))
	wantAnchors := []string{"the-engine-pkgoperatorengine", "again", "again-1", "custom"}
	for _, a := range wantAnchors {
		if !page.Anchors[a] {
			t.Errorf("anchor %q missing; have %v", a, page.Anchors)
		}
	}
	if len(page.Anchors) != len(wantAnchors) {
		t.Errorf("anchors %v, want exactly %v", page.Anchors, wantAnchors)
	}
	wantLinks := []string{"a.md#x", "i.svg", "https://example.com/r", "t.md"}
	if !slices.Equal(page.Links, wantLinks) {
		t.Errorf("links %q, want %q", page.Links, wantLinks)
	}
}

// TestCheckFindsBrokenLinks: a fixture with one link of each kind of fault, and good ones.
func TestCheckFindsBrokenLinks(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("README.md", "# Top\n\n## A section\n\n"+
		"[ok](docs/page.md#the-page) [ok](#a-section) [ok](docs/) [ok](/docs/page.md) [ok](code.go#L3-L5) [ok](https://example.com/x)\n"+
		"[missing file](docs/nope.md) [missing anchor](docs/page.md#nope) [own anchor](#nope)\n"+
		"[outside](../x.md) [no host](https://) [line anchor on code](code.go#func) [scheme](ftp://host/x)\n")
	write("docs/page.md", "# The page\n\n[back](../README.md#top)\n")
	write("code.go", "package x\n")
	problems, err := Check(dir, []string{"README.md", "docs/page.md"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range problems {
		got = append(got, p.Link)
	}
	want := []string{"docs/nope.md", "docs/page.md#nope", "#nope", "../x.md", "https://", "code.go#func", "ftp://host/x"}
	if !slices.Equal(got, want) {
		t.Errorf("problems %q, want %q:\n%v", got, want, problems)
	}
}
