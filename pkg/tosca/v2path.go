package tosca

// TOSCA Path (§10.3) and the graph query functions that follow it:
// $get_property, $get_attribute and $get_artifact.
//
// A path starts at SELF (the node template whose value is evaluated) or
// at a node template's name, optionally followed by the index of a
// representation (an integer or ALL); it then follows RELATIONSHIP
// <requirement> [idx] to the relationship a requirement makes, from which
// TARGET and SOURCE lead to nodes, and CAPABILITY <name> ends in a
// capability of the current node. What is left names the property or
// attribute and the keys and indices into its value.
//
// Errors detected here (tosca.function, tosca.unknown_template,
// tosca.unknown_requirement, tosca.unknown_capability,
// tosca.unknown_property): a path that does not start with SELF or a
// node template, a requirement or capability the node does not have, a
// property (for $get_property; an attribute or property for
// $get_attribute) the entity does not define. Paths through incoming
// relationships (CAPABILITY <name> RELATIONSHIP) and relationship
// contexts are left to apply time.
//
// $get_property of a node's property is its value when it is known at
// compile time; otherwise, and for $get_attribute always, the value is a
// graph.Unknown attribute(address, name, path…) that the executor reads
// from the recorded state (pkg/executor.Resolve).

import (
	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/graph"
)

// pathEnd is where a TOSCA path leads: a node (one representation, or
// all of them), perhaps one of its capabilities; rel is set when the path
// ends in a relationship, whose values only apply time knows.
type pathEnd struct {
	node *node2
	// idx is the representation; -1 for the current one (SELF) or the
	// first.
	idx     int64
	all     bool
	capName string
	rel     bool
}

func isIndex(v graph.Value) bool {
	if s, ok := v.(string); ok {
		return s == "ALL"
	}
	_, ok := v.(int64)
	return ok
}

// walkPath follows a TOSCA path; it returns the end, what is left of the
// arguments, and false with an error reported at n when the path does not
// fit the template.
func (ev *eval2) walkPath(n *yamlsrc.Node, fn string, vals []graph.Value) (pathEnd, []graph.Value, bool) {
	c := ev.c
	topo := c.v2.topo
	end := pathEnd{idx: -1}
	first, _ := vals[0].(string)
	switch {
	case first == "SELF":
		end.node = ev.node
		if ev.node == nil {
			return end, nil, false
		}
	case topo != nil && topo.byName[first] != nil:
		end.node = topo.byName[first]
	case topo != nil && topo.rels[first] != nil:
		end.rel = true
		return end, nil, false
	default:
		c.errorf(rangeOf(n), ev.path, CodeUnknownTemplate, "$%s starts at %q, which is neither SELF nor a node or relationship template", fn, graph.Text(vals[0]))
		return end, nil, false
	}
	rest := vals[1:]
	if first != "SELF" && len(rest) > 0 && isIndex(rest[0]) {
		end.idx, end.all = indexOf(rest[0])
		rest = rest[1:]
	}
	for len(rest) > 0 {
		step, _ := rest[0].(string)
		switch step {
		case "RELATIONSHIP":
			if len(rest) < 2 {
				c.errorf(rangeOf(n), ev.path, CodeFunction, "$%s: RELATIONSHIP names a requirement", fn)
				return end, nil, false
			}
			req, _ := rest[1].(string)
			var ra *reqAssign2
			for _, r := range end.node.reqs {
				if r.name == req && ra == nil {
					ra = r
				}
			}
			if ra == nil {
				if !hasReqDef(end.node.typ, req) {
					c.errorf(rangeOf(n), ev.path, CodeUnknownRequirement, "$%s: node template %q has no requirement %q", fn, end.node.name, req)
				}
				return end, nil, false
			}
			rest = rest[2:]
			if len(rest) > 0 && isIndex(rest[0]) {
				rest = rest[1:]
			}
			switch {
			case len(rest) > 0 && rest[0] == "TARGET":
				if ra.target == nil {
					return end, nil, false
				}
				end = pathEnd{node: ra.target, idx: -1}
				rest = rest[1:]
			case len(rest) > 0 && rest[0] == "SOURCE":
				rest = rest[1:]
			default:
				end.rel = true
				return end, rest, true
			}
		case "CAPABILITY":
			if len(rest) < 2 {
				c.errorf(rangeOf(n), ev.path, CodeFunction, "$%s: CAPABILITY names a capability", fn)
				return end, nil, false
			}
			name, _ := rest[1].(string)
			if end.node.typ.caps[name] == nil {
				c.errorf(rangeOf(n), ev.path, CodeUnknownCapability, "$%s: node template %q has no capability %q", fn, end.node.name, name)
				return end, nil, false
			}
			if len(rest) > 2 && rest[2] == "RELATIONSHIP" {
				// An incoming relationship: known when applied.
				end.rel = true
				return end, rest[3:], true
			}
			end.capName = name
			return end, rest[2:], true
		default:
			return end, rest, true
		}
	}
	return end, rest, true
}

