package config

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
)

// Diagnostic codes of import map files; the package documentation
// explains each.
const (
	CodeImportMapNotMap    = "importmap.not_a_map"
	CodeImportMapBadEntry  = "importmap.bad_entry"
	CodeImportMapDuplicate = "importmap.duplicate_url"
)

// ReadImportMap reads an import map file: a YAML (or JSON) map of URLs
// that templates import to the local files read instead (Options.
// ImportMap). A relative file is taken from the map file's folder, so that
// the map and its copies can move together. The file is one the person
// running xosplan named: read with ReadFile's checks, not confined to a
// root. An empty file maps nothing; an entry that is not a URL mapped to
// a file name is an error, a URL given twice an error too (which copy is
// meant is ambiguous). The map holds every entry that could be read.
func ReadImportMap(ctx context.Context, path string) (map[string]string, diag.Diagnostics) {
	var diags diag.Diagnostics
	data, problem := ReadFile(ctx, path, nil)
	if problem != nil {
		return nil, diags.Append(*problem)
	}
	out := map[string]string{}
	root, parseDiags := yamlsrc.Parse(path, data, yamlsrc.Limits{})
	diags = diags.Extend(parseDiags)
	switch {
	case parseDiags.HasErrors(), root.IsNull():
		return out, diags
	case root.Kind != yamlsrc.Mapping:
		return out, diags.Errorf(root.Range, "", CodeImportMapNotMap, "an import map holds a map of URLs to local files, found %s", root.Describe())
	}
	for _, dup := range root.DuplicateKeys() {
		diags = diags.Errorf(dup.Key.Range, dup.Key.Value, CodeImportMapDuplicate, "URL %q is mapped more than once; which file is meant is ambiguous", dup.Key.Value)
	}
	dir := filepath.Dir(path)
	for _, p := range root.Pairs() {
		file, ok := p.Value.String()
		switch {
		case strings.TrimSpace(p.Key.Value) == "" || p.Key.Kind != yamlsrc.Scalar:
			diags = diags.Errorf(p.Key.Range, "", CodeImportMapBadEntry, "an import map's keys are the URLs templates import, found %s", p.Key.Describe())
			continue
		case !ok || strings.TrimSpace(file) == "":
			diags = diags.Errorf(p.Value.Range, p.Key.Value, CodeImportMapBadEntry, "URL %q must map to the name of a local file, found %s", p.Key.Value, p.Value.Describe())
			continue
		}
		if !filepath.IsAbs(file) {
			file = filepath.Join(dir, file)
		}
		out[p.Key.Value] = file
	}
	return out, diags
}
