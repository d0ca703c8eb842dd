package tosca2

// TOSCA Path (§10.3) and the graph query functions that follow it:
// $get_property, $get_attribute, $get_artifact and
// $available_allocation.
//
// A path (walkPath) starts at SELF, a node template (with the index of a
// representation, or ALL) or a relationship template, and goes through
// the relationships requirement matching made, outgoing (RELATIONSHIP
// <requirement> <idx>) and incoming (CAPABILITY <name> RELATIONSHIP
// <idx>), to their SOURCE, TARGET or target CAPABILITY; it ends at a
// node, a capability or a relationship. What is left names the property
// or attribute and the keys and indices into its value. A path that goes
// on from ALL is followed from each index it stands for, the results in
// one list (queryEach). Where only the orchestrator knows the way (an
// unassigned requirement, a requirement fulfilled by a node type, ALL
// over a count only apply time knows), the value is left to apply time.
//
// Errors detected here (tosca.function, tosca.unknown_template,
// tosca.unknown_requirement, tosca.unknown_capability,
// tosca.unknown_property): a path that does not start with SELF or a
// node or relationship template, a representation index that is
// negative or not below the template's count, a path that names no
// property, attribute or artifact after it, a requirement or capability
// the node does not have, a relationship index beyond those made, a
// property (for
// $get_property; an attribute or property for $get_attribute) the
// entity does not define.
//
// $get_property of a node's property is its value when it is known at
// compile time; otherwise, and for $get_attribute always, the value is a
// graph.Unknown attribute(address, name, path…) that the executor reads
// from the recorded state (pkg/executor.Resolve). $get_artifact is the
// artifact's location (artifactOf), $available_allocation the
// capability's capacity less the template's allocations where both are
// known (availableAllocation).
//
// Also detected here: $get_artifact of an artifact the node does not
// have, or with other arguments than 1.3's LOCAL_FILE and remove;
// $available_allocation of no capability or of a property that is not
// allocatable (tosca.function, tosca.unknown_property).

import (
	"path/filepath"
	"strings"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
)

// pathEnd is where a TOSCA path leads: a node (one representation, or
// all of them), perhaps one of its capabilities, or a relationship (rel).
type pathEnd struct {
	node *node
	// idx is the representation; -1 for the current one (SELF) or the
	// first.
	idx     int64
	all     bool
	capName string
	rel     *relEnd
	// each, when set, is an ALL the path goes on from: the path is
	// followed once for each index it stands for (queryEach).
	each *allAt
	// relTpl is a relationship template the path ends at that no one
	// relationship stands for: used by no requirement, or by several.
	relTpl string
}

// allAt is an ALL that stands for the indices 0 to n-1, fromEnd values
// before the end of the function's arguments.
type allAt struct {
	fromEnd int
	n       int64
}

// relEnd is one relationship a path reaches: relationship r (0 to
// count-1) of the requirement assignment ra of representation srcIdx of
// the node template src (-1: the current or first); r is -1 where the
// relationship is one of several the context does not tell apart.
type relEnd struct {
	ra     *reqAssign
	src    *node
	srcIdx int64
	r      int64
}

// target returns the node context the relationship leads to: its target
// template and the representation its node's index selects (-1 when it
// selects none: the first). ok is false when only the orchestrator knows
// the target (a node type, an unassigned requirement).
func (re *relEnd) target() (pathEnd, bool) {
	ra := re.ra
	if ra.target == nil {
		return pathEnd{}, false
	}
	end := pathEnd{node: ra.target, idx: -1}
	i := re.srcIdx
	if i < 0 {
		i = 0
		if x, ok := re.src.index.(int64); ok {
			i = x
		}
	}
	if re.r >= 0 && i < int64(len(ra.picks)) && re.r < int64(len(ra.picks[i])) {
		end.idx = ra.picks[i][re.r]
	}
	return end, true
}

func isIndex(v graph.Value) bool {
	if s, ok := v.(string); ok {
		return s == "ALL"
	}
	_, ok := v.(int64)
	return ok
}

// walkPath follows a TOSCA path (§10.3); it returns the end, what is
// left of the arguments, and false when the path leads where only apply
// time knows (an unassigned requirement's target) or does not fit the
// template, which is then reported at n; an ALL it goes on from is
// returned in the end's each.
//
// The path starts at SELF (the node template whose value is evaluated,
// or in a requirement's relationship context that relationship), at a
// node template with the index of a representation, or at a relationship
// template: the relationship of the one requirement that uses it, else
// the template itself (relTpl). From a node, RELATIONSHIP <req>
// <idx> leads to the idx-th relationship the requirement's assignments
// make, CAPABILITY <cap> RELATIONSHIP <idx> to the idx-th relationship
// that targets the capability (the incoming ones, in the order of their
// sources in the template), CAPABILITY <cap> ends at the capability.
// From a relationship, SOURCE and TARGET lead to its nodes, CAPABILITY to
// its target capability (then RELATIONSHIP <idx> to one of that
// capability's incoming relationships), and anything else ends at the
// relationship. A missing idx is 0.
func (ev *eval) walkPath(n *yamlsrc.Node, fn string, vals []graph.Value) (pathEnd, []graph.Value, bool) {
	end, rest, ok, stop := ev.pathStart(n, fn, vals)
	if stop {
		return end, rest, ok
	}
	for len(rest) > 0 {
		step, _ := rest[0].(string)
		if end.all && (step == "RELATIONSHIP" || step == "CAPABILITY") {
			// A path from every representation: followed from each, where
			// their number is known; else one value each, at apply.
			if counted := end.node.isCounted(); !end.node.countFn && (!counted || ev.c.state.topo.picked) {
				end.each = &allAt{fromEnd: len(rest) + 1, n: end.node.count}
			}
			return end, nil, false
		}
		if end.rel != nil {
			end, rest, ok, stop = ev.relStep(n, fn, end, step, rest)
		} else {
			end, rest, ok, stop = ev.nodeStep(n, fn, end, step, rest)
		}
		if stop {
			return end, rest, ok
		}
	}
	return end, rest, true
}

