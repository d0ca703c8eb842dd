package tosca1

// Phase 5 — templates: the topology template's inputs, node templates,
// relationship templates, groups, policies, outputs, substitution mappings
// and workflows.
//
// Errors detected here:
//   - wrong YAML kinds, unknown and missing keynames throughout the topology template
//     (tosca.wrong_kind, tosca.unknown_field, tosca.missing_field)
//   - a template whose type is unknown or of another kind (tosca.unknown_type)
//   - capability assignments naming capabilities the type lacks (tosca.unknown_capability)
//   - requirement assignments in the wrong form, with unknown keynames, or short-form
//     assignments naming requirements the type lacks (tosca.unknown_requirement)
//   - interface assignments naming interfaces or operations the type lacks
//     (tosca.unknown_interface, tosca.unknown_operation)
//   - copy naming a missing template, or one that itself copies (tosca.copy)
//   - unknown directives (tosca.directive, a warning)
//   - group members and policy targets that are missing, repeated, or of the wrong type
//     (tosca.unknown_template, tosca.group_members, tosca.policy_targets)
//   - outputs without value (tosca.missing_field)
//   - substitution mappings naming unknown node types, templates, capabilities or
//     requirements (tosca.substitution; details in substitution.go)
//   - a required property without value or default (tosca.missing_property): an error for
//     node and relationship templates, capabilities and policies, a warning for groups
//   - workflows: steps whose target, on_success or on_failure do not exist, activities of an
//     unknown kind (tosca.workflow)
//   - required inputs without value or default when Options.RequireInputs is set
//     (tosca.missing_input); input values that do not match their definition (tosca.value)

import (
	"strconv"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
)

type topology struct {
	n      *yamlsrc.Node
	inputs map[string]*inputDef
	nodes  map[string]*nodeTpl
	// nodeList holds the node templates in source order.
	nodeList []*nodeTpl
	rels     map[string]*relTpl
	groups   map[string]*groupTpl
	policies []*policyTpl
	outputs  []*outputDef
	// byType indexes node templates by their type and every ancestor, and
	// byCap by the capability types they offer (with ancestors), so that
	// requirement matching is linear in the number of requirements.
	byType map[*typeDef][]*nodeTpl
	byCap  map[*typeDef][]*nodeTpl
}

type inputDef struct {
	name string
	d    *propDef
	val  graph.Value
}

type nodeTpl struct {
	name string
	n    *yamlsrc.Node
	key  diag.Range
	path string
	typ  *typeDef

	directives []string
	// propsN etc. are the assignment nodes, after copy.
	propsN, attrsN, capsN, ifacesN *yamlsrc.Node
	reqs                           []*reqAssign
	artifacts                      []*artifactDef

	// props are evaluated lazily (get_property may reach across
	// templates); state 0 pending, 1 evaluating, 2 done.
	props map[string]graph.Value
	state uint8
	// evaluating marks properties being evaluated (get_property cycles);
	// evalBuf holds the first few without an allocation.
	evaluating []string
	evalBuf    [4]string
	// self is the scope of the template's own values (selfScope).
	self scope
	// metadata is the template's own metadata (not a copied one's).
	metadata *yamlsrc.Node
	// capProps holds the capability property values (capPropsOf, which
	// sets capsDone), nil while there are none.
	capProps map[string]map[string]graph.Value
	capsDone bool
	// capAttrs holds the attribute values capability assignments give
	// (1.3 §3.8.2), by capability, as get_attribute reads them.
	capAttrs map[string]map[string]graph.Value
	attrs    map[string]graph.Value
}

// selfScope returns the scope of nt's own values (SELF is nt, at its
// name). Scopes are never changed in place (a nested evaluation copies
// one), so the template keeps one rather than allocating one per value.
func (nt *nodeTpl) selfScope() *scope {
	if nt.self.node == nil {
		nt.self = scope{at: nt.key, node: nt}
	}
	return &nt.self
}

type reqAssign struct {
	name     string
	n        *yamlsrc.Node
	key      diag.Range
	path     string
	def      *reqDef
	nodeName string
	nodeN    *yamlsrc.Node
	capName  string
	capN     *yamlsrc.Node
	relName  string
	relN     *yamlsrc.Node
	relTpl   *relTpl
	relType  *typeDef
	relBody  *yamlsrc.Node // long-form relationship map {type, properties, interfaces}
	filter   *yamlsrc.Node
	src      *nodeTpl
	// implicit marks a match the compiler made for an unassigned
	// requirement (phase 6).
	implicit bool
	// relProps are the relationship's property values (relPropsOf);
	// relBusy is set while they are evaluated, relReading lists the
	// properties read meanwhile (relPropRead) and relCycle marks one read
	// through itself.
	relProps   map[string]graph.Value
	relBusy    bool
	relReading []string
	relCycle   bool

	target    *nodeTpl
	targetCap *capDef
}

