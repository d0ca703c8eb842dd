package tosca2

// The symbol index of a TOSCA 2.0 compile (CompileIndexed), the same index
// a 1.x compile fills (index.go): types with their derivation chains and
// members, custom functions, templates, inputs, outputs and the files
// imported by url or by profile name. It is read from the state the 2.0
// phases leave once they are done, and every name the files write is
// resolved as those phases resolve it (findType: the file's own types,
// those of its imports without a namespace, ns:name), so that it says what
// the compiler understood. Function calls carry the value the compile
// gave them where it keeps one (properties, attributes, capability and
// relationship properties, inputs, outputs); a call inside another, or in
// a value the compile does not keep, is evaluated again in its context,
// its diagnostics discarded. It reports nothing.

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/symbols"
	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
)

// index numbers the symbols of a 2.0 compile as it adds them.
type index struct {
	c      *compiler
	x      *symbols.Index
	files  map[*file]int
	types  map[*typeDef]int
	props  map[*prop]int
	caps   map[*capability]int
	reqs   map[*req]int
	funcs  map[*funcDef]int
	nodes  map[string]int
	rels   map[string]int
	groups map[string]int
	inputs map[string]int
	// chains holds each template type's chain as a template's hover
	// shows it, written once.
	chains map[*typeDef]string
}

// What a call is where the compile gives it no value of its own.
const (
	noteValidation = "a validation clause: evaluated with `$value` bound to each value it checks"
	noteNodeFilter = "a node filter: evaluated against the candidate nodes when the orchestrator selects one"
	noteCondition  = "a condition: evaluated when the trigger's event occurs"
)

// buildIndex builds the index of a TOSCA 2.0 compile.
func (c *compiler) buildIndex() *symbols.Index {
	x := &symbols.Index{Version: Version}
	ix := &index{c: c, x: x, files: map[*file]int{}, types: map[*typeDef]int{}, props: map[*prop]int{},
		caps: map[*capability]int{}, reqs: map[*req]int{}, funcs: map[*funcDef]int{}, nodes: map[string]int{},
		rels: map[string]int{}, groups: map[string]int{}, inputs: map[string]int{}, chains: map[*typeDef]string{}}
	// Sized for a large service template (see buildIndex).
	nodes := 0
	if c.state.topo != nil {
		nodes = len(c.state.topo.nodes)
	}
	x.Symbols = make([]symbols.Symbol, 0, len(c.order)+8*len(c.state.types)+2*nodes)
	x.References = make([]symbols.Reference, 0, 64+8*nodes)
	x.Calls = make([]symbols.Call, 0, 2*nodes)
	ix.addFiles()
	ix.addBuiltins()
	for _, t := range c.state.types {
		ix.addType(t)
	}
	for t, i := range ix.types {
		if p, ok := ix.types[t.parent]; ok && t.parent != nil {
			x.Symbols[i].ParentRef = symbols.RefTo(p)
		}
	}
	ix.addFunctions()
	ix.addTopology()
	ix.spellings()
	ix.importRefs()
	for _, t := range c.state.types {
		ix.typeDefRefs(t)
	}
	ix.functionRefs()
	if c.Ctx.Err() == nil {
		ix.topologyRefs()
		ix.typeCalls()
	}
	x.Sort()
	return x
}

// embedded reports whether a file is embedded in xosplan (no editor can
// open it).
func embedded(f *file) bool { return f == nil || f.normative || f.dir == "" }

func (ix *index) add(s symbols.Symbol) int { return ix.x.Add(s) }

// addFiles adds a symbol for each file the compile loaded, the root
// first in Files; an embedded profile is a symbol an import names, not
// one of Files.
func (ix *index) addFiles() {
	c := ix.c
	for _, f := range c.order {
		start := diag.Range{File: f.name, Start: diag.Pos{Line: 1, Column: 1}, End: diag.Pos{Line: 1, Column: 1}}
		detail := "**file** `" + f.name + "`"
		if name := core.Text(f.root.Get("profile")); name != "" {
			detail = "**profile** `" + name + "`"
			if embedded(f) {
				detail += ", embedded in xosplan"
			} else {
				detail += "\n\nfile: " + f.name
			}
		}
		s := symbols.Symbol{Kind: symbols.File, Name: f.name, Range: start, Detail: detail, Embedded: embedded(f)}
		if s.Embedded {
			s.Range = diag.Range{File: f.name}
		} else if f == c.root {
			ix.x.Files = append([]string{f.name}, ix.x.Files...)
		} else {
			ix.x.Files = append(ix.x.Files, f.name)
		}
		ix.files[f] = ix.add(s)
	}
}

// addBuiltins adds the built-in data types (§9.1), which type: names
// like any other.
func (ix *index) addBuiltins() {
	if ix.c.state.builtins == nil {
		return
	}
	for _, name := range builtinTypes() {
		t := ix.c.state.builtins[name]
		ix.types[t] = ix.add(symbols.Symbol{Kind: symbols.Type, Name: name, Embedded: true, Type: core.KData.Word(),
			Detail: "**data type** `" + name + "`\n\nbuilt into TOSCA 2.0 (§9.1)"})
	}
}