// pathStart reads where a path starts (see walkPath): its end so far and
// the steps left; stop says walkPath returns end, rest and ok as they are.
func (ev *eval) pathStart(n *yamlsrc.Node, fn string, vals []graph.Value) (end pathEnd, rest []graph.Value, ok, stop bool) {
	c := ev.c
	topo := c.state.topo
	end = pathEnd{idx: -1}
	first, _ := vals[0].(string)
	rest = vals[1:]
	switch {
	case first == "SELF" && ev.rel != nil:
		if ev.rel.ra == nil || ev.node == nil {
			// A relationship template's or type's: known where used.
			return end, nil, false, true
		}
		r := int64(-1)
		if ev.rel.known {
			r = ev.rel.index
		}
		end.rel = &relEnd{ra: ev.rel.ra, src: ev.node, srcIdx: -1, r: r}
	case first == "SELF":
		end.node = ev.node
		if ev.node == nil {
			return end, nil, false, true
		}
	case topo != nil && topo.byName[first] != nil:
		end.node = topo.byName[first]
		if len(rest) > 0 && isIndex(rest[0]) {
			end.idx, end.all = indexOf(rest[0])
			rest = rest[1:]
			if !end.all && !ev.representation(n, fn, end.node, end.idx) {
				return end, nil, false, true
			}
		}
	case topo != nil && topo.rels[first] != nil:
		users := c.relTemplateUsers(first)
		if len(users) != 1 {
			// Used by no requirement, or by several: no one relationship
			// to go on from, but the template's own values.
			if len(rest) > 0 && (rest[0] == "SOURCE" || rest[0] == "TARGET" || rest[0] == "CAPABILITY") {
				return end, nil, false, true
			}
			end.relTpl = first
			return end, rest, true, true
		}
		end.rel = &users[0]
	default:
		if topo != nil {
			if cause, failed := topo.failed[first]; failed {
				// A template that could not be read: a follow-on of why.
				c.FollowOn(cause)
				return end, nil, false, true
			}
		}
		c.Errorf(core.RangeOf(n), ev.path, core.CodeUnknownTemplate, "$%s starts at %q, which is neither SELF nor a node or relationship template", fn, graph.Text(vals[0]))
		return end, nil, false, true
	}
	return end, rest, true, false
}

// relStep takes one step of a path from the relationship at end: SOURCE,
// TARGET or CAPABILITY (see walkPath); stop says walkPath returns end,
// rest and ok as they are.
func (ev *eval) relStep(n *yamlsrc.Node, fn string, end pathEnd, step string, rest []graph.Value) (_ pathEnd, _ []graph.Value, ok, stop bool) {
	switch step {
	case "SOURCE":
		end = pathEnd{node: end.rel.src, idx: end.rel.srcIdx}
		rest = rest[1:]
	case "TARGET":
		if end, ok = end.rel.target(); !ok {
			return end, nil, false, true
		}
		rest = rest[1:]
	case "CAPABILITY":
		re := end.rel
		if end, ok = re.target(); !ok || re.ra.capName == "" {
			return end, nil, false, true
		}
		end.capName = re.ra.capName
		rest = rest[1:]
		if len(rest) == 0 || rest[0] != "RELATIONSHIP" {
			return end, rest, true, true
		}
		if end, rest, ok = ev.incoming(n, fn, end, rest[1:]); !ok {
			return end, nil, false, true
		}
	default:
		return end, rest, true, true
	}
	return end, rest, true, false
}

