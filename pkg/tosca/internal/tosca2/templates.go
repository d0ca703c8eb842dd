package tosca2

// Phase 5 (2.0) — the service template (§6.9, §7.2, §7.4, §8.3, §8.5,
// §9.4, §9.6, §11.3, §11.5, §14, §16): inputs, node templates with count,
// their properties, attributes, capabilities, requirements, interfaces
// and artifacts, relationship templates, groups, policies and outputs.
//
// Errors detected here:
//   - a template or definition that is not a map, keynames the grammar does not define
//     (tosca.wrong_kind, tosca.unknown_field)
//   - a template without type, or of an unknown type (tosca.missing_field, tosca.unknown_type)
//   - properties and attributes the type does not define, required properties without value
//     or default, a value given to a property with a fixed value (tosca.unknown_property,
//     tosca.missing_property, tosca.value)
//   - capabilities, requirements, interfaces and operations the type does not define
//     (tosca.unknown_capability, tosca.unknown_requirement, tosca.unknown_interface,
//     tosca.unknown_operation)
//   - a requirement whose node is neither a node template nor a node type, whose relationship
//     is neither a relationship template nor type, whose count or optional is of the wrong
//     kind (tosca.unknown_template, tosca.unknown_type, tosca.value)
//   - count that is not a non-negative integer (tosca.value)
//   - input values for undeclared inputs (tosca.unknown_input), required inputs without value
//     with Options.RequireInputs (tosca.missing_input)
//   - group members that are no node template or not of the member types, policy targets
//     that are no node template or group (tosca.group_members, tosca.policy_targets)

import (
	"maps"
	"slices"
	"strings"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
)

// maxCount bounds the representations of one node template: each is a
// resource to plan and apply, and a template from a pull request must not
// make the compile build millions of them.
const maxCount = 10_000

// topology is the service template read.
type topology struct {
	st *yamlsrc.Node
	// declared names the inputs the service template declares;
	// inputDefs holds their definitions.
	declared  map[string]bool
	inputDefs map[string]*prop
	inputs    map[string]graph.Value
	nodes     []*node
	byName    map[string]*node
	rels      map[string]*yamlsrc.Node
	relType   map[string]*typeDef
	relProps  map[string]map[string]graph.Value
	relAttrs  map[string]map[string]graph.Value
	outputs   map[string]graph.Value
	groups    map[string]*yamlsrc.Node
	// failed holds the node templates that could not be read, with the
	// diagnostic that says why: what names them is its follow-on.
	failed map[string]int
	// picked is set once every requirement's picks are made; incoming
	// then indexes the relationships by what they target (incoming).
	picked   bool
	incoming map[inKey][]seqRel
}

// node is a node template.
type node struct {
	name  string
	typ   *typeDef
	n     *yamlsrc.Node
	key   diag.Range
	path  string
	count int64
	// countFn is set when count is a function call only apply time
	// evaluates (count is then 1).
	countFn bool
	// index is $node_index while a representation is evaluated.
	index graph.Value
	props map[string]graph.Value
	attrs map[string]graph.Value
	caps  map[string]map[string]graph.Value
	reqs  []*reqAssign
	// busy is set while the values of another representation are
	// evaluated for a TOSCA path (valuesAt); at holds those evaluated.
	busy bool
	at   map[int64]repValues
	// keys holds the values of n's keynames (nil: not written), and
	// selected tells whether it is selectable: taken in one walk of n
	// where the template is first read, while its node is at hand, for
	// readNode and nodeValues, which run once all the templates are read
	// (nodeValues again for each representation).
	keys     templateKeys
	selected bool
	// addrs lists the addresses of the representations (addresses);
	// one holds the one address of a template without count.
	addrs []string
	one   [1]string
}

// templateKeys are the values of the keynames of a node template that
// reading it looks at (nil: not written; the last of repeated keys, as
// yamlsrc.Node.Get returns).
type templateKeys struct {
	typ, count, directives, nodeFilter, copy, requirements, interfaces, artifacts,
	properties, attributes, capabilities, metadata *yamlsrc.Node
}

// readTemplateKeys takes the values of n's keynames in one walk.
func readTemplateKeys(n *yamlsrc.Node) templateKeys {
	var k templateKeys
	for i := 0; n.Kind == yamlsrc.Mapping && i+1 < len(n.Content); i += 2 {
		key, v := n.Content[i], n.Content[i+1]
		if key.Kind != yamlsrc.Scalar {
			continue
		}
		switch key.Value {
		case "type":
			k.typ = v
		case "count":
			k.count = v
		case "directives":
			k.directives = v
		case "node_filter":
			k.nodeFilter = v
		case "copy":
			k.copy = v
		case "requirements":
			k.requirements = v
		case "interfaces":
			k.interfaces = v
		case "artifacts":
			k.artifacts = v
		case "properties":
			k.properties = v
		case "attributes":
			k.attributes = v
		case "capabilities":
			k.capabilities = v
		case "metadata":
			k.metadata = v
		}
	}
	return k
}

// reqAssign is a requirement assignment of a node template.
type reqAssign struct {
	// src is the type of the node template that holds the requirement.
	src  *typeDef
	name string
	def  *req
	n    *yamlsrc.Node
	// rel is n's relationship keyname's value (n.Get), taken once.
	rel      *yamlsrc.Node
	key      diag.Range
	path     string
	target   *node
	relType  *typeDef
	count    int64
	optional bool
	alloc    *yamlsrc.Node
	// capName is the target capability the requirement was matched to.
	capName string
	// countFn is set when count is a function call, whose value only
	// apply time knows.
	countFn bool
	// nodeIdx is the index of the node [template, index] names (§8.5.2);
	// picks holds, by representation of the source, the representation
	// of the target each of its relationships selects (nil: every one).
	nodeIdx *yamlsrc.Node
	picks   [][]int64
	// relProps holds the relationship's property values (of its
	// assignment, its relationship template or its type's defaults).
	relProps map[string]graph.Value
	// relAttrs holds the relationship's attribute values, alike
	// (relattrs.go).
	relAttrs map[string]graph.Value
}

// relCtx is the relationship context of the assignment's values: index 0
// when it makes one relationship, none when it makes several.
func (ra *reqAssign) relCtx() *relCtx {
	return &relCtx{ra: ra, req: ra.name, count: ra.count, known: ra.count == 1 && !ra.countFn}
}

func nodeTemplateKeys() []string {
	return []string{"type", "description", "metadata", "directives", "properties", "attributes", "requirements",
		"capabilities", "interfaces", "artifacts", "count", "node_filter", "copy"}
}

// plainNodeKeys reports whether every key of node template n is a
// keyname of nodeTemplateKeys other than description and metadata (whose
// grammar keys checks): keys would then report nothing, and a switch
// tells it without a search of the list for each key (most templates).
func plainNodeKeys(n *yamlsrc.Node) bool {
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if k.Kind != yamlsrc.Scalar {
			return false
		}
		switch k.Value {
		case "type", "directives", "properties", "attributes", "requirements",
			"capabilities", "interfaces", "artifacts", "count", "node_filter", "copy":
		default:
			return false
		}
	}
	return true
}

