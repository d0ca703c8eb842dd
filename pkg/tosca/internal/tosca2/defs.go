package tosca2

// Phase 3 (2.0) — the entity definitions of types: properties,
// attributes, parameters and schemas (§9.3–§9.7), capabilities (§8.2),
// requirements (§8.4), interfaces and operations (§11.2, §11.4),
// artifacts (§12.2). Errors are those listed in types.go.

import (
	"maps"
	"slices"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
)

func propKeys(isProp bool) []string {
	if isProp {
		return []string{"type", "description", "metadata", "required", "default", "value", "validation", "key_schema", "entry_schema", "mapping"}
	}
	return []string{"type", "description", "metadata", "default", "validation", "key_schema", "entry_schema"}
}

func legacyPropKey(key string) string {
	switch key {
	case "constraints":
		return "TOSCA 2.0 writes validation clauses (§9.10)"
	case "status":
		return "TOSCA 2.0 property definitions have no status"
	}
	return ""
}

// readPropDefs reads a map of property (isProp) or attribute
// definitions into into, refining what it holds already.
func (c *compiler) readPropDefs(f *file, into map[string]*prop, n *yamlsrc.Node, path string, isProp bool) {
	if !c.definitionsMap(n, path) {
		return
	}
	for _, p := range n.Pairs() {
		if d := c.readPropDef(f, p.Key.Value, p.Value, path+"."+p.Key.Value, isProp, into[p.Key.Value]); d != nil {
			into[p.Key.Value] = d
		}
	}
}

// definitionsMap reports whether n, at path, is a map of definitions to
// read: not when it is null (nothing to read) or, reported, not a map.
func (c *compiler) definitionsMap(n *yamlsrc.Node, path string) bool {
	if n.IsNull() {
		return false
	}
	if n.Kind != yamlsrc.Mapping {
		c.Errorf(n.Range, path, core.CodeWrongKind, "%s must be a map of definitions, found %s", lastKey(path), n.Describe())
		return false
	}
	return true
}

// readParamDefs reads a map of parameter definitions (§9.7) into into,
// refining what it holds already. A parameter definition is a property
// definition whose type may be left out (its value is then not checked
// against a type). An outgoing parameter (operation, notification and
// interface inputs) may also be written as its value alone, the
// single-line grammar <parameter_name>: <parameter_value>: a scalar, a
// list, a function call, or a map none of whose keys is a keyname of a
// parameter definition.
func (c *compiler) readParamDefs(f *file, into map[string]*prop, n *yamlsrc.Node, path string, outgoing bool) {
	if !c.definitionsMap(n, path) {
		return
	}
	for _, p := range n.Pairs() {
		name, pp, prev := p.Key.Value, path+"."+p.Key.Value, into[p.Key.Value]
		var d *prop
		switch {
		case outgoing && paramValueOnly(p.Value):
			d = &prop{name: name, required: true, f: f}
			if prev != nil {
				cp := *prev
				d = &cp
				if prev.value != nil {
					c.Errorf(core.RangeOf(p.Value), pp, core.CodeIncompatibleRefinement, "%q has the fixed value %s in the definition it refines; a value cannot be changed", name, core.DescribeValue(prev.value))
				}
			}
			d.n, d.value = p.Value, p.Value
			if d.typ == nil {
				c.checkExpr(f, p.Value, pp, false)
			}
			c.checkDefValue(d, p.Value, pp)
		case prev == nil && p.Value.Kind == yamlsrc.Mapping:
			d = c.readParam(f, name, p.Value, pp)
		default:
			d = c.readPropDef(f, name, p.Value, pp, true, prev)
		}
		if d != nil {
			into[name] = d
		}
	}
}

// paramValueOnly reports whether a parameter definition is written in
// the single-line grammar: anything but a map that holds a keyname of a
// parameter definition.
func paramValueOnly(n *yamlsrc.Node) bool {
	if n.Kind != yamlsrc.Mapping {
		return true
	}
	for _, p := range n.Pairs() {
		if slices.Contains(paramKeys(), p.Key.Value) {
			return false
		}
	}
	return true
}

