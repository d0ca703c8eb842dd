package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/xosplan/xosplan/internal/testutil"
)

// userDocs are the pages a user reads: the README, SECURITY.md, every
// page under docs/ (the generated reference included) and the examples'
// READMEs, as paths relative to the repository root.
func userDocs(t *testing.T, root string) []string {
	t.Helper()
	docs := []string{"README.md", "SECURITY.md"}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			docs = append(docs, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	examples, err := filepath.Glob(filepath.Join(root, "examples", "*", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range examples {
		rel, err := filepath.Rel(root, e)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, filepath.ToSlash(rel))
	}
	return docs
}

// mdLink is a Markdown inline link or image: [text](target) or
// [text](target "title").
var mdLink = regexp.MustCompile(`\]\(([^()\s]+)(?:\s+"[^"]*")?\)`)

// outside are the ways a page can refer a user to what a clone of the
// project does not hold: the shared corpus and design notes beside the
// checkout of the people who develop it.
var outside = regexp.MustCompile(`\.\./shared|/work/|DESIGN(\.md| §)|STYLE\.md`)

// mdPage is what the link check needs of a page: its lines outside
// fenced blocks and the anchors of its headings.
type mdPage struct {
	prose   []string // the lines outside fenced code blocks ("" for the others, so numbers stay)
	anchors map[string]bool
}

func readMarkdown(path string) (mdPage, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return mdPage{}, err
	}
	page := mdPage{anchors: map[string]bool{}}
	seen := map[string]int{}
	fence := ""
	for _, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimLeft(line, " ")
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			page.prose = append(page.prose, "")
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			page.prose = append(page.prose, "")
			continue
		}
		page.prose = append(page.prose, line)
		if heading, ok := strings.CutPrefix(trimmed, "#"); ok {
			heading = strings.TrimLeft(heading, "#")
			if heading == "" || heading[0] != ' ' {
				continue
			}
			slug := githubSlug(heading)
			if n := seen[slug]; n > 0 {
				page.anchors[fmt.Sprintf("%s-%d", slug, n)] = true
			} else {
				page.anchors[slug] = true
			}
			seen[slug]++
		}
	}
	return page, nil
}

// githubSlug is the anchor GitHub gives a heading: lower case, spaces to
// hyphens, every other character that is not a letter, a digit, '-' or
// '_' dropped.
func githubSlug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// brokenLinks lists, as "file:line: problem", every relative link of the
// user's pages whose file is not in the repository (or lies outside it),
// every anchor no heading of its page makes, and every reference to what
// lies outside the project.
func brokenLinks(t *testing.T, root string, docs []string) []string {
	t.Helper()
	pages := map[string]mdPage{}
	page := func(rel string) (mdPage, error) {
		if p, ok := pages[rel]; ok {
			return p, nil
		}
		p, err := readMarkdown(filepath.Join(root, filepath.FromSlash(rel)))
		if err == nil {
			pages[rel] = p
		}
		return p, err
	}
	var problems []string
	for _, doc := range docs {
		p, err := page(doc)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range p.prose {
			where := fmt.Sprintf("%s:%d", doc, i+1)
			if m := outside.FindString(line); m != "" {
				problems = append(problems, fmt.Sprintf("%s: %q refers to what a clone of the project does not hold", where, m))
			}
			for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				file, anchor, _ := strings.Cut(target, "#")
				rel := doc
				if file != "" {
					if strings.HasPrefix(file, "/") {
						problems = append(problems, fmt.Sprintf("%s: %s: an absolute path; link relative to the page", where, target))
						continue
					}
					rel = filepath.ToSlash(filepath.Join(filepath.Dir(doc), file))
					if rel == ".." || strings.HasPrefix(rel, "../") {
						problems = append(problems, fmt.Sprintf("%s: %s: outside the repository", where, target))
						continue
					}
					if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel))); err != nil {
						problems = append(problems, fmt.Sprintf("%s: %s: no such file in the repository", where, target))
						continue
					}
				}
				if anchor == "" {
					continue
				}
				if !strings.HasSuffix(rel, ".md") {
					problems = append(problems, fmt.Sprintf("%s: %s: an anchor into a file that is not Markdown", where, target))
					continue
				}
				tp, err := page(rel)
				if err != nil {
					t.Fatal(err)
				}
				if !tp.anchors[anchor] {
					problems = append(problems, fmt.Sprintf("%s: %s: no heading of %s makes the anchor #%s", where, target, rel, anchor))
				}
			}
		}
	}
	return problems
}

// TestDocsLinksResolve checks that every relative link and anchor of the
// README, SECURITY.md, docs/ and the examples' READMEs leads to a file and
// heading of the repository, and that none of them refers a user to what
// lies outside the project.
func TestDocsLinksResolve(t *testing.T) {
	root := testutil.ModuleRoot(t)
	docs := userDocs(t, root)
	if len(docs) < 10 {
		t.Fatalf("found only %d pages: %v", len(docs), docs)
	}
	for _, p := range brokenLinks(t, root, docs) {
		t.Error(p)
	}
}

// TestBrokenLinksAreFound is the check's own test: a page with each kind
// of mistake, and one without any.
func TestBrokenLinksAreFound(t *testing.T) {
	root := t.TempDir()
	write := func(rel, text string) {
		t.Helper()
		path := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("docs/good.md", "# Good page\n\n## The `plan` command (saved)\n\n## Twice\n\n## Twice\n\n"+
		"See [it](#the-plan-command-saved), [again](#twice-1), [the README](../README.md#top), [web](https://example.com/x.md#nowhere).\n"+
		"```sh\n# not a heading\n[code](missing.md)\n../shared is fine in a block\n```\n")
	write("README.md", "# Top\n\n[good](docs/good.md#good-page) and [image](docs/pic.png \"a picture\")\n")
	write("docs/pic.png", "png")
	write("docs/bad.md", "# Bad\n\n"+
		"[gone](missing.md)\n"+
		"[no anchor](good.md#absent)\n"+
		"[up](../../other/README.md)\n"+
		"[abs](/etc/passwd)\n"+
		"Read ../shared/DESIGN.md first.\n"+
		"[self](#not-here)\n")
	if got := brokenLinks(t, root, []string{"README.md", "docs/good.md"}); len(got) != 0 {
		t.Errorf("a page without mistakes is reported: %q", got)
	}
	got := brokenLinks(t, root, []string{"docs/bad.md"})
	want := []string{
		"docs/bad.md:3: missing.md: no such file",
		"docs/bad.md:4: good.md#absent: no heading of docs/good.md makes the anchor #absent",
		"docs/bad.md:5: ../../other/README.md: outside the repository",
		"docs/bad.md:6: /etc/passwd: an absolute path",
		"docs/bad.md:7: \"../shared\" refers to",
		"docs/bad.md:8: #not-here: no heading of docs/bad.md",
	}
	if len(got) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("problem %d = %q, want it to start with %q", i, got[i], want[i])
		}
	}
}