// nodeStep takes one step of a path from the node at end: RELATIONSHIP
// or CAPABILITY (see walkPath); stop says walkPath returns end, rest and
// ok as they are.
func (ev *eval) nodeStep(n *yamlsrc.Node, fn string, end pathEnd, step string, rest []graph.Value) (_ pathEnd, _ []graph.Value, ok, stop bool) {
	c := ev.c
	switch step {
	case "RELATIONSHIP":
		if len(rest) < 2 {
			c.Errorf(core.RangeOf(n), ev.path, core.CodeFunction, "$%s: RELATIONSHIP names a requirement", fn)
			return end, nil, false, true
		}
		req, _ := rest[1].(string)
		rels := c.outgoing(end.node, end.idx, req)
		if len(rels) == 0 {
			if !hasReqDef(end.node.typ, req) {
				c.Errorf(core.RangeOf(n), ev.path, core.CodeUnknownRequirement, "$%s: node template %q has no requirement %q", fn, end.node.name, req)
			}
			return end, nil, false, true
		}
		re, more, each, ok := ev.pickRel(n, fn, rels, rest[2:], "relationships of requirement "+core.Quote(req)+" of node template "+core.Quote(end.node.name))
		if !ok {
			end.each = each
			return end, nil, false, true
		}
		end, rest = pathEnd{rel: re}, more
	case "CAPABILITY":
		if len(rest) < 2 {
			c.Errorf(core.RangeOf(n), ev.path, core.CodeFunction, "$%s: CAPABILITY names a capability", fn)
			return end, nil, false, true
		}
		name, _ := rest[1].(string)
		if end.node.typ.caps[name] == nil {
			c.Errorf(core.RangeOf(n), ev.path, core.CodeUnknownCapability, "$%s: node template %q has no capability %q", fn, end.node.name, name)
			return end, nil, false, true
		}
		end.capName = name
		if len(rest) < 3 || rest[2] != "RELATIONSHIP" {
			return end, rest[2:], true, true
		}
		if end, rest, ok = ev.incoming(n, fn, end, rest[3:]); !ok {
			return end, nil, false, true
		}
	default:
		return end, rest, true, true
	}
	return end, rest, true, false
}

// representation checks the index of a representation of nd that a path
// names (§10.3): a non-negative integer below its count, where the
// count is known (a template without count has one representation; a
// count is known once every template is read).
func (ev *eval) representation(n *yamlsrc.Node, fn string, nd *node, idx int64) bool {
	c := ev.c
	if idx < 0 {
		c.Errorf(core.RangeOf(n), ev.path, core.CodeFunction, "$%s: the index of a representation of node template %q is a non-negative integer or ALL, found %d (§10.3)", fn, nd.name, idx)
		return false
	}
	counted := nd.isCounted()
	if nd.countFn || (counted && !c.state.topo.picked) || idx < nd.count {
		return true
	}
	c.Errorf(core.RangeOf(n), ev.path, core.CodeFunction, "$%s: node template %q has %d representation(s), so none has index %d (§10.3)", fn, nd.name, nd.count, idx)
	return false
}

// incoming follows RELATIONSHIP <idx> from the capability at end to one
// of the relationships that target it; rest follows RELATIONSHIP.
func (ev *eval) incoming(n *yamlsrc.Node, fn string, end pathEnd, rest []graph.Value) (pathEnd, []graph.Value, bool) {
	idx := end.idx
	if idx < 0 {
		idx = 0
		if x, ok := end.node.index.(int64); ok && end.node == ev.node {
			idx = x
		}
	}
	rels := ev.c.incoming(end.node, idx, end.capName)
	re, more, each, ok := ev.pickRel(n, fn, rels, rest, "relationships that target capability "+core.Quote(end.capName)+" of "+core.Quote(address(end.node, idx)))
	return pathEnd{rel: re, each: each}, more, ok
}

// pickRel takes the relationship that the index at the head of rest
// selects among rels (the first without index); what names them is for
// the message of an index out of range. ALL, or an index only apply time
// knows, selects none here; ALL is returned as each, for queryEach.
func (ev *eval) pickRel(n *yamlsrc.Node, fn string, rels []relEnd, rest []graph.Value, what string) (*relEnd, []graph.Value, *allAt, bool) {
	i := int64(0)
	if len(rest) > 0 && isIndex(rest[0]) {
		x, all := indexOf(rest[0])
		if all {
			return nil, nil, &allAt{fromEnd: len(rest), n: int64(len(rels))}, false
		}
		i, rest = x, rest[1:]
	}
	if i < 0 || i >= int64(len(rels)) {
		if len(rels) > 0 || i != 0 {
			ev.c.Errorf(core.RangeOf(n), ev.path, core.CodeFunction, "$%s: relationship %d of the %d %s does not exist", fn, i, len(rels), what)
		}
		return nil, nil, nil, false
	}
	return &rels[i], rest, nil, true
}

// relCount is how many relationships an assignment makes: its count (1
// when only apply time knows it). No more than one over maxExpansion are
// ever listed: limitExpansion reports such a count, and a path
// evaluated before it ran must not list them all.
func relCount(ra *reqAssign) int64 {
	if ra.countFn {
		return 1
	}
	return min(ra.count, maxExpansion+1)
}

// outgoing lists the relationships of requirement req of representation
// idx of nd, in the order of its assignments.
func (c *compiler) outgoing(nd *node, idx int64, req string) []relEnd {
	var out []relEnd
	for _, ra := range nd.reqs {
		if ra.name != req {
			continue
		}
		for r := range relCount(ra) {
			out = append(out, relEnd{ra: ra, src: nd, srcIdx: idx, r: r})
		}
	}
	return out
}