func lastKey(path string) string {
	for i := len(path) - 1; i >= 0; i-- {
		if path[i] == '.' {
			return path[i+1:]
		}
	}
	return path
}

// readPropDef reads one definition; prev is the inherited one it refines.
func (c *compiler) readPropDef(f *file, name string, n *yamlsrc.Node, path string, isProp bool, prev *prop) *prop {
	if n.Kind != yamlsrc.Mapping && prev != nil && prev.typ != nil && prev.typ.base != "" && prev.typ.base != "map" {
		// The short notation of a refinement: the value it gives to the
		// definition it refines (§8.2.1, property-definition-short).
		d := *prev
		d.n, d.def = n, n
		c.checkDefValue(&d, n, path)
		return &d
	}
	// A definition that cannot be read stays, untyped and optional, so
	// that its assignments are not reported again (one cause, once).
	untyped := &prop{name: name, n: n, f: f, sensitive: core.MetaSensitive(n) || (prev != nil && prev.sensitive)}
	if n.Kind != yamlsrc.Mapping {
		c.Errorf(core.RangeOf(n), path, core.CodeWrongKind, "definition %q must be a map, found %s", name, n.Describe())
		return untyped
	}
	c.keys(n, path, func() string { return "definition " + core.Quote(name) }, propKeys(isProp), legacyPropKey)
	c.metadata(n, path)
	d := &prop{name: name, n: n, required: true, f: f}
	if prev != nil {
		cp := *prev
		d = &cp
		d.n = n
		d.validation = append([]*yamlsrc.Node(nil), prev.validation...)
	}
	// Before the default is checked: a diagnostic about it must not quote
	// a secret.
	d.sensitive = d.sensitive || core.MetaSensitive(n)
	tn := n.Get("type")
	switch {
	case tn != nil && !tn.IsNull():
		t := c.typeRef(f, core.KData, tn, path+".type")
		if t == nil {
			return untyped
		}
		if t.name == "scalar" && t.parent == nil {
			c.Errorf(tn.Range, path+".type", core.CodeValue, "scalar is abstract: a definition names a scalar type derived from it (§9.1.2.2)")
			return untyped
		}
		if prev != nil && prev.typ != nil && !c.derives(t, prev.typ) {
			c.Errorf(tn.Range, path+".type", core.CodeIncompatibleRefinement, "%q refines a definition of type %q with type %q, which does not derive from it", name, prev.typ.name, t.name)
		}
		d.typ = t
	case prev == nil:
		if _, written := n.GetPair("type"); written {
			c.Errorf(n.Get("type").Range, path+".type", core.CodeMissingField, "definition %q has an empty type", name)
		} else {
			c.Errorf(n.Range, path, core.CodeMissingField, "definition %q is missing required field \"type\"", name)
		}
		return untyped
	}
	if es := n.Get("entry_schema"); es != nil {
		d.entry = c.refineSchema(f, es, path+".entry_schema", d.entry)
	}
	if ks := n.Get("key_schema"); ks != nil {
		d.keyS = c.refineSchema(f, ks, path+".key_schema", d.keyS)
	}
	c.checkSchemas(d, n, path)
	if req, set := c.boolValue(n, path, "required"); set {
		d.required = req
	}
	if v := n.Get("validation"); v != nil && c.clause(f, v, path+".validation") {
		d.validation = append(d.validation, v)
	}
	if vp, ok := n.GetPair("value"); ok {
		if prev != nil && prev.value != nil {
			c.Errorf(vp.Key.Range, path+".value", core.CodeIncompatibleRefinement, "%q has the fixed value %s in the definition it refines; a value cannot be changed", name, core.DescribeValue(prev.value))
		}
		d.value = vp.Value
		c.checkDefValue(d, vp.Value, path+".value")
	}
	if dp, ok := n.GetPair("default"); ok {
		d.def = dp.Value
		if !dp.Value.IsNull() {
			c.checkDefValue(d, dp.Value, path+".default")
		}
	}
	return d
}

