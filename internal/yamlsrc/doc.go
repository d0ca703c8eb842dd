// Package yamlsrc reads YAML documents into a tree of Nodes that carry their
// source range, within documented limits, and reports every problem as a
// diagnostic with file:line:col. It is the only package of xosplan that
// imports the YAML library; no other package sees that library's types.
//
// Guarantees: Parse never panics and never hangs on any input. Files larger
// than Limits.MaxFileBytes, files of more than Limits.MaxNodes nodes
// (counted from the bytes before the YAML library builds its tree, for
// every document, aliases or not), nesting deeper than Limits.MaxDepth,
// scalars longer than Limits.MaxScalarBytes, collections longer than
// Limits.MaxItems, recursive aliases and alias expansion beyond
// Limits.MaxExpandedNodes are diagnostics. Merge keys (<<) are resolved.
// Duplicate mapping keys are kept in order; DuplicateKeys finds them so
// that each front end can decide their severity.
//
// A syntax error is placed where the library's scanner or parser found the
// problem (the mark PyYAML reports as problem_mark), read from the parser
// after it failed (problem.go), not at the line its message names, which
// is the line of the context (the mapping being parsed); the context is
// the diagnostic's detail. The place always lies inside the file.
//
// NameProblem and TextProblem hold the limits that depend on what a string
// means (names 255 characters without control characters, descriptions and
// metadata values 64 KiB); the front ends report them under their own codes.
package yamlsrc
