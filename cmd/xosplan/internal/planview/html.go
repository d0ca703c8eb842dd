package planview

import (
	"crypto/sha256"
	"encoding/base64"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/xosplan/xosplan/internal/graphview"
	"github.com/xosplan/xosplan/pkg/planner"
)

// MaxHTMLGraph bounds the resources the HTML plan's graph draws: the
// changed ones first, in address order, then what they depend on. The
// list of changes below it is never cut.
const MaxHTMLGraph = 2000

// htmlCSS styles the HTML plan around the graph's own style sheet.
const htmlCSS = `
:root { color: #111827; background: #fff; font: 15px/1.45 system-ui, sans-serif; }
body { margin: 0 auto; max-width: 90rem; padding: 0 1rem 2rem; }
h1 { font-size: 1.35rem; } h2 { font-size: 1.15rem; margin-top: 1.5rem; } h3 { font-size: 1rem; margin: 0.2rem 0; }
a { color: #1d4ed8; } :focus-visible { outline: 3px solid #f59e0b; outline-offset: 2px; }
.summary { font-weight: 600; font-size: 1.05rem; }
.warning { border: 2px solid #b91c1c; background: #fef2f2; padding: 0.4rem 0.8rem; border-radius: 4px; }
.legend { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 0.4rem 1.2rem; }
.graph-box { overflow: auto; max-height: 75vh; border: 1px solid #d1d5db; border-radius: 4px; }
table { border-collapse: collapse; } caption { text-align: left; font-weight: 600; padding: 0.3rem 0; } th, td { border-bottom: 1px solid #e5e7eb; padding: 0.2rem 0.6rem; text-align: left; }
.change { border: 1px solid #d1d5db; border-radius: 4px; padding: 0.5rem 0.8rem; margin: 0.8rem 0; }
.change p { margin: 0.2rem 0; }
pre { background: #f9fafb; border: 1px solid #e5e7eb; padding: 0.5rem; overflow: auto; margin: 0.4rem 0 0; }
pre .add { color: #14532d; background: #dcfce7; } pre .del { color: #7f1d1d; background: #fee2e2; } pre .chg { color: #78350f; background: #fef3c7; }
.meta { color: #374151; font-size: 0.9rem; }
`

// htmlAction is how the HTML plan names and colours an action.
func htmlAction(a planner.Action) (class, word string) {
	switch a {
	case planner.Create:
		return "act-create", "create"
	case planner.Update:
		return "act-update", "update"
	case planner.DeleteThenCreate, planner.CreateThenDelete:
		return "act-replace", "replace"
	case planner.Delete:
		return "act-delete", "destroy"
	case planner.Read:
		return "act-read", "read"
	case planner.Forget:
		return "act-forget", "forget"
	}
	return "act-none", "no change"
}

// HTMLOptions tune HTML.
type HTMLOptions struct {
	// Title names what was planned; empty means "xosplan plan".
	Title string
}