type relTpl struct {
	name string
	n    *yamlsrc.Node
	key  diag.Range
	path string
	typ  *typeDef
	// props are its property values, with its type's defaults.
	props map[string]graph.Value
}

type groupTpl struct {
	name    string
	n       *yamlsrc.Node
	key     diag.Range
	path    string
	typ     *typeDef
	members []*nodeTpl
}

type policyTpl struct {
	name    string
	n       *yamlsrc.Node
	key     diag.Range
	path    string
	typ     *typeDef
	targets []*nodeTpl
	props   map[string]graph.Value
}

type outputDef struct {
	name string
	n    *yamlsrc.Node
	val  *yamlsrc.Node
	path string
}

// topologyKeys lists keynames the grammar allows; a function so that no
// package-level slice can be changed.
func topologyKeys() []string {
	return []string{"description", "inputs", "node_templates", "relationship_templates", "groups",
		"policies", "outputs", "substitution_mappings", "workflows"}
}

// nodeTplKeys lists keynames the grammar allows; a function so that no
// package-level slice can be changed.
func nodeTplKeys() []string {
	return []string{"type", "description", "metadata", "directives", "properties", "attributes",
		"requirements", "capabilities", "interfaces", "artifacts", "node_filter", "copy"}
}

// readTopology reads the root file's topology template.
func (c *compiler) readTopology(root *file) {
	t := &topology{inputs: map[string]*inputDef{}, nodes: map[string]*nodeTpl{}, rels: map[string]*relTpl{},
		groups: map[string]*groupTpl{}, byType: map[*typeDef][]*nodeTpl{}, byCap: map[*typeDef][]*nodeTpl{}}
	c.topo = t
	tn := root.root.Get("topology_template")
	if tn.IsNull() || tn.Kind != yamlsrc.Mapping {
		// A file of type definitions declares no input: a value given
		// for one is an error here too.
		c.undeclaredInputs(nil, "topology_template", startOf(root.root.Range))
		return
	}
	t.n = tn
	c.checkKeys(tn, "topology_template", "topology_template", topologyKeys()...)
	c.checkNewer(tn, "topology", "topology_template")
	const tp = "topology_template"
	if d := tn.Get("description"); d != nil && !d.IsNull() && d.Kind != yamlsrc.Scalar {
		c.errorf(d.Range, tp+".description", core.CodeWrongKind, "description must be a string, found %s", d.Describe())
	}
	c.readInputs(c.section(tn, "inputs", yamlsrc.Mapping))
	c.readNodeTemplates(c.section(tn, "node_templates", yamlsrc.Mapping))
	c.readRelTemplates(c.section(tn, "relationship_templates", yamlsrc.Mapping))
	c.readGroups(c.section(tn, "groups", yamlsrc.Mapping))
	c.readPolicies(c.section(tn, "policies", yamlsrc.Sequence))
	c.readOutputs(c.section(tn, "outputs", yamlsrc.Mapping))
}

// section returns a topology section if it has the expected kind.
func (c *compiler) section(tn *yamlsrc.Node, key string, want yamlsrc.Kind) *yamlsrc.Node {
	p, ok := tn.GetPair(key)
	if !ok || p.Value.IsNull() {
		return nil
	}
	if p.Value.Kind != want {
		c.errorf(p.Key.Range, "topology_template."+key, core.CodeWrongKind, "%s must be a %s, found %s", key, want, p.Value.Describe())
		return nil
	}
	return p.Value
}

func (c *compiler) readInputs(n *yamlsrc.Node) {
	given := c.opts.Inputs
	for _, p := range n.Pairs() {
		path := "topology_template.inputs." + p.Key.Value
		d := c.readPropDef(p.Key, p.Value, path, "input", true, nil)
		if d == nil {
			continue
		}
		in := &inputDef{name: p.Key.Value, d: d}
		c.topo.inputs[in.name] = in
		s := &scope{at: p.Key.Range, inputsOnly: true}
		if v, ok := given[in.name]; ok {
			at := p.Key.Range
			if r, ok := c.opts.InputRanges[in.name]; ok {
				at = r
			}
			in.val = c.checkInputValue(d, v, at, path, s)
			continue
		}
		if v, ok := p.Value.GetPair("value"); ok && !v.Value.IsNull() {
			// A parameter definition's fixed value (TOSCA 1.2+), checked
			// against its type like a default.
			in.val = c.checkValue(d, v.Value, path+".value", "input "+quote(in.name)+" value", s)
			continue
		}
		if d.hasDefault {
			in.val = c.checkValue(d, d.def, path+".default", "input "+quote(in.name)+" default", s)
			continue
		}
		if d.required && c.opts.RequireInputs {
			c.errorf(p.Key.Range, path, core.CodeMissingInput, "required input %q has no value and no default", in.name)
		}
	}
	declared := map[string]bool{}
	for name := range c.topo.inputs {
		declared[name] = true
	}
	// Reported where each value is, which may serve several templates:
	// the message names this one.
	at := startOf(c.root.root.Range)
	if n != nil {
		at = n.Range
	}
	c.undeclaredInputs(declared, "topology_template", at)
}

