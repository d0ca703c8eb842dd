package tosca

// Phase 3 (2.0) — types: declaration, derivation and the 2.0 refinement
// rules of every type kind (§6.4, §7–§9, §11, §12, §16), and the built-in
// data types (§9.1).
//
// Errors detected here:
//   - a type name that is not a non-empty string, a definition that is not a map
//     (tosca.wrong_kind, tosca.bad_name)
//   - keynames a type kind does not define (tosca.unknown_field); a version that is not a
//     TOSCA version (tosca.value, tosca.wrong_kind)
//   - derived_from that is not a name, or names no type of the kind (tosca.wrong_kind,
//     tosca.unknown_parent); derivation cycles (tosca.derivation_cycle)
//   - definitions (properties, attributes, capabilities, interfaces, artifacts, parameters) of
//     the wrong kind, without a type where nothing is refined, with an unknown type or one of
//     another kind (tosca.wrong_kind, tosca.missing_field, tosca.unknown_type)
//   - refinements that change a type to one not derived from it, or change a fixed value
//     (tosca.incompatible_refinement)
//   - the abstract scalar type used as a property or schema type; scalar type definitions
//     without units or a unit of multiplier 1, with multipliers that are not numbers, prefixes
//     with more than one unit, a canonical unit that is not a unit of multiplier 1, a data_type
//     other than integer or float or changed by a derived type, properties, or scalar keynames
//     on a data type that is not a scalar (tosca.value, tosca.native_type_extended); unit or
//     prefix names that are empty (a unit) or hold white space (tosca.value); a derived scalar
//     type that changes an inherited multiplier or adds a canonical_unit
//     (tosca.incompatible_refinement)
//   - defaults that do not fit their definition (tosca.value, tosca.constraint)
//   - valid_*_types, members and targets naming unknown types (tosca.unknown_type)

import (
	"maps"
	"slices"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/tosca/internal/values"
)

// typeDef2 is one TOSCA 2.0 type, with its inherited members merged once
// resolved.
type typeDef2 struct {
	kind kind
	name string
	f    *file
	n    *yamlsrc.Node
	key  diag.Range
	path string

	parent *typeDef2
	// base is the built-in data type a data type derives from, "" for a
	// complex data type.
	base string
	// state: 0 declared, 1 resolving, 2 resolved.
	state uint8
	// deriving is set while the parent chain is resolved: a type met
	// again then derives from itself.
	deriving bool
	chain    []string

	props, attrs map[string]*prop2
	caps         map[string]*cap2
	reqs         []*req2
	ifaces       map[string]*iface2
	ops          map[string]*op2 // interface types
	notes        map[string]*op2 // interface types' notifications
	artifacts    map[string]*yamlsrc.Node
	validation   []*yamlsrc.Node // every ancestor's, outermost first
	entry, keyS  *prop2
	members      []*typeDef2
	targets      []*typeDef2
	scalar       *scalarDef2
	// validSources, validCaps and validTargets are the valid_*_types
	// lists of capability and relationship types (nil: no restriction).
	validSources, validCaps, validTargets []*typeDef2
	// capOrder and ifaceOrder hold the names of caps and ifaces in
	// order, once asked for (sortedOnce).
	capOrder, ifaceOrder []string
}

// sortedOnce returns the keys of m in order, kept in *memo after the first
// call: a type's members are final once the types are resolved, and are
// walked again for every template of the type.
func sortedOnce[V any](memo *[]string, m map[string]V) []string {
	if *memo == nil && len(m) > 0 {
		*memo = slices.Sorted(maps.Keys(m))
	}
	return *memo
}

// setValid2 sets a valid_*_types list when the definition writes a
// non-empty one; otherwise the inherited list stays.
func setValid2(into *[]*typeDef2, list []*typeDef2) {
	if len(list) > 0 {
		*into = list
	}
}

// prop2 is a property, attribute or parameter definition, or a schema.
type prop2 struct {
	name       string
	n          *yamlsrc.Node
	typ        *typeDef2
	entry      *prop2
	keyS       *prop2
	required   bool
	def, value *yamlsrc.Node
	validation []*yamlsrc.Node
	// f is the file whose names the definition's values see.
	f *file
	// sensitive: the definition's metadata, or that of the definition it
	// refines, says sensitive: true (prop2.secret, v2secrets.go).
	sensitive bool
}

type cap2 struct {
	name         string
	typ          *typeDef2
	n            *yamlsrc.Node
	props, attrs map[string]*prop2
	// validSources restricts the node types whose requirements may
	// target the capability (its type's, refined by the definition).
	validSources []*typeDef2
}