// incoming lists the relationships that target capability capName of
// representation idx of target, known once requirements are matched: by
// source template in the template's order, representation, assignment
// and relationship index. A relationship whose node selects no
// representation of a target with count goes to each (as its edges do).
// Once every pick is made they come from an index built once
// (indexIncoming), so that a path evaluated for each representation
// does not scan every relationship each time.
func (c *compiler) incoming(target *node, idx int64, capName string) []relEnd {
	topo := c.state.topo
	if !topo.picked {
		return c.scanIncoming(target, idx, capName)
	}
	if topo.incoming == nil {
		topo.incoming = c.indexIncoming()
	}
	each := topo.incoming[inKey{target, capName, -1}]
	at := topo.incoming[inKey{target, capName, idx}]
	if len(each)+len(at) == 0 {
		return nil
	}
	// Both lists are in the order of the scan: merged, they are too.
	out := make([]relEnd, 0, len(each)+len(at))
	for len(each) > 0 || len(at) > 0 {
		if len(at) == 0 || (len(each) > 0 && each[0].seq < at[0].seq) {
			out, each = append(out, each[0].re), each[1:]
		} else {
			out, at = append(out, at[0].re), at[1:]
		}
	}
	return out
}

// inKey is a target capability of a representation (idx -1: of each).
type inKey struct {
	target  *node
	capName string
	idx     int64
}

// seqRel is a relationship and its place in the order incoming lists.
type seqRel struct {
	seq int
	re  relEnd
}

// indexIncoming lists every relationship under the capability and
// representation it targets (-1 when its node selects none), in the
// order of scanIncoming.
func (c *compiler) indexIncoming() map[inKey][]seqRel {
	out := map[inKey][]seqRel{}
	seq := 0
	c.eachRel(func(ra *reqAssign) bool { return ra.target != nil }, func(re relEnd, pick int64) {
		k := inKey{re.ra.target, re.ra.capName, pick}
		out[k] = append(out[k], seqRel{seq, re})
		seq++
	})
	return out
}

// scanIncoming is incoming by a scan of every relationship, while
// requirements are still being read.
func (c *compiler) scanIncoming(target *node, idx int64, capName string) []relEnd {
	var out []relEnd
	c.eachRel(func(ra *reqAssign) bool { return ra.target == target && ra.capName == capName }, func(re relEnd, pick int64) {
		if pick < 0 || pick == idx {
			out = append(out, re)
		}
	})
	return out
}

// relTemplateUsers lists the relationships of the requirement
// assignments that name relationship template name.
func (c *compiler) relTemplateUsers(name string) []relEnd {
	var out []relEnd
	c.eachRel(func(ra *reqAssign) bool {
		rel := ra.rel
		return rel != nil && rel.IsString() && rel.Value == name
	}, func(re relEnd, _ int64) {
		out = append(out, re)
	})
	return out
}

// eachRel calls fn with every relationship of the assignments keep
// accepts, by source template in the template's order, representation,
// assignment and relationship index, with the representation of the
// target its node picks (-1: none, so each). It stops when the compile's
// context ends.
func (c *compiler) eachRel(keep func(*reqAssign) bool, fn func(re relEnd, pick int64)) {
	for _, src := range c.state.topo.nodes {
		for i := range src.count {
			if c.Stopped() {
				return
			}
			for _, ra := range src.reqs {
				if !keep(ra) {
					continue
				}
				for r := range relCount(ra) {
					pick := int64(-1)
					if i < int64(len(ra.picks)) && ra.picks[i] != nil && r < int64(len(ra.picks[i])) {
						pick = ra.picks[i][r]
					}
					fn(relEnd{ra: ra, src: src, srcIdx: i, r: r}, pick)
				}
			}
		}
	}
}

func indexOf(v graph.Value) (int64, bool) {
	if i, ok := v.(int64); ok {
		return i, false
	}
	return -1, true
}

func hasReqDef(t *typeDef, name string) bool {
	for _, r := range t.reqs {
		if r.name == name {
			return true
		}
	}
	return false
}

// address returns the resource address of one representation of a node
// template; idx -1 is the current one (while rendering) or the first.
func address(nd *node, idx int64) string {
	if !nd.isCounted() {
		return nd.name
	}
	if idx < 0 {
		if i, ok := nd.index.(int64); ok {
			idx = i
		} else {
			idx = 0
		}
	}
	return nd.name + "[" + core.Itoa(idx) + "]"
}