// checkInputValue checks a value given through Options. A string from
// --var is read as YAML when it does not fit as a string, so `--var n=3`
// sets an integer input.
func (c *compiler) checkInputValue(d *propDef, v any, at diag.Range, path string, s *scope) graph.Value {
	n := nodeOf(v, at)
	if str, ok := v.(string); ok && d.prim != "string" {
		if parsed, ds := yamlsrc.Parse(at.File, []byte(str), yamlsrc.Limits{}); !ds.HasErrors() && parsed != nil {
			parsed.Range = at
			n = parsed
		}
	}
	return c.checkValue(d, n, path, "input "+quote(d.name), s)
}

func (c *compiler) readNodeTemplates(n *yamlsrc.Node) {
	t := c.topo
	pairs := n.Pairs()
	if len(t.nodes) == 0 {
		t.nodes = make(map[string]*nodeTpl, len(pairs))
	}
	t.nodeList = make([]*nodeTpl, 0, len(pairs))
	// One allocation for all the templates, which also keeps them
	// together in memory for the phases that walk them in order.
	slab := make([]nodeTpl, len(pairs))
	for i, p := range pairs {
		nt := &slab[i]
		*nt = nodeTpl{name: p.Key.Value, n: p.Value, key: p.Key.Range, path: "topology_template.node_templates." + p.Key.Value}
		t.nodes[nt.name] = nt
		t.nodeList = append(t.nodeList, nt)
	}
	for i, nt := range t.nodeList {
		if i&1023 == 0 && c.Ctx.Err() != nil {
			return
		}
		c.readNodeTemplate(nt)
	}
}

// field returns a node template keyname's value merged over the copied
// template's (maps merge key by key, deeply; anything else replaces).
func field(n, src *yamlsrc.Node, key string) *yamlsrc.Node {
	return mergeNodes(src.Get(key), n.Get(key))
}

// copySource returns the effective definition of the template nt copies
// (following copy chains, as Puccini does), or nil.
func (c *compiler) copySource(nt *nodeTpl, depth int) *yamlsrc.Node {
	cp := nt.n.Get("copy")
	if cp == nil {
		return nil
	}
	other := c.topo.nodes[cp.Value]
	c.noteNode(cp, other)
	switch {
	case other == nil:
		c.errorf(cp.Range, nt.path+".copy", core.CodeCopy, "node template %q copies %q, which is not a node template", nt.name, cp.Value)
		return nil
	case other == nt || depth > 16:
		c.errorf(cp.Range, nt.path+".copy", core.CodeCopy, "node template %q is part of a copy cycle", nt.name)
		return nil
	case other.n.Kind != yamlsrc.Mapping:
		return nil
	}
	base := c.copySource(other, depth+1)
	if base == nil {
		return other.n
	}
	return mergeNodes(base, other.n)
}

func (c *compiler) readNodeTemplate(nt *nodeTpl) {
	what := func() string { return "node template " + quote(nt.name) }
	if !c.checkKeysOf(nt.n, nt.path, what, nodeTplKeys()...) {
		if nt.n.IsNull() {
			c.errorf(nt.key, nt.path, core.CodeMissingField, "%s is missing required field \"type\"", what())
		}
		return
	}
	src := c.copySource(nt, 0)
	tn := field(nt.n, src, "type")
	if tn.IsNull() {
		c.errorf(nt.key, nt.path, core.CodeMissingField, "%s is missing required field \"type\"", what())
		return
	}
	nt.typ = c.templateType(kNode, tn, nt.path)
	if d := field(nt.n, src, "directives"); d != nil {
		nt.directives = c.strList(d, nt.path+".directives", "directives")
		for _, dv := range nt.directives {
			if dv != "select" && dv != "substitute" {
				c.warnf(d.Range, nt.path+".directives", core.CodeDirective, "unknown directive %q (TOSCA defines select and substitute)", dv)
			}
		}
	}
	nt.propsN = field(nt.n, src, "properties")
	nt.attrsN = field(nt.n, src, "attributes")
	nt.capsN = field(nt.n, src, "capabilities")
	nt.ifacesN = field(nt.n, src, "interfaces")
	if md := nt.n.Get("metadata"); md != nil {
		nt.metadata = md
		c.ReadMetadata(md, nt.path+".metadata", false)
	}
	if a := field(nt.n, src, "artifacts"); a != nil {
		var inherited map[string]*artifactDef
		if nt.typ != nil {
			inherited = nt.typ.artifacts
		}
		nt.artifacts = c.readArtifacts(a, nt.path+".artifacts", inherited)
	}
	if nf := field(nt.n, src, "node_filter"); nf != nil {
		c.readNodeFilter(nf, nt.path+".node_filter")
	}
	if nt.typ == nil {
		return
	}
	c.indexTemplate(nt)
	c.readCapAssignments(nt)
	c.readReqAssignments(nt, field(nt.n, src, "requirements"))
	if nt.ifacesN != nil {
		c.readIfaceAssignments(nt.typ, nt.ifacesN, nt.path+".interfaces", what())
	}
}

