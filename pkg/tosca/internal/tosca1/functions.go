package tosca1

// Phase 7 — functions: intrinsic functions in values.
//
// get_input and get_property resolve at compile time; get_attribute and
// get_operation_output become graph.Unknown values that the executor fills
// in at apply time; concat, join and token fold when their arguments are
// known and stay Unknown otherwise; get_artifact yields the artifact's file.
//
// Errors detected here (tosca.function unless noted):
//   - wrong argument counts and kinds for every function
//   - get_input of an undeclared input (tosca.unknown_input)
//   - get_property / get_attribute naming an unknown template, capability, requirement,
//     property or attribute (tosca.unknown_template, tosca.unknown_property); of [entity,
//     requirement, name], a name neither the target node, the capability targeted there nor
//     (get_property) the relationship has; as a warning, of a requirement not yet assigned,
//     a name no type its definition names declares
//   - HOST where no HostedOn relationship leads to a host, and HOST in outputs
//   - SOURCE / TARGET outside a relationship context
//   - get_property / get_attribute of the relationship (SELF in its operations and
//     property values, or a relationship template by name) naming a property or
//     attribute its type does not declare (tosca.unknown_property)
//   - get_operation_output naming an unknown interface or operation
//   - get_artifact naming an unknown artifact
//   - get_property cycles (a property that depends on itself)

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
)

// scope is where a value is evaluated.
type scope struct {
	at diag.Range
	// node is SELF for node template values.
	node *nodeTpl
	// rel is SELF for relationship template values; req the requirement
	// whose relationship is evaluated, in its property values and its
	// operations (SELF = that relationship, SOURCE = the node holding the
	// requirement, TARGET = its target). In those operations node is the
	// source too: they run with it, from its folder, with its artifacts.
	rel *relTpl
	req *reqAssign
	// inputsOnly marks input defaults, where only constants make sense.
	inputsOnly bool
	// outputs marks topology outputs, where HOST is not allowed.
	outputs bool
	depth   int
}

// functionName reports whether n is a function call, a map with one key
// that names an intrinsic function.
func functionName(n *yamlsrc.Node) (string, bool) {
	if n == nil || n.Kind != yamlsrc.Mapping || len(n.Content) != 2 {
		return "", false
	}
	switch k := n.Content[0].Value; k {
	case "get_input", "get_property", "get_attribute", "get_operation_output", "get_artifact",
		"concat", "join", "token", "get_nodes_of_type":
		return k, true
	}
	return "", false
}

func (c *compiler) fnErr(n *yamlsrc.Node, path, format string, args ...any) graph.Value {
	c.errorf(n.Range, path, core.CodeFunction, format, args...)
	return nil
}

// evalFunction evaluates one function call.
func (c *compiler) evalFunction(fn string, n *yamlsrc.Node, path string, s *scope) (v graph.Value) {
	if c.idx != nil {
		before := c.SecretReads
		defer func() { c.noteCall(fn, n, v, c.InSecret > 0 || c.SecretReads > before) }()
	}
	if s == nil {
		s = &scope{at: n.Range}
	}
	if s.depth > maxValueDepth {
		return c.fnErr(n, path, "%s: functions nested too deeply", fn)
	}
	if s.inputsOnly && fn != "concat" && fn != "join" && fn != "token" {
		// An input's value must be known before the topology is: it may
		// not depend on templates or other inputs.
		return c.fnErr(n, path, "%s cannot be used in an input value or default", fn)
	}
	inner := *s
	inner.depth++
	args := n.Content[1]
	switch fn {
	case "get_input":
		return c.fnGetInput(args, path, &inner)
	case "get_property":
		return c.fnGetProperty(args, path, &inner)
	case "get_attribute":
		return c.fnGetAttribute(args, path, &inner)
	case "get_operation_output":
		return c.fnGetOperationOutput(args, path, &inner)
	case "get_artifact":
		return c.fnGetArtifact(args, path, &inner)
	case "concat":
		return c.fnConcat(args, path, &inner)
	case "join":
		return c.fnJoin(args, path, &inner)
	case "token":
		return c.fnToken(args, path, &inner)
	case "get_nodes_of_type":
		return c.fnNodesOfType(args, path)
	}
	return nil
}

func (c *compiler) fnGetInput(args *yamlsrc.Node, path string, s *scope) graph.Value {
	name := args
	var rest []*yamlsrc.Node
	if args.Kind == yamlsrc.Sequence {
		if len(args.Content) == 0 || (len(args.Content) > 1 && c.version != version13) {
			return c.fnErr(args, path, "get_input takes one argument, the input name; found %d", len(args.Content))
		}
		name, rest = args.Content[0], args.Content[1:]
	}
	if name.Kind != yamlsrc.Scalar || name.IsNull() {
		return c.fnErr(args, path, "get_input takes an input name, found %s", name.Describe())
	}
	in := c.topo.inputs[name.Value]
	if in == nil {
		c.errorf(name.Range, path, core.CodeUnknownInput, "unknown input %q", name.Value)
		return nil
	}
	c.noteInput(name, in)
	if in.d.sensitive {
		c.SecretReads++
	}
	v := in.val
	for _, r := range rest {
		v = c.index(v, r, path)
	}
	return v
}

// index steps into a value by a field name or list index; unknown values
// stay unknown and a missing value stays missing. A scalar has nothing to
// step into: that is an error, not the scalar itself.
func (c *compiler) index(v graph.Value, key *yamlsrc.Node, path string) graph.Value {
	switch x := v.(type) {
	case map[string]graph.Value:
		e, ok := x[key.Value]
		if !ok {
			c.errorf(key.Range, path, core.CodeFunction, "value has no field %q", key.Value)
		}
		return e
	case []graph.Value:
		i, ok := key.Int()
		if !ok || i < 0 || int(i) >= len(x) {
			c.errorf(key.Range, path, core.CodeFunction, "index %q is out of range for a list of %d", key.Value, len(x))
			return nil
		}
		return x[i]
	case string, int64, float64, bool:
		c.errorf(key.Range, path, core.CodeFunction, "cannot select %q from %s, which has no fields or elements", key.Value, scalarKind(x))
		return nil
	}
	return v
}

// scalarKind names the kind of a scalar value for messages.
func scalarKind(v graph.Value) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	}
	return "a boolean"
}

