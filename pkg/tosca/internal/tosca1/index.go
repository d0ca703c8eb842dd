package tosca1

// The symbol index: where each name a template defines is written, and
// every place that names it, for editors (xosplan lsp). It is recorded as
// the compiler resolves names (types in lookupRef and templateType,
// imports as they load, inputs and templates as functions read them) and
// completed from the compiled topology, so that it says exactly what the
// compiler understood; it detects nothing. A TOSCA 2.0 compile builds the
// same index from its own phases' state (internal/tosca2/index.go).

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/symbols"
)

// indexer holds what the compiler records for the index as it resolves
// names; nil when no index is asked for.
type indexer struct {
	types   []refTo[*typeDef]
	nodes   []refTo[*nodeTpl]
	inputs  []refTo[*inputDef]
	imports []refTo[string]
	calls   []symbols.Call
}

type refTo[T any] struct {
	at diag.Range
	to T
}

func (c *compiler) noteType(n *yamlsrc.Node, t *typeDef) {
	if c.idx != nil && t != nil && n != nil {
		c.idx.types = append(c.idx.types, refTo[*typeDef]{n.Range, t})
	}
}

func (c *compiler) noteNode(n *yamlsrc.Node, nt *nodeTpl) {
	if c.idx != nil && nt != nil && n != nil {
		c.idx.nodes = append(c.idx.nodes, refTo[*nodeTpl]{n.Range, nt})
	}
}

func (c *compiler) noteInput(n *yamlsrc.Node, in *inputDef) {
	if c.idx != nil {
		c.idx.inputs = append(c.idx.inputs, refTo[*inputDef]{n.Range, in})
	}
}

// noteImport records that the import written at at loaded the file
// name (not an embedded one, which no editor can open).
func (c *compiler) noteImport(at diag.Range, name string, embedded bool) {
	if c.idx != nil && !embedded {
		c.idx.imports = append(c.idx.imports, refTo[string]{at, name})
	}
}

// noteCall records what the call n of fn evaluated to; secret tells that
// evaluating it read a secret, which is not shown.
func (c *compiler) noteCall(fn string, n *yamlsrc.Node, v graph.Value, secret bool) {
	if c.idx == nil || len(n.Content) == 0 {
		return
	}
	c.idx.calls = append(c.idx.calls, symbols.Call{Range: n.Content[0].Range, Function: fn, Result: callResult(v, secret)})
}

// symbolBuilder numbers the symbols as buildIndex adds them, by what the
// compiler resolved names to.
type symbolBuilder struct {
	x       *symbols.Index
	types   map[*typeDef]int
	nodes   map[*nodeTpl]int
	inputs  map[*inputDef]int
	members map[*propDef]int
	reqs    map[*reqDef]int
	caps    map[*capDef]int
	files   map[string]int
}

func (b *symbolBuilder) add(s symbols.Symbol) int { return b.x.Add(s) }

func (b *symbolBuilder) ref(at diag.Range, sym int) { b.x.Refer(at, sym) }

// resolve records the references the compile noted to what the index
// numbered.
func resolve[T comparable](x *symbols.Index, refs []refTo[T], numbered map[T]int) {
	for _, r := range refs {
		if i, ok := numbered[r.to]; ok {
			x.Refer(r.at, i)
		}
	}
}

// buildIndex turns what the compile recorded into the Index.
func (c *compiler) buildIndex() *symbols.Index {
	x := &symbols.Index{Version: c.version}
	// Sized for what a large topology holds (a type's few members, a
	// template's properties and requirements), so that indexing 10,000
	// templates does not spend its time growing slices.
	nodes := 0
	if c.topo != nil {
		nodes = len(c.topo.nodeList)
	}
	x.Symbols = make([]symbols.Symbol, 0, len(c.order)+8*len(c.declared)+2*nodes)
	x.References = make([]symbols.Reference, 0, len(c.idx.types)+len(c.idx.nodes)+len(c.idx.inputs)+len(c.idx.imports)+8*nodes)
	b := &symbolBuilder{x: x, types: map[*typeDef]int{}, nodes: map[*nodeTpl]int{}, inputs: map[*inputDef]int{},
		members: map[*propDef]int{}, reqs: map[*reqDef]int{}, caps: map[*capDef]int{}, files: map[string]int{}}
	for _, f := range c.order {
		if !f.normative && f.dir != "" {
			x.Files = append(x.Files, f.name)
			b.files[f.name] = b.add(symbols.Symbol{Kind: symbols.File, Name: f.name, Range: diag.Range{File: f.name, Start: diag.Pos{Line: 1, Column: 1}, End: diag.Pos{Line: 1, Column: 1}}})
		}
	}
	if c.root != nil {
		// The root is loaded last of its imports; editors want it first.
		if i := slices.Index(x.Files, c.root.name); i > 0 {
			x.Files = append([]string{c.root.name}, slices.Delete(x.Files, i, i+1)...)
		}
	}
	for _, t := range c.declared {
		c.indexType(b, t)
	}
	if c.topo != nil {
		c.indexTopology(b)
	}
	resolve(x, c.idx.types, b.types)
	resolve(x, c.idx.nodes, b.nodes)
	resolve(x, c.idx.inputs, b.inputs)
	resolve(x, c.idx.imports, b.files)
	x.Calls = c.idx.calls
	x.Sort()
	return x
}