type req2 struct {
	name       string
	n          *yamlsrc.Node
	capType    *typeDef2
	nodeType   *typeDef2
	relType    *typeDef2
	min, max   int64 // max < 0: UNBOUNDED
	countRange bool
}

type iface2 struct {
	name   string
	typ    *typeDef2
	inputs map[string]*prop2
	ops    map[string]*op2
	// notes are the notifications (§11.6).
	notes map[string]*op2
	// opOrder holds the names of ops in order (sortedOnce).
	opOrder []string
}

type op2 struct {
	name   string
	n      *yamlsrc.Node
	impl   *yamlsrc.Node
	inputs map[string]*prop2
}

// builtinTypes2 lists TOSCA 2.0's built-in data types (§9.1).
func builtinTypes2() []string {
	return []string{"string", "integer", "float", "boolean", "bytes", "nil", "timestamp", "scalar", "version", "list", "map"}
}

// legacyScalarUnits2 gives the units of TOSCA 1.3's scalar-unit types,
// which TOSCA 2.0 left to profiles (§9.1.2.2) and 2.0 templates still
// name: they are read as 1.3 reads them, with a tosca.legacy_type
// warning.
func legacyScalarUnits2() map[string]map[string]float64 {
	return map[string]map[string]float64{
		"scalar-unit.size": {"B": 1, "kB": 1e3, "KB": 1e3, "KiB": 1 << 10, "MB": 1e6, "MiB": 1 << 20, "GB": 1e9,
			"GiB": 1 << 30, "TB": 1e12, "TiB": 1 << 40},
		"scalar-unit.time":      {"d": 86400, "h": 3600, "m": 60, "s": 1, "ms": 1e-3, "us": 1e-6, "ns": 1e-9},
		"scalar-unit.frequency": {"Hz": 1, "kHz": 1e3, "MHz": 1e6, "GHz": 1e9},
		"scalar-unit.bitrate": {"bps": 1, "Kbps": 1e3, "Kibps": 1 << 10, "Mbps": 1e6, "Mibps": 1 << 20, "Gbps": 1e9,
			"Gibps": 1 << 30, "Tbps": 1e12, "Tibps": 1 << 40, "Bps": 8, "KBps": 8e3, "KiBps": 8 << 10,
			"MBps": 8e6, "MiBps": 8 << 20, "GBps": 8e9, "GiBps": 8 << 30, "TBps": 8e12, "TiBps": 8 << 40},
	}
}

func legacyCanonical2(name string) string {
	switch name {
	case "scalar-unit.size":
		return "B"
	case "scalar-unit.time":
		return "s"
	case "scalar-unit.frequency":
		return "Hz"
	}
	return "bps"
}

// declareTypes2 registers the built-in data types and every type of
// every loaded 2.0 file under its name in the file's scope.
func (c *compiler) declareTypes2() {
	c.v2.builtins = map[string]*typeDef2{}
	for _, name := range builtinTypes2() {
		c.v2.builtins[name] = &typeDef2{kind: kData, name: name, base: name, state: 2, chain: []string{name}}
	}
	// 1.3's range, which 2.0 dropped, read as 1.3 reads it.
	c.v2.builtins["range"] = &typeDef2{kind: kData, name: "range", base: "range", state: 2, chain: []string{"range"}}
	for name, units := range legacyScalarUnits2() {
		s := &scalarDef2{dataType: c.v2.builtins["float"], units: units, canonical: legacyCanonical2(name)}
		c.v2.builtins[name] = &typeDef2{kind: kData, name: name, base: "scalar", state: 2, chain: []string{name, "scalar"}, scalar: s}
	}
	for _, f := range c.v2.files {
		s := c.scope2(f)
		for k := kind(0); k < numKinds; k++ {
			sec := f.root.Get(k.section())
			if sec == nil || sec.Kind != yamlsrc.Mapping {
				continue
			}
			for _, p := range sec.Pairs() {
				path := k.section() + "." + p.Key.Value
				if !p.Key.IsString() || p.Key.Value == "" {
					c.errorf(p.Key.Range, path, CodeBadName, "a %s name must be a non-empty string, found %s", k.word(), p.Key.Describe())
					continue
				}
				if p.Value.Kind != yamlsrc.Mapping {
					if !p.Value.IsNull() {
						c.errorf(p.Value.Range, path, CodeWrongKind, "%s %q must be a map, found %s", k.word(), p.Key.Value, p.Value.Describe())
						continue
					}
					switch k {
					case kData:
						// §9.2: a data type definition is a map; one without a body is a
						// definition lost to indentation. Declared all the
						// same, so that its uses are not reported again.
						c.errorf(p.Key.Range, path, CodeWrongKind, "data type %q has no definition: a data type is a map (derived_from, properties, validation…), found null", p.Key.Value)
					case kInterface:
						// §11.1: likewise an interface type, which "describes
						// a set of operations and notifications" ({} is one
						// that declares none).
						c.errorf(p.Key.Range, path, CodeWrongKind, "interface type %q has no definition: an interface type is a map (derived_from, inputs, operations, notifications…), found null", p.Key.Value)
					}
				}
				t := &typeDef2{kind: k, name: p.Key.Value, f: f, n: p.Value, key: p.Key.Range, path: path}
				s.types[k][t.name] = t
				c.v2.types = append(c.v2.types, t)
			}
		}
	}
}