// checkSchemas checks that a definition of a collection type has its
// entry schema (its type's, or its own) and that other types have none;
// a key schema is for maps only (§9.3).
func (c *compiler) checkSchemas(d *prop, n *yamlsrc.Node, path string) {
	if d.typ == nil {
		return
	}
	base := d.typ.base
	ep, hasEntry := n.GetPair("entry_schema")
	kp, hasKey := n.GetPair("key_schema")
	switch {
	case (base == "list" || base == "map") && d.entry == nil && d.typ.entry == nil && !hasEntry:
		c.Errorf(core.RangeOf(n), path, core.CodeMissingField, "%q is a %s, so its definition needs an entry_schema (§9.3)", d.name, d.typ.name)
	case base != "list" && base != "map" && hasEntry:
		c.Errorf(ep.Key.Range, path+".entry_schema", core.CodeUnknownField, "%q is not a list or map: entry_schema is not allowed (§9.3)", d.name)
	}
	if hasKey && base != "map" {
		c.Errorf(kp.Key.Range, path+".key_schema", core.CodeUnknownField, "%q is not a map: key_schema is not allowed (§9.3)", d.name)
	}
}

// checkDefValue checks a default or fixed value against its definition.
func (c *compiler) checkDefValue(d *prop, v *yamlsrc.Node, path string) {
	if d.typ == nil {
		return
	}
	ev := &eval{c: c, f: d.f}
	c.checkValue(ev, d, v, path)
}

// refineSchema reads a schema of a definition that refines another: it
// may leave out the type it inherits from prev.
func (c *compiler) refineSchema(f *file, n *yamlsrc.Node, path string, prev *prop) *prop {
	if prev == nil || n.Kind != yamlsrc.Mapping || n.Get("type") != nil {
		return c.readSchema(f, n, path)
	}
	c.keys(n, path, func() string { return "schema" }, schemaKeys(), legacyPropKey)
	d := *prev
	d.n = n
	d.validation = append([]*yamlsrc.Node(nil), prev.validation...)
	if v := n.Get("validation"); v != nil && c.clause(f, v, path+".validation") {
		d.validation = append(d.validation, v)
	}
	return &d
}

// readSchema reads an entry or key schema: a type name, or a map with
// type, description, validation and schemas (§9.3).
func (c *compiler) readSchema(f *file, n *yamlsrc.Node, path string) *prop {
	if n.IsNull() {
		c.Errorf(core.RangeOf(n), path, core.CodeMissingField, "a schema names a type")
		return nil
	}
	d := &prop{name: lastKey(path), n: n, required: true, f: f}
	tn := n
	if n.Kind == yamlsrc.Mapping {
		c.keys(n, path, func() string { return "schema" }, schemaKeys(), legacyPropKey)
		tn = n.Get("type")
		if tn == nil {
			// Schema definition: type is required; reported at the
			// schema, where the keyname is missing.
			c.Errorf(n.Range, path, core.CodeMissingField, "schema definition is missing required field \"type\"")
			return nil
		}
		if v := n.Get("validation"); v != nil && c.clause(f, v, path+".validation") {
			d.validation = append(d.validation, v)
		}
		if es := n.Get("entry_schema"); es != nil {
			d.entry = c.readSchema(f, es, path+".entry_schema")
		}
		if ks := n.Get("key_schema"); ks != nil {
			d.keyS = c.readSchema(f, ks, path+".key_schema")
		}
	}
	t := c.typeRef(f, core.KData, tn, path+".type")
	if t == nil {
		return nil
	}
	if t.name == "scalar" && t.parent == nil {
		c.Errorf(tn.Range, path, core.CodeValue, "scalar is abstract: a schema names a scalar type derived from it (§9.1.2.2)")
		return nil
	}
	d.typ = t
	c.checkSchemaDef(d, n, path)
	return d
}