// query evaluates $get_property, $get_attribute and $get_artifact.
func (ev *eval) query(n *yamlsrc.Node, fn string, vals []graph.Value) graph.Value {
	if len(vals) < 2 || (ev.node == nil && vals[0] == "SELF") {
		// SELF outside a node template (a type's validation clause) is
		// known when a template uses the type.
		return unknown(fn, vals)
	}
	for _, v := range vals {
		if isUnknown(v) {
			return unknown(fn, vals)
		}
	}
	end, rest, ok := ev.walkPath(n, fn, vals)
	if end.each != nil {
		return ev.queryEach(n, fn, vals, end.each)
	}
	if ok && len(rest) == 0 {
		what := "property"
		switch fn {
		case "get_attribute":
			what = "attribute"
		case "get_artifact":
			what = "artifact"
		}
		ev.c.Errorf(core.RangeOf(n), ev.path, core.CodeFunction, "$%s: its TOSCA path names no %s after it (§10.2.1)", fn, what)
		return nil
	}
	if !ok {
		return unknown(fn, vals)
	}
	if end.rel != nil {
		return ev.relValue(n, fn, end.rel, vals, rest)
	}
	if end.relTpl != "" {
		return ev.relTemplateValue(n, fn, end.relTpl, vals, rest)
	}
	name, _ := rest[0].(string)
	nd := end.node
	if fn == "get_property" || fn == "get_attribute" {
		ev.c.querySecret(end, name)
	}
	switch {
	case fn == "get_artifact":
		return ev.artifactOf(n, end, rest)
	case fn == "available_allocation":
		return ev.availableAllocation(n, end, vals, rest)
	case end.capName != "" && nd.typ.caps[end.capName].typ == nil:
		return unknown(fn, vals)
	case end.capName != "":
		cd := nd.typ.caps[end.capName]
		if cd.props[name] == nil && (fn == "get_property" || cd.attrs[name] == nil) {
			ev.c.Errorf(core.RangeOf(n), ev.path, core.CodeUnknownProperty, "$%s: capability %q of node template %q has no %s %q", fn, end.capName, nd.name, noun(fn), name)
			return nil
		}
		if fn == "get_property" && !end.all {
			_, caps := ev.c.valuesAt(nd, ev.node, end.idx)
			if v, ok := caps[end.capName][name]; ok && !isUnknown(v) {
				return walkValue(v, rest[1:])
			}
		}
		return ev.attributeOf(nd, end, append([]graph.Value{end.capName}, rest...))
	}
	if nd.typ.props[name] == nil && (fn == "get_property" || nd.typ.attrs[name] == nil) {
		ev.c.Errorf(core.RangeOf(n), ev.path, core.CodeUnknownProperty, "$%s: node template %q has no %s %q", fn, nd.name, noun(fn), name)
		return nil
	}
	if fn == "get_property" && !end.all {
		props, _ := ev.c.valuesAt(nd, ev.node, end.idx)
		if v, ok := props[name]; ok && !isUnknown(v) {
			return walkValue(v, rest[1:])
		}
	}
	return ev.attributeOf(nd, end, rest)
}

// queryEach evaluates a query whose path goes on from an ALL (§10.3:
// "we return the result for all possible indices (further resolved
// separately) as a list"): once for each index, the results in a list,
// those of a further ALL merged into it. nil when one of them is in
// error (reported once).
func (ev *eval) queryEach(n *yamlsrc.Node, fn string, vals []graph.Value, each *allAt) graph.Value {
	pos := len(vals) - each.fromEnd
	if !ev.c.spend(n, ev.path, each.n) {
		return nil
	}
	merge := false
	for _, v := range vals[pos+1:] {
		merge = merge || v == "ALL"
	}
	out := make([]graph.Value, 0, each.n)
	for i := range each.n {
		one := append([]graph.Value(nil), vals...)
		one[pos] = i
		before := len(ev.c.Diags)
		v := ev.query(n, fn, one)
		if v == nil && len(ev.c.Diags) > before {
			return nil
		}
		if list, ok := v.([]graph.Value); ok && merge {
			out = append(out, list...)
			continue
		}
		out = append(out, v)
	}
	return out
}

// relValue evaluates a query at a relationship (re): a property is the
// value its assignment, relationship template or type gives, when known
// at compile time; an attribute is known at apply time, once the
// operations that set it ran (relAttributeRef). Relationships have no
// artifacts and allocate no capacity of their own.
func (ev *eval) relValue(n *yamlsrc.Node, fn string, re *relEnd, vals, rest []graph.Value) graph.Value {
	c, ra := ev.c, re.ra
	owner := "the relationship of requirement " + core.Quote(ra.name) + " of node template " + core.Quote(re.src.name)
	rt := ra.relType
	name, _ := rest[0].(string)
	if !ev.relQueryFits(n, fn, owner, rt, name) {
		return nil
	}
	if rt == nil {
		return unknown(fn, vals)
	}
	d := rt.props[name]
	c.relSecret(re, name)
	if d == nil || (fn == "get_attribute" && rt.attrs[name] != nil) {
		if fn == "get_attribute" && re.r >= 0 {
			return relAttributeRef(re, rest)
		}
		return unknown(fn, vals)
	}
	v, ok := ra.relProps[name]
	if !ok || graph.HasUnknown(v) {
		// Named by its type, or read before the values it reads were
		// known (a relationship's values are read with the requirements,
		// before the node templates' values): evaluated again now.
		v = ev.c.relProp(re, name, d)
	}
	if v == nil || graph.HasUnknown(v) {
		return unknown(fn, vals)
	}
	return walkValue(v, rest[1:])
}

// relAttributeRef is the apply-time value of the attribute of the
// relationship re along path (its name, then fields or indices): the
// attribute that the relationship's source records for it (pkg/executor
// resolves get_attribute(source, RELATIONSHIP, requirement, index,
// path…)), the index counting the relationships of the source's
// assignments of the requirement in their order.
func relAttributeRef(re *relEnd, path []graph.Value) graph.Unknown {
	idx := firstRelIndex(re.src, re.ra) + re.r
	args := append([]graph.Value{address(re.src, re.srcIdx), "RELATIONSHIP", re.ra.name, idx}, path...)
	return graph.Unknown{Func: "get_attribute", Args: args}
}

// firstRelIndex is the index, among the relationships of nd's
// requirement ra.name, of the first that the assignment ra makes.
func firstRelIndex(nd *node, ra *reqAssign) int64 {
	idx := int64(0)
	for _, o := range nd.reqs {
		if o == ra {
			break
		}
		if o.name == ra.name {
			idx += relCount(o)
		}
	}
	return idx
}