// resolveTypes2 resolves every declared type.
func (c *compiler) resolveTypes2() {
	for _, t := range c.v2.types {
		if c.ctx.Err() != nil {
			return
		}
		c.resolveType2(t, 0)
	}
}

// typeKeys2 lists the keynames of a type definition of a kind.
func typeKeys2(k kind) []string {
	common := []string{"derived_from", "version", "metadata", "description"}
	switch k {
	case kArtifact:
		return append(common, "mime_type", "file_ext", "properties")
	case kData:
		return append(common, "validation", "properties", "key_schema", "entry_schema", "data_type", "units", "canonical_unit", "prefixes")
	case kCapability:
		return append(common, "properties", "attributes", "valid_source_node_types", "valid_relationship_types")
	case kInterface:
		return append(common, "inputs", "operations", "notifications")
	case kRelationship:
		return append(common, "properties", "attributes", "interfaces", "valid_capability_types", "valid_target_node_types", "valid_source_node_types")
	case kNode:
		return append(common, "properties", "attributes", "capabilities", "requirements", "interfaces", "artifacts")
	case kGroup:
		return append(common, "properties", "attributes", "members")
	case kPolicy:
		return append(common, "properties", "targets", "triggers")
	}
	return common
}

func legacyTypeKey(key string) string {
	switch key {
	case "constraints":
		return "TOSCA 2.0 writes validation clauses (§9.10)"
	case "valid_source_types":
		return "TOSCA 2.0 names it valid_source_node_types (§8.1)"
	case "valid_target_types":
		return "TOSCA 2.0 names it valid_capability_types (§7.3)"
	}
	return ""
}

func (c *compiler) resolveType2(t *typeDef2, depth int) {
	switch {
	case t.state == 1 && t.deriving:
		c.errorf(t.key, t.path, CodeDerivationCycle, "%s %q derives from itself", t.kind.word(), t.name)
		return
	case t.state != 0:
		// Resolved, or being resolved and named by one of its own
		// members (a requirement of Root whose node derives from Root):
		// used as it stands.
		return
	}
	if depth > maxDerivationDepth {
		c.errorf(t.key, t.path, CodeTooDeep, "the derivation chain of %s %q is longer than %d types", t.kind.word(), t.name, maxDerivationDepth)
		t.state = 2
		return
	}
	t.state = 1
	n := t.n
	if n != nil && n.Kind == yamlsrc.Mapping {
		c.keys2(n, t.path, func() string { return t.kind.word() + " " + quote(t.name) }, typeKeys2(t.kind), legacyTypeKey)
		c.metadata2(n, t.path)
		if p, ok := n.GetPair("description"); ok {
			c.description2(p, t.path+".description")
		}
		if v, ok := n.GetPair("version"); ok && !v.Value.IsNull() {
			c.typeVersion2(v.Value, t.path+".version")
		}
	}
	if dp, ok := n.GetPair("derived_from"); ok {
		dn := dp.Value
		switch {
		case dn.Kind != yamlsrc.Scalar || !dn.IsString() || dn.Value == "":
			c.errorf(rangeOf(dn), t.path+".derived_from", CodeWrongKind, "derived_from must name a %s, found %s", t.kind.word(), dn.Describe())
		default:
			if p := c.findType2(t.f, t.kind, dn.Value); p == nil {
				c.unknownOnce(unknownKey{k: t.kind, name: dn.Value, error: true}, func() {
					c.errorf(dn.Range, t.path+".derived_from", CodeUnknownParent, "%s %q derives from unknown %s %q", t.kind.word(), t.name, t.kind.word(), dn.Value)
				})
			} else {
				t.deriving = true
				c.resolveType2(p, depth+1)
				t.deriving = false
				if !p.deriving && !c.derives2(p, t) {
					t.parent = p
				}
			}
		}
	}
	c.inherit2(t)
	if n != nil && n.Kind == yamlsrc.Mapping {
		c.readTypeBody2(t, n)
	}
	t.state = 2
}