// checkSchemaDef checks the rules of §9.3 that a schema's type decides:
// a list or map schema has an entry schema (its own or its type's), other
// types have none; a key schema is for a map schema only; a key schema's
// type derives from string.
func (c *compiler) checkSchemaDef(d *prop, n *yamlsrc.Node, path string) {
	t := d.typ
	if lastKey(path) == "key_schema" && (t.base != "string" || t.scalar != nil) {
		c.Errorf(core.RangeOf(n), path, core.CodeWrongKind, "a key_schema names a type derived from string, not %q (§9.3)", t.name)
	}
	ep, hasEntry := n.GetPair("entry_schema")
	kp, hasKey := n.GetPair("key_schema")
	switch {
	case (t.base == "list" || t.base == "map") && d.entry == nil && t.entry == nil && !hasEntry:
		c.Errorf(core.RangeOf(n), path, core.CodeMissingField, "a schema of type %q needs an entry_schema (§9.3)", t.name)
	case t.base != "list" && t.base != "map" && hasEntry:
		c.Errorf(ep.Key.Range, path+".entry_schema", core.CodeUnknownField, "a schema of type %q is not a list or map: entry_schema is not allowed (§9.3)", t.name)
	}
	if hasKey && t.base != "map" {
		c.Errorf(kp.Key.Range, path+".key_schema", core.CodeUnknownField, "a schema of type %q is not a map: key_schema is not allowed (§9.3)", t.name)
	}
}

// readCapDefs reads a node type's capability definitions.
func (c *compiler) readCapDefs(t *typeDef, n *yamlsrc.Node, path string) {
	if n.IsNull() {
		return
	}
	if n.Kind != yamlsrc.Mapping {
		c.Errorf(n.Range, path, core.CodeWrongKind, "capabilities must be a map, found %s", n.Describe())
		return
	}
	for _, p := range n.Pairs() {
		name, cp := p.Key.Value, path+"."+p.Key.Value
		prev := t.caps[name]
		d := &capability{name: name, n: p.Value, props: map[string]*prop{}, attrs: map[string]*prop{}}
		tn := p.Value
		if p.Value.Kind == yamlsrc.Mapping {
			c.keys(p.Value, cp, func() string { return "capability " + core.Quote(name) }, capDefKeys(), nil)
			c.metadata(p.Value, cp)
			tn = p.Value.Get("type")
		}
		if prev != nil && tn.IsNull() {
			d.typ = prev.typ
		} else if d.typ = c.typeRef(t.f, core.KCapability, tn, cp+".type"); d.typ == nil {
			// Kept untyped: what names it is not reported again.
			t.caps[name] = d
			continue
		}
		clone(d.props, d.typ.props)
		clone(d.attrs, d.typ.attrs)
		d.validSources = d.typ.validSources
		if prev != nil {
			clone(d.props, prev.props)
			clone(d.attrs, prev.attrs)
			setValid(&d.validSources, prev.validSources)
		}
		if p.Value.Kind == yamlsrc.Mapping {
			if pn := p.Value.Get("properties"); pn != nil {
				c.readPropDefs(t.f, d.props, pn, cp+".properties", true)
			}
			if an := p.Value.Get("attributes"); an != nil {
				c.readPropDefs(t.f, d.attrs, an, cp+".attributes", false)
			}
			setValid(&d.validSources, c.typeNames(t.f, core.KNode, p.Value.Get("valid_source_node_types"), cp+".valid_source_node_types"))
			c.typeNames(t.f, core.KRelationship, p.Value.Get("valid_relationship_types"), cp+".valid_relationship_types")
		}
		t.caps[name] = d
	}
}