// relQueryFits reports whether the query fn can read name at a
// relationship (owner) of type rt (nil: not known), and reports why not:
// relationships have no artifacts and allocate no capacity of their own,
// and name must be a property (for $get_attribute, an attribute or a
// property) of rt.
func (ev *eval) relQueryFits(n *yamlsrc.Node, fn, owner string, rt *typeDef, name string) bool {
	c := ev.c
	switch {
	case fn == "get_artifact":
		c.Errorf(core.RangeOf(n), ev.path, core.CodeFunction, "$get_artifact: its TOSCA path ends at %s; artifacts belong to nodes (§12.2)", owner)
	case fn == "available_allocation":
		c.Errorf(core.RangeOf(n), ev.path, core.CodeFunction, "$available_allocation: its TOSCA path must lead to a capability (CAPABILITY <name>, §10.2.1.8), not to %s", owner)
	case rt == nil, rt.props[name] != nil, fn != "get_property" && rt.attrs[name] != nil:
		return true
	default:
		c.Errorf(core.RangeOf(n), ev.path, core.CodeUnknownProperty, "$%s: %s (type %q) has no %s %q", fn, owner, rt.name, noun(fn), name)
	}
	return false
}

// relTemplateValue evaluates a query at relationship template name
// itself (see pathEnd.relTpl): a property is the value the template
// gives, or its type's default, when known at compile time; an
// attribute is left to the orchestrator.
func (ev *eval) relTemplateValue(n *yamlsrc.Node, fn, name string, vals, rest []graph.Value) graph.Value {
	c := ev.c
	prop, _ := rest[0].(string)
	if !ev.relQueryFits(n, fn, "relationship template "+core.Quote(name), c.state.topo.relType[name], prop) {
		return nil
	}
	v, ok := c.state.topo.relProps[name][prop]
	if fn != "get_property" || !ok || v == nil || graph.HasUnknown(v) {
		return unknown(fn, vals)
	}
	return walkValue(v, rest[1:])
}

// relProp evaluates property name (definition d) of the relationship re
// in its relationship context: the value its assignment or relationship
// template gives, else its type's; nil while it is being evaluated (it
// reads itself). What it reports was reported when it was first read.
func (c *compiler) relProp(re *relEnd, name string, d *prop) graph.Value {
	var n *yamlsrc.Node
	switch rel := re.ra.rel; {
	case rel != nil && rel.Kind == yamlsrc.Mapping:
		n = rel.Get("properties").Get(name)
	case rel != nil && rel.IsString() && c.state.topo.rels[rel.Value] != nil:
		n = c.state.topo.rels[rel.Value].Get("properties").Get(name)
	}
	if n == nil {
		n = d.value
	}
	if n == nil {
		n = d.def
	}
	if n == nil || c.state.evaluating[n] {
		return nil
	}
	c.state.evaluating[n] = true
	defer delete(c.state.evaluating, n)
	rel := re.ra.relCtx()
	if re.r >= 0 {
		rel.index, rel.known = re.r, true
	}
	ev := &eval{c: c, f: c.root, node: re.src, rel: rel}
	var v graph.Value
	c.Quietly(func() { v = ev.eval(n, 0) })
	return v
}

// valuesAt returns the property and capability values of one
// representation of nd, as seen from the template from (SELF when nd is
// from): those of the current representation, or of representation idx
// (the first when idx is -1) of a template with count, evaluated for it;
// nil while nd's values are being evaluated (they read each other).
func (c *compiler) valuesAt(nd, from *node, idx int64) (map[string]graph.Value, map[string]map[string]graph.Value) {
	if !nd.isCounted() || (nd == from && idx < 0) {
		return nd.props, nd.caps
	}
	if nd.busy {
		return nil, nil
	}
	idx = max(idx, 0)
	if i, ok := nd.index.(int64); ok && i == idx {
		return nd.props, nd.caps
	}
	// Each representation is evaluated once, so that templates reading
	// each other's representations cost their number, not its power.
	if v, ok := nd.at[idx]; ok {
		return v.props, v.caps
	}
	index, props, attrs, caps := nd.index, nd.props, nd.attrs, nd.caps
	nd.busy, nd.index = true, idx
	c.nodeValues(c.root, nd)
	if nd.at == nil {
		nd.at = map[int64]repValues{}
	}
	nd.at[idx] = repValues{props: nd.props, caps: nd.caps}
	atProps, atCaps := nd.props, nd.caps
	nd.busy, nd.index, nd.props, nd.attrs, nd.caps = false, index, props, attrs, caps
	return atProps, atCaps
}

// repValues are the values of one representation.
type repValues struct {
	props map[string]graph.Value
	caps  map[string]map[string]graph.Value
}

func noun(fn string) string {
	if fn == "get_property" {
		return "property"
	}
	return "attribute or property"
}