// derives2 reports whether t is a or derives from anc.
func (c *compiler) derives2(t, anc *typeDef2) bool {
	for x := t; x != nil; x = x.parent {
		if x == anc {
			return true
		}
	}
	return false
}

// inherit2 copies the parent's members into t.
func (c *compiler) inherit2(t *typeDef2) {
	p := t.parent
	t.chain = []string{t.name}
	t.props, t.attrs = map[string]*prop2{}, map[string]*prop2{}
	t.caps, t.ifaces, t.ops, t.notes = map[string]*cap2{}, map[string]*iface2{}, map[string]*op2{}, map[string]*op2{}
	t.artifacts = map[string]*yamlsrc.Node{}
	if p == nil {
		return
	}
	t.chain = append(t.chain, p.chain...)
	t.base = p.base
	clone2(t.props, p.props)
	clone2(t.attrs, p.attrs)
	clone2(t.caps, p.caps)
	clone2(t.ifaces, p.ifaces)
	clone2(t.ops, p.ops)
	clone2(t.notes, p.notes)
	clone2(t.artifacts, p.artifacts)
	t.reqs = slices.Clone(p.reqs)
	t.validation = slices.Clone(p.validation)
	t.entry, t.keyS = p.entry, p.keyS
	t.members, t.targets = p.members, p.targets
	t.scalar = p.scalar
	t.validSources, t.validCaps, t.validTargets = p.validSources, p.validCaps, p.validTargets
}

func clone2[V any](into, from map[string]V) {
	for k, v := range from {
		into[k] = v
	}
}

func (c *compiler) readTypeBody2(t *typeDef2, n *yamlsrc.Node) {
	path := t.path
	if t.kind == kData {
		c.readDataType2(t, n)
	}
	if pn := n.Get("properties"); pn != nil {
		c.readPropDefs2(t.f, t.props, pn, path+".properties", true)
	}
	if an := n.Get("attributes"); an != nil {
		c.readPropDefs2(t.f, t.attrs, an, path+".attributes", false)
	}
	switch t.kind {
	case kNode:
		c.readCapDefs2(t, n.Get("capabilities"), path+".capabilities")
		c.readReqDefs2(t, n.Get("requirements"), path+".requirements")
		c.readIfaceDefs2(t.f, t.ifaces, n.Get("interfaces"), path+".interfaces")
		c.readArtifactDefs2(t, n.Get("artifacts"), path+".artifacts")
	case kRelationship:
		c.readIfaceDefs2(t.f, t.ifaces, n.Get("interfaces"), path+".interfaces")
		setValid2(&t.validCaps, c.typeNames2(t.f, kCapability, n.Get("valid_capability_types"), path+".valid_capability_types"))
		setValid2(&t.validTargets, c.typeNames2(t.f, kNode, n.Get("valid_target_node_types"), path+".valid_target_node_types"))
		setValid2(&t.validSources, c.typeNames2(t.f, kNode, n.Get("valid_source_node_types"), path+".valid_source_node_types"))
	case kCapability:
		setValid2(&t.validSources, c.typeNames2(t.f, kNode, n.Get("valid_source_node_types"), path+".valid_source_node_types"))
		c.typeNames2(t.f, kRelationship, n.Get("valid_relationship_types"), path+".valid_relationship_types")
	case kInterface:
		if in := n.Get("inputs"); in != nil {
			c.readParamDefs2(t.f, map[string]*prop2{}, in, path+".inputs", true)
		}
		c.readOpDefs2(t.f, t.ops, n.Get("operations"), path+".operations", true)
		c.readOpDefs2(t.f, t.notes, n.Get("notifications"), path+".notifications", true)
	case kGroup:
		if m := c.typeNames2(t.f, kNode, n.Get("members"), path+".members"); m != nil {
			t.members = m
		}
	case kPolicy:
		tn := n.Get("targets")
		if tn != nil && tn.Kind == yamlsrc.Sequence {
			var out []*typeDef2
			for i, it := range tn.Content {
				x := c.findType2(t.f, kNode, it.Value)
				if x == nil {
					x = c.findType2(t.f, kGroup, it.Value)
				}
				if x == nil || !it.IsString() {
					c.errorf(it.Range, path+".targets["+itoa(int64(i))+"]", CodeUnknownType, "policy target %s is no node or group type", it.Describe())
					continue
				}
				out = append(out, x)
			}
			t.targets = out
		} else if tn != nil && !tn.IsNull() {
			c.errorf(tn.Range, path+".targets", CodeWrongKind, "targets must be a list, found %s", tn.Describe())
		}
		if tr := n.Get("triggers"); tr != nil && !tr.IsNull() && tr.Kind != yamlsrc.Mapping {
			c.errorf(tr.Range, path+".triggers", CodeWrongKind, "triggers must be a map, found %s", tr.Describe())
		}
	case kArtifact:
		if fe := n.Get("file_ext"); fe != nil && !fe.IsNull() && fe.Kind != yamlsrc.Sequence {
			c.errorf(fe.Range, path+".file_ext", CodeWrongKind, "file_ext must be a list, found %s", fe.Describe())
		}
	}
}

