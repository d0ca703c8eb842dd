package lsp

import (
	"regexp"
	"slices"
	"strings"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"
	"github.com/xosplan/xosplan/pkg/config"
	"github.com/xosplan/xosplan/pkg/manifest"
	"github.com/xosplan/xosplan/pkg/symbols"
	"github.com/xosplan/xosplan/pkg/tosca"
)

// cursor is where completion is asked for, read from the buffer's lines
// by their indentation: a buffer being typed rarely parses, so the
// compiler's tree cannot say where the cursor is.
type cursor struct {
	// path lists the keys of the maps that enclose the cursor, outermost
	// first (list items add nothing).
	path []string
	// key is the key whose value the cursor is in; "" when the cursor is
	// where a key is written.
	key string
	// value is what is typed of the value before the cursor.
	value string
	// typed is what is typed of the line before the cursor, after its
	// indentation and list dashes.
	typed string
}

var keyLine = regexp.MustCompile(`^([^\s:#{}\[\],][^:#]*?):(?:\s+(.*))?$`)

// cursorAt reads the cursor context of a position.
func cursorAt(t *text, p protocol.Position) cursor {
	line := int(p.Line)
	l := t.line(line)
	before := l[:min(byteIndex(l, int(p.Character)), len(l))]
	indent, content := itemContent(before)
	c := cursor{typed: content}
	if m := keyLine.FindStringSubmatch(content); m != nil {
		c.key, c.value = strings.TrimSpace(m[1]), m[2]
		if c.key != "" && strings.HasSuffix(content, ":") {
			c.value = ""
		}
	}
	for i := line - 1; i >= 0 && indent > 0; i-- {
		l := t.line(i)
		trimmed := strings.TrimSpace(l)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		lead := len(l) - len(strings.TrimLeft(l, " "))
		ind, content := itemContent(l)
		m := keyLine.FindStringSubmatch(content)
		switch {
		case ind < indent && m != nil:
			if m[2] == "" || strings.HasPrefix(m[2], "#") {
				c.path = append(c.path, strings.TrimSpace(m[1]))
			}
			indent = ind
			if lead < ind {
				// A list item's first key: the list's key is above the
				// dash.
				indent = lead
			}
		case lead < indent:
			indent = lead
		}
	}
	slices.Reverse(c.path)
	return c
}

// itemContent returns the indentation of a line's content and the
// content, a list item's dash taken as indentation.
func itemContent(l string) (int, string) {
	i := len(l) - len(strings.TrimLeft(l, " "))
	for strings.HasPrefix(l[i:], "- ") {
		i += 2
		i += len(l[i:]) - len(strings.TrimLeft(l[i:], " "))
	}
	if l[i:] == "-" {
		i++
	}
	return i, l[i:]
}

// place names the grammar's place of a TOSCA path as tosca.Keynames
// does: each name replaced by "*", a name being the key of an entry of a
// map of names (node_templates, properties, node_types, …) that is not
// itself such a name.
func place(path []string) string {
	out := slices.Clone(path)
	for i := 1; i < len(out); i++ {
		if out[i-1] != "*" && namesMap(out[i-1], i-1) {
			out[i] = "*"
		}
	}
	return strings.Join(out, ".")
}

// namesMap reports whether a key at depth i holds a map of names.
func namesMap(key string, i int) bool {
	switch key {
	case "node_templates", "relationship_templates", "groups", "policies", "inputs", "outputs", "properties",
		"attributes", "capabilities", "requirements", "interfaces", "artifacts", "operations", "notifications",
		"workflows", "steps", "triggers":
		return true
	case "functions", "repositories", "imports", "dsl_definitions":
		return i == 0 || key == "functions" && i == 1
	}
	return i == 0 && strings.HasSuffix(key, "_types")
}

