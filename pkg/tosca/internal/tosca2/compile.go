package tosca2

import (
	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/symbols"
	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
)

// Options are what a 2.0 compile takes of tosca.Options, which documents
// them.
type Options struct {
	Inputs        map[string]any
	RequireInputs bool
	InputRanges   map[string]diag.Range
	Root          []string
	ImportMap     map[string]string
	ProfilePath   []string
	Profiles      *ProfileIndex
}

// Compile is one compile of a 2.0 service template, on the session of
// pkg/tosca's compile, which read the root file and found it 2.0: Load
// loads it with its imports, Graph compiles it, Index indexes it.
type Compile struct {
	c    *compiler
	root *file
}

// New starts a 2.0 compile on s.
func New(s *core.Session, opts Options) *Compile {
	return &Compile{c: &compiler{Session: s, opts: opts, files: map[string]*file{}}}
}

// Load loads the root file path, parsed as root, and what it imports.
func (x *Compile) Load(path string, root *yamlsrc.Node) { x.root = x.c.loadRoot(path, root) }

// Graph runs the phases on the loaded root file and returns the graph,
// nil when errors prevent one.
func (x *Compile) Graph() *graph.Graph { return x.c.compile(x.root) }

// Index returns the index of the names the compile resolved.
func (x *Compile) Index() *symbols.Index { return x.c.buildIndex() }

// compiler holds the state of one 2.0 compile. Nothing is shared between
// compiles but the session.
type compiler struct {
	*core.Session
	opts Options
	// files holds the loaded files by key (core.FileKey); order lists
	// them in load order; root is the top-level file.
	files map[string]*file
	order []*file
	root  *file
	// steps counts the value work done (spend).
	steps int
	// state holds the state of the phases.
	state *compileState
}

// file is one loaded service template, type-definition or profile file.
type file struct {
	// name is the path used in diagnostics (as the user wrote it, joined
	// with import paths), or a pseudo name for embedded profiles.
	name string
	// key identifies the file so that it is parsed once.
	key string
	// dir resolves relative imports; empty for embedded files.
	dir  string
	root *yamlsrc.Node
	// version is the file's tosca_definitions_version.
	version string
	// normative marks the embedded profiles' files.
	normative bool
}

// undeclaredInputs reports the input values given for inputs the template
// does not declare (core.Session.UndeclaredInputs).
func (c *compiler) undeclaredInputs(declared map[string]bool, section string, fallback diag.Range) {
	c.UndeclaredInputs(c.opts.Inputs, c.opts.InputRanges, c.root.name, declared, section, fallback)
}

// Version is the tosca_definitions_version of TOSCA 2.0 (§6.2).
const Version = "tosca_2_0"

// compileState is the state of a 2.0 compile.
type compileState struct {
	// scopes holds the namespace of each loaded 2.0 file (scope.go).
	scopes map[*file]*scope
	// files lists the 2.0 files in load order (imports before importers).
	files []*file
	// repoRoot is the folder a url with a leading "/" is read from, by
	// file: the configuration root for the template's files, the search
	// folder a profile was found in for its files (imports.go).
	repoRoot map[*file]string
	// profiles holds the root file of each profile loaded, by name.
	profiles map[string]*file
	// index is the profile search path's index (profilepath.go).
	index *ProfileIndex
	// builtins holds the built-in data types by name.
	builtins map[string]*typeDef
	// types lists every declared type in declaration order.
	types []*typeDef
	// funcs lists every function definition in declaration order.
	funcs []*funcDef
	// later holds the checks that need every type resolved.
	later []func()
	// checked marks the function calls whose static check ran.
	checked map[*yamlsrc.Node]bool
	// secretSrc marks the values written for sensitive definitions, whose
	// calls the index shows no result of (secrets.go).
	secretSrc map[*yamlsrc.Node]bool
	// calls holds the signature each evaluated custom function call
	// chose (matchSig), for the check of its result.
	calls map[*yamlsrc.Node]*sig
	// evaluating marks the capability values $available_allocation
	// evaluates ahead of their template (capValue), against a value that
	// reads itself.
	evaluating map[*yamlsrc.Node]bool
	topo       *topology
	// hasOps holds, per type and interface kind, whether the type's
	// interfaces of the kind define an operation with an implementation
	// (render.go).
	hasOps map[lifecycleKey]bool
	// secretDefs holds the secret definitions of each type rendered
	// (secrets.go).
	secretDefs map[*typeDef]*typeSecrets
	// funcFound holds what findFunc found, once every function is read
	// (nil before).
	funcFound map[funcKey]*funcDef
	// anyFunc is set when a file declares a custom function.
	anyFunc bool
	// attrValued holds, per relationship type, whether an attribute
	// definition gives a value (relattrs.go).
	attrValued map[*typeDef]bool
	// clauses holds the validation clauses compiled (cclause, values.go);
	// args is the stack of their calls' arguments.
	clauses map[clauseKey]*cexpr
	args    []graph.Value
	// defaults holds the defaults whose check is the same for every
	// template (knownDefault, values.go).
	defaults map[defaultKey]checkedValue
	// results holds the call results whose check is the same wherever
	// they are checked (resultKey, values.go).
	results map[resultKey]checkedValue
	// noValues is the values of the capabilities that have no
	// properties or attributes (nodeValues): one empty map, never
	// written.
	noValues map[string]graph.Value
	// emptyCaps holds, per node type, the capability values of its
	// templates that assign none, when they are all noValues; nil for a
	// type with a capability that has definitions (emptyCaps).
	emptyCaps map[*typeDef]map[string]map[string]graph.Value
	// reqChunks and reqLists are the chunks newReqAssigns takes
	// requirement assignments and their lists from.
	reqChunks core.Chunks[reqAssign]
	reqLists  core.Chunks[*reqAssign]
	// paths is the chunk the paths of templates are joined in
	// (paths.go).
	paths paths
	// resources is the slab render takes resources from.
	resources []graph.Resource
}

// compile runs the 2.0 phases on the loaded root file (nil when it could
// not be read) and returns the graph, nil when errors prevent one.
func (c *compiler) compile(root *file) *graph.Graph {
	if root == nil || c.StoppedNow() {
		if c.StoppedNow() {
			name := ""
			if root != nil {
				name = root.name
			}
			c.ReportCanceled(name)
		}
		return nil
	}
	if !c.analyze(root) {
		c.ReportCanceled(root.name)
		return nil
	}
	valid := !c.Diags.HasErrors()
	g := c.render()
	if g != nil && valid {
		// A partial graph's cycles may be the errors' doing.
		c.CheckCycles(g)
	}
	if c.StoppedNow() {
		c.ReportCanceled(root.name)
		return nil
	}
	return g
}

// analyze runs the phases before render on the loaded root file: types,
// functions, the topology and its values; false when the compile
// stopped.
func (c *compiler) analyze(root *file) bool {
	c.declareTypes()
	c.checkNamespaces()
	c.readFunctions()
	c.state.funcFound = map[funcKey]*funcDef{}
	for _, s := range c.state.scopes {
		c.state.anyFunc = c.state.anyFunc || len(s.funcs) > 0
	}
	c.resolveTypes()
	for _, check := range c.state.later {
		check()
	}
	c.readTopology(root)
	return !c.StoppedNow()
}
