package lsp

import (
	"context"
	"maps"
	"slices"
	"strings"

	protocol "github.com/tliron/glsp/protocol_3_16"
	"github.com/xosplan/xosplan/pkg/config"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/symbols"
)

// compilePending compiles every pending document against a snapshot of
// the open buffers and publishes its diagnostics. A compile that
// panics is logged and publishes nothing; the others go on. When a change
// stops the batch (schedule), what is left of it is pending again and
// publishes nothing stale.
func (s *server) compilePending() {
	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	s.mu.Lock()
	s.running = cancel
	defer func() {
		s.mu.Lock()
		s.running = nil
		s.mu.Unlock()
	}()
	paths := slices.Sorted(maps.Keys(s.pending))
	clear(s.pending)
	buffers := make(config.Buffers, len(s.docs))
	texts := make(map[string]*document, len(s.docs))
	for p, d := range s.docs {
		buffers[p] = []byte(d.text.src)
		cp := *d
		texts[p] = &cp
	}
	folders, announced := slices.Clone(s.folders), s.announced
	s.mu.Unlock()
	for i, path := range paths {
		d := texts[path]
		if d == nil {
			continue
		}
		res, ok := s.compile(ctx, path, s.confine(path, folders, announced), buffers)
		if ctx.Err() != nil {
			s.mu.Lock()
			for _, p := range paths[i:] {
				if s.docs[p] != nil {
					s.pending[p] = true
				}
			}
			s.mu.Unlock()
			return
		}
		if !ok {
			continue
		}
		s.mu.Lock()
		if s.docs[path] != nil {
			s.results[path] = res
			if parsed(path, res) {
				s.good[path] = res
			}
		}
		conn := s.conn
		s.mu.Unlock()
		version := protocol.UInteger(max(d.version, 0))
		published := []protocol.Diagnostic{}
		if res.Format != "" {
			// A YAML file of no format of ours (a Kubernetes object, a
			// playbook, CI configuration) is not ours to judge: it gets no
			// diagnostics, not "neither a TOSCA template nor a manifest".
			published = s.convert(path, d.text, res.Diags, texts)
		}
		_ = conn.Notify(s.ctx, protocol.ServerTextDocumentPublishDiagnostics, protocol.PublishDiagnosticsParams{
			URI: d.uri, Version: &version, Diagnostics: published})
	}
}

// compile compiles one document confined as c says (workspace.go); ok is
// false when the compiler panicked (a bug, logged).
func (s *server) compile(ctx context.Context, path string, c confinement, buffers config.Buffers) (doc config.Document, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			s.logf("internal error while compiling %s: %v (this is a bug in xosplan; please report it with the file)", path, r)
			ok = false
		}
	}()
	return config.CompileDocument(ctx, path, config.DocumentOptions{Root: c.root, Alone: c.alone, Buffers: buffersFor(c, path, buffers),
		ImportMap: s.opts.ImportMap, Profiles: s.profiles, Parses: s.parses}), true
}

// convert turns the diagnostics of a compile that lie in path into LSP
// diagnostics, as validate reports them: code, severity, range, summary
// and detail, and the related places (in any file). A diagnostic without
// a position in the file (a file that cannot be read) is put at its
// start. Sensitive diagnostics quote nothing by construction.
func (s *server) convert(path string, t *text, diags diag.Diagnostics, texts map[string]*document) []protocol.Diagnostic {
	out := []protocol.Diagnostic{}
	source := "xosplan"
	for _, d := range diags {
		if d.Range.File != path {
			// A problem of an imported file that is not open shows at
			// the import that reads it; an open one shows it itself.
			at, ok := s.importOf(path, d.Range.File, texts)
			if !ok {
				continue
			}
			d.Summary = "in " + d.Range.String() + ": " + d.Summary
			d.Range = at
		}
		sev := protocol.DiagnosticSeverityError
		if d.Severity == diag.Warning {
			sev = protocol.DiagnosticSeverityWarning
		}
		msg := d.Summary
		if d.Detail != "" && len(d.Related) == 0 {
			msg += "\n" + d.Detail
		}
		pd := protocol.Diagnostic{Range: t.rangeOf(d.Range), Severity: &sev, Source: &source, Message: msg}
		if d.Code != "" {
			pd.Code = &protocol.IntegerOrString{Value: d.Code}
		}
		if d.Suggestion != "" {
			pd.Data = map[string]any{suggestionKey: d.Suggestion}
		}
		for _, r := range d.Related {
			var rt *text
			if o := texts[r.Range.File]; o != nil {
				rt = o.text
			} else if r.Range.File == path {
				rt = t
			}
			pd.RelatedInformation = append(pd.RelatedInformation, protocol.DiagnosticRelatedInformation{
				Location: protocol.Location{URI: uriOf(r.Range.File), Range: rt.rangeOf(r.Range)}, Message: r.Message})
		}
		out = append(out, pd)
	}
	return out
}

// importOf returns where the document at path imports file, when file
// is not open.
func (s *server) importOf(path, file string, texts map[string]*document) (diag.Range, bool) {
	if texts[file] != nil || file == "" {
		return diag.Range{}, false
	}
	s.mu.Lock()
	res, ok := s.results[path]
	s.mu.Unlock()
	if !ok {
		return diag.Range{}, false
	}
	x := res.Index
	for _, r := range x.References {
		if r.Range.File == path && x.Symbols[r.Symbol].Kind == symbols.File && x.Symbols[r.Symbol].Name == file {
			return r.Range, true
		}
	}
	return diag.Range{}, false
}

// markdown builds the Markdown of a hover.
func markdown(parts ...string) protocol.MarkupContent {
	return protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: strings.Join(parts, "\n\n")}
}
