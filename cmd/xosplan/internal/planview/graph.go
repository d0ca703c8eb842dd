package planview

import (
	"bytes"
	"io"
	"strconv"
	"strings"

	"github.com/xosplan/xosplan/cmd/xosplan/internal/termsafe"
	"github.com/xosplan/xosplan/pkg/graph"
)

// DOT writes the dependency graph in Graphviz DOT: one box per resource
// (address and type; unmanaged ones dashed), one arrow per dependency from
// the dependent to what it depends on, labelled with the edge kind and
// name. Resources and edges are sorted, so the output is deterministic.
func DOT(w io.Writer, g *graph.Graph) error {
	var b bytes.Buffer
	b.WriteString("digraph xosplan {\n")
	b.WriteString("  rankdir = \"BT\";\n")
	b.WriteString("  node [shape = \"box\", fontname = \"sans-serif\"];\n")
	b.WriteString("  edge [fontname = \"sans-serif\", fontsize = 10];\n")
	for _, r := range g.Resources() {
		b.WriteString("  " + dotQuote(r.Address) + " [label = " + dotQuote(r.Address+"\n"+r.Type))
		if r.Management == graph.Unmanaged {
			b.WriteString(", style = \"dashed\"")
		}
		b.WriteString("];\n")
	}
	prev := ""
	for _, e := range g.Edges() {
		line := "  " + dotQuote(e.Source) + " -> " + dotQuote(e.Target) + " [label = " + dotQuote(edgeLabel(e)) + "];\n"
		if line != prev {
			b.WriteString(line)
		}
		prev = line
	}
	b.WriteString("}\n")
	_, err := w.Write(b.Bytes())
	return err
}

func edgeLabel(e graph.Edge) string {
	if e.Name == "" || e.Name == string(e.Kind) {
		return string(e.Kind)
	}
	return string(e.Kind) + ": " + e.Name
}

// dotQuote writes s as a DOT string: quotes and backslashes escaped,
// newlines as centred line breaks, other control characters as symbols
// (the graph is often printed to a terminal).
func dotQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", "")
	return `"` + termsafe.String(r.Replace(s)) + `"`
}

// Mermaid writes the dependency graph as a Mermaid flowchart, with the same
// content and order as DOT. Node ids are n0, n1, … by address order;
// labels are escaped with Mermaid entity codes.
func Mermaid(w io.Writer, g *graph.Graph) error {
	var b bytes.Buffer
	b.WriteString("flowchart BT\n")
	ids := map[string]string{}
	for i, r := range g.Resources() {
		id := "n" + strconv.Itoa(i)
		ids[r.Address] = id
		open, close := "[", "]"
		if r.Management == graph.Unmanaged {
			open, close = "[/", "/]"
		}
		b.WriteString("  " + id + open + `"` + mermaidEscape(r.Address) + "<br/><small>" + mermaidEscape(r.Type) + `</small>"` + close + "\n")
	}
	prev := ""
	for _, e := range g.Edges() {
		line := "  " + ids[e.Source] + " -->|" + mermaidEscape(edgeLabel(e)) + "| " + ids[e.Target] + "\n"
		if line != prev {
			b.WriteString(line)
		}
		prev = line
	}
	_, err := w.Write(b.Bytes())
	return err
}

// mermaidEscape writes s for a Mermaid label: entity codes for the
// characters Mermaid reads, newlines as spaces, other control characters as
// symbols (the chart is often printed to a terminal).
func mermaidEscape(s string) string {
	r := strings.NewReplacer(`"`, "#quot;", "<", "#lt;", ">", "#gt;", "|", "#124;", "\n", " ", "#", "#35;")
	return termsafe.String(r.Replace(s))
}
