package tosca2

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
	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
	"github.com/xosplan/xosplan/pkg/tosca/internal/values"
)

// typeDef is one TOSCA 2.0 type, with its inherited members merged once
// resolved.
type typeDef struct {
	kind core.Kind
	name string
	f    *file
	n    *yamlsrc.Node
	key  diag.Range
	path string

	parent *typeDef
	// base is the built-in data type a data type derives from, "" for a
	// complex data type.
	base string
	// state: 0 declared, 1 resolving, 2 resolved.
	state uint8
	// deriving is set while the parent chain is resolved: a type met
	// again then derives from itself.
	deriving bool
	chain    []string

	props, attrs map[string]*prop
	caps         map[string]*capability
	reqs         []*req
	ifaces       map[string]*iface
	ops          map[string]*opDef // interface types
	notes        map[string]*opDef // interface types' notifications
	artifacts    map[string]*yamlsrc.Node
	validation   []*yamlsrc.Node // every ancestor's, outermost first
	entry, keyS  *prop
	members      []*typeDef
	targets      []*typeDef
	scalar       *scalarDef
	// validSources, validCaps and validTargets are the valid_*_types
	// lists of capability and relationship types (nil: no restriction).
	validSources, validCaps, validTargets []*typeDef
	// capOrder, ifaceOrder, propOrder and attrOrder hold the names of
	// caps, ifaces, props and attrs in order, once asked for (sortedOnce).
	capOrder, ifaceOrder, propOrder, attrOrder []string
}

// propNames returns the names of t's properties in order.
func (t *typeDef) propNames() []string { return sortedOnce(&t.propOrder, t.props) }

// attrNames returns the names of t's attributes in order.
func (t *typeDef) attrNames() []string { return sortedOnce(&t.attrOrder, t.attrs) }

// sortedOnce returns the keys of m in order, kept in *memo after the first
// call: a type's members are final once the types are resolved, and are
// walked again for every template of the type.
func sortedOnce[V any](memo *[]string, m map[string]V) []string {
	if *memo == nil && len(m) > 0 {
		*memo = slices.Sorted(maps.Keys(m))
	}
	return *memo
}

// perType returns (*m)[k], computed by find the first time k is asked
// for (*m is made then): what a compile derives from a type once its
// types are resolved and reads again for every template of the type.
func perType[K comparable, V any](m *map[K]V, k K, find func(K) V) V {
	if v, ok := (*m)[k]; ok {
		return v
	}
	v := find(k)
	if *m == nil {
		*m = map[K]V{}
	}
	(*m)[k] = v
	return v
}

// setValid sets a valid_*_types list when the definition writes a
// non-empty one; otherwise the inherited list stays.
func setValid(into *[]*typeDef, list []*typeDef) {
	if len(list) > 0 {
		*into = list
	}
}

// prop is a property, attribute or parameter definition, or a schema.
type prop struct {
	name       string
	n          *yamlsrc.Node
	typ        *typeDef
	entry      *prop
	keyS       *prop
	required   bool
	def, value *yamlsrc.Node
	validation []*yamlsrc.Node
	// f is the file whose names the definition's values see.
	f *file
	// sensitive: the definition's metadata, or that of the definition it
	// refines, says sensitive: true (prop.secret, secrets.go).
	sensitive bool
}

type capability struct {
	name         string
	typ          *typeDef
	n            *yamlsrc.Node
	props, attrs map[string]*prop
	// validSources restricts the node types whose requirements may
	// target the capability (its type's, refined by the definition).
	validSources []*typeDef
	// propOrder and attrOrder hold the names of props and attrs in
	// order, once asked for (sortedOnce).
	propOrder, attrOrder []string
}

// propNames returns the names of the capability's properties in order.
func (cd *capability) propNames() []string { return sortedOnce(&cd.propOrder, cd.props) }

// attrNames returns the names of the capability's attributes in order.
func (cd *capability) attrNames() []string { return sortedOnce(&cd.attrOrder, cd.attrs) }