// addType adds a type and the members its definition declares.
func (ix *index) addType(t *typeDef) {
	if _, dup := ix.types[t]; dup {
		return
	}
	embedded := embedded(t.f)
	var d strings.Builder
	fmt.Fprintf(&d, "**%s** `%s`", t.kind.Word(), t.name)
	if len(t.chain) > 1 {
		d.WriteString("\n\nderived from: " + strings.Join(core.QuoteAll(t.chain[1:]), " → "))
	}
	core.WriteDescription(&d, t.n)
	if name := core.Text(t.f.root.Get("profile")); name != "" {
		d.WriteString("\n\nprofile `" + name + "`")
	}
	if !embedded {
		d.WriteString("\n\ndefined at " + t.key.String())
	}
	s := symbols.Symbol{Kind: symbols.Type, Name: t.name, Range: t.key, Embedded: embedded, Type: t.kind.Word(), Detail: d.String()}
	s.Range.File = t.f.name
	if t.parent != nil {
		s.Parent = t.parent.name
	}
	ti := ix.add(s)
	ix.types[t] = ti
	if t.n == nil || t.n.Kind != yamlsrc.Mapping {
		return
	}
	member := func(kind symbols.Kind, key *yamlsrc.Node, typ, detail string) int {
		return ix.add(symbols.Symbol{Kind: kind, Name: key.Value, Container: t.name, ContainerRef: symbols.RefTo(ti),
			Range: key.Range, Embedded: embedded, Type: typ, Detail: detail})
	}
	for _, sec := range []struct {
		name string
		kind symbols.Kind
		defs map[string]*prop
	}{{"properties", symbols.Property, t.props}, {"attributes", symbols.Attribute, t.attrs}} {
		for _, p := range t.n.Get(sec.name).Pairs() {
			if d := sec.defs[p.Key.Value]; d != nil {
				ix.props[d] = member(sec.kind, p.Key, typeName(d), propDetail(sec.kind.String(), d, t.name, p.Key, embedded))
			}
		}
	}
	for _, p := range t.n.Get("capabilities").Pairs() {
		cd := t.caps[p.Key.Value]
		if cd == nil {
			continue
		}
		detail := fmt.Sprintf("**capability** `%s` of `%s`", cd.name, t.name)
		typ := ""
		if cd.typ != nil {
			typ = cd.typ.name
			detail += "\n\ntype: `" + typ + "`"
		}
		if cd.n.Kind == yamlsrc.Mapping {
			core.WriteDescriptionTo(&detail, cd.n)
		}
		ix.caps[cd] = member(symbols.Capability, p.Key, typ, detail+core.DeclaredAt(p.Key, embedded))
	}
	for _, it := range t.n.Get("requirements").Items() {
		if it.Kind != yamlsrc.Mapping || len(it.Content) != 2 {
			continue
		}
		key, body := it.Content[0], it.Content[1]
		for _, rd := range t.reqs {
			if rd.n == body {
				ix.reqs[rd] = member(symbols.Requirement, key, "", reqDetail(rd, t.name, body)+core.DeclaredAt(key, embedded))
			}
		}
	}
}

func typeName(d *prop) string {
	if d.typ == nil {
		return ""
	}
	return d.typ.name
}

// propDetail describes a property, attribute or parameter definition:
// its type, whether it is required, its default or fixed value, its
// validation clauses, its description and where it is declared.
func propDetail(what string, d *prop, owner string, key *yamlsrc.Node, embedded bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s** `%s`", what, d.name)
	if owner != "" {
		fmt.Fprintf(&b, " of `%s`", owner)
	}
	if d.typ != nil {
		fmt.Fprintf(&b, "\n\ntype: `%s`", d.typ.name)
		if d.entry != nil && d.entry.typ != nil {
			fmt.Fprintf(&b, " of `%s`", d.entry.typ.name)
		}
	}
	if what == "property" || what == "input" {
		fmt.Fprintf(&b, "\n\nrequired: %t", d.required)
	}
	for _, kv := range []struct {
		name string
		n    *yamlsrc.Node
	}{{"default", d.def}, {"value", d.value}} {
		switch {
		case kv.n == nil || kv.n.IsNull():
		case d.secret():
			b.WriteString("\n\n" + kv.name + ": (sensitive, not shown)")
		default:
			b.WriteString("\n\n" + kv.name + ": " + yamlText(kv.n, 200))
		}
	}
	if len(d.validation) > 0 {
		var vs []string
		for _, v := range d.validation {
			vs = append(vs, yamlText(v, 200))
		}
		b.WriteString("\n\nvalidation: " + strings.Join(vs, ", "))
	}
	if d.n != nil && d.n.Kind == yamlsrc.Mapping {
		core.WriteDescription(&b, d.n)
	}
	if !embedded && key != nil {
		b.WriteString("\n\ndefined at " + key.Range.String())
	}
	return b.String()
}

// yamlText shows a value as written, as JSON, in Markdown code.
func yamlText(n *yamlsrc.Node, limit int) string {
	js, err := json.Marshal(n.Interface())
	if err != nil {
		return "(a value that cannot be shown)"
	}
	return "`" + core.ClipText(string(js), limit) + "`"
}