// relRef is a relationship a function reads: a relationship template
// named by its name (TOSCA 1.3 §4.4.1, §4.5.1), or the relationship of
// requirement assignment ra, which SELF denotes in the relationship's own
// values and operations (§4.1) and which may use template tpl.
type relRef struct {
	tpl *relTpl
	ra  *reqAssign
}

// typ is the relationship's type; nil when it is unknown.
func (r *relRef) typ() *typeDef {
	if r.ra != nil {
		return r.ra.relType
	}
	return r.tpl.typ
}

// what names the relationship in messages.
func (r *relRef) what() string {
	if r.ra == nil {
		return "relationship template " + quote(r.tpl.name)
	}
	w := "the relationship of requirement " + quote(r.ra.name) + " of node template " + quote(r.ra.src.name)
	if r.ra.relTpl != nil {
		w += " (relationship template " + quote(r.ra.relTpl.name) + ")"
	}
	return w
}

// relRefProp is the value of the relationship r's property name, which
// its type declares: what the requirement assigns, else what the
// relationship template it uses assigns, else the type's default. A
// requirement's relationship read from its own property values while
// they are being evaluated has none yet (nil).
func (c *compiler) relRefProp(r *relRef, name string) graph.Value {
	if r.ra == nil {
		c.readSecretAt(r.tpl.path + ".properties." + name)
		return r.tpl.props[name]
	}
	before := c.SecretReads
	var v graph.Value
	if r.ra.relBusy {
		v = c.relPropRead(r, name)
	} else {
		v = c.relPropsOf(r.ra)[name]
	}
	c.SecretReads = before
	if r.ra.relBody == nil && r.ra.relTpl != nil {
		c.readSecretAt(r.ra.relTpl.path + ".properties." + name)
	} else {
		c.readSecretAt(r.ra.path + ".relationship.properties." + name)
	}
	return v
}

// relPropRead evaluates the property name of the relationship r while
// its property values are being evaluated (one reads another through
// SELF): on its own, quietly (what it finds is reported where the values
// are evaluated). A property read through itself is reported once, by
// the outermost such read, and has no value.
func (c *compiler) relPropRead(r *relRef, name string) graph.Value {
	ra := r.ra
	if slices.Contains(ra.relReading, name) {
		ra.relCycle = true
		return nil
	}
	d := ra.relType.props[name]
	props, path := ra.relBody.Get("properties"), ra.path+".relationship.properties."+name
	if ra.relBody == nil && ra.relTpl != nil {
		props, path = ra.relTpl.n.Get("properties"), ra.relTpl.path+".properties."+name
	}
	an := props.Get(name)
	if (props != nil && props.Kind != yamlsrc.Mapping) || (an == nil && !d.hasDefault) {
		return nil
	}
	at := an
	if at == nil {
		at = d.def
	}
	top := len(ra.relReading) == 0
	ra.relReading = append(ra.relReading, name)
	s := &scope{at: ra.key, req: ra}
	var v graph.Value
	c.Quietly(func() {
		if an != nil {
			v = c.checkAssigned(d, an, path, "property "+quote(name), s)
		} else {
			v = c.checkValue(d, d.def, path, "property "+quote(name), s)
		}
	})
	ra.relReading = ra.relReading[:len(ra.relReading)-1]
	if top && ra.relCycle {
		ra.relCycle = false
		c.errorf(rangeOf(at), path, core.CodeFunction, "property %q of %s depends on itself through get_property", name, r.what())
		return nil
	}
	return v
}

// relAttributeRef is the apply-time value of get_attribute of the
// relationship r along path (the attribute's name, then fields or
// indices). A relationship template named by its name is addressed by
// that name; the relationship of a requirement assignment by the TOSCA
// path to it from its source, RELATIONSHIP, the requirement's name and,
// when the node has several assignments of it, the index of this one.
func relAttributeRef(r *relRef, path []*yamlsrc.Node) graph.Unknown {
	if r.ra == nil {
		return attributeRef(r.tpl.name, path)
	}
	ref := attributeRef(r.ra.src.name, path)
	head := []graph.Value{r.ra.src.name, "RELATIONSHIP", r.ra.name}
	if idx, n := r.ra.index(); n > 1 {
		head = append(head, int64(idx))
	}
	return graph.Unknown{Func: "get_attribute", Args: append(head, ref.Args[1:]...)}
}

// index returns the index of ra among its node's assignments of the
// same requirement, and how many there are.
func (ra *reqAssign) index() (idx, n int) {
	for _, o := range ra.src.reqs {
		if o.name == ra.name {
			if o == ra {
				idx = n
			}
			n++
		}
	}
	return idx, n
}

// entity resolves the modelable entity name of get_property /
// get_attribute / get_operation_output.
func (c *compiler) entity(n *yamlsrc.Node, fn, path string, s *scope, attr string) (*nodeTpl, *relRef, bool) {
	if n.Kind != yamlsrc.Scalar || n.IsNull() {
		c.fnErr(n, path, "%s: the first argument must be SELF, SOURCE, TARGET, HOST or a template name, found %s", fn, n.Describe())
		return nil, nil, false
	}
	switch n.Value {
	case "SELF":
		if s.req != nil {
			if s.req.relType == nil {
				return nil, nil, true
			}
			return nil, &relRef{ra: s.req, tpl: s.req.relTpl}, true
		}
		if s.node != nil {
			return s.node, nil, true
		}
		if s.rel != nil {
			return nil, &relRef{tpl: s.rel}, true
		}
		c.fnErr(n, path, "%s: SELF is only meaningful inside a template", fn)
		return nil, nil, false
	case "SOURCE", "TARGET":
		if s.req != nil {
			if n.Value == "SOURCE" {
				return s.req.sourceOf(c), nil, true
			}
			return s.req.target, nil, true
		}
		if s.rel != nil {
			// A relationship template's source and target are known only
			// where a requirement uses it.
			return nil, nil, true
		}
		c.fnErr(n, path, "%s: %s is only meaningful in a relationship", fn, n.Value)
		return nil, nil, false
	case "HOST":
		if s.outputs {
			c.fnErr(n, path, "%s: HOST is not allowed in outputs", fn)
			return nil, nil, false
		}
		self := s.node
		if self == nil && s.req != nil {
			self = s.req.sourceOf(c)
		}
		if self == nil {
			c.fnErr(n, path, "%s: HOST is only meaningful inside a node template", fn)
			return nil, nil, false
		}
		h := c.hostOf(self, attr)
		if h == nil {
			c.fnErr(n, path, "%s: HOST was used in node template %q, but no tosca.relationships.HostedOn relationship leads to a host", fn, self.name)
			return nil, nil, false
		}
		return h, nil, true
	}
	if nt := c.topo.nodes[n.Value]; nt != nil {
		c.noteNode(n, nt)
		if fn != "get_artifact" {
			c.noteRead(s, nt, path, n.Range)
		}
		return nt, nil, true
	}
	if rt := c.topo.rels[n.Value]; rt != nil {
		return nil, &relRef{tpl: rt}, true
	}
	if what := c.groupOrPolicy(n.Value); what != "" {
		c.errorf(n.Range, path, core.CodeUnknownTemplate, "%s: %q is %s, not a node or relationship template, the entities whose properties and attributes TOSCA 1.3 functions read (§4.4.1, §4.5.1)", fn, n.Value, what)
		return nil, nil, false
	}
	c.errorf(n.Range, path, core.CodeUnknownTemplate, "%s: node template %q was not found", fn, n.Value)
	return nil, nil, false
}