// HTML writes the plan as one self-contained HTML file a reviewer opens (a
// CI artifact): the summary, the graph of the changed resources and what
// they depend on, coloured by action (internal/graphview, drawn here:
// the file runs no script), and every change with its reasons and its
// field diff as the text plan shows it, sensitive values masked. Its
// Content-Security-Policy (a meta element) allows its one style sheet,
// by hash, and nothing else: no script, no request.
func HTML(w io.Writer, p *planner.Plan, opts HTMLOptions) error {
	p = safePlan(p)
	title := opts.Title
	if title == "" {
		title = "xosplan plan"
	}
	css := graphview.CSS + htmlCSS
	sum := sha256.Sum256([]byte(css))
	e := graphview.Escape
	var b strings.Builder
	b.WriteString("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	b.WriteString(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'sha256-` + base64.StdEncoding.EncodeToString(sum[:]) + `'; img-src data:; base-uri 'none'; form-action 'none'">` + "\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta name=\"referrer\" content=\"no-referrer\">\n")
	b.WriteString("<title>" + e(title+": "+SummaryLine(p)) + "</title>\n<style>" + css + "</style>\n</head>\n<body>\n<main>\n")
	b.WriteString("<h1>" + e(title) + "</h1>\n<p class=\"summary\">" + e(SummaryLine(p)) + "</p>\n")
	b.WriteString("<p class=\"meta\">Plan " + e(p.PlanID))
	if p.Lineage != "" {
		b.WriteString(" · against the state of lineage " + e(p.Lineage) + ", serial " + strconv.FormatUint(p.Serial, 10))
	} else {
		b.WriteString(" · against no recorded state")
	}
	b.WriteString("</p>\n")
	shown := make([]*planner.ResourceChange, 0, len(p.Changes))
	for i := range p.Changes {
		if p.Changes[i].Action != planner.NoOp {
			shown = append(shown, &p.Changes[i])
		}
	}
	htmlDestructive(&b, shown)
	if len(shown) > 0 {
		htmlGraph(&b, shown)
		htmlChanges(&b, shown)
	}
	b.WriteString("</main>\n</body>\n</html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// htmlDestructive warns of the resources destroyed or replaced.
func htmlDestructive(b *strings.Builder, shown []*planner.ResourceChange) {
	var gone []string
	for _, c := range shown {
		if c.Action == planner.Delete || c.Action.IsReplace() {
			gone = append(gone, c.Address)
		}
	}
	if len(gone) == 0 {
		return
	}
	b.WriteString(`<div class="warning" role="note"><p><strong>This plan destroys or replaces ` + strconv.Itoa(len(gone)) + " resource")
	if len(gone) != 1 {
		b.WriteString("s")
	}
	b.WriteString(":</strong> ")
	for i, a := range gone {
		if i == maxListed {
			b.WriteString(", … and " + strconv.Itoa(len(gone)-maxListed) + " more")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("<code>" + graphview.Escape(a) + "</code>")
	}
	b.WriteString("</p></div>\n")
}

// htmlGraph draws the changed resources and what they depend on.
func htmlGraph(b *strings.Builder, shown []*planner.ResourceChange) {
	anchor := map[string]string{}
	action := map[string]*planner.ResourceChange{}
	for i, c := range shown {
		anchor[c.Address] = "change-" + strconv.Itoa(i)
		action[c.Address] = c
	}
	depsOf := func(c *planner.ResourceChange) []string {
		if c.Action == planner.Delete || c.Action == planner.Forget {
			return c.PriorDependencies
		}
		return c.Dependencies
	}
	set := map[string]bool{}
	var addrs []string
	add := func(a string) {
		if !set[a] && len(addrs) < MaxHTMLGraph {
			set[a] = true
			addrs = append(addrs, a)
		}
	}
	for _, c := range shown {
		add(c.Address)
	}
	for _, c := range shown {
		for _, d := range depsOf(c) {
			add(d)
		}
	}
	slices.Sort(addrs)
	ids := make(map[string]int, len(addrs))
	for i, a := range addrs {
		ids[a] = i
	}
	deps := make([][]int, len(addrs))
	nodes := make([]graphview.Node, len(addrs))
	for i, a := range addrs {
		c := action[a]
		class, word := htmlAction(planner.NoOp)
		n := graphview.Node{Label: a, Key: a}
		if c != nil {
			class, word = htmlAction(c.Action)
			n.Sub, n.Href = c.Type, "#"+anchor[a]
			for _, d := range depsOf(c) {
				if j, ok := ids[d]; ok && !slices.Contains(deps[i], j) {
					deps[i] = append(deps[i], j)
				}
			}
		}
		n.Class, n.State = class, word
		nodes[i] = n
	}
	b.WriteString("<h2 id=\"graph-title\">Graph of the changes</h2>\n<ul class=\"legend\" aria-label=\"Legend: the colour of each action\">")
	for _, a := range []planner.Action{planner.Create, planner.Update, planner.DeleteThenCreate, planner.Delete, planner.Read, planner.Forget, planner.NoOp} {
		class, word := htmlAction(a)
		b.WriteString(`<li><span class="swatch ` + class + `"></span>` + word + "</li>")
	}
	b.WriteString("</ul>\n<p class=\"meta\">The changed resources and what they depend on; arrows point from a resource to what depends on it. Each changed resource links to its change.")
	if len(addrs) == MaxHTMLGraph {
		b.WriteString(" The graph shows " + strconv.Itoa(MaxHTMLGraph) + " resources at most; every change is listed below.")
	}
	b.WriteString("</p>\n<div class=\"graph-box\">")
	graphview.SVG(b, nodes, deps, graphview.Lay(deps), graphview.Options{Label: "Graph of the " + strconv.Itoa(len(shown)) + " changed resources and what they depend on"})
	b.WriteString("</div>\n")
}

// htmlChanges lists every change: a table of contents, then each with
// its reasons and its field diff.
func htmlChanges(b *strings.Builder, shown []*planner.ResourceChange) {
	e := graphview.Escape
	b.WriteString("<h2>Changes</h2>\n<table><caption>Every change, in the order of the plan</caption><thead><tr><th scope=\"col\">Resource</th><th scope=\"col\">Type</th><th scope=\"col\">Action</th></tr></thead><tbody>\n")
	for i, c := range shown {
		class, word := htmlAction(c.Action)
		b.WriteString(`<tr><td><a href="#change-` + strconv.Itoa(i) + `">` + e(c.Address) + "</a></td><td>" + e(c.Type) + `</td><td><span class="swatch ` + class + `"></span>` + word + "</td></tr>\n")
	}
	b.WriteString("</tbody></table>\n")
	for i, c := range shown {
		id := "change-" + strconv.Itoa(i)
		class, word := htmlAction(c.Action)
		head, because := header(c)
		b.WriteString(`<section class="change" id="` + id + `" aria-labelledby="` + id + `-h">` + "\n")
		b.WriteString(`<h3 id="` + id + `-h"><span class="swatch ` + class + `"></span>` + e(c.Address) + " <small>(" + e(c.Type) + ", " + word + ")</small></h3>\n")
		b.WriteString("<p>" + e(head) + "</p>\n")
		if because != "" {
			b.WriteString("<p>Because " + e(because) + "</p>\n")
		}
		if c.DerivedBy != "" {
			b.WriteString("<p>Derived by the policy <code>" + e(c.DerivedBy) + "</code></p>\n")
		}
		if len(c.ForcedBy) > 0 {
			b.WriteString("<p>Forced by the replacement of <code>" + e(strings.Join(c.ForcedBy, "</code>, <code>")) + "</code></p>\n")
		}
		r := &renderer{}
		r.change(c)
		b.WriteString(`<pre aria-label="Field changes of ` + e(c.Address) + `" tabindex="0">`)
		for _, l := range strings.Split(strings.TrimRight(r.buf.String(), "\n"), "\n") {
			b.WriteString(diffLine(l) + "\n")
		}
		b.WriteString("</pre>\n</section>\n")
	}
}

// diffLine marks a line of the text plan by its change symbol.
func diffLine(l string) string {
	trimmed := strings.TrimLeft(l, " ")
	class := ""
	switch {
	case strings.HasPrefix(trimmed, "-/+ "), strings.HasPrefix(trimmed, "+/- "), strings.HasPrefix(trimmed, "~ "):
		class = "chg"
	case strings.HasPrefix(trimmed, "+ "), trimmed == "+":
		class = "add"
	case strings.HasPrefix(trimmed, "- "), trimmed == "-":
		class = "del"
	}
	if class == "" {
		return graphview.Escape(l)
	}
	return `<span class="` + class + `">` + graphview.Escape(l) + "</span>"
}
