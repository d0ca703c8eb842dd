package graph

import (
	"slices"
	"strings"
)

// CyclePath renders a cycle's edges as "a -> b -> a".
func CyclePath(cycle []Edge) string {
	if len(cycle) == 0 {
		return ""
	}
	names := make([]string, 0, len(cycle)+1)
	for _, e := range cycle {
		names = append(names, e.Source)
	}
	names = append(names, cycle[len(cycle)-1].Target)
	return strings.Join(names, " -> ")
}

// Order returns indices in dependency order, and false if a cycle leaves
// some out. Ties break by index, which is address order.
func (x *Index) Order() ([]int, bool) {
	return Kahn(x.Dependents)
}

// Kahn orders the indices 0..len(next)-1 so that each comes after every
// index whose next list holds it (what may come once that one has), and
// returns false if a cycle leaves some out. It is Kahn's algorithm with a
// FIFO seeded in index order, O(V+E): ties break by index, then by the
// order of the next lists, so lists in index order (as an Index keeps
// them) make the result independent of the order edges were added in. An
// index listed twice in one list is waited for twice and released once.
// The planner orders the phases of a plan with it.
func Kahn(next [][]int) ([]int, bool) {
	n := len(next)
	pending := make([]int, n)
	for _, ns := range next {
		for _, d := range ns {
			pending[d]++
		}
	}
	out := make([]int, 0, n)
	for i := range n {
		if pending[i] == 0 {
			out = append(out, i)
		}
	}
	for head := 0; head < len(out); head++ {
		for _, d := range next[out[head]] {
			pending[d]--
			if pending[d] == 0 {
				out = append(out, d)
			}
		}
	}
	return out, len(out) == n
}

// Cycles finds every dependency cycle: one cycle per strongly connected
// component with more than one member (or a self-edge), found with
// Tarjan's algorithm (iterative, O(V+E)). Each cycle starts at the
// component's lowest address and follows edges in address order, so the
// result is deterministic. Cycles are sorted by their first address.
func (g *Graph) Cycles() [][]Edge {
	if g.acyclic() {
		// Most graphs: no Index to build (it sorts the addresses and
		// makes two lists a resource), no component to find.
		return nil
	}
	x := g.Index()
	comps := x.SCCs()
	cyclic := false
	for _, c := range comps {
		cyclic = cyclic || len(c) > 1 || slices.Contains(x.Deps[c[0]], c[0])
	}
	if !cyclic {
		return nil
	}
	edgeOf := map[[2]int]Edge{}
	for _, e := range g.Edges() {
		k := [2]int{x.IDs[e.Source], x.IDs[e.Target]}
		if _, ok := edgeOf[k]; !ok {
			edgeOf[k] = e
		}
	}
	var out [][]Edge
	for _, comp := range comps {
		if len(comp) == 1 {
			i := comp[0]
			if e, ok := edgeOf[[2]int{i, i}]; ok {
				out = append(out, []Edge{e})
			}
			continue
		}
		path := x.cycleWithin(comp)
		cycle := make([]Edge, 0, len(path))
		for k := range path {
			cycle = append(cycle, edgeOf[[2]int{path[k], path[(k+1)%len(path)]}])
		}
		out = append(out, cycle)
	}
	slices.SortFunc(out, func(a, b []Edge) int { return strings.Compare(a[0].Source, b[0].Source) })
	return out
}

// acyclic reports whether the edges of g make no cycle: Kahn's algorithm
// (as Kahn) over the resources in the order they were added, the
// resources each one's dependents in one list, in O(V+E) and a handful
// of allocations. Index leaves out of its Deps only dependencies of a
// cycle (breakPhaseCycles), so a graph acyclic here has no cycle there.
func (g *Graph) acyclic() bool {
	n := len(g.addrs)
	ids := make(map[string]int32, n)
	for i, a := range g.addrs {
		ids[a] = int32(i)
	}
	// dependents[start[t]:start[t+1]] are the sources of the edges to t;
	// pending[s] counts the edges from s not yet released.
	start := make([]int32, n+1)
	pending := make([]int32, n)
	for _, e := range g.edges {
		start[ids[e.Target]+1]++
		pending[ids[e.Source]]++
	}
	for i := range n {
		start[i+1] += start[i]
	}
	dependents := make([]int32, len(g.edges))
	next := slices.Clone(start[:n])
	for _, e := range g.edges {
		t := ids[e.Target]
		dependents[next[t]] = ids[e.Source]
		next[t]++
	}
	queue := next[:0]
	for i := range n {
		if pending[i] == 0 {
			queue = append(queue, int32(i))
		}
	}
	for head := 0; head < len(queue); head++ {
		t := queue[head]
		for _, s := range dependents[start[t]:start[t+1]] {
			if pending[s]--; pending[s] == 0 {
				queue = append(queue, s)
			}
		}
	}
	return len(queue) == n
}

// cycleWithin returns a shortest cycle through the component's lowest
// member, as a list of indices, by breadth-first search inside the
// component.
func (x *Index) cycleWithin(comp []int) []int {
	in := make(map[int]bool, len(comp))
	for _, c := range comp {
		in[c] = true
	}
	start := slices.Min(comp)
	prev := map[int]int{}
	queue := []int{start}
	seen := map[int]bool{start: true}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, d := range x.Deps[cur] {
			if !in[d] {
				continue
			}
			if d == start {
				path := []int{cur}
				for p := cur; p != start; {
					p = prev[p]
					path = append(path, p)
				}
				slices.Reverse(path)
				return path
			}
			if !seen[d] {
				seen[d] = true
				prev[d] = cur
				queue = append(queue, d)
			}
		}
	}
	return []int{start}
}

// SCCs returns the strongly connected components (Tarjan, iterative so
// that deep graphs cannot overflow the stack), each sorted, in order of
// their lowest member.
func (x *Index) SCCs() [][]int {
	n := len(x.Addrs)
	index := make([]int, n)
	low := make([]int, n)
	onStack := make([]bool, n)
	for i := range index {
		index[i] = -1
	}
	var stack []int
	var comps [][]int
	// Every vertex is in one component: they are capped parts of one
	// array, and the walk's call stack is reused from root to root.
	members := make([]int, 0, n)
	counter := 0
	type frame struct{ v, next int }
	var call []frame
	for root := range n {
		if index[root] >= 0 {
			continue
		}
		call = append(call[:0], frame{root, 0})
		index[root], low[root] = counter, counter
		counter++
		stack = append(stack, root)
		onStack[root] = true
		for len(call) > 0 {
			f := &call[len(call)-1]
			if f.next < len(x.Deps[f.v]) {
				w := x.Deps[f.v][f.next]
				f.next++
				if index[w] < 0 {
					index[w], low[w] = counter, counter
					counter++
					stack = append(stack, w)
					onStack[w] = true
					call = append(call, frame{w, 0})
				} else if onStack[w] {
					low[f.v] = min(low[f.v], index[w])
				}
				continue
			}
			v := f.v
			call = call[:len(call)-1]
			if len(call) > 0 {
				p := call[len(call)-1].v
				low[p] = min(low[p], low[v])
			}
			if low[v] == index[v] {
				first := len(members)
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[w] = false
					members = append(members, w)
					if w == v {
						break
					}
				}
				comp := members[first:len(members):len(members)]
				slices.Sort(comp)
				comps = append(comps, comp)
			}
		}
	}
	slices.SortFunc(comps, func(a, b []int) int { return a[0] - b[0] })
	return comps
}
