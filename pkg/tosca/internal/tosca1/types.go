package tosca1

// Phase 3 — types: namespaces, derivation hierarchies and inheritance.
//
// Errors detected here:
//   - a type section entry that is not a map, unknown keynames in a type definition
//     (tosca.wrong_kind, tosca.unknown_field)
//   - derived_from naming an unknown type of the same kind (tosca.unknown_parent)
//   - a derivation cycle (tosca.derivation_cycle)
//   - unknown data types in property, attribute, input and schema definitions; unknown capability,
//     node, relationship, interface and artifact types where a definition names one
//     (tosca.unknown_type)
//   - valid_source_types / valid_target_types / members / targets naming unknown types (tosca.unknown_type)
//   - a data type derived from a primitive that adds properties (tosca.native_type_extended)
//   - a refinement that changes a property's type incompatibly (tosca.incompatible_refinement)
//   - malformed property, capability, requirement, interface, operation and artifact definitions
//     (a capability definition without type is a warning inside type definitions), a data type
//     without a body, derived_from without a value
//     (tosca.wrong_kind, tosca.missing_field, tosca.unknown_field, tosca.occurrences)
//
// Normative types of the root template's version are declared first, so a
// user file may refine or redefine them (tosca-parser's behaviour). Normative
// types are also reachable by their short names ("Compute",
// "tosca:Compute"); types of a file imported with namespace_prefix p by
// "p:Name" and "p.Name", and so are those of the files it imports without
// a prefix, and p:q:Name those of a file it imports with prefix q
// (lookup, §3.6.8: the prefix applies to all the import brings in).

import (
	"slices"
	"strings"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
	"github.com/xosplan/xosplan/pkg/tosca/internal/values"
)

// typeKeys lists the keynames a 1.x type definition of the kind k may
// use.
func typeKeys(k kind) []string {
	common := []string{"derived_from", "version", "metadata", "description"}
	switch k {
	case kArtifact:
		return append(common, "mime_type", "file_ext", "properties")
	case kData:
		return append(common, "constraints", "properties", "key_schema", "entry_schema")
	case kCapability:
		return append(common, "properties", "attributes", "valid_source_types")
	case kRelationship:
		return append(common, "properties", "attributes", "interfaces", "valid_target_types")
	case kNode:
		return append(common, "properties", "attributes", "requirements", "capabilities", "interfaces", "artifacts")
	case kGroup:
		return append(common, "properties", "attributes", "members", "targets", "requirements", "capabilities", "interfaces")
	case kPolicy:
		return append(common, "properties", "targets", "triggers")
	}
	return nil // interface types: any other key is an operation
}

// typeDef is one declared type, with its inherited members merged in once
// resolved.
type typeDef struct {
	kind kind
	name string
	f    *file
	n    *yamlsrc.Node
	key  diag.Range
	path string

	parent *typeDef
	// base is the primitive a data type derives from ("string", "list", …),
	// "" for complex data types and other kinds.
	base string
	// state: 0 declared, 1 resolving, 2 resolved.
	state uint8
	// deriving is true while the parent chain is being resolved.
	deriving bool
	// depth is the number of ancestors.
	depth int
	// xos marks a relationship or capability type declared in node_types
	// (XOS's generator): its repeated definitions make valid_target_types
	// meaningless.
	xos   bool
	chain []string
	// incomplete is 1 + the index in diags of what makes the type's
	// definition incomplete (its parent, or an ancestor's, is unknown), 0
	// for a complete type: a member it seems to lack is a follow-on.
	incomplete int

	props, attrs map[string]*propDef
	caps         map[string]*capDef
	capOrder     []string
	reqs         []*reqDef
	ifaces       map[string]*ifaceDef
	ops          map[string]*opDef // interface types
	artifacts    map[string]*artifactDef
	validSources []*typeDef
	validTargets []*typeDef
	members      []*typeDef
	targets      []*typeDef
	constraints  []*values.Constraint
	entry, keyS  *propDef // data types derived from list/map
	sensitive    bool
	// tplAttrs caches templateAttrDefs (relattrs.go), secrets
	// secretPaths.
	tplAttrs *tplAttrDefs
	secrets  *typeSecrets
	// props, in the order of their names (propOrder).
	propsSorted []namedProp
}

// namedProp is a property definition and the name it is defined under.
type namedProp struct {
	name string
	def  *propDef
}

// propOrder returns t's property definitions sorted by name, computed
// once: a walk of every template's properties need not iterate a map.
func (t *typeDef) propOrder() []namedProp {
	if t.propsSorted == nil && len(t.props) > 0 {
		t.propsSorted = make([]namedProp, 0, len(t.props))
		for name, d := range t.props {
			t.propsSorted = append(t.propsSorted, namedProp{name, d})
		}
		slices.SortFunc(t.propsSorted, func(a, b namedProp) int { return strings.Compare(a.name, b.name) })
	}
	return t.propsSorted
}

// typeSecrets lists, sorted, the spec paths of a type's sensitive
// attributes ("attributes.<name>") and properties ("properties.<name>").
type typeSecrets struct {
	attrs, props []string
}

// secretPaths returns t's sensitive spec paths, computed once (the
// slices are shared: read only).
func (t *typeDef) secretPaths() *typeSecrets {
	if t.secrets == nil {
		ts := &typeSecrets{}
		for name, d := range t.props {
			if d.sensitive {
				ts.props = append(ts.props, "properties."+name)
			}
		}
		for name, d := range t.attrs {
			if d.sensitive {
				ts.attrs = append(ts.attrs, "attributes."+name)
			}
		}
		slices.Sort(ts.props)
		slices.Sort(ts.attrs)
		t.secrets = ts
	}
	return t.secrets
}

// tplAttrDefs is what templateAttrDefs computes once per type.
type tplAttrDefs struct {
	defs        map[string]*propDef
	withDefault bool
}

// propDef is a property, attribute, input or parameter definition, or an
// entry/key schema.
type propDef struct {
	name     string
	n        *yamlsrc.Node
	key      diag.Range
	typeName string
	// prim is the primitive kind of the value ("string", "integer", …,
	// "list", "map"), or "" for a complex data type (dt set).
	prim        string
	dt          *typeDef
	required    bool
	def         *yamlsrc.Node
	hasDefault  bool
	constraints []*values.Constraint
	entry, keyS *propDef
	status      string
	sensitive   bool
	// label is what a node template's property of this definition is
	// called in messages (propertyLabel), built once.
	label string
}