// readTopology reads the service template of the root file.
func (c *compiler) readTopology(root *file) {
	st := root.root.Get("service_template")
	topo := &topology{st: st, inputs: map[string]graph.Value{}, byName: map[string]*node{},
		rels: map[string]*yamlsrc.Node{}, relType: map[string]*typeDef{}, relProps: map[string]map[string]graph.Value{}, relAttrs: map[string]map[string]graph.Value{}, outputs: map[string]graph.Value{},
		groups: map[string]*yamlsrc.Node{}, failed: map[string]int{}}
	c.state.topo = topo
	if st == nil || st.Kind != yamlsrc.Mapping {
		c.undeclaredInputs(nil, "service_template", core.StartOf(root.root.Range))
		return
	}
	c.readInputs(root, st.Get("inputs"))
	if rt := st.Get("relationship_templates"); rt != nil && rt.Kind == yamlsrc.Mapping {
		for _, p := range rt.Pairs() {
			c.readRelTemplate(root, p, rt)
		}
	}
	nt := st.Get("node_templates")
	if nt != nil && nt.Kind == yamlsrc.Mapping {
		topo.nodes = make([]*node, 0, len(nt.Content)/2)
		topo.byName = make(map[string]*node, len(nt.Content)/2)
		// One allocation for all the templates (as 1.x does), which
		// also keeps them together for the phases that walk them.
		slab := make([]node, len(nt.Content)/2)
		for _, p := range nt.Pairs() {
			if c.Stopped() {
				return
			}
			path := c.state.paths.join("service_template.node_templates.", p.Key.Value)
			if p.Value.Kind != yamlsrc.Mapping {
				c.Errorf(core.RangeOf(p.Value), path, core.CodeWrongKind, "node template %q must be a map, found %s", p.Key.Value, p.Value.Describe())
				continue
			}
			if !plainNodeKeys(p.Value) {
				c.keys(p.Value, path, func() string { return "node template " + core.Quote(p.Key.Value) }, nodeTemplateKeys(), nil)
			}
			c.metadata(p.Value, path)
			nd := &slab[0]
			slab = slab[1:]
			*nd = node{name: p.Key.Value, n: p.Value, key: p.Key.Range, path: path, count: 1}
			if cp := p.Value.Get("copy"); cp == nil {
				// Most templates copy nothing: no lookup among them all.
			} else if src := nt.Get(core.Text(cp)); src != nil && src.Kind == yamlsrc.Mapping && src.Get("copy") == nil {
				// The template copied is the basis its keynames refine
				// (§7.2); a copy of a copy is reported by readNode.
				nd.n = core.MergeNodes(src, p.Value)
			}
			nd.keys = readTemplateKeys(nd.n)
			nd.selected = selects(nd.keys.directives)
			tn := nd.keys.typ
			if tn == nil {
				c.Errorf(p.Key.Range, path, core.CodeMissingField, "node template %q is missing required field \"type\"", nd.name)
				topo.failed[nd.name] = c.Last()
				continue
			}
			if nd.typ = c.typeRefAt(root, core.KNode, tn, path, ".type"); nd.typ == nil {
				// What names the template is not reported again.
				topo.failed[nd.name] = c.Last()
				continue
			}
			topo.nodes = append(topo.nodes, nd)
			topo.byName[nd.name] = nd
		}
	}
	for _, nd := range topo.nodes {
		if c.Stopped() {
			return
		}
		c.readNode(root, nd)
	}
	if !c.limitExpansion() {
		return
	}
	for _, nd := range topo.nodes {
		for _, ra := range nd.reqs {
			if ra.nodeIdx != nil && ra.target != nil {
				c.pickTargets(root, nd, ra)
			}
		}
	}
	topo.picked = true
	// Values last: a path may follow any template's requirements.
	for _, nd := range topo.nodes {
		if c.Stopped() {
			return
		}
		c.nodeValues(root, nd)
	}
	c.checkCapacity(root)
	c.relTemplatesInContext(root)
	if gs := st.Get("groups"); gs != nil && gs.Kind == yamlsrc.Mapping {
		for _, p := range gs.Pairs() {
			c.readGroup(root, p)
		}
	}
	if ps := st.Get("policies"); ps != nil && ps.Kind == yamlsrc.Sequence {
		for i, it := range ps.Content {
			c.readPolicy(root, it, "service_template.policies["+core.Itoa(int64(i))+"]")
		}
	}
	c.readOutputs(root, st.Get("outputs"))
	c.readSubstitution(root, st.Get("substitution_mappings"))
	c.readWorkflows(root, st.Get("workflows"))
}

func paramKeys() []string {
	return []string{"type", "description", "metadata", "required", "default", "value", "validation", "key_schema", "entry_schema", "mapping"}
}

// readInputs reads input definitions and the values given for them.
func (c *compiler) readInputs(f *file, n *yamlsrc.Node) {
	topo := c.state.topo
	defs := map[string]*prop{}
	if n != nil && n.Kind == yamlsrc.Mapping {
		for _, p := range n.Pairs() {
			path := "service_template.inputs." + p.Key.Value
			if p.Value.Kind != yamlsrc.Mapping {
				c.Errorf(core.RangeOf(p.Value), path, core.CodeWrongKind, "input %q must be a map, found %s", p.Key.Value, p.Value.Describe())
				continue
			}
			if d := c.readParam(f, p.Key.Value, p.Value, path); d != nil {
				defs[p.Key.Value] = d
			}
		}
	}
	topo.declared, topo.inputDefs = map[string]bool{}, defs
	for name := range defs {
		topo.declared[name] = true
	}
	at := core.StartOf(f.root.Range)
	if n != nil {
		at = n.Range
	}
	c.undeclaredInputs(topo.declared, "service_template", at)
	for _, name := range slices.Sorted(maps.Keys(defs)) {
		d := defs[name]
		ev := &eval{c: c, f: f}
		path := "service_template.inputs." + name
		switch {
		case c.opts.Inputs != nil && c.opts.Inputs[name] != nil:
			vn := core.NodeOf(c.opts.Inputs[name], d.n.Range)
			topo.inputs[name] = c.checkValue(ev, d, vn, path)
		case d.value != nil && d.typ != nil:
			topo.inputs[name] = c.checkValue(ev, d, d.value, path+".value")
		case d.value != nil:
			topo.inputs[name] = ev.evalAt(d.value, path+".value")
		case d.def != nil && !d.def.IsNull() && d.typ != nil:
			topo.inputs[name] = c.checkValue(ev, d, d.def, path+".default")
		case d.def != nil && !d.def.IsNull():
			topo.inputs[name] = ev.evalAt(d.def, path+".default")
		default:
			if d.required && c.opts.RequireInputs {
				c.Errorf(d.n.Range, path, core.CodeMissingInput, "input %q is required and has no value or default", name)
			}
			topo.inputs[name] = unknown("get_input", []graph.Value{name})
		}
	}
}

// readParam reads a parameter definition (§9.7): as a property
// definition whose type may be left out.
func (c *compiler) readParam(f *file, name string, n *yamlsrc.Node, path string) *prop {
	if n.Get("type") == nil {
		c.keys(n, path, func() string { return "parameter " + core.Quote(name) }, paramKeys(), legacyPropKey)
		d := &prop{name: name, n: n, required: true, f: f, value: n.Get("value"), def: n.Get("default"), sensitive: core.MetaSensitive(n)}
		if req, set := c.boolValue(n, path, "required"); set {
			d.required = req
		}
		c.checkExpr(f, n.Get("value"), path+".value", false)
		return d
	}
	return c.readPropDef(f, name, n, path, true, nil)
}

