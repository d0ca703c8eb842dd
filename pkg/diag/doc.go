// Package diag owns xosplan's diagnostics: user-input problems with a
// severity, a stable code, a summary, a detail, a source range and the YAML
// path of the offending node.
//
// Diagnostics accumulate rather than abort: a checker appends every problem
// it finds to a Diagnostics list and returns it beside a usable partial
// result. A list becomes an error only at the API edge (Diagnostics.Err).
// This package imports nothing else of xosplan's.
package diag