// attributeOf is the apply-time value attribute(address, path…) of one
// representation, or the list of them all. A whole attribute (or
// property) whose declared type has values other than strings is read
// as that type, as(kind, attribute(…)): operations report their outputs
// as text, which apply converts (pkg/executor.Resolve), so that "5432"
// is the integer a $sum or an integer property takes.
func (ev *eval) attributeOf(nd *node, end pathEnd, path []graph.Value) graph.Value {
	kind := attrKind(nd, end.capName, path)
	one := func(idx int64) graph.Value {
		v := graph.Unknown{Func: "attribute", Args: append([]graph.Value{address(nd, idx)}, path...)}
		if kind == "" {
			return v
		}
		return graph.Unknown{Func: "as", Args: []graph.Value{kind, v}}
	}
	if !end.all {
		idx := end.idx
		if nd != ev.node && idx < 0 {
			idx = 0
		}
		return one(idx)
	}
	out := make([]graph.Value, 0, nd.count)
	for i := range nd.count {
		out = append(out, one(i))
	}
	return out
}

// attrKind is the kind of JSON value (resultKind) of the attribute,
// else property, that path names in full on node template nd (or on its
// capability capName): integer, float, boolean, list or map; "" for a
// string, for a path into the value, or when the definition's type is
// not known.
func attrKind(nd *node, capName string, path []graph.Value) string {
	attrs, props := nd.typ.attrs, nd.typ.props
	if capName != "" {
		cd := nd.typ.caps[capName]
		if cd == nil || len(path) != 2 {
			return ""
		}
		attrs, props, path = cd.attrs, cd.props, path[1:]
	}
	name, _ := path[0].(string)
	if len(path) != 1 {
		return ""
	}
	d := attrs[name]
	if d == nil {
		d = props[name]
	}
	if d == nil || d.typ == nil {
		return ""
	}
	switch k := resultKind(d.typ); k {
	case "integer", "float", "boolean", "list", "map":
		return k
	}
	return ""
}

// artifactOf evaluates $get_artifact (§10.2.1.4) at the end of its path:
// the location of the artifact named by rest[0] of the node template (its
// own artifacts, then its type's), as the operations that read it see
// it. A relative file is taken from the folder of the file that declares
// the artifact and given relative to the folder of the top-level
// template, the working directory of every operation (a type's artifact
// "scripts/x.sh" in types/app.yaml is "types/scripts/x.sh"); it is
// confined to the configuration root like any artifact. A URL, an
// absolute path or a file in a repository is given as written: xosplan
// fetches nothing. TOSCA 1.3's location and remove arguments (§4.8.1 of
// 1.3; 2.0 dropped them) are read as 1.3 reads them with a
// tosca.legacy_keyname warning: LOCAL_FILE is the same local path, and
// since xosplan never copies an artifact, there is nothing to remove; a
// location to deploy to is an error.
func (ev *eval) artifactOf(n *yamlsrc.Node, end pathEnd, rest []graph.Value) graph.Value {
	c, nd := ev.c, end.node
	name, _ := rest[0].(string)
	if end.capName != "" {
		c.Errorf(core.RangeOf(n), ev.path, core.CodeFunction, "$get_artifact: its TOSCA path ends at capability %q of node template %q; artifacts belong to nodes (§12.2)", end.capName, nd.name)
		return nil
	}
	switch extra := rest[1:]; {
	case len(extra) == 0:
	case len(extra) > 2 || extra[0] != "LOCAL_FILE":
		c.Errorf(core.RangeOf(n), ev.path, core.CodeFunction, "$get_artifact takes a TOSCA path and an artifact name (§10.2.1.4); after %q it has %s, and xosplan deploys no artifact to another location", name, describeGo(extra))
		return nil
	default:
		if len(extra) == 2 {
			if _, isBool := extra[1].(bool); !isBool {
				c.Errorf(core.RangeOf(n), ev.path, core.CodeFunction, "$get_artifact: remove must be true or false, found %s", describeGo(extra[1]))
				return nil
			}
		}
		c.Warnf(core.RangeOf(n), ev.path, core.CodeLegacyKeyname, "$get_artifact's location and remove arguments are TOSCA 1.3's (2.0 §10.2.1.4 takes a TOSCA path and an artifact name); read as 1.3 reads them: LOCAL_FILE is the artifact's local path, and xosplan, which copies no artifact, removes nothing")
	}
	a := nodeArtifact(nd, name)
	if a == nil {
		c.Errorf(core.RangeOf(n), ev.path, core.CodeFunction, "$get_artifact: node template %q has no artifact %q", nd.name, name)
		return nil
	}
	one := c.artifactPath(a, ev.path)
	if !end.all {
		return one
	}
	out := make([]graph.Value, nd.count)
	for i := range out {
		out[i] = one
	}
	return out
}

// nodeArtifact returns the definition of the artifact name of node
// template nd: its own, else (or when its own refines one without giving
// the file) its type's; nil for none.
func nodeArtifact(nd *node, name string) *yamlsrc.Node {
	a := nd.n.Get("artifacts").Get(name)
	if t := nd.typ.artifacts[name]; t != nil && (a == nil || a.Get("file") == nil) {
		return t
	}
	return a
}

// artifactPath is the location of an artifact definition a (see
// artifactOf); nil when it has no file, which was reported where it was
// read.
func (c *compiler) artifactPath(a *yamlsrc.Node, path string) graph.Value {
	file, ok := c.artifactFile(a, c.root.dir, path, core.CodeArtifactOutsideRoot, "artifact")
	if !ok {
		return nil
	}
	return file
}