// propertyLabel returns `property "name"`, name being the key d is
// defined under, built once per definition rather than per template.
func (d *propDef) propertyLabel(name string) string {
	if name != d.name {
		return "property " + quote(name)
	}
	if d.label == "" {
		d.label = "property " + quote(name)
	}
	return d.label
}

type capDef struct {
	name         string
	typ          *typeDef
	n            *yamlsrc.Node
	props, attrs map[string]*propDef
	validSources []*typeDef
}

type reqDef struct {
	name     string
	n        *yamlsrc.Node
	capName  string
	capType  *typeDef
	nodeName string
	nodeType *typeDef
	relName  string
	relType  *typeDef
	min, max int // max < 0: UNBOUNDED
	// occurrences is set when the definition writes its occurrences
	// (otherwise min and max are the default [1, 1]).
	occurrences bool
}

type ifaceDef struct {
	name   string
	typ    *typeDef
	n      *yamlsrc.Node
	ops    map[string]*opDef
	inputs map[string]*yamlsrc.Node
}

type opDef struct {
	name   string
	n      *yamlsrc.Node
	impl   *yamlsrc.Node
	inputs map[string]*yamlsrc.Node
	// defs caches the input definitions among inputs (opInputDef).
	defs map[string]*propDef
}

type artifactDef struct {
	name string
	n    *yamlsrc.Node
	typ  *typeDef
	file string
	// fileNode is where file is written (the type's, for an artifact a
	// template refines without naming a file).
	fileNode *yamlsrc.Node
}

// declareAllTypes registers every type of every loaded file, normative
// first, imports before importers.
func (c *compiler) declareAllTypes() {
	for _, f := range c.order {
		if f.root == nil {
			continue
		}
		for k := kind(0); k < numKinds; k++ {
			sec := f.root.Get(k.Section())
			for _, p := range sec.Pairs() {
				c.declare(f, k, p)
			}
		}
	}
}

func (c *compiler) declare(f *file, k kind, p yamlsrc.Pair) {
	name := p.Key.Value
	path := k.Section() + "." + name
	if p.Value.Kind != yamlsrc.Mapping && !p.Value.IsNull() {
		c.errorf(p.Value.Range, path, core.CodeWrongKind, "%s %q must be a map, found %s", k.Word(), name, p.Value.Describe())
		return
	}
	if k == kData && p.Value.IsNull() && !f.normative {
		// §3.7.6: a data type is a map (of at least derived_from or
		// properties); one without a body is a definition lost to
		// indentation. It is declared all the same, so that its uses are
		// not reported again.
		c.errorf(p.Key.Range, path, core.CodeWrongKind, "data type %q has no definition: a data type is a map (derived_from, properties, constraints…), found null", name)
	}
	xos := false
	if k == kNode {
		// XOS declares its relationship and capability types inside
		// node_types; classify them by what they derive from.
		parent := p.Value.Get("derived_from")
		if parent != nil {
			switch {
			case strings.HasPrefix(parent.Value, "tosca.relationships."):
				k, xos = kRelationship, true
			case strings.HasPrefix(parent.Value, "tosca.capabilities."):
				k, xos = kCapability, true
			}
		}
	}
	if f.nonNormative && c.ns[k][name] != nil {
		// The version's normative file defines it already (1.0's
		// tosca-parser extras): that definition stays.
		return
	}
	t := &typeDef{kind: k, name: name, f: f, n: p.Value, key: p.Key.Range, path: path, xos: xos}
	if prev, ok := c.ns[k][name]; ok && prev.name == name && !prev.f.normative && prev.f != f {
		if !xos {
			c.warnf(p.Key.Range, path, core.CodeTypeRedefined, "%s %q is already defined in %s; this definition replaces it", k.Word(), name, c.Display(prev.f.name))
		}
	}
	c.ns[k][name] = t
	c.declared = append(c.declared, t)
	if f.normative {
		rest := strings.TrimPrefix(name, k.NormPrefix())
		last := name[strings.LastIndexByte(name, '.')+1:]
		// "tosca:" qualified names are accepted in every version: the
		// 1.0 and 1.1 examples of the Puccini corpus use them, and no
		// user type can be named so.
		for _, alias := range []string{rest, last, "tosca:" + rest, "tosca:" + last} {
			if _, taken := c.ns[k][alias]; !taken {
				c.ns[k][alias] = t
			}
		}
	}
	for _, pre := range f.prefixes() {
		c.ns[k][pre+":"+name] = t
		c.ns[k][pre+"."+name] = t
	}
}

// lookup finds a type of a kind by any of its names.
func (c *compiler) lookup(k kind, name string) *typeDef {
	if t := c.ns[k][name]; t != nil || !strings.ContainsAny(name, ":.") {
		return t
	}
	// 1.x has one namespace: a prefix names the same files wherever it
	// is written, as declare's direct p:Name aliases do.
	seen := map[qualifiedStep]bool{}
	for _, f := range c.order {
		if t := c.qualified(k, f, name, seen); t != nil {
			c.ns[k][name] = t
			return t
		}
	}
	return nil
}

// qualified resolves a name qualified by namespace prefixes through the
// imports of file f (TOSCA 1.3 §3.6.8: the prefix applies to the
// definitions an import brings in, which include those of the imported
// file's own imports): p:Name (or p.Name), where f imports a file with
// namespace_prefix p, names a type that file brings in: its own, or one
// of a file it imports in turn, without a prefix (p:Name) or with prefix
// q (p:q:Name). declare adds the direct p:Name aliases; this finds those
// through imports of imports.
func (c *compiler) qualified(k kind, f *file, name string, seen map[qualifiedStep]bool) *typeDef {
	for _, im := range f.imported {
		if im.prefix == "" {
			continue
		}
		for _, sep := range []string{":", "."} {
			if rest, ok := strings.CutPrefix(name, im.prefix+sep); ok {
				if t := c.inImport(k, im.to, rest, seen); t != nil {
					return t
				}
			}
		}
	}
	return nil
}

