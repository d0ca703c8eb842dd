package core

// Phase 8 (1.x and 2.0) — cycles: a dependency cycle among node templates.
//
// Errors detected here:
//   - each dependency cycle, named in order ("a -> b -> c -> a"), positioned at the first
//     requirement of the cycle, with every hop and its requirement's file:line:col in the
//     detail and as related places (tosca.dependency_cycle); a hop may be a read (get_property, get_attribute or
//     get_operation_output naming another template), which orders the reader after what it
//     reads as a requirement does
//
// Cycles are found on the compiled graph with Tarjan's algorithm
// (graph.Cycles, O(V+E)): one diagnostic per strongly connected component.

import (
	"strings"

	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
)

// CheckCycles reports each dependency cycle of g (nil: none).
func (c *Session) CheckCycles(g *graph.Graph) {
	if g == nil {
		return
	}
	for _, cyc := range g.Cycles() {
		if len(cyc) == 0 {
			continue
		}
		var detail strings.Builder
		related := make([]diag.Related, 0, len(cyc))
		for i, e := range cyc {
			if i > 0 {
				detail.WriteByte('\n')
			}
			hop := e.Source + " requires " + e.Target + " (requirement " + Quote(e.Name)
			if e.Kind == graph.Reads {
				hop = e.Source + " reads " + e.Target + " (" + e.Name
			}
			detail.WriteString(hop + " at " + e.Range.String() + ")")
			related = append(related, diag.Related{Range: e.Range, Message: hop + ")"})
		}
		first := cyc[0]
		c.ErrorDetail(first.Range, "topology_template.node_templates."+first.Source+".requirements", CodeDependencyCycle,
			detail.String(), "dependency cycle: %s", graph.CyclePath(cyc))
		c.Diags[len(c.Diags)-1].Related = related
	}
}

// Quote puts s in double quotes, as messages name what was written.
func Quote(s string) string { return `"` + s + `"` }