// artifactFile is the file of the artifact definition a as seen from
// the folder base: taken from the folder of the file that declares it
// and written relative to base, confined to the configuration root (a
// warning of code code naming it what). A URL, an absolute path, a file
// in a repository or one an embedded profile declares is as written. ok
// is false when a has no file.
func (c *compiler) artifactFile(a *yamlsrc.Node, base, path, code, what string) (string, bool) {
	fn := a.Get("file")
	if fn == nil || !fn.IsString() {
		return "", false
	}
	file := fn.Value
	if a.Get("repository") != nil || strings.Contains(file, "://") || strings.HasPrefix(file, "/") || fn.Range.File == "" {
		return file, true
	}
	dir := filepath.Dir(fn.Range.File)
	c.ConfineNamed(fn, file, dir, path, code, what)
	rel, err := filepath.Rel(base, filepath.Join(dir, filepath.FromSlash(file)))
	if err != nil {
		return file, true
	}
	return filepath.ToSlash(rel), true
}

// availableAllocation evaluates $available_allocation (§10.2.1.8): its
// path leads to a capability, the name that follows to an allocatable
// property (integer, float or scalar) of it. The value is the
// capability's capacity, the property's value, less what the
// allocations of the template's requirements that target it take (each
// representation of a source allocates; §8.5.5), when both are known at
// compile time: the target is a template without count that is neither
// selected nor substituted (their capacity is the inventory's or the
// substitute's). Otherwise it stays
// graph.Unknown available_allocation(address, capability, property),
// which pkg/executor reports it cannot resolve.
func (ev *eval) availableAllocation(n *yamlsrc.Node, end pathEnd, vals, rest []graph.Value) graph.Value {
	c, nd := ev.c, end.node
	if end.capName == "" {
		c.Errorf(core.RangeOf(n), ev.path, core.CodeFunction, "$available_allocation: its TOSCA path must lead to a capability (CAPABILITY <name>, §10.2.1.8)")
		return nil
	}
	name, _ := rest[0].(string)
	cd := nd.typ.caps[end.capName]
	if cd.typ == nil {
		return unknown("available_allocation", vals)
	}
	d := cd.props[name]
	switch {
	case len(rest) > 1:
		c.Errorf(core.RangeOf(n), ev.path, core.CodeFunction, "$available_allocation takes a TOSCA path and a property name, found %s after %q", describeGo(rest[1:]), name)
		return nil
	case d == nil:
		c.Errorf(core.RangeOf(n), ev.path, core.CodeUnknownProperty, "$available_allocation: capability %q of node template %q has no property %q", end.capName, nd.name, name)
		return nil
	case d.typ != nil && d.typ.base != "integer" && d.typ.base != "float" && d.typ.scalar == nil:
		c.Errorf(core.RangeOf(n), ev.path, core.CodeFunction, "$available_allocation of %q, a %s: only integer, float and scalar properties are allocated (§8.5.5)", name, d.typ.name)
		return nil
	}
	later := graph.Unknown{Func: "available_allocation", Args: []graph.Value{address(nd, end.idx), end.capName, name}}
	if nd.isCounted() || end.all || c.selectable(nd.n) {
		return later
	}
	capacity, ok := quantity(d.typ, ev.capValue(nd, end.capName, name, d))
	if !ok {
		return later
	}
	used, ok := c.allocated(nd, end.capName, name, d)
	if !ok {
		return later
	}
	left := capacity - used
	switch {
	case d.typ != nil && d.typ.scalar != nil:
		return formatScalar(d.typ.scalar, left)
	case d.typ != nil && d.typ.base == "integer":
		return int64(left)
	}
	return left
}

// capValue is the value of property prop (definition d) of capability
// capName of the node template nd without count: the one evaluated with
// nd's values, or, while they are not yet (nd's own properties, or a
// template later in the file), the assignment or default evaluated now;
// nil while it is being evaluated (it reads itself).
func (ev *eval) capValue(nd *node, capName, prop string, d *prop) graph.Value {
	if v, ok := nd.caps[capName][prop]; ok {
		return v
	}
	n := nd.n.Get("capabilities").Get(capName).Get("properties").Get(prop)
	if n == nil {
		n = d.value
	}
	if n == nil {
		n = d.def
	}
	if n == nil || ev.c.state.evaluating[n] {
		return nil
	}
	ev.c.state.evaluating[n] = true
	defer delete(ev.c.state.evaluating, n)
	at := eval{c: ev.c, f: ev.c.root, node: nd, path: ev.path}
	return at.eval(n, 0)
}

// allocated adds up what the requirements of the template allocate of
// property prop (definition d) of capability capName of target; false
// when an amount is not known at compile time.
func (c *compiler) allocated(target *node, capName, prop string, d *prop) (float64, bool) {
	sum := 0.0
	for _, src := range c.state.topo.nodes {
		for _, ra := range src.reqs {
			if ra.alloc == nil || ra.target != target || ra.capName != capName {
				continue
			}
			an := ra.alloc.Get(prop)
			if an == nil {
				continue
			}
			ev := &eval{c: c, f: c.root, node: src}
			amount, ok := quantity(d.typ, ev.evalAt(an, ra.path+".allocation."+prop))
			if !ok {
				return 0, false
			}
			sum += amount * float64(src.count)
		}
	}
	return sum, true
}
