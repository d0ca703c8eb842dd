// Package tosca2 compiles TOSCA 2.0 service templates
// (tosca_definitions_version tosca_2_0), for pkg/tosca, which reads the
// root file, sees its version and hands it over (New, Load, Graph,
// Index). It shares with the 1.x compiler only what internal/core holds
// (the session: file loading and confinement, limits, diagnostics and
// follow-on suppression, cancellation; dependency cycles; the codes, the
// kinds of type and the helpers of both), and never imports pkg/tosca.
// The 2.0 grammar and semantics are in these files, in the order the
// phases run:
//
//	read.go          the file grammar: version first, keynames, profile, dsl_definitions, repositories
//	imports.go       imports by url (relative, repository-root "/", file://), by profile name, with namespace
//	profilepath.go   the profile search path and the embedded org.oasis-open.simple:2.0 profile
//	scope.go         namespaces: the names each file sees, its own and its imports' (qualified ns:name)
//	types.go         type declaration, derivation and the 2.0 refinement rules
//	defs.go          the entity definitions of types: properties, capabilities, requirements, interfaces
//	scalar.go        scalar types (units, prefixes, canonical unit) and their values
//	funcdefs.go      custom function definitions (signatures), checked calls
//	expr.go          the $function syntax ($$ escapes, $name$suffix keys), the static check of calls
//	funcs.go         the built-in functions evaluated at compile time
//	path.go          TOSCA Path and the graph query functions that follow it
//	values.go        values checked against definitions, validation clauses evaluated with $value
//	                 (compiled once each, and a default the same for every template checked
//	                 once, so that checking 10,000 templates of a type costs no more than TOSCA
//	                 1.3 does: issue 25, BenchmarkValidateOverParse10k x-1.3; a call's
//	                 result the same for every template, {$get_input: mode}, is checked once too)
//	secrets.go       which values are secrets (sensitive definitions and what derives from them)
//	templates.go     the service template: inputs, node and relationship templates, requirements, groups,
//	                 policies, outputs (templates, requirement assignments and resources come from
//	                 slabs and chunks, empty values from one shared map: issue 25 row 4,
//	                 BenchmarkCompileAfterParse2_10k and TestCompileAfterParse2Allocs in pkg/tosca)
//	paths.go         the YAML paths of templates and their values joined in chunks rather than one
//	                 string each (the same budget: a third of the allocations after the parse)
//	expand.go        the expansion limit: representations and relationships counted before they are built
//	substitution.go  substitution mappings and workflows
//	outputs.go       operation outputs
//	render.go        the graph.Graph: one resource per representation (web[0], web[1]), edges,
//	                 exec-driver operations of the Standard interface, placement requests
//	finite.go        non-finite floats written as YAML text in the graph
//	index.go         the index of the names the compile resolved, for the language server
//	keynames.go      the grammar's keynames, for completion; schema.go its JSON Schema
//
// 2.0 files and 1.x files are not mixed in one compile: a 2.0 file
// imports 2.0 files and profiles.
package tosca2
