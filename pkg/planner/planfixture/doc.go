// Package planfixture holds the planner's test inputs that more than one
// package's tests use: the loader of a case folder of
// pkg/planner/testdata/cases (desired.json, state.json, options.json) and
// the generator of the benchmarks' large graph and state.
//
// It lives beside the planner whose inputs it holds and is for _test.go
// files only (the layering test enforces that), so it may call t.Fatal. It
// does not import pkg/planner: the planner's own in-package tests use it,
// which would be an import cycle, so options come back as this package's
// Options and each caller converts them.
package planfixture
