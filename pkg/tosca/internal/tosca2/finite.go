package tosca2

// Phase 6 (2.0) — the last step of rendering: a TOSCA 2.0 float may be
// infinite or not-a-number (§9.1.1.3), but the graph's values are
// JSON-compatible (graph.Value) and JSON has no such numbers. Values are
// checked and compared as floats while compiling (validation clauses see
// the float); the graph then carries each one as its YAML 1.2 spelling:
// ".inf", "-.inf" or ".nan".

import (
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
)

// finiteGraph replaces the non-finite floats of every value the graph
// holds (rs are its resources) by their YAML text.
func finiteGraph(g *graph.Graph, rs []*graph.Resource) {
	for _, r := range rs {
		core.FiniteMap(r.Spec)
		core.FiniteMap(r.Lookup)
		core.FiniteMap(r.Driver.Options)
		for k, op := range r.Driver.Operations {
			core.FiniteMap(op.Inputs)
			r.Driver.Operations[k] = op
		}
	}
	core.FiniteMap(g.Outputs)
	for i, v := range g.Secrets {
		g.Secrets[i] = core.FiniteValue(v)
	}
}