// groupOrPolicy names what name is when it is a group's or a policy's
// name ("a group", "a policy"), else "".
func (c *compiler) groupOrPolicy(name string) string {
	if c.topo.groups[name] != nil {
		return "a group"
	}
	for _, p := range c.topo.policies {
		if p.name == name {
			return "a policy"
		}
	}
	return ""
}

// readRef is a node template's value naming another node template: the
// reader is applied after what it reads (render.go adds the edge).
type readRef struct {
	reader, target *nodeTpl
	// where is the path of the value within the reader; at is the
	// position of the target's name.
	where string
	at    diag.Range
}

// noteRead records that the value at path, evaluated in s, names target
// by its name. A node template reading itself, and a value that belongs
// to no node template (an output), read nothing that orders anything.
// SELF, SOURCE, TARGET and HOST are not recorded: they name the template
// itself or what its requirements already order it after.
func (c *compiler) noteRead(s *scope, target *nodeTpl, path string, at diag.Range) {
	reader := s.node
	if reader == nil && s.req != nil {
		reader = s.req.src
	}
	if reader == nil || reader == target {
		return
	}
	c.reads = append(c.reads, readRef{reader: reader, target: target, where: strings.TrimPrefix(path, reader.path+"."), at: at})
}

// sourceOf returns the node template that holds the requirement.
func (ra *reqAssign) sourceOf(*compiler) *nodeTpl {
	return ra.src
}

// hostOf follows HostedOn requirements from nt. With attr set it returns
// the first host up the chain that has the property or attribute, as
// tosca-parser does; otherwise the immediate host.
func (c *compiler) hostOf(nt *nodeTpl, attr string) *nodeTpl {
	hostedOn := c.lookup(kRelationship, "tosca.relationships.HostedOn")
	var first *nodeTpl
	for hops := 0; nt != nil && hops < 64; hops++ {
		var next *nodeTpl
		for _, ra := range nt.reqs {
			if ra.target == nil {
				continue
			}
			rel := ra.relType
			if rel == nil && ra.def != nil {
				rel = ra.def.relType
			}
			if (rel != nil && hostedOn != nil && c.derives(rel, hostedOn)) || (rel == nil && ra.name == "host") {
				next = ra.target
				break
			}
		}
		if next == nil {
			return first
		}
		if first == nil {
			first = next
		}
		if attr == "" || next.typ == nil || next.typ.props[attr] != nil || next.typ.attrs[attr] != nil {
			return next
		}
		nt = next
	}
	return first
}

// splitArgs returns the argument list of a list-taking function.
func (c *compiler) splitArgs(args *yamlsrc.Node, fn, path string, min int) ([]*yamlsrc.Node, bool) {
	if args.Kind != yamlsrc.Sequence {
		c.fnErr(args, path, "%s takes a list of arguments, found %s", fn, args.Describe())
		return nil, false
	}
	if len(args.Content) < min {
		c.fnErr(args, path, "%s takes at least %d arguments, found %d", fn, min, len(args.Content))
		return nil, false
	}
	return args.Content, true
}

func (c *compiler) fnGetProperty(args *yamlsrc.Node, path string, s *scope) graph.Value {
	a, ok := c.splitArgs(args, "get_property", path, 2)
	if !ok {
		return nil
	}
	name := a[1].Value
	nt, rt, ok := c.entity(a[0], "get_property", path, s, name)
	if !ok {
		return nil
	}
	if rt != nil {
		t := rt.typ()
		if t == nil || c.lacks(t) {
			return nil
		}
		if t.props[name] == nil {
			c.errorf(a[1].Range, path, core.CodeUnknownProperty, "get_property: %s has no property %q", rt.what(), name)
			c.SuggestLast(name, maps.Keys(t.props))
			return nil
		}
		v := c.relRefProp(rt, name)
		for _, r := range a[2:] {
			v = c.index(v, r, path)
		}
		return v
	}
	if nt == nil || nt.typ == nil {
		return nil
	}
	if nt.typ.props[name] == nil && len(a) >= 4 {
		// [entity, requirement, index, property, …]: a property of the
		// relationship of the index-th assignment of that requirement
		// (Puccini's requirement scope).
		if idx, ok := a[2].Int(); ok {
			var ras []*reqAssign
			for _, ra := range nt.reqs {
				if ra.name == name {
					ras = append(ras, ra)
				}
			}
			if len(ras) > 0 {
				if idx < 0 || int(idx) >= len(ras) {
					return c.fnErr(a[2], path, "get_property: node template %q has %d assignments of requirement %q, not %d", nt.name, len(ras), name, idx+1)
				}
				ra := ras[idx]
				prop := a[3].Value
				if ra.relType == nil || ra.relType.props[prop] == nil {
					if c.lacks(ra.relType) {
						return nil
					}
					c.errorf(a[3].Range, path, core.CodeUnknownProperty, "get_property: the relationship of requirement %q of node template %q has no property %q", name, nt.name, prop)
					return nil
				}
				return c.relProperty(ra, prop, a[4:], path)
			}
		}
	}
	if nt.typ.props[name] == nil && len(a) >= 3 {
		if cd := nt.typ.caps[name]; cd != nil {
			return c.capProperty(nt, cd, a[2], a[3:], path)
		}
		if ra, ok := c.requirementNamed(nt, name); ok {
			return c.targetProperty(nt, ra, name, a[2], a[3:], path)
		}
	}
	if nt.typ.props[name] == nil {
		if !c.lacks(nt.typ) {
			c.errorf(a[1].Range, path, core.CodeUnknownProperty, "get_property: node template %q has no property %q", nt.name, name)
			c.SuggestLast(name, maps.Keys(nt.typ.props))
		}
		return nil
	}
	v, _ := c.nodeProp(nt, name)
	for _, r := range a[2:] {
		v = c.index(v, r, path)
	}
	return v
}

