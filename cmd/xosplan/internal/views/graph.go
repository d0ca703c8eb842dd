package views

import (
	"fmt"
	"io"

	"github.com/xosplan/xosplan/cmd/xosplan/internal/planview"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
)

// Graph is the view of `xosplan graph`: the dependency graph on stdout as
// Graphviz DOT or a Mermaid flowchart, and diagnostics on stderr.
type Graph interface {
	// Failed renders the diagnostics of a configuration that could not be
	// compiled.
	Failed(diags diag.Diagnostics) error
	// Graph renders the warnings found compiling g, then g.
	Graph(g *graph.Graph, diags diag.Diagnostics) error
}

// NewGraph returns the view of format: "dot" or "mermaid".
func NewGraph(format string, s *Streams) (Graph, error) {
	switch format {
	case "dot":
		return &graphView{s: s, render: planview.DOT}, nil
	case "mermaid":
		return &graphView{s: s, render: planview.Mermaid}, nil
	}
	return nil, fmt.Errorf("want dot or mermaid, got %q", format)
}

type graphView struct {
	s      *Streams
	render func(w io.Writer, g *graph.Graph) error
}

func (v *graphView) Failed(diags diag.Diagnostics) error {
	return v.s.problems(v.s.Stderr, diags.Sort())
}

func (v *graphView) Graph(g *graph.Graph, diags diag.Diagnostics) error {
	if err := v.s.problems(v.s.Stderr, diags); err != nil {
		return err
	}
	return v.render(v.s.Stdout, g)
}