// inImport resolves name among the types an import of f brings in: those
// of f and of the files it imports without a prefix, and, qualified
// again, those of the files they import with one. Each step takes one
// prefix off the name and is taken once (seen), so the walk ends, in at
// most files × prefixes steps, however the files import each other.
func (c *compiler) inImport(k kind, f *file, name string, seen map[qualifiedStep]bool) *typeDef {
	if seen[qualifiedStep{f, name}] {
		return nil
	}
	seen[qualifiedStep{f, name}] = true
	closure := unprefixedClosure(f)
	if t := c.ns[k][name]; t != nil && t.name == name && slices.Contains(closure, t.f) {
		return t
	}
	for _, g := range closure {
		if t := c.qualified(k, g, name, seen); t != nil {
			return t
		}
	}
	return nil
}

// qualifiedStep is a file and the part of a qualified name left to
// resolve through its imports.
type qualifiedStep struct {
	f    *file
	name string
}

// unprefixedClosure is f and the files it imports without a prefix,
// transitively: the files whose types f brings into its own namespace.
func unprefixedClosure(f *file) []*file {
	out := []*file{f}
	for i := 0; i < len(out); i++ {
		for _, im := range out[i].imported {
			if im.prefix == "" && !slices.Contains(out, im.to) {
				out = append(out, im.to)
			}
		}
	}
	return out
}

// lookupRef resolves a type reference, reporting an unknown one, for
// which it returns a placeholder (see placeholder).
func (c *compiler) lookupRef(k kind, n *yamlsrc.Node, path string) *typeDef {
	if n.IsNull() {
		return nil
	}
	if n.Kind != yamlsrc.Scalar {
		c.errorf(n.Range, path, core.CodeWrongKind, "a %s name must be a string, found %s", k.Word(), n.Describe())
		return nil
	}
	t := c.lookup(k, n.Value)
	if t == nil {
		// Inside type definitions tosca-parser leaves capability and
		// artifact type names unresolved (XOS 3.x type files name
		// capability types they never declare): a warning there. An
		// interface type stays an error (§3.6.21: an interface definition
		// names a declared interface type): without it no operation
		// assigned on the interface can be checked.
		at := c.unknownType(k, n, path, k != kInterface, "unknown %s %q", k.Word(), n.Value)
		return c.placeholder(k, n.Value, at)
	}
	c.resolveType(t)
	c.noteType(n, t)
	return t
}

// placeholder stands for a type name that is not defined, reported by
// the diagnostic at index cause: an incomplete type without members, so
// that what a definition or template of it seems to lack is a follow-on
// of that report. It is never declared.
func (c *compiler) placeholder(k kind, name string, cause int) *typeDef {
	t := &typeDef{kind: k, name: name, state: 2, incomplete: cause + 1, chain: []string{name}}
	c.inherit(t)
	return t
}

func (c *compiler) resolveAllTypes() {
	for _, t := range c.declared {
		// A definition replaced by a later one of the same name (a
		// repeated key, or a redefinition in another file) is never used.
		if c.ns[t.kind][t.name] != t {
			continue
		}
		c.resolveType(t)
	}
}

// resolveType resolves the parent chain of t and merges inherited
// definitions. Each type is resolved once.
func (c *compiler) resolveType(t *typeDef) {
	if t.state != 0 {
		// 1 = in progress: a data type may use itself in a property.
		return
	}
	t.state = 1
	saved, savedVersion := c.inTypes, c.readingVersion
	c.inTypes, c.readingVersion = true, t.f.version
	if t.f.normative {
		c.readingVersion = version13
	}
	defer func() { t.state, c.inTypes, c.readingVersion = 2, saved, savedVersion }()
	t.deriving = true
	n := t.n
	if n.IsNull() {
		n = &yamlsrc.Node{Kind: yamlsrc.Mapping, Range: t.key}
	}
	if keys := typeKeys(t.kind); keys != nil && !t.f.normative {
		c.checkKeys(n, t.path, t.kind.Word()+" "+quote(t.name), keys...)
	}
	if pn := n.Get("derived_from"); pn != nil && pn.IsNull() && !t.f.normative {
		// §3.7.1: derived_from names the parent type; written without
		// one, the type derives from nothing it meant to.
		c.errorf(pn.Range, t.path+".derived_from", core.CodeWrongKind, "derived_from must name a %s, found %s", t.kind.Word(), pn.Describe())
	}
	if pn := n.Get("derived_from"); pn != nil && !pn.IsNull() {
		switch {
		case t.kind == kData && (isPrimitive(pn.Value)):
			t.base = primName(pn.Value)
		case pn.Value == t.name:
			c.errorf(pn.Range, t.path+".derived_from", core.CodeDerivationCycle, "%s %q derives from itself", t.kind.Word(), t.name)
		default:
			p := c.lookup(t.kind, pn.Value)
			switch {
			case p == nil:
				t.incomplete = 1 + c.unknownParent(t, pn)
			case p.deriving:
				c.errorf(pn.Range, t.path+".derived_from", core.CodeDerivationCycle, "%s %q derives from %q, which derives from it", t.kind.Word(), t.name, pn.Value)
			default:
				c.resolveType(p)
				if p.depth >= maxDerivationDepth {
					c.errorf(pn.Range, t.path+".derived_from", core.CodeTooDeep, "%s %q derives through more than %d types", t.kind.Word(), t.name, maxDerivationDepth)
					break
				}
				t.parent = p
				c.noteType(pn, p)
				t.base = p.base
				t.depth = p.depth + 1
				t.incomplete = p.incomplete
			}
		}
	}
	t.deriving = false
	t.chain = append([]string{t.name}, c.chainOf(t.parent)...)
	c.inherit(t)
	c.readTypeBody(t, n)
}

// chainOf returns a type's name and its ancestors' names.
func (c *compiler) chainOf(t *typeDef) []string {
	if t == nil {
		return nil
	}
	if t.chain != nil {
		return t.chain
	}
	var out []string
	for s := t; s != nil && len(out) < 64; s = s.parent {
		out = append(out, s.name)
	}
	return out
}

// derives reports whether t is anc or derives from it.
func (c *compiler) derives(t, anc *typeDef) bool {
	for i := 0; t != nil && i < 64; i++ {
		if t == anc {
			return true
		}
		t = t.parent
	}
	return false
}

