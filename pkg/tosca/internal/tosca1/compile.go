package tosca1

import (
	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/symbols"
	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
	"github.com/xosplan/xosplan/pkg/tosca/internal/values"
)

// Options are what a 1.x compile takes of tosca.Options, which documents
// them.
type Options struct {
	Inputs        map[string]any
	RequireInputs bool
	InputRanges   map[string]diag.Range
	Root          []string
	ImportMap     map[string]string
	SelfContained bool
}

// Compile is one compile of a TOSCA 1.0–1.3 file, on the session of
// pkg/tosca's compile, which read the root file: Load loads it with its
// imports, Graph compiles it, Index indexes it.
type Compile struct {
	c    *compiler
	root *file
}

// New starts a 1.x compile on s; indexed records, as names resolve, what
// Index needs.
func New(s *core.Session, opts Options, indexed bool) *Compile {
	c := &compiler{Session: s, opts: opts, files: map[string]*file{}}
	for k := range c.ns {
		c.ns[k] = map[string]*typeDef{}
	}
	if indexed {
		c.idx = &indexer{}
	}
	return &Compile{c: c}
}

// Load loads the root file path, parsed as root, the normative types of
// its version and what it imports.
func (x *Compile) Load(path string, root *yamlsrc.Node) { x.root = x.c.loadRoot(path, root) }

// Graph runs the phases on the loaded root file path (none when it could
// not be read) and returns the graph, nil when errors prevent one.
func (x *Compile) Graph(path string) *graph.Graph {
	c, root := x.c, x.root
	if root == nil || c.StoppedNow() {
		if c.StoppedNow() {
			c.ReportCanceled(path)
		}
		return nil
	}
	for _, phase := range []func(){c.loadNonNormative, c.declareAllTypes, c.resolveAllTypes, c.checkCredentials,
		func() { c.readTopology(root) }, c.matchRequirements, c.checkTopology, c.resolveFunctions} {
		phase()
		if c.StoppedNow() {
			c.ReportCanceled(path)
			return nil
		}
	}
	g := c.render()
	c.CheckCycles(g)
	if c.StoppedNow() {
		c.ReportCanceled(path)
		return nil
	}
	return g
}

// Index returns the index of the names the compile resolved (New with
// indexed).
func (x *Compile) Index() *symbols.Index { return x.c.buildIndex() }

// compiler holds the state of one Compile call. Nothing is shared between
// calls.
type compiler struct {
	// Session holds what the 1.x and 2.0 compiles share: the context and
	// cancellation, the configuration root and the files of an archive,
	// the diagnostics and their follow-ons.
	*core.Session
	opts Options
	// opHosts holds the operation_host of the operations that give one,
	// by path (drivers.go).
	opHosts map[string]string

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
	// secretNode marks the node templates with a secret property or
	// capability property (secrets.go).
	secretNode map[*nodeTpl]bool
	// reads lists, in evaluation order, every get_property,
	// get_attribute and get_operation_output by which a node template
	// names another one (functions.go); render makes them edges.
	reads []readRef
	// idx records names as they resolve for CompileIndexed; nil for
	// Compile.
	idx *indexer
	// reqChunks and reqLists are what newReqAssigns takes from.
	reqChunks core.Chunks[reqAssign]
	reqLists  core.Chunks[*reqAssign]
}

func (c *compiler) errorf(r diag.Range, path, code, format string, args ...any) {
	c.Errorf(r, path, code, format, args...)
}

func (c *compiler) warnf(r diag.Range, path, code, format string, args ...any) {
	c.Warnf(r, path, code, format, args...)
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