func reqDetail(rd *req, owner string, body *yamlsrc.Node) string {
	var d strings.Builder
	fmt.Fprintf(&d, "**requirement** `%s` of `%s`", rd.name, owner)
	for _, kv := range []struct {
		key string
		t   *typeDef
	}{{"capability", rd.capType}, {"node", rd.nodeType}, {"relationship", rd.relType}} {
		if kv.t != nil {
			fmt.Fprintf(&d, "\n\n%s: `%s`", kv.key, kv.t.name)
		}
	}
	fmt.Fprintf(&d, "\n\ncount_range: %s", rangeText(rd.min, rd.max))
	if body.Kind == yamlsrc.Mapping {
		core.WriteDescription(&d, body)
	}
	return d.String()
}

// addFunctions adds the custom functions each file declares, and those
// the service template declares or refines.
func (ix *index) addFunctions() {
	c := ix.c
	addAt := func(d *funcDef, p yamlsrc.Pair, refines bool) {
		var b strings.Builder
		fmt.Fprintf(&b, "**function** `$%s`", d.name)
		if refines {
			b.WriteString(" (refined by the service template)")
		}
		for i, s := range d.sigs {
			fmt.Fprintf(&b, "\n\nsignature %d: %s", i+1, signatureText(&s))
		}
		core.WriteDescription(&b, p.Value)
		if !embedded(d.f) {
			b.WriteString("\n\ndefined at " + p.Key.Range.String())
		}
		ix.funcs[d] = ix.add(symbols.Symbol{Kind: symbols.Function, Name: d.name, Range: p.Key.Range, Embedded: embedded(d.f), Detail: b.String()})
	}
	for _, d := range c.state.funcs {
		if p, ok := d.f.root.Get("functions").GetPair(d.name); ok {
			addAt(d, p, false)
		}
	}
	if c.root == nil || c.root.root == nil {
		return
	}
	for _, p := range c.root.root.Get("service_template").Get("functions").Pairs() {
		if d := c.scope(c.root).funcs[p.Key.Value]; d != nil {
			if _, seen := ix.funcs[d]; !seen {
				addAt(d, p, !slices.Contains(c.state.funcs, d))
			}
		}
	}
}

// signatureText writes a signature as (type, type, …) -> result.
func signatureText(s *sig) string {
	var args []string
	for i, p := range s.params {
		name := "any"
		if p != nil && p.typ != nil {
			name = p.typ.name
		}
		if i >= s.min {
			name += "?"
		}
		args = append(args, "`"+name+"`")
	}
	out := "(" + strings.Join(args, ", ")
	if s.variadic {
		out += ", …"
	}
	out += ")"
	if s.result != nil && s.result.typ != nil {
		out += " → `" + s.result.typ.name + "`"
	}
	if s.impl != "" {
		out += ", implementation `" + s.impl + "`"
	}
	return out
}

// addTopology adds the service template's inputs, node and relationship
// templates, groups, policies and outputs, in the order written.
func (ix *index) addTopology() {
	topo := ix.c.state.topo
	if topo == nil || topo.st == nil || topo.st.Kind != yamlsrc.Mapping {
		return
	}
	st := topo.st
	for _, p := range st.Get("inputs").Pairs() {
		d := topo.inputDefs[p.Key.Value]
		if d == nil {
			continue
		}
		ix.inputs[p.Key.Value] = ix.add(symbols.Symbol{Kind: symbols.Input, Name: p.Key.Value, Range: p.Key.Range,
			Type: typeName(d), Detail: propDetail("input", d, "", p.Key, false)})
	}
	template := func(kind symbols.Kind, p yamlsrc.Pair, t *typeDef) int {
		d := fmt.Sprintf("**%s** `%s`", kind, p.Key.Value)
		s := symbols.Symbol{Kind: kind, Name: p.Key.Value, Range: p.Key.Range}
		if t != nil {
			s.Type = t.name
			if i, ok := ix.types[t]; ok {
				s.TypeRef = symbols.RefTo(i)
			}
			chain, ok := ix.chains[t]
			if !ok && len(t.chain) > 1 {
				chain = " → " + strings.Join(core.QuoteAll(t.chain[1:]), " → ")
				ix.chains[t] = chain
			}
			d += "\n\ntype: `" + core.Text(p.Value.Get("type")) + "`" + chain
		}
		if p.Value.Kind == yamlsrc.Mapping {
			core.WriteDescriptionTo(&d, p.Value)
		}
		s.Detail = d
		return ix.add(s)
	}
	for _, p := range st.Get("node_templates").Pairs() {
		var t *typeDef
		if nd := topo.byName[p.Key.Value]; nd != nil {
			t = nd.typ
		}
		ix.nodes[p.Key.Value] = template(symbols.NodeTemplate, p, t)
	}
	for _, p := range st.Get("relationship_templates").Pairs() {
		ix.rels[p.Key.Value] = template(symbols.RelationshipTemplate, p, topo.relType[p.Key.Value])
	}
	for _, p := range st.Get("groups").Pairs() {
		ix.groups[p.Key.Value] = template(symbols.Group, p, ix.c.findType(ix.c.root, core.KGroup, core.Text(p.Value.Get("type"))))
	}
	for _, it := range st.Get("policies").Items() {
		if it.Kind == yamlsrc.Mapping && len(it.Content) == 2 {
			p := yamlsrc.Pair{Key: it.Content[0], Value: it.Content[1]}
			template(symbols.Policy, p, ix.c.findType(ix.c.root, core.KPolicy, core.Text(p.Value.Get("type"))))
		}
	}
	for _, p := range st.Get("outputs").Pairs() {
		d := fmt.Sprintf("**output** `%s`", p.Key.Value)
		if v, ok := topo.outputs[p.Key.Value]; ok {
			d += "\n\nvalue: " + core.CallResult(v, ix.c.SecretAt["service_template.outputs."+p.Key.Value])
		}
		if p.Value.Kind == yamlsrc.Mapping {
			core.WriteDescriptionTo(&d, p.Value)
		}
		ix.add(symbols.Symbol{Kind: symbols.Output, Name: p.Key.Value, Range: p.Key.Range, Detail: d})
	}
}