// capProperty is get_property of the property prop (then the fields or
// indices rest) of capability cd of owner.
func (c *compiler) capProperty(owner *nodeTpl, cd *capDef, prop *yamlsrc.Node, rest []*yamlsrc.Node, path string) graph.Value {
	if cd.props[prop.Value] == nil {
		if !c.lacks(cd.typ) && !c.lacks(owner.typ) {
			c.errorf(prop.Range, path, core.CodeUnknownProperty, "get_property: capability %q of node template %q has no property %q", cd.name, owner.name, prop.Value)
		}
		return nil
	}
	// Evaluating all of the capability's properties may read secrets;
	// only this property's own count.
	before := c.SecretReads
	props, ok := c.capPropsOf(owner)[cd.name]
	if !ok && owner.capsDone {
		// A capability the template does not assign has its type's
		// defaults.
		s := &scope{at: owner.key, node: owner}
		props = c.assignProps(cd.typ, cd.props, nil, owner.path+".capabilities."+cd.name+".properties", "capability "+quote(cd.name)+" of node template "+quote(owner.name), "property", s, ignoreMissing)
		if owner.capProps == nil {
			owner.capProps = map[string]map[string]graph.Value{}
		}
		owner.capProps[cd.name] = props
	}
	v := props[prop.Value]
	c.SecretReads = before
	if c.secretNode[owner] {
		c.readSecretAt(owner.path + ".capabilities." + cd.name + ".properties." + prop.Value)
	}
	for _, r := range rest {
		v = c.index(v, r, path)
	}
	return v
}

// requirementNamed returns the first assignment of nt's requirement name
// that has a target; ok is true when nt has such a requirement at all
// (assigned or only defined by its type).
func (c *compiler) requirementNamed(nt *nodeTpl, name string) (*reqAssign, bool) {
	found := nt.typ.reqDefOf(name) != nil
	for _, ra := range nt.reqs {
		if ra.name == name {
			found = true
			if ra.target != nil && ra.target.typ != nil {
				return ra, true
			}
		}
	}
	return nil, found
}

// relProperty is the value of the property prop (then the fields or
// indices rest) of the relationship of requirement assignment ra.
func (c *compiler) relProperty(ra *reqAssign, prop string, rest []*yamlsrc.Node, path string) graph.Value {
	// Evaluating all of the relationship's properties may read secrets;
	// only this property's own count.
	v := c.relRefProp(&relRef{ra: ra, tpl: ra.relTpl}, prop)
	for _, r := range rest {
		v = c.index(v, r, path)
	}
	return v
}

// targetProperty is get_property of [entity, requirement, prop, rest…]
// (TOSCA 1.3 §4.4.2): the property of the node the requirement targets
// (xOpera), or else of the capability it targets there (the
// specification's example), or else of its relationship (Puccini). A
// requirement without a target yet (the orchestrator fulfils it) has no
// value at compile time (danglingRead).
func (c *compiler) targetProperty(nt *nodeTpl, ra *reqAssign, req string, prop *yamlsrc.Node, rest []*yamlsrc.Node, path string) graph.Value {
	if ra == nil {
		c.danglingRead(nt, req, prop, path, "get_property")
		return nil
	}
	target := ra.target
	if target.typ.props[prop.Value] != nil {
		v, _ := c.nodeProp(target, prop.Value)
		for _, r := range rest {
			v = c.index(v, r, path)
		}
		return v
	}
	if cd := ra.targetCap; cd != nil && cd.props[prop.Value] != nil {
		return c.capProperty(target, cd, prop, rest, path)
	}
	if ra.relType != nil && ra.relType.props[prop.Value] != nil {
		return c.relProperty(ra, prop.Value, rest, path)
	}
	if !c.lacks(target.typ) && !c.lacks(ra.relType) {
		c.errorf(prop.Range, path, core.CodeUnknownProperty, "get_property: node template %q, the target of requirement %q of node template %q, has no property %q, nor has the capability it targets or the relationship", target.name, req, nt.name, prop.Value)
	}
	return nil
}

// danglingRead checks get_property or get_attribute (fn) of [entity,
// requirement, name] on a requirement of nt without a target, which the
// orchestrator fulfils at deploy time: the value is not known before. A
// name that neither the node type, the capability type nor the
// relationship type of the requirement's definition declares is a
// warning, not an error: the node the orchestrator picks may be of a
// subtype that declares it.
func (c *compiler) danglingRead(nt *nodeTpl, req string, name *yamlsrc.Node, path, fn string) {
	rd := nt.typ.reqDefOf(req)
	if rd == nil || (rd.nodeType == nil && rd.capType == nil) {
		return
	}
	attr := fn == "get_attribute"
	for _, t := range []*typeDef{rd.nodeType, rd.capType, rd.relType} {
		switch {
		case t == nil:
		case c.lacks(t), t.props[name.Value] != nil, attr && t.attrs[name.Value] != nil:
			return
		}
	}
	noun := "property"
	if attr {
		noun = "attribute"
	}
	c.warnf(name.Range, path, core.CodeUnknownProperty, "%s: requirement %q of node template %q is not assigned, and the types its definition names declare no %s %q; the node the orchestrator selects must declare it", fn, req, nt.name, noun, name.Value)
}