// readOutputs reads output parameters: their values are evaluated when
// known, Unknown otherwise.
func (c *compiler) readOutputs(f *file, n *yamlsrc.Node) {
	if n == nil || n.Kind != yamlsrc.Mapping {
		return
	}
	for _, p := range n.Pairs() {
		path := "service_template.outputs." + p.Key.Value
		if p.Value.Kind != yamlsrc.Mapping {
			c.Errorf(core.RangeOf(p.Value), path, core.CodeWrongKind, "output %q must be a map, found %s", p.Key.Value, p.Value.Describe())
			continue
		}
		d := c.readParam(f, p.Key.Value, p.Value, path)
		if d == nil {
			continue
		}
		ev := &eval{c: c, f: f}
		if v := p.Value.Get("value"); v != nil {
			c.checkExpr(f, v, path+".value", false)
			before := c.SecretReads
			if d.secret() {
				c.enterSecret(v)()
			}
			if d.typ != nil {
				// A typed output's value fits its type (§9.7).
				c.state.topo.outputs[p.Key.Value] = c.checkValue(ev, d, v, path+".value")
			} else {
				c.state.topo.outputs[p.Key.Value] = ev.evalAt(v, path+".value")
			}
			c.NoteSecret(path, before)
		}
	}
}

// readRelTemplate reads a relationship template (§7.4).
func (c *compiler) readRelTemplate(f *file, p yamlsrc.Pair, all *yamlsrc.Node) {
	path := "service_template.relationship_templates." + p.Key.Value
	if p.Value.Kind != yamlsrc.Mapping {
		c.Errorf(core.RangeOf(p.Value), path, core.CodeWrongKind, "relationship template %q must be a map, found %s", p.Key.Value, p.Value.Describe())
		return
	}
	c.keys(p.Value, path, func() string { return "relationship template " + core.Quote(p.Key.Value) }, relTemplateKeys(), nil)
	n, ok := c.copyRelTemplate(p, all, path)
	if !ok {
		c.state.topo.failed[p.Key.Value] = c.Last()
		return
	}
	tn := n.Get("type")
	if tn == nil {
		c.Errorf(p.Key.Range, path, core.CodeMissingField, "relationship template %q is missing required field \"type\"", p.Key.Value)
		c.state.topo.failed[p.Key.Value] = c.Last()
		return
	}
	t := c.typeRef(f, core.KRelationship, tn, path+".type")
	if t == nil {
		return
	}
	c.state.topo.rels[p.Key.Value] = n
	c.state.topo.relType[p.Key.Value] = t
	ev := &eval{c: c, f: f, rel: &relCtx{}}
	c.state.topo.relProps[p.Key.Value] = c.assignProps(ev, t.props, t.propNames(), n.Get("properties"), path, "properties", owner{kind: "relationship template", name: p.Key.Value}, true)
	c.state.topo.relAttrs[p.Key.Value] = c.assignAttrs(ev, t.attrs, t.attrNames(), t.props, n.Get("attributes"), path, "attributes", owner{kind: "relationship template", name: p.Key.Value}, nil)
	c.assignIfaces(ev, t.ifaces, n.Get("interfaces"), path+".interfaces")
}

// copyRelTemplate returns the relationship template p with the one its
// copy keyname names merged under it (§7.4: all its keynames and values
// are copied, and the template's own refine them). The template copied
// must be one of the service template's relationship templates (all)
// that does not use copy itself, which also rules out a chain or a
// cycle of copies; ok is false, with the error reported, otherwise.
func (c *compiler) copyRelTemplate(p yamlsrc.Pair, all *yamlsrc.Node, path string) (*yamlsrc.Node, bool) {
	cp := p.Value.Get("copy")
	if cp == nil {
		return p.Value, true
	}
	src := all.Get(core.Text(cp))
	switch {
	case !cp.IsString():
		c.Errorf(cp.Range, path+".copy", core.CodeWrongKind, "copy names a relationship template, found %s", cp.Describe())
	case src == nil:
		c.Errorf(cp.Range, path+".copy", core.CodeCopy, "copy names %s, which is no relationship template", core.DescribeValue(cp))
	case cp.Value == p.Key.Value:
		c.Errorf(cp.Range, path+".copy", core.CodeCopy, "relationship template %q copies itself", p.Key.Value)
	case src.Kind != yamlsrc.Mapping:
		c.Errorf(cp.Range, path+".copy", core.CodeCopy, "copy names relationship template %q, which is not a map", cp.Value)
	case src.Get("copy") != nil:
		c.Errorf(cp.Range, path+".copy", core.CodeCopy, "copy names relationship template %q, which uses copy itself (§7.4)", cp.Value)
	default:
		return core.MergeNodes(src, p.Value), true
	}
	return nil, false
}

// relTemplatesInContext evaluates the inputs a relationship template's
// interface assignments give in the relationship context of the first
// requirement that uses it, where SELF is that relationship and SOURCE
// and TARGET its nodes (§10.3), so that a TOSCA path that does not fit
// them is reported: read on its own, a relationship template's path is
// known only where it is used. A template no requirement uses has no
// such context.
func (c *compiler) relTemplatesInContext(f *file) {
	topo := c.state.topo
	for _, p := range topo.st.Get("relationship_templates").Pairs() {
		n := topo.rels[p.Key.Value]
		if n == nil || n.Get("interfaces") == nil || c.Stopped() {
			continue
		}
		users := c.relTemplateUsers(p.Key.Value)
		if len(users) == 0 {
			continue
		}
		re := users[0]
		ev := &eval{c: c, f: f, node: re.src, rel: re.ra.relCtx()}
		path := "service_template.relationship_templates." + p.Key.Value + ".interfaces."
		for _, ip := range n.Get("interfaces").Pairs() {
			for _, in := range ip.Value.Get("inputs").Pairs() {
				ev.evalAt(in.Value, path+ip.Key.Value+".inputs."+in.Key.Value)
			}
			for _, key := range []string{"operations", "notifications"} {
				for _, op := range ip.Value.Get(key).Pairs() {
					for _, in := range op.Value.Get("inputs").Pairs() {
						ev.evalAt(in.Value, path+ip.Key.Value+"."+key+"."+op.Key.Value+".inputs."+in.Key.Value)
					}
				}
			}
		}
	}
}

// assignAttrs checks attribute assignments (§9.6) against the
// attribute definitions attrs (their names in order: names) and returns
// the values, defaults included.
// An attribute may also be one reflected from a property of the same
// name (§9.5: orchestrators "MUST automatically create an attribute for
// every declared property"; §9.6: an attribute "declared (or reflected
// from a Property definition)"), of that property's type and validation;
// only the attributes declared as such get a default.
//
// A template with no attribute value gets none (the compile's one empty
// map, only read, where the caller gives it; nodeValues does) rather than
// a map of its own.
func (c *compiler) assignAttrs(ev *eval, attrs map[string]*prop, names []string, props map[string]*prop, n *yamlsrc.Node, base, sec string, who owner, none map[string]graph.Value) map[string]graph.Value {
	defs, cloned := attrs, false
	for i := 0; n != nil && n.Kind == yamlsrc.Mapping && i+1 < len(n.Content); i += 2 {
		k := n.Content[i].Value
		pd := props[k]
		if attrs[k] != nil || pd == nil {
			continue
		}
		if !cloned {
			defs, cloned = make(map[string]*prop, len(attrs)+1), true
			maps.Copy(defs, attrs)
		}
		// The actual state the property's value asks for: not fixed by
		// the property's value keyname.
		d := *pd
		d.value = nil
		defs[k] = &d
	}
	if cloned {
		names = slices.Sorted(maps.Keys(defs))
	}
	out := c.assignValues(ev, defs, names, n, base, sec, who, false)
	switch {
	case out != nil:
		return out
	case none != nil:
		return none
	}
	return map[string]graph.Value{}
}

// owner names what holds assignments, for diagnostics: "node template
// \"web\"", "capability \"host\" of node template \"web\"". It is a value
// whose text is built only when a diagnostic needs it.
type owner struct {
	// kind and name name the owner; ofKind and ofName, when set, what
	// holds it.
	kind, name, ofKind, ofName string
}