// spellings lists the names the root file may write for types: its own
// and those its imports without a namespace bring, by name; those of a
// file imported with namespace ns, ns:name (recursively, as findType
// resolves them).
func (ix *index) spellings() {
	c := ix.c
	ix.x.TypeNames = []symbols.Spelling{}
	for _, name := range builtinTypes() {
		if i, ok := ix.types[c.state.builtins[name]]; ok {
			ix.x.TypeNames = append(ix.x.TypeNames, symbols.Spelling{Name: name, Symbol: i})
		}
	}
	if c.root == nil {
		return
	}
	type visit struct {
		f      *file
		prefix string
	}
	seen := map[visit]bool{}
	var walk func(f *file, prefix string, depth int)
	walk = func(f *file, prefix string, depth int) {
		if f == nil || depth > 8 || seen[visit{f, prefix}] {
			return
		}
		seen[visit{f, prefix}] = true
		s := c.state.scopes[f]
		if s == nil {
			return
		}
		for k := range s.types {
			for name, t := range s.types[k] {
				if i, ok := ix.types[t]; ok {
					ix.x.TypeNames = append(ix.x.TypeNames, symbols.Spelling{Name: prefix + name, Symbol: i})
				}
			}
		}
		for _, im := range s.imports {
			if im.ns == "" {
				walk(im.f, prefix, depth+1)
			} else {
				walk(im.f, prefix+im.ns+":", depth+1)
			}
		}
	}
	walk(c.root, "", 0)
	// A type the file may write by its name is offered by that name
	// only, not again through the namespace of a profile that imports
	// it too.
	shortest := map[int]int{}
	for _, sp := range ix.x.TypeNames {
		n := strings.Count(sp.Name, ":")
		if m, ok := shortest[sp.Symbol]; !ok || n < m {
			shortest[sp.Symbol] = n
		}
	}
	ix.x.TypeNames = slices.DeleteFunc(ix.x.TypeNames, func(sp symbols.Spelling) bool {
		return strings.Count(sp.Name, ":") > shortest[sp.Symbol]
	})
	slices.SortFunc(ix.x.TypeNames, func(a, b symbols.Spelling) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return a.Symbol - b.Symbol
	})
}

// importRefs links each import to the file or profile it loaded.
func (ix *index) importRefs() {
	for _, f := range ix.c.state.files {
		s := ix.c.state.scopes[f]
		if s == nil {
			continue
		}
		for _, im := range s.imports {
			if i, ok := ix.files[im.f]; ok && im.at != nil {
				ix.x.Refer(im.at.Range, i)
			}
		}
	}
}

// typeRef refers the type name written at n, as the file f resolves it
// for kind k, to its symbol, and returns the type (nil for none).
func (ix *index) typeRef(f *file, k core.Kind, n *yamlsrc.Node) *typeDef {
	if n == nil || n.Kind != yamlsrc.Scalar || !n.IsString() || n.Value == "" || f == nil {
		return nil
	}
	t := ix.c.findType(f, k, n.Value)
	if i, ok := ix.types[t]; ok && t != nil {
		ix.x.Refer(n.Range, i)
	}
	return t
}

func (ix *index) typeListRefs(f *file, k core.Kind, n *yamlsrc.Node) {
	for _, it := range n.Items() {
		ix.typeRef(f, k, it)
	}
}

// defRefs refers the types a map of property, attribute or parameter
// definitions names.
func (ix *index) defRefs(f *file, n *yamlsrc.Node) {
	for _, p := range n.Pairs() {
		ix.defRef(f, p.Value)
	}
}

// defRef refers the types one definition names: its type and schemas.
// A definition written as a value (a refinement's short form) names
// none.
func (ix *index) defRef(f *file, d *yamlsrc.Node) {
	if d == nil || d.Kind != yamlsrc.Mapping {
		return
	}
	ix.typeRef(f, core.KData, d.Get("type"))
	ix.schemaRef(f, d.Get("entry_schema"))
	ix.schemaRef(f, d.Get("key_schema"))
}

