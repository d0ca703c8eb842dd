package graph

import (
	"cmp"
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
// no operation of dst names in its outputs and dst has no value for
// (unassigned): then src depends on the whole of dst, as it always has.
// soft is true when an operation reads an attribute of dst that no
// operation of dst maps but dst's template assigns a value (softRead),
// or an operation without an implementation, which never runs, reads dst:
// the read waits for the whole of dst unless that closes a cycle
// (breakPhaseCycles), and otherwise reads the value as it stands.
func opReads(src, dst *Resource) (waits []OpWait, whole, soft bool) {
	if readsOf(src.Spec, dst.Address, nil) {
		return nil, true, false
	}
	for _, key := range slices.Sorted(maps.Keys(src.Driver.Operations)) {
		op := src.Driver.Operations[key]
		if op.Implementation == "" {
			// It never runs: what its inputs read (an interface's
			// inputs every operation of it has) orders nothing.
			if readsOf(op.Inputs, dst.Address, nil) {
				soft = true
			}
			continue
		}
		after := ""
		known, reads := true, false
		readsOf(op.Inputs, dst.Address, func(u Unknown) {
			reads = true
			p, ok := producer(dst, u)
			if !ok {
				if softRead(dst, u) {
					soft = true
				} else {
					known = false
				}
				return
			}
			if ra, _ := PhaseRank(p); after == "" || ra > mustRank(after) {
				after = p
			}
		})
		if !known {
			return nil, true, false
		}
		if !reads {
			continue
		}
		if _, ok := PhaseRank(key); !ok {
			return nil, true, false
		}
		if after != "" {
			waits = append(waits, OpWait{Operation: key, Address: dst.Address, After: after})
		}
	}
	return waits, len(waits) == 0 && !soft, soft
}

// softRead reports whether u reads an attribute of dst that dst's
// template assigns a known value (TOSCA 1.3 §3.8.3: the attribute's
// value until an operation output replaces it) and no operation of dst
// maps (producer found none): an implementation may still report it, but
// the value is there before dst runs.
func softRead(dst *Resource, u Unknown) bool {
	if u.Func != "attribute" || len(u.Args) != 2 {
		return false
	}
	name, _ := u.Args[1].(string)
	attrs, _ := dst.Spec["attributes"].(map[string]Value)
	v, ok := attrs[name]
	return ok && v != nil && !HasUnknown(v)
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

// maxSoftTries bounds the soft reads of one strongly connected component
// that breakPhaseCycles tries one at a time to keep ordered: each try
// orders the component's operations again (O(V+E) of the component).
// Beyond it, none is kept.
const maxSoftTries = 64

// phasePair is one dependency of a resource on another within a
// strongly connected component (indices into it: k depends on kt): the
// operation waits that stand for it, whether it is on the whole
// resource (hard), and whether it holds soft reads (opReads).
type phasePair struct {
	s, t, k, kt int
	ws          []OpWait
	hard, soft  bool
}

// breakPhaseCycles turns into Waits the dependencies that close a cycle
// only at the depth of resources: within each strongly connected
// component, a dependency that comes only from operation inputs reading
// what an operation of the other resource reports (opReads) orders that
// operation after the other one rather than the whole resources. When
// the operations, each resource's in CreatePhases order, are then
// ordered (A.create, B.create, A.configure, B.configure for two
// resources configured with each other's attributes), those dependencies
// leave Deps for Waits. Otherwise, when the component holds soft reads
// (attributes that no operation maps and that the templates assign,
// xOpera's "unmapped attributes"), those reads stop ordering anything
// (they read the value as it stands: the assigned one, or what the
// resource read has reported by then) but for those that can order their
// resources without a cycle, kept one at a time, by source then target
// address (at most maxSoftTries); otherwise the component stays as it
// is, a cycle Cycles reports. Graphs without cycles are not changed.
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
		var pairs []phasePair
		for k, s := range comp {
			for _, t := range x.Deps[s] {
				kt, ok := in[t]
				if !ok {
					continue
				}
				p := phasePair{s: s, t: t, k: k, kt: kt, hard: whole[[2]int{s, t}]}
				if !p.hard {
					src, _ := g.Resource(x.Addrs[s])
					dst, _ := g.Resource(x.Addrs[t])
					p.ws, p.hard, p.soft = opReads(src, dst)
				}
				pairs = append(pairs, p)
			}
		}
		keep := make([]bool, len(pairs))
		for i, p := range pairs {
			keep[i] = p.hard || p.soft
		}
		if !phasesOrder(len(comp), pairs, keep) {
			var soft []int
			for i, p := range pairs {
				keep[i] = p.hard
				if p.soft && !p.hard {
					soft = append(soft, i)
				}
			}
			if len(soft) == 0 || !phasesOrder(len(comp), pairs, keep) {
				continue
			}
			slices.SortFunc(soft, func(a, b int) int {
				return cmp.Or(cmp.Compare(x.Addrs[pairs[a].s], x.Addrs[pairs[b].s]), cmp.Compare(x.Addrs[pairs[a].t], x.Addrs[pairs[b].t]))
			})
			for n, i := range soft {
				if n == maxSoftTries {
					break
				}
				keep[i] = true
				keep[i] = phasesOrder(len(comp), pairs, keep)
			}
		}
		for i, p := range pairs {
			if keep[i] {
				continue
			}
			if x.Waits == nil {
				x.Waits = make([][]OpWait, len(x.Addrs))
			}
			x.Waits[p.s] = append(x.Waits[p.s], p.ws...)
			x.Deps[p.s] = slices.DeleteFunc(x.Deps[p.s], func(d int) bool { return d == p.t })
			x.Dependents[p.t] = slices.DeleteFunc(x.Dependents[p.t], func(d int) bool { return d == p.s })
		}
	}
}

// phasesOrder reports whether the operations of a component of n
// resources, each resource's in CreatePhases order, can be ordered when
// the pairs kept depend on the whole of their resource and the others on
// their operation waits alone.
func phasesOrder(n int, pairs []phasePair, keep []bool) bool {
	m := len(CreatePhases)
	// Node k*m+p of next stands for phase p of the k-th resource being done.
	next := make([][]int, n*m)
	for k := range n {
		for p := 1; p < m; p++ {
			next[k*m+p-1] = append(next[k*m+p-1], k*m+p)
		}
	}
	for i, p := range pairs {
		if keep[i] {
			next[p.kt*m+m-1] = append(next[p.kt*m+m-1], p.k*m)
			continue
		}
		for _, w := range p.ws {
			next[p.kt*m+mustRank(w.After)] = append(next[p.kt*m+mustRank(w.After)], p.k*m+mustRank(w.Operation))
		}
	}
	_, ok := Kahn(next)
	return ok
}