func (o owner) String() string {
	s := o.kind + " " + core.Quote(o.name)
	if o.ofKind != "" {
		s += " of " + o.ofKind + " " + core.Quote(o.ofName)
	}
	return s
}

// anyDefault reports whether a definition of defs has a value or a
// default: what assignProps evaluates for a template that assigns none.
func anyDefault(defs map[string]*prop) bool {
	for _, d := range defs {
		if d.value != nil || (d.def != nil && !d.def.IsNull()) {
			return true
		}
	}
	return false
}

// assignProps checks property (or attribute) assignments n, at the YAML
// path base.sec (joined only where a value or a diagnostic needs it),
// against their definitions defs (their names in order: names,
// sortedOnce of the type or capability, which are final once the types
// are resolved and are walked again for every template) and returns the
// values, defaults included.
func (c *compiler) assignProps(ev *eval, defs map[string]*prop, names []string, n *yamlsrc.Node, base, sec string, who owner, isProp bool) map[string]graph.Value {
	out := c.assignValues(ev, defs, names, n, base, sec, who, isProp)
	if out == nil {
		out = map[string]graph.Value{}
	}
	return out
}

// assignValues is assignProps, but returns nil rather than a map of no
// values (made only once there is a value to put in it).
func (c *compiler) assignValues(ev *eval, defs map[string]*prop, names []string, n *yamlsrc.Node, base, sec string, who owner, isProp bool) map[string]graph.Value {
	var out map[string]graph.Value
	noun := "property"
	if !isProp {
		noun = "attribute"
	}
	if n != nil && !n.IsNull() && n.Kind != yamlsrc.Mapping {
		c.Errorf(n.Range, base+"."+sec, core.CodeWrongKind, "%s must be a map, found %s", lastKey(base+"."+sec), n.Describe())
		n = nil
	}
	// odd is set when a key is not a scalar, whose text names nothing:
	// without one, out tells which definitions are assigned as GetPair
	// would, without a search of n for each definition.
	odd := false
	for i := 0; n != nil && n.Kind == yamlsrc.Mapping && i+1 < len(n.Content); i += 2 {
		p := yamlsrc.Pair{Key: n.Content[i], Value: n.Content[i+1]}
		if p.Key.Kind != yamlsrc.Scalar {
			odd = true
		}
		d := defs[p.Key.Value]
		pp := c.state.paths.join(base, ".", sec, ".", p.Key.Value)
		if d == nil {
			if c.ImportFailed >= 0 {
				// The import that failed may have defined it.
				c.FollowOn(c.ImportFailed)
			} else {
				c.Errorf(p.Key.Range, pp, core.CodeUnknownProperty, "%s has no %s %q", who, noun, p.Key.Value)
				c.SuggestLast(p.Key.Value, maps.Keys(defs))
			}
			continue
		}
		before := c.SecretReads
		v := c.checkValue(ev, d, p.Value, pp)
		c.NoteSecret(pp, before)
		if d.value != nil && v != nil && !isUnknown(v) {
			fixed := c.checkValue(ev, d, d.value, pp)
			if r, ok := ev.compare(v, fixed); !ok || r != 0 {
				c.fixedValue(d, p, pp, noun)
			}
		}
		if out == nil {
			out = make(map[string]graph.Value, len(defs))
		}
		out[p.Key.Value] = v
	}
	for _, name := range names {
		if _, ok := out[name]; ok && !odd {
			continue
		} else if odd {
			if _, ok := n.GetPair(name); ok {
				continue
			}
		}
		d := defs[name]
		before := c.SecretReads
		var given *yamlsrc.Node
		switch {
		case d.value != nil:
			given = d.value
		case d.def != nil && !d.def.IsNull():
			given = d.def
		}
		switch {
		case given != nil:
			if v, ok := c.knownDefault(ev.f, d, given); ok {
				if out == nil {
					out = make(map[string]graph.Value, len(defs))
				}
				out[name] = v
				continue
			}
			pp := base + "." + sec + "." + name
			if out == nil {
				out = make(map[string]graph.Value, len(defs))
			}
			out[name] = c.checkDefault(ev, d, given, pp)
			c.NoteSecret(pp, before)
		case isProp && d.required:
			at := ev.c.state.topo.st
			if n != nil {
				at = n
			}
			c.Errorf(core.RangeOf(at), base+"."+sec, core.CodeMissingProperty, "%s is missing required property %q, which has no default", who, name)
		}
	}
	return out
}

// readNode reads a node template's assignments.
func (c *compiler) readNode(f *file, nd *node) {
	t := nd.typ
	ev := &eval{c: c, f: f, node: nd}
	if cn := nd.keys.count; cn != nil {
		c.checkExpr(f, cn, nd.path+".count", false)
		switch v := ev.evalAt(cn, nd.path+".count").(type) {
		case int64:
			switch {
			case v < 0:
				c.Errorf(cn.Range, nd.path+".count", core.CodeValue, "count must not be negative, found %d", v)
			case v > maxCount:
				c.Errorf(cn.Range, nd.path+".count", core.CodeValue, "count %d is over the limit of %d representations of one node template", v, maxCount)
			default:
				nd.count = v
			}
		case graph.Unknown:
			nd.countFn = true
		default:
			c.Errorf(cn.Range, nd.path+".count", core.CodeValue, "count must be a non-negative integer, found %s", cn.Describe())
		}
	}
	if dn := nd.keys.directives; dn != nil && !dn.IsNull() && dn.Kind != yamlsrc.Sequence {
		c.Errorf(dn.Range, nd.path+".directives", core.CodeWrongKind, "directives must be a list, found %s", dn.Describe())
	} else {
		for i, d := range dn.Items() {
			if !d.IsString() || !slices.Contains([]string{"create", "select", "substitute"}, d.Value) {
				c.Errorf(d.Range, nd.path+".directives["+core.Itoa(int64(i))+"]", core.CodeDirective, "unknown directive %s: a node template's directives are create, select and substitute (§7.2.1)", core.DescribeValue(d))
			}
		}
	}
	if nf := nd.keys.nodeFilter; nf != nil {
		c.checkExpr(f, nf, nd.path+".node_filter", false)
	}
	if cp := nd.keys.copy; cp != nil {
		switch src := c.state.topo.byName[core.Text(cp)]; {
		case src == nil && c.failedTemplate(cp):
		case src == nil:
			c.Errorf(cp.Range, nd.path+".copy", core.CodeCopy, "copy names %s, which is no node template", core.DescribeValue(cp))
		case src.keys.copy != nil:
			c.Errorf(cp.Range, nd.path+".copy", core.CodeCopy, "copy names node template %q, which uses copy itself (§7.2)", src.name)
		}
	}
	c.readReqAssigns(ev, nd)
	if in := nd.keys.interfaces; in != nil {
		c.assignIfaces(ev, t.ifaces, in, nd.path+".interfaces")
	}
	if an := nd.keys.artifacts; an != nil && !an.IsNull() {
		if an.Kind != yamlsrc.Mapping {
			c.Errorf(an.Range, nd.path+".artifacts", core.CodeWrongKind, "artifacts must be a map, found %s", an.Describe())
		} else {
			for _, p := range an.Pairs() {
				c.checkArtifact(f, p, nd.path+".artifacts."+p.Key.Value, t.artifacts[p.Key.Value] != nil)
			}
		}
	}
}