// schemaRef refers the types of a schema: a type name, or a definition.
func (ix *index) schemaRef(f *file, n *yamlsrc.Node) {
	if n != nil && n.Kind == yamlsrc.Scalar {
		ix.typeRef(f, core.KData, n)
		return
	}
	ix.defRef(f, n)
}

// ifaceRefs refers the types of interface definitions: the interface
// types and those of their inputs.
func (ix *index) ifaceRefs(f *file, n *yamlsrc.Node) {
	for _, p := range n.Pairs() {
		if p.Value.Kind != yamlsrc.Mapping {
			continue
		}
		ix.typeRef(f, core.KInterface, p.Value.Get("type"))
		ix.defRefs(f, p.Value.Get("inputs"))
		for _, key := range []string{"operations", "notifications"} {
			for _, op := range p.Value.Get(key).Pairs() {
				ix.defRefs(f, op.Value.Get("inputs"))
			}
		}
	}
}

// typeDefRefs refers every name a type's definition writes: its parent, the
// types of its definitions, the valid_*_types, members and targets.
func (ix *index) typeDefRefs(t *typeDef) {
	n, f := t.n, t.f
	if n == nil || n.Kind != yamlsrc.Mapping || embedded(f) {
		return
	}
	ix.typeRef(f, t.kind, n.Get("derived_from"))
	ix.defRefs(f, n.Get("properties"))
	ix.defRefs(f, n.Get("attributes"))
	ix.schemaRef(f, n.Get("entry_schema"))
	ix.schemaRef(f, n.Get("key_schema"))
	ix.ifaceRefs(f, n.Get("interfaces"))
	switch t.kind {
	case core.KNode:
		for _, p := range n.Get("capabilities").Pairs() {
			if p.Value.Kind == yamlsrc.Scalar {
				ix.typeRef(f, core.KCapability, p.Value)
				continue
			}
			ix.typeRef(f, core.KCapability, p.Value.Get("type"))
			ix.defRefs(f, p.Value.Get("properties"))
			ix.defRefs(f, p.Value.Get("attributes"))
			ix.typeListRefs(f, core.KNode, p.Value.Get("valid_source_node_types"))
			ix.typeListRefs(f, core.KRelationship, p.Value.Get("valid_relationship_types"))
		}
		for _, it := range n.Get("requirements").Items() {
			if it.Kind != yamlsrc.Mapping || len(it.Content) != 2 {
				continue
			}
			body := it.Content[1]
			if body.Kind == yamlsrc.Scalar {
				ix.typeRef(f, core.KCapability, body)
				continue
			}
			nt := ix.typeRef(f, core.KNode, body.Get("node"))
			if cn := body.Get("capability"); ix.c.findType(f, core.KCapability, core.Text(cn)) != nil {
				ix.typeRef(f, core.KCapability, cn)
			} else if cd := nt.capNamed(core.Text(cn)); cd != nil {
				if i, ok := ix.caps[cd]; ok {
					ix.x.Refer(cn.Range, i)
				}
			}
			rel := body.Get("relationship")
			if rel != nil && rel.Kind == yamlsrc.Mapping {
				rel = rel.Get("type")
			}
			ix.typeRef(f, core.KRelationship, rel)
		}
		for _, p := range n.Get("artifacts").Pairs() {
			ix.typeRef(f, core.KArtifact, p.Value.Get("type"))
		}
	case core.KRelationship:
		ix.typeListRefs(f, core.KCapability, n.Get("valid_capability_types"))
		ix.typeListRefs(f, core.KNode, n.Get("valid_target_node_types"))
		ix.typeListRefs(f, core.KNode, n.Get("valid_source_node_types"))
	case core.KCapability:
		ix.typeListRefs(f, core.KNode, n.Get("valid_source_node_types"))
		ix.typeListRefs(f, core.KRelationship, n.Get("valid_relationship_types"))
	case core.KInterface:
		ix.defRefs(f, n.Get("inputs"))
		for _, key := range []string{"operations", "notifications"} {
			for _, op := range n.Get(key).Pairs() {
				ix.defRefs(f, op.Value.Get("inputs"))
			}
		}
	case core.KGroup:
		ix.typeListRefs(f, core.KNode, n.Get("members"))
	case core.KPolicy:
		for _, it := range n.Get("targets").Items() {
			if ix.c.findType(f, core.KNode, core.Text(it)) != nil {
				ix.typeRef(f, core.KNode, it)
			} else {
				ix.typeRef(f, core.KGroup, it)
			}
		}
	}
}

// functionRefs refers the types of the custom functions' signatures.
func (ix *index) functionRefs() {
	for d := range ix.funcs {
		if embedded(d.f) {
			continue
		}
		for _, p := range d.f.root.Get("functions").Pairs() {
			if p.Key.Value != d.name {
				continue
			}
			for _, sig := range p.Value.Get("signatures").Items() {
				for _, key := range []string{"arguments", "optional_arguments"} {
					for _, a := range sig.Get(key).Items() {
						ix.schemaRef(d.f, a)
					}
				}
				ix.schemaRef(d.f, sig.Get("result"))
			}
		}
	}
}

