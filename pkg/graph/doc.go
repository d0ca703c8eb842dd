// Package graph owns xosplan's format-neutral intermediate representation:
// Resources (what to actuate and how), Edges (dependencies), and the Graph
// that holds them, with O(V+E) dependency ordering and strongly connected
// component cycle finding.
//
// Both front ends (pkg/tosca, pkg/manifest) compile to this IR; the planner
// and executor never look at a source format again. A graph also carries
// the configuration's model policies (Policy), which pkg/policy runs
// before planning; the resources they derive name their policy
// (Resource.DerivedBy). The package knows
// nothing of TOSCA or Tonomi.
//
// Resources are held in a map by address, which refuses a second
// resource at an address and an edge whose ends it does not hold. (A graph
// library's store did that until issue 25; its adjacency maps cost a
// tenth of a 10,000-node compile and were never walked.) Ordering and
// cycle finding are linear-time walks over an Index: sorted, integer
// adjacency lists built from the graph's own list of edges (which keeps
// every edge between two resources). Kahn, the one topological sort of
// the module, also orders the phases of a plan (pkg/planner).
package graph
