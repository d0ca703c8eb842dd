package tosca

// Phase 3 (2.0) — the entity definitions of types: properties,
// attributes, parameters and schemas (§9.3–§9.7), capabilities (§8.2),
// requirements (§8.4), interfaces and operations (§11.2, §11.4),
// artifacts (§12.2). Errors are those listed in v2types.go.

import (
	"maps"
	"slices"

	"github.com/xosplan/xosplan/internal/yamlsrc"
)

func propKeys2(isProp bool) []string {
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

// readPropDefs2 reads a map of property (isProp) or attribute
// definitions into into, refining what it holds already.
func (c *compiler) readPropDefs2(f *file, into map[string]*prop2, n *yamlsrc.Node, path string, isProp bool) {
	if n.IsNull() {
		return
	}
	if n.Kind != yamlsrc.Mapping {
		c.errorf(n.Range, path, CodeWrongKind, "%s must be a map of definitions, found %s", lastKey(path), n.Describe())
		return
	}
	for _, p := range n.Pairs() {
		if d := c.readPropDef2(f, p.Key.Value, p.Value, path+"."+p.Key.Value, isProp, into[p.Key.Value]); d != nil {
			into[p.Key.Value] = d
		}
	}
}

// readParamDefs2 reads a map of parameter definitions (§9.7) into into,
// refining what it holds already. A parameter definition is a property
// definition whose type may be left out (its value is then not checked
// against a type). An outgoing parameter (operation, notification and
// interface inputs) may also be written as its value alone, the
// single-line grammar <parameter_name>: <parameter_value>: a scalar, a
// list, a function call, or a map none of whose keys is a keyname of a
// parameter definition.
func (c *compiler) readParamDefs2(f *file, into map[string]*prop2, n *yamlsrc.Node, path string, outgoing bool) {
	if n.IsNull() {
		return
	}
	if n.Kind != yamlsrc.Mapping {
		c.errorf(n.Range, path, CodeWrongKind, "%s must be a map of definitions, found %s", lastKey(path), n.Describe())
		return
	}
	for _, p := range n.Pairs() {
		name, pp, prev := p.Key.Value, path+"."+p.Key.Value, into[p.Key.Value]
		var d *prop2
		switch {
		case outgoing && paramValueOnly2(p.Value):
			d = &prop2{name: name, required: true, f: f}
			if prev != nil {
				cp := *prev
				d = &cp
				if prev.value != nil {
					c.errorf(rangeOf(p.Value), pp, CodeIncompatibleRefinement, "%q has the fixed value %s in the definition it refines; a value cannot be changed", name, describeValue(prev.value))
				}
			}
			d.n, d.value = p.Value, p.Value
			if d.typ == nil {
				c.checkExpr2(f, p.Value, pp, false)
			}
			c.checkDefValue2(d, p.Value, pp)
		case prev == nil && p.Value.Kind == yamlsrc.Mapping:
			d = c.readParam2(f, name, p.Value, pp)
		default:
			d = c.readPropDef2(f, name, p.Value, pp, true, prev)
		}
		if d != nil {
			into[name] = d
		}
	}
}

// paramValueOnly2 reports whether a parameter definition is written in
// the single-line grammar: anything but a map that holds a keyname of a
// parameter definition.
func paramValueOnly2(n *yamlsrc.Node) bool {
	if n.Kind != yamlsrc.Mapping {
		return true
	}
	for _, p := range n.Pairs() {
		if slices.Contains(paramKeys2(), p.Key.Value) {
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

// readPropDef2 reads one definition; prev is the inherited one it refines.
func (c *compiler) readPropDef2(f *file, name string, n *yamlsrc.Node, path string, isProp bool, prev *prop2) *prop2 {
	if n.Kind != yamlsrc.Mapping && prev != nil && prev.typ != nil && prev.typ.base != "" && prev.typ.base != "map" {
		// The short notation of a refinement: the value it gives to the
		// definition it refines (§8.2.1, property-definition-short).
		d := *prev
		d.n, d.def = n, n
		c.checkDefValue2(&d, n, path)
		return &d
	}
	// A definition that cannot be read stays, untyped and optional, so
	// that its assignments are not reported again (one cause, once).
	untyped := &prop2{name: name, n: n, f: f, sensitive: metaSensitive(n) || (prev != nil && prev.sensitive)}
	if n.Kind != yamlsrc.Mapping {
		c.errorf(rangeOf(n), path, CodeWrongKind, "definition %q must be a map, found %s", name, n.Describe())
		return untyped
	}
	c.keys2(n, path, func() string { return "definition " + quote(name) }, propKeys2(isProp), legacyPropKey)
	c.metadata2(n, path)
	d := &prop2{name: name, n: n, required: true, f: f}
	if prev != nil {
		cp := *prev
		d = &cp
		d.n = n
		d.validation = append([]*yamlsrc.Node(nil), prev.validation...)
	}
	// Before the default is checked: a diagnostic about it must not quote
	// a secret.
	d.sensitive = d.sensitive || metaSensitive(n)
	tn := n.Get("type")
	switch {
	case tn != nil && !tn.IsNull():
		t := c.typeRef2(f, kData, tn, path+".type")
		if t == nil {
			return untyped
		}
		if t.name == "scalar" && t.parent == nil {
			c.errorf(tn.Range, path+".type", CodeValue, "scalar is abstract: a definition names a scalar type derived from it (§9.1.2.2)")
			return untyped
		}
		if prev != nil && prev.typ != nil && !c.derives2(t, prev.typ) {
			c.errorf(tn.Range, path+".type", CodeIncompatibleRefinement, "%q refines a definition of type %q with type %q, which does not derive from it", name, prev.typ.name, t.name)
		}
		d.typ = t
	case prev == nil:
		if _, written := n.GetPair("type"); written {
			c.errorf(n.Get("type").Range, path+".type", CodeMissingField, "definition %q has an empty type", name)
		} else {
			c.errorf(n.Range, path, CodeMissingField, "definition %q is missing required field \"type\"", name)
		}
		return untyped
	}
	if es := n.Get("entry_schema"); es != nil {
		d.entry = c.refineSchema2(f, es, path+".entry_schema", d.entry)
	}
	if ks := n.Get("key_schema"); ks != nil {
		d.keyS = c.refineSchema2(f, ks, path+".key_schema", d.keyS)
	}
	c.checkSchemas2(d, n, path)
	if req, set := c.bool2(n, path, "required"); set {
		d.required = req
	}
	if v := n.Get("validation"); v != nil && c.clause2(f, v, path+".validation") {
		d.validation = append(d.validation, v)
	}
	if vp, ok := n.GetPair("value"); ok {
		if prev != nil && prev.value != nil {
			c.errorf(vp.Key.Range, path+".value", CodeIncompatibleRefinement, "%q has the fixed value %s in the definition it refines; a value cannot be changed", name, describeValue(prev.value))
		}
		d.value = vp.Value
		c.checkDefValue2(d, vp.Value, path+".value")
	}
	if dp, ok := n.GetPair("default"); ok {
		d.def = dp.Value
		if !dp.Value.IsNull() {
			c.checkDefValue2(d, dp.Value, path+".default")
		}
	}
	return d
}

// checkSchemas2 checks that a definition of a collection type has its
// entry schema (its type's, or its own) and that other types have none;
// a key schema is for maps only (§9.3).
func (c *compiler) checkSchemas2(d *prop2, n *yamlsrc.Node, path string) {
	if d.typ == nil {
		return
	}
	base := d.typ.base
	ep, hasEntry := n.GetPair("entry_schema")
	kp, hasKey := n.GetPair("key_schema")
	switch {
	case (base == "list" || base == "map") && d.entry == nil && d.typ.entry == nil && !hasEntry:
		c.errorf(rangeOf(n), path, CodeMissingField, "%q is a %s, so its definition needs an entry_schema (§9.3)", d.name, d.typ.name)
	case base != "list" && base != "map" && hasEntry:
		c.errorf(ep.Key.Range, path+".entry_schema", CodeUnknownField, "%q is not a list or map: entry_schema is not allowed (§9.3)", d.name)
	}
	if hasKey && base != "map" {
		c.errorf(kp.Key.Range, path+".key_schema", CodeUnknownField, "%q is not a map: key_schema is not allowed (§9.3)", d.name)
	}
}

// checkDefValue2 checks a default or fixed value against its definition.
func (c *compiler) checkDefValue2(d *prop2, v *yamlsrc.Node, path string) {
	if d.typ == nil {
		return
	}
	ev := &eval2{c: c, f: d.f}
	c.checkValue2(ev, d, v, path)
}

// refineSchema2 reads a schema of a definition that refines another: it
// may leave out the type it inherits from prev.
func (c *compiler) refineSchema2(f *file, n *yamlsrc.Node, path string, prev *prop2) *prop2 {
	if prev == nil || n.Kind != yamlsrc.Mapping || n.Get("type") != nil {
		return c.readSchema2(f, n, path)
	}
	c.keys2(n, path, func() string { return "schema" }, schemaKeys2(), legacyPropKey)
	d := *prev
	d.n = n
	d.validation = append([]*yamlsrc.Node(nil), prev.validation...)
	if v := n.Get("validation"); v != nil && c.clause2(f, v, path+".validation") {
		d.validation = append(d.validation, v)
	}
	return &d
}

// readSchema2 reads an entry or key schema: a type name, or a map with
// type, description, validation and schemas (§9.3).
func (c *compiler) readSchema2(f *file, n *yamlsrc.Node, path string) *prop2 {
	if n.IsNull() {
		c.errorf(rangeOf(n), path, CodeMissingField, "a schema names a type")
		return nil
	}
	d := &prop2{name: lastKey(path), n: n, required: true, f: f}
	tn := n
	if n.Kind == yamlsrc.Mapping {
		c.keys2(n, path, func() string { return "schema" }, schemaKeys2(), legacyPropKey)
		tn = n.Get("type")
		if tn == nil {
			// Schema definition: type is required; reported at the
			// schema, where the keyname is missing.
			c.errorf(n.Range, path, CodeMissingField, "schema definition is missing required field \"type\"")
			return nil
		}
		if v := n.Get("validation"); v != nil && c.clause2(f, v, path+".validation") {
			d.validation = append(d.validation, v)
		}
		if es := n.Get("entry_schema"); es != nil {
			d.entry = c.readSchema2(f, es, path+".entry_schema")
		}
		if ks := n.Get("key_schema"); ks != nil {
			d.keyS = c.readSchema2(f, ks, path+".key_schema")
		}
	}
	t := c.typeRef2(f, kData, tn, path+".type")
	if t == nil {
		return nil
	}
	if t.name == "scalar" && t.parent == nil {
		c.errorf(tn.Range, path, CodeValue, "scalar is abstract: a schema names a scalar type derived from it (§9.1.2.2)")
		return nil
	}
	d.typ = t
	c.checkSchemaDef2(d, n, path)
	return d
}

// checkSchemaDef2 checks the rules of §9.3 that a schema's type decides:
// a list or map schema has an entry schema (its own or its type's), other
// types have none; a key schema is for a map schema only; a key schema's
// type derives from string.
func (c *compiler) checkSchemaDef2(d *prop2, n *yamlsrc.Node, path string) {
	t := d.typ
	if lastKey(path) == "key_schema" && (t.base != "string" || t.scalar != nil) {
		c.errorf(rangeOf(n), path, CodeWrongKind, "a key_schema names a type derived from string, not %q (§9.3)", t.name)
	}
	ep, hasEntry := n.GetPair("entry_schema")
	kp, hasKey := n.GetPair("key_schema")
	switch {
	case (t.base == "list" || t.base == "map") && d.entry == nil && t.entry == nil && !hasEntry:
		c.errorf(rangeOf(n), path, CodeMissingField, "a schema of type %q needs an entry_schema (§9.3)", t.name)
	case t.base != "list" && t.base != "map" && hasEntry:
		c.errorf(ep.Key.Range, path+".entry_schema", CodeUnknownField, "a schema of type %q is not a list or map: entry_schema is not allowed (§9.3)", t.name)
	}
	if hasKey && t.base != "map" {
		c.errorf(kp.Key.Range, path+".key_schema", CodeUnknownField, "a schema of type %q is not a map: key_schema is not allowed (§9.3)", t.name)
	}
}

// readCapDefs2 reads a node type's capability definitions.
func (c *compiler) readCapDefs2(t *typeDef2, n *yamlsrc.Node, path string) {
	if n.IsNull() {
		return
	}
	if n.Kind != yamlsrc.Mapping {
		c.errorf(n.Range, path, CodeWrongKind, "capabilities must be a map, found %s", n.Describe())
		return
	}
	for _, p := range n.Pairs() {
		name, cp := p.Key.Value, path+"."+p.Key.Value
		prev := t.caps[name]
		d := &cap2{name: name, n: p.Value, props: map[string]*prop2{}, attrs: map[string]*prop2{}}
		tn := p.Value
		if p.Value.Kind == yamlsrc.Mapping {
			c.keys2(p.Value, cp, func() string { return "capability " + quote(name) }, capDefKeys2(), nil)
			c.metadata2(p.Value, cp)
			tn = p.Value.Get("type")
		}
		if prev != nil && tn.IsNull() {
			d.typ = prev.typ
		} else if d.typ = c.typeRef2(t.f, kCapability, tn, cp+".type"); d.typ == nil {
			// Kept untyped: what names it is not reported again.
			t.caps[name] = d
			continue
		}
		clone2(d.props, d.typ.props)
		clone2(d.attrs, d.typ.attrs)
		d.validSources = d.typ.validSources
		if prev != nil {
			clone2(d.props, prev.props)
			clone2(d.attrs, prev.attrs)
			setValid2(&d.validSources, prev.validSources)
		}
		if p.Value.Kind == yamlsrc.Mapping {
			if pn := p.Value.Get("properties"); pn != nil {
				c.readPropDefs2(t.f, d.props, pn, cp+".properties", true)
			}
			if an := p.Value.Get("attributes"); an != nil {
				c.readPropDefs2(t.f, d.attrs, an, cp+".attributes", false)
			}
			setValid2(&d.validSources, c.typeNames2(t.f, kNode, p.Value.Get("valid_source_node_types"), cp+".valid_source_node_types"))
			c.typeNames2(t.f, kRelationship, p.Value.Get("valid_relationship_types"), cp+".valid_relationship_types")
		}
		t.caps[name] = d
	}
}

// readReqDefs2 reads a node type's requirement definitions: a list of
// single-entry maps (§8.4).
func (c *compiler) readReqDefs2(t *typeDef2, n *yamlsrc.Node, path string) {
	if n.IsNull() {
		return
	}
	if n.Kind != yamlsrc.Sequence {
		c.errorf(n.Range, path, CodeWrongKind, "requirements must be a list, found %s", n.Describe())
		return
	}
	for i, it := range n.Content {
		ip := path + "[" + itoa(int64(i)) + "]"
		if it.Kind != yamlsrc.Mapping || len(it.Content) != 2 {
			c.errorf(it.Range, ip, CodeWrongKind, "a requirement definition is a map with one entry, found %s", it.Describe())
			continue
		}
		name, body := it.Content[0].Value, it.Content[1]
		rp := path + "." + name
		var prev *req2
		idx := -1
		for j, r := range t.reqs {
			if r.name == name {
				prev, idx = r, j
			}
		}
		// count_range defaults to [0, UNBOUNDED] (§8.4).
		d := &req2{name: name, n: body, min: 0, max: -1}
		if prev != nil {
			cp := *prev
			d = &cp
			d.n = body
		}
		switch {
		case body.IsString():
			d.capType = c.typeRef2(t.f, kCapability, body, rp)
		case body.Kind == yamlsrc.Mapping:
			c.keys2(body, rp, func() string { return "requirement " + quote(name) }, reqDefKeys2(), legacyReqKey)
			c.metadata2(body, rp)
			if nn := body.Get("node"); nn != nil {
				d.nodeType = c.typeRef2(t.f, kNode, nn, rp+".node")
			}
			if cn := body.Get("capability"); cn != nil {
				d.capType = c.findType2(t.f, kCapability, cn.Value)
				// With a node type, capability may name one of its
				// capabilities instead of a type (§8.4).
				if cd := d.nodeType.capNamed(cn.Value); d.capType == nil && cd != nil && cn.IsString() {
					d.capType = cd.typ
				} else if d.capType == nil || !cn.IsString() {
					c.typeRef2(t.f, kCapability, cn, rp+".capability")
				}
			} else if prev == nil {
				c.errorf(it.Content[0].Range, rp, CodeMissingField, "requirement %q is missing required field \"capability\"", name)
			}
			if _, ok := body.GetPair("relationship"); !ok && prev == nil {
				c.errorf(it.Content[0].Range, rp, CodeMissingField, "requirement %q is missing required field \"relationship\" (§8.4)", name)
			}
			if rn := body.Get("relationship"); rn != nil {
				tn := rn
				if rn.Kind == yamlsrc.Mapping {
					tn = rn.Get("type")
					c.keys2(rn, rp+".relationship", func() string { return "relationship definition" }, []string{"type", "description", "metadata", "properties", "attributes", "interfaces"}, nil)
				}
				if !(tn.IsNull() && prev != nil) {
					d.relType = c.typeRef2(t.f, kRelationship, tn, rp+".relationship")
				}
			}
			if cr, ok := body.GetPair("count_range"); ok {
				if lo, hi, ok := c.readRange2(cr.Value, rp+".count_range"); ok {
					if prev != nil && prev.countRange && (lo < prev.min || (prev.max >= 0 && (hi < 0 || hi > prev.max))) {
						c.errorf(cr.Value.Range, rp+".count_range", CodeIncompatibleRefinement, "requirement %q refines count_range %s to %s, which is not within it (§8.4.1)", name, rangeText2(prev.min, prev.max), rangeText2(lo, hi))
					}
					d.min, d.max, d.countRange = lo, hi, true
				}
			} else if oc, ok := body.GetPair("occurrences"); ok {
				if lo, hi, ok := c.readRange2(oc.Value, rp+".occurrences"); ok {
					d.min, d.max, d.countRange = lo, hi, true
				}
			}
			if nf := body.Get("node_filter"); nf != nil {
				c.checkExpr2(t.f, nf, rp+".node_filter", true)
			}
		default:
			c.errorf(body.Range, rp, CodeWrongKind, "requirement %q must be a capability type name or a map, found %s", name, body.Describe())
			continue
		}
		if prev != nil {
			c.checkReqRefinement2(prev, d, rp)
		}
		if d.nodeType != nil && d.capType != nil {
			// Once every type is resolved: node types may name each
			// other (valid_source_node_types, requirements). A warning:
			// §8.4.1 asks it of refinements, the TC's suite breaks it in
			// definitions, and an assignment to a node without the
			// capability is an error where it is made (checkTarget2).
			nt, ct, at := d.nodeType, d.capType, body.Get("node")
			c.v2.later = append(c.v2.later, func() {
				if !slices.ContainsFunc(slices.Sorted(maps.Keys(nt.caps)), func(n string) bool {
					x := nt.caps[n].typ
					return x == nil || c.derives2(x, ct)
				}) {
					c.warnf(rangeOf(at), rp+".node", CodeCapabilityMismatch, "requirement %q names node type %q, which has no capability of type %q: no node of that type can fulfil it (§8.4.1)", name, nt.name, ct.name)
				}
			})
		}
		if idx >= 0 {
			t.reqs[idx] = d
		} else {
			t.reqs = append(t.reqs, d)
		}
	}
}

// checkReqRefinement2 checks a requirement refinement (§8.4.1): its
// capability, node and relationship types derive from those it refines.
func (c *compiler) checkReqRefinement2(prev, d *req2, path string) {
	for _, x := range []struct {
		key     string
		was, is *typeDef2
	}{{"capability", prev.capType, d.capType}, {"node", prev.nodeType, d.nodeType}, {"relationship", prev.relType, d.relType}} {
		if x.was != nil && x.is != nil && !c.derives2(x.is, x.was) {
			c.errorf(rangeOf(d.n.Get(x.key)), path+"."+x.key, CodeIncompatibleRefinement, "requirement %q refines %s %q with %q, which does not derive from it (§8.4.1)", d.name, x.key, x.was.name, x.is.name)
		}
	}
}

// capNamed returns the capability of a node type by name; nil for none
// (or no type).
func (t *typeDef2) capNamed(name string) *cap2 {
	if t == nil {
		return nil
	}
	return t.caps[name]
}

// rangeText2 writes a count range as the template does.
func rangeText2(lo, hi int64) string {
	if hi < 0 {
		return "[" + itoa(lo) + ", UNBOUNDED]"
	}
	return "[" + itoa(lo) + ", " + itoa(hi) + "]"
}

func legacyReqKey(key string) string {
	if key == "occurrences" {
		return "TOSCA 2.0 names it count_range (§8.4)"
	}
	return ""
}

// readRange2 reads a [lower, upper] range of non-negative integers, the
// upper bound possibly UNBOUNDED.
func (c *compiler) readRange2(n *yamlsrc.Node, path string) (int64, int64, bool) {
	if n.Kind != yamlsrc.Sequence || len(n.Content) != 2 {
		c.errorf(rangeOf(n), path, CodeOccurrences, "a range is a list of two bounds, found %s", n.Describe())
		return 0, 0, false
	}
	lo, ok := n.Content[0].Int()
	if !ok || lo < 0 {
		c.errorf(n.Content[0].Range, path, CodeOccurrences, "the lower bound must be a non-negative integer, found %s", n.Content[0].Describe())
		return 0, 0, false
	}
	hiN := n.Content[1]
	if hiN.Value == "UNBOUNDED" && !hiN.Quoted {
		return lo, -1, true
	}
	hi, ok := hiN.Int()
	if !ok || hi < lo {
		c.errorf(hiN.Range, path, CodeOccurrences, "the upper bound must be an integer not below the lower bound, or UNBOUNDED, found %s", hiN.Describe())
		return 0, 0, false
	}
	return lo, hi, true
}

// readIfaceDefs2 reads interface definitions (§11.2).
func (c *compiler) readIfaceDefs2(f *file, into map[string]*iface2, n *yamlsrc.Node, path string) {
	if n.IsNull() {
		return
	}
	if n.Kind != yamlsrc.Mapping {
		c.errorf(n.Range, path, CodeWrongKind, "interfaces must be a map, found %s", n.Describe())
		return
	}
	for _, p := range n.Pairs() {
		name, ip := p.Key.Value, path+"."+p.Key.Value
		if p.Value.Kind != yamlsrc.Mapping {
			c.errorf(rangeOf(p.Value), ip, CodeWrongKind, "interface %q must be a map, found %s", name, p.Value.Describe())
			continue
		}
		c.keys2(p.Value, ip, func() string { return "interface " + quote(name) }, ifaceDefKeys2(), nil)
		prev := into[name]
		d := &iface2{name: name, inputs: map[string]*prop2{}, ops: map[string]*op2{}, notes: map[string]*op2{}}
		tn := p.Value.Get("type")
		if prev != nil && tn.IsNull() {
			d.typ = prev.typ
		} else if d.typ = c.typeRef2(f, kInterface, tn, ip+".type"); d.typ == nil {
			// Kept untyped: its assignments are not reported again.
			into[name] = d
			continue
		}
		clone2(d.ops, d.typ.ops)
		clone2(d.notes, d.typ.notes)
		if prev != nil {
			clone2(d.inputs, prev.inputs)
			clone2(d.ops, prev.ops)
			clone2(d.notes, prev.notes)
		}
		if in := p.Value.Get("inputs"); in != nil {
			c.readParamDefs2(f, d.inputs, in, ip+".inputs", true)
		}
		c.readOpDefs2(f, d.ops, p.Value.Get("operations"), ip+".operations", false)
		c.readOpDefs2(f, d.notes, p.Value.Get("notifications"), ip+".notifications", false)
		into[name] = d
	}
}

// readOpDefs2 reads operation (or notification) definitions: a map of
// names to an implementation or a map (§11.4); those of an interface
// type (inType) have no implementation.
func (c *compiler) readOpDefs2(f *file, into map[string]*op2, n *yamlsrc.Node, path string, inType bool) {
	if n.IsNull() {
		return
	}
	if n.Kind != yamlsrc.Mapping {
		c.errorf(n.Range, path, CodeWrongKind, "%s must be a map, found %s", lastKey(path), n.Describe())
		return
	}
	for _, p := range n.Pairs() {
		name, op := p.Key.Value, path+"."+p.Key.Value
		d := &op2{name: name, n: p.Value, inputs: map[string]*prop2{}}
		if prev := into[name]; prev != nil {
			clone2(d.inputs, prev.inputs)
			d.impl = prev.impl
		}
		switch {
		case p.Value.IsNull():
		case p.Value.IsString():
			if inType {
				c.errorf(p.Value.Range, op, CodeUnknownField, "an interface type defines no implementation of %q: node and relationship types and templates do (§11.1)", name)
			}
			d.impl = p.Value
		case p.Value.Kind == yamlsrc.Mapping:
			c.keys2(p.Value, op, func() string { return "operation " + quote(name) }, opDefKeys2(false), nil)
			if ip, ok := p.Value.GetPair("implementation"); ok {
				if inType {
					c.errorf(ip.Key.Range, op+".implementation", CodeUnknownField, "an interface type defines no implementation of %q: node and relationship types and templates do (§11.1)", name)
				}
				d.impl = ip.Value
				c.checkImpl2(ip.Value, op+".implementation")
			}
			if in := p.Value.Get("inputs"); in != nil {
				c.readParamDefs2(f, d.inputs, in, op+".inputs", true)
			}
		default:
			c.errorf(p.Value.Range, op, CodeWrongKind, "operation %q must be an implementation or a map, found %s", name, p.Value.Describe())
			continue
		}
		into[name] = d
	}
}

// checkImpl2 checks an implementation: an artifact name or file, or a
// map with primary and dependencies (§11.8).
func (c *compiler) checkImpl2(n *yamlsrc.Node, path string) {
	switch {
	case n.IsNull(), n.IsString():
	case n.Kind == yamlsrc.Mapping:
		c.keys2(n, path, func() string { return "implementation" }, []string{"primary", "dependencies", "timeout", "operation_host"}, nil)
	default:
		c.errorf(n.Range, path, CodeWrongKind, "an implementation is an artifact or a map, found %s", n.Describe())
	}
}

func artifactKeys2() []string {
	return []string{"type", "file", "repository", "description", "metadata", "artifact_version", "checksum", "checksum_algorithm", "properties", "deploy_path"}
}

// readArtifactDefs2 reads a node type's artifact definitions (§12.2).
func (c *compiler) readArtifactDefs2(t *typeDef2, n *yamlsrc.Node, path string) {
	if n.IsNull() {
		return
	}
	if n.Kind != yamlsrc.Mapping {
		c.errorf(n.Range, path, CodeWrongKind, "artifacts must be a map, found %s", n.Describe())
		return
	}
	for _, p := range n.Pairs() {
		c.checkArtifact2(t.f, p, path+"."+p.Key.Value, t.artifacts[p.Key.Value] != nil)
		t.artifacts[p.Key.Value] = p.Value
	}
}

// checkArtifact2 checks one artifact definition; refining one already
// defined may leave type and file out.
func (c *compiler) checkArtifact2(f *file, p yamlsrc.Pair, path string, refines bool) {
	name := p.Key.Value
	if p.Value.Kind != yamlsrc.Mapping {
		c.errorf(rangeOf(p.Value), path, CodeWrongKind, "artifact %q must be a map, found %s", name, p.Value.Describe())
		return
	}
	c.keys2(p.Value, path, func() string { return "artifact " + quote(name) }, artifactKeys2(), nil)
	c.metadata2(p.Value, path)
	if tn := p.Value.Get("type"); tn != nil || !refines {
		c.typeRef2(f, kArtifact, tn, path+".type")
	}
	if fn := p.Value.Get("file"); fn == nil && !refines {
		c.errorf(p.Key.Range, path, CodeMissingField, "artifact %q is missing required field \"file\"", name)
	} else if fn != nil && !fn.IsString() {
		c.errorf(fn.Range, path+".file", CodeWrongKind, "file must be a string, found %s", fn.Describe())
	}
}