// memberRefs refers the keys of assignments to the definitions of defs
// they assign.
func (ix *index) memberRefs(n *yamlsrc.Node, defs map[string]*prop) {
	for _, p := range n.Pairs() {
		if i, ok := ix.props[defs[p.Key.Value]]; ok {
			ix.x.Refer(p.Key.Range, i)
		}
	}
}

// topologyRefs refers the names the service template writes — types,
// templates, requirement targets, members, properties — and records
// its function calls.
func (ix *index) topologyRefs() {
	c := ix.c
	topo, root := c.state.topo, c.root
	if topo == nil || topo.st == nil || topo.st.Kind != yamlsrc.Mapping {
		return
	}
	st := topo.st
	for _, p := range st.Get("inputs").Pairs() {
		ix.defRef(root, p.Value)
		ix.paramCalls(p.Value, topo.inputs[p.Key.Value], topo.inputs[p.Key.Value] != nil)
	}
	for _, p := range st.Get("node_templates").Pairs() {
		ix.typeRef(root, core.KNode, p.Value.Get("type"))
		if i, ok := ix.nodes[core.Text(p.Value.Get("copy"))]; ok {
			ix.x.Refer(p.Value.Get("copy").Range, i)
		}
		if nd := topo.byName[p.Key.Value]; nd != nil {
			ix.nodeRefs(nd, p.Value)
		}
	}
	for _, p := range st.Get("relationship_templates").Pairs() {
		t := ix.typeRef(root, core.KRelationship, p.Value.Get("type"))
		if t == nil {
			continue
		}
		ix.memberRefs(p.Value.Get("properties"), t.props)
		ix.memberRefs(p.Value.Get("attributes"), t.attrs)
		ev := &eval{c: c, f: root, rel: &relCtx{}}
		ix.sectionCalls(ev, p.Value, map[string]graph.Value{"properties": mapValue(topo.relProps[p.Key.Value])})
	}
	for _, p := range st.Get("groups").Pairs() {
		t := ix.typeRef(root, core.KGroup, p.Value.Get("type"))
		if t != nil {
			ix.memberRefs(p.Value.Get("properties"), t.props)
			ix.memberRefs(p.Value.Get("attributes"), t.attrs)
		}
		for _, m := range p.Value.Get("members").Items() {
			if i, ok := ix.nodes[core.Text(m)]; ok {
				ix.x.Refer(m.Range, i)
			}
		}
		ix.sectionCalls(&eval{c: c, f: root}, p.Value, nil)
	}
	for _, it := range st.Get("policies").Items() {
		if it.Kind != yamlsrc.Mapping || len(it.Content) != 2 {
			continue
		}
		body := it.Content[1]
		if t := ix.typeRef(root, core.KPolicy, body.Get("type")); t != nil {
			ix.memberRefs(body.Get("properties"), t.props)
		}
		for _, tg := range body.Get("targets").Items() {
			if i, ok := ix.nodes[core.Text(tg)]; ok {
				ix.x.Refer(tg.Range, i)
			} else if i, ok := ix.groups[core.Text(tg)]; ok {
				ix.x.Refer(tg.Range, i)
			}
		}
		ix.calls(valueCtx{ev: &eval{c: c, f: root}}, body.Get("properties"), nil, false, 0)
		for _, tr := range body.Get("triggers").Pairs() {
			ix.calls(valueCtx{note: noteCondition}, tr.Value.Get("condition"), nil, false, 0)
		}
	}
	for _, p := range st.Get("outputs").Pairs() {
		ix.defRef(root, p.Value)
		v, known := topo.outputs[p.Key.Value]
		ix.calls(valueCtx{ev: &eval{c: c, f: root}}, p.Value.Get("value"), v, known, 0)
	}
	ix.typeRef(root, core.KNode, st.Get("substitution_mappings").Get("node_type"))
}

// mapValue makes a typed map of values a Value (nil stays nil).
func mapValue(m map[string]graph.Value) graph.Value {
	if m == nil {
		return nil
	}
	return m
}

// nodeRefs refers the names a node template's definition n writes and
// records its function calls.
func (ix *index) nodeRefs(nd *node, n *yamlsrc.Node) {
	c, t := ix.c, nd.typ
	ix.memberRefs(n.Get("properties"), t.props)
	ix.memberRefs(n.Get("attributes"), t.attrs)
	for _, p := range n.Get("capabilities").Pairs() {
		if i, ok := ix.caps[t.caps[p.Key.Value]]; ok {
			ix.x.Refer(p.Key.Range, i)
		}
	}
	for _, ra := range nd.reqs {
		ix.reqRefs(nd, ra)
	}
	ev := &eval{c: c, f: c.root, node: nd}
	ctx := valueCtx{ev: ev}
	known := map[string]graph.Value{"properties": mapValue(nd.props), "attributes": mapValue(nd.attrs)}
	caps := nd.caps
	if _, counted := nd.n.GetPair("count"); counted {
		// Each representation has its own values: those of the first
		// are shown, evaluated for it (valuesAt) while its calls are.
		var props map[string]graph.Value
		c.Quietly(func() { props, caps = c.valuesAt(nd, nil, 0) })
		index, ownProps, ownCaps := nd.index, nd.props, nd.caps
		nd.index, nd.props, nd.caps = int64(0), props, caps
		defer func() { nd.index, nd.props, nd.caps = index, ownProps, ownCaps }()
		known = map[string]graph.Value{"properties": mapValue(props)}
		ctx.label = "in `" + nd.name + "[0]`: "
	}
	for _, p := range n.Pairs() {
		switch p.Key.Value {
		case "properties", "attributes":
			v, ok := known[p.Key.Value]
			ix.calls(ctx, p.Value, v, ok && v != nil, 0)
		case "capabilities":
			for _, cp := range p.Value.Pairs() {
				v := mapValue(caps[cp.Key.Value])
				ix.calls(ctx, cp.Value.Get("properties"), v, v != nil, 0)
				ix.calls(ctx, cp.Value.Get("attributes"), nil, false, 0)
			}
		case "requirements":
			// reqRefs records them, in their relationship's context.
		case "node_filter":
			ix.calls(valueCtx{note: noteNodeFilter}, p.Value, nil, false, 0)
		case "interfaces", "count", "artifacts":
			ix.calls(ctx, p.Value, nil, false, 0)
		}
	}
}