func (c *compiler) fnGetAttribute(args *yamlsrc.Node, path string, s *scope) graph.Value {
	a, ok := c.splitArgs(args, "get_attribute", path, 2)
	if !ok {
		return nil
	}
	name := a[1].Value
	nt, rt, ok := c.entity(a[0], "get_attribute", path, s, name)
	if !ok {
		return nil
	}
	switch {
	case rt != nil:
		return c.relAttribute(rt, a[1:], path, s)
	case nt == nil:
		return graph.Unknown{Func: "attribute", Args: []graph.Value{a[0].Value, name}}
	case nt.typ == nil:
		return nil
	case nt.typ.attrs[name] != nil:
		if len(a) > 2 && !c.checkAttrPath(nt.typ.attrs[name], a[2:], path) {
			return nil
		}
		return attributeRef(nt.name, a[1:])
	case nt.typ.props[name] != nil || c.capHasAttr(nt.typ, name):
		return attributeRef(nt.name, a[1:])
	}
	if len(a) >= 3 {
		if cd := nt.typ.caps[name]; cd != nil {
			if cd.attrs[a[2].Value] == nil && cd.props[a[2].Value] == nil {
				c.undeclaredAttr(nt, cd.typ, a[2], path, fmt.Sprintf("capability %q of node template %q", cd.name, nt.name))
			}
			return attributeRef(nt.name, a[1:])
		}
		if ra, ok := c.requirementNamed(nt, name); ok {
			// [entity, requirement, attribute, …]: an attribute of the node
			// the requirement targets, or else of the capability it
			// targets there (TOSCA 1.3 §4.5.2).
			if ra == nil {
				c.danglingRead(nt, name, a[2], path, "get_attribute")
				return graph.Unknown{Func: "attribute", Args: []graph.Value{nt.name, name}}
			}
			target, attr := ra.target, a[2].Value
			if target.typ.attrs[attr] != nil || target.typ.props[attr] != nil {
				return attributeRef(target.name, a[2:])
			}
			if cd := ra.targetCap; cd != nil && (cd.attrs[attr] != nil || cd.props[attr] != nil) {
				return attributeRef(target.name, append([]*yamlsrc.Node{{Kind: yamlsrc.Scalar, Value: cd.name}}, a[2:]...))
			}
			c.undeclaredAttr(target, target.typ, a[2], path, fmt.Sprintf("node template %q (the target of requirement %q of node template %q)", target.name, name, nt.name))
			return attributeRef(target.name, a[2:])
		}
	}
	c.undeclaredAttr(nt, nt.typ, a[1], path, fmt.Sprintf("node template %q", nt.name))
	return attributeRef(nt.name, a[1:])
}

// relAttribute is get_attribute of the relationship r along path (the
// name, then fields or indices): an attribute its type declares is known
// at apply time; a property its type declares but no attribute of that
// name has the property's value, which is known now.
func (c *compiler) relAttribute(r *relRef, path []*yamlsrc.Node, at string, s *scope) graph.Value {
	t, name := r.typ(), path[0].Value
	switch {
	case t == nil || c.lacks(t):
		return relAttributeRef(r, path)
	case t.attrs[name] != nil:
		if len(path) > 1 && !c.checkAttrPath(t.attrs[name], path[1:], at) {
			return nil
		}
		if r.ra == nil {
			return c.templateAttribute(r.tpl, path, at, s)
		}
		return relAttributeRef(r, path)
	case t.props[name] != nil:
		v := c.relRefProp(r, name)
		for _, x := range path[1:] {
			v = c.index(v, x, at)
		}
		return v
	}
	c.errorf(path[0].Range, at, core.CodeUnknownProperty, "get_attribute: attribute %q was not found in %s", name, r.what())
	return nil
}

// templateAttribute is get_attribute of an attribute of the relationship
// template tpl named by its name (TOSCA 1.3 §4.5.1): the attribute of
// the relationship each requirement that uses the template makes, at
// apply time. One requirement uses it: its value; several: the list of
// their values, by source node template and requirement in source
// order (as get_attribute of an entity with several instances is a
// list). A template no requirement uses makes no relationship: its
// attributes have no value (null), and a warning says so. A node
// template that reads it is applied after the sources, whose operations
// set the attributes.
func (c *compiler) templateAttribute(tpl *relTpl, path []*yamlsrc.Node, at string, s *scope) graph.Value {
	var refs []graph.Value
	for _, nt := range c.topo.nodeList {
		for _, ra := range nt.reqs {
			if ra.relTpl == tpl && ra.relBody == nil {
				c.noteRead(s, nt, at, path[0].Range)
				refs = append(refs, relAttributeRef(&relRef{ra: ra, tpl: tpl}, path))
			}
		}
	}
	switch len(refs) {
	case 0:
		c.warnf(path[0].Range, at, core.CodeUnknownProperty,
			"get_attribute: relationship template %q is used by no requirement, so its attribute %q never has a value", tpl.name, path[0].Value)
		return nil
	case 1:
		return refs[0]
	}
	return refs
}

// attributeRef is the apply-time reference to an attribute of the
// resource addr along the path of names and indices.
func attributeRef(addr string, path []*yamlsrc.Node) graph.Unknown {
	args := make([]graph.Value, 0, len(path)+1)
	args = append(args, addr)
	for _, x := range path {
		if i, ok := x.Int(); ok {
			args = append(args, i)
		} else {
			args = append(args, x.Value)
		}
	}
	return graph.Unknown{Func: "attribute", Args: args}
}

// undeclaredAttr reports get_attribute of an attribute that no definition
// of owner (of type t, a node or capability type) declares: an error,
// unless an operation of the node maps an output to it (TOSCA 1.3
// operation outputs, §3.6.16), which sets it at run time: then a warning.
func (c *compiler) undeclaredAttr(nt *nodeTpl, t *typeDef, attr *yamlsrc.Node, path, what string) {
	if c.lacks(t) || c.lacks(nt.typ) {
		return
	}
	if c.outputSets(nt, attr.Value) {
		c.warnf(attr.Range, path, core.CodeUnknownProperty, "get_attribute: %s declares no attribute %q; only an operation output sets it", what, attr.Value)
		return
	}
	c.errorf(attr.Range, path, core.CodeUnknownProperty, "get_attribute: attribute %q was not found in %s", attr.Value, what)
}

