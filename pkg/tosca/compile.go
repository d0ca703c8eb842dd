package tosca

import (
	"context"
	"path/filepath"
	"slices"

	"github.com/xosplan/xosplan/internal/userfile"
	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/symbols"
	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
	"github.com/xosplan/xosplan/pkg/tosca/internal/tosca1"
	"github.com/xosplan/xosplan/pkg/tosca/internal/tosca2"
)

// Options tune Compile.
type Options struct {
	// Inputs are values for topology_template inputs (from --inputs FILE and
	// --var k=v); nil = none given.
	Inputs map[string]any
	// RequireInputs reports required inputs that have neither a value nor a
	// default (plan sets it; validate sets it only when input values were
	// given).
	RequireInputs bool
	// InputRanges says where each of Inputs was given: its value in an
	// inputs file, or a zero Range for a value of the command line (--var),
	// which has no position. A given value that does not fit its input,
	// and one given for an input the template does not declare, are
	// reported there, not at the template, which holds no such value; a
	// name without an entry is reported at the template.
	InputRanges map[string]diag.Range
	// Root lists the folders of the configuration root, which confines
	// every file the template names: the files it imports (file:// URLs
	// included), its artifacts and its operations' implementations must
	// lie inside one of them once their links are resolved, and only
	// regular files within the size limit are read. Messages name the
	// first folder as written here. Empty means the folder of the file
	// given to Compile. The embedded type libraries are not files and are
	// always allowed. (pkg/config finds the default root of a
	// configuration; its Root.Dirs gives these folders.)
	Root []string
	// ImportMap maps the URLs templates import to local files, which are
	// read instead: an import of a URL (or of a file from a repository,
	// by the repository's url joined with the file) found here exactly
	// as written reads the file it maps to (a relative name is taken from
	// the working folder). The mapping is the user's permission to read
	// that file: the compile's configuration root allows it
	// (userfile.Root.AllowFile), inside Root or not; the files it imports
	// in turn are confined to Root. A URL not in the map is a
	// tosca.network_import error: xosplan never fetches.
	ImportMap map[string]string
	// Files, when not nil, holds the files of a CSAR archive (pkg/config
	// opens one): every name the compile makes that Files contains (the
	// name given to Compile, and what its imports, artifacts and
	// operations name relative to it) is read from Files, and that is all
	// it can read besides the embedded type libraries and ImportMap's
	// files. Root still confines the names Files does not contain; empty,
	// it allows none.
	Files Files
	// SelfContained says the template is the entry definitions of a CSAR
	// (an archive, or a folder laid out as one), whose package holds every
	// file it names: an artifact file or an operation implementation given
	// by a relative path that names no file of the package (taken from the
	// folder of the file it is written in) is an error
	// (tosca.artifact_not_found, tosca.implementation_not_found), unless
	// the implementation names an artifact of its node.
	SelfContained bool
	// ProfilePath lists the folders searched for the TOSCA 2.0 profiles a
	// template imports by name (files declaring `profile: NAME`; see
	// NewProfileIndex), in search order, before the profiles xosplan
	// embeds (org.oasis-open.simple:2.0). Their files may be read wherever
	// they lie: the path is the user's choice. Ignored when Profiles is
	// set.
	ProfilePath []string
	// Profiles is an index of the search path built once
	// (NewProfileIndex) and shared by the compiles of a run; nil: Compile
	// indexes ProfilePath itself.
	Profiles *ProfileIndex
	// Parses keeps the parse of the files read for the next compile (an
	// editor's, see ParseCache); nil: every file is parsed.
	Parses *ParseCache
}

// Files is a tree of files that a compile reads in place of the file
// system (Options.Files), such as the members of a CSAR archive. Its
// names are those the compile makes: the name given to Compile, its
// folder joined with relative paths. Its methods are safe for concurrent
// use.
type Files interface {
	// Contains reports whether name lies inside the tree, whether or not
	// a file has that name.
	Contains(name string) bool
	// Exists reports whether name is a file of the tree.
	Exists(name string) bool
	// ReadFile returns the content of the file name, refusing one larger
	// than max bytes; an error wrapping fs.ErrNotExist when the tree has
	// no such file. It stops when ctx is done. No error quotes content.
	ReadFile(ctx context.Context, name string, max int64) ([]byte, error)
	// String names the tree in messages (an archive's file name).
	String() string
}

// isTopLevelSection reports whether k is a keyname that marks a document
// as TOSCA.
func isTopLevelSection(k string) bool {
	switch k {
	case "tosca_definitions_version", "topology_template", "node_types", "capability_types",
		"relationship_types", "data_types", "artifact_types", "interface_types", "group_types",
		"policy_types":
		return true
	}
	return false
}