// reqRefs refers the names of a requirement assignment — its definition,
// the node and capability it names, its relationship with its
// properties — and records its function calls.
func (ix *index) reqRefs(nd *node, ra *reqAssign) {
	c := ix.c
	if i, ok := ix.reqs[ra.def]; ok {
		ix.x.Refer(ra.key, i)
	}
	body := ra.n
	target := body
	if body.Kind == yamlsrc.Mapping {
		target = body.Get("node")
	}
	if target != nil && target.Kind == yamlsrc.Sequence && len(target.Content) > 0 {
		target = target.Content[0]
	}
	var tt *typeDef
	if i, ok := ix.nodes[core.Text(target)]; ok && ra.target != nil {
		ix.x.Refer(target.Range, i)
		tt = ra.target.typ
	} else {
		tt = ix.typeRef(c.root, core.KNode, target)
	}
	if body.Kind != yamlsrc.Mapping {
		return
	}
	if cn := body.Get("capability"); cn != nil {
		if i, ok := ix.caps[tt.capNamed(core.Text(cn))]; ok {
			ix.x.Refer(cn.Range, i)
		} else {
			ix.typeRef(c.root, core.KCapability, cn)
		}
	}
	ev := &eval{c: c, f: c.root, node: nd, rel: ra.relCtx()}
	ctx := valueCtx{ev: ev}
	if rel := body.Get("relationship"); rel != nil {
		switch {
		case rel.Kind == yamlsrc.Scalar:
			if i, ok := ix.rels[rel.Value]; ok {
				ix.x.Refer(rel.Range, i)
			} else {
				ix.typeRef(c.root, core.KRelationship, rel)
			}
		case rel.Kind == yamlsrc.Mapping:
			ix.typeRef(c.root, core.KRelationship, rel.Get("type"))
			if ra.relType != nil {
				ix.memberRefs(rel.Get("properties"), ra.relType.props)
				ix.memberRefs(rel.Get("attributes"), ra.relType.attrs)
			}
			ix.sectionCalls(ev, rel, map[string]graph.Value{"properties": mapValue(ra.relProps)})
		}
	}
	for _, key := range []string{"count", "allocation"} {
		ix.calls(ctx, body.Get(key), nil, false, 0)
	}
	if nn := body.Get("node"); nn != nil && nn.Kind == yamlsrc.Sequence && len(nn.Content) == 2 {
		ix.calls(ctx, nn.Content[1], nil, false, 0)
	}
	ix.calls(valueCtx{note: noteNodeFilter}, body.Get("node_filter"), nil, false, 0)
}

// sectionCalls records the calls of an entity's properties, attributes
// and interfaces, with the values known holds by section.
func (ix *index) sectionCalls(ev *eval, n *yamlsrc.Node, known map[string]graph.Value) {
	for _, key := range []string{"properties", "attributes", "interfaces"} {
		v := known[key]
		ix.calls(valueCtx{ev: ev}, n.Get(key), v, v != nil, 0)
	}
}

// paramCalls records the calls of a parameter definition: its value or
// default (v, the parameter's value, when known), its validation.
func (ix *index) paramCalls(d *yamlsrc.Node, v graph.Value, known bool) {
	if d == nil || d.Kind != yamlsrc.Mapping {
		return
	}
	ev := &eval{c: ix.c, f: ix.c.root}
	_, hasValue := d.GetPair("value")
	for _, p := range d.Pairs() {
		switch p.Key.Value {
		case "value":
			ix.calls(valueCtx{ev: ev}, p.Value, v, known, 0)
		case "default":
			ix.calls(valueCtx{ev: ev}, p.Value, v, known && !hasValue, 0)
		case "validation":
			ix.calls(valueCtx{note: noteValidation}, p.Value, nil, false, 0)
		}
	}
}