// readReqDefs reads a node type's requirement definitions: a list of
// single-entry maps (§8.4).
func (c *compiler) readReqDefs(t *typeDef, n *yamlsrc.Node, path string) {
	if n.IsNull() {
		return
	}
	if n.Kind != yamlsrc.Sequence {
		c.Errorf(n.Range, path, core.CodeWrongKind, "requirements must be a list, found %s", n.Describe())
		return
	}
	for i, it := range n.Content {
		ip := path + "[" + core.Itoa(int64(i)) + "]"
		if it.Kind != yamlsrc.Mapping || len(it.Content) != 2 {
			c.Errorf(it.Range, ip, core.CodeWrongKind, "a requirement definition is a map with one entry, found %s", it.Describe())
			continue
		}
		c.readReqDef(t, it, path)
	}
}

// readReqDef reads one requirement definition, the single-entry map it,
// into t's requirements: a new one, or a refinement of the one of its
// name.
func (c *compiler) readReqDef(t *typeDef, it *yamlsrc.Node, path string) {
	name, body := it.Content[0].Value, it.Content[1]
	rp := path + "." + name
	var prev *req
	idx := -1
	for j, r := range t.reqs {
		if r.name == name {
			prev, idx = r, j
		}
	}
	// count_range defaults to [0, UNBOUNDED] (§8.4).
	d := &req{name: name, n: body, min: 0, max: -1}
	if prev != nil {
		cp := *prev
		d = &cp
		d.n = body
	}
	switch {
	case body.IsString():
		d.capType = c.typeRef(t.f, core.KCapability, body, rp)
	case body.Kind == yamlsrc.Mapping:
		c.readReqDefMap(t, d, prev, it.Content[0], body, rp)
	default:
		c.Errorf(body.Range, rp, core.CodeWrongKind, "requirement %q must be a capability type name or a map, found %s", name, body.Describe())
		return
	}
	if prev != nil {
		c.checkReqRefinement(prev, d, rp)
	}
	if d.nodeType != nil && d.capType != nil {
		c.laterReqCapability(d, body.Get("node"), rp)
	}
	if idx >= 0 {
		t.reqs[idx] = d
	} else {
		t.reqs = append(t.reqs, d)
	}
}

// readReqDefMap reads a requirement definition written as a map into d;
// prev is the definition it refines, if any, key its name.
func (c *compiler) readReqDefMap(t *typeDef, d, prev *req, key, body *yamlsrc.Node, rp string) {
	name := d.name
	c.keys(body, rp, func() string { return "requirement " + core.Quote(name) }, reqDefKeys(), legacyReqKey)
	c.metadata(body, rp)
	if nn := body.Get("node"); nn != nil {
		d.nodeType = c.typeRef(t.f, core.KNode, nn, rp+".node")
	}
	if cn := body.Get("capability"); cn != nil {
		d.capType = c.findType(t.f, core.KCapability, cn.Value)
		// With a node type, capability may name one of its
		// capabilities instead of a type (§8.4).
		if cd := d.nodeType.capNamed(cn.Value); d.capType == nil && cd != nil && cn.IsString() {
			d.capType = cd.typ
		} else if d.capType == nil || !cn.IsString() {
			c.typeRef(t.f, core.KCapability, cn, rp+".capability")
		}
	} else if prev == nil {
		c.Errorf(key.Range, rp, core.CodeMissingField, "requirement %q is missing required field \"capability\"", name)
	}
	if _, ok := body.GetPair("relationship"); !ok && prev == nil {
		c.Errorf(key.Range, rp, core.CodeMissingField, "requirement %q is missing required field \"relationship\" (§8.4)", name)
	}
	if rn := body.Get("relationship"); rn != nil {
		tn := rn
		if rn.Kind == yamlsrc.Mapping {
			tn = rn.Get("type")
			c.keys(rn, rp+".relationship", func() string { return "relationship definition" }, []string{"type", "description", "metadata", "properties", "attributes", "interfaces"}, nil)
		}
		if !(tn.IsNull() && prev != nil) {
			d.relType = c.typeRef(t.f, core.KRelationship, tn, rp+".relationship")
		}
	}
	c.readReqCount(d, prev, body, rp)
	if nf := body.Get("node_filter"); nf != nil {
		c.checkExpr(t.f, nf, rp+".node_filter", true)
	}
}