// outputSets reports whether an operation of nt, as its type defines it or
// the template assigns it, maps an output to the attribute (outputs:
// {name: [SELF, attr]}).
func (c *compiler) outputSets(nt *nodeTpl, attr string) bool {
	maps := func(op *yamlsrc.Node) bool {
		for _, p := range op.Get("outputs").Pairs() {
			sel := p.Value
			if items := sel.Items(); len(items) > 0 {
				sel = items[len(items)-1]
			}
			if text(sel) == attr {
				return true
			}
		}
		return false
	}
	for _, d := range nt.typ.ifaces {
		for _, op := range d.ops {
			if maps(op.n) {
				return true
			}
		}
	}
	for _, p := range nt.ifacesN.Pairs() {
		for _, q := range p.Value.Pairs() {
			if maps(q.Value) {
				return true
			}
			for _, r := range q.Value.Pairs() {
				if q.Key.Value == "operations" && maps(r.Value) {
					return true
				}
			}
		}
	}
	return false
}

// capHasAttr reports whether one of the type's capabilities defines an
// attribute or property of the name (tosca-parser resolves get_attribute
// there when the node type has none).
func (c *compiler) capHasAttr(t *typeDef, name string) bool {
	for _, cd := range t.caps {
		if cd.attrs[name] != nil || cd.props[name] != nil {
			return true
		}
	}
	return false
}

// checkAttrPath checks the nested path of get_attribute against the
// attribute's definition: list indices into lists, field names into maps
// and data types.
func (c *compiler) checkAttrPath(d *propDef, rest []*yamlsrc.Node, path string) bool {
	for _, r := range rest {
		switch {
		case d == nil:
			return true
		case d.prim == "list":
			if _, ok := r.Int(); !ok {
				c.fnErr(r, path, "get_attribute: %q is not a list index", r.Value)
				return false
			}
			d = d.entry
		case d.prim == "map":
			d = d.entry
		case d.dt != nil:
			f := d.dt.props[r.Value]
			if f == nil {
				c.fnErr(r, path, "get_attribute: data type %q has no field %q", d.dt.name, r.Value)
				return false
			}
			d = f
		default:
			c.fnErr(r, path, "get_attribute: unexpected attribute/index value %q: %s is a %s", r.Value, d.name, d.prim)
			return false
		}
	}
	return true
}

func (c *compiler) fnGetOperationOutput(args *yamlsrc.Node, path string, s *scope) graph.Value {
	if args.Kind != yamlsrc.Sequence || len(args.Content) != 4 {
		return c.fnErr(args, path, "get_operation_output takes four arguments: template, interface, operation, output name")
	}
	a := args.Content
	nt, rt, ok := c.entity(a[0], "get_operation_output", path, s, "")
	if !ok {
		return nil
	}
	var ifaces map[string]*ifaceDef
	owner := ""
	switch {
	case nt != nil && nt.typ != nil:
		ifaces, owner = nt.typ.ifaces, "template "+quote(nt.name)
	case rt != nil && rt.typ() != nil:
		ifaces, owner = rt.typ().ifaces, rt.what()
	}
	if ifaces != nil {
		iface := ifaces[a[1].Value]
		if iface == nil {
			for _, d := range ifaces {
				if d.typ != nil && c.derivesName(d.typ, a[1].Value) {
					iface = d
				}
			}
		}
		switch {
		case iface == nil:
			return c.fnErr(a[1], path, "get_operation_output: %s has no interface %q", owner, a[1].Value)
		case iface.ops[a[2].Value] == nil:
			return c.fnErr(a[2], path, "get_operation_output: interface %q of %s has no operation %q", a[1].Value, owner, a[2].Value)
		}
	}
	addr := a[0].Value
	switch {
	case nt != nil:
		addr = nt.name
	case rt != nil && rt.ra != nil:
		// A requirement's relationship's operations run as the source's
		// Configure operations. What a playbook of theirs reports that
		// their outputs: do not map is the relationship's own attribute
		// (SELF there is the relationship), recorded with the source's
		// relationships; a script's is the source's attribute: the
		// requirement and index say where to look first.
		idx, _ := rt.ra.index()
		return graph.Unknown{Func: "operation_output", Args: []graph.Value{rt.ra.src.name, shortIface(a[1].Value), a[2].Value, a[3].Value, rt.ra.name, int64(idx)}}
	case rt != nil:
		addr = rt.tpl.name
	}
	return graph.Unknown{Func: "operation_output", Args: []graph.Value{addr, shortIface(a[1].Value), a[2].Value, a[3].Value}}
}

// shortIface maps the normative interface type names to the short names
// used in operation keys.
func shortIface(name string) string {
	switch name {
	case "tosca.interfaces.node.lifecycle.Standard":
		return "Standard"
	case "tosca.interfaces.relationship.Configure":
		return "Configure"
	}
	return name
}

func (c *compiler) fnGetArtifact(args *yamlsrc.Node, path string, s *scope) graph.Value {
	a, ok := c.splitArgs(args, "get_artifact", path, 2)
	if !ok {
		return nil
	}
	if len(a) > 4 {
		return c.fnErr(args, path, "get_artifact takes at most four arguments, found %d", len(a))
	}
	nt, rt, ok := c.entity(a[0], "get_artifact", path, s, "")
	if rt != nil && rt.ra != nil {
		// Relationships have no artifacts: their operations run with
		// the source node's (renderOp).
		nt = rt.ra.src
	}
	if !ok || nt == nil || nt.typ == nil {
		return nil
	}
	// The file as seen from the template's folder, where operations run
	// (a type's artifact may be declared in a file of another folder).
	if art := c.nodeArtifact(nt, a[1].Value); art != nil {
		return c.artifactFile(art, filepath.Dir(nt.key.File))
	}
	return c.fnErr(a[1], path, "get_artifact: node template %q has no artifact %q", nt.name, a[1].Value)
}

func (c *compiler) fnConcat(args *yamlsrc.Node, path string, s *scope) graph.Value {
	a, ok := c.splitArgs(args, "concat", path, 1)
	if !ok {
		return nil
	}
	vals := make([]graph.Value, len(a))
	known := true
	var b strings.Builder
	for i, x := range a {
		vals[i] = c.rawValue(x, path, s)
		if graph.HasUnknown(vals[i]) {
			known = false
		} else {
			b.WriteString(graph.Text(vals[i]))
		}
	}
	if !known {
		return graph.Unknown{Func: "concat", Args: vals}
	}
	return b.String()
}

