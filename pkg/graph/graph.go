package graph

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"
)

// Errors returned by Graph methods; compare with errors.Is.
var (
	ErrDuplicateResource = errors.New("duplicate resource address")
	ErrUnknownResource   = errors.New("unknown resource address")
)

// Graph is a set of resources and the dependency edges between them.
// Several edges may join the same two resources (two requirements on one
// target); each is kept. A Graph is not safe for concurrent mutation.
type Graph struct {
	// byAddr holds the resources by address.
	byAddr map[string]*Resource
	// edges keeps every edge, including repeats of the same pair, in
	// insertion order.
	edges []Edge
	// addrs lists the addresses in insertion order; sorted caches them
	// sorted (Addresses), nil until asked for after a change. It is
	// atomic because readers may ask at once; AddResource, a mutation,
	// clears it.
	addrs  []string
	sorted atomic.Pointer[[]string]
	// policies lists the model policies in insertion order.
	policies []Policy
	// Sources lists the files the graph was compiled from, sorted.
	Sources []string
	// Outputs holds the template's declared outputs (canonical values,
	// possibly Unknown).
	Outputs map[string]Value
	// SensitiveOutputs names, sorted, the outputs whose values are
	// secrets: declared sensitive, or derived from a secret.
	SensitiveOutputs []string
	// Secrets holds secret values the configuration was compiled with
	// that a resource may not hold whole (a sensitive input read inside a
	// concat known only at apply time): apply redacts them from what
	// drivers print. They are never part of a plan or of state.
	Secrets []Value
	// Policed holds, by address, what the model policies read of each
	// resource one of them read (pkg/policy fills it); nil without
	// policies. Apply records from it the version the policies ran on.
	Policed map[string]PolicedRead
}

// PolicedRead is what the model policies read of one resource: Step is
// the changed_by_step version of the recorded state they planned against
// (zero when none), Feedback says one of them read the resource's
// recorded feedback, so that a change of it by a step must run them again.
type PolicedRead struct {
	Step     time.Time
	Feedback bool
}

// New returns an empty graph.
func New() *Graph {
	return &Graph{byAddr: map[string]*Resource{}}
}

// AddResource adds r; its address must be new.
func (g *Graph) AddResource(r *Resource) error {
	if _, ok := g.byAddr[r.Address]; ok {
		return fmt.Errorf("%w: %s", ErrDuplicateResource, r.Address)
	}
	g.byAddr[r.Address] = r
	g.addrs = append(g.addrs, r.Address)
	g.sorted.Store(nil)
	return nil
}

// Grow makes room for resources more resources and edges more edges, so
// that a compiler that knows how many it adds does not have the store
// grow again and again (a copy of every edge each time).
func (g *Graph) Grow(resources, edges int) {
	if len(g.byAddr) == 0 && resources > 0 {
		g.byAddr = make(map[string]*Resource, resources)
	}
	g.addrs = slices.Grow(g.addrs, max(resources, 0))
	g.edges = slices.Grow(g.edges, max(edges, 0))
}

// AddEdge records that e.Source depends on e.Target. Both must exist.
// A self-dependency is kept so that cycle finding reports it.
func (g *Graph) AddEdge(e Edge) error {
	if g.byAddr[e.Source] == nil || g.byAddr[e.Target] == nil {
		return fmt.Errorf("%w: edge %s -> %s", ErrUnknownResource, e.Source, e.Target)
	}
	g.edges = append(g.edges, e)
	return nil
}

// Resource returns the resource at addr.
func (g *Graph) Resource(addr string) (*Resource, bool) {
	r, ok := g.byAddr[addr]
	return r, ok
}

// Len returns the number of resources.
func (g *Graph) Len() int {
	return len(g.addrs)
}

// Addresses returns every resource address, sorted.
func (g *Graph) Addresses() []string {
	if p := g.sorted.Load(); p != nil {
		return slices.Clone(*p)
	}
	out := slices.Clone(g.addrs)
	slices.Sort(out)
	g.sorted.Store(&out)
	return slices.Clone(out)
}

// Resources returns every resource, sorted by address.
func (g *Graph) Resources() []*Resource {
	addrs := g.Addresses()
	out := make([]*Resource, len(addrs))
	for i, a := range addrs {
		out[i], _ = g.Resource(a)
	}
	return out
}

// Edges returns every edge sorted by source, target, kind and name.
func (g *Graph) Edges() []Edge {
	out := slices.Clone(g.edges)
	slices.SortStableFunc(out, compareEdges)
	return out
}

func compareEdges(a, b Edge) int {
	return cmp.Or(cmp.Compare(a.Source, b.Source), cmp.Compare(a.Target, b.Target),
		cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Name, b.Name))
}

// Index is a read-only adjacency view of a graph, built once in O(V+E)
// for walks that need many lookups.
type Index struct {
	// Addrs lists the addresses sorted; IDs maps an address to its index.
	Addrs []string
	IDs   map[string]int
	// Deps[i] lists the indices that Addrs[i] depends on (sorted, unique);
	// Dependents[i] those that depend on it.
	Deps, Dependents [][]int
	// Waits[i] lists, for the resources Addrs[i] only reads at the depth
	// of operations where a dependency on the whole of them would be a
	// cycle the lifecycle phases break (phaseCycles), the operations of
	// Addrs[i] that must wait for an operation of another; those
	// resources are then left out of Deps. Nil for most graphs.
	Waits [][]OpWait
}

// adjacency returns, for each of n vertices v, the sorted distinct to[i]
// of the edges i with from[i] == v; nil for a vertex without any.
func adjacency(n int, from, to []int) [][]int {
	start := make([]int, n+1)
	for _, v := range from {
		start[v+1]++
	}
	for v := range n {
		start[v+1] += start[v]
	}
	all := make([]int, len(to))
	next := slices.Clone(start[:n])
	for i, v := range from {
		all[next[v]] = to[i]
		next[v]++
	}
	out := make([][]int, n)
	for v := range n {
		if start[v] == start[v+1] {
			continue
		}
		list := all[start[v]:start[v+1]:start[v+1]]
		slices.Sort(list)
		out[v] = slices.Compact(list)
	}
	return out
}

// Index builds the adjacency view.
func (g *Graph) Index() *Index {
	addrs := g.Addresses()
	ids := make(map[string]int, len(addrs))
	for i, a := range addrs {
		ids[a] = i
	}
	x := &Index{Addrs: addrs, IDs: ids}
	// Each list is a part of one array (capped, so that appending to one
	// never writes into the next): two allocations, not one per list.
	src, dst := make([]int, len(g.edges)), make([]int, len(g.edges))
	for i, e := range g.edges {
		src[i], dst[i] = ids[e.Source], ids[e.Target]
	}
	x.Deps = adjacency(len(addrs), src, dst)
	x.Dependents = adjacency(len(addrs), dst, src)
	x.breakPhaseCycles(g)
	return x
}
