package lsp

import (
	"cmp"
	"slices"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/symbols"
)

// tokenTypes is the legend of the semantic tokens: what each name the
// compiler resolved is, so that an editor colours a template name apart
// from a type name or an input; tokenDeclaration the one modifier.
var tokenTypes = []string{"type", "variable", "parameter", "property", "function", "namespace", "event"}

const tokenDeclaration = 1

func tokenType(k symbols.Kind) (int, bool) {
	switch k {
	case symbols.Type, symbols.ComponentKind:
		return 0, true
	case symbols.NodeTemplate, symbols.RelationshipTemplate, symbols.Component:
		return 1, true
	case symbols.Input, symbols.Output:
		return 2, true
	case symbols.Property, symbols.Attribute, symbols.Requirement, symbols.Capability:
		return 3, true
	case symbols.File, symbols.Group, symbols.Policy, symbols.Application:
		return 5, true
	case symbols.Pin:
		return 6, true
	case symbols.Function:
		return 4, true
	}
	return 0, false
}

// token is one semantic token before encoding.
type token struct {
	r         protocol.Range
	typ, mods int
}

func (s *server) semanticTokens(_ *glsp.Context, p *protocol.SemanticTokensParams) (*protocol.SemanticTokens, error) {
	d, res, compiled := s.document(p.TextDocument.URI)
	if d == nil || !compiled {
		return &protocol.SemanticTokens{Data: []protocol.UInteger{}}, nil
	}
	path := d.path
	x := res.Index
	var toks []token
	add := func(r diag.Range, typ, mods int) {
		if r.File != path || r.Start.IsZero() || r.End.Line != r.Start.Line || r.End.Column <= r.Start.Column {
			return
		}
		toks = append(toks, token{d.text.rangeOf(r), typ, mods})
	}
	for _, sym := range x.Symbols {
		if t, ok := tokenType(sym.Kind); ok && sym.Kind != symbols.File && !sym.Embedded {
			add(sym.Range, t, tokenDeclaration)
		}
	}
	for _, r := range x.References {
		if t, ok := tokenType(x.Symbols[r.Symbol].Kind); ok {
			add(r.Range, t, 0)
		}
	}
	for _, c := range x.Calls {
		add(c.Range, 4, 0)
	}
	return &protocol.SemanticTokens{Data: encodeTokens(toks)}, nil
}

// encodeTokens sorts the tokens, drops those that overlap an earlier one,
// and encodes them relative to each other as the protocol asks.
func encodeTokens(toks []token) []protocol.UInteger {
	slices.SortStableFunc(toks, func(a, b token) int {
		return cmp.Or(cmp.Compare(a.r.Start.Line, b.r.Start.Line), cmp.Compare(a.r.Start.Character, b.r.Start.Character))
	})
	data := []protocol.UInteger{}
	var line, char, end protocol.UInteger
	first := true
	for _, t := range toks {
		if !first && t.r.Start.Line == line && t.r.Start.Character < end {
			continue
		}
		dl, dc := t.r.Start.Line-line, t.r.Start.Character
		if !first && dl == 0 {
			dc -= char
		}
		data = append(data, dl, dc, t.r.End.Character-t.r.Start.Character, protocol.UInteger(t.typ), protocol.UInteger(t.mods))
		line, char, end, first = t.r.Start.Line, t.r.Start.Character, t.r.End.Character, false
	}
	return data
}