func (c *compiler) indexType(b *symbolBuilder, t *typeDef) {
	if _, dup := b.types[t]; dup {
		return
	}
	embedded := t.f.normative || t.f.dir == ""
	var d strings.Builder
	fmt.Fprintf(&d, "**%s** `%s`", t.kind.Word(), t.name)
	if chain := c.chainOf(t); len(chain) > 1 {
		d.WriteString("\n\nderived from: " + strings.Join(quoteAll(chain[1:]), " → "))
	}
	writeDescription(&d, t.n)
	if !embedded {
		fmt.Fprintf(&d, "\n\ndefined at %s", t.key.String())
	}
	s := symbols.Symbol{Kind: symbols.Type, Name: t.name, Range: t.key, Embedded: embedded, Type: t.kind.Word(), Detail: d.String()}
	s.Range.File = t.f.name
	if t.parent != nil {
		s.Parent = t.parent.name
	}
	b.types[t] = b.add(s)
	member := func(kind symbols.Kind, key *yamlsrc.Node, detail string) int {
		r := key.Range
		return b.add(symbols.Symbol{Kind: kind, Name: key.Value, Container: t.name, Range: r, Embedded: embedded, Detail: detail})
	}
	for _, sec := range []struct {
		name string
		kind symbols.Kind
		defs map[string]*propDef
	}{{"properties", symbols.Property, t.props}, {"attributes", symbols.Attribute, t.attrs}} {
		for _, p := range t.n.Get(sec.name).Pairs() {
			d := sec.defs[p.Key.Value]
			if d == nil {
				continue
			}
			i := member(sec.kind, p.Key, c.propDetail(sec.kind, d, t, embedded))
			b.members[d] = i
			b.x.Symbols[i].Type = d.typeName
		}
	}
	for _, p := range t.n.Get("capabilities").Pairs() {
		cd := t.caps[p.Key.Value]
		if cd == nil {
			continue
		}
		detail := fmt.Sprintf("**capability** `%s` of `%s`", cd.name, t.name)
		if cd.typ != nil {
			detail += fmt.Sprintf("\n\ntype: `%s`", cd.typ.name)
		}
		writeDescriptionTo(&detail, cd.n)
		b.caps[cd] = member(symbols.Capability, p.Key, detail+declaredAt(p.Key, embedded))
	}
	for _, it := range t.n.Get("requirements").Items() {
		if it.Kind != yamlsrc.Mapping || len(it.Content) != 2 {
			continue
		}
		key, v := it.Content[0], it.Content[1]
		for _, rd := range t.reqs {
			if rd.n != it {
				continue
			}
			b.reqs[rd] = member(symbols.Requirement, key, reqDetail(rd, t)+declaredAt(key, embedded))
			if v.Kind == yamlsrc.Scalar {
				c.noteType(v, rd.capType)
				continue
			}
			c.noteType(v.Get("capability"), rd.capType)
			c.noteType(v.Get("node"), rd.nodeType)
			rel := v.Get("relationship")
			if rel != nil && rel.Kind == yamlsrc.Mapping {
				rel = rel.Get("type")
			}
			c.noteType(rel, rd.relType)
		}
	}
}

func reqDetail(rd *reqDef, t *typeDef) string {
	var d strings.Builder
	fmt.Fprintf(&d, "**requirement** `%s` of `%s`", rd.name, t.name)
	for _, kv := range [][2]string{{"capability", rd.capName}, {"node", rd.nodeName}, {"relationship", rd.relName}} {
		if kv[1] != "" {
			fmt.Fprintf(&d, "\n\n%s: `%s`", kv[0], kv[1])
		}
	}
	upper := "UNBOUNDED"
	if rd.max >= 0 {
		upper = itoa(int64(rd.max))
	}
	fmt.Fprintf(&d, "\n\noccurrences: [%d, %s]", rd.min, upper)
	return d.String()
}