// readReqCount reads a requirement definition's count_range, else its
// legacy occurrences, into d; a refinement stays within prev's.
func (c *compiler) readReqCount(d, prev *req, body *yamlsrc.Node, rp string) {
	if cr, ok := body.GetPair("count_range"); ok {
		if lo, hi, ok := c.readRange(cr.Value, rp+".count_range"); ok {
			if prev != nil && prev.countRange && (lo < prev.min || (prev.max >= 0 && (hi < 0 || hi > prev.max))) {
				c.Errorf(cr.Value.Range, rp+".count_range", core.CodeIncompatibleRefinement, "requirement %q refines count_range %s to %s, which is not within it (§8.4.1)", d.name, rangeText(prev.min, prev.max), rangeText(lo, hi))
			}
			d.min, d.max, d.countRange = lo, hi, true
		}
	} else if oc, ok := body.GetPair("occurrences"); ok {
		if lo, hi, ok := c.readRange(oc.Value, rp+".occurrences"); ok {
			d.min, d.max, d.countRange = lo, hi, true
		}
	}
}

// laterReqCapability checks, once every type is resolved, that the node
// type d names has a capability of d's capability type; at is the node
// entry.
func (c *compiler) laterReqCapability(d *req, at *yamlsrc.Node, rp string) {
	// Once every type is resolved: node types may name each
	// other (valid_source_node_types, requirements). A warning:
	// §8.4.1 asks it of refinements, the TC's suite breaks it in
	// definitions, and an assignment to a node without the
	// capability is an error where it is made (checkTarget).
	name, nt, ct := d.name, d.nodeType, d.capType
	c.state.later = append(c.state.later, func() {
		if !slices.ContainsFunc(slices.Sorted(maps.Keys(nt.caps)), func(n string) bool {
			x := nt.caps[n].typ
			return x == nil || c.derives(x, ct)
		}) {
			c.Warnf(core.RangeOf(at), rp+".node", core.CodeCapabilityMismatch, "requirement %q names node type %q, which has no capability of type %q: no node of that type can fulfil it (§8.4.1)", name, nt.name, ct.name)
		}
	})
}

// checkReqRefinement checks a requirement refinement (§8.4.1): its
// capability, node and relationship types derive from those it refines.
func (c *compiler) checkReqRefinement(prev, d *req, path string) {
	for _, x := range []struct {
		key     string
		was, is *typeDef
	}{{"capability", prev.capType, d.capType}, {"node", prev.nodeType, d.nodeType}, {"relationship", prev.relType, d.relType}} {
		if x.was != nil && x.is != nil && !c.derives(x.is, x.was) {
			c.Errorf(core.RangeOf(d.n.Get(x.key)), path+"."+x.key, core.CodeIncompatibleRefinement, "requirement %q refines %s %q with %q, which does not derive from it (§8.4.1)", d.name, x.key, x.was.name, x.is.name)
		}
	}
}

// capNamed returns the capability of a node type by name; nil for none
// (or no type).
func (t *typeDef) capNamed(name string) *capability {
	if t == nil {
		return nil
	}
	return t.caps[name]
}

// rangeText writes a count range as the template does.
func rangeText(lo, hi int64) string {
	if hi < 0 {
		return "[" + core.Itoa(lo) + ", UNBOUNDED]"
	}
	return "[" + core.Itoa(lo) + ", " + core.Itoa(hi) + "]"
}