// templateType resolves the type of kind k written at tn of the template
// at owner; a type of another kind is reported as such. The path of the
// type, owner+".type", is built only for a problem: every node template
// resolves its type here.
func (c *compiler) templateType(k kind, tn *yamlsrc.Node, owner string) *typeDef {
	if tn.Kind != yamlsrc.Scalar {
		c.errorf(tn.Range, owner+".type", core.CodeWrongKind, "type must be a string, found %s", tn.Describe())
		return nil
	}
	t := c.lookup(k, tn.Value)
	if t != nil {
		c.noteType(tn, t)
		return t
	}
	for other := kind(0); other < numKinds; other++ {
		if o := c.lookup(other, tn.Value); o != nil {
			c.errorf(tn.Range, owner+".type", core.CodeUnknownType, "%q is a %s, not a %s", tn.Value, other.Word(), k.Word())
			return nil
		}
	}
	c.unknownType(k, tn, owner+".type", false, "unknown %s %q", k.Word(), tn.Value)
	return nil
}

func (c *compiler) indexTemplate(nt *nodeTpl) {
	t := c.topo
	for ty := nt.typ; ty != nil; ty = ty.parent {
		t.byType[ty] = append(t.byType[ty], nt)
	}
	seen := map[*typeDef]bool{}
	for _, name := range nt.typ.capOrder {
		cd := nt.typ.caps[name]
		for ct := cd.typ; ct != nil; ct = ct.parent {
			if seen[ct] {
				break
			}
			seen[ct] = true
			t.byCap[ct] = append(t.byCap[ct], nt)
		}
	}
}

func (c *compiler) readCapAssignments(nt *nodeTpl) {
	n := nt.capsN
	if n.IsNull() {
		return
	}
	path := nt.path + ".capabilities"
	if n.Kind != yamlsrc.Mapping {
		c.errorf(n.Range, path, core.CodeWrongKind, "capabilities of node template %q must be a map, found %s", nt.name, n.Describe())
		nt.capsN = nil
		return
	}
	for _, p := range n.Pairs() {
		cp := joinPath(path, p.Key.Value)
		if nt.typ.caps[p.Key.Value] == nil {
			if c.lacks(nt.typ) {
				continue
			}
			c.errorf(p.Key.Range, cp, core.CodeUnknownCapability, "node template %q has no capability %q (type %q)", nt.name, p.Key.Value, nt.typ.name)
			continue
		}
		c.checkKeysOf(p.Value, cp, func() string { return "capability " + quote(p.Key.Value) + " of node template " + quote(nt.name) }, "properties", "attributes", "occurrences", "description")
	}
}

// reqAssignKeys lists keynames the grammar allows; a function so that no
// package-level slice can be changed.
func reqAssignKeys() []string {
	return []string{"node", "capability", "relationship", "node_filter", "occurrences", "description", "metadata"}
}

// newReqAssigns returns n zero requirement assignments and an empty list
// with room for n, from chunks shared by the templates (core.Chunks) so
// that a topology's thousands of templates do not allocate them one by
// one. Both are capped: appending to the list (an implicit match) moves
// it.
func (c *compiler) newReqAssigns(n int) ([]reqAssign, []*reqAssign) {
	return c.reqChunks.Take(n), c.reqLists.Take(n)[:0]
}

// reqPath is the YAML path of the requirement name assigned at index i
// of the requirements of the template at tpl (never ""), in one
// concatenation.
func reqPath(tpl string, i int, name string) string {
	return tpl + ".requirements[" + strconv.Itoa(i) + "]." + name
}

