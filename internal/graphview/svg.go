package graphview

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Node is one node as SVG draws it.
type Node struct {
	// Label is the first line (an address); Sub the second (a type); State
	// is the word shown before Sub (a status, an action): colour is never
	// the only cue.
	Label, Sub, State string
	// Class is added to the node's class list ("st-active", "act-create"):
	// what a style sheet colours.
	Class string
	// Href is where the node links to (none: the node is not a link, and
	// not in the tab order); Key is its data-key attribute (how a script
	// finds it again).
	Href, Key string
}

// Options tune SVG.
type Options struct {
	// Label is the accessible name of the whole drawing.
	Label string
}

// maxLabel is how many characters of a label a node shows; the rest is in
// its title.
const maxLabel = 28

// SVG writes the drawing of nodes (node i depends on deps[i]) laid out by
// l: a group of edges, each from what is created first to what depends on
// it, then a link per node with its rectangle, its label, its state and
// its sub-label. Text is escaped for XML; characters XML cannot carry are
// replaced. Nothing in it is a script, an event handler or a style
// attribute.
func SVG(b *strings.Builder, nodes []Node, deps [][]int, l Layout, opts Options) {
	w, h := strconv.Itoa(l.Width), strconv.Itoa(l.Height)
	b.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" class="graph" width="` + w + `" height="` + h + `" viewBox="0 0 ` + w + ` ` + h + `" role="group" aria-label="`)
	b.WriteString(Escape(opts.Label))
	b.WriteString(`"><defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" class="arrowhead"/></marker></defs>`)
	b.WriteString(`<g class="edges" aria-hidden="true">`)
	for i, ds := range deps {
		for _, d := range ds {
			x1, y1 := l.X[d]+NodeWidth, l.Y[d]+NodeHeight/2
			x2, y2 := l.X[i], l.Y[i]+NodeHeight/2
			if x2 <= x1 { // a cycle drawn backwards: go round
				x1, x2 = l.X[d], l.X[i]+NodeWidth
			}
			b.WriteString(`<path d="` + edgePath(x1, y1, x2, y2, l.Layer[i]-l.Layer[d] > 1, min(l.Y[d], l.Y[i])-rowGap/2) + `" marker-end="url(#arrow)"/>`)
		}
	}
	b.WriteString(`</g><g class="nodes">`)
	for i, n := range nodes {
		x, y := strconv.Itoa(l.X[i]), strconv.Itoa(l.Y[i])
		name := n.Label
		if n.Sub != "" {
			name += ", " + n.Sub
		}
		if n.State != "" {
			name += ": " + n.State
		}
		b.WriteString(`<a class="node ` + Escape(n.Class) + `"`)
		if n.Href != "" {
			b.WriteString(` href="` + Escape(n.Href) + `"`)
		}
		b.WriteString(` data-key="` + Escape(n.Key) + `" aria-label="` + Escape(name) + `">`)
		b.WriteString(`<title>` + Escape(name) + `</title>`)
		b.WriteString(`<rect x="` + x + `" y="` + y + `" width="` + strconv.Itoa(NodeWidth) + `" height="` + strconv.Itoa(NodeHeight) + `" rx="5"/>`)
		tx := strconv.Itoa(l.X[i] + 8)
		b.WriteString(`<text class="label" x="` + tx + `" y="` + strconv.Itoa(l.Y[i]+16) + `">` + Escape(shorten(n.Label, maxLabel)) + `</text>`)
		b.WriteString(`<text class="sub" x="` + tx + `" y="` + strconv.Itoa(l.Y[i]+32) + `"><tspan class="state">` + Escape(n.State) + `</tspan>`)
		if n.Sub != "" {
			b.WriteString(` · ` + Escape(shorten(n.Sub, maxLabel-len(n.State)-3)))
		}
		b.WriteString(`</text></a>`)
	}
	b.WriteString(`</g></svg>`)
}

// edgePath is the SVG path of an edge from (x1,y1) to (x2,y2). An edge
// between neighbouring columns is one curve across the gap between them;
// a longer one (long) leaves through the first gap, runs along the gap
// between rows at height channel, and comes down through the last gap, so
// that it never crosses a node of the columns in between.
func edgePath(x1, y1, x2, y2 int, long bool, channel int) string {
	p := func(x, y int) string { return strconv.Itoa(x) + "," + strconv.Itoa(y) }
	if !long || x2 <= x1 {
		mid := (x1 + x2) / 2
		return "M" + p(x1, y1) + "C" + p(mid, y1) + " " + p(mid, y2) + " " + p(x2, y2)
	}
	g := columnGap / 2
	return "M" + p(x1, y1) + "C" + p(x1+g, y1) + " " + p(x1+g/2, channel) + " " + p(x1+g, channel) +
		"L" + p(x2-g, channel) + "C" + p(x2-g/2, channel) + " " + p(x2-g, y2) + " " + p(x2, y2)
}

// shorten cuts s to n characters, the last an ellipsis.
func shorten(s string, n int) string {
	n = max(n, 4)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// Escape escapes s for XML and HTML text and attribute values, and
// replaces the characters XML 1.0 cannot carry (control characters but
// tab and newline, unpaired surrogates, U+FFFE and U+FFFF) with U+FFFD.
func Escape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '"':
			b.WriteString("&#34;")
		case r == '\'':
			b.WriteString("&#39;")
		case r == '\t' || r == '\n':
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f || r == utf8.RuneError || r == 0xfffe || r == 0xffff || (r >= 0x80 && r < 0xa0):
			b.WriteRune('\uFFFD')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