func (s *server) completion(_ *glsp.Context, p *protocol.CompletionParams) (any, error) {
	d, res, compiled := s.lastGood(p.TextDocument.URI)
	if d == nil {
		return nil, nil
	}
	if !compiled {
		res = config.Document{Format: config.FormatTOSCA, Index: &symbols.Index{}}
		if strings.HasPrefix(d.text.src, "application:") {
			res.Format = config.FormatManifest
		}
	}
	c := cursorAt(d.text, p.Position)
	var items []protocol.CompletionItem
	if res.Format == config.FormatManifest {
		items = manifestItems(c, res.Index)
	} else {
		version := res.Index.Version
		if version == "" {
			version = writtenVersion(d.text)
		}
		items = toscaItems(c, res.Index, version)
	}
	return protocol.CompletionList{IsIncomplete: false, Items: items}, nil
}

// versionLine matches the line that gives a file's TOSCA version.
var versionLine = regexp.MustCompile(`(?m)^tosca_definitions_version:\s*["']?([\w.:/-]+)`)

// writtenVersion reads the TOSCA version a buffer gives, for a buffer
// never compiled: the grammar completion offers follows it.
func writtenVersion(t *text) string {
	if m := versionLine.FindStringSubmatch(t.src); m != nil {
		return m[1]
	}
	return ""
}

func item(label string, kind protocol.CompletionItemKind, detail, insert string) protocol.CompletionItem {
	it := protocol.CompletionItem{Label: label, Kind: &kind}
	if detail != "" {
		it.Detail = &detail
	}
	if insert != "" && insert != label {
		it.InsertText = &insert
	}
	return it
}

func names(list []string, kind protocol.CompletionItemKind, detail string) []protocol.CompletionItem {
	out := make([]protocol.CompletionItem, 0, len(list))
	for _, n := range list {
		out = append(out, item(n, kind, detail, ""))
	}
	return out
}

func members(list []symbols.Symbol, kind protocol.CompletionItemKind, suffix string) []protocol.CompletionItem {
	out := make([]protocol.CompletionItem, 0, len(list))
	for _, m := range list {
		it := item(m.Name, kind, m.Type, m.Name+suffix)
		it.Documentation = markdown(m.Detail)
		out = append(out, it)
	}
	return out
}

// functionCall matches a function call being written in a flow map:
// `{ get_input: ` or `{ get_property: [ ` (TOSCA 2.0: `{ $get_input: `).
var functionCall = regexp.MustCompile(`\{\s*(\$?\w+)\s*:\s*(\[\s*)?([\w.:]*)$`)

func toscaItems(c cursor, x *symbols.Index, version string) []protocol.CompletionItem {
	t := toscaCompletion{c: c, x: x, version: version, v2: tosca.IsVersion2(version), topo: tosca.PlaceTopology}
	if t.v2 {
		t.topo = "service_template"
	}
	if c.key == "" {
		return t.keys()
	}
	value := strings.TrimSpace(c.value)
	if out, ok := t.functionArguments(value); ok {
		return out
	}
	if strings.HasSuffix(value, "{") || t.v2 && (strings.HasSuffix(value, "{ $") || strings.HasSuffix(value, "{$") || value == "$") {
		if t.v2 {
			return t.functions("$", ": ")
		}
		return t.functions("", ": ")
	}
	if out := t.values(); out != nil {
		return out
	}
	return []protocol.CompletionItem{}
}

// toscaCompletion answers a completion at cursor c in a TOSCA document of
// the given version, from the index x of its configuration.
type toscaCompletion struct {
	c       cursor
	x       *symbols.Index
	version string
	v2      bool
	topo    string // the key of the topology: topology_template, or service_template in 2.0
}

func (t *toscaCompletion) templates() []protocol.CompletionItem {
	return names(t.x.Names(symbols.NodeTemplate, ""), protocol.CompletionItemKindReference, "node template")
}

func (t *toscaCompletion) typeNames(kind string) []protocol.CompletionItem {
	return names(t.x.TypesOf(kind), protocol.CompletionItemKindClass, kind)
}

// functions lists the built-in functions of the version (and in 2.0 the
// custom ones the configuration declares), written with prefix, inserted
// with suffix.
func (t *toscaCompletion) functions(prefix, suffix string) []protocol.CompletionItem {
	var out []protocol.CompletionItem
	for _, f := range tosca.Functions(t.version) {
		out = append(out, item(prefix+f, protocol.CompletionItemKindFunction, "function", prefix+f+suffix))
	}
	if t.v2 {
		for _, f := range t.x.Names(symbols.Function, "") {
			out = append(out, item("$"+f, protocol.CompletionItemKindFunction, "custom function", "$"+f+suffix))
		}
	}
	return out
}

