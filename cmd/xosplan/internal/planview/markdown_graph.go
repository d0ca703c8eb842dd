package planview

import (
	"slices"
	"strconv"
	"strings"

	"github.com/xosplan/xosplan/pkg/planner"
)

// maxMermaid is the longest Mermaid graph a comment carries: Mermaid's
// default maxTextSize, beyond which GitHub shows an error in its place.
const maxMermaid = 50_000

// mermaidStyles colour the graph's nodes by action, as the HTML plan
// does (dark text on light fills).
var mermaidStyles = []struct{ class, style string }{
	{"create", "fill:#dcfce7,stroke:#15803d,color:#111827"},
	{"update", "fill:#fef3c7,stroke:#b45309,color:#111827"},
	{"replace", "fill:#ffedd5,stroke:#c2410c,color:#111827"},
	{"destroy", "fill:#fee2e2,stroke:#b91c1c,color:#111827"},
	{"read", "fill:#dbeafe,stroke:#1d4ed8,color:#111827"},
	{"forget", "fill:#f3e8ff,stroke:#7e22ce,color:#111827"},
}

// markdownGraph returns the comment's Mermaid graph of the changed
// resources (GitHub renders a mermaid block as a picture): one node per
// change, labelled with its address, type and action and styled by it,
// and an arrow from each to the changed resources that depend on it (the
// order of creation). "" for a plan without changes.
func markdownGraph(p *planner.Plan) string {
	var shown []*planner.ResourceChange
	for i := range p.Changes {
		if p.Changes[i].Action != planner.NoOp {
			shown = append(shown, &p.Changes[i])
		}
	}
	if len(shown) == 0 {
		return ""
	}
	slices.SortFunc(shown, func(a, b *planner.ResourceChange) int { return strings.Compare(a.Address, b.Address) })
	ids := make(map[string]string, len(shown))
	for i, c := range shown {
		ids[c.Address] = "n" + strconv.Itoa(i)
	}
	var b strings.Builder
	b.WriteString("<details open><summary>Graph of the changes (" + strconv.Itoa(len(shown)) + ")</summary>\n\n```mermaid\nflowchart LR\n")
	used := map[string]bool{}
	for _, c := range shown {
		_, word := htmlAction(c.Action)
		used[word] = true
		b.WriteString("  " + ids[c.Address] + `["` + mermaidEscape(c.Address) + "<br/><small>" + mermaidEscape(c.Type) + " · " + word + `</small>"]:::` + word + "\n")
	}
	for _, c := range shown {
		deps := c.Dependencies
		if c.Action == planner.Delete || c.Action == planner.Forget {
			deps = c.PriorDependencies
		}
		for _, d := range deps {
			if id, ok := ids[d]; ok {
				b.WriteString("  " + id + " --> " + ids[c.Address] + "\n")
			}
		}
	}
	for _, s := range mermaidStyles {
		if used[s.class] {
			b.WriteString("  classDef " + s.class + " " + s.style + "\n")
		}
	}
	b.WriteString("```\n\n</details>\n\n")
	return b.String()
}

// withGraph returns the comment's head with the graph after it, or, when
// the graph is longer than Mermaid draws or would leave the comment no
// room within limit, with a note saying it was left out.
func withGraph(head, graph, rest string, limit int) string {
	if graph == "" {
		return head + rest
	}
	// The room markdownDiff needs for the opening and closing of its
	// block and its truncation notice.
	const diffRoom = 600
	if len(graph) <= maxMermaid && len(head)+len(graph)+len(rest)+diffRoom <= limit {
		return head + graph + rest
	}
	return head + "> [!NOTE]\n> The graph of the changes was left out: it would not fit in a comment. `xosplan plan --html-out FILE` draws it.\n\n" + rest
}
