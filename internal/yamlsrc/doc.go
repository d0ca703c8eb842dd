// Package yamlsrc reads YAML documents into a tree of Nodes that carry their
// source range, within documented limits, and reports every problem as a
// diagnostic with file:line:col. It is the only package of xosplan that
// imports the YAML library; no other package sees that library's types.
//
// Guarantees: Parse never panics and never hangs on any input. Files larger
// than Limits.MaxFileBytes, files of more than Limits.MaxNodes nodes
// (counted from the bytes before the YAML library builds its tree, for
// every document, aliases or not; the fast reader counts as it reads,
// and holds that count to the same limit), nesting deeper than Limits.MaxDepth,
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
// Two readers, one result. The YAML library's parse alone (ParseFloor) is
// the floor issue 25 (row 1) measures validate against: validate of
// 10,000 TOSCA 1.3 node templates must cost at most 1.5× its CPU. Building
// the library's tree and converting it into ours cost 1.4× that floor on
// its own (BenchmarkReadOverFloor10k, medians of three runs: 182 ms
// against 128 ms of CPU, and a million allocations), which left little
// for the compile. So a hand-written reader (fast.go) reads the YAML
// that templates are written in straight from the bytes into our tree:
// 34 ms, 0.27× the floor (2.0: 0.26×), in 256 allocations (nodes in
// slabs, Content slices of one backing array, scalars as substrings of
// one copy of the file). It
// reads one document of block mappings and sequences (compact and
// indentless forms included), flow collections over one or several
// lines, plain scalars (over several lines only in a block), single- and
// double-quoted scalars on one line, literal and folded block scalars,
// and comments, after an optional "---"; it resolves plain scalars as the library does
// (resolve.go). Anything else, any syntax error and any limit reached
// go to the library path unchanged, so every diagnostic comes from
// there: anchors, aliases, tags, merge keys, explicit keys, directives,
// several documents, tabs, carriage returns, a byte order mark, quoted
// scalars over several lines, plain scalars over several lines in a
// flow collection. Both give the same tree, ranges and diagnostics for every file the fast reader reads; a differential
// fuzz test (FuzzFastReaderMatchesLibrary) and every YAML file of the
// corpus (TestFastReaderMatchesOnRealFiles) hold them to it.
//
// NameProblem and TextProblem hold the limits that depend on what a string
// means (names 255 characters without control characters, descriptions and
// metadata values 64 KiB); the front ends report them under their own codes.
package yamlsrc