func legacyReqKey(key string) string {
	if key == "occurrences" {
		return "TOSCA 2.0 names it count_range (§8.4)"
	}
	return ""
}

// readRange reads a [lower, upper] range of non-negative integers, the
// upper bound possibly UNBOUNDED.
func (c *compiler) readRange(n *yamlsrc.Node, path string) (int64, int64, bool) {
	if n.Kind != yamlsrc.Sequence || len(n.Content) != 2 {
		c.Errorf(core.RangeOf(n), path, core.CodeOccurrences, "a range is a list of two bounds, found %s", n.Describe())
		return 0, 0, false
	}
	lo, ok := n.Content[0].Int()
	if !ok || lo < 0 {
		c.Errorf(n.Content[0].Range, path, core.CodeOccurrences, "the lower bound must be a non-negative integer, found %s", n.Content[0].Describe())
		return 0, 0, false
	}
	hiN := n.Content[1]
	if hiN.Value == "UNBOUNDED" && !hiN.Quoted {
		return lo, -1, true
	}
	hi, ok := hiN.Int()
	if !ok || hi < lo {
		c.Errorf(hiN.Range, path, core.CodeOccurrences, "the upper bound must be an integer not below the lower bound, or UNBOUNDED, found %s", hiN.Describe())
		return 0, 0, false
	}
	return lo, hi, true
}

// readIfaceDefs reads interface definitions (§11.2).
func (c *compiler) readIfaceDefs(f *file, into map[string]*iface, n *yamlsrc.Node, path string) {
	if n.IsNull() {
		return
	}
	if n.Kind != yamlsrc.Mapping {
		c.Errorf(n.Range, path, core.CodeWrongKind, "interfaces must be a map, found %s", n.Describe())
		return
	}
	for _, p := range n.Pairs() {
		name, ip := p.Key.Value, path+"."+p.Key.Value
		if p.Value.Kind != yamlsrc.Mapping {
			c.Errorf(core.RangeOf(p.Value), ip, core.CodeWrongKind, "interface %q must be a map, found %s", name, p.Value.Describe())
			continue
		}
		c.keys(p.Value, ip, func() string { return "interface " + core.Quote(name) }, ifaceDefKeys(), nil)
		prev := into[name]
		d := &iface{name: name, inputs: map[string]*prop{}, ops: map[string]*opDef{}, notes: map[string]*opDef{}}
		tn := p.Value.Get("type")
		if prev != nil && tn.IsNull() {
			d.typ = prev.typ
		} else if d.typ = c.typeRef(f, core.KInterface, tn, ip+".type"); d.typ == nil {
			// Kept untyped: its assignments are not reported again.
			into[name] = d
			continue
		}
		clone(d.ops, d.typ.ops)
		clone(d.notes, d.typ.notes)
		if prev != nil {
			clone(d.inputs, prev.inputs)
			clone(d.ops, prev.ops)
			clone(d.notes, prev.notes)
		}
		if in := p.Value.Get("inputs"); in != nil {
			c.readParamDefs(f, d.inputs, in, ip+".inputs", true)
		}
		c.readOpDefs(f, d.ops, p.Value.Get("operations"), ip+".operations", false)
		c.readOpDefs(f, d.notes, p.Value.Get("notifications"), ip+".notifications", false)
		into[name] = d
	}
}