// templateSections gives, for each section of a node template whose keys
// are names its type defines, the kind of those names, how they are shown
// and what follows a name inserted.
var templateSections = map[string]struct {
	kind   symbols.Kind
	item   protocol.CompletionItemKind
	suffix string
}{
	"properties":   {symbols.Property, protocol.CompletionItemKindProperty, ": "},
	"attributes":   {symbols.Attribute, protocol.CompletionItemKindProperty, ": "},
	"requirements": {symbols.Requirement, protocol.CompletionItemKindField, ": "},
	"capabilities": {symbols.Capability, protocol.CompletionItemKindField, ":"},
}

// keys answers where a key is being written: a function call written as a
// key (2.0), the names a template's type defines in a section of the
// template, or else the keynames of the place.
func (t *toscaCompletion) keys() []protocol.CompletionItem {
	c, n := t.c, len(t.c.path)
	if t.v2 && strings.HasPrefix(strings.TrimSpace(c.typed), "$") {
		// A function call written as a key: `$get_input: port`.
		return t.functions("$", ": ")
	}
	if sec, ok := templateSections[pathAt(c.path, 3)]; ok && n == 4 && c.path[0] == t.topo && c.path[1] == "node_templates" {
		tpl, _ := t.x.Lookup(symbols.NodeTemplate, c.path[2])
		var list []symbols.Symbol
		if i, ok := tpl.TypeRef.Index(); ok {
			list = t.x.MembersOf(i, sec.kind)
		} else {
			list = t.x.Members(tpl.Type, sec.kind)
		}
		return members(list, sec.item, sec.suffix)
	}
	keys := tosca.Keynames(t.version, place(c.path))
	out := make([]protocol.CompletionItem, 0, len(keys))
	for _, k := range keys {
		out = append(out, item(k, protocol.CompletionItemKindKeyword, "keyname", k+": "))
	}
	return out
}

// pathAt returns path[i], or "" when the path is shorter.
func pathAt(path []string, i int) string {
	if i < len(path) {
		return path[i]
	}
	return ""
}

// functionArguments answers inside a function call being written (in a
// flow map, or as a key in 2.0): the inputs of get_input, the entities and
// templates of get_property and its kin. ok is false elsewhere.
func (t *toscaCompletion) functionArguments(value string) (out []protocol.CompletionItem, ok bool) {
	c := t.c
	m := functionCall.FindStringSubmatch(c.value)
	if m == nil && !strings.HasPrefix(c.key, "$") {
		return nil, false
	}
	fn, list := c.key, strings.HasPrefix(value, "[")
	if m != nil {
		fn, list = m[1], m[2] != ""
	}
	if t.v2 != strings.HasPrefix(fn, "$") {
		return nil, false
	}
	switch strings.TrimPrefix(fn, "$") {
	case "get_input":
		return names(t.x.Names(symbols.Input, ""), protocol.CompletionItemKindVariable, "input"), true
	case "get_property", "get_attribute", "get_artifact", "get_operation_output":
		if !list {
			return nil, false
		}
		entities := []string{"SELF", "SOURCE", "TARGET", "HOST"}
		if t.v2 {
			entities = []string{"SELF", "SOURCE", "TARGET"}
		}
		return append(names(entities, protocol.CompletionItemKindKeyword, "entity"), t.templates()...), true
	}
	return nil, false
}