// nodeValues checks and evaluates a node template's properties,
// attributes and capability properties, for the representation nd.index
// ($node_index) when the template has a count.
func (c *compiler) nodeValues(f *file, nd *node) {
	t := nd.typ
	ev := &eval{c: c, f: f, node: nd}
	who := owner{kind: "node template", name: nd.name}
	required := !nd.selected
	nd.props = c.assignProps(ev, t.props, t.propNames(), nd.keys.properties, nd.path, "properties", who, required)
	// Rendering leaves empty attributes out and nothing writes them: the
	// compile's one empty map serves for none.
	nd.attrs = c.assignAttrs(ev, t.attrs, t.attrNames(), t.props, nd.keys.attributes, nd.path, "attributes", who, c.noValues())
	assigned := nd.keys.capabilities
	if assigned != nil && !assigned.IsNull() && assigned.Kind != yamlsrc.Mapping {
		c.Errorf(assigned.Range, nd.path+".capabilities", core.CodeWrongKind, "capabilities must be a map, found %s", assigned.Describe())
		assigned = nil
	}
	for _, p := range assigned.Pairs() {
		if t.caps[p.Key.Value] == nil {
			c.Errorf(p.Key.Range, nd.path+".capabilities."+p.Key.Value, core.CodeUnknownCapability, "node type %q has no capability %q", t.name, p.Key.Value)
		}
	}
	if assigned == nil || assigned.Kind != yamlsrc.Mapping || len(assigned.Content) == 0 {
		if caps, ok := c.emptyCaps(t); ok {
			nd.caps = caps
			return
		}
	}
	caps := make(map[string]map[string]graph.Value, len(t.caps))
	for _, name := range sortedOnce(&t.capOrder, t.caps) {
		cd := t.caps[name]
		if cd.typ == nil {
			// Its unknown type was reported; nothing to check against.
			continue
		}
		body := assigned.Get(name)
		if body == nil && len(cd.attrs) == 0 && len(cd.props) == 0 {
			// Nothing to check or evaluate: no paths to build, and the
			// values are the compile's one empty map, which is only read
			// (rendering leaves out a capability without values).
			caps[name] = c.noValues()
			continue
		}
		cp := c.state.paths.join(nd.path, ".capabilities.", name)
		if body != nil && !body.IsNull() {
			c.keys(body, cp, func() string { return "capability " + core.Quote(name) }, capAssignKeys(), nil)
		}
		co := owner{kind: "capability", name: name, ofKind: who.kind, ofName: who.name}
		caps[name] = c.assignProps(ev, cd.props, cd.propNames(), body.Get("properties"), cp, "properties", co, required)
		c.assignAttrs(ev, cd.attrs, cd.attrNames(), cd.props, body.Get("attributes"), cp, "attributes", co, nil)
	}
	nd.caps = caps
}

// noValues returns the compile's one empty map of values, which is only
// read.
func (c *compiler) noValues() map[string]graph.Value {
	if c.state.noValues == nil {
		c.state.noValues = map[string]graph.Value{}
	}
	return c.state.noValues
}

// emptyCaps returns the capability values of a template of type t that
// assigns no capability when none of t's capabilities has a property or
// an attribute definition (every one is then noValues, as nodeValues
// would make them): one map per type, only read, instead of one per
// template. ok is false when some capability has definitions.
func (c *compiler) emptyCaps(t *typeDef) (map[string]map[string]graph.Value, bool) {
	caps := perType(&c.state.emptyCaps, t, c.findEmptyCaps)
	return caps, caps != nil
}

// findEmptyCaps computes emptyCaps for t: nil when a capability has
// definitions.
func (c *compiler) findEmptyCaps(t *typeDef) map[string]map[string]graph.Value {
	caps := make(map[string]map[string]graph.Value, len(t.caps))
	for name, cd := range t.caps {
		if cd.typ == nil {
			continue
		}
		if len(cd.attrs) > 0 || len(cd.props) > 0 {
			caps = nil
			break
		}
		caps[name] = c.noValues()
	}
	return caps
}

// failedTemplate reports whether n names a node template that could not
// be read, counting the reference as a follow-on of why.
func (c *compiler) failedTemplate(n *yamlsrc.Node) bool {
	cause, ok := c.state.topo.failed[core.Text(n)]
	if ok {
		c.FollowOn(cause)
	}
	return ok
}

// selectable reports whether a node template is selected from the
// orchestrator's inventory or substituted, so that its required
// properties need no value here (§7.2.1).
func (c *compiler) selectable(n *yamlsrc.Node) bool {
	return selects(n.Get("directives"))
}

// selects reports whether directives select or substitute (selectable).
func selects(directives *yamlsrc.Node) bool {
	for _, d := range directives.Items() {
		if d.Value == "select" || d.Value == "substitute" {
			return true
		}
	}
	return false
}

// assignIfaces checks interface assignments against their definitions.
func (c *compiler) assignIfaces(ev *eval, defs map[string]*iface, n *yamlsrc.Node, path string) {
	if n == nil || n.IsNull() {
		return
	}
	if n.Kind != yamlsrc.Mapping {
		c.Errorf(n.Range, path, core.CodeWrongKind, "interfaces must be a map, found %s", n.Describe())
		return
	}
	for _, p := range n.Pairs() {
		ip := path + "." + p.Key.Value
		d := defs[p.Key.Value]
		if d == nil {
			c.Errorf(p.Key.Range, ip, core.CodeUnknownInterface, "no interface %q is defined here", p.Key.Value)
			continue
		}
		if !c.keys(p.Value, ip, func() string { return "interface " + core.Quote(p.Key.Value) }, ifaceAssignKeys(), nil) {
			continue
		}
		if in := p.Value.Get("inputs"); in != nil {
			c.checkExpr(ev.f, in, ip+".inputs", false)
		}
		for _, key := range []string{"operations", "notifications"} {
			ops := p.Value.Get(key)
			if ops == nil || ops.IsNull() {
				continue
			}
			if ops.Kind != yamlsrc.Mapping {
				c.Errorf(ops.Range, ip+"."+key, core.CodeWrongKind, "%s must be a map, found %s", key, ops.Describe())
				continue
			}
			for _, op := range ops.Pairs() {
				opPath := ip + "." + key + "." + op.Key.Value
				defined := d.ops
				if key == "notifications" {
					defined = d.notes
				}
				if d.typ != nil && defined[op.Key.Value] == nil {
					c.Errorf(op.Key.Range, opPath, core.CodeUnknownOperation, "interface %q has no %s %q", p.Key.Value, strings.TrimSuffix(key, "s"), op.Key.Value)
					continue
				}
				switch {
				case op.Value.IsNull(), op.Value.IsString():
				case op.Value.Kind == yamlsrc.Mapping:
					c.keys(op.Value, opPath, func() string { return "operation " + core.Quote(op.Key.Value) }, opAssignKeys(), nil)
					if im := op.Value.Get("implementation"); im != nil {
						c.checkImpl(im, opPath+".implementation")
					}
					c.checkExpr(ev.f, op.Value.Get("inputs"), opPath+".inputs", false)
				default:
					c.Errorf(op.Value.Range, opPath, core.CodeWrongKind, "operation %q must be an implementation or a map, found %s", op.Key.Value, op.Value.Describe())
				}
			}
		}
	}
}

func reqAssignKeys() []string {
	return []string{"node", "capability", "relationship", "allocation", "count", "node_filter", "directives", "optional"}
}

// newReqAssigns returns room for n requirement assignments and a list of
// them, empty, of capacity n: both from chunks shared by the templates
// (most have a few), so that a template's assignments cost no
// allocation of their own.
func (c *compiler) newReqAssigns(n int) ([]reqAssign, []*reqAssign) {
	return c.state.reqChunks.Take(n), c.state.reqLists.Take(n)[:0]
}

