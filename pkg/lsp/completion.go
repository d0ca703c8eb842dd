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
}

var keyLine = regexp.MustCompile(`^([^\s:#{}\[\],][^:#]*?):(?:\s+(.*))?$`)

// cursorAt reads the cursor context of a position.
func cursorAt(t *text, p protocol.Position) cursor {
	line := int(p.Line)
	l := t.line(line)
	before := l[:min(byteIndex(l, int(p.Character)), len(l))]
	indent, content := itemContent(before)
	var c cursor
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
// does, each name replaced by "*".
func place(path []string) string {
	out := slices.Clone(path)
	for i := range out {
		switch {
		case i == 1 && strings.HasSuffix(out[0], "_types"),
			i == 2 && out[0] == "topology_template" && out[1] != "substitution_mappings",
			i == 3 && strings.HasSuffix(out[0], "_types") && isMemberSection(out[2]),
			i == 4 && out[0] == "topology_template" && isMemberSection(out[3]):
			out[i] = "*"
		}
	}
	return strings.Join(out, ".")
}

func isMemberSection(s string) bool {
	switch s {
	case "properties", "attributes", "capabilities", "requirements", "interfaces", "artifacts":
		return true
	}
	return false
}

func (s *server) completion(_ *glsp.Context, p *protocol.CompletionParams) (any, error) {
	d, res, compiled := s.document(p.TextDocument.URI)
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
		items = toscaItems(c, res.Index)
	}
	return protocol.CompletionList{IsIncomplete: false, Items: items}, nil
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
// `{ get_input: ` or `{ get_property: [ `.
var functionCall = regexp.MustCompile(`\{\s*(\w+)\s*:\s*(\[\s*)?([\w.]*)$`)

func toscaItems(c cursor, x *symbols.Index) []protocol.CompletionItem {
	version := x.Version
	templates := func() []protocol.CompletionItem {
		return names(x.Names(symbols.NodeTemplate, ""), protocol.CompletionItemKindReference, "node template")
	}
	if c.key == "" {
		pl := place(c.path)
		n := len(c.path)
		// In a section of a template: the names its type defines.
		if n == 4 && c.path[0] == "topology_template" && c.path[1] == "node_templates" {
			tpl, _ := x.Lookup(symbols.NodeTemplate, c.path[2])
			typ := tpl.Type
			switch c.path[3] {
			case "properties":
				return members(x.Members(typ, symbols.Property), protocol.CompletionItemKindProperty, ": ")
			case "attributes":
				return members(x.Members(typ, symbols.Attribute), protocol.CompletionItemKindProperty, ": ")
			case "requirements":
				return members(x.Members(typ, symbols.Requirement), protocol.CompletionItemKindField, ": ")
			case "capabilities":
				return members(x.Members(typ, symbols.Capability), protocol.CompletionItemKindField, ":")
			}
		}
		keys := tosca.Keynames(version, pl)
		out := make([]protocol.CompletionItem, 0, len(keys))
		for _, k := range keys {
			out = append(out, item(k, protocol.CompletionItemKindKeyword, "keyname", k+": "))
		}
		return out
	}
	if m := functionCall.FindStringSubmatch(c.value); m != nil {
		switch m[1] {
		case "get_input":
			return names(x.Names(symbols.Input, ""), protocol.CompletionItemKindVariable, "input")
		case "get_property", "get_attribute", "get_artifact", "get_operation_output":
			if m[2] != "" {
				out := names([]string{"SELF", "SOURCE", "TARGET", "HOST"}, protocol.CompletionItemKindKeyword, "entity")
				return append(out, templates()...)
			}
		}
	}
	if strings.HasSuffix(strings.TrimSpace(c.value), "{") {
		out := []protocol.CompletionItem{}
		for _, f := range tosca.Functions() {
			out = append(out, item(f, protocol.CompletionItemKindFunction, "function", f+": "))
		}
		return out
	}
	pl := place(c.path)
	n := len(c.path)
	switch {
	case c.key == "type" || c.key == "derived_from":
		if c.key == "type" && n >= 1 && (c.path[n-1] == "relationship") {
			return names(x.Names(symbols.Type, "relationship type"), protocol.CompletionItemKindClass, "relationship type")
		}
		if kind := tosca.TypeSection(pl); kind != "" {
			out := names(x.Names(symbols.Type, kind), protocol.CompletionItemKindClass, kind)
			if kind == "data type" && c.key == "type" {
				out = append(names(tosca.PrimitiveTypes(), protocol.CompletionItemKindTypeParameter, "primitive type"), out...)
			}
			return out
		}
	case n == 4 && c.path[0] == "topology_template" && c.path[3] == "requirements":
		return templates()
	case n == 5 && c.path[0] == "topology_template" && c.path[3] == "requirements":
		switch c.key {
		case "node":
			return templates()
		case "capability":
			return names(x.Names(symbols.Type, "capability type"), protocol.CompletionItemKindClass, "capability type")
		case "relationship":
			return names(x.Names(symbols.Type, "relationship type"), protocol.CompletionItemKindClass, "relationship type")
		}
	case n >= 3 && strings.HasSuffix(c.path[0], "_types") && c.path[n-1] != "properties":
		switch c.key {
		case "node":
			return names(x.Names(symbols.Type, "node type"), protocol.CompletionItemKindClass, "node type")
		case "capability":
			return names(x.Names(symbols.Type, "capability type"), protocol.CompletionItemKindClass, "capability type")
		case "relationship":
			return names(x.Names(symbols.Type, "relationship type"), protocol.CompletionItemKindClass, "relationship type")
		}
	case n == 0 && c.key == "tosca_definitions_version":
		return names([]string{"tosca_simple_yaml_1_0", "tosca_simple_yaml_1_1", "tosca_simple_yaml_1_2", "tosca_simple_yaml_1_3"}, protocol.CompletionItemKindEnumMember, "TOSCA version")
	}
	return []protocol.CompletionItem{}
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