func (c *compiler) fnJoin(args *yamlsrc.Node, path string, s *scope) graph.Value {
	a, ok := c.splitArgs(args, "join", path, 1)
	if !ok {
		return nil
	}
	if len(a) > 2 {
		return c.fnErr(args, path, "join takes a list and an optional delimiter, found %d arguments", len(a))
	}
	list := c.rawValue(a[0], path, s)
	delim := ""
	if len(a) == 2 {
		if !a[1].IsString() {
			return c.fnErr(a[1], path, "join: the delimiter must be a string, found %s", a[1].Describe())
		}
		delim = a[1].Value
	}
	items, isList := list.([]graph.Value)
	if !isList && !graph.HasUnknown(list) {
		return c.fnErr(a[0], path, "join: the first argument must be a list, found %s", a[0].Describe())
	}
	if graph.HasUnknown(list) {
		return graph.Unknown{Func: "join", Args: []graph.Value{list, delim}}
	}
	parts := make([]string, len(items))
	for i, it := range items {
		parts[i] = graph.Text(it)
	}
	return strings.Join(parts, delim)
}

func (c *compiler) fnToken(args *yamlsrc.Node, path string, s *scope) graph.Value {
	if args.Kind != yamlsrc.Sequence || len(args.Content) != 3 {
		n := 0
		if args.Kind == yamlsrc.Sequence {
			n = len(args.Content)
		}
		return c.fnErr(args, path, "token takes three arguments (string, separators, index), found %d", n)
	}
	a := args.Content
	idx, ok := a[2].Int()
	if !ok || idx < 0 {
		return c.fnErr(a[2], path, "token: the index must be a non-negative integer, found %s", describeValue(a[2]))
	}
	if a[1].Kind != yamlsrc.Scalar || a[1].IsNull() {
		return c.fnErr(a[1], path, "token: the separators must be a string, found %s", a[1].Describe())
	}
	str := c.rawValue(a[0], path, s)
	if graph.HasUnknown(str) {
		return graph.Unknown{Func: "token", Args: []graph.Value{str, a[1].Value, idx}}
	}
	text, isStr := str.(string)
	if !isStr {
		return c.fnErr(a[0], path, "token: the first argument must be a string")
	}
	parts := strings.FieldsFunc(text, func(r rune) bool { return strings.ContainsRune(a[1].Value, r) })
	if int(idx) >= len(parts) {
		return c.fnErr(a[2], path, "token: index %d is out of range: %q has %d tokens", idx, text, len(parts))
	}
	return parts[idx]
}

func (c *compiler) fnNodesOfType(args *yamlsrc.Node, path string) graph.Value {
	if args.Kind != yamlsrc.Scalar || args.IsNull() {
		return c.fnErr(args, path, "get_nodes_of_type takes a node type name")
	}
	t := c.lookup(kNode, args.Value)
	if t == nil {
		c.unknownType(kNode, args, path, false, "get_nodes_of_type: unknown node type %q", args.Value)
		return nil
	}
	out := []graph.Value{}
	for _, nt := range c.topo.byType[t] {
		out = append(out, nt.name)
	}
	return out
}

// propsOf evaluates and checks all of a node template's properties once.
// While that runs (state 1) it returns what is known so far.
func (c *compiler) propsOf(nt *nodeTpl) map[string]graph.Value {
	if nt.state != 0 || nt.typ == nil {
		return nt.props
	}
	nt.state = 1
	defs := nt.typ.props
	// The message's words and the path are built only for a problem.
	what := func() string { return "node template " + quote(nt.name) }
	path := func() string { return nt.path + ".properties" }
	n := nt.propsN
	if !n.IsNull() && n.Kind != yamlsrc.Mapping {
		c.errorf(n.Range, path(), core.CodeWrongKind, "properties of %s must be a map, found %s", what(), n.Describe())
		n, nt.propsN = nil, nil
	}
	for i := 0; n != nil && i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		d := defs[k.Value]
		if d == nil {
			if !c.lacks(nt.typ) {
				c.errorf(k.Range, joinPath(path(), k.Value), core.CodeUnknownProperty, "%s has no property %q", what(), k.Value)
				c.SuggestLast(k.Value, maps.Keys(defs))
			}
			continue
		}
		switch d.status {
		case "unsupported":
			c.errorf(k.Range, joinPath(path(), k.Value), core.CodeStatus, "property %q of %s is unsupported", k.Value, what())
		case "deprecated":
			c.warnf(k.Range, joinPath(path(), k.Value), core.CodeStatus, "property %q of %s is deprecated", k.Value, what())
		}
		c.nodeProp(nt, k.Value)
	}
	// An abstract node the orchestrator selects from its inventory, or
	// replaces by a substituting topology (whose inputs have their own
	// defaults), gets its values there (TOSCA 1.3 §3.8.3 directives).
	checkRequired := !slices.Contains(nt.directives, "select") && !slices.Contains(nt.directives, "substitute")
	for _, pd := range nt.typ.propOrder() {
		name, d := pd.name, pd.def
		if _, ok := c.nodeProp(nt, name); !ok && d.required && checkRequired && d.status != "unsupported" {
			at := nt.key
			if n != nil {
				at = n.Range
			}
			c.errorf(at, path(), core.CodeMissingProperty, "%s is missing required property %q", what(), name)
		}
	}
	nt.state = 2
	return nt.props
}

// nodeProp evaluates one property of a node template once; ok is false
// when the property has neither value nor default. A property that
// depends on itself through get_property is reported.
func (c *compiler) nodeProp(nt *nodeTpl, name string) (graph.Value, bool) {
	if v, ok := nt.props[name]; ok {
		if c.secretNode[nt] {
			c.readSecretAt(nt.path + ".properties." + name)
		}
		return v, true
	}
	if nt.typ == nil {
		return nil, false
	}
	d := nt.typ.props[name]
	if d == nil {
		return nil, false
	}
	if slices.Contains(nt.evaluating, name) {
		c.errorf(nt.key, nt.path+".properties."+name, core.CodeFunction, "property %q of node template %q depends on itself through get_property", name, nt.name)
		return nil, true
	}
	// Neither assigned nor defaulted: nothing to evaluate, no path to
	// build.
	an := nt.propsN.Get(name)
	if an == nil || nt.propsN.Kind != yamlsrc.Mapping {
		if !d.hasDefault {
			return nil, false
		}
		an = nil
	}
	if nt.evaluating == nil {
		nt.evaluating = nt.evalBuf[:0]
	}
	nt.evaluating = append(nt.evaluating, name)
	defer func() { nt.evaluating = nt.evaluating[:len(nt.evaluating)-1] }()
	s := nt.selfScope()
	path := nt.path + ".properties." + name
	what := d.propertyLabel(name)
	var v graph.Value
	before := c.SecretReads
	if an != nil {
		v = c.checkAssigned(d, an, path, what, s)
	} else {
		v = c.checkValue(d, d.def, path, what, s)
	}
	c.NoteSecret(path, before)
	c.noteSecretNode(nt, before)
	if nt.props == nil {
		nt.props = make(map[string]graph.Value, len(nt.typ.props))
	}
	nt.props[name] = v
	return v, true
}