func (c *compiler) readReqAssignments(nt *nodeTpl, n *yamlsrc.Node) {
	if n.IsNull() {
		return
	}
	if n.Kind != yamlsrc.Sequence {
		c.errorf(keyAt(nt.n, "requirements", n.Range), nt.path+".requirements", core.CodeWrongKind, "requirements of node template %q must be a list, found %s", nt.name, n.Describe())
		return
	}
	// The assignments and the list come from chunks shared by the
	// templates; each path is built in one concatenation.
	slab, list := c.newReqAssigns(len(n.Content))
	nt.reqs = list
	for i, it := range n.Content {
		if it.Kind != yamlsrc.Mapping || len(it.Content) != 2 {
			c.errorf(it.Range, nt.path+".requirements["+strconv.Itoa(i)+"]", core.CodeWrongKind, "a requirement assignment must be a map with one key, found %s", it.Describe())
			continue
		}
		k, v := it.Content[0], it.Content[1]
		ra := &slab[i]
		*ra = reqAssign{name: k.Value, n: it, key: k.Range, path: reqPath(nt.path, i, k.Value), src: nt}
		ra.def = nt.typ.reqDefOf(ra.name)
		switch {
		case v.Kind == yamlsrc.Scalar && !v.IsNull():
			ra.nodeName, ra.nodeN = v.Value, v
			if ra.def == nil {
				if c.lacks(nt.typ) {
					continue
				}
				c.errorf(k.Range, ra.path, core.CodeUnknownRequirement, "node template %q has no requirement %q (type %q)", nt.name, ra.name, nt.typ.name)
				continue
			}
		case v.Kind == yamlsrc.Mapping:
			c.checkKeysOf(v, ra.path, func() string { return "requirement " + quote(ra.name) + " of node template " + quote(nt.name) }, reqAssignKeys()...)
			ra.nodeName, ra.nodeN = c.str(v, ra.path, "node")
			ra.capName, ra.capN = c.str(v, ra.path, "capability")
			if rel := v.Get("relationship"); rel != nil {
				switch {
				case rel.Kind == yamlsrc.Scalar:
					ra.relName, ra.relN = rel.Value, rel
				case rel.Kind == yamlsrc.Mapping:
					c.checkKeys(rel, ra.path+".relationship", "relationship of requirement "+quote(ra.name), "type", "properties", "interfaces")
					ra.relName, ra.relN = c.str(rel, ra.path+".relationship", "type")
					ra.relBody = rel
				default:
					c.errorf(rel.Range, ra.path+".relationship", core.CodeWrongKind, "relationship must be a name or a map, found %s", rel.Describe())
				}
			}
			if nf := v.Get("node_filter"); nf != nil {
				c.readNodeFilter(nf, ra.path+".node_filter")
				ra.filter = nf
			}
			if oc := v.Get("occurrences"); oc != nil {
				c.readOccurrences(oc, ra.path+".occurrences")
			}
		case v.IsNull():
			if ra.def == nil {
				if c.lacks(nt.typ) {
					continue
				}
				c.errorf(k.Range, ra.path, core.CodeUnknownRequirement, "node template %q has no requirement %q (type %q)", nt.name, ra.name, nt.typ.name)
				continue
			}
		default:
			c.errorf(v.Range, ra.path, core.CodeWrongKind, "requirement %q must be a node template name or a map, found %s", ra.name, v.Describe())
			continue
		}
		nt.reqs = append(nt.reqs, ra)
	}
}

// readNodeFilter checks a node filter's grammar: properties is a list of
// one-key maps of constraints; capabilities a list of one-key maps with
// properties. A map of properties is read as that list, with a warning:
// the grammar (TOSCA 1.3 §3.6.5) says list, but the specification's own
// examples (§2.9) write a map, and Puccini reads both.
func (c *compiler) readNodeFilter(n *yamlsrc.Node, path string) {
	if !c.checkKeys(n, path, "node_filter", "properties", "capabilities") {
		return
	}
	c.filterProperties(n.Get("properties"), path+".properties")
	if cp := n.Get("capabilities"); cp != nil && !cp.IsNull() {
		if cp.Kind != yamlsrc.Sequence {
			c.errorf(cp.Range, path+".capabilities", core.CodeWrongKind, "capabilities of a node_filter must be a list, found %s", cp.Describe())
			return
		}
		for _, it := range cp.Content {
			for _, q := range it.Pairs() {
				if q.Value.Kind != yamlsrc.Mapping {
					continue
				}
				if c.checkKeys(q.Value, path+".capabilities."+q.Key.Value, "node_filter capability "+quote(q.Key.Value), "properties") {
					c.filterProperties(q.Value.Get("properties"), path+".capabilities."+q.Key.Value+".properties")
				}
			}
		}
	}
}

// filterProperties checks the properties of a node_filter or of one of
// its capabilities (see readNodeFilter).
func (c *compiler) filterProperties(p *yamlsrc.Node, path string) {
	switch {
	case p.IsNull(), p.Kind == yamlsrc.Sequence:
	case p.Kind == yamlsrc.Mapping:
		c.warnf(p.Range, path, core.CodeWrongKind, "properties of a node_filter should be a list of one-key maps (TOSCA 1.3 §3.6.5); this map is read as one")
	default:
		c.errorf(p.Range, path, core.CodeWrongKind, "properties of a node_filter must be a list, found %s", p.Describe())
	}
}

