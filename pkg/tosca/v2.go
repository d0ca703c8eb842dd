package tosca

// TOSCA 2.0: the front end of tosca_definitions_version tosca_2_0 files.
//
// A 2.0 service template is compiled by the same compiler value as a 1.x
// one (its file loading and confinement, limits, diagnostics and
// follow-on suppression, dependency cycles and the graph it renders to),
// with the 2.0 grammar and semantics in the v2*.go files, in the order
// compile2 calls them:
//
//	v2read.go          the file grammar: version first, keynames, profile, dsl_definitions, repositories
//	v2imports.go       imports by url (relative, repository-root "/", file://), by profile name, with namespace
//	profilepath.go     the profile search path and the embedded org.oasis-open.simple:2.0 profile
//	v2scope.go         namespaces: the names each file sees, its own and its imports' (qualified ns:name)
//	v2types.go         type declaration, derivation and the 2.0 refinement rules
//	v2defs.go          the entity definitions of types: properties, capabilities, requirements, interfaces
//	v2scalar.go        scalar types (units, prefixes, canonical unit) and their values
//	v2funcdefs.go      custom function definitions (signatures), checked calls
//	v2expr.go          the $function syntax ($$ escapes, $name$suffix keys), the static check of calls
//	v2funcs.go         the built-in functions evaluated at compile time
//	v2values.go        values checked against definitions, validation clauses evaluated with $value
//	v2secrets.go       which values are secrets (sensitive definitions and what derives from them)
//	v2templates.go     the service template: inputs, node and relationship templates, requirements, groups,
//	                   policies, outputs
//	v2expand.go        the expansion limit: representations and relationships counted before they are built
//	v2substitution.go  substitution mappings and workflows
//	v2render.go        the graph.Graph: one resource per representation (web[0], web[1]), edges,
//	                   exec-driver operations of the Standard interface, placement requests
//
// 2.0 files and 1.x files are not mixed in one compile: a 2.0 file
// imports 2.0 files and profiles.

import (
	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/graph"
)

// version20 is the tosca_definitions_version of TOSCA 2.0 (§6.2).
const version20 = "tosca_2_0"

// state2 is the state of a 2.0 compile.
type state2 struct {
	// scopes holds the namespace of each loaded 2.0 file (v2scope.go).
	scopes map[*file]*scope2
	// files lists the 2.0 files in load order (imports before importers).
	files []*file
	// repoRoot is the folder a url with a leading "/" is read from, by
	// file: the configuration root for the template's files, the search
	// folder a profile was found in for its files (v2imports.go).
	repoRoot map[*file]string
	// profiles holds the root file of each profile loaded, by name.
	profiles map[string]*file
	// index is the profile search path's index (profilepath.go).
	index *ProfileIndex
	// builtins holds the built-in data types by name.
	builtins map[string]*typeDef2
	// types lists every declared type in declaration order.
	types []*typeDef2
	// funcs lists every function definition in declaration order.
	funcs []*funcDef2
	// later holds the checks that need every type resolved.
	later []func()
	// checked marks the function calls whose static check ran.
	checked map[*yamlsrc.Node]bool
	// secretSrc marks the values written for sensitive definitions, whose
	// calls the index shows no result of (v2secrets.go).
	secretSrc map[*yamlsrc.Node]bool
	// calls holds the signature each evaluated custom function call
	// chose (matchSig2), for the check of its result.
	calls map[*yamlsrc.Node]*sig2
	// evaluating marks the capability values $available_allocation
	// evaluates ahead of their template (capValue2), against a value that
	// reads itself.
	evaluating map[*yamlsrc.Node]bool
	topo       *topology2
}

// compile2 runs the 2.0 phases on the loaded root file (nil when it could
// not be read) and returns the graph, nil when errors prevent one.
func (c *compiler) compile2(root *file) *graph.Graph {
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
	c.declareTypes2()
	c.checkNamespaces2()
	c.readFunctions2()
	c.resolveTypes2()
	for _, check := range c.v2.later {
		check()
	}
	c.readTopology2(root)
	if c.StoppedNow() {
		c.ReportCanceled(root.name)
		return nil
	}
	g := c.render2()
	if g != nil {
		c.CheckCycles(g)
	}
	if c.StoppedNow() {
		c.ReportCanceled(root.name)
		return nil
	}
	return g
}