// capPropsOf evaluates a node template's capability properties once.
func (c *compiler) capPropsOf(nt *nodeTpl) map[string]map[string]graph.Value {
	if nt.capsDone || nt.typ == nil {
		return nt.capProps
	}
	// The map is made for the first capability assigned: most templates
	// assign none.
	nt.capsDone = true
	before := c.SecretReads
	defer c.noteSecretNode(nt, before)
	s := nt.selfScope()
	for _, p := range nt.capsN.Pairs() {
		cd := nt.typ.caps[p.Key.Value]
		if cd == nil || p.Value.Kind != yamlsrc.Mapping {
			continue
		}
		cp := nt.path + ".capabilities." + p.Key.Value
		what := "capability " + quote(cd.name) + " of node template " + quote(nt.name)
		props := c.assignProps(cd.typ, cd.props, p.Value.Get("properties"), cp+".properties", what, "property", s, errorMissing)
		if attrs := p.Value.Get("attributes"); attrs != nil {
			if v := c.assignProps(cd.typ, mergeDefs(cd.attrs, cd.props), attrs, cp+".attributes", what, "attribute", s, ignoreMissing); len(v) > 0 {
				if nt.capAttrs == nil {
					nt.capAttrs = map[string]map[string]graph.Value{}
				}
				nt.capAttrs[cd.name] = v
			}
		}
		if nt.capProps == nil {
			nt.capProps = map[string]map[string]graph.Value{}
		}
		nt.capProps[cd.name] = props
	}
	return nt.capProps
}

func mergeDefs(a, b map[string]*propDef) map[string]*propDef {
	out := make(map[string]*propDef, len(a)+len(b))
	for k, v := range b {
		out[k] = v
	}
	for k, v := range a {
		out[k] = v
	}
	return out
}

// resolveFunctions evaluates every template's values (phase 4 checks run
// here, once requirements are matched, because functions may follow them).
func (c *compiler) resolveFunctions() {
	t := c.topo
	for i, nt := range t.nodeList {
		if i&1023 == 0 && c.Ctx.Err() != nil {
			return
		}
		if nt.typ == nil {
			continue
		}
		c.propsOf(nt)
		c.capPropsOf(nt)
		if nt.attrsN != nil {
			s := nt.selfScope()
			nt.attrs = c.assignProps(nt.typ, mergeDefs(nt.typ.attrs, nt.typ.props), nt.attrsN, nt.path+".attributes", "node template "+quote(nt.name), "attribute", s, ignoreMissing)
		}
		for _, ra := range nt.reqs {
			if ra.relBody != nil {
				c.relPropsOf(ra)
			}
		}
	}
	c.checkUnusedRelTemplates()
}

// checkUnusedRelTemplates evaluates the operation inputs that relationship
// templates no requirement uses assign, which rendering never reaches
// (it renders a relationship's operations for each requirement that uses
// it): SELF is the template, SOURCE and TARGET are not known.
func (c *compiler) checkUnusedRelTemplates() {
	used := map[*relTpl]bool{}
	for _, nt := range c.topo.nodeList {
		for _, ra := range nt.reqs {
			if ra.relTpl != nil {
				used[ra.relTpl] = true
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(c.topo.rels)) {
		rt := c.topo.rels[name]
		if used[rt] || rt.typ == nil {
			continue
		}
		s := &scope{at: rt.key, rel: rt}
		for _, iface := range rt.n.Get("interfaces").Pairs() {
			ip := rt.path + ".interfaces." + iface.Key.Value
			c.checkInputs(iface.Value.Get("inputs"), ip+".inputs", s)
			ops := iface.Value.Pairs()
			if on := iface.Value.Get("operations"); on != nil {
				ops = on.Pairs()
			}
			for _, op := range ops {
				switch op.Key.Value {
				case "type", "description", "inputs", "notifications":
					continue
				}
				c.checkInputs(op.Value.Get("inputs"), ip+"."+op.Key.Value+".inputs", s)
			}
		}
	}
}

// checkInputs evaluates the values of an inputs map for their diagnostics.
func (c *compiler) checkInputs(n *yamlsrc.Node, path string, s *scope) {
	if n == nil || n.Kind != yamlsrc.Mapping {
		return
	}
	for _, p := range n.Pairs() {
		c.rawValue(p.Value, path+"."+p.Key.Value, s)
	}
}

// relPropsOf evaluates once the properties a requirement assigns to its
// relationship (long form), with the type's defaults; for a relationship
// named by its type alone, the type's defaults; for one named by a
// relationship template, the template's values evaluated again where
// this requirement uses it, so that SOURCE and TARGET are its ends (the
// template reported what it found wrong when it was read).
func (c *compiler) relPropsOf(ra *reqAssign) map[string]graph.Value {
	if ra.relProps != nil || ra.relType == nil {
		return ra.relProps
	}
	ra.relProps = map[string]graph.Value{}
	s := &scope{at: ra.key, req: ra}
	if rt := ra.relTpl; ra.relBody == nil && rt != nil {
		ra.relBusy = true
		c.Quietly(func() {
			ra.relProps = c.assignProps(ra.relType, ra.relType.props, rt.n.Get("properties"), rt.path+".properties", "relationship template "+quote(rt.name), "property", s, ignoreMissing)
		})
		ra.relBusy = false
		return ra.relProps
	}
	missing := errorMissing
	if ra.relBody == nil {
		// Nothing can be assigned: what is required without default is
		// the orchestrator's to supply, not a fault of the assignment.
		missing = ignoreMissing
	}
	ra.relBusy = true
	ra.relProps = c.assignProps(ra.relType, ra.relType.props, ra.relBody.Get("properties"), ra.path+".relationship.properties", "relationship of requirement "+quote(ra.name), "property", s, missing)
	ra.relBusy = false
	return ra.relProps
}