type req struct {
	name       string
	n          *yamlsrc.Node
	capType    *typeDef
	nodeType   *typeDef
	relType    *typeDef
	min, max   int64 // max < 0: UNBOUNDED
	countRange bool
}

type iface struct {
	name   string
	typ    *typeDef
	inputs map[string]*prop
	ops    map[string]*opDef
	// notes are the notifications (§11.6).
	notes map[string]*opDef
	// opOrder holds the names of ops in order (sortedOnce).
	opOrder []string
}

type opDef struct {
	name   string
	n      *yamlsrc.Node
	impl   *yamlsrc.Node
	inputs map[string]*prop
}

// builtinTypes lists TOSCA 2.0's built-in data types (§9.1).
func builtinTypes() []string {
	return []string{"string", "integer", "float", "boolean", "bytes", "nil", "timestamp", "scalar", "version", "list", "map"}
}

// legacyScalarUnits gives the units of TOSCA 1.3's scalar-unit types,
// which TOSCA 2.0 left to profiles (§9.1.2.2) and 2.0 templates still
// name: they are read as 1.3 reads them, with a tosca.legacy_type
// warning.
func legacyScalarUnits() map[string]map[string]float64 {
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

func legacyCanonical(name string) string {
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

// declareTypes registers the built-in data types and every type of
// every loaded 2.0 file under its name in the file's scope.
func (c *compiler) declareTypes() {
	c.state.builtins = map[string]*typeDef{}
	for _, name := range builtinTypes() {
		c.state.builtins[name] = &typeDef{kind: core.KData, name: name, base: name, state: 2, chain: []string{name}}
	}
	// 1.3's range, which 2.0 dropped, read as 1.3 reads it.
	c.state.builtins["range"] = &typeDef{kind: core.KData, name: "range", base: "range", state: 2, chain: []string{"range"}}
	for name, units := range legacyScalarUnits() {
		s := &scalarDef{dataType: c.state.builtins["float"], units: units, canonical: legacyCanonical(name)}
		c.state.builtins[name] = &typeDef{kind: core.KData, name: name, base: "scalar", state: 2, chain: []string{name, "scalar"}, scalar: s}
	}
	for _, f := range c.state.files {
		s := c.scope(f)
		for k := core.Kind(0); k < core.NumKinds; k++ {
			sec := f.root.Get(k.Section())
			if sec == nil || sec.Kind != yamlsrc.Mapping {
				continue
			}
			for _, p := range sec.Pairs() {
				path := k.Section() + "." + p.Key.Value
				if !p.Key.IsString() || p.Key.Value == "" {
					c.Errorf(p.Key.Range, path, core.CodeBadName, "a %s name must be a non-empty string, found %s", k.Word(), p.Key.Describe())
					continue
				}
				if p.Value.Kind != yamlsrc.Mapping {
					if !p.Value.IsNull() {
						c.Errorf(p.Value.Range, path, core.CodeWrongKind, "%s %q must be a map, found %s", k.Word(), p.Key.Value, p.Value.Describe())
						continue
					}
					switch k {
					case core.KData:
						// §9.2: a data type definition is a map; one without a body is a
						// definition lost to indentation. Declared all the
						// same, so that its uses are not reported again.
						c.Errorf(p.Key.Range, path, core.CodeWrongKind, "data type %q has no definition: a data type is a map (derived_from, properties, validation…), found null", p.Key.Value)
					case core.KInterface:
						// §11.1: likewise an interface type, which "describes
						// a set of operations and notifications" ({} is one
						// that declares none).
						c.Errorf(p.Key.Range, path, core.CodeWrongKind, "interface type %q has no definition: an interface type is a map (derived_from, inputs, operations, notifications…), found null", p.Key.Value)
					}
				}
				t := &typeDef{kind: k, name: p.Key.Value, f: f, n: p.Value, key: p.Key.Range, path: path}
				s.types[k][t.name] = t
				c.state.types = append(c.state.types, t)
			}
		}
	}
}

// resolveTypes resolves every declared type.
func (c *compiler) resolveTypes() {
	for _, t := range c.state.types {
		if c.Ctx.Err() != nil {
			return
		}
		c.resolveType(t, 0)
	}
}

// typeKeys lists the keynames of a type definition of a kind.
func typeKeys(k core.Kind) []string {
	common := []string{"derived_from", "version", "metadata", "description"}
	switch k {
	case core.KArtifact:
		return append(common, "mime_type", "file_ext", "properties")
	case core.KData:
		return append(common, "validation", "properties", "key_schema", "entry_schema", "data_type", "units", "canonical_unit", "prefixes")
	case core.KCapability:
		return append(common, "properties", "attributes", "valid_source_node_types", "valid_relationship_types")
	case core.KInterface:
		return append(common, "inputs", "operations", "notifications")
	case core.KRelationship:
		return append(common, "properties", "attributes", "interfaces", "valid_capability_types", "valid_target_node_types", "valid_source_node_types")
	case core.KNode:
		return append(common, "properties", "attributes", "capabilities", "requirements", "interfaces", "artifacts")
	case core.KGroup:
		return append(common, "properties", "attributes", "members")
	case core.KPolicy:
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

func (c *compiler) resolveType(t *typeDef, depth int) {
	switch {
	case t.state == 1 && t.deriving:
		c.Errorf(t.key, t.path, core.CodeDerivationCycle, "%s %q derives from itself", t.kind.Word(), t.name)
		return
	case t.state != 0:
		// Resolved, or being resolved and named by one of its own
		// members (a requirement of Root whose node derives from Root):
		// used as it stands.
		return
	}
	if depth > core.MaxDerivationDepth {
		c.Errorf(t.key, t.path, core.CodeTooDeep, "the derivation chain of %s %q is longer than %d types", t.kind.Word(), t.name, core.MaxDerivationDepth)
		t.state = 2
		return
	}
	t.state = 1
	n := t.n
	if n != nil && n.Kind == yamlsrc.Mapping {
		c.keys(n, t.path, func() string { return t.kind.Word() + " " + core.Quote(t.name) }, typeKeys(t.kind), legacyTypeKey)
		c.metadata(n, t.path)
		if p, ok := n.GetPair("description"); ok {
			c.description(p, t.path+".description")
		}
		if v, ok := n.GetPair("version"); ok && !v.Value.IsNull() {
			c.typeVersion(v.Value, t.path+".version")
		}
	}
	if dp, ok := n.GetPair("derived_from"); ok {
		dn := dp.Value
		switch {
		case dn.Kind != yamlsrc.Scalar || !dn.IsString() || dn.Value == "":
			c.Errorf(core.RangeOf(dn), t.path+".derived_from", core.CodeWrongKind, "derived_from must name a %s, found %s", t.kind.Word(), dn.Describe())
		default:
			if p := c.findType(t.f, t.kind, dn.Value); p == nil {
				c.UnknownOnce(core.UnknownKey{Kind: t.kind, Name: dn.Value, Error: true}, func() {
					c.Errorf(dn.Range, t.path+".derived_from", core.CodeUnknownParent, "%s %q derives from unknown %s %q", t.kind.Word(), t.name, t.kind.Word(), dn.Value)
				})
			} else {
				t.deriving = true
				c.resolveType(p, depth+1)
				t.deriving = false
				if !p.deriving && !c.derives(p, t) {
					t.parent = p
				}
			}
		}
	}
	c.inherit(t)
	if n != nil && n.Kind == yamlsrc.Mapping {
		c.readTypeBody(t, n)
	}
	t.state = 2
}

// derives reports whether t is a or derives from anc.
func (c *compiler) derives(t, anc *typeDef) bool {
	for x := t; x != nil; x = x.parent {
		if x == anc {
			return true
		}
	}
	return false
}

// inherit copies the parent's members into t.
func (c *compiler) inherit(t *typeDef) {
	p := t.parent
	t.chain = []string{t.name}
	t.props, t.attrs = map[string]*prop{}, map[string]*prop{}
	t.caps, t.ifaces, t.ops, t.notes = map[string]*capability{}, map[string]*iface{}, map[string]*opDef{}, map[string]*opDef{}
	t.artifacts = map[string]*yamlsrc.Node{}
	if p == nil {
		return
	}
	t.chain = append(t.chain, p.chain...)
	t.base = p.base
	clone(t.props, p.props)
	clone(t.attrs, p.attrs)
	clone(t.caps, p.caps)
	clone(t.ifaces, p.ifaces)
	clone(t.ops, p.ops)
	clone(t.notes, p.notes)
	clone(t.artifacts, p.artifacts)
	t.reqs = slices.Clone(p.reqs)
	t.validation = slices.Clone(p.validation)
	t.entry, t.keyS = p.entry, p.keyS
	t.members, t.targets = p.members, p.targets
	t.scalar = p.scalar
	t.validSources, t.validCaps, t.validTargets = p.validSources, p.validCaps, p.validTargets
}

func clone[V any](into, from map[string]V) {
	for k, v := range from {
		into[k] = v
	}
}

func (c *compiler) readTypeBody(t *typeDef, n *yamlsrc.Node) {
	path := t.path
	if t.kind == core.KData {
		c.readDataType(t, n)
	}
	if pn := n.Get("properties"); pn != nil {
		c.readPropDefs(t.f, t.props, pn, path+".properties", true)
	}
	if an := n.Get("attributes"); an != nil {
		c.readPropDefs(t.f, t.attrs, an, path+".attributes", false)
	}
	switch t.kind {
	case core.KNode:
		c.readCapDefs(t, n.Get("capabilities"), path+".capabilities")
		c.readReqDefs(t, n.Get("requirements"), path+".requirements")
		c.readIfaceDefs(t.f, t.ifaces, n.Get("interfaces"), path+".interfaces")
		c.readArtifactDefs(t, n.Get("artifacts"), path+".artifacts")
	case core.KRelationship:
		c.readIfaceDefs(t.f, t.ifaces, n.Get("interfaces"), path+".interfaces")
		setValid(&t.validCaps, c.typeNames(t.f, core.KCapability, n.Get("valid_capability_types"), path+".valid_capability_types"))
		setValid(&t.validTargets, c.typeNames(t.f, core.KNode, n.Get("valid_target_node_types"), path+".valid_target_node_types"))
		setValid(&t.validSources, c.typeNames(t.f, core.KNode, n.Get("valid_source_node_types"), path+".valid_source_node_types"))
	case core.KCapability:
		setValid(&t.validSources, c.typeNames(t.f, core.KNode, n.Get("valid_source_node_types"), path+".valid_source_node_types"))
		c.typeNames(t.f, core.KRelationship, n.Get("valid_relationship_types"), path+".valid_relationship_types")
	case core.KInterface:
		if in := n.Get("inputs"); in != nil {
			c.readParamDefs(t.f, map[string]*prop{}, in, path+".inputs", true)
		}
		c.readOpDefs(t.f, t.ops, n.Get("operations"), path+".operations", true)
		c.readOpDefs(t.f, t.notes, n.Get("notifications"), path+".notifications", true)
	case core.KGroup:
		if m := c.typeNames(t.f, core.KNode, n.Get("members"), path+".members"); m != nil {
			t.members = m
		}
	case core.KPolicy:
		tn := n.Get("targets")
		if tn != nil && tn.Kind == yamlsrc.Sequence {
			var out []*typeDef
			for i, it := range tn.Content {
				x := c.findType(t.f, core.KNode, it.Value)
				if x == nil {
					x = c.findType(t.f, core.KGroup, it.Value)
				}
				if x == nil || !it.IsString() {
					c.Errorf(it.Range, path+".targets["+core.Itoa(int64(i))+"]", core.CodeUnknownType, "policy target %s is no node or group type", it.Describe())
					continue
				}
				out = append(out, x)
			}
			t.targets = out
		} else if tn != nil && !tn.IsNull() {
			c.Errorf(tn.Range, path+".targets", core.CodeWrongKind, "targets must be a list, found %s", tn.Describe())
		}
		if tr := n.Get("triggers"); tr != nil && !tr.IsNull() && tr.Kind != yamlsrc.Mapping {
			c.Errorf(tr.Range, path+".triggers", core.CodeWrongKind, "triggers must be a map, found %s", tr.Describe())
		}
	case core.KArtifact:
		if fe := n.Get("file_ext"); fe != nil && !fe.IsNull() && fe.Kind != yamlsrc.Sequence {
			c.Errorf(fe.Range, path+".file_ext", core.CodeWrongKind, "file_ext must be a list, found %s", fe.Describe())
		}
	}
}

// typeNames resolves a list of type names.
func (c *compiler) typeNames(f *file, k core.Kind, n *yamlsrc.Node, path string) []*typeDef {
	if n == nil || n.IsNull() {
		return nil
	}
	if n.Kind != yamlsrc.Sequence {
		c.Errorf(n.Range, path, core.CodeWrongKind, "%s must be a list of %s names, found %s", path, k.Word(), n.Describe())
		return nil
	}
	var out []*typeDef
	for i, it := range n.Content {
		if t := c.typeRef(f, k, it, path+"["+core.Itoa(int64(i))+"]"); t != nil {
			out = append(out, t)
		}
	}
	return out
}

// readDataType reads what only data types have: schemas, validation
// and the scalar keynames.
func (c *compiler) readDataType(t *typeDef, n *yamlsrc.Node) {
	if v := n.Get("validation"); v != nil && c.clause(t.f, v, t.path+".validation") {
		t.validation = append(t.validation, v)
	}
	if es := n.Get("entry_schema"); es != nil {
		t.entry = c.readSchema(t.f, es, t.path+".entry_schema")
	}
	if ks := n.Get("key_schema"); ks != nil {
		t.keyS = c.readSchema(t.f, ks, t.path+".key_schema")
	}
	switch {
	case (t.base == "list" || t.base == "map") && t.entry == nil:
		c.Errorf(t.key, t.path, core.CodeMissingField, "data type %q derives from %s, so it needs an entry_schema (§9.2)", t.name, t.base)
	case t.base != "list" && t.base != "map" && n.Get("entry_schema") != nil:
		c.Errorf(t.key, t.path+".entry_schema", core.CodeUnknownField, "data type %q does not derive from list or map: entry_schema is not allowed (§9.2)", t.name)
	case t.base != "map" && n.Get("key_schema") != nil:
		c.Errorf(t.key, t.path+".key_schema", core.CodeUnknownField, "data type %q does not derive from map: key_schema is not allowed (§9.2)", t.name)
	}
	scalarKeys := []string{"data_type", "units", "canonical_unit", "prefixes"}
	if t.base != "scalar" {
		for _, k := range scalarKeys {
			if p, ok := n.GetPair(k); ok {
				c.Errorf(p.Key.Range, t.path+"."+k, core.CodeNativeExtended, "%s is a keyname of scalar types; data type %q does not derive from scalar", k, t.name)
			}
		}
		if t.base != "" && t.base != "list" && t.base != "map" {
			if p, ok := n.GetPair("properties"); ok {
				c.Errorf(p.Key.Range, t.path+".properties", core.CodeNativeExtended, "data type %q derives from %s, so it cannot define properties", t.name, t.base)
			}
		}
		return
	}
	if p, ok := n.GetPair("properties"); ok {
		c.Errorf(p.Key.Range, t.path+".properties", core.CodeNativeExtended, "scalar type %q cannot define properties (§9.1.2.2)", t.name)
	}
	c.readScalarDef(t, n)
}

// typeVersion checks the version keyname of a type: a TOSCA version
// (§6.4.1, §9.1.2.3), major.minor[.fix[.qualifier[-build]]].
func (c *compiler) typeVersion(v *yamlsrc.Node, path string) {
	if v.Kind != yamlsrc.Scalar {
		c.Errorf(v.Range, path, core.CodeWrongKind, "version must be a version string, found %s", v.Describe())
		return
	}
	if _, err := values.CoerceV2(values.Version, v); err != nil {
		c.Errorf(v.Range, path, core.CodeValue, "the version of a type must be a TOSCA version (§9.1.2.3): %v", err)
	}
}
