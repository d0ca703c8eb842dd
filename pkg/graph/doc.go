// Package graph owns xosplan's format-neutral intermediate representation:
// Resources (what to actuate and how), Edges (dependencies), and the Graph
// that holds them, with O(V+E) dependency ordering and strongly connected
// component cycle finding.
//
// Both front ends (pkg/tosca, pkg/manifest) compile to this IR; the planner
// and executor never look at a source format again. The package knows
// nothing of TOSCA or Tonomi.
//
// The graph store is github.com/dominikbraun/graph, kept behind this
// package. Its StableTopologicalSort and cycle-preventing insertion are
// quadratic, so neither is used: ordering and cycle finding are our own
// linear-time walks over its adjacency. Kahn, the one topological sort of
// the module, also orders the phases of a plan (pkg/planner).
package graph
