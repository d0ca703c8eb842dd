package tosca

// TOSCA Path (§10.3) and the graph query functions that follow it:
// $get_property, $get_attribute, $get_artifact and
// $available_allocation.
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
		return ev.artifactOf(n, end, rest)
	case fn == "available_allocation":
		return ev.availableAllocation(n, end, vals, rest)
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
func (ev *eval2) artifactOf(n *yamlsrc.Node, end pathEnd, rest []graph.Value) graph.Value {
	c, nd := ev.c, end.node
	name, _ := rest[0].(string)
	if end.capName != "" {
		c.errorf(rangeOf(n), ev.path, CodeFunction, "$get_artifact: its TOSCA path ends at capability %q of node template %q; artifacts belong to nodes (§12.2)", end.capName, nd.name)
		return nil
	}
	switch extra := rest[1:]; {
	case len(extra) == 0:
	case len(extra) > 2 || extra[0] != "LOCAL_FILE":
		c.errorf(rangeOf(n), ev.path, CodeFunction, "$get_artifact takes a TOSCA path and an artifact name (§10.2.1.4); after %q it has %s, and xosplan deploys no artifact to another location", name, describeGo2(extra))
		return nil
	default:
		if len(extra) == 2 {
			if _, isBool := extra[1].(bool); !isBool {
				c.errorf(rangeOf(n), ev.path, CodeFunction, "$get_artifact: remove must be true or false, found %s", describeGo2(extra[1]))
				return nil
			}
		}
		c.warnf(rangeOf(n), ev.path, CodeLegacyKeyname, "$get_artifact's location and remove arguments are TOSCA 1.3's (2.0 §10.2.1.4 takes a TOSCA path and an artifact name); read as 1.3 reads them: LOCAL_FILE is the artifact's local path, and xosplan, which copies no artifact, removes nothing")
	}
	a := nd.n.Get("artifacts").Get(name)
	if a == nil {
		a = nd.typ.artifacts[name]
	}
	if a == nil {
		c.errorf(rangeOf(n), ev.path, CodeFunction, "$get_artifact: node template %q has no artifact %q", nd.name, name)
		return nil
	}
	one := c.artifactPath2(a, ev.path)
	if !end.all {
		return one
	}
	out := make([]graph.Value, nd.count)
	for i := range out {
		out[i] = one
	}
	return out
}

// artifactPath2 is the location of an artifact definition a (see
// artifactOf); nil when it has no file, which was reported where it was
// read.
func (c *compiler) artifactPath2(a *yamlsrc.Node, path string) graph.Value {
	fn := a.Get("file")
	if fn == nil || !fn.IsString() {
		return nil
	}
	file := fn.Value
	if a.Get("repository") != nil || strings.Contains(file, "://") || strings.HasPrefix(file, "/") || fn.Range.File == "" {
		return file
	}
	dir := filepath.Dir(fn.Range.File)
	c.confineNamed(fn, file, dir, path, CodeArtifactOutsideRoot, "artifact")
	rel, err := filepath.Rel(c.root.dir, filepath.Join(dir, filepath.FromSlash(file)))
	if err != nil {
		return file
	}
	return filepath.ToSlash(rel)
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
func (ev *eval2) availableAllocation(n *yamlsrc.Node, end pathEnd, vals, rest []graph.Value) graph.Value {
	c, nd := ev.c, end.node
	if end.capName == "" {
		c.errorf(rangeOf(n), ev.path, CodeFunction, "$available_allocation: its TOSCA path must lead to a capability (CAPABILITY <name>, §10.2.1.8)")
		return nil
	}
	name, _ := rest[0].(string)
	cd := nd.typ.caps[end.capName]
	if cd.typ == nil {
		return unknown2("available_allocation", vals)
	}
	d := cd.props[name]
	switch {
	case len(rest) > 1:
		c.errorf(rangeOf(n), ev.path, CodeFunction, "$available_allocation takes a TOSCA path and a property name, found %s after %q", describeGo2(rest[1:]), name)
		return nil
	case d == nil:
		c.errorf(rangeOf(n), ev.path, CodeUnknownProperty, "$available_allocation: capability %q of node template %q has no property %q", end.capName, nd.name, name)
		return nil
	case d.typ != nil && d.typ.base != "integer" && d.typ.base != "float" && d.typ.scalar == nil:
		c.errorf(rangeOf(n), ev.path, CodeFunction, "$available_allocation of %q, a %s: only integer, float and scalar properties are allocated (§8.5.5)", name, d.typ.name)
		return nil
	}
	later := graph.Unknown{Func: "available_allocation", Args: []graph.Value{address2(nd, end.idx), end.capName, name}}
	if _, counted := nd.n.GetPair("count"); counted || end.all || c.selectable2(nd.n) {
		return later
	}
	capacity, ok := quantity2(d.typ, ev.capValue2(nd, end.capName, name, d))
	if !ok {
		return later
	}
	used, ok := c.allocated2(nd, end.capName, name, d)
	if !ok {
		return later
	}
	left := capacity - used
	switch {
	case d.typ != nil && d.typ.scalar != nil:
		return formatScalar2(d.typ.scalar, left)
	case d.typ != nil && d.typ.base == "integer":
		return int64(left)
	}
	return left
}

// capValue2 is the value of property prop (definition d) of capability
// capName of the node template nd without count: the one evaluated with
// nd's values, or, while they are not yet (nd's own properties, or a
// template later in the file), the assignment or default evaluated now;
// nil while it is being evaluated (it reads itself).
func (ev *eval2) capValue2(nd *node2, capName, prop string, d *prop2) graph.Value {
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
	if n == nil || ev.c.v2.evaluating[n] {
		return nil
	}
	ev.c.v2.evaluating[n] = true
	defer delete(ev.c.v2.evaluating, n)
	at := eval2{c: ev.c, f: ev.c.root, node: nd, path: ev.path}
	return at.eval(n, 0)
}

// allocated2 adds up what the requirements of the template allocate of
// property prop (definition d) of capability capName of target; false
// when an amount is not known at compile time.
func (c *compiler) allocated2(target *node2, capName, prop string, d *prop2) (float64, bool) {
	sum := 0.0
	for _, src := range c.v2.topo.nodes {
		ev := &eval2{c: c, f: c.root, node: src}
		for _, ra := range src.reqs {
			if ra.alloc == nil || ra.target != target || ra.capName != capName {
				continue
			}
			an := ra.alloc.Get(prop)
			if an == nil {
				continue
			}
			amount, ok := quantity2(d.typ, ev.evalAt(an, ra.path+".allocation."+prop))
			if !ok {
				return 0, false
			}
			sum += amount * float64(src.count)
		}
	}
	return sum, true
}