// readOpDefs reads operation (or notification) definitions: a map of
// names to an implementation or a map (§11.4); those of an interface
// type (inType) have no implementation.
func (c *compiler) readOpDefs(f *file, into map[string]*opDef, n *yamlsrc.Node, path string, inType bool) {
	if n.IsNull() {
		return
	}
	if n.Kind != yamlsrc.Mapping {
		c.Errorf(n.Range, path, core.CodeWrongKind, "%s must be a map, found %s", lastKey(path), n.Describe())
		return
	}
	for _, p := range n.Pairs() {
		name, op := p.Key.Value, path+"."+p.Key.Value
		d := &opDef{name: name, n: p.Value, inputs: map[string]*prop{}}
		if prev := into[name]; prev != nil {
			clone(d.inputs, prev.inputs)
			d.impl = prev.impl
		}
		switch {
		case p.Value.IsNull():
		case p.Value.IsString():
			if inType {
				c.Errorf(p.Value.Range, op, core.CodeUnknownField, "an interface type defines no implementation of %q: node and relationship types and templates do (§11.1)", name)
			}
			d.impl = p.Value
		case p.Value.Kind == yamlsrc.Mapping:
			c.keys(p.Value, op, func() string { return "operation " + core.Quote(name) }, opDefKeys(false), nil)
			if ip, ok := p.Value.GetPair("implementation"); ok {
				if inType {
					c.Errorf(ip.Key.Range, op+".implementation", core.CodeUnknownField, "an interface type defines no implementation of %q: node and relationship types and templates do (§11.1)", name)
				}
				d.impl = ip.Value
				c.checkImpl(ip.Value, op+".implementation")
			}
			if in := p.Value.Get("inputs"); in != nil {
				c.readParamDefs(f, d.inputs, in, op+".inputs", true)
			}
		default:
			c.Errorf(p.Value.Range, op, core.CodeWrongKind, "operation %q must be an implementation or a map, found %s", name, p.Value.Describe())
			continue
		}
		into[name] = d
	}
}

// checkImpl checks an implementation: an artifact name or file, or a
// map with primary and dependencies (§11.8).
func (c *compiler) checkImpl(n *yamlsrc.Node, path string) {
	switch {
	case n.IsNull(), n.IsString():
	case n.Kind == yamlsrc.Mapping:
		c.keys(n, path, func() string { return "implementation" }, []string{"primary", "dependencies", "timeout", "operation_host"}, nil)
	default:
		c.Errorf(n.Range, path, core.CodeWrongKind, "an implementation is an artifact or a map, found %s", n.Describe())
	}
}

func artifactKeys() []string {
	return []string{"type", "file", "repository", "description", "metadata", "artifact_version", "checksum", "checksum_algorithm", "properties", "deploy_path"}
}

// readArtifactDefs reads a node type's artifact definitions (§12.2).
func (c *compiler) readArtifactDefs(t *typeDef, n *yamlsrc.Node, path string) {
	if n.IsNull() {
		return
	}
	if n.Kind != yamlsrc.Mapping {
		c.Errorf(n.Range, path, core.CodeWrongKind, "artifacts must be a map, found %s", n.Describe())
		return
	}
	for _, p := range n.Pairs() {
		c.checkArtifact(t.f, p, path+"."+p.Key.Value, t.artifacts[p.Key.Value] != nil)
		t.artifacts[p.Key.Value] = p.Value
	}
}

// checkArtifact checks one artifact definition; refining one already
// defined may leave type and file out.
func (c *compiler) checkArtifact(f *file, p yamlsrc.Pair, path string, refines bool) {
	name := p.Key.Value
	if p.Value.Kind != yamlsrc.Mapping {
		c.Errorf(core.RangeOf(p.Value), path, core.CodeWrongKind, "artifact %q must be a map, found %s", name, p.Value.Describe())
		return
	}
	c.keys(p.Value, path, func() string { return "artifact " + core.Quote(name) }, artifactKeys(), nil)
	c.metadata(p.Value, path)
	if tn := p.Value.Get("type"); tn != nil || !refines {
		c.typeRef(f, core.KArtifact, tn, path+".type")
	}
	if fn := p.Value.Get("file"); fn == nil && !refines {
		c.Errorf(p.Key.Range, path, core.CodeMissingField, "artifact %q is missing required field \"file\"", name)
	} else if fn != nil && !fn.IsString() {
		c.Errorf(fn.Range, path+".file", core.CodeWrongKind, "file must be a string, found %s", fn.Describe())
	}
}