// readIfaceAssignments checks interface assignments against the
// interface definitions of the type t.
func (c *compiler) readIfaceAssignments(t *typeDef, n *yamlsrc.Node, path, owner string) {
	defs := t.ifaces
	if n.IsNull() {
		return
	}
	if n.Kind != yamlsrc.Mapping {
		c.errorf(n.Range, path, core.CodeWrongKind, "interfaces of %s must be a map, found %s", owner, n.Describe())
		return
	}
	for _, p := range n.Pairs() {
		ip := joinPath(path, p.Key.Value)
		d := defs[p.Key.Value]
		if d == nil {
			if !c.lacks(t) {
				c.errorf(p.Key.Range, ip, core.CodeUnknownInterface, "%s has no interface %q", owner, p.Key.Value)
			}
			continue
		}
		if p.Value.IsNull() {
			continue
		}
		if p.Value.Kind != yamlsrc.Mapping {
			c.errorf(p.Value.Range, ip, core.CodeWrongKind, "interface %q of %s must be a map, found %s", p.Key.Value, owner, p.Value.Describe())
			continue
		}
		c.checkNewer(p.Value, "interface", ip)
		check := func(q yamlsrc.Pair, op string, listed bool) {
			if d.ops[q.Key.Value] == nil {
				if c.lacks(d.typ) || c.lacks(t) {
					return
				}
				c.errorf(q.Key.Range, op, core.CodeUnknownOperation, "interface %q of %s has no operation %q", p.Key.Value, owner, q.Key.Value)
				return
			}
			c.checkOpAssignment(q.Value, op, q.Key.Value, listed)
		}
		for _, q := range p.Value.Pairs() {
			switch q.Key.Value {
			case "type", "description", "inputs":
			case "operations", "notifications":
				for _, r := range q.Value.Pairs() {
					check(r, joinPath(ip, q.Key.Value+"."+r.Key.Value), true)
				}
			default:
				check(q, joinPath(ip, q.Key.Value), false)
			}
		}
	}
}

// opAssignKeys lists keynames the grammar allows; a function so that no
// package-level slice can be changed.
func opAssignKeys() []string {
	return []string{"description", "implementation", "inputs", "outputs", "metadata"}
}

// implKeys lists keynames the grammar allows; a function so that no
// package-level slice can be changed.
func implKeys() []string {
	return []string{"primary", "dependencies", "timeout", "operation_host"}
}

// checkOpAssignment checks the operation name assigned n at path; listed
// says it is written under the interface's operations keyname.
func (c *compiler) checkOpAssignment(n *yamlsrc.Node, path, name string, listed bool) {
	switch {
	case n.IsNull(), n.Kind == yamlsrc.Scalar:
	case n.Kind == yamlsrc.Sequence && len(n.Content) == 0:
		c.warnEmptyOperation(n, path, "operation", name, listed)
	case n.Kind == yamlsrc.Mapping:
		c.checkKeys(n, path, "operation "+quote(name), opAssignKeys()...)
		c.checkNewer(n, "operation", path)
		c.checkNewer(n.Get("implementation"), "implementation", path+".implementation")
		if impl := n.Get("implementation"); impl != nil && impl.Kind == yamlsrc.Mapping {
			c.checkKeys(impl, path+".implementation", "implementation of operation "+quote(name), implKeys()...)
		} else if impl != nil && impl.Kind == yamlsrc.Sequence {
			c.errorf(impl.Range, path+".implementation", core.CodeWrongKind, "implementation must be a file name or a map, found a list")
		}
		if ins := n.Get("inputs"); ins != nil && !ins.IsNull() && ins.Kind != yamlsrc.Mapping {
			c.errorf(ins.Range, path+".inputs", core.CodeWrongKind, "inputs of operation %q must be a map, found %s", name, ins.Describe())
		}
	default:
		c.errorf(n.Range, path, core.CodeWrongKind, "operation %q must be an implementation or a map, found %s", name, n.Describe())
	}
}

// warnEmptyOperation warns of an operation (what: its definition in a
// type, or its assignment in a template) written as an empty list. The
// grammar allows an implementation name or a map (TOSCA 1.3 §3.6.16
// operation definition, §3.6.17 operation assignment, the same short and
// extended notations since 1.0), so the list does not conform, but it
// carries nothing: ETSI NFV-SOL 001 packages (Tacker) write
// `instantiate: []` for an operation with nothing to run, in node types
// and templates alike, and Tacker deploys them. It is read as no
// implementation, as null is; the message names the form of the file's
// version: 1.3 lists operations under the interface's operations keyname
// (§3.6.21, §3.6.22), earlier versions beside its other keynames.
func (c *compiler) warnEmptyOperation(n *yamlsrc.Node, path, what, name string, listed bool) {
	declared := c.readingVersion
	if declared == "" {
		declared = c.version
	}
	form := name + ": {}"
	if declared == version13 && !listed {
		form = "operations: {" + name + ": {}}"
	}
	c.warnf(n.Range, path, core.CodeWrongKind, "%s %q is an empty list; read as no implementation (write %q)", what, name, form)
}