// derivesName reports whether t is or derives from a type of the given name
// (any alias).
func (c *compiler) derivesName(t *typeDef, name string) bool {
	if t == nil {
		return false
	}
	if anc := c.lookup(t.kind, name); anc != nil {
		return c.derives(t, anc)
	}
	for _, n := range c.chainOf(t) {
		if n == name {
			return true
		}
	}
	return false
}

// inherit copies the parent's definitions; own definitions are read over
// them afterwards.
func (c *compiler) inherit(t *typeDef) {
	p := t.parent
	cp := func(m map[string]*propDef) map[string]*propDef {
		out := make(map[string]*propDef, len(m)+4)
		for k, v := range m {
			out[k] = v
		}
		return out
	}
	if p == nil {
		t.props, t.attrs = map[string]*propDef{}, map[string]*propDef{}
		t.caps, t.ifaces, t.ops, t.artifacts = map[string]*capDef{}, map[string]*ifaceDef{}, map[string]*opDef{}, map[string]*artifactDef{}
		return
	}
	t.props, t.attrs = cp(p.props), cp(p.attrs)
	t.caps = make(map[string]*capDef, len(p.caps))
	for k, v := range p.caps {
		t.caps[k] = v
	}
	t.capOrder = append([]string(nil), p.capOrder...)
	t.reqs = append([]*reqDef(nil), p.reqs...)
	t.ifaces = make(map[string]*ifaceDef, len(p.ifaces))
	for k, v := range p.ifaces {
		t.ifaces[k] = v
	}
	t.ops = make(map[string]*opDef, len(p.ops))
	for k, v := range p.ops {
		t.ops[k] = v
	}
	t.artifacts = make(map[string]*artifactDef, len(p.artifacts))
	for k, v := range p.artifacts {
		t.artifacts[k] = v
	}
	t.validSources, t.validTargets = p.validSources, p.validTargets
	t.members, t.targets = p.members, p.targets
	t.constraints = append([]*values.Constraint(nil), p.constraints...)
	t.entry, t.keyS = p.entry, p.keyS
}

func (c *compiler) readTypeBody(t *typeDef, n *yamlsrc.Node) {
	path := t.path
	if md := n.Get("metadata"); md != nil {
		c.ReadMetadata(md, path+".metadata", false)
		if s := md.Get("sensitive"); s != nil && strings.EqualFold(s.Value, "true") {
			t.sensitive = true
		}
	}
	// Values of a credential data type hold secrets.
	if t.kind == kData && (t.name == "tosca.datatypes.Credential" || (t.parent != nil && t.parent.sensitive)) {
		t.sensitive = true
	}
	if props := n.Get("properties"); props != nil {
		if t.kind == kData && t.base != "" && len(props.Content) > 0 {
			c.errorf(keyAt(n, "properties", props.Range), path+".properties", core.CodeNativeExtended, "data type %q derives from the primitive type %q and cannot add properties", t.name, t.base)
		}
		c.readPropDefs(t.props, props, path+".properties", "property", true)
	}
	if attrs := n.Get("attributes"); attrs != nil {
		c.readPropDefs(t.attrs, attrs, path+".attributes", "attribute", false)
	}
	if t.kind == kArtifact {
		c.checkFileExt(n.Get("file_ext"), path+".file_ext")
	}
	if t.kind == kData {
		typ := t.base
		if cs := n.Get("constraints"); cs != nil {
			t.constraints = append(t.constraints, c.readConstraints(cs, typ, path+".constraints")...)
		}
		if es := n.Get("entry_schema"); es != nil {
			t.entry = c.readSchema(es, path+".entry_schema")
		}
		if ks := n.Get("key_schema"); ks != nil {
			t.keyS = c.readSchema(ks, path+".key_schema")
		}
	}
	if caps := n.Get("capabilities"); caps != nil {
		c.readCapDefs(t, caps, path+".capabilities")
	}
	if reqs := n.Get("requirements"); reqs != nil {
		c.readReqDefs(t, reqs, path+".requirements")
	}
	if ifs := n.Get("interfaces"); ifs != nil {
		c.readIfaceDefs(t.ifaces, ifs, path+".interfaces")
	}
	if arts := n.Get("artifacts"); arts != nil {
		c.readArtifactDefs(t, arts, path+".artifacts")
	}
	if t.kind == kInterface {
		c.readInterfaceTypeOps(t, n)
	}
	if vs := n.Get("valid_source_types"); vs != nil {
		t.validSources = c.typeList(kNode, vs, path+".valid_source_types", "valid_source_types")
	}
	if vt := n.Get("valid_target_types"); vt != nil {
		t.validTargets = c.typeList(kCapability, vt, path+".valid_target_types", "valid_target_types")
	}
	if m := n.Get("members"); m != nil {
		t.members = c.typeList(kNode, m, path+".members", "members")
	}
	if tg := n.Get("targets"); tg != nil {
		t.targets = c.typeList(kNode, tg, path+".targets", "targets")
	}
}

// checkFileExt checks an artifact type's file_ext: a list of file
// extensions (TOSCA 1.3 §3.7.4.1), each one name ("tar.gz" is one) without
// a separator. A string ("jar,war") is not a list.
func (c *compiler) checkFileExt(n *yamlsrc.Node, path string) {
	if n.IsNull() {
		return
	}
	if n.Kind != yamlsrc.Sequence {
		c.errorf(n.Range, path, core.CodeWrongKind, "file_ext must be a list of file extensions, found %s", describeValue(n))
		return
	}
	for _, it := range n.Content {
		if it.Kind != yamlsrc.Scalar || it.IsNull() || it.Value == "" || strings.ContainsAny(it.Value, ",;/\\ \t") {
			c.errorf(it.Range, path, core.CodeValue, "file_ext entry %s is not one file extension", describeValue(it))
		}
	}
}