// typeNames2 resolves a list of type names.
func (c *compiler) typeNames2(f *file, k kind, n *yamlsrc.Node, path string) []*typeDef2 {
	if n == nil || n.IsNull() {
		return nil
	}
	if n.Kind != yamlsrc.Sequence {
		c.errorf(n.Range, path, CodeWrongKind, "%s must be a list of %s names, found %s", path, k.word(), n.Describe())
		return nil
	}
	var out []*typeDef2
	for i, it := range n.Content {
		if t := c.typeRef2(f, k, it, path+"["+itoa(int64(i))+"]"); t != nil {
			out = append(out, t)
		}
	}
	return out
}

// readDataType2 reads what only data types have: schemas, validation
// and the scalar keynames.
func (c *compiler) readDataType2(t *typeDef2, n *yamlsrc.Node) {
	if v := n.Get("validation"); v != nil && c.clause2(t.f, v, t.path+".validation") {
		t.validation = append(t.validation, v)
	}
	if es := n.Get("entry_schema"); es != nil {
		t.entry = c.readSchema2(t.f, es, t.path+".entry_schema")
	}
	if ks := n.Get("key_schema"); ks != nil {
		t.keyS = c.readSchema2(t.f, ks, t.path+".key_schema")
	}
	switch {
	case (t.base == "list" || t.base == "map") && t.entry == nil:
		c.errorf(t.key, t.path, CodeMissingField, "data type %q derives from %s, so it needs an entry_schema (§9.2)", t.name, t.base)
	case t.base != "list" && t.base != "map" && n.Get("entry_schema") != nil:
		c.errorf(t.key, t.path+".entry_schema", CodeUnknownField, "data type %q does not derive from list or map: entry_schema is not allowed (§9.2)", t.name)
	case t.base != "map" && n.Get("key_schema") != nil:
		c.errorf(t.key, t.path+".key_schema", CodeUnknownField, "data type %q does not derive from map: key_schema is not allowed (§9.2)", t.name)
	}
	scalarKeys := []string{"data_type", "units", "canonical_unit", "prefixes"}
	if t.base != "scalar" {
		for _, k := range scalarKeys {
			if p, ok := n.GetPair(k); ok {
				c.errorf(p.Key.Range, t.path+"."+k, CodeNativeExtended, "%s is a keyname of scalar types; data type %q does not derive from scalar", k, t.name)
			}
		}
		if t.base != "" && t.base != "list" && t.base != "map" {
			if p, ok := n.GetPair("properties"); ok {
				c.errorf(p.Key.Range, t.path+".properties", CodeNativeExtended, "data type %q derives from %s, so it cannot define properties", t.name, t.base)
			}
		}
		return
	}
	if p, ok := n.GetPair("properties"); ok {
		c.errorf(p.Key.Range, t.path+".properties", CodeNativeExtended, "scalar type %q cannot define properties (§9.1.2.2)", t.name)
	}
	c.readScalarDef2(t, n)
}

// typeVersion2 checks the version keyname of a type: a TOSCA version
// (§6.4.1, §9.1.2.3), major.minor[.fix[.qualifier[-build]]].
func (c *compiler) typeVersion2(v *yamlsrc.Node, path string) {
	if v.Kind != yamlsrc.Scalar {
		c.errorf(v.Range, path, CodeWrongKind, "version must be a version string, found %s", v.Describe())
		return
	}
	if _, err := values.CoerceV2(values.Version, v); err != nil {
		c.errorf(v.Range, path, CodeValue, "the version of a type must be a TOSCA version (§9.1.2.3): %v", err)
	}
}
