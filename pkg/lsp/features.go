package lsp

import (
	"maps"
	"slices"
	"strings"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"
	"github.com/xosplan/xosplan/pkg/config"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/symbols"
)

// at is what a request about a position of an open document sees: the
// document and the last compile of it. The compile may be of an older
// version while changes are debounced; positions are those it read.
type at struct {
	doc       *document
	res       config.Document
	line, col int
}

// document returns the open document of a URI (nil when it is not open)
// and its last compile (compiled is false before the first).
func (s *server) document(uri protocol.DocumentUri) (d *document, res config.Document, compiled bool) {
	return s.compiled(uri, false)
}

// lastGood is document, with the last compile whose text parsed instead
// of a later one that did not: while an unclosed { or a half-written
// line breaks the YAML, the names of the last good text are what
// completion and hover can offer. Positions are then those of that text.
func (s *server) lastGood(uri protocol.DocumentUri) (d *document, res config.Document, compiled bool) {
	return s.compiled(uri, true)
}

func (s *server) compiled(uri protocol.DocumentUri, good bool) (d *document, res config.Document, compiled bool) {
	path, ok := pathOf(uri)
	if !ok {
		return nil, res, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	res, compiled = s.results[path]
	if last, ok := s.good[path]; good && compiled && ok && !parsed(path, res) {
		res = last
	}
	return s.docs[path], res, compiled
}

// parsed reports whether a compile read its document as one of our
// formats, its YAML without syntax errors.
func parsed(path string, res config.Document) bool {
	if res.Format == "" {
		return false
	}
	for _, d := range res.Diags {
		if d.Severity == diag.Error && d.Range.File == path && strings.HasPrefix(d.Code, "yaml.") {
			return false
		}
	}
	return true
}

// lookup finds the document and compile of a position request (the
// last good one, see lastGood); ok is false when the document is not
// open or not compiled yet.
func (s *server) lookup(p protocol.TextDocumentPositionParams) (at, bool) {
	d, res, compiled := s.lastGood(p.TextDocument.URI)
	if d == nil || !compiled {
		return at{}, false
	}
	return at{doc: d, res: res, line: int(p.Position.Line) + 1, col: d.text.column(p.Position)}, true
}

func (s *server) hover(_ *glsp.Context, p *protocol.HoverParams) (*protocol.Hover, error) {
	a, ok := s.lookup(p.TextDocumentPositionParams)
	if !ok {
		return nil, nil
	}
	x := a.res.Index
	if c, ok := x.CallAt(a.doc.path, a.line, a.col); ok {
		r := a.doc.text.rangeOf(c.Range)
		return &protocol.Hover{Contents: markdown("**"+c.Function+"**", "resolves to "+c.Result), Range: &r}, nil
	}
	i, ok := x.SymbolAt(a.doc.path, a.line, a.col)
	if !ok {
		return nil, nil
	}
	sym := x.Symbols[i]
	detail := sym.Detail
	if detail == "" {
		detail = "**" + sym.Kind.String() + "** `" + sym.Name + "`"
	}
	return &protocol.Hover{Contents: markdown(detail)}, nil
}

func (s *server) definition(_ *glsp.Context, p *protocol.DefinitionParams) (any, error) {
	a, ok := s.lookup(p.TextDocumentPositionParams)
	if !ok {
		return nil, nil
	}
	x := a.res.Index
	i, ok := x.SymbolAt(a.doc.path, a.line, a.col)
	if !ok || x.Symbols[i].Embedded {
		return nil, nil
	}
	return s.location(x.Symbols[i].Range), nil
}

func (s *server) references(_ *glsp.Context, p *protocol.ReferenceParams) ([]protocol.Location, error) {
	a, ok := s.lookup(p.TextDocumentPositionParams)
	if !ok {
		return nil, nil
	}
	x := a.res.Index
	i, ok := x.SymbolAt(a.doc.path, a.line, a.col)
	if !ok {
		return nil, nil
	}
	want := x.Symbols[i]
	// The same definition, as each open document's compile saw it: a
	// type file's types are named by the templates that import it.
	s.mu.Lock()
	indexes := []*symbols.Index{x}
	for _, path := range slices.Sorted(maps.Keys(s.results)) {
		if r := s.results[path].Index; r != x {
			indexes = append(indexes, r)
		}
	}
	s.mu.Unlock()
	seen := map[diag.Range]bool{}
	out := []protocol.Location{}
	add := func(r diag.Range) {
		if !seen[r] {
			seen[r] = true
			out = append(out, s.location(r))
		}
	}
	if p.Context.IncludeDeclaration && !want.Embedded {
		add(want.Range)
	}
	for _, ix := range indexes {
		for j, sym := range ix.Symbols {
			if sym.Kind == want.Kind && sym.Name == want.Name && sym.Container == want.Container && sym.Range == want.Range {
				for _, r := range ix.ReferencesTo(j) {
					add(r)
				}
			}
		}
	}
	return out, nil
}

// location converts a range of any file, open or not.
func (s *server) location(r diag.Range) protocol.Location {
	s.mu.Lock()
	d := s.docs[r.File]
	s.mu.Unlock()
	var t *text
	if d != nil {
		t = d.text
	}
	return protocol.Location{URI: uriOf(r.File), Range: t.rangeOf(r)}
}

// outlineKinds maps the symbols an outline shows to LSP symbol kinds.
func outlineKind(k symbols.Kind) (protocol.SymbolKind, bool) {
	switch k {
	case symbols.Type:
		return protocol.SymbolKindClass, true
	case symbols.NodeTemplate, symbols.RelationshipTemplate, symbols.Component:
		return protocol.SymbolKindObject, true
	case symbols.Group, symbols.Policy:
		return protocol.SymbolKindNamespace, true
	case symbols.Input:
		return protocol.SymbolKindVariable, true
	case symbols.Output:
		return protocol.SymbolKindConstant, true
	case symbols.Property, symbols.Attribute:
		return protocol.SymbolKindProperty, true
	case symbols.Requirement, symbols.Capability:
		return protocol.SymbolKindField, true
	case symbols.Pin:
		return protocol.SymbolKindEvent, true
	case symbols.Function:
		return protocol.SymbolKindFunction, true
	}
	return 0, false
}

func (s *server) documentSymbol(_ *glsp.Context, p *protocol.DocumentSymbolParams) (any, error) {
	d, res, compiled := s.document(p.TextDocument.URI)
	if d == nil || !compiled {
		return []protocol.DocumentSymbol{}, nil
	}
	path := d.path
	out := []protocol.DocumentSymbol{}
	// Members follow their container in declaration order; they nest
	// under it (ContainerRef), else under the last container of their
	// name.
	byName := map[string]int{}
	byRef := map[symbols.Ref]int{}
	for i, sym := range res.Index.Symbols {
		kind, shown := outlineKind(sym.Kind)
		if !shown || sym.Embedded || sym.Range.File != path {
			continue
		}
		r := d.text.rangeOf(sym.Range)
		ds := protocol.DocumentSymbol{Name: sym.Name, Kind: kind, Range: r, SelectionRange: r}
		detail := sym.Kind.String()
		if sym.Type != "" {
			detail += ": " + sym.Type
		}
		ds.Detail = &detail
		at, nested := byRef[sym.ContainerRef]
		if sym.ContainerRef == 0 {
			at, nested = byName[sym.Container]
			nested = nested && sym.Container != ""
		}
		if nested {
			out[at].Children = append(out[at].Children, ds)
			continue
		}
		if sym.Kind == symbols.Type || sym.Kind == symbols.Component {
			key := sym.Name
			if sym.Kind == symbols.Component {
				key = sym.Container + "." + sym.Name
			}
			byName[key] = len(out)
			byRef[symbols.RefTo(i)] = len(out)
		}
		out = append(out, ds)
	}
	return out, nil
}
