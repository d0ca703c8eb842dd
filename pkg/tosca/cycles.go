package tosca

// Phase 8 — cycles: a dependency cycle among node templates.
//
// Errors detected here:
//   - each dependency cycle, named in order ("a -> b -> c -> a"), positioned at the first
//     requirement of the cycle, with every hop and its requirement's file:line:col in the
//     detail and as related places (tosca.dependency_cycle); a hop may be a read (get_property, get_attribute or
//     get_operation_output naming another template), which orders the reader after what it
//     reads as a requirement does
//
// Cycles are found on the compiled graph with Tarjan's algorithm
// (graph.Cycles, O(V+E)): one diagnostic per strongly connected component
// (internal/core, which both grammar generations share).

import "github.com/xosplan/xosplan/pkg/graph"

// checkCycles reports each dependency cycle of g (core.Session.CheckCycles).
func (c *compiler) checkCycles(g *graph.Graph) { c.CheckCycles(g, CodeDependencyCycle) }
