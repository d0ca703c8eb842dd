package tosca

import (
	"context"
	"os"
	"path/filepath"
	"slices"

	"github.com/xosplan/xosplan/internal/userfile"
	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/tosca/internal/values"
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
	keys := append(topLevelKeys(), topLevelKeys2()...)
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
	return newCompiler(ctx, opts).compile(path)
}

// compile runs the phases (see Compile).
func (c *compiler) compile(path string) (*graph.Graph, diag.Diagnostics) {
	root := c.loadRoot(path)
	if c.v2 != nil {
		// A TOSCA 2.0 service template: its own front end (v2.go).
		return c.compile2(root), c.finish()
	}
	if root == nil || c.stoppedNow() {
		if c.stoppedNow() {
			c.reportCanceled(path)
		}
		return nil, c.finish()
	}
	for _, phase := range []func(){c.loadNonNormative, c.declareAllTypes, c.resolveAllTypes, c.checkCredentials,
		func() { c.readTopology(root) }, c.matchRequirements, c.checkTopology, c.resolveFunctions} {
		phase()
		if c.stoppedNow() {
			c.reportCanceled(path)
			return nil, c.finish()
		}
	}
	g := c.render()
	c.checkCycles(g)
	if c.stoppedNow() {
		c.reportCanceled(path)
		return nil, c.finish()
	}
	return g, c.finish()
}

// compiler holds the state of one Compile call. Nothing is shared between
// calls.
type compiler struct {
	ctx context.Context
	// halt is set once ctx has ended (cancel.go).
	halt halt
	opts Options
	// fsRoot confines the files the template names (built from
	// Options.Root, or the top-level file's folder); confined remembers
	// the names checked.
	fsRoot   *userfile.Root
	confined map[confinedKey]bool
	// playbookOps holds the paths of the operations whose implementation
	// is an artifact of an Ansible type (drivers.go).
	playbookOps map[string]bool
	// opHosts holds the operation_host of the operations that give one,
	// by path (drivers.go).
	opHosts map[string]string

	diags diag.Diagnostics
	// wd is the working folder, read once for display.
	wd string
	// followOns counts, by the index in diags of a root cause, the
	// problems that follow from it and are not reported (follow.go).
	followOns map[int]int
	// unknownAt holds, by kind and name, the index in diags of the report
	// of a type name that is not defined; importFailed is the index of the
	// first import that could not be loaded, or -1.
	unknownAt    map[unknownKey]int
	importFailed int

	// files by cleaned absolute path (or pseudo name for embedded ones);
	// order lists them in load order (root first after normative).
	files map[string]*file
	order []*file
	root  *file

	// version is the root file's tosca_definitions_version.
	version string

	// ns holds the types of each kind by every name they may be
	// referenced with.
	ns [numKinds]map[string]*typeDef
	// declared lists every declared type in declaration order.
	declared []*typeDef

	topo *topology

	// inTypes is set while type definitions are read: tosca-parser does not
	// check the grammar inside type definitions, and real type files (XOS,
	// tosca-parser's own test data) carry misspelt keynames there, so those
	// problems are warnings. Unknown types and parents stay errors.
	inTypes bool
	// readingVersion is the tosca_definitions_version of the file whose
	// type definitions are being read, "" for the root file (versions.go).
	readingVersion string
	// substituted lists "template\x00requirement" pairs exposed by
	// substitution mappings: they are satisfied outside the topology.
	substituted map[string]bool
	// substitutes holds the node types that imported templates substitute.
	substitutes map[*typeDef]bool
	// satisfiers memoizes whether any node type satisfies a requirement
	// definition (requirements.go).
	satisfiers map[*reqDef]bool
	// implicit lists, by requirement definition, the templates that
	// satisfy it (requirements.go).
	implicit map[*reqDef]*implicitSet
	// filterCons caches parsed node_filter constraints.
	filterCons map[*yamlsrc.Node]*values.Constraint
	// opWork memoizes hasOpWork per type.
	opWork map[*typeDef]bool
	// xos is 0 until xosTopology is known, then 1 (an XOS recipe) or 2.
	xos uint8
	// steps and defaultNesting bound value work (see maxValueSteps).
	steps          int
	defaultNesting int
	// secretReads counts reads of secrets during evaluation; secretAt
	// marks the value paths whose values are secret, secretNode the node
	// templates with such a property or capability property (secrets.go).
	secretReads int
	secretAt    map[string]bool
	secretNode  map[*nodeTpl]bool
	// inSecret is above zero while a value of a sensitive definition is
	// checked: its diagnostics must not quote it (secrets.go).
	inSecret int
	// reads lists, in evaluation order, every get_property,
	// get_attribute and get_operation_output by which a node template
	// names another one (functions.go); render makes them edges.
	reads []readRef
	// idx records names as they resolve for CompileIndexed; nil for
	// Compile.
	idx *indexer
	// v2 holds the state of a TOSCA 2.0 compile (v2.go); nil for 1.x.
	v2 *state2
}

func newCompiler(ctx context.Context, opts Options) *compiler {
	if ctx == nil {
		ctx = context.Background()
	}
	c := &compiler{ctx: ctx, opts: opts, files: map[string]*file{}, importFailed: -1}
	for k := range c.ns {
		c.ns[k] = map[string]*typeDef{}
	}
	return c
}

func (c *compiler) errorf(r diag.Range, path, code, format string, args ...any) {
	c.diags = c.diags.Errorf(r, path, code, format, args...)
	c.hideSecretLine()
}

func (c *compiler) warnf(r diag.Range, path, code, format string, args ...any) {
	c.diags = c.diags.Warnf(r, path, code, format, args...)
	c.hideSecretLine()
}

// hideSecretLine marks the diagnostic just reported Sensitive when it was
// reported while a secret is checked: its source line may hold the
// secret.
func (c *compiler) hideSecretLine() {
	if c.inSecret > 0 && len(c.diags) > 0 {
		c.diags[len(c.diags)-1].Sensitive = true
	}
}

// lenientf reports a grammar problem: an error, or a warning inside type
// definitions (see compiler.inTypes).
func (c *compiler) lenientf(r diag.Range, path, code, format string, args ...any) {
	if c.inTypes {
		c.warnf(r, path, code, format, args...)
		return
	}
	c.errorf(r, path, code, format, args...)
}

// display names a file in a message: relative to the working folder when
// it lies inside it, as the files of diagnostics are named.
func (c *compiler) display(name string) string {
	if !filepath.IsAbs(name) {
		return name
	}
	if c.wd == "" {
		c.wd, _ = os.Getwd()
	}
	if rel, err := filepath.Rel(c.wd, name); err == nil && filepath.IsLocal(rel) {
		return rel
	}
	return name
}

// errorDetail appends an error with a multi-line detail.
func (c *compiler) errorDetail(r diag.Range, path, code, detail, format string, args ...any) {
	c.errorf(r, path, code, format, args...)
	c.diags[len(c.diags)-1].Detail = detail
}

// rangeOf returns the node's range, or the zero range for nil.
func rangeOf(n *yamlsrc.Node) diag.Range {
	if n == nil {
		return diag.Range{}
	}
	return n.Range
}

// joinPath appends a key to a dotted YAML path.
func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
