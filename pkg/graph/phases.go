package graph

import (
	"maps"
	"slices"
)

// CreatePhases are the phases of the TOSCA create lifecycle, in order,
// each a key of the node's Standard interface or of its relationships'
// Configure interface (TOSCA 1.3 §5.8.4 and §5.8.5; 2.0 §14.2 is the
// same order). driver.LifecyclePhases runs them; PhaseRank ranks
// operations by them so that the graph can order operations of two
// resources against each other. The caller must not change the slice.
var CreatePhases = []string{
	"Standard.create",
	"Configure.pre_configure_source", "Configure.pre_configure_target",
	"Standard.configure",
	"Configure.post_configure_source", "Configure.post_configure_target",
	"Standard.start",
	"Configure.add_target", "Configure.add_source",
}

// PhaseRank returns the index in CreatePhases of the phase operation key
// runs in: a relationship's own key ("Configure.add_target@db[0]") runs
// in its operation's phase. ok is false for an operation of no create
// phase (Standard.stop, a custom interface's).
func PhaseRank(key string) (rank int, ok bool) {
	if op, _, _, rel := ParseRelationshipOperationKey(key); rel {
		key = RelationshipInterface + "." + op
	}
	rank = slices.Index(CreatePhases, key)
	return rank, rank >= 0
}

// OpWait says that operation Operation of a resource may run only once
// operation After of the resource at Address has: the first reads in its
// inputs an attribute or an output the second reports.
type OpWait struct {
	Operation string `json:"operation"`
	Address   string `json:"address"`
	After     string `json:"after"`
}

// opReads returns what src reads of dst at the depth of operations: for
// each operation of src whose inputs read dst, the operation of dst that
// reports what it reads, sorted. whole is true when src's spec reads dst,
// or an operation reads it outside the create phases or reads something
// no operation of dst names in its outputs: then src depends on the whole
// of dst, as it always has.
func opReads(src, dst *Resource) (waits []OpWait, whole bool) {
	if readsOf(src.Spec, dst.Address, nil) {
		return nil, true
	}
	for _, key := range slices.Sorted(maps.Keys(src.Driver.Operations)) {
		after := ""
		known := true
		readsOf(src.Driver.Operations[key].Inputs, dst.Address, func(u Unknown) {
			p, ok := producer(dst, u)
			if !ok {
				known = false
				return
			}
			if ra, _ := PhaseRank(p); after == "" || ra > mustRank(after) {
				after = p
			}
		})
		if !known {
			return nil, true
		}
		if after == "" {
			continue
		}
		if _, ok := PhaseRank(key); !ok {
			return nil, true
		}
		waits = append(waits, OpWait{Operation: key, Address: dst.Address, After: after})
	}
	return waits, len(waits) == 0
}

func mustRank(key string) int {
	r, _ := PhaseRank(key)
	return r
}

// readsOf reports whether v reads addr, calling each (when set) with
// every reference to addr it holds.
func readsOf(v Value, addr string, each func(Unknown)) bool {
	found := false
	eachRef(v, func(a string, u Unknown) {
		if a == addr {
			found = true
			if each != nil {
				each(u)
			}
		}
	})
	return found
}

// producer returns the create-phase operation of dst that reports what u
// reads: the one operation_output names, or, for an attribute, the last
// operation whose outputs map to it. ok is false when none does (an
// implementation may still report it: the whole of dst is then waited
// for).
func producer(dst *Resource, u Unknown) (string, bool) {
	switch {
	case u.Func == "operation_output" && len(u.Args) == 4:
		iface, _ := u.Args[1].(string)
		op, _ := u.Args[2].(string)
		key := iface + "." + op
		_, ok := PhaseRank(key)
		return key, ok && dst.Driver.Operations[key].Implementation != ""
	case u.Func == "attribute" && len(u.Args) == 2:
		attr, _ := u.Args[1].(string)
		best, rank := "", -1
		for key, op := range dst.Driver.Operations {
			r, ok := PhaseRank(key)
			if !ok || op.Implementation == "" || r < rank || (r == rank && key < best) {
				continue
			}
			for out, to := range op.Outputs {
				if to == attr || to == "" && out == attr {
					best, rank = key, r
				}
			}
		}
		return best, best != ""
	}
	return "", false
}

// breakPhaseCycles turns into Waits the dependencies that close a cycle
// only at the depth of resources: within each strongly connected
// component, a dependency that comes only from operation inputs reading
// what an operation of the other resource reports (opReads) orders that
// operation after the other one rather than the whole resources. When
// the operations, each resource's in CreatePhases order, are then
// ordered (A.create, B.create, A.configure, B.configure for two
// resources configured with each other's attributes), those dependencies
// leave Deps for Waits; otherwise the component stays as it is, a cycle
// Cycles reports. Graphs without cycles are not changed.
func (x *Index) breakPhaseCycles(g *Graph) {
	var whole map[[2]int]bool
	for _, comp := range x.SCCs() {
		if len(comp) < 2 {
			continue
		}
		if whole == nil {
			whole = map[[2]int]bool{}
			for _, e := range g.edges {
				if e.Kind != Reads {
					whole[[2]int{x.IDs[e.Source], x.IDs[e.Target]}] = true
				}
			}
		}
		in := make(map[int]int, len(comp))
		for k, c := range comp {
			in[c] = k
		}
		n := len(CreatePhases)
		// Node k*n+p of next stands for phase p of comp[k] being done.
		next := make([][]int, len(comp)*n)
		for k := range comp {
			for p := 1; p < n; p++ {
				next[k*n+p-1] = append(next[k*n+p-1], k*n+p)
			}
		}
		waits := map[int][]OpWait{}
		for k, s := range comp {
			for _, t := range x.Deps[s] {
				kt, ok := in[t]
				if !ok {
					continue
				}
				var ws []OpWait
				all := whole[[2]int{s, t}]
				if !all {
					src, _ := g.Resource(x.Addrs[s])
					dst, _ := g.Resource(x.Addrs[t])
					ws, all = opReads(src, dst)
				}
				if all {
					next[kt*n+n-1] = append(next[kt*n+n-1], k*n)
					continue
				}
				for _, w := range ws {
					next[kt*n+mustRank(w.After)] = append(next[kt*n+mustRank(w.After)], k*n+mustRank(w.Operation))
				}
				waits[s] = append(waits[s], ws...)
			}
		}
		if _, ok := Kahn(next); !ok {
			continue
		}
		if x.Waits == nil {
			x.Waits = make([][]OpWait, len(x.Addrs))
		}
		for s, ws := range waits {
			x.Waits[s] = append(x.Waits[s], ws...)
			for _, w := range ws {
				t := x.IDs[w.Address]
				x.Deps[s] = slices.DeleteFunc(x.Deps[s], func(d int) bool { return d == t })
				x.Dependents[t] = slices.DeleteFunc(x.Dependents[t], func(d int) bool { return d == s })
			}
		}
	}
}