// typeList resolves a list of type names; policy targets may also name
// group types.
func (c *compiler) typeList(k kind, n *yamlsrc.Node, path, what string) []*typeDef {
	names := c.strList(n, path, what)
	out := make([]*typeDef, 0, len(names))
	for i, name := range names {
		t := c.lookup(k, name)
		if t == nil && what == "targets" {
			t = c.lookup(kGroup, name)
		}
		if t == nil {
			at := n.Range
			if n.Kind == yamlsrc.Sequence && i < len(n.Content) {
				at = n.Content[i].Range
			}
			// XOS type files name capability types of valid_target_types
			// declared in sibling files that a recipe imports alongside;
			// tosca-parser does not resolve these names.
			ref := &yamlsrc.Node{Kind: yamlsrc.Scalar, Value: name, Range: at}
			saved := c.inTypes
			c.inTypes = what == "valid_target_types"
			c.unknownType(k, ref, path, true, "%s names unknown %s %q", what, k.Word(), name)
			c.inTypes = saved
			continue
		}
		out = append(out, t)
	}
	return out
}

func (c *compiler) readPropDefs(into map[string]*propDef, n *yamlsrc.Node, path, what string, isProp bool) {
	if n.IsNull() {
		return
	}
	if n.Kind != yamlsrc.Mapping {
		c.errorf(n.Range, path, core.CodeWrongKind, "%s definitions must be a map, found %s", what, n.Describe())
		return
	}
	for _, p := range n.Pairs() {
		prev := into[p.Key.Value]
		d := c.readPropDef(p.Key, p.Value, joinPath(path, p.Key.Value), what, isProp, prev)
		if d != nil {
			into[p.Key.Value] = d
		}
	}
}

// propDefKeys lists keynames the grammar allows; a function so that no
// package-level slice can be changed.
func propDefKeys() []string {
	return []string{"type", "description", "required", "default", "status", "constraints",
		"key_schema", "entry_schema", "metadata", "external-schema", "value", "title"}
}

// readPropDef reads one property/attribute/input definition; prev is the
// inherited definition it refines, if any.
func (c *compiler) readPropDef(key, n *yamlsrc.Node, path, what string, isProp bool, prev *propDef) *propDef {
	if n.Kind != yamlsrc.Mapping {
		c.lenientf(n.Range, path, core.CodeWrongKind, "%s definition %q must be a map, found %s", what, key.Value, n.Describe())
		return nil
	}
	c.checkKeys(n, path, what+" definition "+quote(key.Value), propDefKeys()...)
	c.checkNewer(n, "definition", path)
	d := &propDef{name: key.Value, n: n, key: key.Range, required: isProp}
	tn := n.Get("type")
	switch {
	case tn != nil && !tn.IsNull():
		c.setPropType(d, tn, path+".type")
	case prev != nil:
		d.typeName, d.prim, d.dt, d.entry, d.keyS = prev.typeName, prev.prim, prev.dt, prev.entry, prev.keyS
		d.constraints = prev.constraints
	case what == "input":
		// 1.3 §3.6.14 (1.0 §3.5.12): a parameter definition may leave
		// its type out ("required for a TOSCA Property definition, but
		// is not for a TOSCA Parameter definition").
	default:
		// §3.6.10, §3.6.12: type is required in property and attribute
		// definitions, in type definitions as in templates (1.3 §3.6.14
		// leaves it optional only in parameter definitions).
		c.errorf(key.Range, path, core.CodeMissingField, "%s definition %q is missing required field \"type\"", what, key.Value)
	}
	if prev != nil && tn != nil && d.typeName != "" && prev.typeName != "" && !c.compatible(prev, d) {
		c.errorf(tn.Range, path+".type", core.CodeIncompatibleRefinement, "%s %q refines type %q as incompatible type %q", what, key.Value, prev.typeName, d.typeName)
	}
	if r := n.Get("required"); r != nil {
		if b, err := values.Coerce("boolean", r); err == nil {
			d.required, _ = b.(bool)
		} else if !r.IsNull() {
			c.errorf(r.Range, path+".required", core.CodeWrongKind, "required must be a boolean, found %s", r.Describe())
		}
	}
	if s, sn := c.str(n, path, "status"); sn != nil {
		switch s {
		case "supported", "unsupported", "experimental", "deprecated":
			d.status = s
		default:
			c.errorf(sn.Range, path+".status", core.CodeStatus, "status must be supported, unsupported, experimental or deprecated, found %q", s)
		}
	}
	if cs := n.Get("constraints"); cs != nil {
		d.constraints = append(append([]*values.Constraint(nil), d.constraints...), c.readConstraints(cs, d.prim, path+".constraints")...)
	}
	if es := n.Get("entry_schema"); es != nil {
		d.entry = c.readSchema(es, path+".entry_schema")
	}
	if ks := n.Get("key_schema"); ks != nil {
		d.keyS = c.readSchema(ks, path+".key_schema")
	}
	if (d.prim == "list" || d.prim == "map") && d.entry == nil && d.dt == nil && tn != nil {
		// entry_schema is optional in practice (tosca-parser accepts its
		// absence): entries are then unchecked.
		d.entry = nil
	}
	if md := n.Get("metadata"); md != nil && md.Kind == yamlsrc.Mapping {
		if s := md.Get("sensitive"); s != nil {
			if b, ok := s.Bool(); (ok && b) || s.Value == "true" {
				d.sensitive = true
			}
		}
	}
	if d.dt != nil && d.dt.sensitive {
		d.sensitive = true
	}
	if def, ok := n.GetPair("default"); ok {
		d.def, d.hasDefault = def.Value, !def.Value.IsNull()
	} else if prev != nil {
		d.def, d.hasDefault = prev.def, prev.hasDefault
	}
	return d
}

// compatible reports whether a refinement keeps a compatible type: the
// same primitive, or a data type derived from the original.
func (c *compiler) compatible(prev, d *propDef) bool {
	switch {
	case prev.dt != nil && d.dt != nil:
		return c.derives(d.dt, prev.dt) || c.derives(prev.dt, d.dt)
	case prev.dt == nil && d.dt == nil:
		return prev.prim == d.prim || numeric(prev.prim) && numeric(d.prim)
	}
	return true
}

func numeric(p string) bool { return p == "integer" || p == "float" }