// typeCalls records the calls of the types the template's files define:
// defaults and fixed values of their definitions, validation clauses.
func (ix *index) typeCalls() {
	for _, t := range ix.c.state.types {
		if embedded(t.f) || t.n == nil || t.n.Kind != yamlsrc.Mapping {
			continue
		}
		ev := &eval{c: ix.c, f: t.f}
		ix.calls(valueCtx{note: noteValidation}, t.n.Get("validation"), nil, false, 0)
		for _, key := range []string{"properties", "attributes"} {
			for _, p := range t.n.Get(key).Pairs() {
				if p.Value.Kind != yamlsrc.Mapping {
					ix.calls(valueCtx{ev: ev}, p.Value, nil, false, 0)
					continue
				}
				for _, dk := range []string{"default", "value"} {
					ix.calls(valueCtx{ev: ev}, p.Value.Get(dk), nil, false, 0)
				}
				ix.calls(valueCtx{note: noteValidation}, p.Value.Get("validation"), nil, false, 0)
			}
		}
	}
}

// valueCtx is what a value's calls are evaluated in: ev, or nothing (a
// call that is no compile-time value, which note describes); label
// prefixes each result.
type valueCtx struct {
	ev    *eval
	note  string
	label string
	// secret: the value is one of a sensitive definition, whose calls
	// show no result.
	secret bool
}

// calls records the function calls of the value n, v being its value as
// the compile evaluated it when known; a call the compile kept no value
// of is evaluated again (quietly) in ctx.
func (ix *index) calls(ctx valueCtx, n *yamlsrc.Node, v graph.Value, known bool, depth int) {
	if n == nil || depth > core.MaxValueDepth {
		return
	}
	ctx.secret = ctx.secret || ix.c.state.secretSrc[n]
	if name, args, ok := funcCall(n); ok {
		c := ix.c
		switch {
		case ctx.ev != nil && !ctx.secret && c.SecretReads > 0:
			// Evaluated again to learn whether it reads a secret.
			before := c.SecretReads
			c.Quietly(func() {
				if w := ctx.ev.evalAt(n, ""); !known {
					v, known = w, true
				}
			})
			ctx.secret = c.SecretReads > before
		case !known && ctx.ev != nil:
			c.Quietly(func() { v = ctx.ev.evalAt(n, "") })
			known = true
		}
		ix.call(ctx, n, name, args, v, known)
		for _, a := range argList(args) {
			ix.calls(ctx, a, nil, false, depth+1)
		}
		return
	}
	switch n.Kind {
	case yamlsrc.Mapping:
		m, isMap := v.(map[string]graph.Value)
		for _, p := range n.Pairs() {
			cv, ok := m[unescape(p.Key.Value)]
			ix.calls(ctx, p.Value, cv, known && isMap && ok, depth+1)
		}
	case yamlsrc.Sequence:
		s, isList := v.([]graph.Value)
		for i, it := range n.Content {
			var cv graph.Value
			ok := isList && i < len(s)
			if ok {
				cv = s[i]
			}
			ix.calls(ctx, it, cv, known && ok, depth+1)
		}
	}
}

// call records one call, and refers what its arguments name: an input,
// a node template and its property or capability, a custom function.
func (ix *index) call(ctx valueCtx, n *yamlsrc.Node, name string, args *yamlsrc.Node, v graph.Value, known bool) {
	at := n.Range
	if n.Kind == yamlsrc.Mapping {
		at = n.Content[0].Range
	}
	res := ctx.note
	if known {
		res = ctx.label + core.CallResult(v, ctx.secret)
	}
	ix.x.Calls = append(ix.x.Calls, symbols.Call{Range: at, Function: "$" + name, Result: res})
	f := ix.c.root
	if ctx.ev != nil {
		f = ctx.ev.f
	}
	if d := ix.c.findFunc(f, name); d != nil {
		if i, ok := ix.funcs[d]; ok {
			ix.x.Refer(at, i)
		}
		return
	}
	list := argList(args)
	if len(list) == 0 || !list[0].IsString() {
		return
	}
	switch name {
	case "get_input":
		if i, ok := ix.inputs[list[0].Value]; ok {
			ix.x.Refer(list[0].Range, i)
		}
	case "get_property", "get_attribute":
		var nd *node
		switch {
		case list[0].Value == "SELF" && ctx.ev != nil:
			nd = ctx.ev.node
		case ix.c.state.topo != nil:
			nd = ix.c.state.topo.byName[list[0].Value]
			if i, ok := ix.nodes[list[0].Value]; ok && nd != nil {
				ix.x.Refer(list[0].Range, i)
			}
		}
		if nd == nil || nd.typ == nil {
			return
		}
		rest := list[1:]
		if len(rest) > 0 {
			if _, isIndex := rest[0].Int(); isIndex {
				rest = rest[1:]
			}
		}
		switch {
		case len(rest) == 1 || len(rest) > 1 && nd.typ.props[rest[0].Value] != nil:
			defs := nd.typ.props
			if name == "get_attribute" && nd.typ.attrs[rest[0].Value] != nil {
				defs = nd.typ.attrs
			}
			if i, ok := ix.props[defs[rest[0].Value]]; ok {
				ix.x.Refer(rest[0].Range, i)
			}
		case len(rest) > 1:
			if i, ok := ix.caps[nd.typ.caps[rest[0].Value]]; ok {
				ix.x.Refer(rest[0].Range, i)
			}
		}
	}
}