// readReqAssigns reads a node template's requirement assignments (§8.5),
// in ev, the template's context (readNode's).
func (c *compiler) readReqAssigns(ev *eval, nd *node) {
	f := ev.f
	rn := nd.keys.requirements
	if rn == nil || rn.IsNull() {
		return
	}
	if rn.Kind != yamlsrc.Sequence {
		c.Errorf(rn.Range, nd.path+".requirements", core.CodeWrongKind, "requirements must be a list, found %s", rn.Describe())
		return
	}
	topo := c.state.topo
	slab, list := c.newReqAssigns(len(rn.Content))
	nd.reqs = append(list, nd.reqs...)
	for i, it := range rn.Content {
		if it.Kind != yamlsrc.Mapping || len(it.Content) != 2 {
			ip := nd.path + ".requirements[" + core.Itoa(int64(i)) + "]"
			c.Errorf(it.Range, ip, core.CodeWrongKind, "a requirement assignment is a map with one entry, found %s", it.Describe())
			continue
		}
		name, body := it.Content[0].Value, it.Content[1]
		rp := c.state.paths.join(nd.path, ".requirements.", name)
		ra := &slab[i]
		*ra = reqAssign{src: nd.typ, name: name, n: body, rel: body.Get("relationship"), key: it.Content[0].Range, path: rp, count: 1}
		for _, d := range nd.typ.reqs {
			if d.name == name {
				ra.def = d
			}
		}
		if ra.def == nil {
			c.Errorf(it.Content[0].Range, rp, core.CodeUnknownRequirement, "node type %q has no requirement %q", nd.typ.name, name)
			continue
		}
		ra.relType = ra.def.relType
		nodeN := body
		if body.Kind == yamlsrc.Mapping {
			c.keys(body, rp, func() string { return "requirement " + core.Quote(name) }, reqAssignKeys(), nil)
			nodeN = body.Get("node")
			if cn := body.Get("count"); cn != nil {
				if v, ok := cn.Int(); ok && v >= 0 {
					ra.count = v
				} else if _, _, isCall := funcCall(cn); isCall {
					ra.countFn = true
					c.checkExpr(f, cn, rp+".count", false)
				} else {
					c.Errorf(cn.Range, rp+".count", core.CodeValue, "count must be a non-negative integer, found %s", cn.Describe())
				}
			}
			if on := body.Get("optional"); on != nil {
				if b, ok := on.Bool(); ok {
					ra.optional = b
				} else {
					c.Errorf(on.Range, rp+".optional", core.CodeValue, "optional must be true or false, found %s", on.Describe())
				}
			}
			if cn := body.Get("capability"); cn != nil && !cn.IsString() {
				c.Errorf(cn.Range, rp+".capability", core.CodeWrongKind, "capability must name a capability or capability type, found %s", cn.Describe())
			}
			if rel := ra.rel; rel != nil {
				rev := *ev
				rev.rel = ra.relCtx()
				c.readReqRelationship(&rev, ra, rel, rp+".relationship")
			}
			if nf := body.Get("node_filter"); nf != nil {
				c.checkExpr(f, nf, rp+".node_filter", false)
			}
			if al := body.Get("allocation"); al != nil {
				ra.alloc = al
				c.checkExpr(f, al, rp+".allocation", false)
			}
		} else if !body.IsString() && !(body.Kind == yamlsrc.Sequence && len(body.Content) == 2) {
			c.Errorf(body.Range, rp, core.CodeWrongKind, "requirement %q must name a node template or node type, or be a map, found %s", name, body.Describe())
			continue
		}
		if nodeN != nil && !nodeN.IsNull() {
			target := nodeN
			if nodeN.Kind == yamlsrc.Sequence && len(nodeN.Content) > 0 {
				// [template, index] names one representation (§8.5.2).
				target = nodeN.Content[0]
				if len(nodeN.Content) == 2 {
					ra.nodeIdx = nodeN.Content[1]
					c.checkExpr(f, ra.nodeIdx, rp+".node", false)
				}
			}
			if tn := topo.byName[core.Text(target)]; tn != nil {
				ra.target = tn
				c.checkTarget(f, ra, tn.typ, target)
			} else if t := c.findType(f, core.KNode, core.Text(target)); t != nil {
				c.checkTarget(f, ra, t, target)
			} else if !c.failedTemplate(target) {
				c.Errorf(target.Range, rp+".node", core.CodeUnknownTemplate, "requirement %q names %s, which is neither a node template nor a node type", name, core.DescribeValue(target))
			}
		}
		if ra.alloc != nil {
			c.checkAllocation(ev, ra)
		}
		c.relAttrDefaults(ev, ra)
		nd.reqs = append(nd.reqs, ra)
	}
	c.checkReqCounts(nd)
}

// checkTarget checks that the node (template or type) a requirement
// assignment names is of the node type the definition asks for and has
// the capability it asks for: the one the assignment names, by name or
// type, else one of the definition's capability type (§8.5.2).
func (c *compiler) checkTarget(f *file, ra *reqAssign, t *typeDef, at *yamlsrc.Node) {
	d := ra.def
	if d.nodeType != nil && !c.derives(t, d.nodeType) {
		c.Errorf(at.Range, ra.path+".node", core.CodeNodeMismatch, "requirement %q needs a node of type %q; %s is a %q", ra.name, d.nodeType.name, core.DescribeValue(at), t.name)
		return
	}
	want := d.capType
	cn := ra.n.Get("capability")
	if cn != nil && cn.IsString() {
		if cd := t.caps[cn.Value]; cd != nil {
			if cd.typ == nil {
				return
			}
			if want != nil && !c.derives(cd.typ, want) {
				c.Errorf(cn.Range, ra.path+".capability", core.CodeCapabilityMismatch, "capability %q of %s is a %q, not the %q requirement %q needs", cn.Value, core.DescribeValue(at), cd.typ.name, want.name, ra.name)
				return
			}
			ra.capName = cd.name
			c.checkValidTypes(ra, t, cd, at)
			return
		}
		ct := c.findType(f, core.KCapability, cn.Value)
		if ct == nil {
			c.Errorf(cn.Range, ra.path+".capability", core.CodeUnknownCapability, "%s has no capability %q, and no capability type has that name", core.DescribeValue(at), cn.Value)
			return
		}
		if want != nil && !c.derives(ct, want) {
			c.Errorf(cn.Range, ra.path+".capability", core.CodeCapabilityMismatch, "capability type %q is not the %q requirement %q needs", ct.name, want.name, ra.name)
			return
		}
		want = ct
	}
	if want == nil {
		return
	}
	for _, name := range sortedOnce(&t.capOrder, t.caps) {
		if cd := t.caps[name]; cd.typ != nil && c.derives(cd.typ, want) {
			ra.capName = cd.name
			c.checkValidTypes(ra, t, cd, at)
			return
		}
	}
	c.Errorf(at.Range, ra.path+".node", core.CodeCapabilityMismatch, "%s has no capability of type %q, which requirement %q needs", core.DescribeValue(at), want.name, ra.name)
}

// checkValidTypes checks the valid_*_types restrictions of the target
// capability and of the relationship (§7.3, §8.1, §8.2): the source node
// type, the capability type and the target node type must each derive
// from one of the types listed, where a list is given.
func (c *compiler) checkValidTypes(ra *reqAssign, target *typeDef, cd *capability, at *yamlsrc.Node) {
	src := ra.src
	in := func(t *typeDef, list []*typeDef) bool {
		return len(list) == 0 || slices.ContainsFunc(list, func(x *typeDef) bool { return c.derives(t, x) })
	}
	if !in(src, cd.validSources) {
		c.Errorf(at.Range, ra.path, core.CodeValidSource, "capability %q of %s does not accept a requirement of node type %q (valid_source_node_types: %s)", cd.name, core.DescribeValue(at), src.name, typeNames(cd.validSources))
	}
	rt := ra.relType
	if rt == nil {
		return
	}
	switch {
	case !in(cd.typ, rt.validCaps):
		c.Errorf(at.Range, ra.path, core.CodeValidTarget, "relationship type %q cannot target capability %q of type %q (valid_capability_types: %s)", rt.name, cd.name, cd.typ.name, typeNames(rt.validCaps))
	case !in(target, rt.validTargets):
		c.Errorf(at.Range, ra.path, core.CodeValidTarget, "relationship type %q cannot target a node of type %q (valid_target_node_types: %s)", rt.name, target.name, typeNames(rt.validTargets))
	case !in(src, rt.validSources):
		c.Errorf(at.Range, ra.path, core.CodeValidSource, "relationship type %q cannot start at a node of type %q (valid_source_node_types: %s)", rt.name, src.name, typeNames(rt.validSources))
	}
}

