package lsp

import (
	"slices"
	"strconv"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/xosplan/xosplan/pkg/diag"
)

// suggestionKey names, in an LSP diagnostic's data, the replacement a
// diagnostic suggests (diag.Diagnostic.Suggestion).
const suggestionKey = "suggestion"

// codeAction answers textDocument/codeAction with a quick fix for each
// diagnostic in the range asked about that has one obvious fix (a
// misspelt type, property or keyname: the nearest declared name, the
// "did you mean" of its message): replace the name with it. The fixes
// come from the server's own last compile of the document, so a client
// that does not send diagnostics back (or their data) gets them too; none
// is offered while a change waits to be compiled, since its ranges would
// be stale.
func (s *server) codeAction(_ *glsp.Context, p *protocol.CodeActionParams) (any, error) {
	path, ok := pathOf(p.TextDocument.URI)
	if !ok {
		return nil, nil
	}
	s.mu.Lock()
	d, stale := s.docs[path], s.pending[path]
	res, compiled := s.results[path]
	texts := make(map[string]*document, len(s.docs))
	for q, doc := range s.docs {
		cp := *doc
		texts[q] = &cp
	}
	s.mu.Unlock()
	actions := []protocol.CodeAction{}
	kind := protocol.CodeActionKindQuickFix
	if d == nil || !compiled || stale || res.Format == "" ||
		p.Context.Only != nil && !slices.Contains(p.Context.Only, kind) {
		return actions, nil
	}
	// Only a diagnostic with a suggestion can give a fix: convert those,
	// not every diagnostic of the document on each request.
	var fixable diag.Diagnostics
	for _, x := range res.Diags {
		if x.Suggestion != "" {
			fixable = append(fixable, x)
		}
	}
	preferred := true
	for _, pd := range s.convert(path, d.text, fixable, texts) {
		data, _ := pd.Data.(map[string]any)
		fix, _ := data[suggestionKey].(string)
		if fix == "" || !overlaps(pd.Range, p.Range) {
			continue
		}
		actions = append(actions, protocol.CodeAction{
			Title:       "Change to " + strconv.Quote(fix),
			Kind:        &kind,
			Diagnostics: []protocol.Diagnostic{pd},
			IsPreferred: &preferred,
			Edit: &protocol.WorkspaceEdit{Changes: map[protocol.DocumentUri][]protocol.TextEdit{
				d.uri: {{Range: pd.Range, NewText: fix}},
			}},
		})
	}
	return actions, nil
}

// overlaps reports whether two ranges share a position, an empty range
// (a cursor) touching the other's ends included.
func overlaps(a, b protocol.Range) bool {
	before := func(x, y protocol.Position) bool {
		return x.Line < y.Line || x.Line == y.Line && x.Character < y.Character
	}
	return !before(a.End, b.Start) && !before(b.End, a.Start)
}