// readTemplateType checks the keys of a relationship template, group or
// policy (n, named by what) and resolves its type. keysOK is false when the
// keys are wrong, and the caller then skips the template; typ is nil when
// the type is missing (reported here at key, as for a null template) or
// unknown (reported by templateType).
func (c *compiler) readTemplateType(k kind, n *yamlsrc.Node, key diag.Range, path, what string, keys []string) (typ *typeDef, keysOK bool) {
	if !c.checkKeys(n, path, what, keys...) {
		if n.IsNull() {
			c.errorf(key, path, core.CodeMissingField, "%s is missing required field \"type\"", what)
		}
		return nil, false
	}
	tn := n.Get("type")
	if tn.IsNull() {
		c.errorf(key, path, core.CodeMissingField, "%s is missing required field \"type\"", what)
		return nil, true
	}
	return c.templateType(k, tn, path), true
}

// relTplKeys lists keynames the grammar allows; a function so that no
// package-level slice can be changed.
func relTplKeys() []string {
	return []string{"type", "description", "metadata", "properties", "attributes", "interfaces", "copy"}
}

func (c *compiler) readRelTemplates(n *yamlsrc.Node) {
	for _, p := range n.Pairs() {
		rt := &relTpl{name: p.Key.Value, n: p.Value, key: p.Key.Range, path: "topology_template.relationship_templates." + p.Key.Value}
		c.topo.rels[rt.name] = rt
		what := "relationship template " + quote(rt.name)
		if rt.typ, _ = c.readTemplateType(kRelationship, p.Value, rt.key, rt.path, what, relTplKeys()); rt.typ != nil {
			s := &scope{at: rt.key, rel: rt}
			rt.props = c.assignProps(rt.typ, rt.typ.props, p.Value.Get("properties"), rt.path+".properties", what, "property", s, errorMissing)
			c.readIfaceAssignments(rt.typ, p.Value.Get("interfaces"), rt.path+".interfaces", what)
		}
	}
}

// groupKeys lists keynames the grammar allows; a function so that no
// package-level slice can be changed.
func groupKeys() []string {
	return []string{"type", "description", "metadata", "properties", "attributes", "members", "interfaces"}
}

func (c *compiler) readGroups(n *yamlsrc.Node) {
	for _, p := range n.Pairs() {
		g := &groupTpl{name: p.Key.Value, n: p.Value, key: p.Key.Range, path: "topology_template.groups." + p.Key.Value}
		c.topo.groups[g.name] = g
		what := "group " + quote(g.name)
		var keysOK bool
		if g.typ, keysOK = c.readTemplateType(kGroup, p.Value, g.key, g.path, what, groupKeys()); !keysOK {
			continue
		}
		if m := p.Value.Get("members"); m != nil {
			names := c.strList(m, g.path+".members", "members")
			seen := map[string]bool{}
			for i, name := range names {
				at := m.Range
				if i < len(m.Content) {
					at = m.Content[i].Range
				}
				if seen[name] {
					c.errorf(at, g.path+".members", core.CodeGroupMembers, "group %q lists member %q more than once", g.name, name)
					continue
				}
				seen[name] = true
				nt := c.topo.nodes[name]
				if nt == nil {
					c.errorf(at, g.path+".members", core.CodeUnknownTemplate, "group %q member %q is not a node template", g.name, name)
					continue
				}
				if i < len(m.Content) {
					c.noteNode(m.Content[i], nt)
				}
				if g.typ != nil && len(g.typ.members) > 0 && nt.typ != nil && !c.derivesAny(nt.typ, g.typ.members) {
					c.errorf(at, g.path+".members", core.CodeGroupMembers, "group %q member %q has type %q, which the group type %q does not allow", g.name, name, nt.typ.name, g.typ.name)
				}
				g.members = append(g.members, nt)
			}
			if len(names) == 0 && m.Kind == yamlsrc.Sequence {
				c.errorf(m.Range, g.path+".members", core.CodeGroupMembers, "group %q must have at least one member", g.name)
			}
		}
		if g.typ != nil {
			c.assignProps(g.typ, g.typ.props, p.Value.Get("properties"), g.path+".properties", what, "property", &scope{at: g.key}, warnMissing)
			c.readIfaceAssignments(g.typ, p.Value.Get("interfaces"), g.path+".interfaces", what)
		}
	}
}

// placementDefs adds xosplan's placement properties to a
// tosca.policies.Placement type (which defines none): required_traits and
// forbidden_traits (lists of trait names) and member_of (a list whose items
// are an aggregate or a list of aggregates, any of which will do). A type
// that defines them itself keeps its definitions.
func placementDefs(defs map[string]*propDef) map[string]*propDef {
	out := cloneProps(defs)
	str := &propDef{name: "entry", prim: "string", required: true}
	for _, name := range []string{"required_traits", "forbidden_traits", "member_of"} {
		if out[name] != nil {
			continue
		}
		d := &propDef{name: name, typeName: "list", prim: "list"}
		if name != "member_of" {
			d.entry = str
		}
		out[name] = d
	}
	return out
}