func typeNames(list []*typeDef) string {
	names := make([]string, len(list))
	for i, t := range list {
		names[i] = t.name
	}
	return strings.Join(names, ", ")
}

// checkCapacity checks that the allocations of the requirements that
// target a capability do not add up to more than its properties' values
// (§8.5.5), where both are known: every representation of a source
// allocates, to a target without count.
func (c *compiler) checkCapacity(f *file) {
	type key struct {
		target        *node
		capName, prop string
	}
	sums := map[key]float64{}
	var order []key
	at := map[key]*reqAssign{}
	for _, nd := range c.state.topo.nodes {
		if c.Stopped() {
			return
		}
		ev := &eval{c: c, f: f, node: nd}
		for _, ra := range nd.reqs {
			if ra.alloc == nil || ra.target == nil || ra.capName == "" || ra.target.n.Get("count") != nil {
				continue
			}
			cd := ra.target.typ.caps[ra.capName]
			for _, p := range ra.alloc.Pairs() {
				d := cd.props[p.Key.Value]
				if d == nil {
					continue
				}
				amount, ok := quantity(d.typ, ev.evalAt(p.Value, ra.path+".allocation."+p.Key.Value))
				if !ok {
					continue
				}
				k := key{ra.target, ra.capName, p.Key.Value}
				if _, seen := sums[k]; !seen {
					order = append(order, k)
				}
				sums[k] += amount * float64(nd.count)
				at[k] = ra
			}
		}
	}
	for _, k := range order {
		d := k.target.typ.caps[k.capName].props[k.prop]
		capacity, ok := quantity(d.typ, k.target.caps[k.capName][k.prop])
		if ok && sums[k] > capacity {
			ra := at[k]
			c.Errorf(ra.key, ra.path+".allocation", core.CodeValue, "the allocations of %s to capability %q of %q add up to %v, over its %v (§8.5.5)", k.prop, k.capName, k.target.name, sums[k], capacity)
		}
	}
}

// quantity reads a number, or a scalar of type t in its canonical unit.
func quantity(t *typeDef, v graph.Value) (float64, bool) {
	if f, ok := toFloat(v); ok {
		return f, true
	}
	s, ok := v.(string)
	if !ok || t == nil || t.scalar == nil {
		return 0, false
	}
	_, canon, _, msg := parseScalar(t.scalar, s)
	return canon, msg == ""
}

// checkReqCounts checks that the counts of the non-optional assignments
// of each requirement do not exceed the upper bound of its count_range
// (§8.5.4); fewer are fulfilled by the orchestrator.
func (c *compiler) checkReqCounts(nd *node) {
	for _, d := range nd.typ.reqs {
		if d.max < 0 {
			continue
		}
		// A template assigns a few requirements: a walk of them for each
		// bounded definition costs less than maps of sums.
		var sum int64
		var last *reqAssign
		for _, ra := range nd.reqs {
			if !ra.optional && ra.def == d {
				sum += ra.count
				last = ra
			}
		}
		if sum > d.max {
			c.Errorf(last.key, last.path, core.CodeOccurrences, "node template %q assigns requirement %q %d times; its count_range is %s (§8.5.4)", nd.name, d.name, sum, rangeText(d.min, d.max))
		}
	}
}

// checkAllocation checks an allocation (§8.5.5): each entry names a
// property of the capability the requirement targets (the capability
// definition of the target node template or node type, whose properties
// include those its type inherits; else the capability type the
// assignment names; else the definition's) that is an integer, a float or a scalar, and is an
// amount of that property's type.
func (c *compiler) checkAllocation(ev *eval, ra *reqAssign) {
	path := ra.path + ".allocation"
	if ra.alloc.IsNull() {
		return
	}
	if ra.alloc.Kind != yamlsrc.Mapping {
		c.Errorf(ra.alloc.Range, path, core.CodeWrongKind, "an allocation is a map of capability properties to amounts, found %s", ra.alloc.Describe())
		return
	}
	ct, props := c.allocatedCap(ev.f, ra)
	if ct == nil {
		return
	}
	for _, p := range ra.alloc.Pairs() {
		d := props[p.Key.Value]
		pp := path + "." + p.Key.Value
		switch {
		case d == nil:
			c.Errorf(p.Key.Range, pp, core.CodeUnknownProperty, "allocation of %q, which capability type %q does not define (§8.5.5)", p.Key.Value, ct.name)
		case d.typ == nil:
		case d.typ.base != "integer" && d.typ.base != "float" && d.typ.scalar == nil:
			c.Errorf(p.Key.Range, pp, core.CodeValue, "allocation of %q, a %s: only integer, float and scalar properties are allocated (§8.5.5)", p.Key.Value, d.typ.name)
		default:
			// An amount of the property: its type, not its validation
			// clauses, which constrain the capacity.
			c.checkValueDepth(ev, d.typ, nil, nil, nil, p.Value, pp, 0)
		}
	}
}

// allocatedCap returns the type and the property definitions of the
// capability an allocation draws on (see checkAllocation).
func (c *compiler) allocatedCap(f *file, ra *reqAssign) (*typeDef, map[string]*prop) {
	var target *typeDef
	switch nn := ra.n.Get("node"); {
	case ra.target != nil:
		target = ra.target.typ
	case nn != nil && nn.IsString():
		// A node type the orchestrator selects a node of.
		target = c.findType(f, core.KNode, nn.Value)
	}
	if target != nil && ra.capName != "" {
		if cd := target.caps[ra.capName]; cd != nil && cd.typ != nil {
			return cd.typ, cd.props
		}
	}
	if cn := ra.n.Get("capability"); cn != nil && cn.IsString() {
		if ct := c.findType(f, core.KCapability, cn.Value); ct != nil {
			return ct, ct.props
		}
	}
	if ct := ra.def.capType; ct != nil {
		return ct, ct.props
	}
	return nil, nil
}

// readReqRelationship reads the relationship of a requirement
// assignment: a relationship template or type name, or a map.
func (c *compiler) readReqRelationship(ev *eval, ra *reqAssign, n *yamlsrc.Node, path string) {
	topo := c.state.topo
	if n.IsString() {
		if t := topo.relType[n.Value]; t != nil {
			ra.relType, ra.relProps, ra.relAttrs = t, topo.relProps[n.Value], topo.relAttrs[n.Value]
			return
		}
		if cause, failed := topo.failed[n.Value]; failed && topo.st.Get("relationship_templates").Get(n.Value) != nil {
			// A relationship template that could not be read.
			c.FollowOn(cause)
			return
		}
		ra.relType = c.typeRef(ev.f, core.KRelationship, n, path)
		return
	}
	if n.Kind != yamlsrc.Mapping {
		c.Errorf(n.Range, path, core.CodeWrongKind, "relationship must name a relationship template or type, or be a map, found %s", n.Describe())
		return
	}
	c.keys(n, path, func() string { return "relationship" }, relAssignKeys(), nil)
	t := ra.relType
	if tn := n.Get("type"); tn != nil {
		t = c.typeRef(ev.f, core.KRelationship, tn, path+".type")
	}
	if t == nil {
		return
	}
	ra.relType = t
	who := owner{kind: "relationship of requirement", name: ra.name}
	ra.relProps = c.assignProps(ev, t.props, t.propNames(), n.Get("properties"), path, "properties", who, true)
	ra.relAttrs = c.assignAttrs(ev, t.attrs, t.attrNames(), t.props, n.Get("attributes"), path, "attributes", who, nil)
	c.assignIfaces(ev, t.ifaces, n.Get("interfaces"), path+".interfaces")
}

