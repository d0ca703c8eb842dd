package config

import (
	"context"
	"regexp"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/manifest"
	"github.com/xosplan/xosplan/pkg/tosca"
)

// CodeUnknownFormat marks a file that is neither TOSCA, a manifest nor a
// provider inventory.
const CodeUnknownFormat = "validate.unknown_format"

// Format is the kind of a configuration unit, which decides its front end.
type Format string

// Formats a configuration unit can have.
const (
	FormatTOSCA    Format = "tosca"
	FormatManifest Format = "manifest"
	// FormatProviders is a Placement provider inventory (`providers:`, as
	// --providers takes): it is checked, not compiled, and makes no unit.
	FormatProviders Format = "providers"
)

// toscaMarker and manifestMarker find the top-level key that decides a
// file's format without parsing it, so the front end's parse is the only
// one (manifest.LooksLike is this same key): a file that has
// tosca_definitions_version is TOSCA whatever else it holds.
var (
	toscaMarker    = regexp.MustCompile(`(?m)^tosca_definitions_version[ \t]*:`)
	manifestMarker = regexp.MustCompile(`(?m)^application[ \t]*:`)
)

// detectFormat reads a file and says which front end takes it. Problems
// reading or parsing it are returned as diagnostics (once: a file that
// fails to parse goes to no front end), and a file that is neither format
// gets a CodeUnknownFormat warning and the format "".
func detectFormat(ctx context.Context, root *Root, path string) (Format, diag.Diagnostics) {
	var diags diag.Diagnostics
	data, problem := ReadFile(ctx, path, root)
	if problem != nil {
		return "", diags.Append(*problem)
	}
	switch {
	case toscaMarker.Match(data):
		return FormatTOSCA, nil
	case manifestMarker.Match(data):
		return FormatManifest, nil
	}
	// Every document is read so that a multi-document stream of another
	// tool (Kubernetes objects, say) met in a folder walk is an unknown
	// format, not an error; the front end reports extra documents in a
	// file it takes.
	docs, parseDiags := yamlsrc.ParseAllContext(ctx, path, data, yamlsrc.Limits{})
	if ctx.Err() != nil {
		// Load reports that it stopped.
		return "", nil
	}
	if parseDiags.HasErrors() {
		return "", parseDiags
	}
	diags = diags.Extend(parseDiags)
	if len(docs) == 0 {
		return "", diags.Warnf(fileStart(path), "", CodeUnknownFormat, "file is empty; it is neither a TOSCA template nor a manifest")
	}
	for _, doc := range docs {
		switch {
		case tosca.LooksLike(doc):
			return FormatTOSCA, diags
		case manifest.LooksLike(doc):
			return FormatManifest, diags
		case isProviderInventory(doc):
			return FormatProviders, diags
		}
	}
	// Sensitive: a file that is not configuration may hold anything (an
	// inputs file of secrets, say); no line of it is shown.
	return "", diags.Append(diag.Diagnostic{Severity: diag.Warning, Code: CodeUnknownFormat, Range: docs[0].Range, Sensitive: true,
		Summary: "neither a TOSCA template nor a manifest; skipped",
		Detail: "A TOSCA file has tosca_definitions_version or TOSCA sections (topology_template, node_types, …); " +
			"a manifest has a top-level application key; a provider inventory has a top-level providers list."})
}

// isProviderInventory reports whether a document is a Placement provider
// inventory: a map whose only key is a `providers` list.
func isProviderInventory(doc *yamlsrc.Node) bool {
	pairs := doc.Pairs()
	return len(pairs) == 1 && pairs[0].Key.Value == "providers" && pairs[0].Value.Kind == yamlsrc.Sequence
}