// setPropType resolves a definition's type keyname.
func (c *compiler) setPropType(d *propDef, tn *yamlsrc.Node, path string) {
	if tn.Kind != yamlsrc.Scalar {
		c.errorf(tn.Range, path, core.CodeWrongKind, "type must be a string, found %s", tn.Describe())
		return
	}
	d.typeName = tn.Value
	if isPrimitive(tn.Value) {
		d.prim = primName(tn.Value)
		return
	}
	if legacyInteger(tn.Value) && c.lookup(kData, tn.Value) == nil {
		c.warnf(tn.Range, path, core.CodeLegacyType, "%q is not a TOSCA type; read as integer (XOS xproto and Tacker type files use it)", tn.Value)
		d.prim = "integer"
		return
	}
	dt := c.lookup(kData, tn.Value)
	if dt == nil {
		c.unknownType(kData, tn, path, false, "unknown data type %q", tn.Value)
		return
	}
	c.resolveType(dt)
	c.noteType(tn, dt)
	d.dt = dt
	d.prim = dt.base
	d.constraints = dt.constraints
	if dt.entry != nil {
		d.entry = dt.entry
	}
	if dt.keyS != nil {
		d.keyS = dt.keyS
	}
}

// isPrimitive covers the TOSCA primitive types and the list/map
// collections, in plain and "tosca:" forms.
func isPrimitive(t string) bool {
	t = primName(t)
	return t == "list" || t == "map" || values.IsPrimitive(t)
}

// legacyInteger names integer types of protobuf/xproto origin that real
// type files use instead of TOSCA's integer.
func legacyInteger(t string) bool {
	switch t {
	case "int", "int32", "int64", "uint32", "uint64":
		return true
	}
	return false
}

func primName(t string) string {
	return strings.TrimPrefix(t, "tosca:")
}

func (c *compiler) readSchema(n *yamlsrc.Node, path string) *propDef {
	d := &propDef{name: "entry", n: n, key: n.Range, required: true}
	switch {
	case n.IsNull():
		// An empty entry_schema (a slip of indentation in real type
		// files): entries are unchecked.
		c.lenientf(n.Range, path, core.CodeWrongKind, "a schema must be a type name or a map, found null")
		return nil
	case n.Kind == yamlsrc.Scalar:
		c.setPropType(d, n, path)
	case n.Kind == yamlsrc.Mapping:
		c.checkKeys(n, path, "schema definition", "type", "description", "constraints", "entry_schema", "key_schema")
		tn := n.Get("type")
		if tn == nil || tn.IsNull() {
			// §3.6.9: a schema definition's type is required, in type
			// definitions as in templates.
			c.errorf(n.Range, path, core.CodeMissingField, "schema definition is missing required field \"type\"")
			return nil
		}
		c.setPropType(d, tn, path+".type")
		if cs := n.Get("constraints"); cs != nil {
			d.constraints = append(append([]*values.Constraint(nil), d.constraints...), c.readConstraints(cs, d.prim, path+".constraints")...)
		}
		if es := n.Get("entry_schema"); es != nil {
			d.entry = c.readSchema(es, path+".entry_schema")
		}
		if ks := n.Get("key_schema"); ks != nil {
			d.keyS = c.readSchema(ks, path+".key_schema")
		}
	default:
		c.errorf(n.Range, path, core.CodeWrongKind, "a schema must be a type name or a map, found %s", n.Describe())
		return nil
	}
	return d
}

func (c *compiler) readConstraints(n *yamlsrc.Node, typ, path string) []*values.Constraint {
	if n.IsNull() {
		return nil
	}
	if n.Kind != yamlsrc.Sequence {
		c.errorf(n.Range, path, core.CodeWrongKind, "constraints must be a list, found %s", n.Describe())
		return nil
	}
	out := make([]*values.Constraint, 0, len(n.Content))
	for _, it := range n.Content {
		cons, ds := values.ParseConstraint(it, typ)
		for i := range ds {
			if ds[i].Path == "" {
				ds[i].Path = path
			}
		}
		c.Diags = c.Diags.Extend(ds)
		if cons != nil {
			out = append(out, cons)
		}
	}
	return out
}

// capDefKeys lists keynames the grammar allows; a function so that no
// package-level slice can be changed.
func capDefKeys() []string {
	return []string{"type", "description", "properties", "attributes", "valid_source_types", "occurrences"}
}

func (c *compiler) readCapDefs(t *typeDef, n *yamlsrc.Node, path string) {
	if n.Kind != yamlsrc.Mapping {
		if !n.IsNull() {
			c.errorf(n.Range, path, core.CodeWrongKind, "capabilities must be a map, found %s", n.Describe())
		}
		return
	}
	for _, p := range n.Pairs() {
		cp := joinPath(path, p.Key.Value)
		d := &capDef{name: p.Key.Value, n: p.Value}
		prev := t.caps[d.name]
		var tn *yamlsrc.Node
		switch {
		case p.Value.Kind == yamlsrc.Scalar && !p.Value.IsNull():
			tn = p.Value
		case p.Value.Kind == yamlsrc.Mapping:
			c.checkKeys(p.Value, cp, "capability definition "+quote(d.name), capDefKeys()...)
			tn = p.Value.Get("type")
		case p.Value.IsNull():
			// An empty definition (a type left out, or a value lost to
			// indentation): read as one without type below.
		default:
			c.errorf(p.Value.Range, cp, core.CodeWrongKind, "capability definition %q must be a type name or a map, found %s", d.name, p.Value.Describe())
			continue
		}
		switch {
		case tn != nil && !tn.IsNull():
			d.typ = c.lookupRef(kCapability, tn, cp+".type")
		case prev != nil:
			d.typ = prev.typ
		default:
			// Grammar inside type definitions, as a property definition
			// without type: the capability offers nothing to match.
			c.lenientf(p.Key.Range, cp, core.CodeMissingField, "capability definition %q is missing required field \"type\"", d.name)
		}
		if d.typ != nil {
			d.props, d.attrs = d.typ.props, d.typ.attrs
			d.validSources = d.typ.validSources
		}
		if p.Value.Kind == yamlsrc.Mapping {
			if pr := p.Value.Get("properties"); pr != nil {
				d.props = cloneProps(d.props)
				c.readPropDefs(d.props, pr, cp+".properties", "property", true)
			}
			if at := p.Value.Get("attributes"); at != nil {
				d.attrs = cloneProps(d.attrs)
				c.readPropDefs(d.attrs, at, cp+".attributes", "attribute", false)
			}
			if vs := p.Value.Get("valid_source_types"); vs != nil {
				d.validSources = c.typeList(kNode, vs, cp+".valid_source_types", "valid_source_types")
			}
			if oc := p.Value.Get("occurrences"); oc != nil {
				// Checked for form only: xosplan creates one instance per
				// template, so a capability's occurrences never bind.
				c.readOccurrences(oc, cp+".occurrences")
			}
		}
		if prev == nil {
			t.capOrder = append(t.capOrder, d.name)
		}
		t.caps[d.name] = d
	}
}