// propDetail describes a property or attribute definition. Its default
// is shown unless the definition is sensitive.
func (c *compiler) propDetail(kind symbols.Kind, d *propDef, owner *typeDef, embedded bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s** `%s` of `%s`", kind, d.name, owner.name)
	if d.typeName != "" {
		fmt.Fprintf(&b, "\n\ntype: `%s`", d.typeName)
	}
	if kind == symbols.Property {
		fmt.Fprintf(&b, "\n\nrequired: %t", d.required)
	}
	if d.hasDefault {
		if d.sensitive {
			b.WriteString("\n\ndefault: (sensitive, not shown)")
		} else if v := d.def.Interface(); v != nil {
			js, err := json.Marshal(v)
			if err == nil {
				b.WriteString("\n\ndefault: `" + clipText(string(js), 200) + "`")
			}
		}
	}
	if len(d.constraints) > 0 && !d.sensitive {
		var cs []string
		for _, con := range d.constraints {
			cs = append(cs, "`"+con.String()+"`")
		}
		b.WriteString("\n\nconstraints: " + strings.Join(cs, ", "))
	}
	if d.status != "" {
		b.WriteString("\n\nstatus: " + d.status)
	}
	writeDescription(&b, d.n)
	if !embedded {
		b.WriteString("\n\ndefined at " + d.key.String())
	}
	return b.String()
}

func (c *compiler) indexTopology(b *symbolBuilder) {
	t := c.topo
	for _, p := range t.n.Get("inputs").Pairs() {
		in := t.inputs[p.Key.Value]
		if in == nil || in.d == nil {
			continue
		}
		detail := c.propDetail(symbols.Property, in.d, &typeDef{name: "inputs"}, false)
		detail = strings.Replace(detail, "**property**", "**input**", 1)
		detail = strings.Replace(detail, " of `inputs`", "", 1)
		b.inputs[in] = b.add(symbols.Symbol{Kind: symbols.Input, Name: in.name, Range: p.Key.Range, Type: in.d.typeName, Detail: detail})
	}
	for _, nt := range t.nodeList {
		d := fmt.Sprintf("**node template** `%s`", nt.name)
		typeName := ""
		if nt.typ != nil {
			typeName = nt.typ.name
			d += fmt.Sprintf("\n\ntype: `%s`", typeName)
		}
		writeDescriptionTo(&d, nt.n)
		b.nodes[nt] = b.add(symbols.Symbol{Kind: symbols.NodeTemplate, Name: nt.name, Range: nt.key, Type: typeName, Detail: d})
	}
	for _, nt := range t.nodeList {
		if nt.typ == nil {
			continue
		}
		for _, sec := range []struct {
			n    *yamlsrc.Node
			defs map[string]*propDef
		}{{nt.propsN, nt.typ.props}, {nt.attrsN, nt.typ.attrs}} {
			for _, p := range sec.n.Pairs() {
				if i, ok := b.members[sec.defs[p.Key.Value]]; ok {
					b.ref(p.Key.Range, i)
				}
			}
		}
		for _, p := range nt.capsN.Pairs() {
			if i, ok := b.caps[nt.typ.caps[p.Key.Value]]; ok {
				b.ref(p.Key.Range, i)
			}
		}
		for _, ra := range nt.reqs {
			if i, ok := b.reqs[ra.def]; ok {
				b.ref(ra.key, i)
			}
			if target := t.nodes[ra.nodeName]; target != nil && ra.nodeN != nil {
				b.ref(ra.nodeN.Range, b.nodes[target])
			}
		}
	}
	add := func(kind symbols.Kind, name string, key diag.Range, typ *typeDef, n *yamlsrc.Node) {
		d := fmt.Sprintf("**%s** `%s`", kind, name)
		typeName := ""
		if typ != nil {
			typeName = typ.name
			d += fmt.Sprintf("\n\ntype: `%s`", typeName)
		}
		writeDescriptionTo(&d, n)
		b.add(symbols.Symbol{Kind: kind, Name: name, Range: key, Type: typeName, Detail: d})
	}
	for _, name := range slices.Sorted(maps.Keys(t.rels)) {
		rt := t.rels[name]
		add(symbols.RelationshipTemplate, rt.name, rt.key, rt.typ, rt.n)
	}
	for _, name := range slices.Sorted(maps.Keys(t.groups)) {
		g := t.groups[name]
		add(symbols.Group, g.name, g.key, g.typ, g.n)
	}
	for _, p := range t.policies {
		add(symbols.Policy, p.name, p.key, p.typ, p.n)
	}
	for _, p := range t.n.Get("outputs").Pairs() {
		add(symbols.Output, p.Key.Value, p.Key.Range, nil, p.Value)
	}
}