func indexOf(v graph.Value) (int64, bool) {
	if i, ok := v.(int64); ok {
		return i, false
	}
	return -1, true
}

func hasReqDef(t *typeDef2, name string) bool {
	for _, r := range t.reqs {
		if r.name == name {
			return true
		}
	}
	return false
}

// address2 returns the resource address of one representation of a node
// template; idx -1 is the current one (while rendering) or the first.
func address2(nd *node2, idx int64) string {
	if _, counted := nd.n.GetPair("count"); !counted {
		return nd.name
	}
	if idx < 0 {
		if i, ok := nd.index.(int64); ok {
			idx = i
		} else {
			idx = 0
		}
	}
	return nd.name + "[" + itoa(idx) + "]"
}

// query evaluates $get_property, $get_attribute and $get_artifact.
func (ev *eval2) query(n *yamlsrc.Node, fn string, vals []graph.Value) graph.Value {
	if len(vals) < 2 || (ev.node == nil && vals[0] == "SELF") {
		// SELF outside a node template (a type's validation clause) is
		// known when a template uses the type.
		return unknown2(fn, vals)
	}
	for _, v := range vals {
		if isUnknown2(v) {
			return unknown2(fn, vals)
		}
	}
	end, rest, ok := ev.walkPath(n, fn, vals)
	if !ok || end.rel || len(rest) == 0 {
		return unknown2(fn, vals)
	}
	name, _ := rest[0].(string)
	nd := end.node
	switch {
	case fn == "get_artifact":
		return unknown2(fn, vals)
	case end.capName != "" && nd.typ.caps[end.capName].typ == nil:
		return unknown2(fn, vals)
	case end.capName != "":
		cd := nd.typ.caps[end.capName]
		if cd.props[name] == nil && (fn == "get_property" || cd.attrs[name] == nil) {
			ev.c.errorf(rangeOf(n), ev.path, CodeUnknownProperty, "$%s: capability %q of node template %q has no %s %q", fn, end.capName, nd.name, noun2(fn), name)
			return nil
		}
		if fn == "get_property" && !end.all {
			_, caps := ev.c.valuesAt2(nd, ev.node, end.idx)
			if v, ok := caps[end.capName][name]; ok && !isUnknown2(v) {
				return ev.walkValue(v, rest[1:])
			}
		}
		return ev.attributeOf(nd, end, append([]graph.Value{end.capName}, rest...))
	}
	if nd.typ.props[name] == nil && (fn == "get_property" || nd.typ.attrs[name] == nil) {
		ev.c.errorf(rangeOf(n), ev.path, CodeUnknownProperty, "$%s: node template %q has no %s %q", fn, nd.name, noun2(fn), name)
		return nil
	}
	if fn == "get_property" && !end.all {
		props, _ := ev.c.valuesAt2(nd, ev.node, end.idx)
		if v, ok := props[name]; ok && !isUnknown2(v) {
			return ev.walkValue(v, rest[1:])
		}
	}
	return ev.attributeOf(nd, end, rest)
}

// valuesAt2 returns the property and capability values of one
// representation of nd, as seen from the template from (SELF when nd is
// from): those of the current representation, or of representation idx
// (the first when idx is -1) of a template with count, evaluated for it;
// nil while nd's values are being evaluated (they read each other).
func (c *compiler) valuesAt2(nd, from *node2, idx int64) (map[string]graph.Value, map[string]map[string]graph.Value) {
	if _, counted := nd.n.GetPair("count"); !counted || (nd == from && idx < 0) {
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
	c.nodeValues2(c.root, nd)
	if nd.at == nil {
		nd.at = map[int64]repValues2{}
	}
	nd.at[idx] = repValues2{props: nd.props, caps: nd.caps}
	atProps, atCaps := nd.props, nd.caps
	nd.busy, nd.index, nd.props, nd.attrs, nd.caps = false, index, props, attrs, caps
	return atProps, atCaps
}

// repValues2 are the values of one representation.
type repValues2 struct {
	props map[string]graph.Value
	caps  map[string]map[string]graph.Value
}

func noun2(fn string) string {
	if fn == "get_property" {
		return "property"
	}
	return "attribute or property"
}

// attributeOf is the apply-time value attribute(address, path…) of one
// representation, or the list of them all.
func (ev *eval2) attributeOf(nd *node2, end pathEnd, path []graph.Value) graph.Value {
	one := func(idx int64) graph.Value {
		return graph.Unknown{Func: "attribute", Args: append([]graph.Value{address2(nd, idx)}, path...)}
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
