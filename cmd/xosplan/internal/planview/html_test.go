package planview

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/xosplan/xosplan/internal/browsertest"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
)

var (
	styleRE = regexp.MustCompile(`(?s)<style>(.*?)</style>`)
	cspRE   = regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'sha256-([A-Za-z0-9+/=]+)'; img-src data:; base-uri 'none'; form-action 'none'">`)
)

// checkHTML checks an HTML plan: its policy allows exactly its one style
// sheet, it holds no script, handler or style attribute, and every change
// has its section, and a node in the graph.
func checkHTML(t *testing.T, p *planner.Plan, page string) {
	t.Helper()
	styles := styleRE.FindAllStringSubmatch(page, -1)
	csp := cspRE.FindStringSubmatch(page)
	if len(styles) != 1 || csp == nil {
		t.Fatalf("want one style sheet and the policy, got %d and %v", len(styles), csp)
	}
	sum := sha256.Sum256([]byte(styles[0][1]))
	if got := base64.StdEncoding.EncodeToString(sum[:]); got != csp[1] {
		t.Errorf("the policy allows the style sheet %s, the page's is %s", csp[1], got)
	}
	for _, bad := range []string{"<script", " onclick", " onload", "style=", "<iframe", "<img"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q", bad)
		}
	}
	n := 0
	for i := range p.Changes {
		if p.Changes[i].Action == planner.NoOp {
			continue
		}
		id := "change-" + strconv.Itoa(n)
		if !strings.Contains(page, `<section class="change" id="`+id+`"`) || !strings.Contains(page, `href="#`+id+`"`) {
			t.Errorf("%s (%s) has no section or node", p.Changes[i].Address, id)
		}
		n++
	}
}

// TestHTMLMarksEveryAction: a plan with each action draws each node in
// its action's class and marks the diff lines.
func TestHTMLMarksEveryAction(t *testing.T) {
	p := &planner.Plan{PlanID: "sha256:x", Lineage: "l", Serial: 3, Changes: []planner.ResourceChange{
		{Address: "a", Type: "T", Action: planner.Create, After: map[string]graph.Value{"x": "1"}},
		{Address: "b", Type: "T", Action: planner.Update, Before: map[string]graph.Value{"x": "1"}, After: map[string]graph.Value{"x": "2"}, ChangedPaths: []string{"x"}, Dependencies: []string{"a", "z"}},
		{Address: "c", Type: "T", Action: planner.Delete, Before: map[string]graph.Value{"x": "1"}},
		{Address: "d", Type: "T", Action: planner.DeleteThenCreate, Before: map[string]graph.Value{"x": "1"}, After: map[string]graph.Value{"x": "2"}},
		{Address: "z", Type: "T", Action: planner.NoOp},
	}}
	var b strings.Builder
	if err := HTML(&b, p, HTMLOptions{Title: "prod <1>"}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	checkHTML(t, p, page)
	for _, want := range []string{`<h1>prod &lt;1&gt;</h1>`, `class="node act-create" href="#change-0"`, `class="node act-update"`, `class="node act-delete"`,
		`class="node act-replace"`, `class="node act-none" data-key="z"`, `This plan destroys or replaces 2 resources`,
		`<span class="chg">`, `<span class="add">`, `<span class="del">`, `against the state of lineage l, serial 3`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// TestMarkdownGraphIsDroppedWhenItWouldNotFit: a small plan's comment
// carries the Mermaid graph; one whose graph would not fit says it left
// it out, and stays within the limit.
func TestMarkdownGraphIsDroppedWhenItWouldNotFit(t *testing.T) {
	p := &planner.Plan{PlanID: "x"}
	for i := range 3000 {
		var deps []string
		if i > 0 {
			deps = []string{fmt.Sprintf("r%04d", i-1)}
		}
		p.Changes = append(p.Changes, planner.ResourceChange{Address: fmt.Sprintf("r%04d", i), Type: "T", Action: planner.Create, Dependencies: deps})
	}
	small := &planner.Plan{PlanID: "y", Changes: p.Changes[:3]}
	md := Markdown(small, MarkdownOptions{})
	for _, want := range []string{"```mermaid\nflowchart LR\n", `  n0["r0000<br/><small>T · create</small>"]:::create`, "  n0 --> n1\n", "  classDef create "} {
		if !strings.Contains(md, want) {
			t.Errorf("the comment lacks %q:\n%s", want, md)
		}
	}
	for _, limit := range []int{0, 20_000} {
		md := Markdown(p, MarkdownOptions{Limit: limit})
		if strings.Contains(md, "```mermaid") || !strings.Contains(md, "The graph of the changes was left out") {
			t.Errorf("limit %d: the graph of 3000 changes was not left out with a note", limit)
		}
		if limit > 0 && len(md) > limit {
			t.Errorf("limit %d: %d bytes", limit, len(md))
		}
	}
	// A graph that fits Mermaid but not a small limit is dropped too.
	mid := &planner.Plan{PlanID: "z", Changes: p.Changes[:60]}
	if md := Markdown(mid, MarkdownOptions{Limit: 4000}); strings.Contains(md, "```mermaid") || len(md) > 4000 {
		t.Errorf("limit 4000: graph kept or %d bytes", len(md))
	}
}

// TestBrowserPlanHTMLRendersTheGraph opens an HTML plan in Chromium: the
// graph is drawn with every change's node coloured by its action (the
// style sheet its policy allows applied), and a node's link leads to its
// change.
func TestBrowserPlanHTMLRendersTheGraph(t *testing.T) {
	g, st, opts := loadCase(t, filepath.Join(casesDir, "replace_cascade"))
	p, diags := planner.Diff(context.Background(), g, st, opts)
	if p == nil {
		t.Fatal(diags.Err())
	}
	path := filepath.Join(t.TempDir(), "plan.html")
	var b strings.Builder
	if err := HTML(&b, p, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := browsertest.Start(t, time.Minute)
	browsertest.Navigate(t, ctx, "file://"+path)
	nodes := `[...document.querySelectorAll('svg.graph a.node')].map(a => a.getAttribute('data-key') + '=' + a.querySelector('.state').textContent + '=' + getComputedStyle(a.querySelector('rect')).fill).join('\n')`
	browsertest.Until(t, ctx, 20*time.Second, "the graph", `document.querySelectorAll('svg.graph a.node').length === 4`, nodes)
	want := "db=replace=rgb(255, 237, 213)\nhost=replace=rgb(255, 237, 213)\nlb=update=rgb(254, 243, 199)\nweb=replace=rgb(255, 237, 213)"
	if got := browsertest.Eval[string](t, ctx, nodes); got != want {
		t.Errorf("the graph shows\n%s\nwant\n%s", got, want)
	}
	if n := browsertest.Eval[int](t, ctx, `document.querySelectorAll('svg.graph .edges path').length`); n != 4 {
		t.Errorf("%d edges drawn, want 4", n)
	}
	browsertest.Screenshot(t, ctx, "plan.png")
	browsertest.Press(t, ctx, `svg.graph a.node[data-key="lb"]`, "\r")
	browsertest.Until(t, ctx, 20*time.Second, "lb's change", `location.hash !== '' && document.querySelector(location.hash + ' h3').textContent.startsWith('lb')`, `location.hash`)
}