// readGroup reads a group definition (§16.2).
func (c *compiler) readGroup(f *file, p yamlsrc.Pair) {
	path := "service_template.groups." + p.Key.Value
	if p.Value.Kind != yamlsrc.Mapping {
		c.Errorf(core.RangeOf(p.Value), path, core.CodeWrongKind, "group %q must be a map, found %s", p.Key.Value, p.Value.Describe())
		return
	}
	c.keys(p.Value, path, func() string { return "group " + core.Quote(p.Key.Value) }, groupKeys(), nil)
	c.state.topo.groups[p.Key.Value] = p.Value
	t := c.typeRef(f, core.KGroup, p.Value.Get("type"), path+".type")
	if t == nil {
		return
	}
	ev := &eval{c: c, f: f}
	who := owner{kind: "group", name: p.Key.Value}
	c.assignProps(ev, t.props, t.propNames(), p.Value.Get("properties"), path, "properties", who, true)
	c.assignAttrs(ev, t.attrs, t.attrNames(), t.props, p.Value.Get("attributes"), path, "attributes", who, nil)
	ms := p.Value.Get("members")
	if ms == nil || ms.IsNull() {
		return
	}
	if ms.Kind != yamlsrc.Sequence {
		c.Errorf(ms.Range, path+".members", core.CodeWrongKind, "members must be a list, found %s", ms.Describe())
		return
	}
	var seen []string
	for i, m := range ms.Content {
		mp := path + ".members[" + core.Itoa(int64(i)) + "]"
		nd := c.state.topo.byName[core.Text(m)]
		switch {
		case nd == nil && c.failedTemplate(m):
		case nd == nil:
			c.Errorf(m.Range, mp, core.CodeGroupMembers, "group member %s is no node template", core.DescribeValue(m))
		case slices.Contains(seen, nd.name):
			c.Errorf(m.Range, mp, core.CodeGroupMembers, "group member %q is listed twice", nd.name)
		case len(t.members) > 0 && !slices.ContainsFunc(t.members, func(mt *typeDef) bool { return c.derives(nd.typ, mt) }):
			c.Errorf(m.Range, mp, core.CodeGroupMembers, "node template %q of type %q is not of a member type of group type %q", nd.name, nd.typ.name, t.name)
		}
		if nd != nil {
			seen = append(seen, nd.name)
		}
	}
}

// readPolicy reads a policy definition (§16.4): a map with one entry.
func (c *compiler) readPolicy(f *file, it *yamlsrc.Node, ip string) {
	if it.Kind != yamlsrc.Mapping || len(it.Content) != 2 {
		c.Errorf(it.Range, ip, core.CodeWrongKind, "a policy definition is a map with one entry, found %s", it.Describe())
		return
	}
	name, body := it.Content[0].Value, it.Content[1]
	path := "service_template.policies." + name
	if !c.keys(body, path, func() string { return "policy " + core.Quote(name) }, policyKeys(), nil) {
		return
	}
	t := c.typeRef(f, core.KPolicy, body.Get("type"), path+".type")
	if t == nil {
		return
	}
	ev := &eval{c: c, f: f}
	c.assignProps(ev, t.props, t.propNames(), body.Get("properties"), path, "properties", owner{kind: "policy", name: name}, true)
	for i, tg := range body.Get("targets").Items() {
		tp := path + ".targets[" + core.Itoa(int64(i)) + "]"
		nd, grp := c.state.topo.byName[core.Text(tg)], c.state.topo.groups[core.Text(tg)]
		var tt *typeDef
		switch {
		case nd != nil:
			tt = nd.typ
		case grp != nil:
			tt = c.findType(f, core.KGroup, core.Text(grp.Get("type")))
		case c.failedTemplate(tg):
		default:
			c.Errorf(tg.Range, tp, core.CodePolicyTargets, "policy target %s is no node template or group", core.DescribeValue(tg))
			continue
		}
		// The policy type's targets list the node and group types it
		// applies to (§16.3).
		if tt != nil && len(t.targets) > 0 && !slices.ContainsFunc(t.targets, func(x *typeDef) bool { return c.derives(tt, x) }) {
			c.Errorf(tg.Range, tp, core.CodePolicyTargets, "policy type %q does not apply to %s of type %q (targets: %s)", t.name, core.DescribeValue(tg), tt.name, typeNames(t.targets))
		}
	}
	if tr := body.Get("triggers"); tr != nil && !tr.IsNull() {
		if tr.Kind != yamlsrc.Mapping {
			c.Errorf(tr.Range, path+".triggers", core.CodeWrongKind, "triggers must be a map, found %s", tr.Describe())
			return
		}
		for _, p := range tr.Pairs() {
			tp := path + ".triggers." + p.Key.Value
			if !c.keys(p.Value, tp, func() string { return "trigger " + core.Quote(p.Key.Value) }, triggerKeys(), nil) {
				continue
			}
			for _, req := range []string{"event", "action"} {
				if p.Value.Get(req) == nil {
					c.Errorf(p.Key.Range, tp, core.CodeMissingField, "trigger %q is missing required field %q", p.Key.Value, req)
				}
			}
			c.checkExpr(f, p.Value.Get("condition"), tp+".condition", false)
		}
	}
}

// pickTargets evaluates the index of the node a requirement names as
// [template, index] (§8.5.2, §14.3.4) for each representation of the
// source ($node_index) and each relationship the requirement makes
// ($relationship_index, 0 to count-1): the representation of the target
// each relationship goes to. An index only apply time knows selects every
// representation, as a requirement without index does.
func (c *compiler) pickTargets(f *file, nd *node, ra *reqAssign) {
	rels := ra.count
	if ra.countFn || rels < 1 {
		rels = 1
	}
	_, counted := nd.n.GetPair("count")
	ra.picks = make([][]int64, nd.count)
	defer func() { nd.index = nil }()
	for i := range nd.count {
		if c.Stopped() {
			return
		}
		if counted {
			nd.index = i
		}
		var picks []int64
	rels:
		for r := range rels {
			ev := &eval{c: c, f: f, node: nd, rel: &relCtx{ra: ra, req: ra.name, count: ra.count, index: r, known: true}}
			switch v := ev.evalAt(ra.nodeIdx, ra.path+".node").(type) {
			case int64:
				if v < 0 || (v >= ra.target.count && !ra.target.countFn) {
					c.Errorf(ra.nodeIdx.Range, ra.path+".node", core.CodeValue, "requirement %q selects representation %d of node template %q, which has %d (§8.5.2)", ra.name, v, ra.target.name, ra.target.count)
					return
				}
				picks = append(picks, v)
			case graph.Unknown:
				picks = nil
				break rels
			case nil:
				return
			default:
				c.Errorf(ra.nodeIdx.Range, ra.path+".node", core.CodeValue, "the index of the node requirement %q names must be a non-negative integer, found %s", ra.name, describeGo(v))
				return
			}
		}
		ra.picks[i] = picks
	}
}