// values answers where a value is being written: type names, the targets
// of a requirement, the TOSCA versions; nil when it has nothing to offer.
func (t *toscaCompletion) values() []protocol.CompletionItem {
	c, n := t.c, len(t.c.path)
	switch {
	case c.key == "type" || c.key == "derived_from":
		return t.typeRefs()
	case n == 4 && c.path[0] == t.topo && c.path[3] == "requirements":
		return t.templates()
	case n == 5 && c.path[0] == t.topo && c.path[3] == "requirements":
		switch c.key {
		case "node":
			return t.templates()
		case "capability":
			return t.typeNames("capability type")
		case "relationship":
			out := t.typeNames("relationship type")
			return append(names(t.x.Names(symbols.RelationshipTemplate, ""), protocol.CompletionItemKindReference, "relationship template"), out...)
		}
	case n >= 3 && strings.HasSuffix(c.path[0], "_types") && c.path[n-1] != "properties":
		switch c.key {
		case "node", "capability", "relationship":
			return t.typeNames(c.key + " type")
		}
	case n == 0 && c.key == "tosca_definitions_version":
		return names(tosca.Versions(), protocol.CompletionItemKindEnumMember, "TOSCA version")
	}
	return nil
}

// typeRefs answers the value of `type` or `derived_from`: the types of
// the section's kind (relationship types in a requirement's
// `relationship`), with the primitive types before the data types of 1.x.
func (t *toscaCompletion) typeRefs() []protocol.CompletionItem {
	c, n := t.c, len(t.c.path)
	if c.key == "type" && n >= 1 && (c.path[n-1] == "relationship") {
		return t.typeNames("relationship type")
	}
	kind := tosca.TypeSection(place(c.path))
	if kind == "" {
		return nil
	}
	out := t.typeNames(kind)
	if kind == "data type" && c.key == "type" && !t.v2 {
		out = append(names(tosca.PrimitiveTypes(), protocol.CompletionItemKindTypeParameter, "primitive type"), out...)
	}
	return out
}

// manifestKeys lists the keys of a component (load.go's grammar).
var manifestKeys = []string{"bindings", "components", "configuration", "interfaces", "required", "type"}

func manifestItems(c cursor, x *symbols.Index) []protocol.CompletionItem {
	n := len(c.path)
	if c.key == "" {
		if n == 1 && c.path[0] == "application" || n >= 3 && c.path[n-2] == "components" {
			keys := manifestKeys
			if n == 1 {
				// Model policies belong to the application alone.
				keys = append(slices.Clone(keys), "policies")
			}
			out := []protocol.CompletionItem{}
			for _, k := range keys {
				out = append(out, item(k, protocol.CompletionItemKindKeyword, "keyname", k+": "))
			}
			return out
		}
		if n == 0 {
			return []protocol.CompletionItem{item("application", protocol.CompletionItemKindKeyword, "keyname", "application:\n  ")}
		}
		return []protocol.CompletionItem{}
	}
	switch {
	case c.key == "type" && n >= 3 && c.path[n-2] == "components":
		return names(x.Names(symbols.ComponentKind, ""), protocol.CompletionItemKindClass, "component type")
	case n >= 2 && c.path[n-2] == "interfaces":
		if strings.Contains(c.value, "bind(") {
			return bindTargets(c, x)
		}
		if strings.Contains(c.value, "(") {
			return names(manifest.PinTypes(), protocol.CompletionItemKindTypeParameter, "pin type")
		}
		out := []protocol.CompletionItem{}
		for _, k := range manifest.PinKinds() {
			out = append(out, item(k, protocol.CompletionItemKindEnumMember, "pin kind", k+"("))
		}
		return append(out, item("bind", protocol.CompletionItemKindFunction, "re-export a pin of a component below", "bind("))
	}
	return []protocol.CompletionItem{}
}

// bindTargets offers the pins declared below the component holding the
// cursor, as bind() names them: component path#interface.pin.
func bindTargets(c cursor, x *symbols.Index) []protocol.CompletionItem {
	var below []string
	for i := 1; i+1 < len(c.path); i++ {
		if c.path[i] == "components" {
			below = append(below, c.path[i+1])
		}
	}
	prefix := strings.Join(below, ".")
	out := []protocol.CompletionItem{}
	for _, sym := range x.Symbols {
		if sym.Kind != symbols.Pin {
			continue
		}
		_, comp, ok := strings.Cut(sym.Container, ".")
		if !ok {
			continue
		}
		rel := comp
		if prefix != "" {
			if rel, ok = strings.CutPrefix(comp, prefix+"."); !ok {
				continue
			}
		}
		out = append(out, item(rel+"#"+sym.Name, protocol.CompletionItemKindReference, sym.Type, ""))
	}
	return out
}
