package tosca1

// Phase 2 — imports of the ETSI NFV-SOL 001 type libraries, which VNF and
// NS packages import by their forge URL or by bare file name and expect
// the orchestrator (or the packaging step) to supply. Both resolve to the
// embedded copies of package sol001, without the network:
//
//   - a forge URL of an embedded version (sol001.ParseURL lists the
//     spellings) is that version's file;
//   - a bare name (etsi_nfv_sol001_vnfd_types.yaml) that is not on disk
//     beside the importer, nor beside the top-level file, is the file of
//     the version the template implies (sol001Version).
//
// A URL of a version that is not embedded stays a network import.

import (
	"strings"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/tosca/sol001"
)

// embedsSOL001URL reports whether ref is a forge URL of an embedded
// SOL001 file, which phase 2 reads without the network.
func embedsSOL001URL(ref string) bool {
	_, _, ok := sol001.Lookup(ref)
	return ok
}

// locateSOL001 returns the SOL001 file an import names by URL or by bare
// file name: a copy of that file and version already loaded from disk (so
// that a package's own copy and the embedded one do not define the same
// types twice), else the embedded file (data non-nil).
func (c *compiler) locateSOL001(from *file, ref string) (string, []byte, bool) {
	version, name, ok := sol001.ParseURL(ref)
	if !ok {
		if !sol001.IsFileName(ref) {
			return "", nil, false
		}
		version, name = c.sol001Version(from), ref
	}
	for _, f := range c.order {
		if f.dir != "" && sol001Metadata(f) == name+"@"+version {
			return f.name, nil, true
		}
	}
	return sol001.LookupFile(name, version)
}

// sol001Metadata is "<file>@<version>" for a SOL001 file that says so in
// its metadata (template_name, template_version), else "".
func sol001Metadata(f *file) string {
	md := f.root.Get("metadata")
	name, _ := md.Get("template_name").String()
	version, _ := md.Get("template_version").String()
	if !sol001.IsFileName(name+".yaml") || version == "" {
		return ""
	}
	return name + ".yaml@" + version
}

// sol001Version is the version a bare SOL001 file name imported by from
// resolves to, the first that applies of:
//
//  1. the version of a forge URL of an embedded SOL001 file among from's
//     own imports;
//  2. the template_version of a SOL001 file already loaded (from disk or
//     embedded), in load order, so that the files of one package agree;
//  3. sol001.DefaultVersion of from's tosca_definitions_version.
func (c *compiler) sol001Version(from *file) string {
	for _, it := range from.root.Get("imports").Items() {
		ref := importRef(it)
		if v, file, ok := sol001.ParseURL(ref); ok && sol001.Embedded(file, v) {
			return v
		}
	}
	for _, f := range c.order {
		if name, v, ok := strings.Cut(sol001Metadata(f), "@"); ok && sol001.Embedded(name, v) {
			return v
		}
	}
	written, _ := from.root.Get("tosca_definitions_version").String()
	return sol001.DefaultVersion(written)
}

// importRef is the file an import entry names in any of its forms (a
// string, {file: …}, or the 1.0 {name: file} / {name: {file: …}}), or "".
func importRef(it *yamlsrc.Node) string {
	if s, ok := it.String(); ok {
		return s
	}
	if s, ok := it.Get("file").String(); ok {
		return s
	}
	if len(it.Content) != 2 {
		return ""
	}
	v := it.Content[1]
	if s, ok := v.String(); ok {
		return s
	}
	s, _ := v.Get("file").String()
	return s
}