// LooksLike reports whether a parsed document is TOSCA: it has
// tosca_definitions_version, or TOSCA top-level sections such as
// topology_template or node_types, and no Tonomi `application` key.
func LooksLike(root *yamlsrc.Node) bool {
	if root == nil || root.Kind != yamlsrc.Mapping || root.Get("application") != nil {
		return false
	}
	for _, p := range root.Pairs() {
		if isTopLevelSection(p.Key.Value) {
			return true
		}
	}
	return false
}

// HasKeyname reports whether a parsed document is a mapping, without the
// Tonomi `application` key, that holds a top-level keyname of a TOSCA file
// of some version (description, metadata, imports, service_template …):
// a weaker test than LooksLike, for a file the user named, which the
// compiler then reports on (a missing tosca_definitions_version, say)
// rather than skipping it.
func HasKeyname(root *yamlsrc.Node) bool {
	if root == nil || root.Kind != yamlsrc.Mapping || root.Get("application") != nil {
		return false
	}
	keys := append(tosca1.TopLevelKeys(), tosca2.TopLevelKeys()...)
	for _, p := range root.Pairs() {
		if slices.Contains(keys, p.Key.Value) {
			return true
		}
	}
	return false
}

// Compile loads the file at path with its imports, checks everything, and
// compiles the topology template (if any) to the IR. The graph is non-nil
// whenever errors do not prevent compiling (the root file was read and is a
// mapping); a type-definitions-only file compiles to an empty graph.
// Diagnostics are sorted. Compile never panics on bad input and never
// touches the network.
func Compile(ctx context.Context, path string, opts Options) (*graph.Graph, diag.Diagnostics) {
	g, _, diags := compile(ctx, path, opts, false)
	return g, diags
}

// CompileIndexed is Compile, which it calls with the same options and
// whose results it returns unchanged, with the index of the names the
// compile resolved: types, their properties, attributes, requirements
// and capabilities, templates, inputs, outputs, imported files, and what
// each function call resolves to. The index is never nil.
func CompileIndexed(ctx context.Context, path string, opts Options) (*graph.Graph, *symbols.Index, diag.Diagnostics) {
	return compile(ctx, path, opts, true)
}

// compile reads the root file and hands it to the compiler of its
// version: internal/tosca2 for TOSCA 2.0, internal/tosca1 for 1.0–1.3
// and for a file that could not be read. Both work on one session
// (internal/core); the index is built when indexed.
func compile(ctx context.Context, path string, opts Options, indexed bool) (*graph.Graph, *symbols.Index, diag.Diagnostics) {
	s := core.NewSession(ctx)
	s.Files, s.Archive = opts.Files, opts.Files != nil && len(opts.Root) == 0
	if opts.Parses != nil {
		s.Parse = opts.Parses.parse
	}
	root := readRoot(&s, path, opts)
	if root != nil && core.Text(root.Get("tosca_definitions_version")) == tosca2.Version {
		x := tosca2.New(&s, tosca2.Options{Inputs: opts.Inputs, RequireInputs: opts.RequireInputs,
			InputRanges: opts.InputRanges, Root: opts.Root, ImportMap: opts.ImportMap,
			ProfilePath: opts.ProfilePath, Profiles: opts.Profiles})
		x.Load(path, root)
		g := x.Graph()
		diags := s.Finish()
		if !indexed {
			return g, nil, diags
		}
		return g, x.Index(), diags
	}
	x := tosca1.New(&s, tosca1.Options{Inputs: opts.Inputs, RequireInputs: opts.RequireInputs,
		InputRanges: opts.InputRanges, Root: opts.Root, ImportMap: opts.ImportMap,
		SelfContained: opts.SelfContained}, indexed)
	if root != nil {
		x.Load(path, root)
	}
	g := x.Graph(path)
	diags := s.Finish()
	if !indexed {
		return g, nil, diags
	}
	return g, x.Index(), diags
}

// readRoot sets the configuration root of the compile, then reads and
// parses the file path; nil when it cannot be used.
func readRoot(s *core.Session, path string, opts Options) *yamlsrc.Node {
	dirs := opts.Root
	if len(dirs) == 0 && opts.Files == nil {
		dirs = []string{filepath.Dir(path)}
	}
	r, err := userfile.NewRoot(dirs...)
	if err != nil {
		s.Errorf(diag.Range{File: path}, "", CodeRead, "cannot read %s: %v", path, core.PlainErr(err))
		return nil
	}
	s.FSRoot = r
	data, err := s.ReadFile(path)
	if err != nil {
		s.Errorf(diag.Range{File: path}, "", CodeRead, "cannot read %s: %v", path, core.PlainErr(err))
		return nil
	}
	return s.ParseYAML(path, data)
}