func cloneProps(m map[string]*propDef) map[string]*propDef {
	out := make(map[string]*propDef, len(m)+2)
	for k, v := range m {
		out[k] = v
	}
	return out
}

// readOccurrences reads [min, max]; max UNBOUNDED is -1.
func (c *compiler) readOccurrences(n *yamlsrc.Node, path string) (int, int, bool) {
	if n.Kind != yamlsrc.Sequence {
		c.errorf(n.Range, path, core.CodeOccurrences, "occurrences must be a list of two values, found %s", n.Describe())
		return 1, 1, false
	}
	if len(n.Content) != 2 {
		c.errorf(n.Range, path, core.CodeOccurrences, "occurrences must be a list of two values, found %d", len(n.Content))
		return 1, 1, false
	}
	lo, ok1 := n.Content[0].Int()
	var hi int64
	ok2 := true
	if n.Content[1].Value == "UNBOUNDED" {
		hi = -1
	} else {
		hi, ok2 = n.Content[1].Int()
	}
	switch {
	case !ok1 || !ok2:
		bad := n.Content[0]
		if ok1 {
			bad = n.Content[1]
		}
		c.errorf(bad.Range, path, core.CodeOccurrences, "occurrences bound %q is not an integer", bad.Value)
		return 1, 1, false
	case lo < 0 || hi == 0 || (hi > 0 && hi < lo) || (hi < 0 && n.Content[1].Value != "UNBOUNDED"):
		c.errorf(n.Range, path, core.CodeOccurrences, "occurrences [%s, %s] are invalid: need 0 <= min <= max and max > 0", n.Content[0].Value, n.Content[1].Value)
		return 1, 1, false
	}
	return int(lo), int(hi), true
}

// reqDefKeys lists keynames the grammar allows; a function so that no
// package-level slice can be changed.
func reqDefKeys() []string {
	return []string{"capability", "node", "relationship", "occurrences", "description", "node_filter"}
}

func (c *compiler) readReqDefs(t *typeDef, n *yamlsrc.Node, path string) {
	if n.Kind != yamlsrc.Sequence {
		if !n.IsNull() {
			c.errorf(n.Range, path, core.CodeWrongKind, "requirements must be a list, found %s", n.Describe())
		}
		return
	}
	for i, it := range n.Content {
		ip := path + "[" + itoa(int64(i)) + "]"
		if it.Kind != yamlsrc.Mapping || len(it.Content) != 2 {
			c.errorf(it.Range, ip, core.CodeWrongKind, "a requirement definition must be a map with one key, found %s", it.Describe())
			continue
		}
		name, v := it.Content[0].Value, it.Content[1]
		rp := joinPath(ip, name)
		d := &reqDef{name: name, n: it, min: 1, max: 1}
		switch {
		case v.Kind == yamlsrc.Scalar && !v.IsNull():
			d.capName = v.Value
		case v.Kind == yamlsrc.Mapping:
			c.checkKeys(v, rp, "requirement definition "+quote(name), reqDefKeys()...)
			d.capName, _ = c.str(v, rp, "capability")
			d.nodeName, _ = c.str(v, rp, "node")
			if rel := v.Get("relationship"); rel != nil {
				switch {
				case rel.Kind == yamlsrc.Scalar:
					d.relName = rel.Value
				case rel.Kind == yamlsrc.Mapping:
					d.relName, _ = c.str(rel, rp+".relationship", "type")
				}
			}
			if oc := v.Get("occurrences"); oc != nil {
				d.min, d.max, d.occurrences = c.readOccurrences(oc, rp+".occurrences")
			}
		default:
			c.errorf(v.Range, rp, core.CodeWrongKind, "requirement definition %q must be a capability type or a map, found %s", name, v.Describe())
			continue
		}
		// tosca-parser accepts requirement definitions whose types are
		// declared only by the template that imports them; an unresolved
		// name is reported when a template uses the requirement.
		if d.capName != "" {
			d.capType = c.lookup(kCapability, d.capName)
		}
		if d.nodeName != "" {
			d.nodeType = c.lookup(kNode, d.nodeName)
		}
		if d.relName != "" {
			d.relType = c.lookup(kRelationship, d.relName)
		}
		for _, x := range []*typeDef{d.capType, d.nodeType, d.relType} {
			if x != nil {
				c.resolveType(x)
			}
		}
		replaced := false
		for j, r := range t.reqs {
			if r.name == name {
				t.reqs[j] = d
				replaced = true
				break
			}
		}
		if !replaced {
			t.reqs = append(t.reqs, d)
		}
	}
}

// reqDefOf returns the type's requirement definition by name.
func (t *typeDef) reqDefOf(name string) *reqDef {
	for _, r := range t.reqs {
		if r.name == name {
			return r
		}
	}
	return nil
}

// standardInterface returns the normative interface type an interface
// name implies when its definition leaves the type out.
func standardInterface(name string) string {
	switch name {
	case "Standard", "tosca.interfaces.node.lifecycle.Standard":
		return "tosca.interfaces.node.lifecycle.Standard"
	case "Configure", "tosca.interfaces.relationship.Configure":
		return "tosca.interfaces.relationship.Configure"
	}
	return ""
}