// checkTraits checks the syntax of the trait names of a placement policy:
// Placement accepts upper-case letters, digits and underscores, at most
// 255 characters (whether a standard trait exists is placement's concern).
func (c *compiler) checkTraits(props *yamlsrc.Node, path string) {
	for _, key := range []string{"required_traits", "forbidden_traits"} {
		for _, it := range props.Get(key).Items() {
			name := it.Value
			ok := it.Kind == yamlsrc.Scalar && name != "" && len(name) <= 255
			for i := 0; ok && i < len(name); i++ {
				ch := name[i]
				ok = ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '_'
			}
			if !ok {
				c.errorf(it.Range, joinPath(path, key), core.CodeValue, "%q is not a trait name (upper-case letters, digits and _, at most 255 characters)", name)
			}
		}
	}
}

func (c *compiler) derivesAny(t *typeDef, ancestors []*typeDef) bool {
	for _, a := range ancestors {
		if c.derives(t, a) {
			return true
		}
	}
	return false
}

// policyKeys lists keynames the grammar allows; a function so that no
// package-level slice can be changed.
func policyKeys() []string {
	return []string{"type", "description", "metadata", "properties", "targets", "triggers"}
}

func (c *compiler) readPolicies(n *yamlsrc.Node) {
	for i, it := range n.Items() {
		ip := "topology_template.policies[" + strconv.Itoa(i) + "]"
		if it.Kind != yamlsrc.Mapping || len(it.Content) != 2 {
			c.errorf(it.Range, ip, core.CodeWrongKind, "a policy must be a map with one key, found %s", it.Describe())
			continue
		}
		k, v := it.Content[0], it.Content[1]
		pt := &policyTpl{name: k.Value, n: v, key: k.Range, path: joinPath(ip, k.Value)}
		what := "policy " + quote(pt.name)
		var keysOK bool
		if pt.typ, keysOK = c.readTemplateType(kPolicy, v, pt.key, pt.path, what, policyKeys()); !keysOK {
			continue
		}
		if tg := v.Get("targets"); tg != nil {
			names := c.strList(tg, pt.path+".targets", "targets")
			for j, name := range names {
				at := tg.Range
				if j < len(tg.Content) {
					at = tg.Content[j].Range
				}
				if nt := c.topo.nodes[name]; nt != nil {
					if j < len(tg.Content) {
						c.noteNode(tg.Content[j], nt)
					}
					if pt.typ != nil && len(pt.typ.targets) > 0 && nt.typ != nil && !c.derivesAny(nt.typ, pt.typ.targets) {
						c.errorf(at, pt.path+".targets", core.CodePolicyTargets, "policy %q target %q has type %q, which the policy type %q does not allow", pt.name, name, nt.typ.name, pt.typ.name)
					}
					pt.targets = append(pt.targets, nt)
					continue
				}
				if g := c.topo.groups[name]; g != nil {
					pt.targets = append(pt.targets, g.members...)
					continue
				}
				c.errorf(at, pt.path+".targets", core.CodeUnknownTemplate, "policy %q target %q is not a node template or group", pt.name, name)
			}
		}
		if pt.typ != nil {
			defs := pt.typ.props
			placement := c.derivesName(pt.typ, "tosca.policies.Placement")
			if placement {
				defs = placementDefs(defs)
			}
			pt.props = c.assignProps(pt.typ, defs, v.Get("properties"), pt.path+".properties", what, "property", &scope{at: pt.key}, errorMissing)
			if placement {
				c.checkTraits(v.Get("properties"), pt.path+".properties")
			}
		}
		c.topo.policies = append(c.topo.policies, pt)
	}
}

// outputKeys lists keynames the grammar allows; a function so that no
// package-level slice can be changed.
func outputKeys() []string {
	return []string{"description", "value", "type", "required", "status", "constraints", "entry_schema",
		"key_schema", "metadata", "default"}
}

func (c *compiler) readOutputs(n *yamlsrc.Node) {
	for _, p := range n.Pairs() {
		o := &outputDef{name: p.Key.Value, n: p.Value, path: "topology_template.outputs." + p.Key.Value}
		what := "output " + quote(o.name)
		if !c.checkKeys(p.Value, o.path, what, outputKeys()...) {
			if p.Value.IsNull() {
				c.errorf(p.Key.Range, o.path, core.CodeMissingField, "%s is missing required field \"value\"", what)
			}
			continue
		}
		o.val = p.Value.Get("value")
		if o.val == nil {
			c.errorf(p.Key.Range, o.path, core.CodeMissingField, "%s is missing required field \"value\"", what)
			continue
		}
		c.topo.outputs = append(c.topo.outputs, o)
	}
}
