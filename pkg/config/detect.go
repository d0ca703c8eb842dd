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
// provider inventory: an error for a file named, a warning for one met
// in a folder walk, which is skipped (Result.Skipped).
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
// fails to parse goes to no front end). A file that is neither format gets
// the format "" and a CodeUnknownFormat diagnostic: a warning when it was
// met in a folder walk (walked), where it is skipped (without a warning
// when it is a list of mappings: an Ansible playbook or task list); an error when the
// user named it, since a file named to be checked that is not checked
// cannot pass. A named mapping with a TOSCA keyname but no
// tosca_definitions_version (description and metadata only, say) is
// TOSCA, so that the compiler reports the missing version (OASIS assertion
// MissingTOSCAVersion).
func detectFormat(ctx context.Context, root *Root, path string, walked bool) (Format, diag.Diagnostics) {
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
	severity, skipped := diag.Error, ""
	if walked {
		severity, skipped = diag.Warning, "; skipped"
	}
	if len(docs) == 0 {
		return "", diags.Append(diag.Diagnostic{Severity: severity, Code: CodeUnknownFormat, Range: fileStart(path),
			Summary: "file is empty; it is neither a TOSCA template nor a manifest"})
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
	if !walked && len(docs) == 1 && tosca.HasKeyname(docs[0]) {
		return FormatTOSCA, diags
	}
	if walked && allMappingLists(docs) {
		// An Ansible playbook or task list beside the templates that run
		// it (xOpera's layout): skipped without a word.
		return "", diags
	}
	summary := "neither a TOSCA template nor a manifest" + skipped
	if !walked {
		summary = "neither a TOSCA template nor a manifest: it has no tosca_definitions_version, nor a manifest's application key"
	}
	// Sensitive: a file that is not configuration may hold anything (an
	// inputs file of secrets, say); no line of it is shown.
	return "", diags.Append(diag.Diagnostic{Severity: severity, Code: CodeUnknownFormat, Range: docs[0].Range, Sensitive: true,
		Summary: summary,
		Detail: "A TOSCA file has tosca_definitions_version or TOSCA sections (topology_template, node_types, …); " +
			"a manifest has a top-level application key; a provider inventory has a top-level providers list." + namedDetail(walked)})
}

// namedDetail is the sentence a named file of unknown format adds to its
// diagnostic's detail.
func namedDetail(walked bool) string {
	if walked {
		return ""
	}
	return " A file named on the command line must be one of these; only a folder walk skips other files."
}

// isProviderInventory reports whether a document is a Placement provider
// inventory: a map whose only key is a `providers` list.
func isProviderInventory(doc *yamlsrc.Node) bool {
	pairs := doc.Pairs()
	return len(pairs) == 1 && pairs[0].Key.Value == "providers" && pairs[0].Value.Kind == yamlsrc.Sequence
}

// allMappingLists reports whether every document is a non-empty list of
// mappings at its top level, as Ansible playbooks (plays) and task lists
// (tasks) are and no configuration file is.
func allMappingLists(docs []*yamlsrc.Node) bool {
	for _, d := range docs {
		items := d.Items()
		if d.Kind != yamlsrc.Sequence || len(items) == 0 {
			return false
		}
		for _, it := range items {
			if it.Kind != yamlsrc.Mapping {
				return false
			}
		}
	}
	return len(docs) > 0
}