func (c *compiler) readIfaceDefs(into map[string]*ifaceDef, n *yamlsrc.Node, path string) {
	if n.Kind != yamlsrc.Mapping {
		if !n.IsNull() {
			c.errorf(n.Range, path, core.CodeWrongKind, "interfaces must be a map, found %s", n.Describe())
		}
		return
	}
	for _, p := range n.Pairs() {
		ip := joinPath(path, p.Key.Value)
		prev := into[p.Key.Value]
		d := &ifaceDef{name: p.Key.Value, n: p.Value, ops: map[string]*opDef{}, inputs: map[string]*yamlsrc.Node{}}
		if p.Value.Kind != yamlsrc.Mapping && !p.Value.IsNull() {
			c.errorf(p.Value.Range, ip, core.CodeWrongKind, "interface definition %q must be a map, found %s", d.name, p.Value.Describe())
			continue
		}
		tn := p.Value.Get("type")
		switch {
		case tn != nil && !tn.IsNull():
			d.typ = c.lookupRef(kInterface, tn, ip+".type")
		case prev != nil:
			d.typ = prev.typ
		case standardInterface(d.name) != "":
			d.typ = c.lookup(kInterface, standardInterface(d.name))
		default:
			c.errorf(p.Key.Range, ip, core.CodeMissingField, "interface definition %q is missing required field \"type\"", d.name)
		}
		if d.typ != nil {
			c.resolveType(d.typ)
			for k, v := range d.typ.ops {
				d.ops[k] = v
			}
		}
		if prev != nil {
			for k, v := range prev.ops {
				// The old interface type's own definition gives way to the
				// new type's; refinements made by the parent node type stay.
				if d.typ != prev.typ && prev.typ != nil && prev.typ.ops[k] == v && d.ops[k] != nil {
					continue
				}
				d.ops[k] = v
			}
			for k, v := range prev.inputs {
				d.inputs[k] = v
			}
		}
		for _, q := range p.Value.Get("inputs").Pairs() {
			d.inputs[q.Key.Value] = q.Value
		}
		c.readOpDefs(d.ops, p.Value, ip)
		into[d.name] = d
	}
}

// readOpDefs reads the operation definitions of an interface definition or
// interface type: keys under `operations` (1.3) and any key that is not
// interface metadata (1.0–1.2).
func (c *compiler) readOpDefs(into map[string]*opDef, n *yamlsrc.Node, path string) {
	add := func(p yamlsrc.Pair, op string, listed bool) {
		d := &opDef{name: p.Key.Value, n: p.Value}
		switch {
		case p.Value.IsNull():
		case p.Value.Kind == yamlsrc.Sequence && len(p.Value.Content) == 0:
			c.warnEmptyOperation(p.Value, op, "operation definition", d.name, listed)
		case p.Value.Kind == yamlsrc.Scalar:
			d.impl = p.Value
		case p.Value.Kind == yamlsrc.Mapping:
			c.checkKeys(p.Value, op, "operation definition "+quote(d.name), "description", "implementation", "inputs", "outputs", "metadata")
			c.checkNewer(p.Value, "operation", op)
			d.impl = p.Value.Get("implementation")
			c.checkNewer(d.impl, "implementation", op+".implementation")
			if ins := p.Value.Get("inputs"); ins != nil && ins.Kind == yamlsrc.Mapping {
				d.inputs = map[string]*yamlsrc.Node{}
				for _, q := range ins.Pairs() {
					d.inputs[q.Key.Value] = q.Value
				}
			}
		default:
			c.errorf(p.Value.Range, op, core.CodeWrongKind, "operation definition %q must be an implementation or a map, found %s", d.name, p.Value.Describe())
			return
		}
		into[d.name] = d
	}
	c.checkNewer(n, "interface", path)
	for _, p := range n.Pairs() {
		switch p.Key.Value {
		case "operations", "notifications":
			for _, q := range p.Value.Pairs() {
				add(q, joinPath(path, p.Key.Value+"."+q.Key.Value), true)
			}
		default:
			if !slices.Contains(ifaceMetaKeys(), p.Key.Value) {
				add(p, joinPath(path, p.Key.Value), false)
			}
		}
	}
}

func (c *compiler) readInterfaceTypeOps(t *typeDef, n *yamlsrc.Node) {
	c.readOpDefs(t.ops, n, t.path)
}

// artifactDefKeys lists keynames the grammar allows; a function so that no
// package-level slice can be changed.
func artifactDefKeys() []string {
	return []string{"type", "file", "repository", "description", "deploy_path", "properties",
		"version", "artifact_version", "checksum", "checksum_algorithm", "metadata"}
}

func (c *compiler) readArtifactDefs(t *typeDef, n *yamlsrc.Node, path string) {
	for _, a := range c.readArtifacts(n, path, nil) {
		t.artifacts[a.name] = a
	}
}

// readArtifacts reads artifact definitions (types and templates share the
// grammar): a file name or a map with type and file.
func (c *compiler) readArtifacts(n *yamlsrc.Node, path string, inherited map[string]*artifactDef) []*artifactDef {
	if n.IsNull() {
		return nil
	}
	if n.Kind != yamlsrc.Mapping {
		// TOSCA 1.0 examples sometimes write artifacts as a list of
		// one-key maps; accept that form too.
		if n.Kind == yamlsrc.Sequence {
			var out []*artifactDef
			for _, it := range n.Content {
				out = append(out, c.readArtifacts(it, path, inherited)...)
			}
			return out
		}
		c.errorf(n.Range, path, core.CodeWrongKind, "artifacts must be a map, found %s", n.Describe())
		return nil
	}
	var out []*artifactDef
	for _, p := range n.Pairs() {
		ap := joinPath(path, p.Key.Value)
		a := &artifactDef{name: p.Key.Value, n: p.Value}
		switch {
		case p.Value.Kind == yamlsrc.Scalar && !p.Value.IsNull():
			a.file, a.fileNode = p.Value.Value, p.Value
		case p.Value.Kind == yamlsrc.Mapping:
			c.checkKeys(p.Value, ap, "artifact "+quote(a.name), artifactDefKeys()...)
			a.file, a.fileNode = c.str(p.Value, ap, "file")
			if tn := p.Value.Get("type"); tn != nil {
				a.typ = c.lookupRef(kArtifact, tn, ap+".type")
			}
			if p.Value.Get("file") == nil {
				if prev := inherited[a.name]; prev != nil {
					// A template may refine an artifact its type defines.
					a.file, a.fileNode = prev.file, prev.fileNode
				} else {
					c.errorf(p.Key.Range, ap, core.CodeMissingField, "artifact %q is missing required field \"file\"", a.name)
				}
			}
		default:
			c.errorf(p.Value.Range, ap, core.CodeWrongKind, "artifact %q must be a file name or a map, found %s", a.name, p.Value.Describe())
			continue
		}
		out = append(out, a)
	}
	return out
}
